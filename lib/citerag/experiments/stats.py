"""Uncertainty for every compared number: per-question values, bootstrap intervals, paired tests.

A rate over 60 questions moves by 0.017 when one question flips, so a figure alone invites
reading noise as a trend. Every rate and rank metric is therefore carried with its n and a 95 %
bootstrap interval over questions (scipy's `bootstrap`, fixed seed), and a variant's difference
from the base variant is tested on the *same* questions: McNemar's exact test for yes/no outcomes
(must_contain, refused), a sign-flip permutation test of the per-question differences for graded
ones (reciprocal rank, recall, citation precision; exact when few questions changed), each with a
paired-bootstrap interval of the mean difference. A percentile bootstrap alone would call three
improved questions out of sixty a difference; the permutation test does not.

The per-question values come from `per_question.jsonl` rows (06 writes them), so a summary's mean
and its interval are computed from the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

SEED = 20240813
RESAMPLES = 2000
K = 8


def reciprocal_rank(row: dict | None) -> float:
    """1 / the first relevant hit's rank within the top K, else 0."""
    rank = (row or {}).get("retrieval_first_relevant_rank")
    return 1.0 / rank if rank and rank <= K else 0.0


def _rr(row: dict) -> float | None:
    if "retrieval_spans" not in row:
        return None  # unanswerable (no gold): not a retrieval question
    return reciprocal_rank(row)


def _recall(row: dict) -> float | None:
    spans = row.get("retrieval_spans")
    return (row.get("retrieval_spans_found", 0) / spans) if spans else None


def _flag(key: str, answerable: bool) -> Callable[[dict], float | None]:
    def get(row: dict) -> float | None:
        if bool(row.get("answerable")) != answerable or row.get(key) is None:
            return None
        return float(bool(row[key]))
    return get


# summary key → (per-question value, binary?)
METRICS: dict[str, tuple[Callable[[dict], float | None], bool]] = {
    f"retrieval.recall@{K}": (_recall, False),
    f"retrieval.mrr@{K}": (_rr, False),
    "answers.must_contain": (_flag("must_ok", True), True),
    "answers.answerable_refused": (_flag("refused", True), True),
    "answers.unanswerable_refused": (_flag("refused", False), True),
    "answers.citation_precision": (lambda r: r.get("citation_precision"), False),
}


def by_corpus(rows: Sequence[dict]) -> dict[str, list[dict]]:
    """Per-question rows split by their `corpus` column, in first-seen order ("" when absent)."""
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(str(r.get("corpus", "")), []).append(r)
    return out


def values(rows: Sequence[dict], metric: str) -> dict[tuple[str, str], float]:
    """(corpus, qid) → the metric's per-question value, for the questions it applies to."""
    get = METRICS[metric][0]
    out = {}
    for r in rows:
        v = get(r)
        if v is not None:
            out[(str(r.get("corpus", "")), str(r["qid"]))] = float(v)
    return out


def bootstrap_ci(xs: Sequence[float], seed: int = SEED) -> tuple[float, float]:
    """95 % percentile bootstrap interval of the mean (degenerate samples give a point)."""
    a = np.asarray(xs, dtype=float)
    if len(a) == 0:
        return (math.nan, math.nan)
    if len(a) == 1 or np.all(a == a[0]):
        return (float(a[0]), float(a[0])) if len(a) else (math.nan, math.nan)
    from scipy.stats import bootstrap

    res = bootstrap((a,), np.mean, confidence_level=0.95, n_resamples=RESAMPLES, method="percentile",
                    random_state=np.random.default_rng(seed))
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))


@dataclass(frozen=True)
class Interval:
    mean: float
    n: int
    lo: float
    hi: float

    def to_dict(self) -> dict:
        return {"n": self.n, "lo": round(self.lo, 4), "hi": round(self.hi, 4)}

    def label(self, digits: int = 3) -> str:
        if self.n == 0:
            return "–"
        return f"{self.mean:.{digits}f} [{self.lo:.2f}, {self.hi:.2f}]"


def interval(xs: Sequence[float]) -> Interval:
    lo, hi = bootstrap_ci(xs)
    return Interval(float(np.mean(xs)) if len(xs) else math.nan, len(xs), lo, hi)


def intervals(rows: Sequence[dict]) -> dict[str, Interval]:
    """Every metric of `METRICS` with n and its 95 % bootstrap interval."""
    return {m: interval(list(values(rows, m).values())) for m in METRICS}


def summary_section(rows: Sequence[dict]) -> dict[str, dict]:
    """The `ci` section of summary.json: `ci.<metric>.n|lo|hi`."""
    return {m: iv.to_dict() for m, iv in intervals(rows).items()}


@dataclass(frozen=True)
class Paired:
    metric: str
    n: int                 # questions both runs measured
    diff: float            # variant − base, mean over those questions
    lo: float
    hi: float
    p: float               # McNemar exact (yes/no) or sign-flip permutation (graded) p-value
    test: str
    changed: int           # questions whose value differs

    @property
    def noise(self) -> bool:
        """Within noise: the paired test finds no difference at the 5 % level."""
        return self.n == 0 or self.changed == 0 or self.p >= 0.05

    def label(self) -> str:
        if self.n == 0:
            return "–"
        verdict = "within noise" if self.noise else "differs"
        return f"{self.diff:+.3f} [{self.lo:+.2f}, {self.hi:+.2f}], p={self.p:.2f} ({verdict})"

    def to_dict(self) -> dict:
        return {"metric": self.metric, "n": self.n, "diff": round(self.diff, 4), "lo": round(self.lo, 4),
                "hi": round(self.hi, 4), "p": round(self.p, 4), "test": self.test,
                "changed": self.changed, "within_noise": self.noise}


def paired(base_rows: Sequence[dict], variant_rows: Sequence[dict], metric: str) -> Paired:
    """The variant's difference from the base on the questions both measured: McNemar's exact test
    for a yes/no metric, a sign-flip permutation test for a graded one; both with the paired
    bootstrap interval of the mean difference."""
    a, b = values(base_rows, metric), values(variant_rows, metric)
    keys = sorted(set(a) & set(b))
    d = np.asarray([b[k] - a[k] for k in keys], dtype=float)
    changed = int(np.count_nonzero(d))
    if not keys:
        return Paired(metric, 0, math.nan, math.nan, math.nan, 1.0, "none", 0)
    lo, hi = bootstrap_ci(d)
    if METRICS[metric][1]:
        from scipy.stats import binomtest

        gained, lost = int(np.sum(d > 0)), int(np.sum(d < 0))
        p = binomtest(gained, gained + lost, 0.5).pvalue if gained + lost else 1.0
        return Paired(metric, len(keys), float(d.mean()), lo, hi, float(p), "mcnemar-exact", changed)
    return Paired(metric, len(keys), float(d.mean()), lo, hi, sign_flip_p(d), "sign-flip permutation", changed)


def sign_flip_p(d: np.ndarray, seed: int = SEED) -> float:
    """Two-sided p of a mean paired difference under random signs; zero differences carry no sign
    and are left out, so few changed questions give an exact test."""
    nz = d[d != 0]
    if len(nz) < 2:
        return 1.0  # one changed question: both signs are as extreme as the observed one
    from scipy.stats import permutation_test

    res = permutation_test((nz,), np.mean, permutation_type="samples", n_resamples=9999,
                           alternative="two-sided", random_state=np.random.default_rng(seed))
    return float(min(1.0, res.pvalue))
