"""Partial corpora and private builds: a document that is missing, whose bytes differ from the
manifest, or that cannot be read is left out with its reason while the rest build (exit 3); once a
missing one is back, the complete index is built and served. Stage folders appear in place only
when finished."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from citerag.core import artifacts as art
from conftest import pdf_project, write_pdf

DOCS = {
    "alpha.pdf": ["Alpha Manual\n\n1 Ports\nThe alpha daemon listens on port 7311 by default."],
    "beta.pdf": ["Beta Manual\n\n1 Limits\nThe beta queue holds at most 4096 messages."],
    "gamma.pdf": ["Gamma Manual\n\n1 Colours\nThe gamma plotter draws grid lines in teal."],
}


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CITERAG_ROOT": str(root)}
    return subprocess.run([sys.executable, "-m", "citerag", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600)


def _stages(stdout: str) -> dict[str, tuple[str, dict]]:
    out = {}
    for line in stdout.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[0] in {"ingest", "chunk", "index", "knowledge"}:
            counts = json.loads(parts[3][parts[3].index("{"): parts[3].rindex("}") + 1])
            out[parts[0]] = (parts[1], counts)
    return out


def _ask(root: Path, *questions: str) -> tuple[list[dict], str]:
    q, out = root / "q.jsonl", root / "out.jsonl"
    q.write_text("".join(json.dumps({"qid": i, "question": x}) + "\n" for i, x in enumerate(questions)))
    proc = _cli(root, "ask", "--params", "params/parts.yaml", "--questions", str(q), "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [json.loads(line) for line in out.read_text().splitlines()], proc.stderr


def test_a_partial_corpus_builds_the_rest_then_completes(tmp_path):
    root = pdf_project(tmp_path / "p", "pdfs", DOCS)
    assert _cli(root, "corpus", "init", "pdfs", "--name", "parts").returncode == 0
    keep = tmp_path / "keep"
    keep.mkdir()
    for name in ("beta.pdf", "gamma.pdf"):
        shutil.copy(root / "pdfs" / name, keep / name)
    (root / "pdfs" / "beta.pdf").unlink()                                     # missing
    write_pdf(root / "pdfs" / "gamma.pdf", ["Gamma Manual, tampered with"])   # bytes differ

    proc = _cli(root, "index", "--params", "params/parts.yaml", "--quiet")
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert "left out beta.pdf: missing" in proc.stderr
    assert "left out gamma.pdf: sha256_mismatch" in proc.stderr
    stages = _stages(proc.stdout)
    assert stages["ingest"][0] == "built"
    assert stages["ingest"][1]["documents"] == 1 and stages["ingest"][1]["left_out"] == 2
    report = json.loads(next((root / "outputs").rglob("ingest_report.json")).read_text())
    assert {r["file"]: r["status"] for r in report} == {
        "alpha.pdf": "ok", "beta.pdf": "unavailable", "gamma.pdf": "unavailable"}

    # Serving opens the partial index, says what it lacks, and answers from the rest.
    (port, queue), err = _ask(root, "Which port does the alpha daemon listen on?",
                              "How many messages does the beta queue hold?")
    assert "partial index, 2 document(s) left out" in err
    assert not port["refused"] and "7311" in port["answer"]
    assert "4096" not in queue["answer"]

    # The same partial build again is reused (and still exits 3).
    again = _cli(root, "index", "--params", "params/parts.yaml", "--quiet")
    assert again.returncode == 3 and _stages(again.stdout)["ingest"][0] == "reused"

    # The files come back: the complete index is built (only they are extracted) and served.
    for name in ("beta.pdf", "gamma.pdf"):
        shutil.copy(keep / name, root / "pdfs" / name)
    done = _cli(root, "index", "--params", "params/parts.yaml", "--quiet")
    assert done.returncode == 0, done.stderr[-3000:]
    ingest = _stages(done.stdout)["ingest"]
    assert ingest[0] == "built" and ingest[1]["documents"] == 3 and ingest[1]["left_out"] == 0
    assert ingest[1]["extracted"] == 2 and ingest[1]["page_cache_hits"] == 1
    (row,), err = _ask(root, "How many messages does the beta queue hold?")
    assert "partial index" not in err
    assert not row["refused"] and "4096" in row["answer"]

    # A document listed with the right sha256 that still cannot be read (damaged, or a manifest
    # written by hand) is reported with its reason, exit 3, and the rest serve.
    bad = root / "pdfs" / "damaged.pdf"
    bad.write_bytes(b"%PDF-1.7\n1 0 obj broken beyond repair")
    manifest = root / "data" / "parts" / "corpus.yaml"
    data = yaml.safe_load(manifest.read_text())
    data["documents"].append({"doc_id": "damaged", "file": "damaged.pdf", "title": "Damaged", "pages": 1,
                              "sha256": hashlib.sha256(bad.read_bytes()).hexdigest()})
    manifest.write_text(yaml.safe_dump(data, sort_keys=False))
    proc = _cli(root, "index", "--params", "params/parts.yaml", "--quiet")
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert "left out damaged.pdf: corrupt" in proc.stderr and "Traceback" not in proc.stderr
    ingest = _stages(proc.stdout)["ingest"][1]
    assert ingest["documents"] == 3 and ingest["skipped"] == 1 and ingest["left_out"] == 0
    (row,), err = _ask(root, "Which port does the alpha daemon listen on?")
    assert "damaged.pdf (corrupt)" in err and "7311" in row["answer"]


def test_a_stage_appears_in_place_only_when_finished(tmp_path):
    """The lock holder builds in a private folder, clears what killed builds left, and renames the
    finished folder into place."""
    folder = tmp_path / "chunk" / "abc123"
    stale = folder.with_name(f".{folder.name}.building-99999")
    stale.mkdir(parents=True)
    folder.mkdir()                                   # a manifest-less folder of an older layout
    (folder / "chunks.jsonl").write_text("half")
    art.lock_stage(folder)
    work = art.prepare(folder)
    assert not stale.exists() and not folder.exists()
    assert work.is_dir() and work.parent == folder.parent and work != folder
    (work / "chunks.jsonl").write_text("{}\n")
    assert art.read_manifest(folder) is None         # nothing in place while building
    done = art.finish(work, {"stage": "chunk"})
    assert done == folder and not work.exists()
    assert art.read_manifest(folder) == {"stage": "chunk"}
    assert (folder / "chunks.jsonl").read_text() == "{}\n"
    assert folder not in art._LOCKS                  # finish released the stage lock

