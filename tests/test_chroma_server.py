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


def test_the_auth_header_comes_from_its_variable_and_reaches_the_server(chroma_server, monkeypatch):
    """`index.http.auth_env` names the variable holding the header's value (never the params): the
    header reaches the server on every request, and an unset variable is a clear error."""
    import json
    import threading
    import urllib.error
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from citerag.build.index import chroma
    from citerag.core.params import ChromaHttpParams

    seen: list[str | None] = []

    class Recorder(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            seen.append(self.headers.get("X-Chroma-Token"))
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or None
            req = urllib.request.Request(f"http://127.0.0.1:{chroma_server}{self.path}", data=body,
                                         method=self.command, headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=30) as resp:
                    status, data = resp.status, resp.read()
            except urllib.error.HTTPError as exc:
                status, data = exc.code, exc.read()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = _forward

        def log_message(self, *_args) -> None:
            pass

    proxy = ThreadingHTTPServer(("127.0.0.1", free_port()), Recorder)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    try:
        hp = ChromaHttpParams(port=proxy.server_address[1], auth_header="X-Chroma-Token",
                              auth_env="CITERAG_TEST_CHROMA_TOKEN")
        monkeypatch.delenv("CITERAG_TEST_CHROMA_TOKEN", raising=False)
        with pytest.raises(RuntimeError, match="CITERAG_TEST_CHROMA_TOKEN is not set"):
            chroma.http_client(hp)
        monkeypatch.setenv("CITERAG_TEST_CHROMA_TOKEN", "tok-51f0")
        api = chroma.http_client(hp)
        api.heartbeat()
        api.list_collections()
    finally:
        proxy.shutdown()
        proxy.server_close()
    assert seen and all(v == "tok-51f0" for v in seen)
    assert "tok-51f0" not in json.dumps(hp.model_dump())              # params hold the variable's name only
