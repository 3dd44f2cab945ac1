"""Intervals, paired tests, run diffs and log-friendly progress, on rows with known answers."""

from __future__ import annotations

import io

from citerag.core.progress import PLAIN_LINES, progress
from citerag.experiments import stats
from citerag.experiments.diff import diff_rows


def _rows(must: list[bool | None], corpus: str = "c") -> list[dict]:
    return [{"corpus": corpus, "qid": f"q{i}", "answerable": m is not None, "must_ok": m, "refused": m is None,
             "retrieval_first_relevant_rank": 1 if m else 5, "retrieval_spans_found": 1, "retrieval_spans": 1}
            for i, m in enumerate(must)]


def test_bootstrap_interval_brackets_the_mean_and_narrows_with_n():
    small = stats.interval([1, 0] * 10)
    large = stats.interval([1, 0] * 200)
    assert small.n == 20 and small.lo < 0.5 < small.hi
    assert (large.hi - large.lo) < (small.hi - small.lo) / 3
    assert stats.interval([1.0] * 7).to_dict() == {"n": 7, "lo": 1.0, "hi": 1.0}   # degenerate: a point
    assert stats.interval([0.3, 0.9, 0.6]).label().startswith("0.600 [")


def test_summary_section_counts_only_the_questions_a_metric_applies_to():
    rows = _rows([True, False, True, None, None])
    ci = stats.summary_section(rows)
    assert ci["answers.must_contain"]["n"] == 3
    assert ci["answers.unanswerable_refused"]["n"] == 2
    assert ci["retrieval.mrr@8"]["n"] == 5


def test_paired_tests_separate_one_flip_from_a_real_change():
    base = _rows([True] * 30 + [False] * 30)
    one_flip = _rows([False] + [True] * 29 + [False] * 30)
    many = _rows([True] * 30 + [True] * 20 + [False] * 10)
    t = stats.paired(base, one_flip, "answers.must_contain")
    assert t.test == "mcnemar-exact" and t.changed == 1 and t.noise and t.p == 1.0
    t = stats.paired(base, many, "answers.must_contain")
    assert t.changed == 20 and not t.noise and t.p < 0.001 and t.diff > 0.3
    assert "differs" in t.label()
    rr = stats.paired(base, many, "retrieval.mrr@8")           # graded: sign-flip permutation test
    assert rr.test == "sign-flip permutation" and rr.lo > 0 and not rr.noise and rr.p < 0.001
    few = _rows([True] * 30 + [False] * 30)
    for r in few[30:33]:                                       # three questions rank higher, none lower
        r["retrieval_first_relevant_rank"] = 1
    t = stats.paired(base, few, "retrieval.mrr@8")
    assert t.changed == 3 and t.lo >= 0 and t.p == 0.25 and t.noise   # exact: 2 of 8 sign patterns
    few[30]["retrieval_first_relevant_rank"] = few[31]["retrieval_first_relevant_rank"] = 5
    assert stats.paired(base, few, "retrieval.mrr@8").p == 1.0      # a single changed question


def test_diff_lists_changed_questions_most_impact_first():
    a = _rows([True, True, False, None])
    b = _rows([True, False, False, None])
    b[2]["retrieval_first_relevant_rank"] = 2
    b[3]["refused"], b[3]["refusal_reason"] = False, None
    a[3]["refusal_reason"] = "focus_not_stated"
    out = diff_rows(a, b)
    assert [r["qid"] for r in out] == ["q1", "q3", "q2"]
    assert out[0]["changes"][0] == "must_contain yes → no"
    assert "refused yes → no" in out[1]["changes"] and "reason focus_not_stated → None" in out[1]["changes"]
    assert out[2]["changes"] == ["hit rank 5 → 2"]


def test_progress_in_a_log_is_a_few_plain_lines():
    buf = io.StringIO()
    for _ in progress(range(1000), desc="embed", unit="block", stream=buf):
        pass
    lines = buf.getvalue().splitlines()
    assert 1 <= len(lines) <= PLAIN_LINES and "\r" not in buf.getvalue()
    assert lines[-1].startswith("embed: 1000/1000 block")
    quiet = io.StringIO()
    bar = progress(total=5, desc="ablate", disable=True, stream=quiet)
    for _ in range(5):
        bar.update(1)
    assert quiet.getvalue() == ""
