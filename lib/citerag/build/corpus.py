"""The corpus manifest, and getting its PDFs onto disk with verified bytes.

Two sources, one contract: a local mirror folder named by an environment
variable (CI, offline users) or the official URL. Either way the bytes are
checked against the manifest's sha256 and written atomically, so a failed or
interrupted fetch never leaves a half-written or wrong file in place.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import yaml

from citerag.core.params import Params
from citerag.core.paths import resolve


class CorpusError(RuntimeError):
    """The manifest is malformed or a document could not be fetched and verified."""


@dataclass(frozen=True)
class Document:
    doc_id: str
    title: str
    file: str
    url: str
    sha256: str
    pages: int
    page_offset: int = 0


@dataclass(frozen=True)
class Manifest:
    name: str
    documents: tuple[Document, ...]

    def by_id(self) -> dict[str, Document]:
        return {d.doc_id: d for d in self.documents}

    def by_file(self) -> dict[str, Document]:
        return {d.file: d for d in self.documents}


_REQUIRED = ("doc_id", "title", "file", "url", "sha256", "pages")


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
                url=str(entry["url"]),
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
    if mirror is not None:
        src = mirror / doc.file
        if not src.is_file():
            raise CorpusError(f"{doc.file}: not found in mirror {mirror}")

        def copy(out):
            with open(src, "rb") as fh:
                shutil.copyfileobj(fh, out)

        _atomic_place(copy, dest, doc.sha256, f"mirror {src}")
        return "copied"

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


def fetch_corpus(params: Params, log=print) -> dict[str, str]:
    """Fetch every manifest document into `corpus.dir`; returns doc_id → action."""
    manifest = load_manifest(params.corpus.manifest)
    dest_dir = resolve(params.corpus.dir)
    mirror_value = os.environ.get(params.corpus.mirror_env)
    mirror = Path(mirror_value).expanduser().resolve() if mirror_value else None
    if mirror is not None and not mirror.is_dir():
        raise CorpusError(f"${params.corpus.mirror_env}={mirror_value}: not a directory")
    actions = {}
    for doc in manifest.documents:
        actions[doc.doc_id] = fetch_document(doc, dest_dir, mirror, params.corpus.download_timeout_s)
        log(f"{doc.doc_id}: {actions[doc.doc_id]}")
    return actions


def corpus_files(params: Params) -> list[Path]:
    """The PDFs to ingest: every `*.pdf` in `corpus.dir`, sorted by name.

    Files not in the manifest are ingested too (users add their own PDFs); the
    manifest is what fetch verifies, not a filter.
    """
    d = resolve(params.corpus.dir)
    if not d.is_dir():
        raise CorpusError(f"{d}: corpus folder missing; run `citerag corpus fetch` first")
    files = sorted(p for p in d.iterdir() if p.is_file() and p.suffix.lower() == ".pdf")
    if not files:
        raise CorpusError(f"{d}: no .pdf files; run `citerag corpus fetch` first")
    return files
