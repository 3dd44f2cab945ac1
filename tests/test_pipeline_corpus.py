"""Integration over the real six-PDF corpus (fetched by `make test`)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from citerag.build.chunk import parse_chunk_id
from citerag.build.index import chroma
from citerag.build.index.bm25 import BM25Index
from citerag.build.pipeline import load_chunks, load_clean_pages, load_pages, run_chunk, run_index
from citerag.core.paths import repo_root

pytestmark = pytest.mark.corpus
EXPECTED_PAGES = {"NIST.FIPS.203": 56, "NIST.FIPS.204": 65, "NIST.FIPS.205": 61,
                  "NIST.IR.8545": 34, "NIST.IR.8547.ipd": 29, "NIST.SP.800-227": 64}


def test_page_counts(built):
    pages = load_pages(built["ingest"])
    assert Counter(p.doc_id for p in pages) == EXPECTED_PAGES
    assert sum(EXPECTED_PAGES.values()) == 309 == len(pages)


def test_cleaning_on_real_pages(built):
    pages = {(p.doc_id, p.page): p.text for p in load_clean_pages(built["chunk"])}
    fips203_p48 = pages[("NIST.FIPS.203", 48)]
    assert "ML-KEM-768 | 1184 | 2400 | 1088 | 32" in fips203_p48.replace("|", " | ").replace("  ", " ") \
        or "|ML-KEM-768|1184|2400|1088|32|" in fips203_p48
    assert "MODULE-LATTICE-BASED KEY-ENCAPSULATION MECHANISM" not in fips203_p48  # running header
    ir8547 = pages[("NIST.IR.8547.ipd", 10)]
    assert "public-key cryptosystems" in ir8547 and "138 " not in ir8547  # margin numbers gone
    assert "fourth-round candidates" in pages[("NIST.IR.8545", 12)]
    assert not re.search(r"[\U0001D400-\U0001D7FF]", "".join(pages.values()))  # no math italics


def test_chunks_ids_and_pages(built):
    chunks = load_chunks(built["chunk"])
    assert len({c.chunk_id for c in chunks}) == len(chunks) > 500
    for c in chunks:
        doc, page, _ = parse_chunk_id(c.chunk_id)
        assert doc == c.doc_id and page == c.start_page
        assert 1 <= c.start_page <= c.end_page <= EXPECTED_PAGES[c.doc_id]
    table = next(c for c in chunks if c.doc_id == "NIST.FIPS.203" and "Table 3. Sizes" in c.text)
    assert table.start_page == 48 and "ML-KEM-1024 | 1568 | 3168 | 1568 | 32" in table.text


def test_same_params_give_byte_identical_chunks(built, corpus_params, tmp_path):
    fresh = corpus_params.with_overrides({"paths.artifacts": str(tmp_path / "art")})
    again = run_chunk(fresh, built["ingest"], log=lambda _m: None)
    assert not again.reused and again.digest == built["chunk"].digest
    for name in ("chunks.jsonl", "pages_clean.jsonl"):
        assert (again.dir / name).read_bytes() == (built["chunk"].dir / name).read_bytes()


def test_rebuilt_index_embeds_nothing_and_reopens(built, corpus_params, tmp_path):
    fresh = corpus_params.with_overrides({"paths.artifacts": str(tmp_path / "art")})
    idx = run_index(fresh, built["chunk"], log=lambda _m: None, progress=False)
    assert not idx.reused
    assert idx.counts["embedded"] == 0 and idx.counts["embedding_cache_hits"] == idx.counts["chunks"]
    coll = chroma.open_collection(idx.dir / "chroma", fresh.index.collection)
    assert coll.count() == idx.counts["chunks"]
    hits = coll.query(query_texts=["sizes of ML-KEM encapsulation keys and ciphertexts"], n_results=5)
    assert any(h.startswith("NIST.FIPS.203::p48") for h in hits["ids"][0])


def test_bm25_on_corpus_finds_exact_identifiers(built):
    import json

    rows = [json.loads(x) for x in (built["index"].dir / "bm25_tokens.jsonl").read_text().splitlines()]
    idx = BM25Index([r["chunk_id"] for r in rows], [r["tokens"] for r in rows], 1.2, 0.75)
    top = [cid for cid, _ in idx.top("Algorithm 19 ML-KEM.KeyGen", 5)]
    assert any(cid.startswith("NIST.FIPS.203::") for cid in top)


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "citerag", *args], capture_output=True, text=True,
                          cwd=cwd or repo_root(), timeout=600)


def test_invalid_params_error_and_nothing_deleted(built, tmp_path):
    before = sorted(p.name for p in built["index"].dir.parent.parent.rglob("manifest.json"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("chunk:\n  target_chars: 90000\n")
    proc = _cli("index", "--params", str(bad))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]  # one line
    assert "chunk.target_chars" in proc.stderr and str(bad) in proc.stderr
    after = sorted(p.name for p in built["index"].dir.parent.parent.rglob("manifest.json"))
    assert before == after and (built["chunk"].dir / "chunks.jsonl").is_file()


def test_cli_index_reuses_everything(built):
    proc = _cli("index", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert re.findall(r"^(\w+)\s+reused", proc.stdout, re.M) == ["ingest", "chunk", "index", "knowledge"]
