"""Benchmarks that print measured figures (speed targets live here, not in unit tests)."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from citerag.params import Params
from citerag.pipeline import build_all


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
