"""The labeled eval sets (`data/eval/*.jsonl`) and their verifier.

The verifier reads the PDFs' raw text with plain pymupdf — not citerag's
extraction or cleaning — so the labels are checked against the documents
themselves, whatever params a run uses. Matching ignores case, whitespace
(line breaks, digit groups like "7 856"), hyphenation at line ends and
Unicode presentation forms.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

QuestionType = Literal[
    "definition", "algorithm", "parameter", "policy", "procedure", "compare", "overview", "unanswerable"
]


class GoldSpan(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    doc_id: str
    start_page: int = Field(ge=1)
    end_page: int = Field(ge=1)


class EvalItem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    qid: str
    question: str = Field(min_length=5)
    type: QuestionType
    answerable: bool
    gold: list[GoldSpan] = []
    gold_answer: str = ""
    must_contain: list[str] = []
    # Unanswerable items: terms that must occur nowhere in the corpus.
    absent_terms: list[str] = []


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user: str
    standalone_question: str
    answerable: bool
    gold: list[GoldSpan] = []
    must_contain: list[str] = []
    expected_route: str | None = None
    carried_entities: list[str] = []


class Conversation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cid: str
    turns: list[Turn] = Field(min_length=2)


class EvalSetError(ValueError):
    """A line of an eval file is malformed; the message names file and line."""


def _load(path: Path, model):
    items = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(model.model_validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise EvalSetError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"])
            raise EvalSetError(f"{path}:{n}: {loc}: {err['msg']}") from None
    return items


def load_questions(path: str | Path) -> list[EvalItem]:
    return _load(Path(path), EvalItem)


def load_conversations(path: str | Path) -> list[Conversation]:
    return _load(Path(path), Conversation)


_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2212": "-", "\u2013": "-", "\u00ad": ""})


def normalize_for_match(text: str) -> str:
    """Case-, whitespace- and hyphenation-insensitive form used for label checks."""
    t = unicodedata.normalize("NFKC", text).translate(_HYPHENS).lower()
    t = re.sub(r"-\s*\n\s*", "", t)  # word broken at a line end
    return re.sub(r"\s+", "", t)


def contains_word(raw_page: str, term: str) -> bool:
    """Whole-word search on whitespace-collapsed text (short terms must not match inside words)."""
    return re.search(r"(?<!\w)" + re.escape(term.lower()) + r"(?!\w)", _collapsed(raw_page)) is not None


@lru_cache(maxsize=4096)
def _collapsed(raw_page: str) -> str:
    """A page's text as `contains_word` searches it. Cached: every absent term of every label set
    is looked up on every page, and normalizing the same page again for each took most of the time."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", raw_page).translate(_HYPHENS).lower())


def raw_texts(corpus_dir: str | Path, doc_ids: dict[str, str] | None = None) -> dict[tuple[str, int], str]:
    """(doc_id, physical page) → raw page text of every PDF in the folder (plain pymupdf)."""
    import pymupdf

    out = {}
    for pdf in sorted(Path(corpus_dir).glob("*.pdf")):
        doc_id = (doc_ids or {}).get(pdf.name, pdf.stem)
        with pymupdf.open(pdf) as doc:
            for i, page in enumerate(doc, start=1):
                out[(doc_id, i)] = page.get_text()
    return out


def raw_pages(texts: dict[tuple[str, int], str]) -> dict[tuple[str, int], str]:
    """Normalized forms of `raw_texts` for tolerant substring checks."""
    return {k: normalize_for_match(v) for k, v in texts.items()}


def pages_containing(pages: dict[tuple[str, int], str], needle: str, doc_id: str | None = None):
    n = normalize_for_match(needle)
    return sorted(k for k, v in pages.items() if n in v and (doc_id is None or k[0] == doc_id))


def verify_questions(
    items: list[EvalItem], pages: dict[tuple[str, int], str], texts: dict[tuple[str, int], str]
) -> list[str]:
    """Problems with the labels (empty list: all labels hold).

    `pages` are normalized (`raw_pages`), `texts` raw (`raw_texts`) for absent-term checks.
    """
    problems = []
    docs = {d for d, _ in pages}
    seen = set()
    for it in items:
        if it.qid in seen:
            problems.append(f"{it.qid}: duplicate qid")
        seen.add(it.qid)
        if it.answerable:
            if not it.gold or not it.must_contain:
                problems.append(f"{it.qid}: answerable items need gold spans and must_contain")
            for g in it.gold:
                if g.doc_id not in docs or (g.doc_id, g.end_page) not in pages or g.start_page > g.end_page:
                    problems.append(f"{it.qid}: bad gold span {g}")
            for s in it.must_contain:
                on_gold = any(
                    normalize_for_match(s) in pages.get((g.doc_id, p), "")
                    for g in it.gold for p in range(g.start_page, g.end_page + 1)
                )
                if not on_gold:
                    problems.append(f"{it.qid}: must_contain {s!r} not found on any gold page")
        else:
            if it.gold or it.must_contain:
                problems.append(f"{it.qid}: unanswerable items have no gold or must_contain")
            if not it.absent_terms:
                problems.append(f"{it.qid}: unanswerable items need absent_terms")
            for term in it.absent_terms:
                found = sorted(k for k, raw in texts.items() if contains_word(raw, term))
                if found:
                    problems.append(f"{it.qid}: absent term {term!r} occurs in {found[:3]}")
    return problems


def verify_conversations(convs: list[Conversation], pages: dict[tuple[str, int], str]) -> list[str]:
    problems = []
    for conv in convs:
        for i, t in enumerate(conv.turns):
            tag = f"{conv.cid} turn {i + 1}"
            if t.answerable and not t.gold:
                problems.append(f"{tag}: answerable turn without gold")
            for s in t.must_contain:
                if not any(normalize_for_match(s) in pages.get((g.doc_id, p), "")
                           for g in t.gold for p in range(g.start_page, g.end_page + 1)):
                    problems.append(f"{tag}: must_contain {s!r} not on a gold page")
    return problems
