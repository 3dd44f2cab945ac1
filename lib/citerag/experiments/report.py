"""The ablation report (07_compare_runs): one table, metric-vs-param plots, the refusal trade-off.

Every report has the same sections and the same metric columns in the same
order (`REPORT_METRICS`; a metric a run lacks shows as empty), so two reports
compare side by side. `write_markdown` and `export_html` give the same report
as `report.md` (+ PNGs) and a self-contained `report.html` with code hidden.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from citerag.experiments.runs import SUMMARY

# (summary key, column label); the order is the report's column order
REPORT_METRICS: list[tuple[str, str]] = [
    ("retrieval.recall@8", "recall@8"),
    ("retrieval.mrr@8", "mrr@8"),
    ("retrieval.ndcg@8", "ndcg@8"),
    ("retrieval.p50_ms", "retrieve p50 ms"),
    ("answers.must_contain", "must_contain"),
    ("answers.unanswerable_refused", "unanswerable refused"),
    ("answers.answerable_refused", "answerable refused"),
    ("answers.supported_cited_sentences", "cited+supported sentences"),
    ("answers.citation_precision", "citation precision"),
    ("answers.latency_p50_ms", "answer p50 ms"),
    ("ragas.context_precision", "ragas context precision"),
    ("ragas.context_recall", "ragas context recall"),
    ("ragas.rouge_l", "ragas rouge-l"),
    ("conversation.must_contain", "conv must_contain"),
    ("conversation.rewrite_entity", "conv rewrite entity"),
    ("index.chunks", "chunks"),
]


# per-corpus columns (summary keys `corpora.<name>.<key>`): every corpus side by side
CORPUS_METRICS: list[tuple[str, str]] = [
    ("retrieval.recall@8", "recall@8"), ("retrieval.mrr@8", "mrr@8"), ("answers.must_contain", "must_contain"),
    ("answers.unanswerable_refused", "unanswerable refused"), ("answers.answerable_refused", "answerable refused"),
]


def corpus_columns(summaries: list[dict]) -> list[tuple[str, str]]:
    """(summary key, label) for every corpus any variant measured, in first-seen order."""
    names: list[str] = []
    for s in summaries:
        for key in s:
            if key.startswith("corpora."):
                name = key.split(".")[1]
                if name not in names:
                    names.append(name)
    return [(f"corpora.{n}.{k}", f"{n}: {label}") for n in names for k, label in CORPUS_METRICS]


def load_runs(ablation_dir: str | Path) -> tuple[dict, pd.DataFrame]:
    """(spec, one row per variant: swept params, status, seconds, every report metric)."""
    import yaml

    folder = Path(ablation_dir)
    spec = yaml.safe_load((folder / "ablation.yaml").read_text(encoding="utf-8"))
    variants = json.loads((folder / "variants.json").read_text(encoding="utf-8"))["variants"]
    loaded = []
    for v in variants:  # grid order
        name = v["name"]
        status_path = folder / name / "status.json"
        status = json.loads(status_path.read_text(encoding="utf-8")) if status_path.is_file() else {}
        summary_path = folder / name / SUMMARY
        summary = json.loads(summary_path.read_text(encoding="utf-8")) if summary_path.is_file() else {}
        loaded.append((v, status, summary))
    extra = corpus_columns([s for _, _, s in loaded])
    rows = []
    for v, status, summary in loaded:
        name, overrides = v["name"], v["overrides"]
        row = {"variant": name, **overrides, "status": status.get("status", "missing"),
               "seconds": status.get("seconds"), "error": status.get("error", "")}
        for key, label in [*REPORT_METRICS, *extra]:
            value = summary.get(key) if status.get("status") == "ok" else None
            row[label] = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan
        rows.append(row)
    return spec, pd.DataFrame(rows)


def metric_table(df: pd.DataFrame, spec: dict) -> pd.DataFrame:
    """Variant × metric, in the fixed column order."""
    labels = [label for _, label in REPORT_METRICS]
    per_corpus = [c for c in df.columns if ": " in str(c) and c not in labels]
    cols = ["variant", *spec["grid"], "status", *labels, *per_corpus]
    return df[cols].set_index("variant").round(4)


def x_key(spec: dict) -> str:
    return spec.get("x") or next(iter(spec["grid"]))


def plot_metrics(df: pd.DataFrame, spec: dict):
    """Each metric against the swept param (one line per combination of the other grid keys)."""
    import matplotlib.pyplot as plt

    x = x_key(spec)
    others = [k for k in spec["grid"] if k != x]
    labels = [label for _, label in REPORT_METRICS]
    ncols = 4
    nrows = math.ceil(len(labels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4 * ncols, 2.6 * nrows), squeeze=False)
    groups = df.groupby(others, sort=True) if others else [((), df)]
    for ax, label in zip(axes.flat, labels, strict=False):
        for key, g in groups:
            g = g.sort_values(x, key=_sort_key)
            name = ", ".join(f"{k}={v}" for k, v in zip(others, key if isinstance(key, tuple) else (key,),
                                                       strict=False)) or None
            ax.plot([str(v) for v in g[x]], g[label], marker="o", label=name)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel(x.split(".")[-1], fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(labels):]:
        ax.axis("off")
    if others:
        axes.flat[0].legend(fontsize=6)
    fig.tight_layout()
    return fig


def _sort_key(s: pd.Series) -> pd.Series:
    return pd.to_numeric(s, errors="coerce").fillna(float("inf")) if s.dtype == object else s


def plot_tradeoff(df: pd.DataFrame, spec: dict):
    """Refusal trade-off: unanswerables refused (want 1) against answerables wrongly refused (want 0),
    one line per combination of the other grid keys, each point labelled with its swept value."""
    import matplotlib.pyplot as plt

    x = x_key(spec)
    others = [k for k in spec["grid"] if k != x]
    fig, ax = plt.subplots(figsize=(6, 4.2))
    d = df.dropna(subset=["answerable refused", "unanswerable refused"])
    groups = d.groupby(others, sort=True) if others else [((), d)]
    labelled: set[tuple[float, float]] = set()
    for key, g in groups:
        g = g.sort_values(x, key=_sort_key)
        name = ", ".join(f"{k.split('.')[-1]}={v}" for k, v in zip(others, key if isinstance(key, tuple) else (key,),
                                                                  strict=False)) or None
        ax.plot(g["answerable refused"], g["unanswerable refused"], marker="o", label=name, alpha=0.8)
        for _, r in g.iterrows():
            point = (round(r["answerable refused"], 4), round(r["unanswerable refused"], 4))
            if point not in labelled:  # identical points (curves that coincide) are labelled once
                labelled.add(point)
                ax.annotate(str(r[x]), point, fontsize=7, xytext=(4, -10), textcoords="offset points")
    ax.set_xlabel("answerable questions wrongly refused")
    ax.set_ylabel("unanswerable questions refused")
    ax.margins(x=0.15, y=0.1)
    ax.set_title(f"refusal trade-off (points labelled by {x.split('.')[-1]})", fontsize=10)
    if others:
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def markdown_table(df: pd.DataFrame) -> str:
    cols = [df.index.name or "", *df.columns]
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for idx, row in df.iterrows():
        cells = [str(idx)] + ["" if (isinstance(v, float) and math.isnan(v)) else
                              (f"{v:.4g}" if isinstance(v, float) else str(v)) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_markdown(folder: str | Path, spec: dict, table: pd.DataFrame, figures: dict[str, object],
                   failures: pd.DataFrame) -> Path:
    """report.md with the table, the failures and the figures saved as PNGs beside it."""
    folder = Path(folder)
    img = folder / "report_files"
    img.mkdir(exist_ok=True)
    parts = [f"# Ablation report: {folder.name}", "", spec.get("description", "").strip(), "",
             f"Grid: {', '.join(f'`{k}` ∈ {v}' for k, v in spec['grid'].items())}; base `{spec.get('base')}`.", "",
             "## Metrics", "", markdown_table(table), "", "## Failed variants", ""]
    parts += ([f"- `{r.variant}`: {r.error}" for r in failures.itertuples()] or ["none"])
    for name, fig in figures.items():
        fig.savefig(img / f"{name}.png", dpi=110)
        parts += ["", f"## {name.replace('_', ' ')}", "", f"![{name}](report_files/{name}.png)"]
    path = folder / "report.md"
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return path


def export_html(notebook: str | Path, out: str | Path) -> Path:
    """A self-contained HTML page of the executed report notebook, code cells hidden."""
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(str(notebook), as_version=4)
    exporter = HTMLExporter(exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True)
    body, _ = exporter.from_notebook_node(nb)
    Path(out).write_text(body, encoding="utf-8")
    return Path(out)
