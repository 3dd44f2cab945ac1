"""A transparent feature reranker over the fused candidate pool.

No cross-encoder with weights bundled in a PyPI package runs offline here, so
the reranker is a linear score over features that matter for technical
documents: exact identifiers (`WG-KX-768` is not `WG-KX-512`), phrases,
headings, defining occurrences of `Algorithm N`/`Table N`, the query's mode,
the document it names, and a penalty for contents lists and references.
Each feature is in [0, 1] and recorded per hit, so a ranking can be explained.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

from citerag.build.chunk import Chunk
from citerag.core.params import RerankWeights
from citerag.retrieval.query import QueryAnalysis, content_words, in_section
from citerag.text.patterns import DOT_LEADER as _DOT_LEADER
from citerag.text.patterns import GLOSSARY_HEADING, holds_any, query_phrases

# Sections that present a document or a topic as a whole (document structure, not vocabulary).
OVERVIEW_HEAD = re.compile(r"\b(abstract|introduction|overview|summary|purpose|scope|about|background|"
                           r"preface|what is)\b", re.I)
_BOILER_HEAD = re.compile(r"table of contents|^contents$|list of (tables|figures|algorithms)|^references$", re.I)


@lru_cache(maxsize=8192)
def _chunk_words(text: str) -> tuple[str, ...]:
    return tuple(content_words(text))


def _bigrams(words) -> set[tuple[str, str]]:
    return set(itertools.pairwise(words))


@lru_cache(maxsize=4096)
def _token_re(token: str) -> re.Pattern[str]:
    """The token standing alone, or as a command-line option ("--skip-blank" holds "skip-blank"),
    not inside a longer name ("auto-skip-blank")."""
    return re.compile(rf"(?<![\w-])(?:--?)?{re.escape(token.lower())}(?![\w-])")


@lru_cache(maxsize=4096)
def _line_start_re(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?m)^(?:#+\s*)?\(?{re.escape(term.lower())}\)?(?:\b|\s*(?:\||:|\(|$))")


@lru_cache(maxsize=4096)
def _defines_re(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?m)^\(?{re.escape(term.lower())}\)?\s*(?:\||:|\(|$)")


@lru_cache(maxsize=8192)
def _lower(text: str) -> str:
    return text.lower()


def _has_token(text_lower: str, token: str) -> bool:
    return _token_re(token).search(text_lower) is not None


def doc_hints(q: QueryAnalysis, name_docs: dict[str, str]) -> dict[str, float]:
    """Documents the query names (1.0) or implies through a name the document defines (0.3)."""
    hints: dict[str, float] = dict.fromkeys(q.docs, 1.0)
    for ident in q.identifiers:
        for name, doc in name_docs.items():
            if ident.upper().startswith(name.upper()) and doc not in hints:
                hints[doc] = 0.3
    return hints


def in_references(chunk: Chunk) -> bool:
    """The chunk is part of a document's references list (its own section title says so)."""
    return bool(chunk.heading_path) and chunk.heading_path[-1].lower() == "references"


def features(q: QueryAnalysis, chunk: Chunk, fused_norm: float, dense_sim: float,
             hints: dict[str, float], heading_identifiers: bool = False,
             identifier_weights: dict[str, float] | None = None,
             names: tuple[str, ...] | None = None, phrases: tuple[str, ...] = ()) -> dict[str, float]:
    text_lower = _lower(chunk.text)
    heading = " > ".join(chunk.heading_path)
    f: dict[str, float] = {"fused": fused_norm, "dense": max(0.0, dense_sim)}
    # A name that names the chunk's own document ("… in WAM") is implied by every chunk of it.
    named_here = chunk.doc_id in q.docs
    mentions = {m.lower() for m in q.doc_mentions}
    # With `heading_identifiers`, a chunk under a section titled with the identifier
    # ("4 FMT-TXT syntax > Options") is about it.
    head_lower = _lower(heading) if heading_identifiers else ""
    # The share of the question's identifiers the chunk holds, each weighted by its rarity
    # (`identifier_weights`, e.g. corpus idf) when given: "BitPack8" says more than "ABC-DSA" does
    # in a document where every chunk says ABC-DSA.
    w = identifier_weights or {}
    names = q.code_names if names is None else names  # (with the rare words the retriever adds)
    held = sum(w.get(i, 1.0) * (_has_token(text_lower, i) or (bool(head_lower) and _has_token(head_lower, i))
                                or (named_here and i.lower() in mentions)) for i in names)
    total = sum(w.get(i, 1.0) for i in names)
    f["identifier"] = held / total if total > 0 else 0.0
    qb = _bigrams(list(q.content_words))
    f["phrase"] = len(qb & _bigrams(_chunk_words(chunk.text))) / len(qb) if qb else 0.0
    hw = set(_chunk_words(heading))
    f["heading"] = (sum(w in hw for w in q.content_words) / len(q.content_words)) if q.content_words else 0.0
    anchor = 0.0
    for a in q.anchors:
        if _line_start_re(a).search(text_lower) or in_section(a, chunk.heading_path):
            anchor = 1.0
        elif _has_token(text_lower, a):
            anchor = max(anchor, 0.3)
    f["anchor"] = anchor
    f["mode"] = 1.0 if _mode_match(q.mode, chunk, heading) else 0.0
    f["defines"] = 1.0 if _defines(text_lower, q) else 0.0
    f["doc"] = hints.get(chunk.doc_id, 0.0)
    f["overview"] = 1.0 if q.broad and is_overview(chunk.ordinal, chunk.heading_path) else 0.0
    boiler = 1.0 if any(_BOILER_HEAD.search(h) for h in chunk.heading_path[-1:]) else 0.0
    if len(_DOT_LEADER.findall(chunk.text)) >= 3:
        boiler = 1.0
    # A chunk that holds a phrase the question quotes is what was asked for, even in a
    # references list ("who wrote 'A method for …'"): no boilerplate penalty there.
    f["quoted"] = 1.0 if holds_any(query_phrases(q.text), chunk.text) else 0.0
    # ... nor in a references list when the question asks about cited works, or writes a title
    # of the list without quotes (`phrases`: a rare run of its words the chunk holds verbatim).
    # (Checked only on such a chunk: this runs for every candidate of every query. Elsewhere such a
    # run is often a document's own title or a heading, and counting it as quoted lost answers.)
    references = in_references(chunk)
    cited_list = bool(boiler) and references and (q.asks_cited or holds_any(phrases, chunk.text))
    # ... nor in a contents list when the question asks which section covers something.
    contents = bool(boiler) and not references and q.asks_location
    f["boilerplate"] = 0.0 if f["quoted"] or cited_list or contents else boiler
    return f


def is_overview(ordinal: int, heading_path: list[str]) -> bool:
    """A document-level chunk: the document's opening, or a section that presents its topic
    (its own heading, not an ancestor's: "Introduction > Version numbering" is a detail)."""
    return ordinal <= 1 or any(OVERVIEW_HEAD.search(h) for h in heading_path[-1:])


def _mode_match(mode: str, chunk: Chunk, heading: str) -> bool:
    """Definition → glossary sections; algorithm → algorithm blocks; parameter → tables."""
    if mode == "definition":
        return bool(GLOSSARY_HEADING.search(heading))
    return (mode == "algorithm" and "algorithm" in chunk.kinds) or (mode == "parameter" and "table" in chunk.kinds)


def _defines(text_lower: str, q: QueryAnalysis) -> bool:
    """The chunk holds the defining entry of what the question asks about: a glossary row
    ("term | …"), a "term:" line, or a numbered anchor at a line start ("Definition 1.")."""
    terms = [q.subject] if q.subject else []
    if q.mode == "definition":
        terms += [i for i in q.identifiers if len(i) >= 3]
    return any(_defines_re(t).search(text_lower) for t in terms if t)


def score(f: dict[str, float], w: RerankWeights) -> float:
    return (w.fused * f["fused"] + w.dense * f["dense"] + w.identifier * f["identifier"]
            + w.phrase * f["phrase"] + w.heading * f["heading"] + w.anchor * f["anchor"]
            + w.mode * f["mode"] + w.defines * f["defines"] + w.doc * f["doc"] + w.overview * f["overview"]
            + w.quoted * f["quoted"] - w.boilerplate * f["boilerplate"])
