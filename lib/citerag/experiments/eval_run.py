"""One evaluation of a params set: retrieval, answers, ragas and conversations (06_eval's engine).

`evaluate_params` builds (or reuses) the index for the params, runs every
measurement on the eval sets and returns an `EvalReport`; `write` puts the
flat `summary.json` sections and `per_question.jsonl` into the run folder.
Ablation variants run exactly this, so every variant's numbers mean the same.
"""

from __future__ import annotations

import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from citerag.build.corpus import load_manifest
from citerag.core.artifacts import write_jsonl
from citerag.core.params import Params, load_params
from citerag.core.paths import resolve
from citerag.experiments.evalset import load_conversations, load_questions
from citerag.experiments.metrics import (
    answer_metrics,
    answer_rows,
    conversation_metrics,
    evaluate_retrievers,
    metrics_table,
    per_question,
    run_conversations,
)
from citerag.experiments.ragas import RagasResult, evaluate_ragas
from citerag.experiments.runs import record_summary

PER_QUESTION = "per_question.jsonl"


@dataclass
class EvalReport:
    retrieval: list[dict]                 # one row per retriever
    answers: dict[str, float]
    rows: list[dict]                      # per question: answers + retrieval + ragas
    ragas: RagasResult
    conversation: dict[str, float]
    conversation_rows: list[dict]
    index: dict[str, object]              # stage hashes and whether each was reused
    seconds: dict[str, float] = field(default_factory=dict)
    corpus: str = ""                      # the manifest's name

    def hybrid(self) -> dict:
        return next((r for r in self.retrieval if r["retriever"] == "hybrid"), {})

    def sections(self) -> dict[str, dict]:
        """The summary sections (flattened to `section.metric` when written); `ci` carries each
        rate and rank metric's n and 95 % bootstrap interval over questions (experiments/stats)."""
        from citerag.experiments.stats import summary_section

        return {
            "index": self.index,
            "retrieval": {k: v for k, v in self.hybrid().items() if k != "retriever"},
            "answers": self.answers,
            "ragas": self.ragas.means,
            "conversation": self.conversation,
            "ci": summary_section(self.rows) if self.rows else {},
            "eval_seconds": self.seconds,
        }

    def write(self, run_dir: str | Path | None) -> None:
        if not run_dir:
            return
        for name, data in self.sections().items():
            record_summary(run_dir, name, data)
        write_jsonl(Path(run_dir) / PER_QUESTION, self.rows, sort_keys=False)


def evaluate_params(params: Params, conversations: bool = True, log=print) -> EvalReport:
    """Build (or reuse) the index for `params` and measure everything its labeled sets allow.
    A corpus without a question set still reports its build and the answers to its profile's
    example questions are left to 05; metrics that need labels are absent, not zero."""
    from citerag.agent.workflow import Agent
    from citerag.build.pipeline import build_all
    from citerag.conversation.engine import ChatEngine
    from citerag.retrieval.store import load_store

    t: dict[str, float] = {}
    t0 = time.perf_counter()
    stages = build_all(params, log=lambda _m: None, progress=False)
    t["build_s"] = round(time.perf_counter() - t0, 2)
    index = {**{f"{n}_hash": r.digest for n, r in stages.items()},
             **{f"{n}_reused": r.reused for n, r in stages.items()},
             # build-time facts (what the index stage embedded when it was built) stay in its manifest
             **{k: v for k, v in stages["index"].counts.items() if k in ("chunks", "dim")}}
    store = load_store(params)
    agent = Agent(store, params)
    items = load_questions(resolve(params.eval.questions)) if params.eval.questions else []

    retrieval: list[dict] = []
    rows: list[dict] = []
    ragas = RagasResult({}, {}, ["no labeled questions for this corpus (eval.questions is unset)"])
    if items:
        t0 = time.perf_counter()
        runs = evaluate_retrievers(params, items, baseline=False)
        retrieval = metrics_table(runs, items)
        by_q = {r["qid"]: r for r in per_question(runs["hybrid"].runs, items)}
        t["retrieval_s"] = round(time.perf_counter() - t0, 2)

        t0 = time.perf_counter()
        results = [agent.run(it.question) for it in items]
        rows = answer_rows(results, items)
        t["answers_s"] = round(time.perf_counter() - t0, 2)

        t0 = time.perf_counter()
        ragas = evaluate_ragas(rows, items, store, params)
        t["ragas_s"] = round(time.perf_counter() - t0, 2)
        for row in rows:
            ret = by_q.get(row["qid"], {})
            row.update({f"retrieval_{k}": v for k, v in ret.items() if k not in ("qid", "type")})
            row.update({f"ragas_{k}": v for k, v in ragas.per_question.get(row["qid"], {}).items()})

    conv_metrics: dict[str, float] = {}
    conv_rows: list[dict] = []
    if conversations and params.eval.conversations:
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:  # eval threads never mix with a user's memory
            chat_params = params.with_overrides({"agent.conversational": True,
                                                 "agent.conversation.memory_path": str(Path(tmp) / "m.sqlite")})
            chat = ChatEngine(store, chat_params, agent)
            conv_rows = run_conversations(chat, load_conversations(resolve(params.eval.conversations)),
                                          f"eval-{uuid.uuid4().hex[:8]}")
        conv_metrics = conversation_metrics(conv_rows)
        t["conversation_s"] = round(time.perf_counter() - t0, 2)
    return EvalReport(retrieval, answer_metrics(rows) if rows else {}, rows, ragas, conv_metrics, conv_rows, index, t,
                      corpus=corpus_name(params))


# Overrides that name a corpus's own things (its files, sets and output places) stay with it.
_CORPUS_OWN = ("corpus.", "paths.", "eval.questions", "eval.conversations", "eval.holdout_", "eval.also",
               "agent.trace_dir", "agent.conversation.memory_path")


def companion_params(params: Params, overrides: dict | None) -> list[tuple[str, Params]]:
    """(params file, params) of each corpus in `eval.also`, with the run's method overrides applied
    (not those naming the run corpus's own files), so a variant is measured the same way on every
    corpus."""
    out = []
    for path in params.eval.also:
        other = load_params(resolve(path))
        method = {k: v for k, v in (overrides or {}).items() if not k.startswith(_CORPUS_OWN)}
        if method:
            other = other.with_overrides(method)
        out.append((path, other.with_overrides({"eval.also": []})))
    return out


def all_corpora(params: Params, overrides: dict | None = None) -> list[Params]:
    """This params' corpus first, then each `eval.also` corpus (with the method overrides)."""
    return [params, *(other for _, other in companion_params(params, overrides))]


def missing_files(params: Params) -> list[str]:
    """The manifest's files not present in `corpus.dir` (a companion corpus may not be on disk)."""
    folder = resolve(params.corpus.dir)
    return [d.file for d in load_manifest(params.corpus.manifest).documents if not (folder / d.file).is_file()]


def evaluate_corpora(params: Params, overrides: dict | None = None, conversations: bool = True,
                     log=print) -> dict[str, EvalReport]:
    """This params' corpus first, then each corpus of `eval.also`: corpus name → report. A companion
    corpus whose PDFs are not on disk is skipped with a printed note (the run's own corpus is not:
    its absence is an error)."""
    own = evaluate_params(params.with_overrides({"eval.also": []}), conversations=conversations)
    reports = {own.corpus: own}
    for path, other in companion_params(params, overrides):
        missing = missing_files(other)
        if missing:
            log(f"note: {path} skipped: {len(missing)} of its PDFs are not in {other.corpus.dir} "
                f"(e.g. {missing[0]})")
            continue
        rep = evaluate_params(other, conversations=conversations)
        reports[rep.corpus] = rep
    return reports


def corpus_name(params: Params) -> str:
    return load_manifest(params.corpus.manifest).name


def write_reports(reports: dict[str, EvalReport], run_dir: str | Path | None) -> None:
    """The first corpus's sections unprefixed (the run's own corpus), every corpus also under
    `corpora.<name>.…`, and per-question rows of all of them (with a `corpus` column)."""
    if not run_dir:
        return
    names = list(reports)
    first = reports[names[0]]
    for name, data in first.sections().items():
        record_summary(run_dir, name, data)
    for corpus, rep in reports.items():
        for name, data in rep.sections().items():
            if name != "eval_seconds":
                record_summary(run_dir, f"corpora.{corpus}.{name}", data)
    rows = [{"corpus": c, **r} for c, rep in reports.items() for r in rep.rows]
    write_jsonl(Path(run_dir) / PER_QUESTION, rows, sort_keys=False)
