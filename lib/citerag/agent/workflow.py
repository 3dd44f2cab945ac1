"""The bounded iterative controller as a llama-index Workflow (one step per node).

    route → retrieve → assess_evidence → (answer | refine_query → retrieve)* → verify_or_refuse

Steps run strictly one after another (each emits exactly one event), so a
run is deterministic. The per-question state lives in the run's Context, so
several runs of one workflow (e.g. concurrent chat threads) never share it.
`gather_only` runs stop after the evidence assessment: conversation mode
grades that evidence before it lets `compose_answer`/`finish` run.
Budgets are checked only in `policies.budget_exhausted`;
when evidence is insufficient and a budget is exhausted, `answer` is skipped
and the run refuses with `budget_exhausted`. `stop_reason` says why the loop
stopped; `refusal_reason` why verification refused — separate fields.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

# llama-index's workflow engine (the llama-index-workflows package that llama_index.core.workflow
# re-exports), imported directly: llama_index.core's own import costs ~2 s per process.
from workflows import Context, Workflow, step
from workflows.events import Event, StartEvent, StopEvent

from citerag.agent import policies
from citerag.agent.graph import build_graph, traverse
from citerag.answer.answerer import Answer, answer_from_evidence, refusal
from citerag.answer.asked import (
    asked_part_kind,
    asked_subsections,
    asked_title,
    asks_byline,
    below_entry,
    best_form_score,
    contents_entries,
    date_line,
    entry_forms,
    entry_of_kind,
    front_asked,
    front_phrase,
    joins_things,
    label_scored,
    leading_scope,
    listed_marks,
    opens_with_label,
    reads_contents,
    reference_marks,
    split_parts,
    subsection_of,
    title_ranks,
)
from citerag.answer.evidence import Evidence, select_evidence
from citerag.answer.units import FRONT_PAGES
from citerag.core.artifacts import write_text_atomic
from citerag.core.asyncrun import run_sync
from citerag.core.params import Params
from citerag.core.types import Location
from citerag.retrieval.query import QueryAnalysis, analyse
from citerag.retrieval.retriever import Hit, Retriever
from citerag.retrieval.store import IndexStore
from citerag.text.patterns import names_place
from citerag.text.terms import Scorer


@dataclass
class AgentState:
    question: str
    qa: QueryAnalysis
    route: policies.Route | None = None
    counters: policies.Counters = field(default_factory=policies.Counters)
    hits: list[Hit] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    assessment: policies.Assessment | None = None
    traversal: dict | None = None
    answer: Answer | None = None
    stop_reason: str | None = None
    refusal_reason: str | None = None
    trace: list[dict] = field(default_factory=list)
    gather_only: bool = False
    pending: str | None = None  # gather_only: "answer" or "refuse" (what the controller decided)
    context: str | None = None  # conversation: the previous standalone question, fused into retrieval
    part_scorers: list[Scorer] | None = None  # per part of a multi-part question, built on first assessment

    def event(self, node: str, **data: Any) -> None:
        self.counters.steps += 1
        self.trace.append({"step": self.counters.steps, "node": node, **data})

    def ordered_hits(self) -> list[Hit]:
        """Retrieved hits first (in the order found), then the contents lists looked up for a page
        question, graph findings last."""
        return ([h for h in self.hits if "graph" not in h.ranks and "contents" not in h.ranks]
                + [h for h in self.hits if "contents" in h.ranks] + [h for h in self.hits if "graph" in h.ranks])

    @cached_property
    def parts(self) -> list[str]:
        """The question's sub-questions, split once: each is retrieved for and each judges the
        evidence (a single-part question is its own only part)."""
        return split_parts(self.question)

    @property
    def trajectory(self) -> list[str]:
        return [e["node"] for e in self.trace]


class RetrieveEvent(Event):
    queries: list[tuple[str, str | None]]


class AssessEvent(Event):
    pass


class RefineEvent(Event):
    reason: str


class AnswerEvent(Event):
    pass


class VerifyEvent(Event):
    skipped_answer: bool = False


class AgentWorkflow(Workflow):
    """Holds the store, retriever and graph; the per-question state travels in the events' context."""

    def __init__(self, store: IndexStore, params: Params, **kwargs: Any) -> None:
        super().__init__(timeout=kwargs.pop("timeout", 120), **kwargs)
        self.store, self.params = store, params
        self.retriever = Retriever(store, params.retrieve)
        self.idf = dict(store.bm25._bm25.idf)
        self.vocab = set(self.idf)
        self.common_words = store.ordinary
        self.graph = _graph(store) if params.agent.graph.expand else None
        self.abstain = None
        if params.answer.abstain.model:
            from citerag.answer.abstain import load_model
            from citerag.core.paths import resolve

            self.abstain = load_model(resolve(params.answer.abstain.model))
        self.llm = None
        if params.answer.backend == "openai":
            from citerag.answer.llm import OpenAIDrafter

            self.llm = OpenAIDrafter(params.answer.openai, store.knowledge.profile.domain_phrase)

    # -- nodes ----------------------------------------------------------------------------

    @step
    async def route(self, ctx: Context, ev: StartEvent) -> RetrieveEvent:
        st: AgentState = ev.state
        await ctx.store.set("st", st)
        rt = policies.route(st.question, st.qa)
        st.route = rt
        st.event("route", route=rt.name, topics=list(rt.topics), attribute=rt.attribute, note=rt.note,
                 mode=st.qa.mode)
        if rt.name == "compare":
            return RetrieveEvent(queries=[(f"{t} {rt.attribute}".strip(), None) for t in rt.topics])
        mode = "definition" if rt.name == "resolve_definition" else None
        queries = [(st.question, mode)]
        if len(st.parts) > 1:  # a multi-part question retrieves for each part (balanced quotas)
            scope = leading_scope(st.question)  # "In the first example, …": every part is asked there
            queries = [(q if i == 0 or not scope else f"{scope}, {q}", None)
                       for i, q in enumerate(st.parts[: self.params.agent.max_tool_calls])]
        if st.context:  # a follow-up also retrieves as "previous question + follow-up" (RRF-interleaved)
            queries.append((f"{st.context} {st.question}", None))
        return RetrieveEvent(queries=queries)

    @step
    async def retrieve(self, ctx: Context, ev: RetrieveEvent) -> AssessEvent:
        st, p = await ctx.store.get("st"), self.params
        st.counters.rounds += 1
        k = p.retrieve.k
        quota = max(1, k // len(ev.queries))  # balanced quotas across compare branches
        branches = []
        for q, mode in ev.queries:
            st.counters.tool_calls += 1
            st.queries.append(q)
            res = self.retriever.search(q, k=quota if len(ev.queries) > 1 else k, mode_hint=mode)
            branches.append(res.hits)
        merged = _interleave(branches)
        known = {h.chunk_id for h in st.hits}
        st.hits += [h for h in merged if h.chunk_id not in known]
        added = []
        if self.graph is not None and merged:
            added = self._expand(st, merged)
        listed = self._contents(st) if st.counters.rounds == 1 else []
        fronted = (self._front(st) + self._titled(st) + self._referenced(st)) if st.counters.rounds == 1 else []
        st.event("retrieve", round=st.counters.rounds, queries=[q for q, _ in ev.queries],
                 hits=[h.chunk_id for h in merged], graph_added=added, contents_added=listed,
                 front_added=fronted, tool_calls=st.counters.tool_calls)
        return AssessEvent()

    @step
    async def assess_evidence(
        self, ctx: Context, ev: AssessEvent
    ) -> AnswerEvent | RefineEvent | VerifyEvent | StopEvent:
        st, p = await ctx.store.get("st"), self.params.agent
        score = Scorer(st.qa, self.idf)
        chunks = [self.store.by_id[h.chunk_id] for h in st.hits]
        texts = [(c.doc_id, c.text) for c in chunks]
        # a chunk of a document the question names by name ("… in Widgetry") holds that name
        implied: dict[str, str] = {}
        for mention, doc in self.store.knowledge.doc_mentions(st.qa.text):
            if not names_place(mention):
                implied[doc] = f"{implied.get(doc, '')} {mention}"
        # A multi-part question is answered part by part, so a hit that answers one part well is
        # relevant: scored against the whole question it holds only that part's share of the terms.
        scorers = [score, *self._part_scorers(st)]
        # ... and a chunk holds its section's title ("according to the abstract of …")
        held = [f"{implied.get(c.doc_id, '')} {' '.join(c.heading_path[-1:])} {c.text}" for c in chunks]
        # (a title page looked up for a question asking its document's title, date or authors holds
        # them in words of its own, as a contents list holds a part's sections: relevant by the lookup)
        a = policies.assess(st.qa, st.route, texts, [1.0 if "looked_up" in h.ranks else max(s(t) for s in scorers)
                                                     for h, t in zip(st.hits, held, strict=True)], p, self.vocab)
        st.assessment = a
        if a.reason is None:
            st.stop_reason = "evidence_sufficient"
            st.event("assess_evidence", **a.to_dict(), decision="answer")
            return self._decided(st, "answer")
        needed = len(policies.refine(st.qa, st.route, a, self.vocab))
        exhausted = policies.budget_exhausted(st.counters, p, needed)
        if exhausted is None:
            st.event("assess_evidence", **a.to_dict(), decision="refine")
            return RefineEvent(reason=a.reason)
        st.stop_reason = exhausted
        if a.reason == "insufficient_hits" and p.thin_evidence == "hits":
            st.event("assess_evidence", **a.to_dict(), decision="refuse", budget=exhausted)
            return self._decided(st, "refuse")
        # hits suffice but an anchor/diversity check failed: answer from what there is
        st.event("assess_evidence", **a.to_dict(), decision="answer", budget=exhausted)
        return self._decided(st, "answer")

    @step
    async def refine_query(self, ctx: Context, ev: RefineEvent) -> RetrieveEvent:
        st = await ctx.store.get("st")
        queries = policies.refine(st.qa, st.route, st.assessment, self.vocab)
        st.event("refine_query", reason=ev.reason, queries=[q for q, _ in queries])
        return RetrieveEvent(queries=queries)

    @step
    async def answer(self, ctx: Context, ev: AnswerEvent) -> VerifyEvent:
        self.compose_answer(await ctx.store.get("st"))
        return VerifyEvent()

    @step
    async def verify_or_refuse(self, ctx: Context, ev: VerifyEvent) -> StopEvent:
        st = await ctx.store.get("st")
        self.finish(st, skipped_answer=ev.skipped_answer)
        return StopEvent(result=st)

    # -- node bodies shared with conversation mode ------------------------------------------

    def _part_scorers(self, st: AgentState) -> list[Scorer]:
        """One term scorer per part of a multi-part question, built once per question (the
        evidence check runs every round)."""
        if st.part_scorers is None:
            st.part_scorers = [Scorer(analyse(q, self.store.knowledge), self.idf)
                               for q in st.parts] if len(st.parts) > 1 else []
        return st.part_scorers

    def compose_answer(self, st: AgentState, evidence: list[Evidence] | None = None, node: str = "answer") -> None:
        """Draft and verify an answer from the state's hits (or from the given evidence)."""
        p = self.params
        if evidence is None:
            evidence = select_evidence(st.ordered_hits(), self.store, p.answer)
        rt = st.route
        st.answer = answer_from_evidence(st.qa, evidence, p.answer, self.idf, self.vocab, llm=self.llm,
                                         common_words=self.common_words,
                                         topics=rt.topics if rt and rt.name == "compare" else (),
                                         attribute=rt.attribute if rt else "", model=self.abstain)
        st.event(node, backend=st.answer.backend, evidence=[e.chunk_id for e in evidence],
                 draft_refused=st.answer.refused, notes=st.answer.notes, decision=st.answer.decision,
                 conflicts=st.answer.conflicts)

    def finish(self, st: AgentState, skipped_answer: bool = False, node: str = "verify_or_refuse") -> None:
        """Final verification record; a skipped answer becomes the `budget_exhausted` refusal."""
        if skipped_answer:
            st.answer = refusal(st.question, "budget_exhausted", self.params.answer.backend,
                                [f"stopped by {st.stop_reason} with insufficient evidence"])
        st.refusal_reason = st.answer.refusal_reason
        st.event(node, refused=st.answer.refused, refusal_reason=st.refusal_reason,
                 sentences=[{"text": s.text, "support": s.support, "supported": s.supported}
                            for s in st.answer.sentences])

    # -- helpers ----------------------------------------------------------------------------


    def _decided(self, st: AgentState, decision: str) -> AnswerEvent | VerifyEvent | StopEvent:
        if st.gather_only:
            st.pending = decision
            return StopEvent(result=st)
        return AnswerEvent() if decision == "answer" else VerifyEvent(skipped_answer=True)

    def _contents(self, st: AgentState) -> list[str]:
        """For a question asking on which page something is (or which section covers it), the
        contents lists (or indexes) of the documents it names (of any, when it names none) whose
        best entry holds enough of its terms. Retrieval seldom finds them: their lines are short,
        and the layout often breaks a title's words across cells ("Overvi | ew of Widgets | 1")."""
        n = self.params.agent.contents_chunks
        if not n or not reads_contents(st.qa.text):
            return []
        docs = {doc for _, doc in self.store.knowledge.doc_mentions(st.qa.text)}
        lists = {cid: entries for cid, entries in _contents_lists(self.store).items()
                 if not docs or self.store.by_id[cid].doc_id in docs}
        parent = asked_subsections(st.qa.text)
        if parent:
            # "which sections does section 2.4 have?": the lists holding its sections' entries (a
            # list chunk may end among them, so two)
            held = sorted(((sum(subsection_of(parent, e) for e in entries), cid) for cid, entries in lists.items()),
                          key=lambda x: (-x[0], x[1]))
            return self._looked_up(st, [(1.0, cid) for n, cid in held[:2] if n], relevant=True)
        score = Scorer(st.qa, self.idf)
        # (scored by its entries of the asked level: a chapter's, when the question asks for one)
        kind = asked_part_kind(st.qa.text)
        ranked = _ranked_lists(label_scored(score, st.qa.anchors), kind, lists, bool(_STARTS.search(st.qa.text)))
        # (an entry never holds the question's frame, "on which page does … start", so its share
        # of the terms stays low: the best lists are taken, unless their entries share next to nothing)
        found = [(s, cid) for s, cid in ranked[:n] if s >= _CONTENTS_MIN_SHARE]
        if found and joins_things(st.qa.text):
            # "on which pages are X and Y?": Y's entry may stand in another list (an index of
            # commands beside the general one, the next page's chunk); the list best holding what
            # the first one's best entry leaves is read too
            first = lists[found[0][1]]
            best = max((e for e in first if entry_of_kind(kind, e)), key=lambda e: best_form_score(score, e))
            rest = score.without(score.held(" ".join(entry_forms(best))))
            others = {cid: entries for cid, entries in lists.items() if cid not in {c for _, c in found}}
            found += [(s, cid) for s, cid in _ranked_lists(rest, kind, others)[:1] if s >= _CONTENTS_MIN_SHARE]
        # (a list holding the entry of the section the question names by number is what it asks
        # for, whatever share of its words the entry holds: "on which page does section 9 begin?")
        labelled = bool(found) and any(opens_with_label(st.qa.anchors, e) for e in lists[found[0][1]])
        return self._looked_up(st, found, relevant=labelled)

    def _looked_up(self, st: AgentState, found: list[tuple[float, str]], relevant: bool = False) -> list[str]:
        """The contents lists found move to the contents slots, which the evidence budget keeps
        (one retrieval found too is moved there); `relevant`: by the lookup (see `assess_evidence`)."""
        moved = {cid for _, cid in found}
        st.hits = [h for h in st.hits if h.chunk_id not in moved]
        ranks = {"contents": 1, "looked_up": 1} if relevant else {"contents": 1}
        st.hits += [Hit(0, Location.of(self.store.by_id[cid]), s, dict(ranks), {}) for s, cid in found]
        return [cid for _, cid in found]

    def _front(self, st: AgentState) -> list[str]:
        """For a question asking who wrote a document it names, or its title or date, that
        document's title pages: retrieval ranks them low (their lines are names and dates, not the
        question's words). They take the slots the evidence budget keeps for looked-up chunks, as
        contents lists do."""
        docs = set(st.qa.docs)
        # (the question's form first: the store's chunks are scanned only for such a question)
        if not docs or not (front_phrase(st.qa.text)[0] or asks_byline(st.qa.text, st.qa.doc_mentions)):
            return []
        found = [c.chunk_id for c in self.store.chunks if c.doc_id in docs and c.start_page <= FRONT_PAGES]
        found = found[:_FRONT_CHUNKS]
        kind = front_asked(st.qa.text, st.qa.doc_mentions, " ".join(self.store.by_id[cid].text for cid in found))
        if not (kind or asks_byline(st.qa.text, st.qa.doc_mentions)):
            return []
        if kind == "date":  # (the evidence budget may keep two of them: the ones giving a date first)
            found.sort(key=lambda cid: not any(date_line(ln.strip()) for ln in self.store.by_id[cid].text.split("\n")))
        st.hits = [h for h in st.hits if h.chunk_id not in found]
        st.hits += [Hit(0, Location.of(self.store.by_id[cid]), 0.0, {"contents": 1, "looked_up": 1}, {})
                    for cid in found]
        return found

    def _titled(self, st: AgentState) -> list[str]:
        """For a question asking the title of a numbered part ("What is Table 5 of X called?"),
        the first chunk of the documents it names (any, when it names none) that heads the part or
        gives its caption: retrieval finds passages that mention the part ("see Table 5") as
        readily, and they say nothing of its title. It takes a looked-up slot, as a title page does."""
        part = asked_title(st.qa.text)
        if not part:
            return []
        docs = set(st.qa.docs)
        # the first chunk giving the part's title best for citing (`title_ranks`: its heading or
        # caption, then a contents entry, each as a title its text supports first)
        threshold = self.params.answer.support_threshold
        best = min(((rank, c.chunk_id) for c in self.store.chunks if not docs or c.doc_id in docs
                    for rank, _ in title_ranks(part, " > ".join(c.heading_path), c.text, threshold)),
                   key=lambda x: x[0], default=None)
        if best is None:
            return []
        found = best[1]
        st.hits = [h for h in st.hits if h.chunk_id != found]
        st.hits.append(Hit(0, Location.of(self.store.by_id[found]), 0.0, {"contents": 1, "looked_up": 1}, {}))
        return [found]

    def _referenced(self, st: AgentState) -> list[str]:
        """For a question naming a reference of a document by its mark ("which paper does X cite
        as reference [25]?"), the chunk of that document holding the entry for the mark: the entry
        shares few words with the question (names, a title, a year), and retrieval finds the
        passages citing the work, or the entries beside it, as readily. It takes a looked-up slot."""
        marks = reference_marks(st.qa.text) if st.qa.docs else ()
        if not marks:
            return []
        entries = _reference_entries(self.store)
        # (of several named documents listing the mark, the first in the store's order)
        found = [min((entries[(d, m)] for d in st.qa.docs if (d, m) in entries), key=self.store.position.get,
                     default=None) for m in marks]
        return self._looked_up(st, [(0.0, cid) for cid in dict.fromkeys(f for f in found if f)], relevant=True)

    def _expand(self, st: AgentState, hits: list[Hit]) -> list[str]:
        g = self.params.agent.graph
        score = Scorer(st.qa, self.idf)
        seeds = [(h.chunk_id, h.score) for h in hits[: g.seeds]]
        tr = traverse(self.graph, seeds, lambda cid: score(self.store.by_id[cid].text), g.max_depth,
                      g.confidence_threshold, g.min_sources, g.min_score)
        st.traversal = tr.to_dict()
        known = {h.chunk_id for h in st.hits}
        found = sorted((f for f in tr.findings if f.edge != "seed" and f.score >= g.min_score
                        and f.chunk_id not in known), key=lambda f: (-f.score, f.chunk_id))[: g.max_added]
        for f in found:
            c = self.store.by_id[f.chunk_id]
            st.hits.append(Hit(0, Location.of(c), f.score,
                               {"graph": f.depth}, {"via": 0.0}))
        return [f.chunk_id for f in found]


def _interleave(branches: list[list[Hit]]) -> list[Hit]:
    out, seen = [], set()
    for i in range(max((len(b) for b in branches), default=0)):
        for b in branches:
            if i < len(b) and b[i].chunk_id not in seen:
                seen.add(b[i].chunk_id)
                out.append(b[i])
    return out


_FRONT_CHUNKS = 3  # a title page and the page after it, one chunk or two each
_CONTENTS_MIN_SHARE = 0.1  # a contents entry sharing less of the question's terms names something else
_STARTS = re.compile(r"\b(?:start|begin)s?\b", re.I)


def _ranked_lists(score: Callable[[str], float], kind: str, lists: dict[str, list[str]],
                  starts: bool = False) -> list[tuple[float, str]]:
    """Contents lists by their best entry of the asked kind, best first; an entry read with the
    titles of the entries it stands below in the list ("8.1 Box plots" under "8 Real-world
    examples"), so that "… box plots among the real-world examples" finds the list holding both."""
    def scored(e: str, under: str) -> float:  # (an entry under no other is scored once)
        return best_form_score(score, e) if under == e else max(best_form_score(score, e),
                                                                 best_form_score(score, under))

    best = {cid: max(((scored(e, under), starts and entry_of_kind("section", e))
                      for e, under in zip(entries, _under_parents(tuple(entries)), strict=True)
                      if entry_of_kind(kind, e)), default=(0.0, False))
            for cid, entries in lists.items()}
    # (where a thing starts is where its part starts: of two lists as good, the one numbering it as
    # a part, not an index listing where it is mentioned)
    return [(s, cid) for (s, _), cid in sorted(((v, cid) for cid, v in best.items()),
                                               key=lambda x: (-x[0][0], -(starts and x[0][1]), x[1]))]


@lru_cache(maxsize=4096)
def _under_parents(entries: tuple[str, ...]) -> tuple[str, ...]:
    """Each entry followed by the entries of the same list it stands below (by its number)."""
    return tuple(" ".join([e, *(a for a in entries if below_entry(a, e))]) for e in entries)


# What an agent derives from its store once, by the store's identity and the thing's name: a
# batch builds many agents over one store.
_PER_STORE: dict[tuple[int, str], Any] = {}


def _per_store(store: IndexStore, name: str, build: Callable[[IndexStore], Any]) -> Any:
    key = (id(store), name)
    if key not in _PER_STORE:
        _PER_STORE[key] = build(store)
    return _PER_STORE[key]


def _contents_lists(store: IndexStore) -> dict[str, list[str]]:
    """The chunks holding a contents list or an index (three entries or more), with their entries."""
    def build(st: IndexStore) -> dict[str, list[str]]:
        found = {c.chunk_id: contents_entries(c.text) for c in st.chunks}
        return {cid: entries for cid, entries in found.items() if len(entries) >= 3}
    return _per_store(store, "contents", build)


def _reference_entries(store: IndexStore) -> dict[tuple[str, str], str]:
    """(doc id, reference mark) → id of the first chunk holding that document's list entry for the
    mark."""
    def build(st: IndexStore) -> dict[tuple[str, str], str]:
        found: dict[tuple[str, str], str] = {}
        for c in st.chunks:
            for m in listed_marks(c.text):
                found.setdefault((c.doc_id, m), c.chunk_id)
        return found
    return _per_store(store, "references", build)


def _graph(store: IndexStore):
    return _per_store(store, "graph", lambda st: build_graph(st.chunks))


# -- running -------------------------------------------------------------------------------

@dataclass
class AgentResult:
    question: str
    answer: Answer
    route: str
    stop_reason: str | None
    refusal_reason: str | None
    trajectory: list[str]
    trace: list[dict]
    seconds: float

    def contract(self, qid: Any, trace_path: str | None) -> dict:
        """The `citerag ask` output line."""
        return {"qid": qid, "answer": self.answer.answer, "refused": self.answer.refused,
                "refusal_reason": self.refusal_reason, "stop_reason": self.stop_reason,
                "citations": self.answer.citations, "route": self.route, "trace": trace_path}

    def write_trace(self, path: Path) -> Path:
        write_text_atomic(path, json.dumps({"question": self.question, "route": self.route,
                                    "stop_reason": self.stop_reason, "refusal_reason": self.refusal_reason,
                                    "answer": self.answer.answer, "citations": self.answer.citations,
                                    "conflicts": self.answer.conflicts,
                                    "trajectory": self.trajectory, "events": self.trace,
                                    "seconds": round(self.seconds, 4)}, indent=2, ensure_ascii=False, default=str))
        return path


class Agent:
    """Runs the workflow for one question at a time (synchronously, also inside Jupyter)."""

    def __init__(self, store: IndexStore, params: Params) -> None:
        self.flow = AgentWorkflow(store, params)
        self.params = params

    @property
    def store(self) -> IndexStore:
        return self.flow.store

    @property
    def idf(self) -> dict[str, float]:
        return self.flow.idf

    def compose(self, st: AgentState, evidence: list[Evidence] | None = None, node: str = "answer") -> None:
        """Draft and verify an answer into `st` from its hits or the given evidence (the public
        entry conversation mode uses after `agather`)."""
        self.flow.compose_answer(st, evidence, node)

    def new_state(self, question: str, mode_hint: str | None = None, gather_only: bool = False) -> AgentState:
        qa = analyse(question, self.flow.store.knowledge, mode_hint, self.params.retrieve.max_variants,
                     acronyms=self.params.retrieve.variants)
        return AgentState(question, qa, gather_only=gather_only)

    async def agather(self, question: str, mode_hint: str | None = None, context: str | None = None) -> AgentState:
        """Route, retrieve, assess and refine — stop before answering (`state.pending` says what next).
        `context` (the previous standalone question) is fused into retrieval as a second query."""
        st = self.new_state(question, mode_hint, gather_only=True)
        st.context = context
        await self.flow.run(state=st)
        return st

    async def arun(self, question: str, mode_hint: str | None = None) -> AgentResult:
        t0 = time.perf_counter()
        st = self.new_state(question, mode_hint)
        await self.flow.run(state=st)
        return AgentResult(question, st.answer, st.route.name if st.route else "retrieve", st.stop_reason,
                           st.refusal_reason, st.trajectory, st.trace, time.perf_counter() - t0)

    def run(self, question: str, mode_hint: str | None = None) -> AgentResult:
        return run_sync(self.arun(question, mode_hint))
