"""Query analysis: identifiers, anchors, intent (mode) and deterministic variants.

Everything here is a pure function of the query text and the corpus glossary,
so the same question always produces the same variants and features.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citerag.text.tokenize import STOPWORDS, stem

MODES = ("definition", "algorithm", "parameter", "compare", "policy", "procedure", "general")

# Technical identifiers: contain a digit, a hyphen/dot between letters, or are all-caps acronyms.
_IDENT = re.compile(
    r"\b(?:[A-Za-z]+[-.][A-Za-z0-9]+(?:[-._][A-Za-z0-9]+)*|[A-Za-z]+\d+[A-Za-z0-9]*|\d+-\d+|[A-Z]{2,}[a-z]?)\b"
)
_ANCHOR = re.compile(
    r"\b(Algorithm|Table|Section|Appendix|Figure|Definition|Example|Theorem)\s+([A-Z]?\d+(?:\.\d+)*|[A-Z])\b", re.I)
# The thing a definition question asks about: "What is a decapsulation key in a KEM?" → "decapsulation key".
_SUBJECT = re.compile(
    r"^(?:what|who)\s+(?:is|are|does|do)\s+(?:the\s+acronym\s+|an?\s+|the\s+)?(.+?)"
    r"(?:\s+(?:stand\s+for|mean|refer\s+to))?(?:\s+(?:in|according\s+to|of|for)\s+[^?]*)?\s*\??$"
    r"|^(?:define|definition\s+of|meaning\s+of)\s+(?:an?\s+|the\s+)?(.+?)\s*\??$"
    r"|\bdefines?\s+(?:an?\s+|the\s+)?(.+?)\s*\??$", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
# A parameter-set name: a scheme name ending in a number (ML-KEM-768, SLH-DSA-SHA2-128s, hqc-128).
PARAM_SET = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*-\d+[A-Za-z]?$")
_DOC_MENTION = re.compile(r"\b(FIPS|SP|IR)\s*(\d{3,4}(?:-\d+)?)", re.I)

# Operation aliases: "ML-KEM.KeyGen" <-> "ML-KEM key generation" (and friends).
_OPS = {
    "KeyGen": "key generation", "Encaps": "encapsulation", "Decaps": "decapsulation",
    "Sign": "signing", "Verify": "verification", "Encrypt": "encryption", "Decrypt": "decryption",
}
_SCHEME = r"(ML-KEM|ML-DSA|SLH-DSA|K-PKE|HashML-DSA|KEM)"
_OP_DOTTED = re.compile(_SCHEME + r"\s*\.\s*(" + "|".join(_OPS) + r")\b", re.I)
_OP_WORDS = re.compile(_SCHEME + r"\s+(" + "|".join(_OPS.values()) + r")\b", re.I)

_MODE_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("compare", re.compile(r"\b(compare|comparison|differences?|differ|versus|vs\.?|smaller|larger)\b", re.I)),
    ("algorithm", re.compile(r"\b(steps?|algorithm \d+|pseudocode|step by step|how does .* (compute|work))\b", re.I)),
    ("parameter", re.compile(
        r"\b(size|how (big|large|long|many)|value of|bytes?|bits?|length|modulus|category|parameter set)\b", re.I)),
    ("definition", re.compile(r"\b(what (is|are|does) (an? )?\S+( \S+)?( stand for| mean)?\??$|stand for|define"
                              r"|definition|meaning of|what does .* stand)\b", re.I)),
    ("procedure", re.compile(r"\b(how (do|does|should|must|can)|procedure|check|when is|which .* must)\b", re.I)),
    ("policy", re.compile(r"\b(shall|should|may|allowed|approved|deprecat|disallow|select|transition|why)\w*", re.I)),
]


@dataclass(frozen=True)
class QueryAnalysis:
    text: str
    mode: str
    identifiers: tuple[str, ...]
    anchors: tuple[str, ...]  # normalised, e.g. "algorithm 19"
    content_words: tuple[str, ...]
    doc_mentions: tuple[str, ...]  # e.g. "fips 204"
    variants: tuple[str, ...] = field(default=())
    subject: str | None = None  # what a definition question asks about


def detect_mode(text: str) -> str:
    for mode, pattern in _MODE_RULES:
        if pattern.search(text):
            return mode
    return "general"


def definition_subject(text: str) -> str | None:
    m = _SUBJECT.match(text.strip())
    if not m:
        return None
    subject = (m.group(1) or m.group(2) or m.group(3) or "").strip(" \"'“”")
    return subject if 0 < len(subject) <= 60 else None


def identifiers(text: str) -> list[str]:
    """Technical identifiers in order of appearance, de-duplicated (case-insensitive)."""
    seen, out = set(), []
    for m in _IDENT.finditer(text):
        tok = m.group(0).strip(".")
        key = tok.lower()
        if key in seen or key in STOPWORDS or len(tok) < 2:
            continue
        seen.add(key)
        out.append(tok)
    return out


def anchors(text: str) -> list[str]:
    return [f"{m.group(1).lower()} {m.group(2).lower()}" for m in _ANCHOR.finditer(text)]


def content_words(text: str) -> list[str]:
    return [stem(w.lower()) for w in _WORD.findall(text) if w.lower() not in STOPWORDS and len(w) > 1]


def operation_variants(text: str) -> list[str]:
    """`ML-KEM.KeyGen` ⇄ `ML-KEM key generation` in both directions."""
    out = []
    if _OP_DOTTED.search(text):
        out.append(_OP_DOTTED.sub(lambda m: f"{m.group(1)} {_OPS[_canon_op(m.group(2))]}", text))
    if _OP_WORDS.search(text):
        inverse = {v: k for k, v in _OPS.items()}
        out.append(_OP_WORDS.sub(lambda m: f"{m.group(1)}.{inverse[m.group(2).lower()]}", text))
    return out


def _canon_op(op: str) -> str:
    return next(k for k in _OPS if k.lower() == op.lower())


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


def analyse(text: str, glossary: dict[str, str] | None = None, mode_hint: str | None = None,
            max_variants: int = 4) -> QueryAnalysis:
    if mode_hint is not None and mode_hint not in MODES:
        raise ValueError(f"mode_hint: {mode_hint!r} is not one of {', '.join(MODES)}")
    mode = mode_hint or detect_mode(text)
    subject = definition_subject(text)
    if subject is None and mode == "definition" and len(text.split()) <= 6:
        subject = text.strip(" ?")  # a bare term asked for its definition
    variants: list[str] = []
    for v in operation_variants(text) + anchor_variants(text) + acronym_variants(text, glossary or {}):
        if v != text and v not in variants:
            variants.append(v)
    return QueryAnalysis(
        text=text,
        mode=mode,
        identifiers=tuple(identifiers(text)),
        anchors=tuple(anchors(text)),
        content_words=tuple(dict.fromkeys(content_words(text))),
        doc_mentions=tuple(f"{m.group(1).lower()} {m.group(2)}" for m in _DOC_MENTION.finditer(text)),
        variants=tuple(variants[:max_variants]),
        subject=subject,
    )


# -- corpus glossary ----------------------------------------------------------------------

_ACR = re.compile(r"^[A-Z][A-Za-z0-9-]{1,11}$")
_PAREN = re.compile(r"\b((?:[A-Za-z][\w-]*\s+){0,6}[A-Za-z][\w-]*)\s+\(([A-Z][A-Za-z0-9-]{1,11})\)")


_SMALL = frozenset({"of", "for", "and", "the", "with", "under", "on", "to", "a", "an", "in", "by"})


def _initials_match(acr: str, expansion: str) -> bool:
    """Does the expansion spell the acronym? Letters in order across its words, the first
    word starting with the first letter, and no more significant words than letters."""
    letters = [c for c in acr.lower() if c.isalpha()]
    words = re.findall(r"[A-Za-z]+", expansion)
    significant = [w for w in words if w.lower() not in _SMALL]
    if sum(c.isupper() for c in acr) < 2 or not letters or not significant:
        return False
    if letters[0] not in words[0][:2].lower() or len(significant) > len(letters):
        return False
    i = 0
    for ch in "".join(w.lower() for w in words):
        if i < len(letters) and ch == letters[i]:
            i += 1
    return i == len(letters)


def mine_acronyms(chunks) -> dict[str, str]:
    """Acronym → expansion from glossary tables ("XOF | eXtendable-Output Function") and
    in-text definitions ("Key-Encapsulation Mechanism (KEM)"); first well-formed one wins."""
    found: dict[str, str] = {}
    for c in chunks:
        for line in c.text.split("\n"):
            cells = [x.strip() for x in line.split(" | ")]
            if len(cells) == 2 and _ACR.match(cells[0]) and 3 < len(cells[1]) < 80 \
                    and _initials_match(cells[0], cells[1]):
                found.setdefault(cells[0], cells[1])
        for m in _PAREN.finditer(c.text):
            acr, words = m.group(2), m.group(1).split()
            for n in range(1, len(words) + 1):  # shortest tail of the phrase that spells it
                cand = " ".join(words[-n:])
                if _initials_match(acr, cand) and cand[0].isupper():
                    found.setdefault(acr, cand)
                    break
    return found
