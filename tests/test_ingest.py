from pathlib import Path

import pymupdf
from citerag.build.ingest import ingest_file, ingest_files
from citerag.core.params import IngestParams


def test_good_pdf_one_record_per_physical_page(pdf_factory):
    pdf = pdf_factory("good.pdf", ["First page text", "Second page", "Third page ML-KEM-768"])
    for params in (IngestParams(), IngestParams(layout_image=False), IngestParams(extractor="text")):
        pages, rep = ingest_file(pdf, params, expected_pages=3)
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


def test_layout_sessions_keep_the_arena_and_change_no_page(pdf_factory):
    """Our onnxruntime settings for the layout model (memory arena on, see build/workers.py) make
    the same pages as pymupdf4llm with its own settings, run in a fresh process."""
    import json
    import subprocess
    import sys

    import onnxruntime as ort
    from citerag.build.ingest import extract

    pdf = pdf_factory("arena.pdf", ["1 Introduction\n\nThe scheme has three parts.",
                                    "Table 1: sizes\n\nname size\nA-1 800\nB-2 1184", "Closing words"])
    plain = subprocess.run(
        [sys.executable, "-c", "import io, contextlib, json, sys, pymupdf4llm\n"
         "from pymupdf4llm.ocr import OCRMode\n"
         "with contextlib.redirect_stdout(io.StringIO()):\n"
         f"    pages = pymupdf4llm.to_markdown({str(pdf)!r}, page_chunks=True, use_ocr=OCRMode.NEVER)\n"
         "sys.stdout.write(json.dumps([p['text'] for p in pages]))"],
        capture_output=True, text=True, check=True).stdout
    assert extract(pdf, IngestParams()) == json.loads(plain)
    # a session made with pymupdf-layout's options (arena off) gets it on
    import pymupdf.layout

    model = Path(pymupdf.layout.__file__).parent / "resources" / "onnx" / "layout_rf2.4.1.onnx"
    opts = ort.SessionOptions()
    opts.enable_cpu_mem_arena = False
    assert ort.InferenceSession(str(model), opts).get_session_options().enable_cpu_mem_arena


def test_respace_spaces_glued_runs_as_the_plain_text_writes_them():
    from citerag.build.ingest import respace

    plain = "# Make the x-axis be 5 cm long.\nset x size 5\nthe message theme\n"
    layout = "```\n#Makethex-axisbe5cmlong.\nsetxsize5\n```\nthe message theme themessage"
    out = respace(layout, plain)
    assert "# Make the x-axis be 5 cm long." in out and "set x size 5" in out
    # a word the plain text writes whole is never split ("theme" is not "the me…"), and a run
    # the plain text does not hold at word boundaries stays as it is
    assert out.endswith("the message theme the message") and respace("sizeset5x", plain) == "sizeset5x"


def test_glued_prose_is_respaced_and_rejoined_but_code_lines_only_when_asked():
    """A license printed in a typewriter font came out as fenced lines of glued words
    ("Thisprogramisfreesoftware;youcan"): unreadable, unsearchable. A run that reads as a sentence
    (five words or more, two function words, no character of code) is re-spaced always; on a
    page whose glued runs are mostly such prose, every run is, its fences go and its lines join
    into paragraphs. A command line has no function word: it stays glued unless asked."""
    from citerag.build.ingest import prose_run, respace

    plain = ("This program is free software; you can\nredistribute it under the terms\nof the License.\n"
             "If the program is interactive, make it\noutput a notice.\nset y axis name horizontal\n")
    layout = ("```\nThisprogramisfreesoftware;youcan\nredistributeitundertheterms\nofthe License.\n```\n\n"
              "```\nIftheprogramisinteractive,makeit\noutputa notice.\n```")
    out = respace(layout, plain, prose_only=True)
    assert "```" not in out and "This program is free software; you can redistribute it under the terms of the " \
        "License." in out and "If the program is interactive, make it output a notice." in out, out
    code = "```\nsetyaxisnamehorizontal\nIftheprogramisinteractive,makeit\n```"
    assert respace(code, plain, prose_only=True) == "```\nsetyaxisnamehorizontal\nIf the program is interactive, make it\n```"
    assert "set y axis name horizontal" in respace(code, plain)
    assert not prose_run("set y axis name horizontal".split()) and not prose_run("open a.dat # read the file".split())


def test_layout_extraction_of_glued_code_is_respaced_only_when_asked():
    """Gri's manual sets its code examples in a monospaced font whose spaces the layout extractor
    drops ("setxsize5"); `ingest.respace` restores them from the page's plain text."""
    from citerag.build.ingest import _extract_layout
    from citerag.core.paths import repo_root

    src = repo_root().parent / "shared" / "corpus" / "tech-manuals" / "gri.pdf"
    with pymupdf.open(src) as doc:
        doc.select([75])  # physical page 76: the command file of a TS diagram example
        glued = _extract_layout(doc)[0]
        spaced = _extract_layout(doc, respaced=True)[0]
    assert "setsymbolsize0.03" in glued and "set symbol size 0.03" not in glued
    assert "set symbol size 0.03" in spaced and "draw isopycnal 26.50 unlabelled" in spaced
