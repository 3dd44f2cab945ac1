"""Answer or refuse: a calibrated decision over measured features, not a chain of thresholds.

For every drafted answer the answerer computes a few corpus-independent
features: how much of the question the best passage and the whole evidence
hold (terms weighted by corpus idf, so the rare terms decide), and whether
each part of the question found a passage of the wanted type. A logistic regression, fitted by `citerag
calibrate` on the labelled dev sets of several corpora with cross-validation,
turns them into the probability that the documents answer the question. The
operating point (answer when p ≥ threshold) is read off a coverage–risk curve
and stored with the model; `answer.abstain.threshold` overrides it for a sweep.

The features (the best and the weakest part's passage score, whether each part
found a passage of the wanted type, the share of parts unanswered, and how much
of the question — all of it, and its rarer half by idf — the evidence and the
drafted answer hold) and the probability of every decision go into the answer
(and so into the trace), so a refusal can be explained and a curve replayed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from pydantic import BaseModel, Field

from citerag.text.terms import Scorer

# Retrieval scores and hit counts were tried and left out: their scale depends on the corpus, and
# fitted on one corpus they lowered the leave-one-corpus-out AUC on the other (0.93 → 0.73).
FEATURES = ("best", "min_part", "type_ok", "missing_parts", "cover", "rare_cover", "answer_rare")


class AbstainModel(BaseModel):
    """A standardised logistic regression over `FEATURES` and its chosen operating point."""

    features: list[str]
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    threshold: float = Field(ge=0, le=1)
    trained_on: dict = Field(default_factory=dict)   # sets, sizes and cross-validated figures

    def probability(self, feats: dict[str, float]) -> float:
        z = self.intercept + sum(c * (feats[f] - m) / s for f, c, m, s in
                                 zip(self.features, self.coef, self.mean, self.scale))
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def load_model(path: str | Path) -> AbstainModel:
    """The model file written by `citerag calibrate`; a clear error names the file."""
    p = Path(path)
    try:
        return AbstainModel.model_validate(json.loads(p.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise FileNotFoundError(f"{p}: abstention model not found (run `citerag calibrate`, "
                                f"or set answer.abstain.model: null)") from None
    except (json.JSONDecodeError, ValueError) as exc:
        raise ValueError(f"{p}: not a valid abstention model: {exc}") from None


def features(score: Scorer, evidence_texts: list[str], part_scores: list[float], part_types: list[float],
             missing_parts: int, best: float, answer_text: str = "") -> dict[str, float]:
    """The decision's inputs, each a plain number a reader can check in the trace. `rare_cover`
    and `answer_rare` are the share of the question's rarer half of terms (by corpus idf) found
    in the evidence and in the drafted answer: a near miss shares the topic, not the rare words."""
    joined = " ".join(evidence_texts)
    weights = score.weights
    rare = sorted(weights, key=lambda t: -weights[t])[: max(1, len(weights) // 2)]
    present = score.tokens(joined)
    in_answer = score.tokens(answer_text)
    rare_w = sum(weights[t] for t in rare) or 1.0
    n_parts = max(1, len(part_scores))
    return {
        "best": round(min(best, 1.5), 4),
        "min_part": round(min(part_scores, default=0.0), 4),
        "type_ok": round(min(part_types, default=0.0), 4),
        "cover": round(score(joined), 4),
        "rare_cover": round(sum(weights[t] for t in rare if t in present) / rare_w, 4),
        "answer_rare": round(sum(weights[t] for t in rare if t in in_answer) / rare_w, 4),
        "missing_parts": round(missing_parts / n_parts, 4),
    }
