"""Helpers that keep notebooks thin: loading params, tables and plots.

Notebooks call these instead of holding logic; anything here is importable and
testable. Functions return DataFrames/figures and never print volatile paths.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pandas as pd

from citerag.core.params import Params, load_params
from citerag.core.paths import resolve


def setup(params_path: str, overrides: dict[str, Any] | None = None) -> Params:
    """Params for a notebook run: the file (relative to the repo root) plus overrides."""
    return load_params(resolve(params_path), overrides or None)


def stage_line(result) -> str:
    """One deterministic line about a stage: its counts (no hash, timings or paths)."""
    return f"{result.stage}: " + ", ".join(
        f"{k}={v}" for k, v in sorted(result.counts.items())
        if k not in ("embedded", "embedding_cache_hits")
    )


def ingest_table(report_rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(report_rows)
    cols = ["doc_id", "file", "status", "reason", "pages", "expected_pages", "chars", "seconds"]
    df = df[[c for c in cols if c in df.columns]].copy()
    df["pages_per_s"] = (df["pages"] / df["seconds"].where(df["seconds"] > 0)).round(1)
    return df


def chunk_table(chunks) -> pd.DataFrame:
    """Per-document chunk statistics."""
    rows = []
    by_doc: dict[str, list[int]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c.n_chars)
    for doc, sizes in by_doc.items():
        s = pd.Series(sizes)
        rows.append({"doc_id": doc, "chunks": len(sizes), "median_chars": int(s.median()),
                     "p95_chars": int(s.quantile(0.95)), "max_chars": int(s.max())})
    return pd.DataFrame(rows)


def chunk_kinds(chunks) -> pd.DataFrame:
    counts = Counter(k for c in chunks for k in c.kinds)
    return pd.DataFrame(sorted(counts.items()), columns=["kind", "chunks"])


def chunk_length_histograms(chunks, bins: int = 30):
    """One small histogram of chunk lengths per document."""
    import matplotlib.pyplot as plt

    docs = sorted({c.doc_id for c in chunks})
    fig, axes = plt.subplots(2, (len(docs) + 1) // 2, figsize=(12, 5), sharex=True, squeeze=False)
    for ax, doc in zip(axes.flat, docs):
        ax.hist([c.n_chars for c in chunks if c.doc_id == doc], bins=bins, color="#4477aa")
        ax.set_title(doc, fontsize=9)
        ax.set_xlabel("chars")
    for ax in list(axes.flat)[len(docs):]:
        ax.axis("off")
    fig.tight_layout()
    return fig


def example_chunks(chunks, kinds=("table", "algorithm", "paragraph")) -> list:
    """The first chunk of each kind, for a look at what the chunker produced."""
    out = []
    for kind in kinds:
        match = next((c for c in chunks if kind in c.kinds and c.n_chars > 300), None)
        if match:
            out.append(match)
    return out


def show_chunk(c, limit: int = 700) -> str:
    head = f"{c.chunk_id}  pages {c.start_page}-{c.end_page}  [{' > '.join(c.heading_path)}]"
    return head + "\n" + c.text[:limit] + ("…" if len(c.text) > limit else "")


def retrieval_table(rows: list[dict]) -> pd.DataFrame:
    cols = ["retriever", "recall@1", "recall@3", "recall@5", "recall@8", "mrr@8", "ndcg@8",
            "hit@8_strict", "hit@8_doc", "hit@8_pm1", "p50_ms", "p95_ms"]
    return pd.DataFrame(rows)[cols].set_index("retriever").round(3)


def plot_retrieval(df: pd.DataFrame, metrics=("recall@8", "mrr@8", "ndcg@8", "recall@1")):
    """Grouped bars: one group per metric, one bar per retriever."""

    ax = df[list(metrics)].T.plot.bar(figsize=(9, 4), rot=0, ylim=(0, 1))
    ax.set_ylabel("score")
    ax.set_title("Retrievers on the eval set (answerable questions)")
    ax.legend(fontsize=8)
    ax.figure.tight_layout()
    return ax.figure


def agent_overview(results) -> pd.DataFrame:
    """One row per agent run: route, path through the nodes, reasons, citations."""
    return pd.DataFrame([{
        "question": r.question, "route": r.route, "path": " → ".join(r.trajectory),
        "stop_reason": r.stop_reason, "refused": r.answer.refused, "refusal_reason": r.refusal_reason,
        "citations": ", ".join(f"{c['doc_id']} p{c['start_page']}" for c in r.answer.citations),
    } for r in results])


def agent_trace(result) -> pd.DataFrame:
    """The trace events of one run, one row per node, with the fields each node recorded."""
    rows = []
    for e in result.trace:
        detail = {k: v for k, v in e.items() if k not in ("step", "node")}
        rows.append({"step": e["step"], "node": e["node"],
                     "detail": "; ".join(f"{k}={v}" for k, v in detail.items() if v not in (None, [], {}, ""))[:300]})
    return pd.DataFrame(rows)


def show_answer(result) -> str:
    lines = [f"Q: {result.question}", result.answer.answer]
    lines += [f"  [{c['key']}] {c['doc_id']} p.{c['start_page']}-{c['end_page']} ({c['chunk_id']})"
              for c in result.answer.citations]
    if result.answer.refused:
        lines.append(f"  refusal_reason={result.refusal_reason} stop_reason={result.stop_reason}")
    return "\n".join(lines)


def new_thread(label: str) -> str:
    """A fresh thread id: notebooks must not continue a conversation from an earlier run."""
    import uuid

    return f"{label}-{uuid.uuid4().hex[:8]}"


def conversation_table(turns) -> pd.DataFrame:
    """One row per chat turn: route, the standalone query, path through the nodes, outcome."""
    return pd.DataFrame([{
        "user": t.user, "route": t.route, "asked as": t.rewritten_query, "path": " → ".join(t.trajectory),
        "refused": t.refused, "refusal_reason": t.refusal_reason,
        "citations": ", ".join(f"{c['doc_id']} p{c['start_page']}" for c in t.citations),
    } for t in turns])


def conversation_rows(rows: list[dict]) -> pd.DataFrame:
    """Per-turn checks of an eval conversation run (without the raw result objects)."""
    cols = ["cid", "turn", "user", "expected_route", "route", "route_ok", "rewritten_query", "entity_ok",
            "answerable", "refused", "must_ok", "seconds"]
    return pd.DataFrame([{k: r[k] for k in cols} for r in rows])


def eval_tables(report) -> dict[str, pd.DataFrame]:
    """06_eval's tables: retrievers, answer metrics by question type, ragas by type."""
    if not report.rows:
        empty = pd.DataFrame()
        return {"retrieval": empty, "by_type": empty, "ragas": empty}
    rows = pd.DataFrame(report.rows)
    ans = rows[rows["answerable"]]
    by_type = ans.groupby("type").agg(questions=("qid", "count"), must_contain=("must_ok", "mean"),
                                      refused=("refused", "mean"), citation_precision=("citation_precision", "mean"),
                                      latency_ms=("latency_ms", "median")).round(3)
    ragas_cols = [c for c in rows.columns if c.startswith("ragas_")]
    ragas = ans.groupby("type")[ragas_cols].mean().round(3) if ragas_cols else pd.DataFrame()
    return {"retrieval": pd.DataFrame(report.retrieval).set_index("retriever"), "by_type": by_type, "ragas": ragas}


def plot_eval(report):
    """Must-contain and citation precision by question type, and the latency distribution."""
    import matplotlib.pyplot as plt

    tables = eval_tables(report)
    if tables["by_type"].empty:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    tables["by_type"][["must_contain", "citation_precision"]].plot.bar(ax=axes[0], ylim=(0, 1.05), rot=30)
    axes[0].set_title("answers by question type")
    # A CDF on a log axis: one slow outlier no longer flattens every other question into one bar.
    lat = np.sort(np.asarray([r["latency_ms"] for r in report.rows], dtype=float))
    axes[1].step(lat, np.arange(1, len(lat) + 1) / len(lat), where="post")
    axes[1].set_xscale("log")
    axes[1].set_ylim(0, 1.02)
    for q, style in ((50, "--"), (95, ":")):
        v = float(np.percentile(lat, q))
        axes[1].axvline(v, color="grey", linestyle=style, linewidth=1)
        axes[1].annotate(f"p{q} {v:.0f} ms", (v, 0.05 if q == 50 else 0.2), fontsize=8, xytext=(3, 0),
                         textcoords="offset points")
    axes[1].set_xlabel("ms per question (log scale)")
    axes[1].set_ylabel("share of questions")
    axes[1].set_title(f"answer latency, CDF (n={len(lat)})")
    fig.tight_layout()
    return fig


def plot_coverage_risk(params: Params, default_model: str = "data/abstain/model.json"):
    """The calibrated answer/refuse model's cross-validated coverage–risk curve (written by
    `citerag calibrate` beside the model) with its operating point: the params' model, else the
    shipped one (the model is opt-in); None when neither exists."""
    import matplotlib.pyplot as plt

    from citerag.answer.abstain import load_model
    from citerag.core.paths import resolve
    from citerag.experiments.calibrate import CURVE, load_curve

    path = resolve(params.answer.abstain.model or default_model)
    if not path.is_file():
        return None
    model, pts = load_model(path), load_curve(path.parent / CURVE)
    t = model.threshold if params.answer.abstain.threshold is None else params.answer.abstain.threshold
    op = min(pts, key=lambda q: abs(q["threshold"] - t))
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    axes[0].plot([q["coverage"] for q in pts], [q["risk"] for q in pts], marker=".")
    axes[0].scatter([op["coverage"]], [op["risk"]], color="red", zorder=3, label=f"operating point t={t:.2f}")
    axes[0].set(xlabel="coverage (answer rate)", ylabel="risk (wrong share of answers)",
                title="coverage–risk (cross-validated, dev sets)")
    axes[0].legend()
    ts = [q["threshold"] for q in pts]
    axes[1].plot(ts, [q["answerable_refused"] for q in pts], label="answerables refused")
    axes[1].plot(ts, [q["unanswerable_refused"] for q in pts], label="unanswerables refused")
    axes[1].axvline(t, color="red", linestyle="--")
    axes[1].set(xlabel="threshold on p(answerable)", ylim=(0, 1.05), title="refusals by threshold")
    axes[1].legend()
    fig.tight_layout()
    return fig


# -- what a notebook shows, for any corpus ------------------------------------------------------
# The profile's examples when it has them, else picks from the corpus's own eval set and titles,
# so every notebook runs on a folder of PDFs nobody has looked at.

def profile(params: Params):
    from citerag.build.profile import load_profile

    return load_profile(params.corpus.manifest)


def example_page(pages, params: Params):
    """The profile's example page, else the page with the most table rows (then the longest)."""
    ex = profile(params).examples.page
    if ex is not None:
        found = next((p for p in pages if p.doc_id == ex.doc_id and p.page == ex.page), None)
        if found is not None:
            return found
    return max(pages, key=lambda p: (p.text.count("\n|"), len(p.text), -p.page)) if pages else None


def example_text(params: Params, chunks) -> str:
    """A line to show the tokenizer on: the profile's, else the corpus line with most identifiers."""
    from citerag.text.patterns import identifiers

    ex = profile(params).examples.tokenize
    if ex:
        return ex
    lines = (ln.strip() for c in chunks[:200] for ln in c.text.split("\n") if 20 <= len(ln.strip()) <= 120)
    return max(lines, key=lambda ln: (len(identifiers(ln)), -len(ln)), default="")


def _eval_items(params: Params):
    from citerag.experiments.evalset import load_questions

    return load_questions(resolve(params.eval.questions)) if params.eval.questions else []


def example_questions(params: Params, n: int = 5) -> list[str]:
    """The profile's examples, else one eval question per type (an unanswerable last), else one
    overview question per document title."""
    ex = profile(params).examples.agent
    if ex:
        return list(ex)
    items = _eval_items(params)
    if items:
        picked, types = [], []
        for it in items:
            if it.answerable and it.type not in types and len(picked) < n - 1:
                picked.append(it.question)
                types.append(it.type)
        picked += [it.question for it in items if not it.answerable][:1]
        return picked
    from citerag.build.corpus import load_manifest

    return [f"What is {d.title} about?" for d in load_manifest(params.corpus.manifest).documents][:n]


def example_question(params: Params) -> str:
    return profile(params).examples.retrieve or example_questions(params, 1)[0]


def example_conversation(params: Params) -> list[str]:
    """The profile's thread, else the first eval conversation's turns, else a generic follow-up."""
    ex = profile(params).examples.conversation
    if ex:
        return list(ex)
    if params.eval.conversations:
        from citerag.experiments.evalset import load_conversations

        convs = load_conversations(resolve(params.eval.conversations))
        if convs:
            return [t.user for t in convs[0].turns]
    first = example_questions(params, 1)[0]
    return [first, "and what does it say about installation?", "help me with the document"]


def corpora_table(reports: dict) -> pd.DataFrame:
    """06: the headline figures of every corpus side by side, each rate and rank metric as
    "mean [lo, hi] (n)" with its 95 % bootstrap interval over questions (absent figures stay empty)."""
    from citerag.experiments import stats

    rows = {}
    for corpus, rep in reports.items():
        iv = stats.intervals(rep.rows) if rep.rows else {}
        conv = [float(bool(t["must_ok"])) for t in rep.conversation_rows if t.get("must_ok") is not None]

        def cell(key: str, iv: dict = iv) -> str | None:
            i = iv.get(key)
            return f"{i.label()} (n={i.n})" if i is not None and i.n else None

        rows[corpus] = {
            "questions": rep.answers.get("questions"), "R@8": cell("retrieval.recall@8"),
            "MRR@8": cell("retrieval.mrr@8"), "must_contain": cell("answers.must_contain"),
            "unanswerable_refused": cell("answers.unanswerable_refused"),
            "answerable_refused": cell("answers.answerable_refused"),
            "citation_precision": cell("answers.citation_precision"),
            "conv_turns": rep.conversation.get("turns"),
            "conv_must_contain": f"{stats.interval(conv).label()} (n={len(conv)})" if conv else None,
        }
    return pd.DataFrame(rows).T
