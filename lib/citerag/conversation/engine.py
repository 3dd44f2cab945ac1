"""Running chat turns: simple mode (the single-turn controller, no memory) or conversation mode.

`ChatEngine.turn(thread_id, text)` is the one entry point used by `citerag
chat`, the notebooks and the tests. In conversation mode a clarification
stops the run: the serialised workflow Context goes into the thread's memory,
and the next message on that thread — from this or any later process —
resumes the run at `resume_clarification` with the message as the answer.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workflows import Context
from workflows.events import HumanResponseEvent

from citerag.agent.workflow import Agent
from citerag.conversation.decisions import Decider
from citerag.conversation.memory import Pending, ThreadMemory
from citerag.conversation.workflow import ClarificationRequest, ConversationWorkflow
from citerag.core.artifacts import write_text_atomic
from citerag.core.asyncrun import run_sync
from citerag.core.params import Params
from citerag.core.paths import resolve
from citerag.retrieval.store import IndexStore


@dataclass
class TurnResult:
    thread_id: str
    user: str
    route: str
    rewritten_query: str | None
    answer: str
    refused: bool
    refusal_reason: str | None
    citations: list[dict]
    trajectory: list[str]
    trace: list[dict] = field(default_factory=list)
    clarification: dict | None = None   # {"question", "options"} when the turn asks back
    caveat: str | None = None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def contract(self, cid: Any, turn: int) -> dict:
        """The `citerag chat --conversations` output line (key order is part of the contract)."""
        return {"cid": cid, "turn": turn, "route": self.route, "rewritten_query": self.rewritten_query,
                "answer": self.answer, "refused": self.refused, "refusal_reason": self.refusal_reason,
                "citations": self.citations, "trajectory": self.trajectory}

    def write_trace(self, path: Path) -> Path:
        data = {k: v for k, v in vars(self).items()}
        data["seconds"] = round(self.seconds, 4)
        write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, default=str))
        return path


def make_decider(params: Params, store: IndexStore, idf: dict[str, float]) -> Decider:
    cp = params.agent.conversation
    if cp.decisions == "openai":
        from citerag.conversation.llm_decisions import LLMDecider

        return LLMDecider(params.answer.openai, store, idf)
    return Decider(store, idf)


class ChatEngine:
    """Chat turns over one index; `params.agent.conversational` selects the mode."""

    def __init__(self, store: IndexStore, params: Params, agent: Agent | None = None) -> None:
        self.params = params
        self.agent = agent or Agent(store, params)
        self.conversational = params.agent.conversational
        self.memory: ThreadMemory | None = None
        self.flow: ConversationWorkflow | None = None
        if self.conversational:
            self.memory = ThreadMemory(resolve(params.agent.conversation.memory_path))
            decider = make_decider(params, store, self.agent.idf)
            self.flow = ConversationWorkflow(self.agent, self.memory, decider, params)

    def pending(self, thread_id: str) -> Pending | None:
        return self.memory.pending(thread_id) if self.memory else None

    def turn(self, thread_id: str, text: str) -> TurnResult:
        return run_sync(self.aturn(thread_id, text))

    async def aturn(self, thread_id: str, text: str) -> TurnResult:
        t0 = time.perf_counter()
        if not self.conversational:
            r = await self.agent.arun(text)
            a = r.answer
            return TurnResult(thread_id, text, "RETRIEVE", text, a.answer, a.refused, r.refusal_reason, a.citations,
                              r.trajectory, r.trace, notes=a.notes, seconds=time.perf_counter() - t0)
        pending = self.memory.pending(thread_id)
        if pending is not None:
            ctx = Context.from_dict(self.flow, pending.context)
            handler = self.flow.run(ctx=ctx)
            handler.ctx.send_event(HumanResponseEvent(response=text))
        else:
            handler = self.flow.run(thread_id=thread_id, user=text)
        async for ev in handler.stream_events():
            if isinstance(ev, ClarificationRequest):
                data = handler.ctx.to_dict()
                await handler.cancel_run()
                self.memory.set_pending(thread_id, Pending(data, ev.question, ev.options))
                return self._result(ev.turn, time.perf_counter() - t0)
        turn = await handler
        if pending is not None:
            self.memory.clear_pending(thread_id)
        return self._result(turn, time.perf_counter() - t0)

    @staticmethod
    def _result(turn: dict, seconds: float) -> TurnResult:
        a = turn["answer"]
        return TurnResult(turn["thread_id"], turn["user"], turn["route"], turn["rewritten_query"], a["answer"],
                          a["refused"], a["refusal_reason"], a["citations"], [e["node"] for e in turn["trace"]],
                          turn["trace"], turn["clarification"], turn["caveat"], a["notes"], seconds)

