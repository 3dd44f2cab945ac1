"""Ablation specs, the flat run summary, answer metrics, and a real two-variant sweep with its report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from citerag.answer.answerer import Answer
from citerag.answer.citations import SentenceCheck
from citerag.core.params import ParamsError
from citerag.core.paths import repo_root
from citerag.experiments.ablate import load_ablation, variant_done
from citerag.experiments.evalset import EvalItem, GoldSpan
from citerag.experiments.metrics import answer_metrics, answer_rows
from citerag.experiments.runs import flatten

ROOT = repo_root()


def _spec(tmp_path: Path, text: str, name: str = "sweep") -> Path:
    p = tmp_path / f"{name}.yaml"
    p.write_text(text)
    return p


def test_shipped_specs_are_valid_and_named_by_their_values():
    ab = load_ablation("params/ablations/rrf_k0.yaml")
    assert [v.name for v in ab.variants] == ["rrf_k0=10", "rrf_k0=30", "rrf_k0=60", "rrf_k0=100"]
    assert ab.variants[0].overrides == {"retrieve.rrf_k0": 10}
    assert len(load_ablation("params/ablations/chunk_size.yaml").variants) == 4
    refusal = load_ablation("params/ablations/refusal.yaml")
    assert len(refusal.variants) == 5 and refusal.x == "answer.abstain.threshold"
    assert refusal.variants[0].name == "model=data_abstain_model.json,thin_evidence=model,threshold=0.1"


@pytest.mark.parametrize("body, message", [
    ("grid:\n  retrieve.rrf_k: [1]\n", "grid.retrieve.rrf_k=1: "),
    ("grid:\n  retrieve.rrf_k0: [-5]\n", "grid.retrieve.rrf_k0=-5: "),
    ("grid:\n  chunk.target_chars: [100]\n", "grid.chunk.target_chars=100: overrides: chunk: Value error, overlap_chars"),
    ("grid:\n  chunk.target_chars: [300]\n  chunk.overlap_chars: [400]\n",
     "variant {'chunk.target_chars': 300, 'chunk.overlap_chars': 400}: "),
    ("grid: {}\n", "grid: "),
    ("grid:\n  retrieve.rrf_k0: []\n", "grid.retrieve.rrf_k0: needs at least one value"),
    ("grid:\n  retrieve.rrf_k0: [10]\nx: retrieve.k\n", "x: 'retrieve.k' is not a grid key"),
    ("grid:\n  retrieve.rrf_k0: [10]\nnotebooks: [99_none]\n", "notebooks: no notebook 99_none.ipynb"),
    ("grid:\n  retrieve.rrf_k0: [10]\ncolour: red\n", "colour: Extra inputs are not permitted"),
    ("set:\n  eval.nope: 1\ngrid:\n  retrieve.rrf_k0: [10]\n", "set.eval.nope=1: "),
])
def test_bad_specs_name_the_file_and_key(tmp_path, body, message):
    path = _spec(tmp_path, body)
    with pytest.raises(ParamsError) as err:
        load_ablation(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value)


def test_summary_is_flat():
    flat = flatten("answers", {"must_contain": 0.75, "by": {"x": 1}, "rows": [1, 2], "nan": float("nan"),
                               "hash": "abc"})
    assert flat == {"answers.must_contain": 0.75, "answers.by.x": 1, "answers.nan": None, "answers.hash": "abc"}


def test_answer_metrics_by_hand():
    items = [EvalItem(qid="a", question="What is the size?", type="parameter", answerable=True,
                      gold=[GoldSpan(doc_id="D", start_page=5, end_page=5)], must_contain=["800"]),
             EvalItem(qid="b", question="What is the fee?", type="unanswerable", answerable=False,
                      absent_terms=["fee"])]
    ok = SentenceCheck("It is 800 bytes. [c1]", ["c1"], ["c1"], [])
    ok.supported = True
    bad = SentenceCheck("It is in the table. [c2]", ["c2"], ["c2"], [])
    bad.supported = True
    cites = [{"key": "c1", "chunk_id": "D::p5::c0", "doc_id": "D", "start_page": 5, "end_page": 5},
             {"key": "c2", "chunk_id": "D::p9::c0", "doc_id": "D", "start_page": 9, "end_page": 9}]

    class R:  # the fields of an AgentResult that answer_rows reads
        def __init__(self, answer, seconds):
            self.answer, self.seconds, self.trace = answer, seconds, []
            self.refusal_reason, self.stop_reason, self.route = answer.refusal_reason, "evidence_sufficient", "retrieve"

    results = [R(Answer("q", "It is 800 bytes. [c1]\nIt is in the table. [c2]", False, None, cites, [ok, bad]), 0.1),
               R(Answer("q", "not found in provided docs", True, "unknown_terms"), 0.3)]
    rows = answer_rows(results, items)
    assert rows[0]["citation_precision"] == 0.5 and rows[0]["must_ok"] is True and rows[1]["must_ok"] is None
    m = answer_metrics(rows)
    assert (m["unanswerable_refused"], m["answerable_refused"], m["must_contain"]) == (1.0, 0.0, 1.0)
    assert m["supported_cited_sentences"] == 1.0 and m["citation_precision"] == 0.5
    assert m["latency_p50_ms"] == 200.0 and m["questions"] == 2


@pytest.mark.corpus
def test_sweep_reuses_stages_records_failures_resumes_and_reports(built, tmp_path):
    spec = _spec(tmp_path, "description: two k0 values and a broken question file\n"
                           "base: params/default.yaml\nnotebooks: [06_eval]\n"
                           "set:\n  eval.also: [params/tech-manuals.yaml]\n"
                           "grid:\n  retrieve.rrf_k0: [30, 60]\n"
                           "  eval.questions: [data/nist-pqc/eval/questions.jsonl, data/nist-pqc/eval/missing.jsonl]\n"
                           "x: retrieve.rrf_k0\n")
    out = tmp_path / "ablation"
    cmd = [sys.executable, "-m", "citerag", "ablate", str(spec), "--out", str(out), "--jobs", "2"]
    first = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=1200)
    assert first.returncode == 1, first.stderr  # failures make the exit code non-zero
    assert "2 ran, 0 already done, 2 failed" in first.stdout
    assert "ablate sweep: 4/4 variant" in first.stderr and "\r" not in first.stderr  # plain progress in a log
    ok = ["rrf_k0=30,questions=data_nist-pqc_eval_questions.jsonl", "rrf_k0=60,questions=data_nist-pqc_eval_questions.jsonl"]
    for name in ok:
        assert variant_done(out / name)
        s = json.loads((out / name / "summary.json").read_text())
        # an RRF sweep neither re-chunks nor re-embeds
        assert s["index.ingest_reused"] and s["index.chunk_reused"] and s["index.index_reused"]
        assert "index.embedded" not in s and s["run_id"] == name and len(s["params_hash"]) == 12
        n_questions = sum(1 for ln in (ROOT / "data/nist-pqc/eval/questions.jsonl").open() if ln.strip())
        assert 0.9 <= s["retrieval.recall@8"] <= 1 and s["answers.questions"] == n_questions
        assert all(0 <= s[f"ragas.{m}"] <= 1 for m in ("context_precision", "context_recall", "rouge_l"))
        assert (out / name / "per_question.jsonl").is_file() and (out / name / "06_eval.ipynb").is_file()
    failed = json.loads((out / "rrf_k0=30,questions=data_nist-pqc_eval_missing.jsonl" / "status.json").read_text())
    assert failed["status"] == "failed" and "missing.jsonl" in failed["error"]

    md = (out / "report.md").read_text()
    # 4 metric rows, 2 interval rows (the variants that finished), 1 paired row (against the base)
    assert md.count("| rrf_k0=") == 7 and "## Failed variants" in md and "missing.jsonl" in md
    # intervals with n, the paired test against the base variant (the base params' own values), the diff
    assert "## With 95 % bootstrap intervals" in md and "nist-pqc: mrr@8 (n=60)" in md
    base = "rrf_k0=60,questions=data_nist-pqc_eval_questions.jsonl"
    assert f"| variant vs {base} |" in md and ("(within noise)" in md or "(differs)" in md)
    assert "## Questions changed: rrf_k0=30,questions=data_nist-pqc_eval_questions.jsonl vs base" in md
    assert (out / "report_files" / "refusal_tradeoff.png").is_file()
    html = (out / "report.html").read_text()
    assert "load_runs" not in html and "data:image/png;base64" in html  # code hidden, images inline

    again = subprocess.run([*cmd, "--no-report"], capture_output=True, text=True, cwd=ROOT, timeout=1200)
    assert "0 ran, 2 already done, 2 failed" in again.stdout  # completed variants are skipped

    from citerag.experiments import report

    spec_a, runs_a = report.load_runs(out)
    spec_b, runs_b = report.load_runs(ROOT / "notebooks" / "fixtures" / "rrf_k0")
    cols_a = list(report.metric_table(runs_a, spec_a).columns)
    cols_b = list(report.metric_table(runs_b, spec_b).columns)
    # any two reports share their metric columns, in the same order; per-corpus columns follow
    fixed = [label for _, label in report.REPORT_METRICS]
    tail_a, tail_b = cols_a[len(spec_a["grid"]) + 1:], cols_b[len(spec_b["grid"]) + 1:]
    assert tail_a[: len(fixed)] == tail_b[: len(fixed)] == fixed
    per_corpus = [c for c in tail_a[len(fixed):]]
    assert per_corpus[:2] == ["nist-pqc: recall@8", "nist-pqc: mrr@8"] and "tech-manuals: must_contain" in per_corpus
    assert runs_a.loc[runs_a["status"] == "ok", "tech-manuals: recall@8"].between(0.5, 1).all()


def test_warm_kernels_are_fresh_processes_with_the_imports_done():
    """A kernel handed out has already imported what the notebooks import (and the lazy heavy
    modules), is a process of its own, and is gone once released."""
    import asyncio

    from citerag.experiments.kernels import LAZY_MODULES, WarmKernels, notebook_imports

    nbs = [ROOT / "notebooks" / "06_eval.ipynb"]
    imports = notebook_imports(nbs)
    assert "from citerag.experiments import nb" in imports
    wanted = ["citerag.experiments.nb", "citerag.experiments.eval_run", *LAZY_MODULES]
    probe = f"import os, sys; print(os.getpid(), sorted(m for m in {wanted!r} if m in sys.modules))"

    async def run(km) -> str:
        kc = km.client()
        kc.start_channels()
        out: list[str] = []
        await kc.wait_for_ready(timeout=60)
        await kc.execute_interactive(probe, timeout=60, output_hook=lambda m: out.append(
            m["content"].get("text", "")) if m["msg_type"] == "stream" else None)
        kc.stop_channels()
        return "".join(out)

    with WarmKernels("citerag", nbs[0].parent, imports, total=2) as kernels:
        pids = []
        for _ in range(2):
            km = kernels.take()
            assert km is not None
            pid, loaded = asyncio.run(run(km)).split(" ", 1)
            assert eval(loaded) == sorted(wanted)  # everything imported ahead, in a fresh process
            pids.append(pid)
            kernels.release(km)
            assert not asyncio.run(km.is_alive())
        assert kernels.take() is None  # only the announced number of kernels is started
    assert pids[0] != pids[1]
