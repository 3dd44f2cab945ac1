"""ragas metrics over an agent run on the eval set.

Always (no LLM): context precision and recall of the evidence the answer was
composed from against the gold pages' text (ragas' non-LLM, string-distance
variants), and ROUGE-L / string similarity of the answer against
`gold_answer`. With `eval.llm_judge` and an `openai` endpoint: ragas
faithfulness and answer relevancy, judged by that endpoint (embeddings for
relevancy come from the bundled model). Without an endpoint those two are
skipped and `skipped` says why — the report shows the note, never a silent 0.
"""

from __future__ import annotations

import asyncio
import math
import os
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from citerag.answer.citations import strip_citations
from citerag.core.asyncrun import run_sync
from citerag.core.params import Params
from citerag.core.redact import redact
from citerag.experiments.evalset import EvalItem

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

NON_LLM = ("context_precision", "context_recall", "rouge_l", "string_similarity")
LLM = ("faithfulness", "answer_relevancy")


@dataclass
class RagasResult:
    per_question: dict[str, dict[str, float | None]]   # qid → metric → score
    means: dict[str, float | None]
    skipped: list[str] = field(default_factory=list)   # visible notes: what was not computed and why


def gold_contexts(store, item: EvalItem, by_doc: dict[str, list] | None = None) -> list[str]:
    """The texts of the chunks that lie on the item's gold pages (`by_doc`: the store's chunks
    grouped by document, when many items are looked up)."""
    if by_doc is None:
        by_doc = chunks_by_doc(store)
    out = []
    docs = {g.doc_id for g in item.gold}
    for c in (c for d, cs in by_doc.items() if d in docs for c in cs):
        if any(c.doc_id == g.doc_id and c.start_page <= g.end_page and c.end_page >= g.start_page
               for g in item.gold):
            out.append(c.text)
    return out


def chunks_by_doc(store) -> dict[str, list]:
    out: dict[str, list] = {}
    for c in store.chunks:
        out.setdefault(c.doc_id, []).append(c)
    return out


def samples(rows: Sequence[dict], items: Sequence[EvalItem], store):
    """ragas samples of the answerable questions (refusals have an empty response)."""
    from ragas import SingleTurnSample

    out = {}
    by_doc = chunks_by_doc(store)
    for row, it in zip(rows, items, strict=True):
        if not it.answerable:
            continue
        contexts = [store.by_id[c].text for c in row["evidence"] if c in store.by_id]
        out[it.qid] = SingleTurnSample(
            user_input=it.question, response="" if row["refused"] else strip_citations(row["answer"]),
            reference=it.gold_answer or " ".join(it.must_contain), retrieved_contexts=contexts or [""],
            reference_contexts=gold_contexts(store, it, by_doc) or [""])
    return out


def _score(metric, sample, timeout_s: float | None = None) -> tuple[float | None, str | None]:
    """A score, or None and why: the report's notes say what went wrong, never a silent 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = run_sync(metric.single_turn_ascore(sample, timeout=timeout_s))
        except Exception as exc:  # one question's score is lost, the others still count
            return None, _why(exc, timeout_s)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None, "the metric returned no value"
    return round(float(value), 4), None


def _why(exc: Exception, timeout_s: float | None) -> str:
    """What a missing score's note says: the bound that ran out, a reply ragas could not
    parse, or the endpoint's (or metric's) own error by name."""
    from ragas.exceptions import RagasOutputParserException

    if isinstance(exc, TimeoutError) and timeout_s is not None:
        return f"timed out after {timeout_s:g} s (eval.judge_timeout_s)"
    if isinstance(exc, RagasOutputParserException):
        return "the judge's reply did not parse"
    return f"{type(exc).__name__}: {redact(' '.join(str(exc).split()))[:160]}"


def non_llm_metrics():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from ragas.metrics import (
            NonLLMContextPrecisionWithReference,
            NonLLMContextRecall,
            NonLLMStringSimilarity,
            RougeScore,
        )
    return {"context_precision": NonLLMContextPrecisionWithReference(), "context_recall": NonLLMContextRecall(),
            "rouge_l": RougeScore(rouge_type="rougeL"), "string_similarity": NonLLMStringSimilarity()}


def llm_metrics(params: Params, embedder):
    """Faithfulness and answer relevancy judged through the configured OpenAI-compatible endpoint."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_openai import ChatOpenAI
        from ragas.llms import LangchainLLMWrapper
        from ragas.metrics import Faithfulness, ResponseRelevancy

    o = params.answer.openai
    chat = ChatOpenAI(base_url=o.base_url, model=o.model, api_key=os.environ.get(o.api_key_env) or "not-needed",
                      temperature=0, timeout=o.timeout_s, max_retries=o.max_retries, max_tokens=o.max_tokens)
    llm = LangchainLLMWrapper(chat)
    return {"faithfulness": Faithfulness(llm=llm),
            "answer_relevancy": ResponseRelevancy(llm=llm, embeddings=_Embeddings(embedder), strictness=1)}


class _Embeddings:
    """The bundled sentence-transformers model behind ragas' embeddings interface."""

    def __init__(self, embedder) -> None:
        self.embedder = embedder

    def embed_query(self, text: str) -> list[float]:
        return self.embedder.embed_query(text).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embedder.embed(texts).tolist()

    async def aembed_query(self, text: str) -> list[float]:
        return await asyncio.to_thread(self.embed_query, text)

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.embed_documents, texts)


def evaluate_ragas(rows: Sequence[dict], items: Sequence[EvalItem], store, params: Params) -> RagasResult:
    ep = params.eval
    smp = samples(rows, items, store)
    metrics = non_llm_metrics() if ep.ragas else {}
    skipped = [] if ep.ragas else ["ragas metrics off (eval.ragas: false)"]
    judged: set[str] = set()
    if ep.llm_judge:
        metrics.update(llm_metrics(params, store.embedder))
        answered = [q for q, s in smp.items() if s.response]
        judged = set(answered[: ep.judge_max_questions])
        if len(answered) > len(judged):
            skipped.append(f"LLM-judged metrics on the first {len(judged)} of {len(answered)} answered questions "
                           f"(eval.judge_max_questions)")
    else:
        skipped.append("faithfulness and answer_relevancy skipped: no LLM judge configured "
                       "(set eval.llm_judge: true and answer.openai.base_url)")
    per_q: dict[str, dict[str, float | None]] = {}
    why: dict[str, Counter[str]] = {name: Counter() for name in metrics}
    for qid, sample in smp.items():
        per_q[qid] = {}
        for name, metric in metrics.items():
            if name in LLM and qid not in judged:
                continue
            per_q[qid][name], reason = _score(metric, sample, ep.judge_timeout_s if name in LLM else None)
            if reason:
                why[name][reason] += 1
    means = {}
    for name in metrics:
        vals = [v[name] for v in per_q.values() if v.get(name) is not None]
        means[name] = round(sum(vals) / len(vals), 4) if vals else None
        skipped += [f"{name}: no score for {n} question(s): {reason}" for reason, n in why[name].most_common()]
    return RagasResult(per_q, means, skipped)
