"""Query analysis: identifiers, anchors, intent (mode), named documents and variants.

Everything here is a pure function of the query text and the corpus knowledge
(mined glossary, document mentions, the profile's member aliases), so the same
question always produces the same variants and features.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from citerag.text.patterns import (
    CAMEL_NAME,
    LOCATOR_HEADS,
    LOCATOR_QUESTION,
    identifiers,
    names_place,
    proper_names,
    quoted_phrases,
)
from citerag.text.tokenize import STOPWORDS, stem

if TYPE_CHECKING:
    from citerag.build.knowledge import CorpusKnowledge

MODES = ("definition", "algorithm", "parameter", "compare", "policy", "procedure", "general")

_ANCHOR = re.compile(
    r"\b(Algorithm|Table|Section|Appendix|Figure|Definition|Example|Theorem)\s+([A-Z]?\d+(?:\.\d+)*|[A-Z])\b", re.I)
# The thing a definition question asks about: "What is a decapsulation key in a KEM?" → "decapsulation key".
_SUBJECT = re.compile(
    r"^(?:what|who)\s+(?:is|are|does|do)\s+(?:the\s+acronym\s+|an?\s+|the\s+)?(.+?)"
    r"(?:\s+(?:stand\s+for|mean|refer\s+to))?(?:\s+(?:in|according\s+to|of|for)\s+[^?]*)?\s*\??$"
    r"|^(?:define|definition\s+of|meaning\s+of)\s+(?:an?\s+|the\s+)?(.+?)\s*\??$", re.I)
# … or names it after the verb anywhere: "How does the glossary define a widget combiner?"
_DEFINES = re.compile(r"\bdefines?\s+(?:an?\s+|the\s+)?(.+?)\s*\??$", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
# A reference named by its mark ("reference [25]", "what does [12] point to?"; not an index,
# "flowables[0]", nor an interval, "[0, 1)"): its number is group 1
REFERENCE_MARK = re.compile(r"(?<![\w\]])\[(\d{1,3})\](?!\s*[=(])")
_ASKS_CITED = re.compile(r"\b(?:cites?|cited|citing|references|reference\s+list|bibliography|paper|papers|article|"
                         r"articles|who wrote|authors?)\b"
                         # … or a reference by its mark ("What is reference [1] of X?")
                         rf"|{REFERENCE_MARK.pattern}", re.I)
# A broad question names a thing and asks for the whole of it: "what is SSO", "explain GX-SIG",
# "what are the SSO standards". Its answer is in a document's abstract or introduction.
_BROAD = re.compile(r"^(?:what\s+(?:is|are|was|were)(?:\s+the)?|explain|describe|tell\s+me\s+about|"
                    r"(?:give\s+(?:me\s+)?)?an?\s+overview\s+of|introduce)\s+(?P<x>[^?]+?)\s*[?.!]?$", re.I)

_MODE_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("compare", re.compile(r"\b(compare|comparison|differences?|differ|versus|vs\.?|smaller|larger)\b", re.I)),
    # "steps" or "step 8", not a named step of a protocol ("the challenge step", "a key-confirmation
    # step"), which prose describes
    ("algorithm", re.compile(r"\b(steps|step \d+|algorithm \d+|pseudocode|step by step|how does .* (compute|work))\b",
                             re.I)),
    ("parameter", re.compile(
        r"\b(size|how (big|large|long|many)|value of|bytes?|bits?|length|modulus|category|parameter set)\b", re.I)),
    ("definition", re.compile(r"\b(what (is|are|does) (an? )?\S+( \S+)?( stand for| mean)?\??$|stand for|define"
                              r"|definition|meaning of|what does .* stand)\b", re.I)),
    ("procedure", re.compile(r"\b(how (do|does|should|must|can)|procedure|check|when is|which .* must)\b", re.I)),
    ("policy", re.compile(r"\b(shall|should|may|allowed|approved|deprecat|disallow|select|transition|why)\w*", re.I)),
]


_DOTTED_NUMBER = re.compile(r"(?<![\w.])(v\.?)?(\d+(?:\.\d+)+)(?!\w|\.\d)", re.I)


def version_numbers(text: str) -> list[str]:
    """The version numbers a text names: a dotted number after a "v" ("v1.6"), or one of three
    parts or more ("2.12.3") that does not number a document's part ("section 9.3.46"). A number
    of two parts is as often a section's or a round's ("version 3.1" of a scheme is written in
    the heading of its contents entry too): measured, it lost one."""
    out = []
    for m in _DOTTED_NUMBER.finditer(text):
        before = text[: m.start()].split()
        prev = before[-1].lower().strip("(,") if before else ""
        if prev in LOCATOR_HEADS:
            continue
        if m.group(1) or m.group(2).count(".") >= 2:
            out.append(m.group(2))
    return out


@dataclass(frozen=True)
class QueryAnalysis:
    text: str
    mode: str
    identifiers: tuple[str, ...]
    anchors: tuple[str, ...]  # normalised, e.g. "algorithm 19"
    content_words: tuple[str, ...]
    doc_mentions: tuple[str, ...]  # the text naming a document, e.g. "WG 12"
    variants: tuple[str, ...] = field(default=())
    subject: str | None = None  # what a definition question asks about
    docs: tuple[str, ...] = ()  # doc ids the question names
    broad: bool = False  # asks for the whole of a named thing (answered from overview sections)
    doc_titles: tuple[str, ...] = ()  # the named documents' titles as the corpus knows them (`docs`' order)

    @cached_property
    def code_names(self) -> tuple[str, ...]:
        """The identifiers and the names written as code in camel case ("SampleGrid", "drawWidget"):
        what the reranker looks for in a chunk. The answer scorer weighs only the identifiers
        3x; camel-case words count there as names by being no ordinary English."""
        camel = [m.group(0) for m in CAMEL_NAME.finditer(self.text)]
        # An identifier written only inside a document's number ("WG" of "WG 12") says where to
        # look, as the number does; the chunks of that document rarely repeat it.
        rest = self.text
        for m in self.doc_mentions:
            if names_place(m):
                rest = re.sub(re.escape(m), " ", rest, flags=re.I)
        own = [i for i in self.identifiers if re.search(re.escape(i), rest, re.I)]
        # A cited work is found by its authors' names ("Which paper by Lund and Okafor …"): in
        # such a question they are what the reference entry holds, as an identifier would be.
        # Elsewhere a capitalised word is as often a product or an everyday word ("… to Web
        # Sheets") and weighing it pulled in chunks that merely mention it.
        within = " ".join(self.identifiers).lower()
        names = [n for n in proper_names(rest) if n.lower() not in within] if self.asks_cited else []
        # A version's number ("version 2.12.3", "v1.6") is as exact as an identifier: the release
        # entry titled with it, not its neighbours sharing the pieces "2" and "12".
        versions = version_numbers(rest)
        return tuple(dict.fromkeys([*own, *(c for c in camel if c not in self.identifiers), *names, *versions]))

    @cached_property
    def asks_location(self) -> bool:
        """A question about where a document says something ("which section covers X"): its
        contents list answers it."""
        return LOCATOR_QUESTION.search(self.text) is not None

    @cached_property
    def asks_cited(self) -> bool:
        """A question about the works a document cites: its references list is where the answer is."""
        return _ASKS_CITED.search(self.text) is not None


def detect_mode(text: str) -> str:
    for mode, pattern in _MODE_RULES:
        if pattern.search(text):
            return mode
    return "general"


def definition_subject(text: str) -> str | None:
    m = _SUBJECT.match(text.strip()) or _DEFINES.search(text.strip())
    if not m:
        return None
    subject = next((g for g in m.groups() if g), "").strip(" \"'“”")
    return subject if 0 < len(subject) <= 60 else None


def is_broad(text: str, titles: tuple[str, ...] = (), mentions: tuple[str, ...] = ()) -> bool:
    """A thing asked about as a whole: a short capitalised name ("SSO", "GX-SIG", "a KEM"), a
    document the question names ("TR 101-2"), or a phrase most of whose words make up a
    document title ("the transition to post-quantum cryptography")."""
    m = _BROAD.match(text.strip())
    if not m:
        return False
    x = re.sub(r"^(?:the|a|an)\s+", "", m.group("x").strip(), flags=re.I)
    words = x.split()
    if not words or len(words) > 6:
        return False
    if x.lower() in {t.lower() for t in mentions}:
        return True
    if len(words) <= 3 and not any(c.isdigit() for c in x) and words[0][0].isupper():
        return True
    wanted = set(content_words(x))
    return bool(wanted) and any(len(wanted & set(content_words(t))) >= 0.75 * len(wanted) for t in titles)


# "What is Section 2.3 (of DOC) about?", "What does Appendix B cover?", "What is in Section 4?":
# the section's title and opening say it.
_ABOUT_SECTION = re.compile(
    r"^\s*what\s+(?:(?:is|are)\s+(?:in\s+|the\s+(?:subject|topic|title)\s+of\s+)?(?:the\s+)?"
    r"(?P<a>(?:section|appendix)\s+(?:[A-Z]?\d+(?:\.\d+)*|[A-Z]))\b(?:\s+(?:of|in)\s+[^?]+?)?"
    r"(?:\s+(?:about|titled|called|named))?"
    r"|(?:does|do)\s+(?:the\s+)?(?P<b>(?:section|appendix)\s+(?:[A-Z]?\d+(?:\.\d+)*|[A-Z]))\b"
    r"(?:\s+(?:of|in)\s+[^?]+?)?\s+(?:cover|describe|discuss|contain|present|explain|deal\s+with))\s*\??\s*$", re.I)


def asked_section(text: str) -> str:
    """The anchor ("section 2.3") of a question asking what a named section is about or titled
    ("" for any other question)."""
    m = _ABOUT_SECTION.match(text)
    return " ".join((m.group("a") or m.group("b")).lower().split()) if m else ""


def anchors(text: str) -> list[str]:
    return [f"{m.group(1).lower()} {m.group(2).lower()}" for m in _ANCHOR.finditer(text)]


def in_section(anchor: str, heading_path: list[str]) -> bool:
    """The chunk is part of the section or appendix an anchor names ("section 2.3"): one of its
    section titles opens with that number ("2.3 Mathematical Symbols", "Appendix B. Notes"). A
    chunk elsewhere that mentions "(see Section 2.3)" is not what a question about it wants."""
    kind, _, num = anchor.partition(" ")
    if kind not in ("section", "appendix") or not num:
        return False
    opens = _section_title_re(num)
    return any(opens.match(h) for h in heading_path)


@lru_cache(maxsize=1024)
def _section_title_re(num: str) -> re.Pattern[str]:
    return re.compile(rf"(?:(?:section|appendix)\s+)?{re.escape(num)}(?:\.|:)?\s", re.I)


def content_words(text: str) -> list[str]:
    return [stem(w.lower()) for w in _WORD.findall(text) if w.lower() not in STOPWORDS and len(w) > 1]


def operation_variants(text: str, operations: dict[str, str], qualifiers: list[str]) -> list[str]:
    """`Name.Member` ⇄ `Name member words` in both directions, for the profile's members."""
    if not operations or not qualifiers:
        return []
    names = "(" + "|".join(re.escape(q) for q in sorted(qualifiers, key=len, reverse=True)) + ")"
    dotted = re.compile(names + r"\s*\.\s*(" + "|".join(map(re.escape, operations)) + r")\b", re.I)
    worded = re.compile(names + r"\s+(" + "|".join(map(re.escape, operations.values())) + r")\b", re.I)
    canon = {k.lower(): k for k in operations}
    inverse = {v.lower(): k for k, v in operations.items()}
    out = []
    if dotted.search(text):
        out.append(dotted.sub(lambda m: f"{m.group(1)} {operations[canon[m.group(2).lower()]]}", text))
    if worded.search(text):
        out.append(worded.sub(lambda m: f"{m.group(1)}.{inverse[m.group(2).lower()]}", text))
    return out


def acronym_variants(text: str, glossary: dict[str, str]) -> list[str]:
    """Replace an acronym by its expansion, or an expansion by its acronym."""
    out = []
    for acr, expansion in sorted(glossary.items()):
        if re.search(rf"\b{re.escape(acr)}\b", text):
            out.append(re.sub(rf"\b{re.escape(acr)}\b", expansion, text))
        elif re.search(rf"\b{re.escape(expansion)}\b", text, re.I):
            out.append(re.sub(rf"\b{re.escape(expansion)}\b", acr, text, flags=re.I))
    return out


def anchor_variants(text: str) -> list[str]:
    """An `Algorithm N`-style anchor alone is a query of its own (it names the target)."""
    return [f"{m.group(1).title()} {m.group(2)}" for m in _ANCHOR.finditer(text)]


def word_runs(text: str, min_words: int) -> list[str]:
    """Runs of `min_words` or more consecutive words of the text outside its quotes, lower-cased
    with single spaces, longest first: the candidates for a title or phrase the question writes
    without quotes ("who wrote Breaking Widgets in Linear Time"). A run starts and ends on a word
    that is no stopword and holds two such words at least."""
    for quoted in quoted_phrases(text):
        text = text.replace(quoted, " | ")
    words = [w.strip("?!.,;:()[]\"'‘’“”").lower() for w in text.split()]
    runs = []
    for n in range(len(words), min_words - 1, -1):
        for i in range(len(words) - n + 1):
            run = words[i:i + n]
            if "|" in run or "" in run or run[0] in STOPWORDS or run[-1] in STOPWORDS:
                continue
            if sum(w not in STOPWORDS for w in run) >= 2:
                runs.append(" ".join(run))
    return runs


def analyse(text: str, knowledge: CorpusKnowledge | None = None, mode_hint: str | None = None,
            max_variants: int = 4, acronyms: bool = True) -> QueryAnalysis:
    """Mode, identifiers, anchors, the documents named, and deterministic variants (member
    aliases from the profile, `Algorithm N` alone, acronym ⇄ expansion from the corpus)."""
    if mode_hint is not None and mode_hint not in MODES:
        raise ValueError(f"mode_hint: {mode_hint!r} is not one of {', '.join(MODES)}")
    mode = mode_hint or detect_mode(text)
    subject = definition_subject(text)
    if subject is None and mode == "definition" and len(text.split()) <= 6:
        subject = text.strip(" ?")  # a bare term asked for its definition
    cands: list[str] = []
    if knowledge is not None:
        cands += operation_variants(text, knowledge.profile.operations, knowledge.profile.qualifiers)
    cands += anchor_variants(text)
    if knowledge is not None and acronyms:
        cands += acronym_variants(text, knowledge.acronyms)
    found: list[str] = []
    for v in cands:
        if v != text and v not in found:
            found.append(v)
    mentions = knowledge.doc_mentions(text) if knowledge is not None else []
    return QueryAnalysis(
        text=text,
        mode=mode,
        identifiers=tuple(identifiers(text)),
        anchors=tuple(anchors(text)),
        content_words=tuple(dict.fromkeys(content_words(text))),
        doc_mentions=tuple(m for m, _ in mentions),
        variants=tuple(found[:max_variants]),
        subject=subject,
        docs=tuple(dict.fromkeys(d for _, d in mentions)),
        doc_titles=tuple(knowledge.titles.get(d, "") for d in dict.fromkeys(d for _, d in mentions))
        if knowledge is not None else (),
        broad=is_broad(text, tuple(knowledge.titles.values()) if knowledge is not None else (),
                       tuple(m for m, _ in mentions)),
    )
