"""LLM implementations of the conversation decisions, through any OpenAI-compatible endpoint.

Each decision asks for structured output and validates it with pydantic. A
reply that does not validate, an impossible decision (a follow-up route with
no earlier turn, a grade list of the wrong length) or an unreachable endpoint
falls back to the deterministic decision; `source` says which one decided and
why, so the trace shows every fallback. Grounding stays deterministic: the
LLM judges whether an answer addresses the question, never whether the cited
text supports it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from citerag.answer.citations import strip_citations
from citerag.answer.evidence import EVIDENCE_RULE, Evidence, fence
from citerag.answer.llm import StructuredLLM
from citerag.conversation.decisions import Decider, Grades, Rewrite, RouteDecision, Validation
from citerag.core.params import OpenAIParams
from citerag.retrieval.query import QueryAnalysis

ROUTE_SYSTEM = """You route a user's message in a conversation about {domain}.
Reply with JSON {"route": ..., "reason": ...}. Routes:
- DIRECT_ANSWER: a check about the previous answer that its own evidence settles (e.g. "is that in bytes?")
- RETRIEVE: a new, self-contained question
- REWRITE_THEN_RETRIEVE: a follow-up with pronouns or ellipsis that needs the earlier turns
- ASK_CLARIFICATION: too unclear to search (e.g. "help me with the standard")"""

REWRITE_SYSTEM = """Rewrite the user's follow-up as ONE self-contained question, carrying over the entity
(parameter set, scheme, document) and attribute it refers to from the earlier turns.
Reply with JSON {"query": ...}."""

GRADE_SYSTEM = """Rate how relevant each numbered passage is to the question, from 0 (unrelated) to 1
(answers it). Reply with JSON {"scores": [...]} with exactly one number per passage, in order.
""" + EVIDENCE_RULE

VALIDATE_SYSTEM = """Does the answer address the question that was asked (not a different entity or
attribute)? Reply with JSON {"answers_question": true|false, "reason": ...}."""


class RouteOut(BaseModel):
    route: Literal["DIRECT_ANSWER", "RETRIEVE", "REWRITE_THEN_RETRIEVE", "ASK_CLARIFICATION"]
    reason: str = ""


class RewriteOut(BaseModel):
    query: str = Field(min_length=5, max_length=400)


class GradeOut(BaseModel):
    scores: list[float]


class ValidateOut(BaseModel):
    answers_question: bool
    reason: str = ""


def _history(history: list[dict], last: int = 4) -> str:
    lines = []
    for t in history[-last:]:
        lines.append(f"User: {t['user']}")
        if t.get("rewritten_query") and t["rewritten_query"] != t["user"]:
            lines.append(f"(standalone: {t['rewritten_query']})")
        lines.append(f"Assistant: {strip_citations(t.get('answer', ''))[:240]}")
    return "\n".join(lines) or "(no earlier turns)"


class LLMDecider(Decider):
    name = "openai"

    def __init__(self, params: OpenAIParams, store, idf: dict[str, float]) -> None:
        super().__init__(store, idf)
        self.llm = StructuredLLM(params)
        self.route_system = ROUTE_SYSTEM.replace("{domain}", self.know.profile.domain_phrase)

    def route(self, user: str, history: list[dict]) -> RouteDecision:
        out, note = self.llm.ask(self.route_system, f"Earlier turns:\n{_history(history)}\n\nNew message: {user}",
                                 RouteOut)
        answered = [t for t in history if t.get("route") != "ASK_CLARIFICATION"]
        if out is not None and not answered and out.route in ("DIRECT_ANSWER", "REWRITE_THEN_RETRIEVE"):
            out, note = None, f"{out.route} impossible without earlier turns"
        if out is None:
            d = super().route(user, history)
            d.source = f"deterministic (openai fallback: {note})"
            return d
        return RouteDecision(out.route, out.reason or "llm", source=f"openai: {note}")

    def rewrite(self, user: str, history: list[dict]) -> Rewrite:
        out, note = self.llm.ask(REWRITE_SYSTEM, f"Earlier turns:\n{_history(history)}\n\nFollow-up: {user}",
                                 RewriteOut)
        if out is None:
            rw = super().rewrite(user, history)
            rw.source = f"deterministic (openai fallback: {note})"
            return rw
        return Rewrite(out.query.strip(), [], "llm", source=f"openai: {note}")

    def grade(self, qa: QueryAnalysis, chunk_ids: list[str]) -> Grades:
        if not chunk_ids:
            return Grades([])
        passages = "\n\n".join(fence(str(i), "", self.store.by_id[c].text[:500]) for i, c in enumerate(chunk_ids, 1))
        out, note = self.llm.ask(GRADE_SYSTEM, f"Question: {qa.text}\n\nPassages:\n{passages}", GradeOut,
                                 max_tokens=20 + 8 * len(chunk_ids))
        if out is not None and len(out.scores) != len(chunk_ids):
            out, note = None, f"{len(out.scores)} scores for {len(chunk_ids)} passages"
        if out is None:
            g = super().grade(qa, chunk_ids)
            g.source = f"deterministic (openai fallback: {note})"
            return g
        return Grades([round(min(1.0, max(0.0, s)), 3) for s in out.scores], source=f"openai: {note}")

    def validate(self, qa: QueryAnalysis, answer_text: str, evidence: list[Evidence], support_threshold: float,
                 followup: str | None = None, min_coverage: float = 0.5) -> Validation:
        base = super().validate(qa, answer_text, evidence, support_threshold, followup, min_coverage)
        if not base.grounded:
            return base  # grounding is never delegated
        out, note = self.llm.ask(VALIDATE_SYSTEM, f"Question: {qa.text}\n\nAnswer: {strip_citations(answer_text)}",
                                 ValidateOut)
        if out is None:
            base.source = f"deterministic (openai fallback: {note})"
            return base
        if out.answers_question:
            return Validation(True, True, True, source=f"openai: {note}")
        return Validation(False, True, False, "off_topic", out.reason[:200] or "llm: does not answer the question",
                          source=f"openai: {note}")
