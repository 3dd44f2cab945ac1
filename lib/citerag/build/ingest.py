"""PDF → one record per physical page, with a report of every file's fate.

A bad file (not a PDF, corrupt, encrypted, no text layer) is reported with a
reason and skipped; the other documents proceed. Pages are 1-based physical
page indices of the PDF file, the convention used everywhere in citerag.
"""

from __future__ import annotations

import contextlib
import io
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pymupdf

from citerag.core.params import IngestParams

# pymupdf prints recoverable-syntax warnings to stderr by default; we report instead.
pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)


@dataclass(frozen=True)
class PageRecord:
    doc_id: str
    page: int  # 1-based physical page index
    text: str


@dataclass
class FileReport:
    file: str
    doc_id: str
    status: str  # "ok" | "skipped"
    reason: str | None = None  # not_pdf | corrupt | encrypted | empty | page_count_mismatch
    detail: str | None = None
    pages: int = 0
    expected_pages: int | None = None
    chars: int = 0
    seconds: float = 0.0


@dataclass
class IngestResult:
    pages: list[PageRecord] = field(default_factory=list)
    reports: list[FileReport] = field(default_factory=list)

    def report_rows(self) -> list[dict]:
        return [asdict(r) for r in self.reports]


def _looks_like_pdf(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(1024)
    return b"%PDF-" in head


def _extract_layout(doc: pymupdf.Document) -> list[str]:
    """Markdown per page via pymupdf4llm (headings marked, tables as rows). No OCR."""
    import pymupdf4llm
    from pymupdf4llm.ocr import OCRMode

    sink = io.StringIO()
    # pymupdf4llm prints parser notes to stdout; they are not errors for us.
    with contextlib.redirect_stdout(sink):
        chunks = pymupdf4llm.to_markdown(
            doc, page_chunks=True, show_progress=False, use_ocr=OCRMode.NEVER
        )
    return [c["text"] for c in chunks]


def _extract_text(doc: pymupdf.Document) -> list[str]:
    """Plain text per page, blocks separated by blank lines."""
    out = []
    for page in doc:
        blocks = page.get_text("blocks", sort=True)
        out.append("\n\n".join(b[4].strip() for b in blocks if b[6] == 0 and b[4].strip()))
    return out


def ingest_file(
    path: Path, params: IngestParams, doc_id: str | None = None, expected_pages: int | None = None
) -> tuple[list[PageRecord], FileReport]:
    """Extract one PDF; never raises for a bad file, reports it instead."""
    doc_id = doc_id or path.stem
    rep = FileReport(file=path.name, doc_id=doc_id, status="skipped", expected_pages=expected_pages)
    t0 = time.perf_counter()
    try:
        if not _looks_like_pdf(path):
            rep.reason, rep.detail = "not_pdf", "no %PDF- header in the first 1024 bytes"
            return [], rep
        try:
            doc = pymupdf.open(path, filetype="pdf")
        except Exception as exc:  # pymupdf raises several types for damaged files
            rep.reason, rep.detail = "corrupt", f"cannot open: {exc}"
            return [], rep
        with doc:
            if doc.needs_pass:
                rep.reason, rep.detail = "encrypted", "password required"
                return [], rep
            if doc.page_count == 0:
                rep.reason, rep.detail = "corrupt", "no pages"
                return [], rep
            try:
                texts = (_extract_layout if params.extractor == "layout" else _extract_text)(doc)
            except Exception as exc:
                rep.reason, rep.detail = "corrupt", f"text extraction failed: {exc}"
                return [], rep
            page_count = doc.page_count
        if len(texts) != page_count:
            rep.reason = "corrupt"
            rep.detail = f"extractor returned {len(texts)} pages of {page_count}"
            return [], rep
        rep.pages = len(texts)
        rep.chars = sum(len(t.strip()) for t in texts)
        if rep.chars == 0:
            rep.reason, rep.detail = "empty", "no extractable text (scanned or blank)"
            return [], rep
        rep.status = "ok"
        if params.check_page_counts and expected_pages is not None and rep.pages != expected_pages:
            # Kept (the text is real) but flagged: the file is not the one the manifest pins.
            rep.reason = "page_count_mismatch"
            rep.detail = f"expected {expected_pages} pages, found {rep.pages}"
        pages = [PageRecord(doc_id, i + 1, t) for i, t in enumerate(texts)]
        return pages, rep
    finally:
        rep.seconds = round(time.perf_counter() - t0, 4)


def ingest_files(
    paths: list[Path], params: IngestParams, expected: dict[str, tuple[str, int]] | None = None
) -> IngestResult:
    """Ingest many PDFs; `expected` maps a file name to (doc_id, page count) from the manifest."""
    result = IngestResult()
    for path in sorted(paths, key=lambda p: p.name):
        doc_id, n = (expected or {}).get(path.name, (None, None))
        pages, rep = ingest_file(path, params, doc_id=doc_id, expected_pages=n)
        result.pages.extend(pages)
        result.reports.append(rep)
    return result
