"""Benchmarks that print measured figures (speed targets live here, not in unit tests)."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from citerag.build.pipeline import build_all
from citerag.core.params import Params


def _quiet(_msg: str) -> None:
    pass


def bench_index(params: Params, out=print) -> dict:
    """Cold build in a fresh artifact root and cache, then a warm re-run, then a rebuild
    of every stage with only the embedding cache kept (shows that nothing is re-embedded)."""
    tmp = Path(tempfile.mkdtemp(prefix="citerag-bench-"))
    try:
        p = params.with_overrides({"paths.artifacts": str(tmp / "artifacts"),
                                   "paths.cache": str(tmp / "cache")})
        t0 = time.perf_counter()
        cold = build_all(p, log=_quiet, progress=False)
        cold_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        warm = build_all(p, log=_quiet, progress=False)
        warm_s = time.perf_counter() - t0

        shutil.rmtree(tmp / "artifacts")
        t0 = time.perf_counter()
        cached = build_all(p, log=_quiet, progress=False)
        cached_s = time.perf_counter() - t0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    ing, chk, idx = cold["ingest"], cold["chunk"], cold["index"]
    pages, chunks = ing.counts["pages"], chk.counts["chunks"]
    t = {**ing.manifest["timings"], **chk.manifest["timings"], **idx.manifest["timings"]}
    figures = {
        "cold_total_s": round(cold_s, 2),
        "ingest_s": t["ingest_s"], "clean_s": t["clean_s"], "chunk_s": t["chunk_s"],
        "embed_s": t["embed_s"], "chroma_s": t["chroma_s"], "bm25_s": t["bm25_s"],
        "pages": pages, "chunks": chunks,
        "ingest_pages_per_s": round(pages / t["ingest_s"], 1),
        "embed_chunks_per_s": round(chunks / t["embed_s"], 1) if t["embed_s"] else None,
        "warm_rerun_s": round(warm_s, 2),
        "warm_rerun_stages_reused": sum(r.reused for r in warm.values()),
        "rebuild_with_embedding_cache_s": round(cached_s, 2),
        "rebuild_embedded": cached["index"].counts["embedded"],
        "rebuild_cache_hits": cached["index"].counts["embedding_cache_hits"],
    }
    out("citerag bench index (one cold run, then warm re-runs)")
    for key, value in figures.items():
        out(f"  {key:34s} {value}")
    return figures


def bench_retrieve(params: Params, questions: str | None = None, repeats: int = 3,
                   out=print) -> list[dict]:
    """Quality and latency of every retriever over the eval set; latency pooled over repeats
    (the first pass warms the model, the index and the caches, and is not counted)."""
    from citerag.core.paths import resolve
    from citerag.experiments.evalset import load_questions
    from citerag.experiments.metrics import evaluate_retrievers, latency_summary, metrics_table

    items = load_questions(resolve(questions or params.eval.questions))
    evaluate_retrievers(params, items[:5], baseline=True)  # warm-up
    pooled: dict[str, list[float]] = {}
    first = None
    for _ in range(repeats):
        runs = evaluate_retrievers(params, items, baseline=True)
        first = first or runs
        for name, run in runs.items():
            pooled.setdefault(name, []).extend(run.latencies_ms)
    rows = metrics_table(first, items)
    for row in rows:
        row.update(latency_summary(pooled[row["retriever"]]))
    cols = ["recall@8", "mrr@8", "ndcg@8", "recall@1", "hit@8_strict", "hit@8_doc", "hit@8_pm1", "p50_ms", "p95_ms"]
    out(f"citerag bench retrieve ({rows[0]['questions']} answerable questions, latency over {repeats} passes)")
    out(f"  {'retriever':18s} " + " ".join(f"{c:>12s}" for c in cols))
    for row in rows:
        out(f"  {row['retriever']:18s} " + " ".join(f"{row[c]:12.3f}" for c in cols))
    return rows


def bench_answer(params: Params, repeats: int = 2, out=print) -> list[dict]:
    """Answer latency per question (route → retrieve → assess → answer → verify, with the
    calibrated decision), on the params' corpus and every `eval.also` corpus. The first pass
    warms the model, the index and the caches and is not counted; later passes are pooled."""
    import time

    from citerag.agent.workflow import Agent
    from citerag.core.paths import resolve
    from citerag.experiments.eval_run import all_corpora, corpus_name
    from citerag.experiments.evalset import load_questions
    from citerag.experiments.metrics import latency_summary
    from citerag.retrieval.store import load_store

    rows = []
    for p in all_corpora(params):
        agent = Agent(load_store(p), p)
        items = load_questions(resolve(p.eval.questions))
        lat: list[float] = []
        for n in range(repeats + 1):
            for it in items:
                t0 = time.perf_counter()
                agent.run(it.question)
                if n:
                    lat.append(1000 * (time.perf_counter() - t0))
        rows.append({"corpus": corpus_name(p), "questions": len(items), "runs": len(lat),
                     **latency_summary(lat), "max_ms": round(max(lat), 2),
                     "over_300ms": round(sum(v > 300 for v in lat) / len(lat), 4)})
    out(f"citerag bench answer (per question, warm, {repeats} passes pooled; target p95 < 300 ms)")
    out(f"  {'corpus':16s} {'questions':>9s} {'p50_ms':>9s} {'p95_ms':>9s} {'max_ms':>9s} {'>300ms':>8s}")
    for r in rows:
        out(f"  {r['corpus']:16s} {r['questions']:9d} {r['p50_ms']:9.1f} {r['p95_ms']:9.1f} {r['max_ms']:9.1f} "
            f"{r['over_300ms']:8.3f}")
    return rows


def bench_ablate(params: Params, spec: str = "params/ablations/rrf_k0.yaml", out=print) -> dict:
    """Time a sweep cold (fresh artifact root and caches) and warm (artifacts cached, every
    variant re-executed), a resumed re-run (all variants done), and — as the yardstick — a cold
    main job (all numbered notebooks from scratch). Prints the share of each variant's time
    spent building stages (re-computing) versus evaluating."""
    import json
    import statistics

    from citerag.core.paths import resolve
    from citerag.experiments.ablate import load_ablation, run_ablation
    from citerag.experiments.notebooks import run_notebooks

    ab = load_ablation(spec)
    tmp = Path(tempfile.mkdtemp(prefix="citerag-bench-ablate-"))

    def scratch(name: str) -> dict:
        return {"paths.artifacts": str(tmp / name / "artifacts"), "paths.cache": str(tmp / name / "cache")}

    def sweep(label: str, extra: dict, root: Path, force: bool = False) -> dict:
        t0 = time.perf_counter()
        res = run_ablation(spec, extra=extra, out_root=root, force=force, report=False, progress=False, log=_quiet)
        total = time.perf_counter() - t0
        rows = []
        for v in ab.variants:
            s = json.loads((root / v.name / "summary.json").read_text()) if (root / v.name / "summary.json").exists() \
                else {}
            rebuilt = [st for st in ("ingest", "chunk", "index") if s.get(f"index.{st}_reused") is False]
            rows.append({"variant": v.name, "seconds": res.seconds.get(v.name, 0.0),
                         "build_s": s.get("eval_seconds.build_s", 0.0), "rebuilt": rebuilt})
        return {"label": label, "total_s": round(total, 2), "rows": rows, "failed": res.failed,
                "skipped": len(res.skipped)}

    try:
        t0 = time.perf_counter()
        main_params = params.with_overrides(scratch("main"))
        run_notebooks(main_params, resolve("params/default.yaml"), tmp / "main" / "run", scratch("main"),
                      log=_quiet)
        main_cold_s = time.perf_counter() - t0
        cold = sweep("cold", scratch("sweep"), tmp / "cold")
        warm = sweep("warm", scratch("sweep"), tmp / "warm")
        resumed = sweep("resumed", scratch("sweep"), tmp / "warm")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    first = cold["rows"][0]["seconds"]
    later = [r["seconds"] for r in cold["rows"][1:]]
    out(f"citerag bench ablate: {ab.name} ({len(ab.variants)} variants; notebooks {', '.join(ab.spec.notebooks)})")
    out(f"  cold main job (all numbered notebooks, fresh artifacts + caches): {main_cold_s:8.1f} s")
    for sw in (cold, warm):
        out(f"  {sw['label']} sweep: {sw['total_s']:.1f} s total")
        for r in sw["rows"]:
            share = r["build_s"] / r["seconds"] if r["seconds"] else 0.0
            out(f"    {r['variant']:28s} {r['seconds']:7.1f} s   re-computing {r['build_s']:6.1f} s ({share:5.1%})"
                f"   stages rebuilt: {', '.join(r['rebuilt']) or 'none'}")
    out(f"  resumed re-run (every variant done): {resumed['total_s']:.1f} s, {resumed['skipped']} skipped")
    med = statistics.median(later) if later else 0.0
    out(f"  a variant after the first (median of cold sweep variants 2..n): {med:.1f} s")
    out(f"    = {med / main_cold_s:.1%} of the cold main job, {med / first:.1%} of the sweep's cold first variant"
        f" ({first:.1f} s)")
    return {"main_cold_s": main_cold_s, "cold": cold, "warm": warm, "resumed": resumed, "later_median_s": med}
