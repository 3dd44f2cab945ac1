"""The ablation report (07_compare_runs): one table, metric-vs-param plots, the refusal trade-off.

Every report has the same sections and the same metric columns in the same
order (`REPORT_METRICS`; a metric a run lacks shows as empty), so two reports
compare side by side. Every rate and rank metric is shown with its n and 95 %
bootstrap interval ("0.786 [0.70, 0.86]"), drawn as error bars on a fixed 0–1
axis, and each variant's difference from the base variant is tested on the
same questions and marked within noise or not (`experiments/stats`); the
questions that changed against the base are listed (`experiments/diff`).
`write_markdown` and `export_html` give the same report as `report.md` (+ PNGs)
and a self-contained `report.html` with code hidden.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from citerag.experiments import stats
from citerag.experiments.diff import diff_rows, diff_table
from citerag.experiments.eval_run import PER_QUESTION
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


def load_per_question(ablation_dir: str | Path, df: pd.DataFrame) -> dict[str, list[dict]]:
    """variant → its per-question rows (all corpora), for the variants that finished."""
    folder = Path(ablation_dir)
    out = {}
    for name, status in zip(df["variant"], df["status"], strict=True):
        path = folder / name / PER_QUESTION
        if status == "ok" and path.is_file():
            with open(path, encoding="utf-8") as fh:
                out[name] = [json.loads(line) for line in fh if line.strip()]
    return out


def base_variant(spec: dict, df: pd.DataFrame) -> str | None:
    """The variant every other is compared with: the one whose swept values are the base params'
    own (rrf_k0=60 in a sweep over default params), else the first in grid order."""
    from citerag.core.params import load_params
    from citerag.core.paths import resolve

    if df.empty:
        return None
    try:
        base = load_params(resolve(spec["base"])).to_dict()
    except Exception:  # the base file moved since the sweep ran: compare with the first variant
        return str(df["variant"].iloc[0])

    def value(dotted: str):
        node = base
        for part in dotted.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node

    for _, row in df.iterrows():
        if all(str(row[k]) == str(value(k)) or _same_number(row[k], value(k)) for k in spec["grid"]):
            return str(row["variant"])
    return str(df["variant"].iloc[0])


def _same_number(a, b) -> bool:
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return False


def interval_table(per_q: dict[str, list[dict]]) -> pd.DataFrame:
    """Variant × (corpus: metric) as "mean [lo, hi]" with n in the header: each corpus side by side."""
    rows, header = {}, {}
    for variant, qrows in per_q.items():
        cells = {}
        for corpus, mine in stats.by_corpus(qrows).items():
            for metric, iv in stats.intervals(mine).items():
                col = f"{corpus + ': ' if corpus else ''}{metric.split('.', 1)[1]}"
                cells[col] = iv.label()
                header[col] = iv.n
        rows[variant] = cells
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.columns = [f"{c} (n={header[c]})" for c in table.columns]
    table.index.name = "variant"
    return table


def paired_table(per_q: dict[str, list[dict]], base: str | None) -> pd.DataFrame:
    """Each other variant against the base on the same questions: "Δ [lo, hi], p (verdict)"."""
    if not base or base not in per_q:
        return pd.DataFrame()
    rows = {}
    for variant, qrows in per_q.items():
        if variant == base:
            continue
        cells = {}
        theirs = stats.by_corpus(qrows)
        for corpus, a in stats.by_corpus(per_q[base]).items():
            b = theirs.get(corpus, [])
            for metric in stats.METRICS:
                t = stats.paired(a, b, metric)
                cells[f"{corpus + ': ' if corpus else ''}{metric.split('.', 1)[1]}"] = t.label()
        rows[variant] = cells
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = f"variant vs {base}"
    return table


def changed_questions(per_q: dict[str, list[dict]], base: str | None, limit: int = 15
                      ) -> dict[str, tuple[int, pd.DataFrame]]:
    """variant → (how many questions changed against the base, the `limit` with most impact)."""
    if not base or base not in per_q:
        return {}
    out = {}
    for v, rows in per_q.items():
        if v != base:
            changed = diff_rows(per_q[base], rows)
            out[v] = (len(changed), diff_table(changed, limit).set_index("qid"))
    return out


def show_options() -> None:
    """Tables in full: every column (pandas elides the middle of wide tables otherwise) and the
    change descriptions unclipped; the HTML export scrolls them inside their own box."""
    pd.set_option("display.max_columns", None)
    pd.set_option("display.max_colwidth", 160)


def metric_table(df: pd.DataFrame, spec: dict) -> pd.DataFrame:
    """Variant × metric, in the fixed column order."""
    labels = [label for _, label in REPORT_METRICS]
    per_corpus = [c for c in df.columns if ": " in str(c) and c not in labels]
    cols = ["variant", *spec["grid"], "status", *labels, *per_corpus]
    return df[cols].set_index("variant").round(4)


def x_key(spec: dict) -> str:
    return spec.get("x") or next(iter(spec["grid"]))


def _is_rate(label: str) -> bool:
    """Rates and rank metrics live on 0–1 and are drawn on that fixed axis; times and counts not."""
    return not label.endswith(" ms") and label != "chunks"


def _own_intervals(per_q: dict[str, list[dict]]) -> dict[str, dict[str, stats.Interval]]:
    """variant → metric → interval on the plain-key (own, first) corpus: the panels' error bars."""
    return {v: stats.intervals(next(iter(stats.by_corpus(rows).values()), [])) for v, rows in per_q.items()}


def _errors(own: dict[str, dict[str, stats.Interval]], variants: list[str], label: str) -> list[list[float]] | None:
    """Asymmetric error bars (below, above) from each variant's bootstrap interval, if measured."""
    key = next((k for k, lab in REPORT_METRICS if lab == label), "")
    if key not in stats.METRICS or not own:
        return None
    ivs = [own[v][key] if v in own else None for v in variants]
    return [[max(0.0, iv.mean - iv.lo) if iv and iv.n else 0.0 for iv in ivs],
            [max(0.0, iv.hi - iv.mean) if iv and iv.n else 0.0 for iv in ivs]]


def plot_metrics(df: pd.DataFrame, spec: dict, per_q: dict[str, list[dict]] | None = None):
    """Each metric against the swept param (one line per combination of the other grid keys), with
    95 % bootstrap intervals as error bars; rates on a fixed 0–1 axis, so noise is not drawn as a
    trend."""
    import matplotlib.pyplot as plt

    own = _own_intervals(per_q or {})
    first = next(iter(own.values()), {})  # n behind each panel's plain-key figure
    n_by_label = {lab: first[key].n for key, lab in REPORT_METRICS if key in first}
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
            err = _errors(own, list(g["variant"]), label)
            ax.errorbar([str(v) for v in g[x]], g[label], yerr=err, marker="o", capsize=3, label=name)
        if _is_rate(label):
            ax.set_ylim(0, 1.02)
        else:
            ax.set_ylim(bottom=0)  # times and counts from zero: a 10 ms wobble is not a cliff
        ax.set_title(label + (f" (n={n_by_label[label]})" if label in n_by_label else ""), fontsize=9)
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
    at: dict[tuple[float, float], list[str]] = {}
    for key, g in groups:
        g = g.sort_values(x, key=_sort_key)
        name = ", ".join(f"{k.split('.')[-1]}={v}" for k, v in zip(others, key if isinstance(key, tuple) else (key,),
                                                                  strict=False)) or None
        ax.plot(g["answerable refused"], g["unanswerable refused"], marker="o", label=name, alpha=0.8)
        for _, r in g.iterrows():
            point = (round(r["answerable refused"], 4), round(r["unanswerable refused"], 4))
            if str(r[x]) not in at.setdefault(point, []):
                at[point].append(str(r[x]))
    for point, values in at.items():  # coinciding variants share one label: "30, 60, 100"
        ax.annotate(", ".join(values), point, fontsize=7, xytext=(4, -10), textcoords="offset points")
    ax.set_xlabel("answerable questions wrongly refused")
    ax.set_ylabel("unanswerable questions refused")
    # Fixed 0–1 axes: a sweep whose points coincide shows as one point, not as a blown-up jitter.
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
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
                   failures: pd.DataFrame, intervals: pd.DataFrame | None = None,
                   versus_base: pd.DataFrame | None = None, changed: dict[str, pd.DataFrame] | None = None) -> Path:
    """report.md with the tables, the failures and the figures saved as PNGs beside it."""
    folder = Path(folder)
    img = folder / "report_files"
    img.mkdir(exist_ok=True)
    parts = [f"# Ablation report: {folder.name}", "", spec.get("description", "").strip(), "",
             f"Grid: {', '.join(f'`{k}` ∈ {v}' for k, v in spec['grid'].items())}; base `{spec.get('base')}`.", "",
             "## Metrics", "", markdown_table(table), ""]
    if intervals is not None and len(intervals):
        parts += ["## With 95 % bootstrap intervals (n questions)", "", markdown_table(intervals), ""]
    if versus_base is not None and len(versus_base):
        parts += ["## Against the base variant (paired, same questions)", "", markdown_table(versus_base), ""]
    for variant, (n, t) in (changed or {}).items():
        parts += [f"## Questions changed: {variant} vs base ({n}; {len(t)} with most impact shown)", "",
                  markdown_table(t) if len(t) else "none", ""]
    parts += ["## Failed variants", ""]
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
    Path(out).write_text(body.replace("</head>", _WIDE_TABLES + "</head>", 1), encoding="utf-8")
    return Path(out)


# Wide tables scroll inside their own box instead of overflowing the page.
_WIDE_TABLES = """<style>
.jp-RenderedHTMLCommon table { display: block; max-width: 100%; overflow-x: auto; }
.jp-OutputArea-output { overflow-x: auto; }
.jp-RenderedHTMLCommon td, .jp-RenderedHTMLCommon th { white-space: nowrap; }
</style>
"""
