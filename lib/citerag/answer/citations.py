"""Citation keys and the refusal contract: the one place that parses `[c1]`-style citations.

Accepted forms: `[c1]`, `[C1]`, `[c1][c2]`, `[c1, c2]` (any case, spaces allowed).
A key that names no supplied evidence is invalid. A sentence is the unit that
must carry at least one valid citation; list lines (numbered steps, bullets)
count as sentences of their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citerag.text.sentences import split_cited

REFUSAL = "not found in provided docs"

REFUSAL_REASONS = (
    "insufficient_evidence",  # retrieval/assessment found too little to answer from
    "missing_citations",      # the draft had sentences without a valid citation
    "unsupported_claims",     # cited text did not support the sentences
    "budget_exhausted",       # a step/tool/round budget ran out before evidence sufficed
    "unknown_terms",          # the question names terms that occur nowhere in the corpus
    "backend_error",          # the answer backend failed and no fallback produced an answer
    "focus_not_stated",       # the cited evidence never states a number/identifier the question names
    "low_confidence",         # the calibrated model judged the documents not to answer the question
)

_GROUP = re.compile(r"\[\s*([cC]\d+(?:\s*[,;]\s*[cC]\d+)*)\s*\]")
_KEY = re.compile(r"[cC](\d+)")


def key(n: int) -> str:
    return f"c{n}"


def parse_keys(text: str) -> list[str]:
    """Citation keys in order of appearance, lower-cased, de-duplicated."""
    out: list[str] = []
    for group in _GROUP.finditer(text):
        for m in _KEY.finditer(group.group(1)):
            k = key(int(m.group(1)))
            if k not in out:
                out.append(k)
    return out


def strip_citations(text: str) -> str:
    """The text without its citation groups, and without the space a group left before the
    punctuation after it ("… bytes [c1]." → "… bytes."). A mark opening a word keeps its space:
    ".start_cm." is a name (a Gri variable), and "If .start_cm." must not become "If.start_cm."."""
    return _SPACE_BEFORE_MARK.sub(r"\1", _GROUP.sub("", text)).strip()


# Space before a punctuation mark that ends a word (followed by a space, a closing mark or the end).
_SPACE_BEFORE_MARK = re.compile(r"\s+([.,;:!?])(?=\s|$|[)\]\"'’”.,;:!?])")


def neutralize_markers(text: str) -> str:
    """Document text with citation-like markers removed. Evidence is data: a `[c2]` printed in
    a PDF must never become one of our citations, nor point at another document's chunk. The
    chunk keeps its original text for display; only what answers are composed and checked from
    is neutralized."""
    if _GROUP.search(text) is None:
        return text
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", _GROUP.sub("", text))


def split_sentences(answer: str) -> list[str]:
    """Sentences with their citations (`text.sentences.split_cited`); a citation group alone
    (e.g. after a line break) belongs to the sentence before it."""
    merged: list[str] = []
    for s in split_cited(answer):
        if merged and not strip_citations(s):
            merged[-1] = f"{merged[-1]} {s}"
        else:
            merged.append(s)
    return merged


@dataclass
class SentenceCheck:
    text: str
    keys: list[str]
    valid_keys: list[str]
    invalid_keys: list[str]
    support: float | None = None
    supported: bool | None = None

    @property
    def claim(self) -> str:
        return strip_citations(self.text)


@dataclass
class CitationReport:
    sentences: list[SentenceCheck] = field(default_factory=list)

    @property
    def all_cited(self) -> bool:
        return all(s.valid_keys for s in self.sentences)

    @property
    def uncited(self) -> list[SentenceCheck]:
        return [s for s in self.sentences if not s.valid_keys]


def check_citations(answer: str, known_keys: set[str]) -> CitationReport:
    """Split into sentences and classify each one's citation keys as valid or not."""
    report = CitationReport()
    for s in split_sentences(answer):
        keys = parse_keys(s)
        report.sentences.append(SentenceCheck(
            text=s, keys=keys, valid_keys=[k for k in keys if k in known_keys],
            invalid_keys=[k for k in keys if k not in known_keys]))
    return report
