"""Which questions changed between two runs (`citerag diff RUN_A RUN_B`, and 07's section against
the base variant).

Both runs' `per_question.jsonl` rows are joined on (corpus, qid). A row is listed when any of
these differ: the first relevant hit rank, must_contain, refused or not, the refusal reason, the
cited pages. Rows are sorted by impact: a must_contain flip weighs most, then a refusal flip,
then the change in reciprocal rank, then a changed reason or cited pages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from citerag.build.chunk import parse_chunk_id
from citerag.experiments.eval_run import PER_QUESTION
from citerag.experiments.stats import reciprocal_rank


class DiffError(ValueError):
    """A run folder without per-question rows."""


def load_rows(run: str | Path) -> list[dict]:
    path = Path(run)
    path = path if path.is_file() else path / PER_QUESTION
    if not path.is_file():
        raise DiffError(f"{path}: no per-question rows (a run folder of `citerag run`, an ablation variant, "
                        f"or `citerag eval --run-dir`)")
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def cited_pages(row: dict) -> list[str]:
    """`doc p12` for each cited chunk, in order, without repeats."""
    out: list[str] = []
    for cid in row.get("cited_chunks") or []:
        doc, page, _ = parse_chunk_id(cid)
        label = f"{doc} p{page}"
        if label not in out:
            out.append(label)
    return out


def diff_rows(rows_a: Sequence[dict], rows_b: Sequence[dict]) -> list[dict]:
    """One record per question that changed, most impact first."""
    a = {(str(r.get("corpus", "")), str(r["qid"])): r for r in rows_a}
    b = {(str(r.get("corpus", "")), str(r["qid"])): r for r in rows_b}
    out = []
    for key in sorted(set(a) | set(b)):
        ra, rb = a.get(key), b.get(key)
        if ra is None or rb is None:
            out.append({"corpus": key[0], "qid": key[1], "question": (ra or rb).get("question"),
                        "changes": ["only in " + ("A" if rb is None else "B")], "impact": 0.5})
            continue
        changes, impact = [], 0.0
        if ra.get("must_ok") != rb.get("must_ok"):
            changes.append(f"must_contain {_yes(ra.get('must_ok'))} → {_yes(rb.get('must_ok'))}")
            impact += 3
        if ra.get("refused") != rb.get("refused"):
            changes.append(f"refused {_yes(ra.get('refused'))} → {_yes(rb.get('refused'))}")
            impact += 2
        elif ra.get("refusal_reason") != rb.get("refusal_reason"):
            impact += 0.5
        if ra.get("refusal_reason") != rb.get("refusal_reason"):
            changes.append(f"reason {ra.get('refusal_reason')} → {rb.get('refusal_reason')}")
        rank_a, rank_b = ra.get("retrieval_first_relevant_rank"), rb.get("retrieval_first_relevant_rank")
        if rank_a != rank_b:
            changes.append(f"hit rank {rank_a} → {rank_b}")
            impact += abs(reciprocal_rank(rb) - reciprocal_rank(ra))
        pages_a, pages_b = cited_pages(ra), cited_pages(rb)
        if pages_a != pages_b:
            changes.append("cited pages changed")
            impact += 0.25
        if changes:
            out.append({
                "corpus": key[0], "qid": key[1], "question": ra.get("question"), "answerable": ra.get("answerable"),
                "changes": changes, "impact": round(impact, 4),
                "hit_rank": [rank_a, rank_b], "must_ok": [ra.get("must_ok"), rb.get("must_ok")],
                "refused": [ra.get("refused"), rb.get("refused")],
                "refusal_reason": [ra.get("refusal_reason"), rb.get("refusal_reason")],
                "cited_pages": [pages_a, pages_b],
            })
    return sorted(out, key=lambda r: (-r["impact"], r["corpus"], r["qid"]))


def _yes(v) -> str:
    return "–" if v is None else ("yes" if v else "no")


def diff_table(changed: Sequence[dict], limit: int | None = None):
    """The changed questions as a DataFrame (the report's table)."""
    import pandas as pd

    rows = [{"corpus": r["corpus"], "qid": r["qid"], "impact": r["impact"], "changes": "; ".join(r["changes"]),
             "question": (r.get("question") or "")[:90]} for r in changed[:limit]]
    return pd.DataFrame(rows, columns=["corpus", "qid", "impact", "changes", "question"])
