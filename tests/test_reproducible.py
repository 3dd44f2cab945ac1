"""Rankings are a function of the index and the question only, never of the process.

Chroma rebuilds its HNSW graph from the collection log in every process that opens the store;
with a multi-threaded insertion that graph, and so the approximate dense neighbours, differed
between processes (seen as ragas context figures moving between two runs of one variant).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

import pytest
from citerag.core.paths import repo_root

pytestmark = pytest.mark.corpus
ROOT = repo_root()

_RANK = """
import json, sys
from citerag.core.params import load_params
from citerag.experiments.evalset import load_questions
from citerag.retrieval.retriever import Retriever
from citerag.retrieval.store import load_store
p = load_params("params/default.yaml", {"retrieve.dense_search": sys.argv[1]})
r = Retriever(load_store(p), p.retrieve)
out = {}
for it in load_questions(p.eval.questions):
    q = r.store.embedder.embed_query(it.question)
    out[it.qid] = {"dense": r.dense_ranking(q, None, p.retrieve.depth),
                   "hits": [h.chunk_id for h in r.search(it.question).hits]}
print(json.dumps(out))
"""


@functools.cache
def _rankings(seed: str, dense_search: str) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    res = subprocess.run([sys.executable, "-c", _RANK, dense_search], capture_output=True, text=True, cwd=ROOT,
                         env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("dense_search", ["exact", "chroma"])
def test_dense_and_final_rankings_are_identical_across_processes(built, dense_search):
    a, b = _rankings("1", dense_search), _rankings("2", dense_search)
    assert len(a) >= 40 and a.keys() == b.keys()
    differ = [q for q in a if a[q] != b[q]]
    assert not differ, f"rankings differ between processes for {differ[:5]}"


def test_exact_and_chroma_dense_search_agree(built):
    """Chroma's HNSW beam is wide enough that its neighbours are the exact ones on this corpus."""
    exact, hnsw = _rankings("1", "exact"), _rankings("1", "chroma")
    differ = [q for q in exact if set(exact[q]["dense"]) != set(hnsw[q]["dense"])]
    assert not differ, f"dense candidates differ for {differ[:5]}"
