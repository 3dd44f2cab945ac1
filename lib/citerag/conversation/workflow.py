"""Conversation mode as a llama-index Workflow with memory and a real clarification interrupt.

    load_memory → route ─┬─ RETRIEVE ──────────────────────────┐
                         ├─ REWRITE_THEN_RETRIEVE → rewrite ────┤
                         │        retrieve → grade ─(< min_relevant, ≤ max_retries)→ rewrite_retry → retrieve
                         │                     └→ generate → validate ─(fail, ≤ retries)→ generate
                         ├─ DIRECT_ANSWER → direct_answer → validate ─(fail)→ retrieve
                         └─ ASK_CLARIFICATION → clarify ⇢ interrupt … resume_clarification → retrieve
    validate → save_memory

`retrieve` runs the single-turn controller in gather-only mode (route,
retrieve, assess, refine — the same retrieval the simple mode uses), so the
two modes share one retrieval and answer code path. The per-turn state is a
JSON-serialisable dict in the run's Context: at a clarification the Context
is serialised into the thread's memory and restored, possibly in another
process, when the user answers on the same thread.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from workflows import Context, Workflow, step
from workflows.events import Event, HumanResponseEvent, InputRequiredEvent, StartEvent, StopEvent

from citerag.agent.workflow import Agent, AgentState
from citerag.answer.answerer import refusal, stated_by_place
from citerag.answer.asked import answered_by_entries, reads_contents
from citerag.answer.citations import REFUSAL
from citerag.answer.evidence import Evidence, select_evidence
from citerag.answer.extractive import without_entry_frame
from citerag.conversation.decisions import Decider, is_vague
from citerag.conversation.memory import ThreadMemory, TurnRecord
from citerag.core.params import Params
from citerag.text.tokenize import STOPWORDS


class ClarificationRequest(InputRequiredEvent):
    """Emitted when the run needs the user's answer; the runner stops here and persists the context."""

    question: str
    options: list[str]
    turn: dict  # the clarification turn as the runner reports it


class RouteEvent(Event):
    pass


class RewriteEvent(Event):
    pass


class RetrieveEvent(Event):
    query: str


class GradeEvent(Event):
    pass


class RetryEvent(Event):
    pass


class GenerateEvent(Event):
    retry: bool = False


class DirectEvent(Event):
    pass


class ValidateEvent(Event):
    pass


class SaveEvent(Event):
    pass


class ClarifyEvent(Event):
    pass


@dataclass
class _Live:
    """Objects of the running turn that are not serialisable (dropped before an interrupt)."""

    states: list[AgentState] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    answer_state: AgentState | None = None


class ConversationWorkflow(Workflow):
    def __init__(self, agent: Agent, memory: ThreadMemory, decider: Decider, params: Params, **kw: Any) -> None:
        super().__init__(timeout=kw.pop("timeout", 300), **kw)
        self.agent, self.memory, self.decider, self.params = agent, memory, decider, params
        self.cp = params.agent.conversation
        self.store = agent.store
        self.lives: dict[str, _Live] = {}  # by run key: live objects never enter the Context

    # -- helpers ----------------------------------------------------------------------------

    @staticmethod
    def _event(turn: dict, node: str, **data: Any) -> None:
        turn["trace"].append({"step": len(turn["trace"]) + 1, "node": node, **data})

    def _live(self, turn: dict) -> _Live:
        return self.lives.setdefault(turn["key"], _Live())

    def _history(self, thread_id: str) -> list[dict]:
        out = []
        for t in self.memory.turns(thread_id, last=self.cp.history_turns):
            d = t.to_dict()
            d["evidence_text"] = "\n".join(self.store.by_id[c].text for c in t.evidence if c in self.store.by_id)
            out.append(d)
        return out

    def _set_answer(self, turn: dict, st: AgentState, evidence: list[Evidence]) -> None:
        a = st.answer
        turn["answer"] = {"answer": a.answer, "refused": a.refused, "refusal_reason": a.refusal_reason,
                          "citations": a.citations, "backend": a.backend, "notes": list(a.notes)}
        live = self._live(turn)
        live.evidence, live.answer_state = evidence, st

    # -- nodes ----------------------------------------------------------------------------

    @step
    async def load_memory(self, ctx: Context, ev: StartEvent) -> RouteEvent:
        history = self._history(ev.thread_id)
        turn = {"key": f"{ev.thread_id}:{time.monotonic_ns()}", "thread_id": ev.thread_id, "user": ev.user,
                "history": history, "route": None, "rewritten_query": None, "carried": [], "rewrite_method": None,
                "attempts": [], "retries": 0, "validation_retries": 0, "clarifications": 0, "answer": None,
                "caveat": None, "clarification": None, "decider": self.decider.name, "trace": []}
        self._event(turn, "load_memory", thread_id=ev.thread_id, turns=len(history))
        await ctx.store.set("turn", turn)
        return RouteEvent()

    @step
    async def route(self, ctx: Context, ev: RouteEvent) -> RewriteEvent | RetrieveEvent | DirectEvent | ClarifyEvent:
        turn = await ctx.store.get("turn")
        d = self.decider.route(turn["user"], turn["history"])
        turn["route"] = d.route
        self._event(turn, "route", route=d.route, reason=d.reason, source=d.source)
        if d.route == "REWRITE_THEN_RETRIEVE":
            return RewriteEvent()
        if d.route == "DIRECT_ANSWER":
            return DirectEvent()
        if d.route == "ASK_CLARIFICATION":
            return ClarifyEvent()
        rw = self.decider.resolve_self(turn["user"])
        turn["rewritten_query"], turn["carried"] = rw.query, rw.carried
        return RetrieveEvent(query=rw.query)

    @step
    async def rewrite(self, ctx: Context, ev: RewriteEvent) -> RetrieveEvent:
        turn = await ctx.store.get("turn")
        rw = self.decider.rewrite(turn["user"], turn["history"])
        turn["rewritten_query"], turn["carried"], turn["rewrite_method"] = rw.query, rw.carried, rw.method
        self._event(turn, "rewrite", query=rw.query, carried=rw.carried, method=rw.method, source=rw.source)
        return RetrieveEvent(query=rw.query)

    @step
    async def retrieve(self, ctx: Context, ev: RetrieveEvent) -> GradeEvent:
        turn = await ctx.store.get("turn")
        prev = turn["history"][-1] if turn["history"] and turn["route"] == "REWRITE_THEN_RETRIEVE" else None
        method = turn.get("rewrite_method")
        fuse = (self.cp.fuse_previous == "always"
                or (self.cp.fuse_previous != "never" and method in ("replace_pronoun", "replace_demonstrative"))
                or (self.cp.fuse_previous == "reference" and self.decider.refers_back(turn["user"], method)))
        context = (prev.get("rewritten_query") or prev.get("user")) if prev and fuse else None
        st = await self.agent.agather(ev.query, context=context)
        self._live(turn).states.append(st)
        turn["attempts"].append({"query": ev.query, "hits": [h.chunk_id for h in st.hits], "pending": st.pending})
        self._event(turn, "retrieve", query=ev.query, queries=list(st.queries), hits=[h.chunk_id for h in st.hits],
                    controller=st.trajectory, stop_reason=st.stop_reason, decision=st.pending)
        return GradeEvent()

    @step
    async def grade(self, ctx: Context, ev: GradeEvent) -> GenerateEvent | RetryEvent:
        turn = await ctx.store.get("turn")
        st = self._live(turn).states[-1]
        graded = self.decider.grade(st.qa, [h.chunk_id for h in st.hits])
        scores = graded.scores
        # a contents list looked up for a page question holds the entry, in words of its own
        listed = reads_contents(st.qa.text)
        relevant = sum(s >= self.cp.grade_threshold or (listed and "contents" in h.ranks)
                       for s, h in zip(scores, st.hits, strict=True))
        attempt = turn["attempts"][-1]
        attempt.update(grades=scores, relevant=relevant)
        enough = relevant >= self.cp.min_relevant
        decision = "generate" if enough else "retry" if turn["retries"] < self.cp.max_retries else "generate_caveat"
        self._event(turn, "grade", grades=dict(zip(attempt["hits"], scores, strict=True)), relevant=relevant,
                    threshold=self.cp.grade_threshold, needed=self.cp.min_relevant, decision=decision,
                    source=graded.source)
        if decision == "retry":
            return RetryEvent()
        if decision == "generate_caveat":
            best = max(turn["attempts"], key=lambda a: a["relevant"])
            turn["caveat"] = (f"only {best['relevant']} of {len(best['hits'])} retrieved chunks were graded relevant "
                              f"(threshold {self.cp.grade_threshold}, {self.cp.min_relevant} wanted) after "
                              f"{turn['retries']} retries")
        return GenerateEvent()

    @step
    async def rewrite_retry(self, ctx: Context, ev: RetryEvent) -> RetrieveEvent | GenerateEvent:
        turn = await ctx.store.get("turn")
        turn["retries"] += 1
        st = self._live(turn).states[-1]
        q = self.retry_query(st, turn)
        tried = {a["query"] for a in turn["attempts"]}
        self._event(turn, "rewrite_retry", retry=turn["retries"], query=q, repeated=q in tried)
        if q in tried:
            return GenerateEvent()
        return RetrieveEvent(query=q)

    def retry_query(self, st: AgentState, turn: dict) -> str:
        """Retry 1: the question's key terms only. Retry 2: those plus an acronym expansion, else
        the heading of the best-graded chunk so far (feedback from what was found)."""
        words = [w for w in st.qa.text.rstrip("?").split() if w.lower().strip(",.:;") not in STOPWORDS]
        key = " ".join(dict.fromkeys([*st.qa.identifiers, *(w.strip(",.:;") for w in words)]))
        if turn["retries"] >= 2:
            extra = st.qa.variants[0] if st.qa.variants else ""
            if not extra:
                graded = [(g, c) for a in turn["attempts"] for c, g in zip(a["hits"], a["grades"], strict=True)]
                if graded:
                    best = self.store.by_id[max(graded)[1]]
                    extra = best.heading_path[-1] if best.heading_path else ""
            key = f"{key} {extra}".strip()
        return key

    @step
    async def generate(self, ctx: Context, ev: GenerateEvent) -> ValidateEvent:
        turn = await ctx.store.get("turn")
        live = self._live(turn)
        st = live.states[0]  # the turn's question; retries only widen its evidence
        grades = {c: g for a in turn["attempts"] for c, g in zip(a["hits"], a["grades"], strict=True)}
        relevant = sum(a["relevant"] for a in turn["attempts"])
        if all(s.pending == "refuse" for s in live.states) and relevant == 0:
            st.answer = refusal(st.question, "insufficient_evidence", self.params.answer.backend,
                                ["no retrieved chunk was graded relevant"])
            evidence: list[Evidence] = []
        else:
            hits = st.ordered_hits()
            known = {h.chunk_id for h in hits}
            for later in live.states[1:]:
                hits += [h for h in later.ordered_hits() if h.chunk_id not in known
                         and grades.get(h.chunk_id, 0) >= self.cp.grade_threshold]
                known = {h.chunk_id for h in hits}
            if ev.retry:  # a validation retry: the graded-relevant chunks, best first
                hits = sorted((h for h in hits if grades.get(h.chunk_id, 0) >= self.cp.grade_threshold),
                              key=lambda h: -grades[h.chunk_id]) or hits
            evidence = select_evidence(hits, self.store, self.params.answer)
            self.agent.compose(st, evidence)
        self._set_answer(turn, st, evidence)
        if turn["caveat"]:
            turn["answer"]["notes"].append(f"caveat: {turn['caveat']}")
        self._event(turn, "generate", attempts=len(live.states), evidence=[e.chunk_id for e in evidence],
                    refused=st.answer.refused, refusal_reason=st.answer.refusal_reason, retry=ev.retry,
                    caveat=turn["caveat"], notes=st.answer.notes)
        return ValidateEvent()

    @step
    async def direct_answer(self, ctx: Context, ev: DirectEvent) -> ValidateEvent:
        turn = await ctx.store.get("turn")
        rw = self.decider.rewrite(turn["user"], turn["history"])
        turn["rewritten_query"], turn["carried"] = rw.query, rw.carried
        ids: list[str] = []
        for t in reversed(turn["history"]):  # most recent turn's evidence first
            ids += [c for c in t["evidence"] if c not in ids and c in self.store.by_id]
        hits = [_IdHit(c) for c in ids]
        evidence = select_evidence(hits, self.store, self.params.answer)
        st = self.agent.new_state(rw.query)
        self.agent.compose(st, evidence, node="direct_answer")
        self._set_answer(turn, st, evidence)
        self._event(turn, "direct_answer", query=rw.query, carried=rw.carried, method=rw.method, source=rw.source,
                    evidence=[e.chunk_id for e in evidence], refused=st.answer.refused)
        return ValidateEvent()

    def _can_regenerate(self, turn: dict) -> bool:
        return turn["validation_retries"] < self.cp.max_validation_retries

    def _regenerate(self, turn: dict, **fields) -> GenerateEvent:
        """One more draft from the graded-relevant chunks of every attempt (a validation retry)."""
        turn["validation_retries"] += 1
        self._event(turn, "validate", **fields, fallback="regenerate")
        return GenerateEvent(retry=True)

    @step
    async def validate(self, ctx: Context, ev: ValidateEvent) -> SaveEvent | GenerateEvent | RetrieveEvent:
        turn = await ctx.store.get("turn")
        live = self._live(turn)
        a = turn["answer"]
        direct = turn["route"] == "DIRECT_ANSWER" and not turn["attempts"]
        # A refusal because the evidence never states what the question names, after retrieval
        # retries found more: the answer was drafted from the first retrieval's chunks, which fill
        # the evidence budget, so draft again from the graded-relevant chunks of every attempt.
        if (a["refused"] and a["refusal_reason"] == "focus_not_stated" and not direct and len(live.states) > 1
                and self._can_regenerate(turn)):
            return self._regenerate(turn, ok=None, skipped="refused")
        if a["refused"]:
            self._event(turn, "validate", ok=None, skipped="refused", fallback="retrieve" if direct else None)
            return RetrieveEvent(query=turn["rewritten_query"]) if direct else SaveEvent()
        # (a follow-up's own words need not be written where a title page or a contents list
        # states the asked thing by its place; where contents entries answer, the words of the
        # frame they state by their form: "3.6.1 | … 12" says where a section starts without
        # "page" or "start")
        followup = turn["user"] if (turn["route"] in ("REWRITE_THEN_RETRIEVE", "DIRECT_ANSWER")
                                    and not stated_by_place(live.answer_state.answer.decision)) else None
        if followup and answered_by_entries(a["answer"]):
            followup = without_entry_frame(followup)
        v = self.decider.validate(live.answer_state.qa, a["answer"], live.evidence,
                                  self.params.answer.support_threshold, followup, self.cp.min_followup_coverage)
        if v.ok:
            self._event(turn, "validate", **v.to_dict())
            return SaveEvent()
        if direct:
            self._event(turn, "validate", **v.to_dict(), fallback="retrieve")
            return RetrieveEvent(query=turn["rewritten_query"])
        if self._can_regenerate(turn):
            return self._regenerate(turn, **v.to_dict())
        if v.soft:
            self._event(turn, "validate", **v.to_dict(), fallback="keep")
            a["notes"].append(f"validation doubt: {v.detail}")
            return SaveEvent()
        self._event(turn, "validate", **v.to_dict(), fallback="refuse")
        notes = [*a["notes"], f"validation failed: {v.detail}"]
        turn["answer"] = {"answer": REFUSAL, "refused": True, "refusal_reason": v.reason, "citations": [],
                          "backend": a["backend"], "notes": notes}
        return SaveEvent()

    @step
    async def clarify(self, ctx: Context, ev: ClarifyEvent) -> ClarificationRequest | SaveEvent:
        turn = await ctx.store.get("turn")
        turn["clarifications"] += 1
        question, options = self.decider.clarification(turn["user"], self.store.titles, turn["history"])
        turn["clarification"] = {"question": question, "options": options}
        turn["answer"] = {"answer": question, "refused": True, "refusal_reason": "clarification_needed",
                          "citations": [], "backend": self.decider.name, "notes": []}
        self._event(turn, "clarify", question=question, options=options, asked=turn["clarifications"])
        if turn["clarifications"] > self.cp.max_clarifications:
            turn["answer"]["answer"], turn["clarification"] = REFUSAL, None
            return SaveEvent()
        self._save(turn)
        self.lives.pop(turn["key"], None)  # nothing unserialisable may stay behind the interrupt
        return ClarificationRequest(prefix=question, question=question, options=options, turn=dict(turn))

    @step
    async def resume_clarification(self, ctx: Context, ev: HumanResponseEvent) -> RetrieveEvent | ClarifyEvent:
        turn = await ctx.store.get("turn")
        original = turn["user"]
        turn.update(key=f"{turn['thread_id']}:{time.monotonic_ns()}", user=ev.response, route="RETRIEVE",
                    attempts=[], retries=0, validation_retries=0, answer=None, caveat=None, clarification=None,
                    trace=[])
        vague = is_vague(ev.response, self.store.knowledge)
        self._event(turn, "resume_clarification", original=original, response=ev.response, vague=vague)
        if vague:
            turn["route"] = "ASK_CLARIFICATION"
            return ClarifyEvent()
        rw = self.decider.resolve_self(ev.response)
        turn["rewritten_query"], turn["carried"] = rw.query, rw.carried
        return RetrieveEvent(query=rw.query)

    @step
    async def save_memory(self, ctx: Context, ev: SaveEvent) -> StopEvent:
        turn = await ctx.store.get("turn")
        turn["index"] = self._save(turn)
        self.lives.pop(turn["key"], None)
        return StopEvent(result=turn)

    def _save(self, turn: dict) -> int:
        a = turn["answer"]
        self._event(turn, "save_memory")
        rec = TurnRecord(turn["user"], turn["rewritten_query"], turn["route"], a["answer"], a["refused"],
                         a["refusal_reason"], a["citations"], [c["chunk_id"] for c in a["citations"]])
        n = self.memory.append(turn["thread_id"], rec)
        turn["trace"][-1]["turn_index"] = n
        return n


@dataclass(frozen=True)
class _IdHit:
    chunk_id: str
    score: float = 0.0
