"""Retrieval over the real corpus: the batch contract, filters, mode hints, and quality ordering."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from citerag.core.paths import repo_root
from citerag.experiments.evalset import load_questions
from citerag.experiments.metrics import evaluate_retrievers, metrics_table
from citerag.retrieval.retriever import Filters, Retriever
from citerag.retrieval.store import load_store
from citerag.text.patterns import GLOSSARY_HEADING

pytestmark = pytest.mark.corpus
ROOT = repo_root()


@pytest.fixture(scope="module")
def retriever(built, corpus_params):
    return Retriever(load_store(corpus_params), corpus_params.retrieve)


def test_hits_carry_per_stage_ranks_and_are_stable(retriever):
    a = retriever.search("What is the signature size of ML-DSA-65?")
    b = retriever.search("What is the signature size of ML-DSA-65?")
    assert [h.contract() for h in a.hits] == [h.contract() for h in b.hits]
    assert len(a.hits) == 8 and [h.rank for h in a.hits] == list(range(1, 9))
    for h in a.hits:
        assert set(h.ranks) >= {"dense", "bm25", "fused", "rerank"} and h.ranks["rerank"] == h.rank
        assert set(h.features) >= {"identifier", "anchor", "mode", "doc", "boilerplate"}
    assert a.hits[0].doc_id == "NIST.FIPS.204" and a.hits[0].start_page == 26


def test_the_phrase_feature_lifts_the_chunk_holding_the_questions_word_pairs(retriever, corpus_params):
    """'… for which values of d is the ByteDecode conversion one-to-one?': the chunk that says
    "the bit length of q is 12" and "1 ≤ d ≤ 11" holds the question's word pairs ("bit length",
    "values of d"); the phrase feature at its default weight (1.0) ranks it higher than at 0.6,
    within the ten hits. It was 8th until split algorithms repeated their titles (2026-11-26,
    eighth session): the shifted term statistics let a table chunk enter the candidate pool at
    BM25 rank 40, and the parameter-mode feature lifts it to 4th."""
    q = "What is the bit length of q in ML-KEM, and for which values of d is the ByteDecode conversion one-to-one?"

    def rank(r: Retriever) -> int:
        ids = r.search(q, k=20).ids()
        return next(i for i, c in enumerate(ids, 1) if "bit length of q is 12" in r.store.by_id[c].text)

    weaker = corpus_params.retrieve.model_copy(
        update={"weights": corpus_params.retrieve.weights.model_copy(update={"phrase": 0.6})})
    assert rank(retriever) <= 10
    assert rank(retriever) < rank(Retriever(retriever.store, weaker))


def test_a_definition_question_reaches_the_sentence_defining_its_subject(retriever, corpus_params):
    """'What is a KEM, according to FIPS 203?': "KEM" is written in most chunks (inside "ML-KEM"),
    so neither BM25 nor the embedding found the overview's "A KEM is a cryptographic scheme …"
    in 40 candidates. The definition ranking reads the chunks with a sentence opening by defining
    the subject, or a glossary section's line opening with it ("KEM Key-encapsulation mechanism");
    "ML-KEM is a …" (a longer name) is neither."""
    q = "What is a KEM, according to FIPS 203?"
    found = retriever.search(q)
    assert any("A KEM is a cryptographic scheme" in retriever.store.by_id[c].text for c in found.ids())

    def defines(c) -> bool:
        return re.search(r"(?<![\w-])kem is a", c.text.lower()) is not None or (
            GLOSSARY_HEADING.search(" ".join(c.heading_path)) is not None
            and re.search(r"(?m)^[ \t]*(?:[-•*][ \t]*)?KEM\s+[A-Z]", c.text) is not None)

    assert found.rankings["defines"] and all(defines(retriever.store.by_id[c]) for c in found.rankings["defines"])
    off = corpus_params.retrieve.model_copy(update={"definition_weight": 0.0})
    ids = Retriever(retriever.store, off).search(q).ids()
    assert not any("A KEM is a cryptographic scheme" in retriever.store.by_id[c].text for c in ids)


def test_filters_restrict_documents_and_pages(retriever):
    res = retriever.search("signature size", filters=Filters(doc_ids=("NIST.FIPS.205",), page_from=50, page_to=55))
    assert res.hits and all(h.doc_id == "NIST.FIPS.205" and h.end_page >= 50 and h.start_page <= 55
                            for h in res.hits)
    for stage in ("dense", "bm25", "fused"):
        assert all(cid.startswith("NIST.FIPS.205::") for cid in res.rankings[stage])


def test_mode_hint_changes_behaviour(retriever):
    """The algorithm hint ranks the algorithm's own chunk first; the definition hint does not.
    (Asked as "ML-DSA signing", the section's prose chunk wins on its heading since the chunk stage
    keeps an algorithm whole in a chunk of its own, d6abb45.)"""
    algo = retriever.search("ML-DSA.Sign", mode_hint="algorithm")
    plain = retriever.search("ML-DSA.Sign", mode_hint="definition")
    assert "algorithm" in retriever.store.by_id[algo.hits[0].chunk_id].kinds
    assert algo.ids() != plain.ids()


def test_hybrid_beats_single_retrievers_and_llamaindex(built, corpus_params):
    items = load_questions(ROOT / "data" / "nist-pqc" / "eval" / "questions.jsonl")
    rows = {r["retriever"]: r for r in metrics_table(evaluate_retrievers(corpus_params, items), items)}
    hybrid = rows["hybrid"]
    for other in ("dense", "bm25", "llamaindex_vector"):
        assert hybrid["recall@8"] >= rows[other]["recall@8"]
        assert hybrid["mrr@8"] > rows[other]["mrr@8"]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "citerag", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def test_cli_retrieve_contract(built, tmp_path):
    q = tmp_path / "q.jsonl"
    q.write_text(
        json.dumps({"qid": "a", "question": "How big is an ML-KEM-512 encapsulation key?", "extra": 1}) + "\n"
        + json.dumps({"qid": 7, "question": "What does FORS stand for?"}) + "\n")
    out = tmp_path / "out.jsonl"
    proc = _cli("retrieve", "--questions", str(q), "--out", str(out), "--k", "5")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["qid"] for x in lines] == ["a", 7]
    for line in lines:
        assert set(line) == {"qid", "hits"} and len(line["hits"]) == 5
        for r, h in enumerate(line["hits"], start=1):
            assert set(h) == {"rank", "chunk_id", "doc_id", "start_page", "end_page", "score"}
            assert h["rank"] == r and isinstance(h["start_page"], int) and isinstance(h["score"], float)
            assert h["chunk_id"].startswith(h["doc_id"] + "::p")
    assert lines[0]["hits"][0]["doc_id"] == "NIST.FIPS.203"


@pytest.mark.parametrize("content,message", [
    ('{"qid": 1, "question": "ok question"}\nnot json\n', ":2: not valid JSON"),
    ('{"qid": 1}\n', ":1: missing field 'question'"),
    ('{"qid": 1, "question": ""}\n', ":1: field 'question' must be a non-empty string"),
])
def test_cli_retrieve_bad_lines(tmp_path, content, message):
    q = tmp_path / "q.jsonl"
    q.write_text(content)
    out = tmp_path / "out.jsonl"
    proc = _cli("retrieve", "--questions", str(q), "--out", str(out))
    assert proc.returncode == 2 and message in proc.stderr and str(q) in proc.stderr
    assert not out.exists()
