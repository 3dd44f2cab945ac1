"""`citerag` command line: thin argument parsing over the library.

Every error a user can cause ends as one line `citerag: error: …` and a
non-zero exit code; tracebacks are for bugs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from citerag.core.params import ParamsError, load_params, parse_override

DEFAULT_PARAMS = "params/default.yaml"


class UsageError(ValueError):
    """Bad command-line input (file, line, flag)."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value}")
    return value


def user_path(text: str) -> Path:
    """A path typed by the user: relative to the directory the command runs in."""
    return Path(text).expanduser().resolve()


def run_stamp() -> str:
    """A folder name unique to this process: two runs started in the same second (or in
    parallel) never share a trace folder."""
    import time
    import uuid

    return f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


def _params(args: argparse.Namespace):
    import os

    from citerag.core.paths import resolve

    path = resolve(DEFAULT_PARAMS) if args.params is None else user_path(args.params)
    params = load_params(path, getattr(args, "set", None) or None)
    # A relative mirror folder means relative to where the user ran the command; kernels
    # started later run in notebooks/, so pin it down now.
    mirror = os.environ.get(params.corpus.mirror_env)
    if mirror:
        os.environ[params.corpus.mirror_env] = str(Path(mirror).expanduser().resolve())
    return path, params


def cmd_corpus_init(args: argparse.Namespace) -> int:
    from citerag.build.corpus import init_corpus
    from citerag.core.paths import repo_root

    res = init_corpus(args.dir, args.name, args.params_out, force=args.force)
    rel = {k: os.path.relpath(v, repo_root()) for k, v in
           {"manifest": res.manifest, "profile": res.profile, "params": res.params}.items()}
    print(f"corpus {args.name}: {res.documents} document(s) → {rel['manifest']}")
    for s in res.skipped:
        print(f"  skipped {s['file']}: {s['reason']}")
    print(f"  profile: {rel['profile']}" + (" (written; edit it to add aliases, names, examples)" if res.profile_created
                                           else " (kept: it exists)"))
    print(f"  params:  {rel['params']}")
    print(f"next: citerag index --params {rel['params']}   (or: make run PARAMS={rel['params']})")
    return 0


def cmd_corpus_fetch(args: argparse.Namespace) -> int:
    from citerag.build.corpus import fetch_corpus

    _, params = _params(args)
    fetch_corpus(params)
    return 0


def _fetch_problems(msg: str) -> None:
    """A build's fetch prints only the documents it could not have (the build leaves them out)."""
    if msg.startswith("fetch:"):
        print(f"citerag: {msg}", file=sys.stderr)


def cmd_index(args: argparse.Namespace) -> int:
    from citerag.build.corpus import fetch_corpus
    from citerag.build.pipeline import build_all

    _, params = _params(args)
    fetch_corpus(params, log=_fetch_problems, strict=False)
    results = build_all(params, log=lambda m: print(m, file=sys.stderr), progress=not args.quiet)
    for name, r in results.items():
        state = "reused" if r.reused else "built"
        print(f"{name:9s} {state:6s} {r.digest}  {r.seconds:7.2f}s  {json.dumps(r.counts)}  {r.dir}")
    return _partial_status(results["ingest"])


def _partial_status(ingest) -> int:
    """Exit 3 when the build had to leave documents out, missing, changed or unreadable (each named
    on stderr with its reason), else 0."""
    from citerag.build.pipeline import left_out

    gone = left_out(ingest)
    for r in gone:
        print(f"citerag: left out {r['file']}: {r['reason']} ({r['detail']})", file=sys.stderr)
    if gone:
        print(f"citerag: partial index: {len(gone)} document(s) left out; the rest are built (exit 3)",
              file=sys.stderr)
    return 3 if gone else 0


def cmd_run(args: argparse.Namespace) -> int:
    from citerag.build.corpus import fetch_corpus
    from citerag.experiments.notebooks import run_notebooks
    from citerag.experiments.runs import SUMMARY, new_run_name, run_dir

    path, params = _params(args)
    fetch_corpus(params, log=_fetch_problems, strict=False)
    name = args.run_name or new_run_name(path, params)
    out = run_dir(params, name)
    overrides = dict(parse_override(s) for s in (args.set or []))
    done = run_notebooks(params, path, out, overrides)
    print(f"\nrun {name}: {len(done)} notebook(s) executed")
    for nb in done:
        print(f"  notebook: {nb}")
    print(f"  summary:  {out / SUMMARY}")
    from citerag.build.pipeline import open_stages

    return _partial_status(open_stages(params)["ingest"])


def _serving_store(params, args: argparse.Namespace):
    """The built store for serving commands; a partial index says on stderr what it lacks."""
    from citerag.build.pipeline import left_out
    from citerag.retrieval.store import load_store

    store = load_store(params, args.params or DEFAULT_PARAMS)
    gone = left_out(store.stages["ingest"])
    if gone:
        print(f"citerag: note: partial index, {len(gone)} document(s) left out: "
              + ", ".join(f"{r['file']} ({r['reason']})" for r in gone), file=sys.stderr)
    return store


def cmd_retrieve(args: argparse.Namespace) -> int:
    """Batch contract: one output line per input line, in order (see README)."""
    from citerag.core.batch import read_jsonl_records, write_jsonl_atomic
    from citerag.retrieval.retriever import Retriever

    records = read_jsonl_records(args.questions, {"qid": object, "question": str}, unique="qid")
    _, params = _params(args)
    store = _serving_store(params, args)
    retriever = Retriever(store, params.retrieve)

    def rows():
        for rec in records:
            res = retriever.search(rec["question"], k=args.k)
            yield {"qid": rec["qid"], "hits": [h.contract() for h in res.hits]}

    n = write_jsonl_atomic(args.out, rows())
    print(f"retrieve: {n} question(s) → {args.out}", file=sys.stderr)
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    """`ask "question"` prints a readable answer; `ask --questions Q --out O` is the batch contract."""
    from citerag.agent.workflow import Agent
    from citerag.core.batch import read_jsonl_records, write_jsonl_atomic
    from citerag.core.paths import resolve

    if bool(args.question) == bool(args.questions):
        raise UsageError("ask: give either a question or --questions FILE (with --out FILE)")
    if args.questions and not args.out:
        raise UsageError("ask: --questions needs --out")
    records = (read_jsonl_records(args.questions, {"qid": object, "question": str}, unique="qid")
               if args.questions else None)
    _, params = _params(args)
    agent = Agent(_serving_store(params, args), params)
    trace_dir = resolve(params.agent.trace_dir) / run_stamp()
    if records is None:
        result = agent.run(args.question)
        path = result.write_trace(trace_dir / "question.json")
        print(_readable(result, path))
        return 0

    def rows():
        for i, rec in enumerate(records, start=1):
            result = agent.run(rec["question"])
            name = re.sub(r"[^\w.-]", "_", str(rec["qid"]))[:80] or f"line{i}"
            path = result.write_trace(trace_dir / f"{i:05d}-{name}.json")
            yield result.contract(rec["qid"], str(path))

    n = write_jsonl_atomic(args.out, rows())
    print(f"ask: {n} question(s) → {args.out} (traces in {trace_dir})", file=sys.stderr)
    return 0


def _readable(result, trace_path) -> str:
    lines = [result.answer.answer, ""]
    if result.answer.refused:
        lines.append(f"refused: {result.refusal_reason}  (stop: {result.stop_reason})")
        lines += [f"  note: {n}" for n in result.answer.notes]
    else:
        lines.append("sources:")
        lines += [f"  [{c['key']}] {c['doc_id']} p.{c['start_page']}" + (f"-{c['end_page']}" if c['end_page'] !=
                  c['start_page'] else "") + f"  ({c['chunk_id']})" for c in result.answer.citations]
    lines.append(f"route: {result.route} · path: {' → '.join(result.trajectory)} · trace: {trace_path}")
    return "\n".join(lines)


def cmd_chat(args: argparse.Namespace) -> int:
    """Interactive chat, or `--conversations C --out O`: one output line per turn (see README)."""

    from citerag.conversation.engine import ChatEngine
    from citerag.core.batch import conversation_problem, read_jsonl_records, write_jsonl_atomic
    from citerag.core.paths import resolve

    if bool(args.conversations) != bool(args.out):
        raise UsageError("chat: --conversations and --out go together")
    records = (read_jsonl_records(args.conversations, {"cid": object, "turns": list}, conversation_problem,
                                  unique="cid")
               if args.conversations else None)
    if args.mode:
        args.set = [*(args.set or []), f"agent.conversational={str(args.mode == 'conversational').lower()}"]
    _, params = _params(args)
    engine = ChatEngine(_serving_store(params, args), params)
    run = run_stamp()  # every batch conversation starts on a fresh thread, traces in a fresh folder
    trace_dir = resolve(params.agent.trace_dir) / f"chat-{run}"
    if records is None:
        return _interactive(engine, args.thread or f"t-{run}", trace_dir)

    def rows():
        for i, rec in enumerate(records, start=1):
            thread = f"{rec['cid']}:{run}"
            for n, t in enumerate(rec["turns"], start=1):
                r = engine.turn(thread, t["user"])
                name = re.sub(r"[^\w.-]", "_", str(rec["cid"]))[:80]
                r.write_trace(trace_dir / f"{i:05d}-{name}-{n:03d}.json")
                yield r.contract(rec["cid"], n)

    n = write_jsonl_atomic(args.out, rows())
    print(f"chat: {n} turn(s) from {len(records)} conversation(s) → {args.out} (traces in {trace_dir})",
          file=sys.stderr)
    return 0


def _interactive(engine, thread: str, trace_dir: Path) -> int:
    mode = "conversational" if engine.conversational else "simple (no memory; --mode conversational for it)"
    print(f"citerag chat · thread {thread} · mode {mode} · an empty line or Ctrl-D ends")
    pending = engine.pending(thread)
    if pending:
        print(f"(this thread is waiting for an answer) {pending.question}")
        print("\n".join(f"  {i}. {o}" for i, o in enumerate(pending.options, 1)))
    n = 0
    while True:
        try:
            text = input("you> ").strip()
        except EOFError:
            break
        if not text:
            break
        pending = engine.pending(thread)
        if pending and text.isdigit() and 1 <= int(text) <= len(pending.options):
            text = pending.options[int(text) - 1]  # a numbered option picked
        r = engine.turn(thread, text)
        n += 1
        safe = re.sub(r"[^\w.-]", "_", thread)
        path = r.write_trace(trace_dir / f"{safe}-{n:03d}.json")
        print(_readable_turn(r, path))
    print(f"thread {thread}: continue it with `citerag chat --thread {thread}`")
    return 0


def _readable_turn(r, trace_path) -> str:
    lines = [f"citerag> {r.answer}"]
    if r.clarification:
        lines += [f"  {i}. {o}" for i, o in enumerate(r.clarification["options"], 1)]
        lines.append("  (answer in your own words or with an option number)")
    elif r.refused:
        lines.append(f"  refused: {r.refusal_reason}")
    else:
        lines += [f"  [{c['key']}] {c['doc_id']} p.{c['start_page']}" + (f"-{c['end_page']}" if c["end_page"] !=
                  c["start_page"] else "") + f"  ({c['chunk_id']})" for c in r.citations]
    if r.caveat:
        lines.append(f"  caveat: {r.caveat}")
    rewritten = f" · asked as: {r.rewritten_query}" if r.rewritten_query and r.rewritten_query != r.user else ""
    lines.append(f"  route: {r.route}{rewritten} · path: {' → '.join(r.trajectory)} · trace: {trace_path}")
    return "\n".join(lines)


def cmd_ablate(args: argparse.Namespace) -> int:
    """Every variant of an ablation spec through papermill, then the comparison report."""
    from citerag.build.corpus import fetch_corpus
    from citerag.core.params import load_params
    from citerag.core.paths import resolve
    from citerag.experiments.ablate import load_ablation, run_ablation

    if args.jobs < 1:
        raise UsageError("ablate: --jobs must be at least 1")
    base = str(user_path(args.params)) if args.params else None
    fetch_corpus(load_params(resolve(base or load_ablation(args.spec).spec.base)), log=lambda _m: None)
    out = Path(args.out).resolve() if args.out else None
    res = run_ablation(args.spec, jobs=args.jobs, force=args.force, report=not args.no_report, out_root=out,
                       base=base)
    print(f"ablate: {len(res.ran)} ran, {len(res.skipped)} already done, {len(res.failed)} failed → {res.out}")
    for name, secs in res.seconds.items():
        state = "FAILED " + res.failed[name] if name in res.failed else "ok"
        print(f"  {name:40s} {secs:8.1f}s  {state}")
    for kind, path in res.report.items():
        print(f"  report.{kind}: {path}")
    return 1 if res.failed else 0


def cmd_eval(args: argparse.Namespace) -> int:
    """06's measurements of one params set, printed as one JSON line of headline figures
    (e.g. a blind set: --set eval.questions=data/nist-pqc/blind/questions.jsonl)."""
    from citerag.experiments.eval_run import evaluate_params

    path, params = _params(args)
    rep = evaluate_params(params.with_overrides({"eval.also": []}), conversations=not args.no_conversations)
    if args.run_dir:
        from citerag.experiments.runs import start_run

        start_run(Path(args.run_dir), params, path, dict(parse_override(s) for s in (args.set or [])))
        rep.write(args.run_dir)
    h, a, c = rep.hybrid(), rep.answers, rep.conversation
    out = {"corpus": rep.corpus, "questions": a.get("questions"), "R@8": h.get("recall@8"), "MRR@8": h.get("mrr@8"),
           **{k: a.get(k) for k in ("must_contain", "unanswerable_refused", "answerable_refused",
                                    "supported_cited_sentences", "citation_precision", "latency_p95_ms")},
           **{f"conversation.{k}": v for k, v in c.items()}}
    print(json.dumps(out))
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    """Per question, what changed between two runs (most impact first); `--out` also as JSONL."""
    from citerag.core.batch import write_jsonl_atomic
    from citerag.experiments.diff import DiffError, diff_rows, load_rows
    from citerag.experiments.stats import METRICS, paired

    try:
        rows_a, rows_b = load_rows(args.run_a), load_rows(args.run_b)
    except DiffError as exc:
        raise UsageError(str(exc)) from None
    changed = diff_rows(rows_a, rows_b)
    print(f"{len(changed)} of {len({(r.get('corpus'), r['qid']) for r in rows_a + rows_b})} question(s) changed "
          f"(A = {args.run_a}, B = {args.run_b})")
    for m in METRICS:
        t = paired(rows_a, rows_b, m)
        if t.n:
            print(f"  {m:30s} n={t.n:<4d} B−A {t.label()}")
    for r in changed[: args.limit]:
        where = f"{r['corpus']}:{r['qid']}" if r["corpus"] else r["qid"]
        print(f"  [{r['impact']:5.2f}] {where}  {'; '.join(r['changes'])}")
    if len(changed) > args.limit:
        print(f"  … {len(changed) - args.limit} more (--limit, or --out for all)")
    if args.out:
        write_jsonl_atomic(args.out, changed)
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Fit the answer/refuse model on the dev sets of the params' corpus and its eval.also corpora."""
    from citerag.core.params import parse_override
    from citerag.experiments.calibrate import calibrate

    _, params = _params(args)
    overrides = dict(parse_override(o) for o in (args.set or []))
    calibrate(params, args.out, args.max_answerable_refused, overrides=overrides)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from citerag.experiments import bench

    _, params = _params(args)
    if args.what == "index":
        bench.bench_index(params, args.naive)
    elif args.what == "retrieve":
        bench.bench_retrieve(params)
    elif args.what == "answer":
        bench.bench_answer(params)
    elif args.what == "scale":
        bench.bench_scale(params, plot=args.plot)
    elif args.what == "ablate":
        bench.bench_ablate(params, args.spec or "params/ablations/rrf_k0.yaml")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="citerag", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def with_params(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument("--params", default=None,
                       help=f"params YAML, relative to the current directory (default: {DEFAULT_PARAMS} in the repo)")
        p.add_argument("--set", action="append", metavar="KEY=VALUE",
                       help="override a param by dotted path, e.g. chunk.target_chars=800")
        return p

    corpus = sub.add_parser("corpus", help="corpus management")
    csub = corpus.add_subparsers(dest="corpus_command", required=True)
    p = csub.add_parser("init", help="scan a folder of PDFs: write data/NAME/ (manifest, profile) and a params file")
    p.add_argument("dir", help="folder holding the PDFs")
    p.add_argument("--name", required=True, help="corpus name (folder under data/, outputs/)")
    p.add_argument("--params-out", help="params file to write (default: params/NAME.yaml)")
    p.add_argument("--force", action="store_true",
                   help="replace a manifest made from another folder or a params file init did not write")
    p.set_defaults(func=cmd_corpus_init)
    with_params(csub.add_parser("fetch", help="copy from the mirror or download, verify sha256"))\
        .set_defaults(func=cmd_corpus_fetch)

    p = with_params(sub.add_parser("index", help="ingest, chunk and index (no notebooks)"))
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_index)

    p = with_params(sub.add_parser("run", help="the main job: execute the notebooks into a run"))
    p.add_argument("--run-name", help="folder name under paths.runs (default: generated)")
    p.set_defaults(func=cmd_run)

    p = with_params(sub.add_parser("retrieve", help="batch retrieval: questions JSONL → hits JSONL"))
    p.add_argument("--questions", required=True, help="JSON lines with at least qid and question")
    p.add_argument("--out", required=True, help="output JSON lines: {qid, hits: [...]}")
    p.add_argument("--k", type=_positive_int, default=None, help="hits per question (default: retrieve.k)")
    p.set_defaults(func=cmd_retrieve)

    p = with_params(sub.add_parser("ask", help="cited answers: one question, or a JSONL batch"))
    p.add_argument("question", nargs="?", help="a question to answer (readable output)")
    p.add_argument("--questions", help="JSON lines with at least qid and question")
    p.add_argument("--out", help="output JSON lines (batch contract)")
    p.set_defaults(func=cmd_ask)

    p = with_params(sub.add_parser("chat", help="multi-turn chat: interactive, or a conversations JSONL batch"))
    p.add_argument("--conversations", help='JSON lines {"cid": ..., "turns": [{"user": ...}, ...]}')
    p.add_argument("--out", help="output JSON lines, one per turn (batch contract)")
    p.add_argument("--thread", help="interactive: the thread id to continue (default: a new thread)")
    p.add_argument("--mode", choices=["simple", "conversational"],
                   help="overrides agent.conversational (default: what the params say)")
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("ablate", help="run an ablation grid through papermill and render its report")
    p.add_argument("spec", help="params/ablations/NAME.yaml")
    p.add_argument("--jobs", type=int, default=1, help="variants executed in parallel (default 1)")
    p.add_argument("--force", action="store_true", help="re-run variants that already completed")
    p.add_argument("--no-report", action="store_true", help="skip 07_compare_runs")
    p.add_argument("--out", help="ablation folder (default: <paths.ablations>/<spec name>)")
    p.add_argument("--params", help="base params file (default: the spec's `base`), e.g. another corpus's")
    p.set_defaults(func=cmd_ablate)

    p = with_params(sub.add_parser("eval", help="measure one params set (06's engine): one JSON line of figures"))
    p.add_argument("--no-conversations", action="store_true", help="skip the conversation set")
    p.add_argument("--run-dir", help="also write summary.json (with intervals) and per_question.jsonl here")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("diff", help="which questions changed between two runs (per_question.jsonl)")
    p.add_argument("run_a", help="run folder (or its per_question.jsonl): the base")
    p.add_argument("run_b", help="run folder (or its per_question.jsonl): the other")
    p.add_argument("--out", help="write every changed question as JSONL here")
    p.add_argument("--limit", type=_positive_int, default=30, help="rows to print (default %(default)s)")
    p.set_defaults(func=cmd_diff)

    p = with_params(sub.add_parser("calibrate", help="fit the answer/refuse model on the dev sets (+ eval.also)"))
    p.add_argument("--out", default="data/abstain", help="folder for model.json, curve.csv (default: %(default)s)")
    p.add_argument("--max-answerable-refused", type=float, default=0.08,
                   help="operating point: refuse at most this share of answerables (cross-validated)")
    p.set_defaults(func=cmd_calibrate)
    p = with_params(sub.add_parser("bench", help="benchmarks that print measured figures"))
    p.add_argument("what", choices=["index", "retrieve", "answer", "ablate", "scale"])
    p.add_argument("--spec", help="bench ablate: the sweep to time (default params/ablations/rrf_k0.yaml)")
    p.add_argument("--naive", help="bench index: the naive yardstick script (default ../shared/bench/naive_index.py)")
    p.add_argument("--plot", help="bench scale: write the curves to this PNG")
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    from citerag.build.corpus import CorpusError
    from citerag.build.index.embed import EmbedError
    from citerag.build.pipeline import NotBuiltError
    from citerag.build.profile import ProfileError
    from citerag.core.batch import BatchInputError
    from citerag.experiments.evalset import EvalSetError

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ParamsError, CorpusError, EmbedError, UsageError, BatchInputError, NotBuiltError, ProfileError,
            EvalSetError) as exc:
        msg = str(exc).replace("\n", "; ")
        print(f"citerag: error: {msg}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"citerag: error: {exc.filename or exc}: file not found", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        kept = getattr(exc, "kept", None)
        print("citerag: interrupted" + (f"; {kept}" if kept else ""), file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
