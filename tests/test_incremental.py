"""Incremental corpora (issue 14): counts, not timings.

Adding, changing or removing one PDF of a built corpus extracts and embeds that
document only (per-document page cache keyed by sha256, content-addressed
embedding cache).
"""

from __future__ import annotations

from pathlib import Path

from citerag.build.corpus import init_corpus
from citerag.build.pipeline import build_all, load_chunks
from citerag.core.params import load_params
from conftest import write_pdf


def _manual(name: str, topic: str, n: int = 2) -> list[str]:
    return [f"{name} Manual, part {i + 1}\n\nThe {topic} command of {name} writes {topic} reports for "
            f"section {i + 1}. Use the --{topic}-level option to set how much {name} prints on page {i + 1}."
            for i in range(n)]


def _params(tmp: Path, init):
    return load_params(init.params).with_overrides({
        "paths.artifacts": str(tmp / "artifacts"), "paths.cache": str(tmp / "cache")})


def _build(tmp: Path, pdfs: Path):
    init = init_corpus(pdfs, "inc", params_out=tmp / "inc.yaml", data_root=tmp / "data")
    stages = build_all(_params(tmp, init), log=lambda _m: None, progress=False)
    return stages, load_chunks(stages["chunk"])


def test_adding_changing_removing_one_document_rebuilds_that_document_only(tmp_path: Path):
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    write_pdf(pdfs / "alpha.pdf", _manual("Alpha", "audit"))
    write_pdf(pdfs / "beta.pdf", _manual("Beta", "backup"))
    first, chunks = _build(tmp_path, pdfs)
    assert first["ingest"].counts["extracted"] == 2 and first["ingest"].counts["page_cache_hits"] == 0
    assert first["index"].counts["embedded"] == len(chunks) > 0

    write_pdf(pdfs / "gamma.pdf", _manual("Gamma", "gauge", 3))  # add one
    added, chunks = _build(tmp_path, pdfs)
    assert (added["ingest"].counts["extracted"], added["ingest"].counts["page_cache_hits"]) == (1, 2)
    new = [c for c in chunks if c.doc_id == "gamma"]
    assert new and added["index"].counts["embedded"] == len(new)
    assert added["index"].counts["chunks"] == len(chunks) > len(new)

    write_pdf(pdfs / "beta.pdf", _manual("Beta", "bundle"))  # change one
    changed, chunks = _build(tmp_path, pdfs)
    assert (changed["ingest"].counts["extracted"], changed["ingest"].counts["page_cache_hits"]) == (1, 2)
    assert 0 < changed["index"].counts["embedded"] <= len([c for c in chunks if c.doc_id == "beta"])

    (pdfs / "alpha.pdf").unlink()  # remove one
    removed, chunks = _build(tmp_path, pdfs)
    assert removed["ingest"].counts["extracted"] == 0 and removed["index"].counts["embedded"] == 0
    assert {c.doc_id for c in chunks} == {"beta", "gamma"}


def test_sigint_during_embedding_keeps_what_was_embedded_and_a_rerun_embeds_only_the_rest(built, tmp_path):
    """Ctrl-C mid-embedding: exit 130 with one line saying what was kept; the next build embeds
    exactly the texts that were not cached (the NIST pages come from a copy of the page cache,
    a short max_seq_length keeps the embedding quick).

    The interrupt follows the build's own progress line for the first cached block, read from
    its stderr as it is written, not a poll of the cache file: a poll let a quick machine finish
    the other blocks first (exit 0 in a clean-clone CI run)."""
    import os
    import re
    import shutil
    import signal
    import subprocess
    import sys

    from citerag.core.paths import repo_root, resolve

    params = load_params(repo_root() / "params" / "default.yaml")
    shutil.copytree(resolve(params.paths.cache) / "pages", tmp_path / "cache" / "pages")
    cmd = [sys.executable, "-m", "citerag", "index", "--set", f"paths.artifacts={tmp_path / 'art'}",
           "--set", f"paths.cache={tmp_path / 'cache'}", "--set", "embed.max_seq_length=64"]
    # (the build starts with Ctrl-C's default action, as from a terminal: a test process may run with
    # SIGINT ignored, which a child inherits, and a Python started so never raises KeyboardInterrupt)
    proc = subprocess.Popen(cmd, cwd=repo_root(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            bufsize=1, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = []
    while not (seen and seen[-1].startswith("embed: 1/")):  # printed once the first block is cached
        line = proc.stderr.readline()
        assert line, "the build ended before its first embedding block: " + "".join(seen)[-2000:]
        seen.append(line)
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    err = "".join(seen) + err
    assert proc.returncode == 130, err[-2000:]
    line = err.strip().splitlines()[-1]
    m = re.fullmatch(r"citerag: interrupted; (\d+) of (\d+) new embeddings kept in the cache; "
                     r"a re-run embeds only the other (\d+)", line)
    assert m, line
    kept, total, rest = map(int, m.groups())
    assert 128 <= kept < total and kept + rest == total

    again = subprocess.run([*cmd, "--quiet"], cwd=repo_root(), capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    index = next(ln for ln in again.stdout.splitlines() if ln.startswith("index "))
    assert f'"embedded": {rest}, "embedding_cache_hits": {kept}' in index


def test_a_failed_build_releases_its_stage_lock(tmp_path: Path):
    """A build that fails inside a live process (a notebook kernel, say) must not leave the
    stage locked: another process building the same stage gets its own answer at once."""
    import subprocess
    import sys

    import pytest
    from citerag.build.corpus import CorpusError
    from citerag.core.paths import repo_root

    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    write_pdf(pdfs / "blank.pdf", [""])
    init = init_corpus(pdfs, "blank", params_out=tmp_path / "blank.yaml", data_root=tmp_path / "data")
    params = _params(tmp_path, init)
    with pytest.raises(CorpusError, match="no usable document"):
        build_all(params, log=lambda _m: None, progress=False)
    proc = subprocess.run([sys.executable, "-m", "citerag", "index", "--quiet", "--params", str(init.params),
                           "--set", f"paths.artifacts={tmp_path / 'artifacts'}",
                           "--set", f"paths.cache={tmp_path / 'cache'}"],
                          cwd=repo_root(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "no usable document" in proc.stderr, proc.stderr[-2000:]


def test_a_process_keeps_the_code_hash_of_the_code_it_loaded(tmp_path: Path):
    """Source edited while a process runs (a notebook kernel, a test worker) does not change the
    hash that process files its builds under: it still runs the code it loaded. A new process
    reads the edited code and its new hash."""
    import shutil
    import subprocess
    import sys

    from citerag.core.paths import repo_root

    shutil.copytree(repo_root() / "lib" / "citerag", tmp_path / "citerag")
    knowledge = tmp_path / "citerag" / "build" / "knowledge.py"
    probe = ("import sys, pathlib; from citerag.build.pipeline import code_fingerprint as f; a = f('knowledge'); "
             f"p = pathlib.Path({str(knowledge)!r}); p.write_text(p.read_text() + '\\n# edited\\n'); "
             "print(a, f('knowledge'))")
    env = {**__import__("os").environ, "PYTHONPATH": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120, check=True)
    before, during = run.stdout.split()
    assert before == during  # the edit after loading changes nothing in this process
    fresh = subprocess.run([sys.executable, "-c", "from citerag.build.pipeline import code_fingerprint as f; "
                            "print(f('knowledge'))"], capture_output=True, text=True, env=env, timeout=120, check=True)
    assert fresh.stdout.strip() != before  # a new process hashes the edited code
