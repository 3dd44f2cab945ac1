"""PDF → one record per physical page, with a report of every file's fate.

A bad file (not a PDF, corrupt, encrypted, no text layer) is reported with a
reason and skipped; the other documents proceed. Pages are 1-based physical
page indices of the PDF file, the convention used everywhere in citerag.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import time
import unicodedata
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from citerag.build.workers import layout_sessions, one_thread_per_worker
from citerag.core.params import IngestParams
from citerag.text.tokenize import function_words

if TYPE_CHECKING:
    import pymupdf


@cache
def _pymupdf():
    """pymupdf, imported when a PDF is opened: serving reads built pages and chunks only, and the
    import (with its layout model) costs seconds per process."""
    import pymupdf

    # pymupdf prints recoverable-syntax warnings to stderr by default; we report instead.
    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    return pymupdf


@dataclass(frozen=True)
class PageRecord:
    doc_id: str
    page: int  # 1-based physical page index
    text: str


@dataclass
class FileReport:
    file: str
    doc_id: str
    status: str  # "ok" | "skipped" | "unavailable" (missing, or bytes differ from the manifest)
    reason: str | None = None  # not_pdf | corrupt | encrypted | empty | page_count_mismatch | missing | sha256_mismatch
    detail: str | None = None
    pages: int = 0
    expected_pages: int | None = None
    chars: int = 0
    seconds: float = 0.0


@dataclass
class IngestResult:
    pages: list[PageRecord] = field(default_factory=list)
    reports: list[FileReport] = field(default_factory=list)
    extracted: int = 0  # documents extracted by this run
    cached: int = 0     # documents whose pages came from the page cache
    seconds: float = 0.0

    def report_rows(self) -> list[dict]:
        return [asdict(r) for r in self.reports]


def _looks_like_pdf(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(1024)
    return b"%PDF-" in head


@cache
def _layout_model(image: bool):
    """pymupdf-layout's page analyser, with or without the page-image features (its `imf+rf` and
    `rf` feature sets), loaded once per process."""
    layout_sessions(one_thread=False)  # a worker has set its thread limit already
    from pymupdf.layout import DocumentLayoutAnalyzer

    return DocumentLayoutAnalyzer.get_model(feature_set_name="imf+rf" if image else "rf")


def _extract_layout(doc: pymupdf.Document, image: bool = True, respaced: bool = False) -> list[str]:
    """Markdown per page via pymupdf4llm (headings marked, tables as rows). No OCR.

    Heading levels come from statistics over the whole document, so a document is extracted
    whole, by one process; `ingest_files` spreads documents over worker processes."""
    import pymupdf4llm
    from pymupdf4llm.ocr import OCRMode

    # pymupdf4llm asks pymupdf's hook for each page's layout; point it at the chosen analyser.
    model = _layout_model(image)
    _pymupdf()._get_layout = model.predict

    sink = io.StringIO()
    # pymupdf4llm prints parser notes to stdout; they are not errors for us.
    with contextlib.redirect_stdout(sink):
        chunks = pymupdf4llm.to_markdown(
            doc, page_chunks=True, show_progress=False, use_ocr=OCRMode.NEVER
        )
    # The layout extractor drops the spaces of monospaced text ("savefileas2" for "save file
    # as 2"); the page's plain text has them. Glued prose is always re-spaced, glued code on request.
    return [respace(c["text"], page.get_text(), prose_only=not respaced) for c, page in zip(chunks, doc)]


# A run this long without a space may be words the extraction glued together.
_RUN = re.compile(r"\S{6,}")
# Characters of code, not of prose: a run holding one is a line of code (or a comment in one).
_CODE_CHARS = re.compile(r"[\d#=_\\/<>{}\[\]|*@$%^&+~]")
# On a page of glued prose, runs too short to be taken for glued words elsewhere ("ofthe", "isit").
_SHORT_RUN = re.compile(r"(?<!\S)\S{4,5}(?!\S)")
# A code fence line of the layout markdown.
_FENCE = re.compile(r"^[ \t]*```[^\n]*$", re.M)
# A line break inside a paragraph: not after a colon, not before a numbered or bulleted line.
_LINE_IN_PARAGRAPH = re.compile(r"(?<=[^\s:])[ \t]*\n(?![ \t]*(?:\n|\d+[.)]\s|[-*•]\s|#))")


def prose_run(words: list[str]) -> bool:
    """Glued words that read as a sentence of prose (a license printed in a typewriter font):
    five words or more, two of them function words, no character of code. A command line
    ("set y axis name horizontal") has no function word."""
    fw = function_words()
    return (len(words) >= 5 and not any(_CODE_CHARS.search(w) for w in words)
            and sum(w.strip(".,;:()'\"‘’“”").lower() in fw for w in words) >= 2)


def respace(layout: str, plain: str, prose_only: bool = False) -> str:
    """The layout text with each glued run of words ("#Openthelogfilefirst;") spaced as the
    plain text of the same page writes it. A run counts as glued when the plain text never
    writes it as one word but writes it as consecutive whole words: it must start and end at word
    boundaries there, so a real word ("theme") never matches across two ("the message").
    `prose_only`: only runs that read as prose (`prose_run`), or every run of a page whose glued
    runs are mostly prose (the short lines of a glued paragraph, "redistributeit"); lines of code
    stay glued, as the opt-in full re-spacing measured a small loss on the seen pools."""
    words = [unicodedata.normalize("NFKC", w) for w in plain.split()]
    known = set(words)
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    pos = 0
    for i, w in enumerate(words):
        starts[pos] = i
        pos += len(w)
        ends[pos] = i
    stream = "".join(words)

    def found(m: re.Match) -> list[str] | None:
        """The plain text's words a glued run stands for (None: not a glued run)."""
        run = unicodedata.normalize("NFKC", m.group(0))
        if run in known:
            return None
        i = stream.find(run)
        while i >= 0:
            j = i + len(run)
            if i in starts and j in ends and ends[j] > starts[i]:
                return words[starts[i]:ends[j] + 1]
            i = stream.find(run, i + 1)
        return None

    runs = {m.start(): f for m in _RUN.finditer(layout) if (f := found(m))}
    prose = {at for at, f in runs.items() if prose_run(f)}
    glued_prose = 2 * len(prose) > len(runs)
    if not prose_only or glued_prose:
        prose = set(runs)
    text = _RUN.sub(lambda m: " ".join(runs[m.start()]) if m.start() in prose else m.group(0), layout)
    if not (glued_prose and prose):
        return text
    # a page of glued prose was read as code: its short runs ("ofthe") are words glued too, its
    # fences go, its paragraphs are joined again
    text = _SHORT_RUN.sub(lambda m: " ".join(found(m) or [m.group(0)]), text)
    return _LINE_IN_PARAGRAPH.sub(" ", _FENCE.sub("", text))



def _extract_text(doc: pymupdf.Document) -> list[str]:
    """Plain text per page, blocks separated by blank lines."""
    out = []
    for page in doc:
        blocks = page.get_text("blocks", sort=True)
        out.append("\n\n".join(b[4].strip() for b in blocks if b[6] == 0 and b[4].strip()))
    return out


def extract(path: Path, params: IngestParams) -> list[str]:
    with _pymupdf().open(path, filetype="pdf") as doc:
        if params.extractor == "layout":
            return _extract_layout(doc, params.layout_image, params.respace)
        return _extract_text(doc)


def _open_checked(path: Path, rep: FileReport) -> int | None:
    """The page count of a readable PDF, or None with the reason on the report."""
    if not _looks_like_pdf(path):
        rep.reason, rep.detail = "not_pdf", "no %PDF- header in the first 1024 bytes"
        return None
    try:
        doc = _pymupdf().open(path, filetype="pdf")
    except Exception as exc:  # pymupdf raises several types for damaged files
        rep.reason, rep.detail = "corrupt", f"cannot open: {exc}"
        return None
    with doc:
        if doc.needs_pass:
            rep.reason, rep.detail = "encrypted", "password required"
            return None
        if doc.page_count == 0:
            rep.reason, rep.detail = "corrupt", "no pages"
            return None
        return doc.page_count


def _finish(texts: list[str], page_count: int, rep: FileReport, doc_id: str, params: IngestParams
            ) -> list[PageRecord]:
    if len(texts) != page_count:
        rep.reason = "corrupt"
        rep.detail = f"extractor returned {len(texts)} pages of {page_count}"
        return []
    rep.pages = len(texts)
    rep.chars = sum(len(t.strip()) for t in texts)
    if rep.chars == 0:
        rep.reason, rep.detail = "empty", "no extractable text (scanned or blank)"
        return []
    rep.status = "ok"
    if params.check_page_counts and rep.expected_pages is not None and rep.pages != rep.expected_pages:
        # Kept (the text is real) but flagged: the file is not the one the manifest pins.
        rep.reason = "page_count_mismatch"
        rep.detail = f"expected {rep.expected_pages} pages, found {rep.pages}"
    return [PageRecord(doc_id, i + 1, t) for i, t in enumerate(texts)]


def ingest_file(
    path: Path, params: IngestParams, doc_id: str | None = None, expected_pages: int | None = None
) -> tuple[list[PageRecord], FileReport]:
    """Extract one PDF in this process; never raises for a bad file, reports it instead."""
    doc_id = doc_id or path.stem
    rep = FileReport(file=path.name, doc_id=doc_id, status="skipped", expected_pages=expected_pages)
    t0 = time.perf_counter()
    try:
        n = _open_checked(path, rep)
        if n is None:
            return [], rep
        try:
            texts = extract(path, params)
        except Exception as exc:
            rep.reason, rep.detail = "corrupt", f"text extraction failed: {exc}"
            return [], rep
        return _finish(texts, n, rep, doc_id, params), rep
    finally:
        rep.seconds = round(time.perf_counter() - t0, 4)


def _workers(requested: int, jobs: int) -> int:
    return max(1, min(requested or (os.cpu_count() or 1), jobs))


class PageCache:
    """Extracted pages of one PDF, keyed by its sha256 and everything that shapes extraction
    (`key`: extractor, its package versions, this module's code): adding or changing one
    document re-extracts that document only."""

    def __init__(self, folder: Path, key: str) -> None:
        self.folder, self.key = folder, key

    def _path(self, sha: str) -> Path:
        return self.folder / f"{sha}-{self.key}.json"

    def get(self, sha: str) -> dict | None:
        path = self._path(sha)
        if not path.is_file():
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # a torn or unreadable entry is re-extracted

    def put(self, sha: str, texts: list[str]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self._path(sha).with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"texts": texts}), encoding="utf-8")
        os.replace(tmp, self._path(sha))


def _extracted(jobs: list[tuple[Path, IngestParams, str | None, int | None]], workers: int):
    """(pages, report) per job, in job order. Layout extraction of several documents runs in a
    pool of spawned processes, the largest files first so the cores finish together."""
    if len(jobs) < 2 or workers < 2 or jobs[0][1].extractor != "layout":
        yield from (ingest_file(*job) for job in jobs)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    order = sorted(range(len(jobs)), key=lambda i: -jobs[i][0].stat().st_size)  # bytes ~ work
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=one_thread_per_worker) as pool:
        futures = {i: pool.submit(ingest_file, *jobs[i]) for i in order}
        for i in range(len(jobs)):
            yield futures[i].result()


def ingest_files(
    paths: list[Path], params: IngestParams, expected: dict[str, tuple[str, int]] | None = None,
    cache: PageCache | None = None, shas: dict[str, str] | None = None, workers: int = 1,
) -> IngestResult:
    """Ingest many PDFs; `expected` maps a file name to (doc_id, page count) from the manifest.
    A document found in `cache` (by its sha256 in `shas`) is not extracted again. `workers`
    processes extract documents side by side (0: one per CPU core)."""
    result = IngestResult()
    t0 = time.perf_counter()
    todo, done = [], {}
    for path in sorted(paths, key=lambda p: p.name):
        doc_id, n = (expected or {}).get(path.name, (None, None))
        sha = (shas or {}).get(path.name)
        hit = cache.get(sha) if cache is not None and sha else None
        if hit is None:
            todo.append((path, params, doc_id, n))
        else:
            rep = FileReport(file=path.name, doc_id=doc_id or path.stem, status="skipped", expected_pages=n)
            done[path.name] = (_finish(hit["texts"], len(hit["texts"]), rep, rep.doc_id, params), rep)
            result.cached += 1
    for (path, *_), (pages, rep) in zip(todo, _extracted(todo, _workers(workers, len(todo)))):
        result.extracted += 1
        sha = (shas or {}).get(path.name)
        if cache is not None and sha and rep.status == "ok":
            cache.put(sha, [p.text for p in pages])  # as each document lands: an interrupt keeps it
        done[path.name] = (pages, rep)
    for name in sorted(done):
        pages, rep = done[name]
        result.pages.extend(pages)
        result.reports.append(rep)
    result.seconds = round(time.perf_counter() - t0, 3)
    return result
