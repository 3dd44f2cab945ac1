"""Sentence splitting, defined once: prose in documents, and answers that carry citations.

Chunk overlap, evidence units and the answer verifier all cut text into
sentences; they must agree on where a sentence ends, or a unit the answerer
restates would not be the sentence the verifier checks.
"""

from __future__ import annotations

import re

# Abbreviations whose full stop ends no sentence ("On some systems (e.g. Linux) you …"),
# checked right after the stop.
_NOT_AN_END = r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bcf\.)(?<!\bvs\.)(?<!\bal\.)(?<!\bFig\.)(?<!\bEq\.)(?<!\bSec\.)"
# A boundary in document prose: . ! ? then space before a capital, bracket or quote.
_PROSE_BOUNDARY = re.compile(rf"(?<=[.!?]){_NOT_AN_END}\s+(?=[A-Z(\[\"“])")
# A sentence of an answer ends where a prose sentence does (. ! ? before a capital, bracket or
# quote), or at the end of its line, keeping the citation groups that follow it: "index.php? func"
# and ". . . documentation" inside a restated unit are not ends.
_CITED_SENTENCE = re.compile(rf".+?(?:[.!?]{_NOT_AN_END}(?:\s*\[[^\]]*\])*(?=\s+[A-Z(\"“]|\s*$)|$)", re.S)
# A numbered label that opens a statement ("Definition 1.", "Example 2.", "Lemma 3.1.", "Definition
# 3 (ABC-CPA, informal) ."): not a sentence of its own. Split off, the statement would lose the
# name it is cited by.
_LABEL = re.compile(r"[A-Z][a-z]+ \d+(?:\.\d+)*(?: \([^()]{1,40}\))? ?\.")


# A name written between double dots ("..eof..", "..xsize.."): its closing dots end no sentence.
_DOTTED_NAME_END = re.compile(r"(?:^|[\s(])\.\.\w+\.\.$")


# A person's initial ends no sentence: "written by Peter S. Galbraith", "by P. S. Galbraith". The
# initial follows a capitalised name or another initial; a lettered part ("as in Appendix B. The …")
# is no name.
_INITIAL_END = re.compile(r"(?:^|[\s(])(?:([A-Z][a-z]+)|[A-Z]\.)\s+[A-Z]\.$")
_ONLY_INITIALS = re.compile(r"(?:[A-Z]\.\s?)+")
_LETTERED = frozenset("Appendix Annex Section Chapter Table Figure Part Type Class Group Level Phase Option Step "
                      "Version Example Case Item Model Mode Form Schedule Exhibit Attachment".split())


def _initial_end(piece: str) -> bool:
    m = _INITIAL_END.search(piece)
    return m is not None and m.group(1) not in _LETTERED


def _join_labels(pieces: list[str]) -> list[str]:
    """Each piece that is only a numbered label joined to the sentence after it, each piece
    that ends on a double-dotted name ("- ..eof.. Flag indicating …" is one sentence), and each
    that ends on a person's initial (or is only initials) joined to its name."""
    out: list[str] = []
    for s in pieces:
        if out and (_LABEL.fullmatch(out[-1]) or _DOTTED_NAME_END.search(out[-1]) or _initial_end(out[-1])
                    or _ONLY_INITIALS.fullmatch(s)):
            out[-1] = f"{out[-1]} {s}"
        else:
            out.append(s)
    return out


def split_prose(text: str) -> list[str]:
    """Sentences of document text (no empty pieces)."""
    return _join_labels([s for s in _PROSE_BOUNDARY.split(text) if s])


def split_cited(answer: str) -> list[str]:
    """Sentences of an answer, each with its trailing citations; every non-empty line is split
    on its own (numbered steps and bullets count as sentences)."""
    out = []
    for line in answer.split("\n"):
        line = line.strip()
        if line:
            out += _join_labels([s for m in _CITED_SENTENCE.finditer(line) if (s := m.group(0).strip())])
    return out
