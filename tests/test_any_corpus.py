"""Any folder of PDFs: corpus init → index → retrieve → ask through the real CLI, on a corpus of
software manuals the tests write themselves (no NIST document, no profile edits)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import pdf_project, write_pdf

SERVER = [
    "Quillmark Server Guide\n\n1 Installation\nInstall the package, then start the server with quillmark serve. "
    "The default port of the Quillmark server is 8731. Use the --port option to choose another port.",
    "2 Configuration\nQuillmark stores its settings in the file .quillrc in your home directory. "
    "Edit the .quillrc file to change the default theme. Never commit .quillrc to version control; "
    "add it to .gitignore instead.",
]
CLIENT = [
    "Quillmark Client Reference\n\n1 Commands\nThe quill export command writes a document as HTML or PDF. "
    "The quill sync command uploads local notes to the server every 15 minutes by default.",
    "2 Troubleshooting\nWarning messages:\n1: In sync(-1) : value out of range\n2: In export(x) : file not found\n"
    "A warning about an out of range value means the sync interval is negative.",
]
FORMATS = [
    "Quillmark File Formats\n\n1 Notes\nEvery note is stored as UTF-8 text with a YAML header. "
    "Binary builds exist for x86-64 and arm64. Legacy files use ISO-8859-1 and are converted on import.",
]


def _cli(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "CITERAG_ROOT": str(root)}
    proc = subprocess.run([sys.executable, "-m", "citerag", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"citerag {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A project root of its own (CITERAG_ROOT): data/, params/ and outputs/ stay out of the repo."""
    root = pdf_project(tmp_path_factory.mktemp("anycorpus"), "manuals",
                       {"quill-server.pdf": SERVER, "quill-client.pdf": CLIENT, "formats.pdf": FORMATS})
    (root / "manuals" / "broken.pdf").write_bytes(b"%PDF-1.7 not really a pdf")
    return root


def _artifacts(root: Path) -> list[Path]:
    folder = root / "outputs" / "quill" / "artifacts"
    return sorted(folder.rglob("*")) if folder.exists() else []


def test_init_index_retrieve_ask_on_a_new_corpus(project: Path):
    out = _cli(project, "corpus", "init", "manuals", "--name", "quill").stdout
    assert "3 document(s)" in out and "skipped broken.pdf" in out
    manifest = yaml.safe_load((project / "data" / "quill" / "corpus.yaml").read_text())
    assert [d["doc_id"] for d in manifest["documents"]] == ["formats", "quill-client", "quill-server"]
    assert manifest["documents"][2]["title"] == "Quillmark Server Guide"   # no metadata title: first heading
    assert all("url" not in d for d in manifest["documents"])            # url is optional
    params = project / "params" / "quill.yaml"
    assert yaml.safe_load(params.read_text())["paths"]["artifacts"] == "outputs/quill/artifacts"

    # serving before any build: one line naming the build command, and nothing built
    q = project / "q.jsonl"
    q.write_text("\n".join(json.dumps(r) for r in [
        {"qid": "port", "question": "What is the default port of the Quillmark server?"},
        {"qid": "rc", "question": "Where does Quillmark store its settings?"},
        {"qid": "sync", "question": "How often does quill sync upload notes by default?"},
        {"qid": "none", "question": "Which Kubernetes operator deploys Quillmark?"},
    ]) + "\n")
    miss = _cli(project, "ask", "--params", "params/quill.yaml", "--questions", "q.jsonl", "--out", "a.jsonl",
                check=False)
    assert miss.returncode == 2
    assert "run `citerag index --params params/quill.yaml`" in miss.stderr and len(miss.stderr.splitlines()) == 1
    assert _artifacts(project) == [] and not (project / "a.jsonl").exists()

    _cli(project, "index", "--quiet", "--params", "params/quill.yaml")
    _cli(project, "retrieve", "--params", "params/quill.yaml", "--questions", "q.jsonl", "--out", "r.jsonl")
    hits = {r["qid"]: r["hits"] for r in map(json.loads, (project / "r.jsonl").read_text().splitlines())}
    def on(hit, doc, page):
        return hit["doc_id"] == doc and hit["start_page"] <= page <= hit["end_page"]

    assert on(hits["port"][0], "quill-server", 1) and on(hits["rc"][0], "quill-server", 2)
    assert on(hits["sync"][0], "quill-client", 1)

    _cli(project, "ask", "--params", "params/quill.yaml", "--questions", "q.jsonl", "--out", "a.jsonl")
    ans = {r["qid"]: r for r in map(json.loads, (project / "a.jsonl").read_text().splitlines())}
    assert "8731" in ans["port"]["answer"] and not ans["port"]["refused"]
    assert ".quillrc" in ans["rc"]["answer"] and "file.quillrc" not in ans["rc"]["answer"]  # cleaning kept the dot
    assert "15 minutes" in ans["sync"]["answer"]
    assert ans["none"]["refused"]


def test_init_never_overwrites_another_corpus_or_a_foreign_params_file(project: Path):
    if not (project / "data" / "quill" / "corpus.yaml").is_file():
        pytest.skip("needs the corpus of the first test")
    before = (project / "data" / "quill" / "corpus.yaml").read_text()
    other = project / "other"
    other.mkdir(exist_ok=True)
    write_pdf(other / "x.pdf", ["Another manual about something else entirely."])
    clash = _cli(project, "corpus", "init", "other", "--name", "quill", check=False)
    assert clash.returncode == 2 and "already holds corpus 'quill'" in clash.stderr and "--force" in clash.stderr
    assert (project / "data" / "quill" / "corpus.yaml").read_text() == before
    (project / "params" / "mine.yaml").write_text("retrieve: {k: 5}\n")
    foreign = _cli(project, "corpus", "init", "other", "--name", "other", "--params-out", "params/mine.yaml",
                   check=False)
    assert foreign.returncode == 2 and (project / "params" / "mine.yaml").read_text() == "retrieve: {k: 5}\n"
    assert not (project / "data" / "other").exists()
    # the same folder again refreshes in place
    _cli(project, "corpus", "init", "manuals", "--name", "quill")
    assert (project / "data" / "quill" / "corpus.yaml").read_text() == before


def test_editing_a_title_rebuilds_what_depends_on_it(project: Path):
    if not (project / "data" / "quill" / "corpus.yaml").is_file():
        pytest.skip("needs the corpus of the test above")  # only when run alone with -k
    manifest_path = project / "data" / "quill" / "corpus.yaml"
    data = yaml.safe_load(manifest_path.read_text())
    data["documents"][1]["title"] = "Quillmark Client Command Reference"
    manifest_path.write_text(yaml.safe_dump(data, sort_keys=False))
    # serving sees the stale index and says so (it does not serve the old titles)
    stale = _cli(project, "retrieve", "--params", "params/quill.yaml", "--questions", "q.jsonl", "--out", "r2.jsonl",
                 check=False)
    assert stale.returncode == 2 and "citerag index --params params/quill.yaml" in stale.stderr
    out = _cli(project, "index", "--quiet", "--params", "params/quill.yaml").stdout
    state = {line.split()[0]: line.split()[1] for line in out.splitlines() if line.strip()}
    assert state == {"ingest": "reused", "chunk": "reused", "index": "built", "knowledge": "built"}
    # a profile edit rebuilds only the knowledge stage
    prof = project / "data" / "quill" / "profile.yaml"
    prof.write_text(prof.read_text().replace('domain: ""', 'domain: "the Quillmark manuals"'))
    out = _cli(project, "index", "--quiet", "--params", "params/quill.yaml").stdout
    state = {line.split()[0]: line.split()[1] for line in out.splitlines() if line.strip()}
    assert state == {"ingest": "reused", "chunk": "reused", "index": "reused", "knowledge": "built"}
