"""Deterministic policies of the controller: routing, budgets, assessment and refinement.

Pure functions of the question, the evidence and the state, so every decision
can be unit-tested and every trace replayed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citerag.core.params import AgentParams
from citerag.retrieval.query import QueryAnalysis
from citerag.text.patterns import QUALIFIED_NAME, identifiers

ROUTES = ("retrieve", "resolve_definition", "compare", "summarize")

_COMPARE_FAMILIES = [
    re.compile(r"differences?\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)", re.I),
    re.compile(r"(?:compare|comparison\s+of|comparing)\s+(?P<a>.+?)\s+(?:and|with|to|against)\s+(?P<b>.+)", re.I),
    re.compile(r"(?P<a>.+?)\s+(?:vs\.?|versus)\s+(?P<b>.+)", re.I),
    re.compile(r"(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+(?:compare|differ)\b", re.I),
]
_COMPARE_WORDS = frozenset("""compare comparison comparing difference differences differ between vs versus which
what how do does is are the of and in a an smaller larger bigger has have""".split())
_SUMMARIZE = re.compile(r"\b(summari[sz]e|summary|overview|main points)\b", re.I)
_LEAD = re.compile(r"^(?:the|a|an|how\s+do|what\s+is|what\s+are)\s+", re.I)


@dataclass(frozen=True)
class Route:
    name: str
    topics: tuple[str, ...] = ()
    attribute: str = ""  # what a comparison compares ("signature sizes")
    note: str = ""


def _clean_topic(t: str) -> str:
    t = re.split(r"[:?;]", t.strip())[0].strip(" .,")
    ids = identifiers(t)
    if ids:
        return ids[-1] if len(ids) == 1 else " ".join(ids)
    t = _LEAD.sub("", t)
    return t.strip()


def route(question: str, qa: QueryAnalysis) -> Route:
    """Compare (three phrase families, topics cleaned, identical topics rejected), definition,
    summarize, or plain retrieval."""
    for fam in _COMPARE_FAMILIES:
        m = fam.search(question)
        if not m:
            continue
        raw_a, raw_b = m.group("a"), m.group("b")
        a, b = _clean_topic(raw_a), _clean_topic(raw_b)
        if not a or not b:
            continue
        if a.lower() == b.lower():
            return Route("retrieve", note=f"compare rejected: identical topics {a!r}")
        rest = question
        for t in (a, b):
            rest = re.sub(re.escape(t), " ", rest, flags=re.I)
        words = [w for w in re.findall(r"[A-Za-z][\w-]*", rest) if w.lower() not in _COMPARE_WORDS]
        if re.fullmatch(r"[a-z]+ed", a) and re.fullmatch(r"[a-z]+ed [a-z]+", b):
            a = f"{a} {b.split()[-1]}"  # "a deprecated and a disallowed algorithm": both are algorithms
        return Route("compare", (a, b), " ".join(words))
    if _SUMMARIZE.search(question):
        return Route("summarize")
    if qa.subject and qa.mode in ("definition", "general"):
        return Route("resolve_definition")
    return Route("retrieve")


@dataclass
class Counters:
    steps: int = 0
    tool_calls: int = 0
    rounds: int = 0


def budget_exhausted(c: Counters, p: AgentParams, tool_calls_needed: int = 1) -> str | None:
    """The one place budgets are checked: which budget forbids another retrieval round."""
    if c.rounds >= p.max_rounds:
        return "max_rounds"
    if c.tool_calls + tool_calls_needed > p.max_tool_calls:
        return "max_tool_calls"
    # another round costs refine + retrieve + assess, and answering needs answer + verify
    if c.steps + 3 + 2 > p.max_steps:
        return "max_steps"
    return None


def members(text: str, vocab: set[str] | None) -> list[str]:
    """Qualified names the question asks about (`Name.Member`) that the corpus itself uses:
    evidence lacking one is incomplete, and refining can look for it."""
    found = [m.group(0) for m in QUALIFIED_NAME.finditer(text)]
    return [m for m in dict.fromkeys(found) if vocab is None or m.lower() in vocab]


@dataclass
class Assessment:
    relevant_hits: int
    missing_anchors: list[str]
    docs: list[str]
    topics_covered: dict[str, bool]
    reason: str | None  # None when evidence suffices, else the refinement reason

    def to_dict(self) -> dict:
        return vars(self)


def assess(qa: QueryAnalysis, rt: Route, texts: list[tuple[str, str]], hit_scores: list[float],
           p: AgentParams, vocab: set[str] | None = None) -> Assessment:
    """Hit count, anchor/operation presence and (compare) diversity over the evidence.

    `texts` are (doc_id, text) of the evidence; `hit_scores` the question-term share per hit."""
    relevant = sum(s >= p.min_hit_score for s in hit_scores)  # or one hit ≥ strong_hit_score
    joined = "\n".join(t for _, t in texts)
    low = joined.lower()
    missing = []
    for a in qa.anchors:
        kind = a.split()[0]
        defined = re.search(rf"(?mi)^(?:#+\s*)?{re.escape(a)}\b", joined) if kind in ("algorithm", "table") \
            else re.search(rf"(?i)\b{re.escape(a)}\b", joined)
        if not defined:
            missing.append(a)
    for op in members(qa.text, vocab):
        if op.lower() not in low:
            missing.append(op)
    docs = sorted({d for d, _ in texts})
    covered = {t: t.lower() in low for t in rt.topics}
    if missing:
        reason = "anchor_missing"
    elif rt.name == "compare" and (len(docs) < 2 and not all(covered.values())):
        reason = "compare_doc_diversity_missing"
    elif relevant < p.min_evidence_hits and (p.strong_hit_score is None
                                             or max(hit_scores, default=0.0) < p.strong_hit_score):
        reason = "insufficient_hits"
    else:
        reason = None
    return Assessment(relevant, missing, docs, covered, reason)


def refine(qa: QueryAnalysis, rt: Route, a: Assessment, vocab: set[str] | None = None) -> list[tuple[str, str | None]]:
    """Next queries (query, mode_hint) for a refinement reason — deterministic."""
    if a.reason == "anchor_missing":
        target = a.missing_anchors[0]
        words = target.title() if " " in target else target
        ops = members(qa.text, vocab)
        mode = "algorithm" if target.startswith("algorithm") or ops else None
        return [(" ".join([words, *ops]).strip(), mode)]
    if a.reason == "compare_doc_diversity_missing":
        return [(f"{t} {rt.attribute}".strip(), None) for t, ok in a.topics_covered.items() if not ok] or \
               [(f"{rt.topics[-1]} {rt.attribute}".strip(), None)]
    # insufficient_hits: restate with the question's key terms only (and an acronym expansion)
    key = " ".join(dict.fromkeys([*qa.identifiers, *(qa.subject.split() if qa.subject else []),
                                  *qa.content_words]))
    if qa.variants:
        key = f"{key} {qa.variants[0]}"
    return [(key, None)]
