from pathlib import Path

import pymupdf
from citerag.build.ingest import ingest_file, ingest_files
from citerag.core.params import IngestParams


def test_good_pdf_one_record_per_physical_page(pdf_factory):
    pdf = pdf_factory("good.pdf", ["First page text", "Second page", "Third page ML-KEM-768"])
    for extractor in ("layout", "text"):
        pages, rep = ingest_file(pdf, IngestParams(extractor=extractor), expected_pages=3)
        assert rep.status == "ok" and rep.reason is None
        assert [p.page for p in pages] == [1, 2, 3]
        assert "ML-KEM-768" in pages[2].text and pages[0].doc_id == "good"


def test_bad_files_are_reported_and_others_proceed(pdf_factory, tmp_path: Path):
    good = pdf_factory("good.pdf", ["Real text here"])
    blank = pdf_factory("blank.pdf", ["", ""])
    locked = pdf_factory("locked.pdf", ["secret"], encryption=pymupdf.PDF_ENCRYPT_AES_256,
                         owner_pw="owner", user_pw="user")
    text_file = tmp_path / "notes.pdf"
    text_file.write_text("just some text, not a PDF\n")
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(good.read_bytes()[:40] + b"\x00garbage" * 20)

    result = ingest_files([good, blank, locked, text_file, corrupt], IngestParams())
    by_file = {r.file: r for r in result.reports}
    assert by_file["good.pdf"].status == "ok"
    assert (by_file["blank.pdf"].status, by_file["blank.pdf"].reason) == ("skipped", "empty")
    assert by_file["locked.pdf"].reason == "encrypted"
    assert by_file["notes.pdf"].reason == "not_pdf"
    assert by_file["corrupt.pdf"].reason == "corrupt"
    assert {p.doc_id for p in result.pages} == {"good"}


def test_page_count_mismatch_is_flagged_but_kept(pdf_factory):
    pdf = pdf_factory("short.pdf", ["one", "two"])
    pages, rep = ingest_file(pdf, IngestParams(), expected_pages=5)
    assert rep.status == "ok" and rep.reason == "page_count_mismatch" and len(pages) == 2


def test_worker_processes_give_the_same_pages_and_reports(pdf_factory, tmp_path: Path):
    """Layout extraction in a pool of spawned workers (one onnxruntime thread each) must not
    change a page or a report, nor lose a bad file's reason."""
    docs = [pdf_factory(f"doc{i}.pdf", [f"Section {i}.1 Scope", f"Key sizes of LKG-{i} are {100 + i} bytes",
                                         "Closing text"]) for i in range(3)]
    blank = pdf_factory("blank.pdf", ["", ""])
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(docs[0].read_bytes()[:40] + b"\x00garbage" * 20)
    files = [*docs, blank, corrupt]
    one = ingest_files(files, IngestParams(), workers=1)
    two = ingest_files(files, IngestParams(), workers=2)
    assert two.extracted == one.extracted == 5
    assert [vars(p) for p in two.pages] == [vars(p) for p in one.pages]
    assert [(r.file, r.status, r.reason, r.pages) for r in two.reports] == \
        [(r.file, r.status, r.reason, r.pages) for r in one.reports]
    assert {p.doc_id for p in two.pages} == {"doc0", "doc1", "doc2"}
    assert any("LKG-2 are 102 bytes" in p.text for p in two.pages)
