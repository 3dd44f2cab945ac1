"""`citerag diff` on two real evaluation runs with a known difference: the refusal checks on the
asked thing (the focus check and the absent-word bar) on, then off. The questions it changes are exactly those whose refusal flipped, and the paired
test marks the unanswerable refusal rate as changed, the retrieval figures as within noise."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

pytestmark = pytest.mark.corpus


def test_diff_of_two_real_runs_lists_the_questions_that_changed(built, corpus_params, tmp_path):
    from citerag.experiments.eval_run import evaluate_params

    items = [json.loads(line) for line in (ROOT / corpus_params.eval.questions).read_text().splitlines() if line.strip()]
    subset = [it for it in items if not it.get("answerable", True)][:10] + \
        [it for it in items if it.get("answerable", True)][:6]
    qfile = tmp_path / "q.jsonl"
    qfile.write_text("".join(json.dumps(it) + "\n" for it in subset))
    base = corpus_params.with_overrides({"eval.questions": str(qfile), "eval.ragas": False, "eval.also": []})
    runs = {}
    for name, focus in (("a", True), ("b", False)):
        rep = evaluate_params(base.with_overrides({"answer.refuse_missing_focus": focus,
                                                   "answer.absent_word_min_score": base.answer.absent_word_min_score if focus else 0.0}),
                              conversations=False)
        (tmp_path / name).mkdir()
        rep.write(tmp_path / name)
        runs[name] = {r["qid"]: r for r in rep.rows}
    flipped = {q for q in runs["a"] if runs["a"][q]["refused"] != runs["b"][q]["refused"]}
    assert flipped, "the focus check refuses no question of the subset: pick another known difference"

    out = tmp_path / "diff.jsonl"
    proc = subprocess.run([sys.executable, "-m", "citerag", "diff", str(tmp_path / "a"), str(tmp_path / "b"),
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "CITERAG_ROOT": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    refused_changed = {r["qid"] for r in rows if "refused yes → no" in r["changes"]}
    assert refused_changed == flipped
    assert all(r["refused"] == [True, False] for r in rows if r["qid"] in flipped)
    assert f"{len(rows)} of {len(subset)} question(s) changed" in proc.stdout
    lines = {line.split()[0]: line for line in proc.stdout.splitlines()[1:] if "B−A" in line}
    assert "(differs)" in lines["answers.unanswerable_refused"] or len(flipped) < 4   # McNemar needs ≥ 4 flips
    assert "(within noise)" in lines["retrieval.mrr@8"]
