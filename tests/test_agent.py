"""The bounded controller and the evidence graph (issue 4)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest
from citerag.agent.graph import traverse
from citerag.agent.policies import Counters, Route, assess, budget_exhausted, route
from citerag.core.params import AgentParams
from citerag.core.paths import repo_root
from citerag.retrieval.query import analyse

ROOT = repo_root()


# -- policies (pure) ----------------------------------------------------------------------

@pytest.mark.parametrize("q,topics", [
    ("What are the differences between BIKE and HQC?", ("BIKE", "HQC")),
    ("Compare the signature sizes of ML-DSA-44 and SLH-DSA-SHA2-128s.", ("ML-DSA-44", "SLH-DSA-SHA2-128s")),
    ("ML-KEM-768 vs hqc-192: which has the smaller ciphertext?", ("ML-KEM-768", "hqc-192")),
    ("comparison of ML-KEM versus ML-DSA", ("ML-KEM", "ML-DSA")),
    # one noun for two participles ("a deprecated and a disallowed algorithm"); a noun keeps its own
    ("What is the difference between a deprecated and a disallowed algorithm?",
     ("deprecated algorithm", "disallowed algorithm")),
    ("What is the difference between speed and memory usage?", ("speed", "memory usage")),
])
def test_compare_phrase_families(q, topics):
    rt = route(q, analyse(q))
    assert rt.name == "compare" and rt.topics == topics


def test_identical_topics_rejected_and_other_routes():
    assert route("Compare ML-KEM and ML-KEM", analyse("Compare ML-KEM and ML-KEM")).name == "retrieve"
    assert route("What is a decapsulation key?", analyse("What is a decapsulation key?")).name == "resolve_definition"
    assert route("Summarize SP 800-227", analyse("Summarize SP 800-227")).name == "summarize"
    q = "What is the size of an ML-KEM-768 ciphertext?"
    assert route(q, analyse(q)).name == "retrieve"


def test_budgets_checked_in_one_place():
    p = AgentParams()
    assert budget_exhausted(Counters(steps=3, tool_calls=1, rounds=1), p) is None
    assert budget_exhausted(Counters(steps=3, tool_calls=1, rounds=2), p) == "max_rounds"
    assert budget_exhausted(Counters(steps=3, tool_calls=2, rounds=1), p, tool_calls_needed=2) == "max_tool_calls"
    assert budget_exhausted(Counters(steps=4, tool_calls=1, rounds=1), p) == "max_steps"


def test_assessment_reasons():
    p = AgentParams()
    qa = analyse("What are the steps of Algorithm 19?")
    a = assess(qa, Route("retrieve"), [("D", "some text about keys")], [0.9, 0.9], p)
    assert a.reason == "anchor_missing" and a.missing_anchors == ["algorithm 19"]
    a = assess(qa, Route("retrieve"), [("D", "Algorithm 19 ML-KEM.KeyGen()\n1: d")], [0.9, 0.9], p)
    assert a.reason is None
    cq = analyse("Compare BIKE and ML-DSA-44")
    rt = Route("compare", ("BIKE", "ML-DSA-44"))
    one_doc = [("A", "BIKE is a code-based KEM")]
    assert assess(cq, rt, one_doc, [0.9, 0.9], p).reason == "compare_doc_diversity_missing"
    two_docs = [("A", "BIKE is a code-based KEM"), ("B", "ML-DSA-44 signatures")]
    assert assess(cq, rt, two_docs, [0.9, 0.9], p).reason is None
    assert assess(analyse("x y z"), Route("retrieve"), [("A", "t")], [0.1], p).reason == "insufficient_hits"
    assert assess(analyse("x y z"), Route("retrieve"), [("A", "t")], [0.7], p).reason is None  # one strong hit


# -- traversal ----------------------------------------------------------------------------

def _graph():
    g = nx.MultiDiGraph()
    docs = {"a": "D1", "b": "D1", "c": "D1", "d": "D2", "e": "D2"}
    for n, d in docs.items():
        g.add_node(n, doc_id=d)
    for u, v, kind in [("a", "b", "next"), ("b", "a", "prev"), ("b", "c", "next"), ("a", "d", "xref"),
                       ("d", "e", "next"), ("c", "a", "term")]:
        g.add_edge(u, v, key=kind, kind=kind)
    return g


def test_traversal_state_and_stop_reasons():
    scores = {"a": 0.5, "b": 0.4, "c": 0.2, "d": 0.9, "e": 0.3}
    st = traverse(_graph(), [("a", 1.0)], scores.get, max_depth=3, confidence_threshold=0.99, min_sources=5)
    assert st.stop_reason == "frontier_empty"
    assert len(st.visited_nodes) == len(set(st.visited_nodes)) == 5
    assert len(st.visited_edges) == len(set(st.visited_edges))
    assert st.sources == {"D1", "D2"}
    d = next(f for f in st.findings if f.chunk_id == "d")
    assert (d.via, d.edge, d.depth) == ("a", "xref", 1)
    st = traverse(_graph(), [("a", 1.0)], scores.get, max_depth=3, confidence_threshold=0.99, min_sources=2)
    assert st.stop_reason == "sources_reached" and st.depth == 1
    st = traverse(_graph(), [("a", 1.0)], scores.get, max_depth=1, confidence_threshold=0.99, min_sources=5)
    assert st.stop_reason == "max_depth"
    st = traverse(_graph(), [("a", 1.0)], lambda n: 1.0, max_depth=3, confidence_threshold=0.5, min_sources=5)
    assert st.stop_reason == "confidence_reached"


def test_confidence_never_decreases():
    g = _graph()
    confidences = []
    scores = {"a": 0.9, "b": 0.0, "c": 0.0, "d": 0.0, "e": 0.0}
    for depth in range(4):
        st = traverse(g, [("a", 1.0)], scores.get, max_depth=depth, confidence_threshold=1.0, min_sources=9)
        confidences.append(st.confidence)
    assert confidences == sorted(confidences)


# -- the workflow over the real index -------------------------------------------------------

@pytest.fixture(scope="module")
def make_agent(built, corpus_params):
    from citerag.agent.workflow import Agent
    from citerag.retrieval.store import load_store

    def make(**overrides):
        p = corpus_params.with_overrides(overrides) if overrides else corpus_params
        return Agent(load_store(p), p)

    return make


@pytest.mark.corpus
def test_answer_path_and_trace(make_agent):
    r = make_agent().run("What is the signature size of ML-DSA-65?")
    assert r.trajectory == ["route", "retrieve", "assess_evidence", "answer", "verify_or_refuse"]
    assert not r.answer.refused and "3309" in r.answer.answer
    assert (r.stop_reason, r.refusal_reason) == ("evidence_sufficient", None)
    assert [e["step"] for e in r.trace] == [1, 2, 3, 4, 5]


@pytest.mark.corpus
def test_refine_then_answer_over_two_rounds(make_agent):
    r = make_agent(**{"retrieve.method": "dense", "retrieve.k": 1}).run(
        "What are the steps of ML-KEM.Decaps (Algorithm 21)?")
    assert r.trajectory == ["route", "retrieve", "assess_evidence", "refine_query", "retrieve",
                            "assess_evidence", "answer", "verify_or_refuse"]
    refine = next(e for e in r.trace if e["node"] == "refine_query")
    assert refine["reason"] == "anchor_missing" and "Algorithm 21" in refine["queries"][0]
    assert not r.answer.refused and "Algorithm 21" in r.answer.answer


@pytest.mark.corpus
def test_compare_branches_and_diversity(make_agent):
    r = make_agent().run("Compare the signature sizes of ML-DSA-44 and SLH-DSA-SHA2-128s.")
    route_ev, retrieve_ev = r.trace[0], r.trace[1]
    assert route_ev["route"] == "compare" and len(retrieve_ev["queries"]) == 2
    assess_ev = r.trace[2]
    assert len(assess_ev["docs"]) >= 2 and all(assess_ev["topics_covered"].values())
    assert {c["doc_id"] for c in r.answer.citations} >= {"NIST.FIPS.204", "NIST.FIPS.205"}


@pytest.mark.corpus
def test_budget_stop_skips_answer(make_agent):
    """With the default `hits` gate, thin evidence after the last round refuses without
    answering; with the `model` gate the draft is made and the calibrated decision recorded."""
    impossible = {"agent.min_evidence_hits": 20, "agent.strong_hit_score": None}
    model_gate = {"agent.thin_evidence": "model", "answer.abstain.model": "data/abstain/model.json"}
    r = make_agent(**impossible, **model_gate, **{"agent.max_rounds": 1}).run("What is the signature size of ML-DSA-65?")
    assert "answer" in r.trajectory and r.stop_reason == "max_rounds"
    ev = next(e for e in r.trace if e["node"] == "answer")
    assert 0 <= ev["decision"]["probability"] <= 1 and "rare_cover" in ev["decision"]["features"]
    r = make_agent(**impossible, **{"agent.max_rounds": 1}).run("What is the signature size of ML-DSA-65?")
    assert "answer" not in r.trajectory
    assert (r.stop_reason, r.refusal_reason, r.answer.refused) == ("max_rounds", "budget_exhausted", True)
    r = make_agent(**impossible).run("What is the signature size of ML-DSA-65?")  # round limit 2
    assert r.trajectory.count("retrieve") == 2 and "answer" not in r.trajectory
    assert r.stop_reason == "max_rounds"
    r = make_agent(**impossible, **{"agent.max_tool_calls": 2}).run("Compare BIKE and HQC")
    assert r.stop_reason == "max_tool_calls" and r.trajectory.count("retrieve") == 1


@pytest.mark.corpus
def test_stop_reason_and_refusal_reason_are_separate(make_agent):
    r = make_agent().run("How many qubits are needed to break ML-KEM-768?")
    assert r.answer.refused and r.refusal_reason == "unknown_terms"
    assert r.stop_reason != r.refusal_reason and r.answer.answer == "not found in provided docs"
    assert r.answer.citations == []


@pytest.mark.corpus
def test_cli_ask_contract(built, tmp_path):
    q = tmp_path / "q.jsonl"
    q.write_text(json.dumps({"qid": "x1", "question": "How big is an ML-DSA-87 public key?"}) + "\n"
                 + json.dumps({"qid": 2, "question": "What is the ciphertext size of ML-KEM-2048?"}) + "\n")
    out = tmp_path / "a.jsonl"
    proc = subprocess.run([sys.executable, "-m", "citerag", "ask", "--questions", str(q), "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["qid"] for r in rows] == ["x1", 2]
    keys = {"qid", "answer", "refused", "refusal_reason", "stop_reason", "citations", "route", "trace"}
    assert all(set(r) == keys for r in rows)
    assert not rows[0]["refused"] and "2592" in rows[0]["answer"] and rows[0]["citations"]
    assert set(rows[0]["citations"][0]) == {"key", "chunk_id", "doc_id", "start_page", "end_page"}
    assert rows[1]["refused"] and rows[1]["answer"] == "not found in provided docs" and rows[1]["citations"] == []
    trace = json.loads(Path(rows[0]["trace"]).read_text())
    assert trace["trajectory"][0] == "route" and trace["events"]


def test_leading_scope_holds_for_every_part():
    from citerag.answer.asked import leading_scope

    assert leading_scope("In the first example, how long is the line, and what colour is it?") == "In the first example"
    assert leading_scope("According to the guide, what is x?") == "According to the guide"
    assert leading_scope("In which year was X published, and by whom?") == ""  # asked about, not a scope
    assert leading_scope("What is x in the guide, and why?") == ""


@pytest.mark.corpus
def test_a_later_part_retrieves_within_the_scope_the_question_opens_with(make_agent):
    """"In X, what A, and what B?" asks B in X too: the later part's retrieval query carries the
    scope (its own words alone reach other documents' passages about B)."""
    r = make_agent().run("In FIPS 205, which function computes a FORS public key from a signature, "
                         "and which one verifies a hypertree signature?")
    queries = next(e for e in r.trace if e["node"] == "retrieve")["queries"]
    assert len(queries) == 2 and queries[0].startswith("In FIPS 205, which function")
    assert queries[1] == "In FIPS 205, which one verifies a hypertree signature"
