"""Shared fixtures: PDFs the tests generate themselves, and the real corpus build."""

from __future__ import annotations

import os
from pathlib import Path

import pymupdf
import pytest
from citerag.params import Params, load_params
from citerag.paths import repo_root

ROOT = repo_root()


def write_pdf(path: Path, pages: list[str], **save_kwargs) -> Path:
    """A small real PDF with one text block per page (empty string → blank page)."""
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page(width=595, height=842)
        if text:
            page.insert_textbox(pymupdf.Rect(50, 50, 545, 800), text, fontsize=10)
    doc.save(str(path), **save_kwargs)
    doc.close()
    return path


@pytest.fixture
def pdf_factory(tmp_path: Path):
    def make(name: str, pages: list[str], **kw) -> Path:
        return write_pdf(tmp_path / name, pages, **kw)

    return make


@pytest.fixture(scope="session")
def corpus_params() -> Params:
    """Default params over the real corpus (fetched by `make test` before pytest runs)."""
    params = load_params(ROOT / "params" / "default.yaml")
    folder = ROOT / params.corpus.dir
    if not folder.is_dir() or len(list(folder.glob("*.pdf"))) < 6:
        from citerag.corpus import fetch_corpus

        if not os.environ.get(params.corpus.mirror_env):
            pytest.fail("corpus missing: run `citerag corpus fetch` (or set CITERAG_CORPUS_MIRROR)")
        fetch_corpus(params, log=lambda _m: None)
    return params


@pytest.fixture(scope="session")
def built(corpus_params):
    """The default build (shared with `make run` through the artifact cache)."""
    from citerag.pipeline import build_all

    return build_all(corpus_params, log=lambda _m: None, progress=False)
