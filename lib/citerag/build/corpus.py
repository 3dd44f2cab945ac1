"""The corpus manifest: writing it from a folder of PDFs, and getting its PDFs onto disk.

`init_corpus` scans any folder of PDFs and writes `data/<name>/corpus.yaml`
(doc ids, titles, sha256, page counts), a generic `profile.yaml` beside it and
a params file whose paths are that corpus's own. `fetch_corpus` is only needed
for documents that are not on disk yet: a local mirror folder named by an
environment variable (CI, offline users) or the document's `url`. Either way
the bytes are checked against the manifest's sha256 and written atomically,
so a failed or interrupted fetch never leaves a half-written or wrong file.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import yaml

from citerag.core.artifacts import write_text_atomic
from citerag.core.params import Params
from citerag.core.paths import repo_root, resolve


class CorpusError(RuntimeError):
    """The manifest is malformed or a document could not be fetched and verified."""


@dataclass(frozen=True)
class Document:
    doc_id: str
    title: str
    file: str
    sha256: str
    pages: int
    url: str | None = None  # only `fetch` uses it
    page_offset: int = 0


@dataclass(frozen=True)
class Manifest:
    name: str
    documents: tuple[Document, ...]

    def by_id(self) -> dict[str, Document]:
        return {d.doc_id: d for d in self.documents}

    def by_file(self) -> dict[str, Document]:
        return {d.file: d for d in self.documents}


_REQUIRED = ("doc_id", "title", "file", "sha256", "pages")


def load_manifest(path: str | Path) -> Manifest:
    """Parse `data/corpus.yaml`; errors name the file, the entry and the field."""
    p = resolve(path)
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CorpusError(f"{p}: corpus manifest not found") from None
    except yaml.YAMLError as exc:
        raise CorpusError(f"{p}: not valid YAML: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("documents"), list):
        raise CorpusError(f"{p}: expected a mapping with a `documents` list")
    docs = []
    for i, entry in enumerate(data["documents"]):
        if not isinstance(entry, dict):
            raise CorpusError(f"{p}: documents[{i}]: expected a mapping")
        missing = [k for k in _REQUIRED if k not in entry]
        if missing:
            raise CorpusError(f"{p}: documents[{i}]: missing field(s) {', '.join(missing)}")
        sha = str(entry["sha256"]).lower()
        if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
            raise CorpusError(f"{p}: documents[{i}].sha256: expected 64 hex digits")
        docs.append(
            Document(
                doc_id=str(entry["doc_id"]),
                title=str(entry["title"]),
                file=str(entry["file"]),
                url=str(entry["url"]) if entry.get("url") else None,
                sha256=sha,
                pages=int(entry["pages"]),
                page_offset=int(entry.get("page_offset", 0)),
            )
        )
    ids = [d.doc_id for d in docs]
    if len(set(ids)) != len(ids):
        raise CorpusError(f"{p}: duplicate doc_id in documents")
    return Manifest(name=str(data.get("name", p.stem)), documents=tuple(docs))


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _atomic_place(src_stream_writer, dest: Path, expected_sha: str, origin: str) -> None:
    """Write to a temp file beside `dest`, verify, then rename over `dest`."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            src_stream_writer(out)
        got = sha256_file(tmp)
        if got != expected_sha:
            raise CorpusError(
                f"{dest.name}: sha256 mismatch from {origin}: expected {expected_sha}, got {got}"
            )
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def fetch_document(
    doc: Document, dest_dir: Path, mirror: Path | None, timeout_s: float = 60.0
) -> str:
    """Ensure `dest_dir/doc.file` holds the verified bytes; returns what was done."""
    dest = dest_dir / doc.file
    if dest.is_file() and sha256_file(dest) == doc.sha256:
        return "present"
    if mirror is not None and (mirror / doc.file).is_file():
        src = mirror / doc.file

        def copy(out):
            with open(src, "rb") as fh:
                shutil.copyfileobj(fh, out)

        _atomic_place(copy, dest, doc.sha256, f"mirror {src}")
        return "copied"

    if not doc.url:
        where = f"in {dest_dir}" + (f" or the mirror {mirror}" if mirror else "")
        if dest.is_file():
            raise CorpusError(f"{doc.file}: its bytes in {dest_dir} differ from the manifest's sha256, no verified "
                              f"copy is {'in the mirror' if mirror else 'at hand'}, and the manifest gives no url")
        raise CorpusError(f"{doc.file}: not found {where}, and the manifest gives no url to download it from")

    def download(out):
        req = urllib.request.Request(doc.url, headers={"User-Agent": "citerag/0.1"})
        try:
            with urllib.request.urlopen(req, timeout=timeout_s) as resp:
                shutil.copyfileobj(resp, out)
        except OSError as exc:
            raise CorpusError(
                f"{doc.file}: download from {doc.url} failed ({exc}); offline? set the "
                f"mirror folder environment variable to a folder holding the PDFs"
            ) from None

    _atomic_place(download, dest, doc.sha256, doc.url)
    return "downloaded"


def fetch_corpus(params: Params, log=print, strict: bool = True) -> dict[str, str]:
    """Make every manifest document present and verified in `corpus.dir`; doc_id → action.

    Every document is tried. Strict (`citerag corpus fetch`): the error lists each one that could
    not be had, with its reason. Not strict (the build commands): each is logged and left to the
    build, which leaves it out of a partial index and says so."""
    manifest = load_manifest(params.corpus.manifest)
    dest_dir = resolve(params.corpus.dir)
    mirror_value = os.environ.get(params.corpus.mirror_env)
    mirror = Path(mirror_value).expanduser().resolve() if mirror_value else None
    if mirror is not None and not mirror.is_dir():
        raise CorpusError(f"${params.corpus.mirror_env}={mirror_value}: not a directory")
    actions, problems = {}, []
    for doc in manifest.documents:
        try:
            actions[doc.doc_id] = fetch_document(doc, dest_dir, mirror, params.corpus.download_timeout_s)
        except CorpusError as exc:
            problems.append(str(exc))
            continue
        log(f"{doc.doc_id}: {actions[doc.doc_id]}")
    if problems and strict:
        raise CorpusError("; ".join(problems))
    for p in problems:
        log(f"fetch: {p}")
    return actions


def corpus_documents(params: Params) -> list[tuple[Document, Path]]:
    """The manifest's documents with their local files, sorted by file name.

    The manifest defines the corpus: a PDF in the folder that it does not list is not
    ingested (`citerag corpus init` adds it)."""
    manifest = load_manifest(params.corpus.manifest)
    d = resolve(params.corpus.dir)
    if not d.is_dir():
        raise CorpusError(f"{d}: corpus folder missing; run `citerag corpus fetch` first")
    if not manifest.documents:
        raise CorpusError(f"{resolve(params.corpus.manifest)}: the manifest lists no documents")
    return sorted(((doc, d / doc.file) for doc in manifest.documents), key=lambda x: x[0].file)


# -- corpus init ----------------------------------------------------------------------------

_HEADING = re.compile(r"^(?:#+\s*)?([A-Z][^\n]{2,80})$")


def pdf_title(doc) -> str | None:
    """The PDF's metadata title, else the first heading-like line of its first pages."""
    title = (doc.metadata or {}).get("title", "").strip()
    if title and not re.fullmatch(r"(?i)untitled|microsoft word.*|.*\.(docx?|tex|dvi)", title):
        return title
    for page in list(doc)[:3]:
        for line in page.get_text().split("\n"):
            m = _HEADING.match(line.strip())
            if m and len(re.findall(r"[A-Za-z]{2,}", m.group(1))) >= 1:
                return m.group(1).strip()
    return None


def scan_folder(folder: Path) -> tuple[list[dict], list[dict]]:
    """Manifest entries for every readable PDF in `folder`, and {file, reason} for the rest."""
    import pymupdf

    entries, skipped = [], []
    nested = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() == ".pdf"
                    and p.parent != folder)
    if nested:  # the manifest names files in the folder itself; say what is left out
        skipped.append({"file": str(nested[0].relative_to(folder)),
                        "reason": f"in a subfolder ({len(nested)} such PDF(s)); run init on that folder"})
    for path in sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".pdf"):
        try:
            with pymupdf.open(path) as doc:
                if doc.needs_pass:
                    raise ValueError("encrypted (needs a password)")
                if doc.page_count == 0:
                    raise ValueError("no pages")
                title = pdf_title(doc) or path.stem
                pages = doc.page_count
        except Exception as exc:  # pymupdf raises its own types for damaged files
            reason = str(exc).strip() or type(exc).__name__
            skipped.append({"file": path.name, "reason": reason.splitlines()[0][:200]})
            continue
        entries.append({"doc_id": path.stem, "title": title, "file": path.name,
                        "sha256": sha256_file(path), "pages": pages})
    return entries, skipped


@dataclass(frozen=True)
class InitResult:
    manifest: Path
    profile: Path
    params: Path
    documents: int
    skipped: list[dict]
    profile_created: bool


_PARAMS_HEADER = "# Params for the {name} corpus, written by `citerag corpus init`."


def init_corpus(folder: str | Path, name: str, params_out: str | Path | None = None,
                data_root: str | Path = "data", force: bool = False) -> InitResult:
    """Write `data/<name>/corpus.yaml` from a folder of PDFs, a generic profile beside it (kept
    when it exists: it is the user's to edit) and a params file whose paths are the corpus's own.

    Re-running it on the same folder refreshes the manifest. It never overwrites a manifest made
    from another folder (or by hand) or a params file it did not write, unless `force`."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}", name):
        raise CorpusError(f"--name {name!r}: use letters, digits, '.', '_' or '-' (it names folders)")
    src = Path(os.path.normpath(Path(folder).expanduser().absolute()))  # keep a symlinked ../shared as given
    if not src.is_dir():
        raise CorpusError(f"{folder}: not a folder")
    entries, skipped = scan_folder(src)
    if not entries:
        why = "; ".join(f"{s['file']}: {s['reason']}" for s in skipped) or "no .pdf files"
        raise CorpusError(f"{folder}: no readable PDF ({why})")
    ids = [e["doc_id"] for e in entries]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise CorpusError(f"{folder}: file stems must be unique doc ids; repeated: {', '.join(dupes)}")
    home = resolve(data_root) / name
    manifest = home / "corpus.yaml"
    params_path = resolve(params_out) if params_out else resolve("params") / f"{name}.yaml"
    if not force:
        _refuse_foreign(manifest, params_path, name, _portable(src))
    home.mkdir(parents=True, exist_ok=True)
    header = (f"# Corpus manifest written by `citerag corpus init` from {_portable(src)}.\n"
              "# doc_id: file stem; title: PDF metadata or first heading; url: optional, used by `fetch` only.\n")
    body = {"name": name, "source": _portable(src), "documents": entries,
            **({"skipped": skipped} if skipped else {})}
    write_text_atomic(manifest, header + yaml.safe_dump(body, sort_keys=False, allow_unicode=True))
    from citerag.build.profile import write_default_profile

    profile = home / "profile.yaml"
    created = not profile.exists()
    if created:
        write_default_profile(profile, name)
    write_text_atomic(params_path, corpus_params_yaml(name, _portable(src), _portable(manifest), home))
    return InitResult(manifest, profile, params_path, len(entries), skipped, created)


def _refuse_foreign(manifest: Path, params_path: Path, name: str, source: str) -> None:
    """Nothing already built or written by hand is lost to a mistyped --name or --params-out."""
    if manifest.is_file():
        try:
            old = (yaml.safe_load(manifest.read_text(encoding="utf-8")) or {}).get("source")
        except yaml.YAMLError:
            old = None
        if old != source:
            made = f"from {old}" if old else "by hand (no `source`)"
            raise CorpusError(f"{manifest}: already holds corpus {name!r} made {made}; choose another --name, "
                              "or pass --force to replace it")
    if params_path.is_file() and not params_path.read_text(encoding="utf-8").startswith(
            _PARAMS_HEADER.format(name=name)):
        raise CorpusError(f"{params_path}: exists and was not written by `corpus init` for {name!r}; "
                          "choose another --params-out, or pass --force to replace it")


def corpus_params_yaml(name: str, pdf_dir: str, manifest: str, home: Path) -> str:
    """A params file for one corpus: only what differs from the defaults (paths), so the
    defaults in `core/params.py` keep applying to everything else."""
    eval_dir = home / "eval"
    data = {
        "paths": {"outputs": f"outputs/{name}", "artifacts": f"outputs/{name}/artifacts",
                  "cache": "outputs/cache", "runs": f"outputs/{name}/runs",
                  "ablations": f"outputs/{name}/ablations"},
        "corpus": {"manifest": manifest, "dir": pdf_dir},
        "agent": {"trace_dir": f"outputs/{name}/traces",
                  "conversation": {"memory_path": f"outputs/{name}/memory/threads.sqlite"}},
        "eval": {
            "questions": _portable(eval_dir / "questions.jsonl") if (eval_dir / "questions.jsonl").is_file() else None,
            "conversations": (_portable(eval_dir / "conversations.jsonl")
                              if (eval_dir / "conversations.jsonl").is_file() else None),
        },
    }
    return (_PARAMS_HEADER.format(name=name) + " Unlisted keys take the\n"
            "# defaults of lib/citerag/core/params.py. The embedding cache (content-addressed) is shared.\n"
            + yaml.safe_dump(data, sort_keys=False))


def _portable(path: Path) -> str:
    """A path relative to the repository root when it is inside or beside it (a clone with
    ../shared beside it stays movable), else absolute."""
    rel = os.path.relpath(path, repo_root())
    return rel if not rel.startswith("../..") else str(path)  # inside, or beside it (../shared)

