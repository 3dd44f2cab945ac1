"""Fit the answer/refuse model on the dev sets of several corpora (`citerag calibrate`).

Every dev question of the params' corpus and of its `eval.also` corpora is
answered with no model (every verified draft is kept), and the decision
features of each draft are recorded. A scikit-learn logistic regression
learns p(the documents answer the question) from them: label 1 for an
answerable question, 0 for an unanswerable one. Questions refused before a
draft exists (unknown terms, no evidence) stay refused and are not training
rows, but they count in the curve.

Probabilities for the curve are cross-validated (stratified k-fold), so the
operating point is chosen on predictions for questions the fit did not see.
Leave-one-corpus-out figures are recorded too: they say how the model does on
a corpus it was not fitted on, which is the case that matters. The operating
point is the threshold that refuses the most unanswerables while refusing at
most `max_answerable_refused` of the answerables (cross-validated); the curve
(coverage = answer rate, risk = share of answers that are wrong) is written
next to the model for 06_eval to plot.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from citerag.answer.abstain import FEATURES, AbstainModel
from citerag.core.artifacts import write_jsonl, write_text_atomic
from citerag.core.params import Params
from citerag.core.paths import resolve

CURVE = "curve.csv"
MODEL = "model.json"
ROWS = "training.jsonl"


@dataclass
class Calibration:
    model: AbstainModel
    rows: list[dict]
    curve: list[dict]


def collect(params: Params, log=print, overrides: dict | None = None) -> list[dict]:
    """One row per dev question of every corpus: label, outcome and the decision features.
    `overrides` (the command's --set) apply to the companion corpora too."""
    from citerag.agent.workflow import Agent
    from citerag.build.pipeline import build_all
    from citerag.experiments.eval_run import all_corpora, corpus_name
    from citerag.experiments.evalset import load_questions
    from citerag.experiments.metrics import contains_all
    from citerag.retrieval.store import load_store

    rows: list[dict] = []
    for p in all_corpora(params, overrides):
        # no model, and thin evidence drafted too: every question that reaches evidence is a row
        p = p.with_overrides({"answer.abstain.model": None, "agent.thin_evidence": "model"})
        build_all(p, log=lambda *_: None)
        agent = Agent(load_store(p), p)
        name = corpus_name(p)
        items = load_questions(p.eval.questions)
        log(f"calibrate: {name}: {len(items)} dev questions")
        for it in items:
            a = agent.run(it.question).answer
            feats = a.decision.get("features")
            rows.append({"corpus": name, "qid": it.qid, "answerable": it.answerable,
                         "drafted": feats is not None and a.refusal_reason in (None, "low_confidence"),
                         "hard_refusal": a.refusal_reason if a.refused else None,
                         "correct": bool(it.answerable and not a.refused and contains_all(a.answer, it.must_contain)),
                         "features": feats})
    return rows


def _fit(X: np.ndarray, y: np.ndarray):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=0.5, max_iter=2000)).fit(X, y)


def cross_validated(X: np.ndarray, y: np.ndarray, groups: list[str], folds: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Stratified k-fold probabilities, and leave-one-corpus-out probabilities."""
    from sklearn.model_selection import StratifiedKFold

    kfold = np.zeros(len(y))
    n_splits = max(2, min(folds, int(min(np.bincount(y.astype(int))))))
    for tr, te in StratifiedKFold(n_splits, shuffle=True, random_state=0).split(X, y):
        kfold[te] = _fit(X[tr], y[tr]).predict_proba(X[te])[:, 1]
    loco = np.full(len(y), np.nan)
    g = np.array(groups)
    for name in sorted(set(groups)):
        tr, te = g != name, g == name
        if len(set(y[tr])) == 2:
            loco[te] = _fit(X[tr], y[tr]).predict_proba(X[te])[:, 1]
    return kfold, loco


def curve(rows: list[dict], probs: dict[int, float], steps: int = 100) -> list[dict]:
    """Coverage–risk over thresholds. Rows without a probability (refused before drafting)
    are refused at every threshold; a wrong answer is an answered unanswerable or an answer
    missing its must_contain facts."""
    ans = [r for r in rows if r["answerable"]]
    una = [r for r in rows if not r["answerable"]]
    out = []
    for i in range(steps + 1):
        t = i / steps
        answered = [r for j, r in enumerate(rows) if j in probs and probs[j] >= t]
        wrong = sum(1 for r in answered if not r["answerable"] or not r["correct"])
        out.append({"threshold": t, "coverage": len(answered) / max(1, len(rows)),
                    "risk": wrong / max(1, len(answered)),
                    "answerable_refused": 1 - sum(r["answerable"] for r in answered) / max(1, len(ans)),
                    "unanswerable_refused": 1 - sum(not r["answerable"] for r in answered) / max(1, len(una)),
                    "must_contain": sum(r["correct"] for r in answered) / max(1, len(ans))})
    return out


def operating_point(points: list[dict], max_answerable_refused: float) -> dict:
    """The threshold refusing the most unanswerables within the answerable-refusal budget
    (ties: the lowest threshold, which answers most)."""
    ok = [p for p in points if p["answerable_refused"] <= max_answerable_refused + 1e-9]
    if not ok:
        return points[0]
    return max(ok, key=lambda p: (p["unanswerable_refused"], -p["threshold"]))


def calibrate(params: Params, out_dir: str | Path, max_answerable_refused: float = 0.08,
              log=print, overrides: dict | None = None) -> Calibration:
    rows = collect(params, log, overrides)
    idx = [i for i, r in enumerate(rows) if r["drafted"]]
    X = np.array([[rows[i]["features"][f] for f in FEATURES] for i in idx], dtype=float)
    y = np.array([int(rows[i]["answerable"]) for i in idx])
    if len(set(y)) < 2:
        raise ValueError("calibrate: the dev sets need both answerable and unanswerable questions "
                         "that reach a draft")
    kfold, loco = cross_validated(X, y, [rows[i]["corpus"] for i in idx])
    points = curve(rows, {i: float(p) for i, p in zip(idx, kfold)})
    op = operating_point(points, max_answerable_refused)
    loco_points = curve(rows, {i: float(p) for i, p in zip(idx, loco) if not np.isnan(p)})
    loco_op = min(loco_points, key=lambda p: abs(p["threshold"] - op["threshold"]))
    fit = _fit(X, y)
    scaler, lr = fit.named_steps["standardscaler"], fit.named_steps["logisticregression"]
    model = AbstainModel(
        features=list(FEATURES), mean=[float(v) for v in scaler.mean_], scale=[float(v) for v in scaler.scale_],
        coef=[round(float(c), 6) for c in lr.coef_[0]], intercept=round(float(lr.intercept_[0]), 6),
        threshold=op["threshold"],
        trained_on={"corpora": sorted({r["corpus"] for r in rows}), "questions": len(rows), "rows": len(idx),
                    "answerable": int(y.sum()), "unanswerable": int(len(y) - y.sum()),
                    "max_answerable_refused": max_answerable_refused,
                    "cv_operating_point": {k: round(v, 4) for k, v in op.items()},
                    "leave_one_corpus_out_at_threshold": {k: round(v, 4) for k, v in loco_op.items()}})
    out = resolve(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / MODEL, json.dumps(model.model_dump(), indent=2) + "\n")
    with (out / CURVE).open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(points[0]))
        w.writeheader()
        w.writerows({k: round(v, 4) for k, v in p.items()} for p in points)
    write_jsonl(out / ROWS, [{**r, "p_cv": round(float(kfold[idx.index(i)]), 4) if i in idx else None}
                             for i, r in enumerate(rows)], sort_keys=False)
    log(f"calibrate: threshold {op['threshold']:.2f}: coverage {op['coverage']:.3f}, risk {op['risk']:.3f}, "
        f"answerables refused {op['answerable_refused']:.3f}, unanswerables refused "
        f"{op['unanswerable_refused']:.3f} (cross-validated); model → {out / MODEL}")
    return Calibration(model, rows, points)


def load_curve(path: str | Path) -> list[dict]:
    with Path(resolve(path)).open() as fh:
        return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(fh)]
