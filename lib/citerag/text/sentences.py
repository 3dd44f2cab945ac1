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


def split_prose(text: str) -> list[str]:
    """Sentences of document text (no empty pieces)."""
    return [s for s in _PROSE_BOUNDARY.split(text) if s]


def split_cited(answer: str) -> list[str]:
    """Sentences of an answer, each with its trailing citations; every non-empty line is split
    on its own (numbered steps and bullets count as sentences)."""
    out = []
    for line in answer.split("\n"):
        line = line.strip()
        if not line:
            continue
        for m in _CITED_SENTENCE.finditer(line):
            s = m.group(0).strip()
            if s:
                out.append(s)
    return out
