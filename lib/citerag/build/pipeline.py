"""The build stages ingest → chunk → index → knowledge, each cached by its stage hash.

Each `run_*` function either finds its finished artifact (same params slice,
same inputs) and returns it marked `reused`, or builds it. A stage can run
alone from its inputs on disk; notebooks 01–03 call exactly these.

A stage's hash covers its params slice, its inputs and its code. The inputs
come from the manifest and the profile, never from reading the PDFs, so
`stage_digests` can name every artifact of a params set without the corpus on
disk: that is how serving (`open_stages`) finds what was built, and how it
knows an artifact is stale (the manifest's doc ids, files, sha256s and titles,
and the profile, are all inside the hashes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from citerag.build.chunk import Chunk, chunk_pages
from citerag.build.clean import CleanPage, clean_pages
from citerag.build.corpus import CorpusError, corpus_documents, load_manifest, sha256_file
from citerag.build.ingest import FileReport, PageCache, PageRecord, ingest_files
from citerag.build.knowledge import CorpusKnowledge
from citerag.build.profile import load_profile
from citerag.core import artifacts as art
from citerag.core.params import STAGE_SECTIONS, Params, stable_hash, stage_hash
from citerag.core.paths import resolve


@dataclass
class StageResult:
    stage: str
    digest: str
    dir: Path
    reused: bool
    seconds: float
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        return self.manifest.get("counts", {})


# Source modules whose code shapes each stage's output: editing them invalidates
# that stage's artifacts (a params-only key would silently serve stale chunks).
STAGE_CODE: dict[str, tuple[str, ...]] = {
    "knowledge": ("build/knowledge.py", "build/profile.py", "text/patterns.py"),
    "ingest": ("build/ingest.py", "text/tokenize.py"),
    "chunk": ("build/clean.py", "build/chunk.py", "text/patterns.py", "text/sentences.py"),
    "index": ("build/index/embed.py", "build/index/chroma.py", "build/index/bm25.py", "text/tokenize.py",
              "build/pipeline.py"),
}


def _read_fingerprint(stage: str) -> str:
    import hashlib

    pkg = Path(__file__).resolve().parents[1]  # the citerag package
    h = hashlib.sha256()
    for rel in STAGE_CODE[stage]:
        h.update(rel.encode())
        h.update((pkg / rel).read_bytes())
    return h.hexdigest()[:12]


# Read once, as this module loads with the stage modules it imports: a process whose source is
# edited after it started (a notebook kernel, a test worker) still runs the code it loaded, and
# must file what it builds under that code's hash, not the edited code's (a later process would
# then reuse output the edited code never produced).
_LOADED = {stage: _read_fingerprint(stage) for stage in STAGE_CODE}


def code_fingerprint(stage: str) -> str:
    """The hash of the stage's code as this process loaded it."""
    return _LOADED[stage]


def _root(params: Params) -> Path:
    return resolve(params.paths.artifacts)


def _base_manifest(stage: str, digest: str, params: Params, inputs: dict[str, Any]) -> dict:
    data = params.to_dict()
    return {
        "stage": stage,
        "hash": digest,
        "params": {s: data[s] for s in STAGE_SECTIONS[stage]},
        "inputs": inputs,
        "versions": art.package_versions(),
    }


def _digest(params: Params, stage: str, inputs: dict[str, Any]) -> str:
    return stage_hash(params, stage, {**inputs, "code": code_fingerprint(stage)})


def _begin(params: Params, stage: str, inputs: dict[str, Any], t0: float
           ) -> tuple[str, Path, StageResult | None]:
    """Hash the stage (params slice + inputs + code), then either the finished artifact
    to reuse, or a private empty folder to build in (`art.finish` renames it into place)."""
    digest = _digest(params, stage, inputs)
    folder = art.stage_dir(_root(params), stage, digest)
    manifest = art.read_manifest(folder)
    if manifest is None:
        # Only the holder of the stage's lock builds (or clears a half-built folder); a process
        # that waited on it finds the winner's artifact and reuses it.
        art.lock_stage(folder)
        manifest = art.read_manifest(folder)
    if manifest is not None:
        art.unlock_stage(folder)
        return digest, folder, StageResult(stage, digest, folder, True, time.perf_counter() - t0, manifest)
    return digest, art.prepare(folder), None


# -- ingest -------------------------------------------------------------------------------

def _extractor_versions() -> dict[str, str]:
    return art.package_versions(("pymupdf", "pymupdf4llm"))


def ingest_inputs(params: Params, left_out: tuple[str, ...] = ()) -> dict[str, Any]:
    """What ingest reads, from the manifest: each document's id, file and sha256; and, for a
    partial build, the files it had to leave out (so a partial artifact never passes for a
    complete one: the complete corpus has its own hash)."""
    docs = load_manifest(params.corpus.manifest).documents
    inputs = {"documents": sorted([d.doc_id, d.file, d.sha256] for d in docs),
              "extractor_versions": _extractor_versions()}
    if left_out:
        inputs["left_out"] = sorted(left_out)
    return inputs


def _partial_pointer(params: Params, complete_digest: str) -> Path:
    """`ingest/<complete hash>.partial.json`: which partial artifact stands in for a complete
    corpus that could not be built, and what it leaves out. Serving follows it only while the
    complete artifact does not exist."""
    return _root(params) / "ingest" / f"{complete_digest}.partial.json"


def unavailable_documents(params: Params) -> list[FileReport]:
    """Manifest documents that cannot be ingested as listed: the file is missing, or its bytes
    differ from the manifest's sha256. Each with its reason."""
    out = []
    for doc, path in corpus_documents(params):
        if not path.is_file():
            reason, detail = "missing", f"not found in {path.parent} (run `citerag corpus fetch`)"
        elif sha256_file(path) != doc.sha256:
            reason, detail = "sha256_mismatch", ("the file's bytes differ from the manifest's sha256 "
                                                 "(re-run `citerag corpus init` or fetch)")
        else:
            continue
        out.append(FileReport(file=doc.file, doc_id=doc.doc_id, status="unavailable", reason=reason,
                              detail=detail, expected_pages=doc.pages))
    return out


@art.releases_locks_on_error
def run_ingest(params: Params, files: list[Path] | None = None, log=print) -> StageResult:
    """Extract pages of every manifest document (or of `files`, doc id = file stem) into
    `pages.jsonl` + `ingest_report.json`.

    A manifest document whose file is missing or whose bytes differ from its sha256 is left out,
    reported with its reason, and the rest build: that is a *partial* artifact, hashed with what
    it leaves out, with `counts.left_out` > 0 (the CLI exits 3). Once the files are there, the
    next build makes the complete artifact, and serving prefers it. No usable document at all is
    an error, never an empty index."""
    t0 = time.perf_counter()
    left: list[FileReport] = []
    if files is not None:
        files = sorted(files, key=lambda p: p.name)
        inputs = {"files": {p.name: sha256_file(p) for p in files}, "extractor_versions": _extractor_versions()}
        expected: dict[str, tuple[str, int]] = {}
    else:
        inputs = ingest_inputs(params)
        complete = _digest(params, "ingest", inputs)
        if art.read_manifest(art.stage_dir(_root(params), "ingest", complete)) is None:
            left = unavailable_documents(params)
            if left:
                inputs = ingest_inputs(params, tuple(r.file for r in left))
    digest, folder, hit = _begin(params, "ingest", inputs, t0)
    if hit is not None:
        if left:
            _write_partial_pointer(params, complete, digest, left)
        return hit
    if files is None:
        gone = {r.file for r in left}
        docs = [(doc, path) for doc, path in corpus_documents(params) if doc.file not in gone]
        if not docs:
            why = "; ".join(f"{r.file}: {r.reason} ({r.detail})" for r in left)
            raise CorpusError(f"no usable document in the corpus ({len(left)} file(s)): {why}")
        for r in left:
            log(f"ingest: left out {r.file}: {r.reason} ({r.detail})")
        files = [path for _, path in docs]
        expected = {doc.file: (doc.doc_id, doc.pages) for doc, _ in docs}
        shas = {doc.file: doc.sha256 for doc, _ in docs}  # verified by unavailable_documents
    else:
        shas = inputs["files"]
    cache = PageCache(resolve(params.paths.cache) / "pages",
                      stable_hash({"ingest": params.ingest.model_dump(), "code": code_fingerprint("ingest"),
                                   "versions": _extractor_versions()})) if params.build.page_cache else None
    log(f"ingest: {len(files)} PDF(s) with the {params.ingest.extractor} extractor")
    try:
        result = ingest_files(files, params.ingest, expected, cache=cache, shas=shas,
                              workers=params.build.workers)
    except KeyboardInterrupt as exc:
        if cache is None or isinstance(exc, art.BuildInterrupted):
            raise
        kept = sum(1 for f in files if shas.get(f.name) and cache.get(shas[f.name]) is not None)
        raise art.BuildInterrupted(f"pages of {kept} of {len(files)} document(s) kept in the page cache; "
                                   f"a re-run extracts only the other {len(files) - kept}") from None
    if not any(r.status == "ok" for r in result.reports):
        # An empty index would build with exit 0 and fail at the first query instead.
        reports = [*result.reports, *left]
        why = "; ".join(f"{r.file}: {r.reason} ({r.detail})" for r in reports) or "no PDF given"
        raise CorpusError(f"no usable document in the corpus ({len(reports)} file(s)): {why}")
    result.reports = sorted([*result.reports, *left], key=lambda r: r.file)
    art.write_jsonl(folder / "pages.jsonl", [vars(p) for p in result.pages])
    art.write_json_atomic(folder / "ingest_report.json", result.report_rows())
    seconds = time.perf_counter() - t0
    manifest = _base_manifest("ingest", digest, params, inputs)
    manifest["counts"] = {
        "documents": sum(r.status == "ok" for r in result.reports),
        "skipped": sum(r.status == "skipped" for r in result.reports),
        "left_out": len(left),                # unavailable: missing, or bytes differ from the manifest
        "pages": len(result.pages),
        "extracted": result.extracted,        # documents extracted now
        "page_cache_hits": result.cached,     # documents whose pages were cached (same sha256)
    }
    manifest["timings"] = {"ingest_s": round(seconds, 3)}
    folder = art.finish(folder, manifest)
    done = StageResult("ingest", digest, folder, False, seconds, manifest)
    if left:
        _write_partial_pointer(params, complete, digest, left)
    return done


def _write_partial_pointer(params: Params, complete: str, partial: str, left: list[FileReport]) -> None:
    art.write_json_atomic(_partial_pointer(params, complete), {
        "complete": complete, "digest": partial,
        "left_out": [{"file": r.file, "doc_id": r.doc_id, "reason": r.reason, "detail": r.detail} for r in left]})


def left_out(result: StageResult) -> list[dict]:
    """The documents a build could not index, with reasons: unavailable (missing, or bytes differ
    from the manifest) and unreadable (corrupt, encrypted, empty, not a PDF); [] when complete."""
    if not (result.counts.get("left_out") or result.counts.get("skipped")):
        return []
    return [r for r in load_ingest_report(result) if r["status"] != "ok"]


def load_pages(result: StageResult) -> list[PageRecord]:
    return [PageRecord(**r) for r in art.read_jsonl(result.dir / "pages.jsonl")]


def load_ingest_report(result: StageResult) -> list[dict]:
    import json

    return json.loads((result.dir / "ingest_report.json").read_text(encoding="utf-8"))


# -- clean + chunk ------------------------------------------------------------------------

@art.releases_locks_on_error
def run_chunk(params: Params, ingest: StageResult, log=print) -> StageResult:
    """Clean pages and chunk them into `pages_clean.jsonl` + `chunks.jsonl`."""
    t0 = time.perf_counter()
    digest, folder, hit = _begin(params, "chunk", {"ingest": ingest.digest}, t0)
    if hit is not None:
        return hit
    pages = load_pages(ingest)
    t_clean = time.perf_counter()
    cleaned = clean_pages(pages, params.clean)
    t_chunk = time.perf_counter()
    chunks = chunk_pages(cleaned, params.chunk)
    t_done = time.perf_counter()
    log(f"chunk: {len(chunks)} chunks ({params.chunk.strategy}, target {params.chunk.target_chars})")
    art.write_jsonl(folder / "pages_clean.jsonl", [vars(p) for p in cleaned])
    art.write_jsonl(folder / "chunks.jsonl", [c.to_dict() for c in chunks])
    manifest = _base_manifest("chunk", digest, params, {"ingest": ingest.digest})
    manifest["counts"] = {"pages": len(cleaned), "chunks": len(chunks)}
    manifest["timings"] = {
        "clean_s": round(t_chunk - t_clean, 3), "chunk_s": round(t_done - t_chunk, 3),
    }
    folder = art.finish(folder, manifest)
    return StageResult("chunk", digest, folder, False, time.perf_counter() - t0, manifest)


def load_clean_pages(result: StageResult) -> list[CleanPage]:
    return [CleanPage(**r) for r in art.read_jsonl(result.dir / "pages_clean.jsonl")]


def load_chunks(result: StageResult) -> list[Chunk]:
    return [Chunk(**r) for r in art.read_jsonl(result.dir / "chunks.jsonl")]


# -- index --------------------------------------------------------------------------------

def doc_titles(params: Params) -> dict[str, str]:
    return {d.doc_id: d.title for d in load_manifest(params.corpus.manifest).documents}


def index_text(chunk: Chunk, titles: dict[str, str], prefix_headings: bool) -> str:
    """What the embedding model and BM25 see: title and heading path give context."""
    if not prefix_headings:
        return chunk.text
    head = [titles.get(chunk.doc_id, chunk.doc_id)]
    if chunk.heading_path:
        head.append(" > ".join(chunk.heading_path))
    return "\n".join(head) + "\n" + chunk.text


@art.releases_locks_on_error
def run_index(params: Params, chunk: StageResult, log=print, progress: bool = True) -> StageResult:
    """Embed chunks (through the cache), write Chroma, and store BM25 tokens."""
    from citerag.build.index import chroma
    from citerag.build.index.embed import Embedder
    from citerag.text.tokenize import tokenize

    t0 = time.perf_counter()
    titles = doc_titles(params)
    digest, folder, hit = _begin(params, "index", {"chunk": chunk.digest, "titles": titles}, t0)
    if hit is not None:
        return hit
    chunks = load_chunks(chunk)
    texts = [index_text(c, titles, params.embed.prefix_headings) for c in chunks]

    embedder = Embedder(params.embed, cache_dir=params.paths.cache, models_dir=params.paths.models, log=log)
    t_embed = time.perf_counter()
    vectors = embedder.embed(texts, progress=progress)
    t_chroma = time.perf_counter()
    if params.index.store == "http":
        # The collection lives on the Chroma server, named by this build's hash.
        chroma.write_remote(params.index.http, chroma.remote_name(params.index.collection, digest), chunks,
                            vectors, params.embed)
    else:
        chroma.write_collection(folder / "chroma", params.index.collection, chunks, vectors, params.embed)
    # The same vectors as a plain array, aligned with chunks.jsonl: serving reads these and never
    # has to open the Chroma folder (which Chroma writes to even when only queried).
    np.save(folder / "vectors.npy", np.asarray(vectors, dtype=np.float32))
    t_bm25 = time.perf_counter()
    tokens = [tokenize(t, params.index.bm25_stem) for t in texts]
    art.write_jsonl(folder / "bm25_tokens.jsonl",
                    [{"chunk_id": c.chunk_id, "tokens": t} for c, t in zip(chunks, tokens)])
    t_done = time.perf_counter()
    log(f"index: {len(chunks)} chunks, {embedder.computed} embedded, {embedder.cache_hits} cached")

    manifest = _base_manifest("index", digest, params, {"chunk": chunk.digest, "titles": titles})
    manifest["counts"] = {
        "chunks": len(chunks), "embedded": embedder.computed, "embedding_cache_hits":
        embedder.cache_hits, "dim": int(vectors.shape[1]) if len(vectors) else 0,
    }
    manifest["timings"] = {
        "embed_s": round(t_chroma - t_embed, 3), "chroma_s": round(t_bm25 - t_chroma, 3),
        "bm25_s": round(t_done - t_bm25, 3),
    }
    folder = art.finish(folder, manifest)
    return StageResult("index", digest, folder, False, time.perf_counter() - t0, manifest)


# -- knowledge ----------------------------------------------------------------------------

KNOWLEDGE = "knowledge.json"


def knowledge_inputs(params: Params, chunk_digest: str) -> dict[str, Any]:
    return {"chunk": chunk_digest, "titles": doc_titles(params),
            "profile": load_profile(params.corpus.manifest).model_dump(mode="json")}


@art.releases_locks_on_error
def run_knowledge(params: Params, chunk: StageResult, log=print) -> StageResult:
    """Mine what serving needs to know about the corpus (acronyms, document mentions, identifier
    families, corpus-wide identifiers) and merge the profile: `knowledge.json`."""
    t0 = time.perf_counter()
    inputs = knowledge_inputs(params, chunk.digest)
    digest, folder, hit = _begin(params, "knowledge", inputs, t0)
    if hit is not None:
        return hit
    know = CorpusKnowledge.mine(load_chunks(chunk), inputs["titles"], load_profile(params.corpus.manifest))
    art.write_json_atomic(folder / KNOWLEDGE, know.to_dict())
    manifest = _base_manifest("knowledge", digest, params, inputs)
    manifest["counts"] = {"acronyms": len(know.acronyms), "mentions": len(know.mentions),
                          "families": len(know.families), "generic": len(know.generic)}
    seconds = time.perf_counter() - t0
    manifest["timings"] = {"knowledge_s": round(seconds, 3)}
    folder = art.finish(folder, manifest)
    log(f"knowledge: {manifest['counts']}")
    return StageResult("knowledge", digest, folder, False, seconds, manifest)


def load_knowledge(result: StageResult) -> CorpusKnowledge:
    import json

    return CorpusKnowledge.from_dict(json.loads((result.dir / KNOWLEDGE).read_text(encoding="utf-8")))


def build_all(params: Params, log=print, progress: bool = True) -> dict[str, StageResult]:
    """Ingest, chunk, index and mine knowledge (each reused when already built for these params)."""
    ingest = run_ingest(params, log=log)
    chunk = run_chunk(params, ingest, log=log)
    index = run_index(params, chunk, log=log, progress=progress)
    knowledge = run_knowledge(params, chunk, log=log)
    return {"ingest": ingest, "chunk": chunk, "index": index, "knowledge": knowledge}


class NotBuiltError(RuntimeError):
    """Serving asked for artifacts these params have not built (or that are stale)."""


def ingest_digest(params: Params) -> str:
    """The ingest hash serving opens: the complete corpus's; or, while only a partial build of it
    exists (some documents were missing or differed from the manifest), that partial one."""
    complete = _digest(params, "ingest", ingest_inputs(params))
    if art.read_manifest(art.stage_dir(_root(params), "ingest", complete)) is None:
        pointer = _partial_pointer(params, complete)
        if pointer.is_file():
            import json

            try:
                partial = json.loads(pointer.read_text(encoding="utf-8"))["digest"]
            except (OSError, ValueError, KeyError):
                return complete
            if art.read_manifest(art.stage_dir(_root(params), "ingest", partial)) is not None:
                return partial
    return complete


def stage_digests(params: Params) -> dict[str, str]:
    """Every stage's hash for these params, from the manifest and profile alone (no PDF read)."""
    ingest = ingest_digest(params)
    chunk = _digest(params, "chunk", {"ingest": ingest})
    index = _digest(params, "index", {"chunk": chunk, "titles": doc_titles(params)})
    knowledge = _digest(params, "knowledge", knowledge_inputs(params, chunk))
    return {"ingest": ingest, "chunk": chunk, "index": index, "knowledge": knowledge}


def open_stages(params: Params, params_hint: str = "PARAMS") -> dict[str, StageResult]:
    """The finished artifacts of these params; never builds. Missing or stale ones raise one
    line that names the command which builds them."""
    out, missing = {}, []
    for stage, digest in stage_digests(params).items():
        folder = art.stage_dir(_root(params), stage, digest)
        manifest = art.read_manifest(folder)
        if manifest is None:
            missing.append(f"{stage} {digest}")
            continue
        out[stage] = StageResult(stage, digest, folder, True, 0.0, manifest)
    if missing:
        raise NotBuiltError(
            f"no built index for these params under {_root(params)} (missing: {', '.join(missing)}; "
            f"the corpus, its manifest, profile, params or code changed, or it was never built): "
            f"run `citerag index --params {params_hint}`")
    return out
