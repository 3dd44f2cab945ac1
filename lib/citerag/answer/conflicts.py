"""Conflicting evidence: another evidence unit gives a different value for the asked quantity.

A number question ("how long is an X key?") answered "800 bytes [c1]" while another unit about
the same thing says "42 bytes [c3]" must not read as settled. A unit counts as a rival only when
it is about the same thing as the answer — it names every identifier the question names and holds
at least `RIVAL_SHARE` of the answer's own share of the question's weighted terms — and states a
value in the same unit of measure that the answer does not ("42 bytes" against "800 bytes"),
without also stating the answer's value. Table rows list many values without units and are never
rivals: this flags disagreement, it does not second-guess tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citerag.answer.citations import parse_keys, strip_citations
from citerag.answer.evidence import Evidence, numbers
from citerag.answer.units import units
from citerag.text.patterns import as_word
from citerag.text.terms import Scorer
from citerag.text.tokenize import STOPWORDS

# A number followed by the word that measures it: "800 bytes", "1,312 bytes", "2.5 ms", "128 bits".
_QUANTITY = re.compile(r"(?<![\w.-])(\d+(?:[.,]\d+)*)\s*(%|[A-Za-z]+)\b")
RIVAL_SHARE = 0.8  # of the answer's own term share: a rival is about the same thing


@dataclass(frozen=True)
class Conflict:
    key: str        # evidence key of the rival unit
    text: str       # the rival unit, verbatim
    values: tuple[str, ...]   # its values for the quantity ("42 bytes")
    answer_values: tuple[str, ...]  # the answer's values it contradicts
    line: int | None = None   # the answer line that already quotes the rival, if any

    def to_dict(self) -> dict:
        return {"key": self.key, "text": self.text, "values": list(self.values),
                "answer_values": list(self.answer_values), "in_answer": self.line is not None}


def quantities(text: str) -> dict[str, set[str]]:
    """Measure word → values stated with it ("800 bytes" → {"byte": {"800"}})."""
    out: dict[str, set[str]] = {}
    for m in _QUANTITY.finditer(text):
        unit = m.group(2).lower()
        if unit in STOPWORDS or unit.isdigit():
            continue  # "3 of", "5 and": a count, not a measure
        if len(unit) > 3 and unit.endswith("s"):
            unit = unit[:-1]
        out.setdefault(unit, set()).add(m.group(1).replace(",", ""))
    return out


def find_conflicts(identifiers: tuple[str, ...], answer_text: str, evidence: list[Evidence],
                   score: Scorer) -> list[Conflict]:
    """Units — other lines of the answer, or evidence it does not quote — that give the quantity its
    first quantified line states a value that line does not (see module doc)."""
    lines = answer_text.split("\n")
    plain = [strip_citations(line).strip() for line in lines]
    first = next((i for i, t in enumerate(plain) if quantities(t)), None)
    if first is None:
        return []
    primary = plain[first]
    stated = quantities(primary)
    said = {v for vs in stated.values() for v in vs}  # the answer's values (not an identifier's digits)
    floor = RIVAL_SHARE * score(primary)
    idents = [i.lower() for i in identifiers]
    keys = {i: (parse_keys(line) or [""])[0] for i, line in enumerate(lines)}
    candidates = [(t, keys[i], i) for i, t in enumerate(plain) if i != first and t]
    candidates += [(u.text.strip(), u.key, None) for ev in evidence for u in units(ev) if u.kind != "row"]
    out: list[Conflict] = []
    seen = {primary}
    for text, key, line in candidates:
        if text in seen or (line is None and any(text in t for t in plain)):
            continue
        seen.add(text)
        low = text.lower()
        if any(not re.search(as_word(i), low) for i in idents):
            continue
        if score(text) < floor or numbers(text) & said:
            continue
        theirs = quantities(text)
        shared = [m for m in stated if m in theirs and theirs[m] - stated[m]]
        if shared:
            out.append(Conflict(
                key, text,
                tuple(sorted(f"{v} {m}" for m in shared for v in theirs[m] - stated[m])),
                tuple(sorted(f"{v} {m}" for m in shared for v in stated[m])), line))
    return out
