"""Retrieval metrics over gold page spans.

Relevance: a hit is relevant to a gold span when the doc_id matches and the
page ranges overlap. Each gold span counts once: a question's ranked hits are
mapped onto span ids (the first not-yet-credited span a hit overlaps, else a
non-relevant id), and Recall@k, MRR@k (RR) and nDCG@k (binary) are computed by
`ir-measures` (trec_eval's implementations) over those span ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import ir_measures
from ir_measures import RR, R, nDCG

from citerag.core.types import Location
from citerag.experiments.evalset import EvalItem, GoldSpan

KS = (1, 3, 5, 8)


RankedHit = Location  # what a ranking holds: a chunk's location (the one location type)

def overlaps(hit: Location, span: GoldSpan, slack: int = 0) -> bool:
    return hit.overlaps(span.doc_id, span.start_page, span.end_page, slack)


def span_ids(hits: Sequence[RankedHit], gold: Sequence[GoldSpan]) -> list[str]:
    """Each hit → the id of the first gold span it covers that no earlier hit covered."""
    credited: set[int] = set()
    out = []
    for i, h in enumerate(hits):
        sid = f"nonrel-{i}"
        for j, g in enumerate(gold):
            if j not in credited and overlaps(h, g):
                credited.add(j)
                sid = f"span-{j}"
                break
        out.append(sid)
    return out


def retrieval_metrics(runs: dict[str, Sequence[RankedHit]], items: Sequence[EvalItem],
                      ks: Sequence[int] = KS) -> dict[str, float]:
    """Mean Recall@k, MRR@k, nDCG@k over answerable items, plus hit rates (strict, doc, ±1 page)."""
    answerable = [it for it in items if it.answerable and it.gold]
    qrels = [ir_measures.Qrel(it.qid, f"span-{j}", 1) for it in answerable for j in range(len(it.gold))]
    run = []
    for it in answerable:
        for r, sid in enumerate(span_ids(runs.get(it.qid, []), it.gold), start=1):
            run.append(ir_measures.ScoredDoc(it.qid, sid, 1000.0 - r))
    measures = [m @ k for k in ks for m in (R, RR, nDCG)]
    agg = ir_measures.calc_aggregate(measures, qrels, run) if run else {}
    out: dict[str, float] = {}
    for k in ks:
        out[f"recall@{k}"] = float(agg.get(R @ k, 0.0))
        out[f"mrr@{k}"] = float(agg.get(RR @ k, 0.0))
        out[f"ndcg@{k}"] = float(agg.get(nDCG @ k, 0.0))
    kmax = max(ks)
    n = len(answerable) or 1
    out[f"hit@{kmax}_strict"] = sum(any(overlaps(h, g) for h in runs.get(it.qid, [])[:kmax] for g in it.gold)
                                    for it in answerable) / n
    out[f"hit@{kmax}_doc"] = sum(any(h.doc_id == g.doc_id for h in runs.get(it.qid, [])[:kmax] for g in it.gold)
                                 for it in answerable) / n
    out[f"hit@{kmax}_pm1"] = sum(any(overlaps(h, g, 1) for h in runs.get(it.qid, [])[:kmax] for g in it.gold)
                                 for it in answerable) / n
    out["questions"] = len(answerable)
    return out


def per_question(runs: dict[str, Sequence[RankedHit]], items: Sequence[EvalItem], k: int = 8) -> list[dict]:
    """Per answerable question: first relevant rank and share of gold spans found in top k."""
    rows = []
    for it in items:
        if not (it.answerable and it.gold):
            continue
        hits = list(runs.get(it.qid, []))[:k]
        first = next((r for r, h in enumerate(hits, 1) if any(overlaps(h, g) for g in it.gold)), None)
        found = sum(any(overlaps(h, g) for h in hits) for g in it.gold)
        rows.append({"qid": it.qid, "type": it.type, "first_relevant_rank": first,
                     "spans_found": found, "spans": len(it.gold)})
    return rows


def miss_cause(rankings: dict[str, list[str]], chunk_pages: dict[str, RankedHit], gold: Sequence[GoldSpan],
               k: int, rerank_depth: int) -> str | None:
    """Why no relevant chunk reached the top k: None (not a miss), `never_retrieved`
    (no retriever ranked one), `lost_in_fusion` (retrieved, but fusion left it out of the
    pool/top k), or `demoted_by_rerank` (in the fused top k, pushed out by the reranker)."""

    def relevant(cid: str) -> bool:
        return any(overlaps(chunk_pages[cid], g) for g in gold)

    final = rankings.get("rerank", rankings.get("fused", []))
    if any(relevant(c) for c in final[:k]):
        return None
    sources = [ids for name, ids in rankings.items() if name not in ("fused", "rerank")]
    if not any(relevant(c) for ids in sources for c in ids):
        return "never_retrieved"
    fused = rankings.get("fused", [])
    if "rerank" in rankings and any(relevant(c) for c in fused[:k]):
        return "demoted_by_rerank"
    if "rerank" in rankings and any(relevant(c) for c in fused[:rerank_depth]):
        return "demoted_by_rerank"
    return "lost_in_fusion"


# -- running retrievers over an eval set ---------------------------------------------------

@dataclass
class SearchRun:
    """One retriever over an eval set: ranked hits, latencies and (if any) stage rankings."""

    name: str
    runs: dict[str, list[RankedHit]]
    latencies_ms: list[float]
    rankings: dict[str, dict[str, list[str]]]


def _as_ranked(h) -> RankedHit:
    get = h.get if isinstance(h, dict) else lambda k: getattr(h, k)
    return Location(get("chunk_id"), get("doc_id"), int(get("start_page")), int(get("end_page")))


def run_search(name: str, search, items: Sequence[EvalItem]) -> SearchRun:
    """`search(question)` returns a RetrievalResult or a list of hits (objects or dicts)."""
    import time

    runs, lat, rankings = {}, [], {}
    for it in items:
        t0 = time.perf_counter()
        res = search(it.question)
        lat.append((time.perf_counter() - t0) * 1000)
        hits = res.hits if hasattr(res, "hits") else res
        runs[it.qid] = [_as_ranked(h) for h in hits]
        if hasattr(res, "rankings"):
            rankings[it.qid] = res.rankings
    return SearchRun(name, runs, lat, rankings)


def latency_summary(latencies_ms: Sequence[float]) -> dict[str, float]:
    import numpy as np

    a = np.asarray(latencies_ms, dtype=float)
    return {"p50_ms": round(float(np.percentile(a, 50)), 2), "p95_ms": round(float(np.percentile(a, 95)), 2)}


def evaluate_retrievers(params, items: Sequence[EvalItem], baseline: bool = True,
                        methods: Sequence[str] = ("dense", "bm25", "hybrid")) -> dict[str, SearchRun]:
    """Every retriever (and LlamaIndex's default VectorStoreIndex) over the same items."""
    from citerag.retrieval.retriever import Retriever
    from citerag.retrieval.store import load_store

    store = load_store(params)
    out = {}
    for method in methods:
        r = Retriever(store, params.retrieve.model_copy(update={"method": method}))
        out[method] = run_search(method, r.search, items)
    if baseline:
        from citerag.retrieval.baseline import LlamaIndexBaseline

        b = LlamaIndexBaseline(store, k=params.retrieve.k)
        out["llamaindex_vector"] = run_search("llamaindex_vector", b.search, items)
    return out


def metrics_table(runs: dict[str, SearchRun], items: Sequence[EvalItem]) -> list[dict]:
    rows = []
    for name, run in runs.items():
        m = retrieval_metrics(run.runs, items)
        rows.append({"retriever": name, **{k: round(v, 4) for k, v in m.items()},
                     **latency_summary(run.latencies_ms)})
    return rows


def misses(run: SearchRun, items: Sequence[EvalItem], chunk_pages: dict[str, RankedHit],
           k: int = 8, rerank_depth: int = 40) -> list[dict]:
    """Answerable questions whose first relevant hit is not at rank 1, with the cause of a miss."""
    rows = []
    for row in per_question(run.runs, items, k):
        if row["first_relevant_rank"] == 1:
            continue
        it = next(i for i in items if i.qid == row["qid"])
        cause = (miss_cause(run.rankings[it.qid], chunk_pages, it.gold, k, rerank_depth)
                 if it.qid in run.rankings else ("miss" if row["first_relevant_rank"] is None else None))
        top = run.runs[it.qid][0].chunk_id if run.runs[it.qid] else None
        rows.append({**row, "cause": cause or "ranked_low", "question": it.question, "top_hit": top})
    return rows


# The retrieval targets, checked in one place (notebook 04 prints them).
RETRIEVAL_TARGETS = {"recall@8": 0.90, "mrr@8": 0.75, "ndcg@8": 0.78}


def retrieval_target_checks(rows: list[dict], system: str = "hybrid",
                            baseline: str = "llamaindex_vector") -> dict[str, bool]:
    by = {r["retriever"]: r for r in rows}
    checks = {f"{system} {m} >= {t}": by[system][m] >= t for m, t in RETRIEVAL_TARGETS.items()}
    if baseline in by:
        for m in ("recall@8", "mrr@8"):
            checks[f"{system} beats {baseline} on {m}"] = by[system][m] > by[baseline][m]
    return checks


# -- answers -------------------------------------------------------------------------------

def contains_all(answer: str, must: Sequence[str]) -> bool:
    """Every must_contain string in the answer (case, spacing and hyphenation tolerant)."""
    from citerag.experiments.evalset import normalize_for_match

    text = normalize_for_match(answer)
    return all(normalize_for_match(m) in text for m in must)


def evidence_ids(result) -> list[str]:
    """The chunk ids an agent run's answer was composed from (empty when it never answered)."""
    return next((e["evidence"] for e in result.trace if e["node"] == "answer"), [])


def answer_rows(results: Sequence, items: Sequence[EvalItem]) -> list[dict]:
    """One row per question: refusal, must_contain, citation validity and precision, latency.

    Citation precision: the share of an answer's citations whose chunk overlaps a gold span
    (answered, answerable questions only). Supported share: answer sentences that carry a
    valid citation and pass the support check, over all sentences the answer kept."""
    rows = []
    for r, it in zip(results, items, strict=True):
        a = r.answer
        kept = [s for s in a.sentences if s.supported] if not a.refused else []
        cites = a.citations if not a.refused else []
        gold_hits = [any(overlaps(Location(c["chunk_id"], c["doc_id"], c["start_page"], c["end_page"]), g)
                         for g in it.gold) for c in cites]
        rows.append({
            "qid": it.qid, "type": it.type, "answerable": it.answerable, "question": it.question,
            "refused": a.refused, "refusal_reason": r.refusal_reason, "stop_reason": r.stop_reason,
            "route": r.route, "must_ok": (not a.refused and contains_all(a.answer, it.must_contain))
            if it.answerable else None,
            "sentences": len(kept), "supported_sentences": sum(bool(s.valid_keys) and s.supported for s in kept),
            "citations": len(cites),
            "citation_precision": (sum(gold_hits) / len(gold_hits)) if (gold_hits and it.answerable) else None,
            "latency_ms": round(r.seconds * 1000, 2), "answer": a.answer,
            "cited_chunks": [c["chunk_id"] for c in cites], "evidence": evidence_ids(r),
        })
    return rows


def _mean(values) -> float:
    values = [v for v in values if v is not None]
    return round(sum(values) / len(values), 4) if values else float("nan")


def answer_metrics(rows: Sequence[dict]) -> dict[str, float]:
    """The answer-level numbers of a run (the summary's `answers.*`)."""
    ans = [r for r in rows if r["answerable"]]
    una = [r for r in rows if not r["answerable"]]
    answered = [r for r in rows if not r["refused"]]
    lat = latency_summary([r["latency_ms"] for r in rows])
    return {
        "questions": len(rows),
        "unanswerable_refused": _mean([r["refused"] for r in una]),
        "answerable_refused": _mean([r["refused"] for r in ans]),
        "must_contain": _mean([r["must_ok"] for r in ans]),
        "supported_cited_sentences": round(sum(r["supported_sentences"] for r in answered)
                                           / max(1, sum(r["sentences"] for r in answered)), 4),
        "citation_precision": _mean([r["citation_precision"] for r in ans]),
        "latency_p50_ms": lat["p50_ms"], "latency_p95_ms": lat["p95_ms"],
        "latency_mean_ms": round(sum(r["latency_ms"] for r in rows) / max(1, len(rows)), 2),
    }


ANSWER_TARGETS = {"unanswerable_refused": (">=", 1.0), "answerable_refused": ("<=", 0.05),
                  "supported_cited_sentences": (">=", 1.0), "must_contain": (">=", 0.75)}


def answer_target_checks(metrics: dict[str, float]) -> dict[str, bool]:
    return {f"{m} {op} {t}": (metrics[m] >= t if op == ">=" else metrics[m] <= t)
            for m, (op, t) in ANSWER_TARGETS.items()}


# -- conversations ---------------------------------------------------------------------------

CONVERSATION_TARGETS = {"rewrite_entity": 0.90, "must_contain": 0.75, "unanswerable_refused": 1.0}


def run_conversations(engine, convs: Sequence, thread_prefix: str) -> list[dict]:
    """Run every conversation on its own fresh thread; one row per turn with its checks."""
    rows = []
    for conv in convs:
        thread = f"{thread_prefix}:{conv.cid}"
        for n, t in enumerate(conv.turns, start=1):
            r = engine.turn(thread, t.user)
            rq = r.rewritten_query or ""
            rows.append({
                "cid": conv.cid, "turn": n, "user": t.user, "expected_route": t.expected_route, "route": r.route,
                "route_ok": t.expected_route is None or r.route == t.expected_route,
                "rewritten_query": r.rewritten_query, "carried_entities": list(t.carried_entities),
                "entity_ok": all(e.lower() in rq.lower() for e in t.carried_entities) if t.carried_entities else None,
                "answerable": t.answerable, "refused": r.refused, "refusal_reason": r.refusal_reason,
                "must_ok": (not r.refused and contains_all(r.answer, t.must_contain)) if t.answerable else None,
                "answer": r.answer, "citations": r.citations, "trajectory": r.trajectory,
                "seconds": round(r.seconds, 4), "result": r})
    return rows


def conversation_metrics(rows: Sequence[dict]) -> dict[str, float]:
    """Route accuracy, entity carry-over of follow-ups, must_contain and refusal rates."""
    rate = _mean
    return {
        "turns": len(rows),
        "route_accuracy": rate([r["route_ok"] for r in rows if r["expected_route"]]),
        "rewrite_entity": rate([r["entity_ok"] for r in rows]),
        "must_contain": rate([r["must_ok"] for r in rows]),
        "unanswerable_refused": rate([r["refused"] for r in rows if not r["answerable"]]),
        "answerable_refused": rate([r["refused"] for r in rows if r["answerable"]]),
    }


def conversation_target_checks(metrics: dict[str, float]) -> dict[str, bool]:
    return {f"{m} >= {t}": metrics[m] >= t for m, t in CONVERSATION_TARGETS.items()}
