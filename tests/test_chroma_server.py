"""`index.store: http`: build into and query a real Chroma server (`chroma run` on 127.0.0.1,
started here and stopped after), and get the same rankings as the embedded store on the dev set."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, free_port, wait_until_up

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory):
    exe = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    assert Path(exe).is_file(), "the chroma CLI ships with the chromadb package"
    folder = tmp_path_factory.mktemp("chroma-server")
    port = free_port()
    log = open(folder / "server.log", "w")  # noqa: SIM115 (open for the server's whole life)
    proc = subprocess.Popen([exe, "run", "--path", str(folder / "data"), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until_up(f"http://127.0.0.1:{port}/api/v2/heartbeat", proc, "chroma run", 60, folder / "server.log")
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_a_chroma_server_index_ranks_the_dev_set_like_the_embedded_one(built, corpus_params, chroma_server):
    from citerag.build.index import chroma
    from citerag.build.pipeline import build_all
    from citerag.experiments.evalset import load_questions
    from citerag.retrieval.retriever import Retriever
    from citerag.retrieval.store import load_store

    remote = corpus_params.with_overrides({"index.store": "http", "index.http.port": chroma_server,
                                           "retrieve.dense_search": "chroma"})
    stages = build_all(remote, log=lambda _m: None, progress=False)
    assert stages["chunk"].digest == built["chunk"].digest           # only the index stage differs
    assert not (stages["index"].dir / "chroma").exists()              # the collection is on the server
    name = chroma.remote_name(remote.index.collection, stages["index"].digest)
    api = chroma.http_client(remote.index.http)
    assert api.get_collection(name).count() == stages["index"].counts["chunks"]

    def retriever(params, mode):
        p = params.with_overrides({"retrieve.method": mode})
        return Retriever(load_store(p), p.retrieve)

    embedded = corpus_params.with_overrides({"retrieve.dense_search": "chroma"})
    pairs = [(retriever(remote, "dense"), retriever(embedded, "dense")),      # server HNSW = embedded HNSW
             (retriever(remote, "hybrid"), retriever(corpus_params, "hybrid"))]  # = the default exact path
    items = load_questions(ROOT / corpus_params.eval.questions)
    assert len(items) >= 50
    for it in items:
        for a, b in pairs:
            assert [h.chunk_id for h in a.search(it.question).hits] == \
                [h.chunk_id for h in b.search(it.question).hits], it.qid
