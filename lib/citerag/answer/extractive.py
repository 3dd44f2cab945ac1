"""The offline, deterministic answer backend: compose an answer from evidence units.

Units are what a sentence of the answer may restate: prose sentences, table
rows rendered with their header cells ("ML-KEM-768: encapsulation key 1184,
…"), glossary rows ("term: definition") and algorithm steps. Every unit keeps
the key of the evidence it came from, so every sentence is cited by
construction; the verifier still checks it like any other backend's output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citerag.answer.citations import split_sentences
from citerag.answer.evidence import Evidence
from citerag.core.params import AnswerParams
from citerag.retrieval.query import QueryAnalysis, content_words
from citerag.text.patterns import ALGORITHM_TITLE as _ALGO
from citerag.text.patterns import DOT_LEADER as _DOT_LEADER
from citerag.text.patterns import STEP_LINE as _STEP
from citerag.text.patterns import TABLE_CAPTION as _CAPTION
from citerag.text.patterns import has_pseudocode
from citerag.text.sentences import split_prose
from citerag.text.terms import Scorer

_COMPARE_SPLIT = re.compile(r"\s+(?:and|vs\.?|versus|or|with)\s+|,\s*", re.I)


@dataclass
class Unit:
    text: str
    key: str
    kind: str  # sentence | row | definition | step | title
    order: int  # position in the evidence, for stable output
    group: str = ""  # algorithm title for steps


def units(ev: Evidence) -> list[Unit]:
    out: list[Unit] = []
    header: list[str] | None = None
    caption = ""
    algo = ""
    for block in re.split(r"\n\s*\n", ev.text):
        # Contents-list lines ("Algorithm 19 | ML-KEM.KeyGen() . . . 35") state nothing.
        lines = [ln.strip() for ln in block.split("\n") if ln.strip() and not _DOT_LEADER.search(ln)]
        header, caption = None, ""
        for ln in lines:
            if _CAPTION.match(ln):
                caption = re.sub(r"^(Table\s+\d+)[.:]\s*", r"\1, ", ln).rstrip(".")  # one sentence, not two
                continue
            m = _ALGO.match(ln)
            if m:
                algo = f"Algorithm {m.group(1)}{m.group(2)}".strip()
                out.append(Unit(algo, ev.key, "title", len(out), algo))
                continue
            if _STEP.match(ln) and (algo or has_pseudocode(ln)):
                out.append(Unit(ln, ev.key, "step", len(out), algo))
                continue
            if " | " in ln:
                cells = [c.strip() for c in ln.split(" | ")]
                if header is None:
                    header = cells
                    if len(cells) == 2 and not caption:  # glossary tables have no header row
                        out.append(Unit(f"{cells[0]}: {cells[1]}", ev.key, "definition", len(out)))
                    continue
                if len(cells) == 2 and len(header) == 2 and not caption:
                    out.append(Unit(f"{cells[0]}: {cells[1]}", ev.key, "definition", len(out)))
                    continue
                label = cells[0] or "(row)"
                # A header whose empty corner cell was lost lines up one column short.
                head = [""] * (len(cells) - len(header)) + header if len(header) < len(cells) else header
                pairs = [f"{h} {v}".strip() for h, v in zip(head[1:], cells[1:]) if v]
                prefix = f"{caption}: " if caption else ""
                out.append(Unit(f"{prefix}{label}: {', '.join(pairs)}", ev.key, "row", len(out)))
                continue
            if ln.startswith("#"):
                continue
            if ev.heading and ln in ev.heading.split(" > "):
                continue  # the chunk's own heading line
            for s in split_prose(ln.lstrip("-• ").strip()):
                if _is_statement(s):
                    out.append(Unit(s, ev.key, "sentence", len(out)))
    return out


def _is_statement(s: str) -> bool:
    """A prose unit worth restating: enough words, mostly lower-case text, not a bare link."""
    words = re.findall(r"[A-Za-z]{2,}", s)
    lower = [w for w in words if w.islower()]
    return len(words) >= 5 and len(lower) >= 3 and "://" not in s


def _has(text: str, term: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(term.lower())}(?![\w-])", text.lower()) is not None


def _cite(u: Unit) -> str:
    """The unit with its citation on every sentence (the verifier checks sentence by sentence)."""
    body = u.text.rstrip()
    if not body.endswith((".", "!", "?", ":")):
        body += "."
    return " ".join(f"{s} [{u.key}]" for s in split_sentences(body))


def compare_topics(qa: QueryAnalysis) -> list[str]:
    """The two things a comparison is about: identifiers if there are ≥ 2, else the phrases
    around "and/vs/versus"."""
    if len(qa.identifiers) >= 2:
        return list(qa.identifiers[:2])
    text = re.sub(r"^(?:compare|what (?:is|are) the differences? between|how do)\s+(?:the\s+)?", "",
                  qa.text.strip(" ?"), flags=re.I)
    parts = [p.strip() for p in _COMPARE_SPLIT.split(text) if p and p.strip()]
    return parts[:2] if len(parts) >= 2 else []


def compose(qa: QueryAnalysis, evidence: list[Evidence], params: AnswerParams, idf: dict[str, float]) -> str:
    """A cited draft answer, or "" when no unit is relevant enough."""
    score = Scorer(qa, idf)
    all_units = [u for ev in evidence for u in units(ev)]
    if not all_units:
        return ""
    scored = sorted(((score(u.text), i, u) for i, u in enumerate(all_units)), key=lambda x: (-x[0], x[1]))

    if qa.mode == "algorithm":
        steps = _algorithm_steps(qa, all_units, score)
        if steps:
            return "\n".join(_cite(u) for u in steps)

    preferred = _preferred(qa, all_units, score, params)
    if preferred:
        return "\n".join(_cite(u) for u in preferred)

    if qa.mode == "compare":
        topics = compare_topics(qa)
        picked = []
        for topic in topics:
            best = next((u for s, _, u in scored if s >= params.min_answer_score / 2
                         and topic.lower() in u.text.lower() and u not in picked), None)
            if best is not None:
                picked.append(best)
        if len(picked) == len(topics) == 2:
            return "\n".join(_cite(u) for u in picked)

    best_score = scored[0][0]
    if best_score < params.min_answer_score:
        return ""
    floor = max(params.min_answer_score, 0.6 * best_score)
    chosen: list[Unit] = []
    seen_text: set[str] = set()
    for s, _, u in scored:
        if s < floor or len(chosen) >= params.max_sentences:
            break
        if u.kind in ("title", "step") or u.text in seen_text:
            continue
        seen_text.add(u.text)
        chosen.append(u)
    return "\n".join(_cite(u) for u in chosen)


_PARAM_WORDS = re.compile(r"\b(size|sizes|how (big|large|long)|bytes?|bits?|value|length|category|categories)\b", re.I)


def _preferred(qa: QueryAnalysis, all_units: list[Unit], score, params: AnswerParams) -> list[Unit]:
    """Units that answer by construction: the glossary row defining the asked term, or the
    table rows labelled with the asked identifiers (parameter and table-value questions)."""
    for a in qa.anchors:
        if a.startswith("algorithm"):
            continue
        starts = [i for i, u in enumerate(all_units) if u.text.lower().startswith(a + ".") or
                  re.match(rf"{re.escape(a)}\b", u.text.lower())]
        if starts:
            i = starts[0]
            follow = [u for u in all_units[i + 1 : i + 3] if u.key == all_units[i].key]
            return [all_units[i], *follow][: params.max_sentences]
    if qa.subject:  # set only for definition-shaped questions
        rows = [u for u in all_units if u.kind == "definition"
                and u.text.lower().split(":", 1)[0].strip(" ()") == qa.subject.lower()]
        if rows:
            return rows[:1]
    if qa.identifiers and (qa.mode == "parameter" or _PARAM_WORDS.search(qa.text)):
        idents = {i.lower() for i in qa.identifiers}
        attributes = [w for w in qa.content_words if w not in idents and not any(w in i for i in idents)]
        picked: list[Unit] = []
        for ident in qa.identifiers:
            rows = [u for u in all_units if u.kind == "row" and _has(u.text.split(": ")[-2] if ": " in u.text
                                                                      else u.text, ident)]
            # the row must also hold the asked attribute ("signature size", "category", ...)
            with_attr = [u for u in rows if not attributes or set(attributes) & set(content_words(u.text))]
            # a comparison needs both sides even when one table names the column differently
            rows = with_attr or (rows if qa.mode == "compare" else [])
            rows.sort(key=lambda u: (-score(u.text), u.order))
            if rows and rows[0] not in picked:
                picked.append(rows[0])
        if picked and score(" ".join(u.text for u in picked)) >= params.min_answer_score:
            return picked[: params.max_sentences]
    return []


def _algorithm_steps(qa: QueryAnalysis, all_units: list[Unit], score) -> list[Unit]:
    """The title and numbered steps of the algorithm the question names (or scores best on)."""
    groups: dict[str, list[Unit]] = {}
    for u in all_units:
        if u.kind in ("title", "step") and u.group:
            groups.setdefault((u.key + "|" + u.group), []).append(u)
    if not groups:
        return []

    def rank(item):
        _name, us = item
        title = us[0].group.lower()
        anchor_hit = any(re.match(rf"{re.escape(a)}\b", title) for a in qa.anchors)
        ident_hit = sum(i.lower() in title for i in qa.identifiers)
        has_steps = any(u.kind == "step" for u in us)
        named = anchor_hit or ident_hit > 0
        return (-int(named), -int(has_steps), -ident_hit, -score(us[0].group), us[0].order)

    _name, us = sorted(groups.items(), key=rank)[0]
    if not any(u.kind == "step" for u in us):
        return []
    title = next((u for u in us if u.kind == "title"), None)
    steps = [u for u in us if u.kind == "step"]
    return ([title] if title else []) + steps[:25]
