import hashlib
import http.server
import threading
from pathlib import Path

import pytest
import yaml
from citerag.build.corpus import CorpusError, fetch_corpus, load_manifest
from citerag.core.params import Params


def _setup(tmp_path: Path, content: bytes, url: str = "http://127.0.0.1:9/x.pdf", sha=None):
    manifest = tmp_path / "corpus.yaml"
    manifest.write_text(yaml.safe_dump({"name": "t", "documents": [{
        "doc_id": "X", "title": "X", "file": "x.pdf", "url": url, "pages": 1,
        "sha256": sha or hashlib.sha256(content).hexdigest()}]}))
    params = Params().with_overrides({
        "corpus.manifest": str(manifest), "corpus.dir": str(tmp_path / "corpus"),
        "corpus.mirror_env": "CITERAG_TEST_MIRROR", "corpus.download_timeout_s": 5})
    return params


def test_manifest_errors_name_file_and_field(tmp_path: Path):
    m = tmp_path / "m.yaml"
    m.write_text("documents:\n  - doc_id: A\n    file: a.pdf\n")
    with pytest.raises(CorpusError, match=r"documents\[0\]: missing field\(s\) title, sha256, pages"):
        load_manifest(m)
    m.write_text("documents:\n  - {doc_id: A, title: t, file: a.pdf, url: u, pages: 1, sha256: zz}\n")
    with pytest.raises(CorpusError, match=r"documents\[0\].sha256"):
        load_manifest(m)


def test_repo_manifest_lists_six_documents():
    m = load_manifest("data/nist-pqc/corpus.yaml")
    assert [d.pages for d in m.documents] == [56, 65, 61, 34, 29, 64]


def test_mirror_copy_verifies_and_is_idempotent(tmp_path: Path, monkeypatch):
    content = b"%PDF-1.7 fake but hashed"
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "x.pdf").write_bytes(content)
    monkeypatch.setenv("CITERAG_TEST_MIRROR", str(mirror))
    params = _setup(tmp_path, content)
    assert fetch_corpus(params, log=lambda _m: None) == {"X": "copied"}
    assert (tmp_path / "corpus" / "x.pdf").read_bytes() == content
    assert fetch_corpus(params, log=lambda _m: None) == {"X": "present"}


def test_mirror_mismatch_leaves_nothing_behind(tmp_path: Path, monkeypatch):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "x.pdf").write_bytes(b"tampered")
    monkeypatch.setenv("CITERAG_TEST_MIRROR", str(mirror))
    params = _setup(tmp_path, b"original")
    with pytest.raises(CorpusError, match="x.pdf: sha256 mismatch"):
        fetch_corpus(params, log=lambda _m: None)
    assert list((tmp_path / "corpus").iterdir()) == []  # no partial or wrong file


def test_download_from_local_http_server(tmp_path: Path, monkeypatch):
    content = b"%PDF-1.4 served over loopback"
    served = tmp_path / "www"
    served.mkdir()
    (served / "x.pdf").write_bytes(content)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(served), **kw)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.delenv("CITERAG_TEST_MIRROR", raising=False)
        url = f"http://127.0.0.1:{server.server_port}/x.pdf"
        params = _setup(tmp_path, content, url=url)
        assert fetch_corpus(params, log=lambda _m: None) == {"X": "downloaded"}
        assert (tmp_path / "corpus" / "x.pdf").read_bytes() == content
        (tmp_path / "b").mkdir()
        bad = _setup(tmp_path / "b", content, url=url.replace("x.pdf", "missing.pdf"))
        with pytest.raises(CorpusError, match="download from"):
            fetch_corpus(bad, log=lambda _m: None)
    finally:
        server.shutdown()
