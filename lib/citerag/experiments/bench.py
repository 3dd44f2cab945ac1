"""Benchmarks that print measured figures (speed targets live here, not in unit tests)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from citerag.build.pipeline import build_all
from citerag.core.params import Params


def _quiet(_msg: str) -> None:
    pass


def _timed(cmd: list[str]) -> tuple[float, str]:
    """Wall time of a whole process (interpreter start, imports and model load included)."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} … failed ({done.returncode}): {done.stderr.strip()[-800:]}")
    return seconds, done.stdout


def _naive_corpus_dir(params: Params, tmp: Path) -> Path:
    """A folder holding exactly the manifest's PDFs (the naive script globs `*.pdf`)."""
    from citerag.build.corpus import corpus_documents

    folder = tmp / "naive-pdfs"
    folder.mkdir()
    for doc, path in corpus_documents(params):
        (folder / doc.file).symlink_to(path.resolve())
    return folder


def _manifest_copy(src: Path, dest: Path, keep: list[dict]) -> Path:
    """The manifest with only `keep` documents (and its profile) in another folder."""
    import yaml

    data = yaml.safe_load(src.read_text(encoding="utf-8"))
    data["documents"] = keep
    dest.mkdir(parents=True)
    (dest / "corpus.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    if (src.parent / "profile.yaml").is_file():
        shutil.copy(src.parent / "profile.yaml", dest / "profile.yaml")
    return dest / "corpus.yaml"


def _add_one_document(p: Params, root: Path, cold_s: float) -> dict:
    """Build the corpus without its last document, then add it (a new `citerag index` process)
    and count what the addition extracted and embedded."""
    import yaml

    from citerag.core.paths import resolve

    manifest = resolve(p.corpus.manifest)
    docs = yaml.safe_load(manifest.read_text(encoding="utf-8"))["documents"]
    if len(docs) < 2:
        return {}
    base = {"paths.artifacts": str(root / "artifacts"), "paths.cache": str(root / "cache")}
    without = p.with_overrides({**base, "corpus.manifest": str(_manifest_copy(manifest, root / "without", docs[:-1]))})
    build_all(without, log=_quiet, progress=False)
    full = p.with_overrides({**base, "corpus.manifest": str(_manifest_copy(manifest, root / "full", docs))})
    params_file = root / "full.yaml"
    params_file.write_text(yaml.safe_dump(full.to_dict(), sort_keys=False), encoding="utf-8")
    add_s, _ = _timed([sys.executable, "-m", "citerag.cli", "index", "--params", str(params_file)])
    done = build_all(full, log=_quiet, progress=False)  # reused: the added build's manifests
    return {"add_one_doc": f"{docs[-1]['doc_id']} ({docs[-1].get('pages')} pages)",
            "add_one_doc_s": round(add_s, 2), "add_one_doc_share_of_cold": round(add_s / cold_s, 3),
            "add_one_doc_extracted_docs": done["ingest"].counts.get("extracted"),
            "add_one_doc_embedded_chunks": done["index"].counts["embedded"],
            "add_one_doc_total_chunks": done["index"].counts["chunks"]}


def bench_index(params: Params, naive_script: str | Path | None = None, out=print) -> dict:
    """One cold build of citerag and one of the naive script on the same PDFs, both timed as
    whole processes in the same run, and their ratio; then the stage breakdown of the cold
    build, a warm re-run, a rebuild that keeps only the caches, and adding one document to
    the built corpus (only that document is extracted and embedded)."""
    import yaml

    from citerag.build.index.embed import resolve_model_path, resolved_precision
    from citerag.core.paths import repo_root, resolve

    tmp = Path(tempfile.mkdtemp(prefix="citerag-bench-"))
    try:
        p = params.with_overrides({"paths.artifacts": str(tmp / "artifacts"), "paths.cache": str(tmp / "cache")})
        figures: dict = {}
        if p.embed.backend == "onnx-int8":  # the derived model is built once per machine, not per corpus
            from citerag.build.index.onnx_embed import int8_model

            t0 = time.perf_counter()
            int8_model(resolve_model_path(p.embed.model), resolve(p.paths.models), log=_quiet)
            figures["int8_model_prepare_s"] = round(time.perf_counter() - t0, 2)

        script = Path(naive_script) if naive_script else repo_root().parent / "shared" / "bench" / "naive_index.py"
        naive_s = None
        if script.is_file():
            naive_s, stdout = _timed([sys.executable, str(script), str(_naive_corpus_dir(p, tmp))])
            figures["naive_chunks"] = int(stdout.split("chunks=")[-1].split()[0]) if "chunks=" in stdout else None

        params_file = tmp / "params.yaml"
        params_file.write_text(yaml.safe_dump(p.to_dict(), sort_keys=False), encoding="utf-8")
        cold_s, _ = _timed([sys.executable, "-m", "citerag.cli", "index", "--params", str(params_file)])

        t0 = time.perf_counter()
        cold = build_all(p, log=_quiet, progress=False)  # every stage reused: reads the cold manifests
        warm_s = time.perf_counter() - t0

        ing, chk, idx = cold["ingest"], cold["chunk"], cold["index"]
        t = {**ing.manifest["timings"], **chk.manifest["timings"], **idx.manifest["timings"]}
        pages, chunks = ing.counts["pages"], chk.counts["chunks"]
        figures.update({
            "citerag_cold_s": round(cold_s, 2),
            "naive_cold_s": round(naive_s, 2) if naive_s is not None else None,
            "ratio": round(cold_s / naive_s, 3) if naive_s else None,
            "embed_backend": p.embed.backend,
            "embed_precision": resolved_precision(p.embed),
            "ingest_extractor": p.ingest.extractor + (
                "" if p.ingest.extractor != "layout"
                else " (page image)" if p.ingest.layout_image else " (no page image)"),
            "ingest_s": t["ingest_s"], "clean_s": t["clean_s"], "chunk_s": t["chunk_s"],
            "embed_s": t["embed_s"], "chroma_s": t["chroma_s"], "bm25_s": t["bm25_s"],
            "other_s (start, imports, model load, knowledge)": round(
                cold_s - sum(t[k] for k in ("ingest_s", "clean_s", "chunk_s", "embed_s", "chroma_s", "bm25_s")), 2),
            "pages": pages, "chunks": chunks,
            "ingest_pages_per_s": round(pages / t["ingest_s"], 1),
            "embed_chunks_per_s": round(chunks / t["embed_s"], 1) if t["embed_s"] else None,
            "warm_rerun_s": round(warm_s, 2),
        })

        shutil.rmtree(tmp / "artifacts")
        t0 = time.perf_counter()
        cached = build_all(p, log=_quiet, progress=False)
        figures["rebuild_with_caches_s"] = round(time.perf_counter() - t0, 2)
        figures["rebuild_extracted_docs"] = cached["ingest"].counts.get("extracted")
        figures["rebuild_embedded"] = cached["index"].counts["embedded"]
        figures.update(_add_one_document(p, tmp / "add-one", cold_s))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    out("citerag bench index (cold builds as whole processes, same PDFs, same run)")
    if figures.get("ratio") is not None:
        out(f"  ratio citerag/naive = {figures['citerag_cold_s']} s / {figures['naive_cold_s']} s = "
            f"{figures['ratio']}")
    else:
        out("  naive script not found: no ratio (pass --naive PATH)")
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


def _copies_manifest(params: Params, factor: int, root: Path) -> Path:
    """The corpus `factor` times: copy k of a document is a symlinked file under another doc id and
    title (distinct chunk texts, so nothing is served from the embedding cache)."""
    import yaml

    from citerag.build.corpus import corpus_documents
    from citerag.core.paths import resolve

    manifest = resolve(params.corpus.manifest)
    data = yaml.safe_load(manifest.read_text(encoding="utf-8"))
    pdfs = root / "pdfs"
    pdfs.mkdir(parents=True)
    docs = []
    for k in range(factor):
        for doc, path in corpus_documents(params):
            entry = {k: v for k, v in asdict(doc).items() if v is not None}
            if k:
                stem = f"{Path(doc.file).stem}.copy{k}"
                entry.update(doc_id=f"{doc.doc_id}.copy{k}", file=f"{stem}.pdf", title=f"{doc.title} (copy {k})")
                entry.pop("url", None)
            (pdfs / entry["file"]).symlink_to(path.resolve())
            docs.append(entry)
    data["documents"] = docs
    (root / "corpus.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    if (manifest.parent / "profile.yaml").is_file():
        shutil.copy(manifest.parent / "profile.yaml", root / "profile.yaml")
    return root / "corpus.yaml"


_PEAK = ("import resource, sys, runpy; sys.argv = ['citerag'] + sys.argv[1:]; code = 0\n"
         "try:\n    runpy.run_module('citerag.cli', run_name='__main__')\n"
         "except SystemExit as e:\n    code = e.code or 0\n"
         "r = resource.getrusage; print('peak_kib', max(r(resource.RUSAGE_SELF).ru_maxrss, "
         "r(resource.RUSAGE_CHILDREN).ru_maxrss)); sys.exit(code)")


def bench_scale(params: Params, factors: tuple[int, ...] = (1, 2, 4), repeats: int = 3, plot: str | None = None,
                out=print) -> list[dict]:
    """Cold builds of the corpus 1×, 2×, 4× (as whole processes, no page or embedding cache) and
    hybrid query latency on each: seconds per page, peak memory, p50/p95 per query."""
    import yaml

    from citerag.core.paths import resolve
    from citerag.experiments.evalset import load_questions
    from citerag.retrieval.retriever import Retriever
    from citerag.retrieval.store import load_store

    questions = [it.question for it in load_questions(resolve(params.eval.questions))] if params.eval.questions \
        else []
    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="citerag-scale-"))
    try:
        for factor in factors:
            root = tmp / f"x{factor}"
            p = params.with_overrides({
                "corpus.manifest": str(_copies_manifest(params, factor, root)), "corpus.dir": str(root / "pdfs"),
                "paths.artifacts": str(root / "artifacts"), "paths.cache": str(root / "cache"),
                "build.page_cache": False})
            params_file = root / "params.yaml"
            params_file.write_text(yaml.safe_dump(p.to_dict(), sort_keys=False), encoding="utf-8")
            seconds, stdout = _timed([sys.executable, "-c", _PEAK, "index", "--params", str(params_file)])
            peak_mib = int(stdout.split("peak_kib")[-1].split()[0]) / 1024
            stages = build_all(p, log=_quiet, progress=False)  # reused
            pages, chunks = stages["ingest"].counts["pages"], stages["index"].counts["chunks"]
            retriever = Retriever(load_store(p), p.retrieve)
            for q in questions[:5]:
                retriever.search(q)  # warm-up
            lat = []
            for _ in range(repeats):
                for q in questions:
                    t0 = time.perf_counter()
                    retriever.search(q)
                    lat.append((time.perf_counter() - t0) * 1000)
            lat.sort()
            rows.append({"factor": factor, "pages": pages, "chunks": chunks, "build_s": round(seconds, 2),
                         "s_per_page": round(seconds / pages, 4), "peak_mib": round(peak_mib),
                         "hybrid_p50_ms": round(lat[len(lat) // 2], 2) if lat else None,
                         "hybrid_p95_ms": round(lat[int(0.95 * (len(lat) - 1))], 2) if lat else None})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out(f"citerag bench scale (cold builds as whole processes; {len(questions)} queries × {repeats})")
    cols = ["factor", "pages", "chunks", "build_s", "s_per_page", "peak_mib", "hybrid_p50_ms", "hybrid_p95_ms"]
    out("  " + " ".join(f"{c:>13s}" for c in cols))
    for r in rows:
        out("  " + " ".join(f"{r[c]!s:>13s}" for c in cols))
    if len(rows) > 1 and rows[0]["hybrid_p50_ms"]:
        out(f"  p50 {rows[-1]['factor']}x / 1x = {rows[-1]['hybrid_p50_ms'] / rows[0]['hybrid_p50_ms']:.2f}; "
            f"s/page {rows[-1]['factor']}x / 1x = {rows[-1]['s_per_page'] / rows[0]['s_per_page']:.2f}")
    if plot:
        _plot_scale(rows, Path(plot))
        out(f"  plot: {plot}")
    return rows


def _plot_scale(rows: list[dict], path: Path) -> None:
    """Three panels against corpus pages: build s/page, peak memory, query latency."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pages = [r["pages"] for r in rows]
    fig, ax = plt.subplots(1, 3, figsize=(12, 3.4))
    ax[0].plot(pages, [r["s_per_page"] for r in rows], "o-")
    ax[0].set(title="build cost per page", xlabel="pages", ylabel="s / page", ylim=(0, None))
    ax[1].plot(pages, [r["peak_mib"] for r in rows], "o-")
    ax[1].set(title="peak memory of the build", xlabel="pages", ylabel="MiB", ylim=(0, None))
    ax[2].plot(pages, [r["hybrid_p50_ms"] for r in rows], "o-", label="p50")
    ax[2].plot(pages, [r["hybrid_p95_ms"] for r in rows], "s--", label="p95")
    ax[2].set(title="hybrid query latency", xlabel="pages", ylabel="ms", ylim=(0, None))
    ax[2].legend()
    for a in ax:
        a.set_xticks(pages)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


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
