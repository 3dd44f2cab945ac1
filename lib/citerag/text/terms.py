"""Term weights: how much of a question a piece of text holds.

One scorer serves the agent's hit assessment, the graph traversal, the
extractive answerer and the conversation grader, so "relevant" means the same
thing at every step: the share of the question's terms a text contains,
each term weighted by its corpus idf (rare terms weigh most), identifiers and
anchors counting triple, and a named document's own words not counting.
"""

from __future__ import annotations

import copy
import itertools
import re
from typing import TYPE_CHECKING

from citerag.text.inflect import ENDINGS, bases, hyphenations, spellings
from citerag.text.patterns import WRAPPED_NAME, named_by_kind, named_by_title, names_place
from citerag.text.tokenize import QUESTION_FRAME, stem, token_set, tokenize

_FRAME = frozenset(stem(w) for w in QUESTION_FRAME)
# A hyphenated compound of plain words ("byte-array"), not a name with digits ("ML-KEM-768")
_PLAIN_COMPOUND = re.compile(r"[a-z]{2,}(?:-[a-z]{2,})+")
_ACCORDING = re.compile(r"\baccording\s+to\b", re.I)
# How a question about a cited work is asked ("who *wrote* the … paper *cited* in X"): a reference
# entry states its authors, year and venue, never these verbs. (The nouns stay: "paper", "title"
# or "venue" weigh toward the reference list itself.)
_BIBLIOGRAPHIC = frozenset(stem(w) for w in "wrote write writes written cite cites cited citing publish "
                           "published".split())

if TYPE_CHECKING:
    from citerag.retrieval.query import QueryAnalysis


def forms(term: str) -> set[str]:
    """A word's other spellings and, for a past participle of five letters or more, its other
    inflections as tokens (plural-stemmed): "contrasted" → contrast, contrasting. Other words
    keep their spellings only: "processing" is not "process" ("image processing" is a thing,
    not an act), and "uses" must not become "us"."""
    out = set(spellings(term))
    if len(term) < 5 or not term.isalpha() or not term.endswith("ed"):
        return out
    for b in {b for v in out for b in bases(v)}:
        out |= {stem(b + e) for e in ENDINGS}
        if b.endswith("e"):
            out |= {stem(b[:-1] + "ing"), stem(b + "d")}
    return out


def idf_weights(terms: list[str], idf: dict[str, float]) -> dict[str, float]:
    """Each term's idf; a term the corpus never writes weighs as the rarest one (the maximum is
    taken once, not per term)."""
    unseen = max(idf.values(), default=1.0)
    return {t: idf.get(t, unseen) for t in terms}


def weighted_share(weights: dict[str, float], stated: list[str] | set[str]) -> float:
    """The (weighted) share of the terms that are stated."""
    return sum(w for t, w in weights.items() if t in stated) / (sum(weights.values()) or 1.0)


class Scorer:
    """Weighted share of the question's terms a unit contains (identifiers and anchors count 3×,
    words by their BM25 idf)."""

    def __init__(self, qa: QueryAnalysis, idf: dict[str, float], ordinary: frozenset[str] = frozenset()) -> None:
        self.weights: dict[str, float] = {}
        unseen = max(idf.values(), default=1.0)  # a term the corpus never uses is maximally specific ...
        # "according to X" says where the answer is written, as a named document does
        scoped = _ACCORDING.search(qa.text) is not None
        cited = qa.asks_cited
        for t in tokenize(qa.text):
            if t in _FRAME or (scoped and t == "according") or (cited and t in _BIBLIOGRAPHIC):
                continue  # "stand for", "explain", "difference": how it is asked, not what
            if t not in idf and t in ordinary:
                continue  # ... unless it is ordinary English ("walk me through") the corpus just never says
            w = max(idf[t], 0.1) if t in idf else unseen
            self.weights[t] = max(self.weights.get(t, 0.0), w)
        for ident in qa.identifiers:
            t = ident.lower()
            self.weights[t] = self.weights.get(t, 1.0) * 3
        for a in qa.anchors:
            self.weights[a] = self.weights.get(a, 1.0) * 3
        # A compound of plain words the corpus never writes hyphenated ("byte-array" where it writes
        # "byte arrays") is held by its words, which are weighed already: as a term no text can
        # hold, it weighed as the rarest word (thrice when read as a name), and a passage stating
        # the asked fact in the corpus's own words fell short of a relevant hit.
        for t in [t for t in self.weights if t not in idf and _PLAIN_COMPOUND.fullmatch(t)]:
            if all(w in self.weights and w in idf for w in t.split("-")):
                del self.weights[t]
        # A plain word named by its kind ("the margin option") is a setting's name: it counts as an
        # identifier does, not by its low idf as an English word.
        for t in {t for w in named_by_kind(qa.text) for t in tokenize(w)} - {i.lower() for i in qa.identifiers}:
            if t in self.weights:
                self.weights[t] *= 3
        # A document named by its number ("RFC 8446") or title ("the status report") says where
        # to look, not what the answer says. A document named by name ("in Widgetry", "WGT") is also
        # the topic, so it stays, as does an identifier inside a title ("the GX-1 standard"); and a
        # question that names nothing else keeps its terms.
        kept = {t for i in qa.identifiers for t in tokenize(i)}
        # (the mention's words as written too: its series, "XYZ" of "XYZ 12", is an identifier)
        named = {t for mention in qa.doc_mentions if names_place(mention)
                 for t in {*tokenize(mention), *mention.lower().split()}
                 if t not in kept or not named_by_title(mention)}
        if any(t not in named for t in self.weights):
            for t in named:
                self.weights.pop(t, None)
        # A document named by name ("WGT") is implied by every passage of that document, which
        # rarely repeats it: weighed by its rarity it outweighed the rest of the question, and a
        # passage that merely says the name answered. It weighs no more than the lightest other term.
        by_name = {t for mention in qa.doc_mentions if not names_place(mention) for t in tokenize(mention)}
        others = [w for t, w in self.weights.items() if t not in by_name]
        if others:
            lightest = min(others)
            for t in by_name & set(self.weights):
                self.weights[t] = min(self.weights[t], lightest)
        self.total = sum(self.weights.values()) or 1.0
        # A text that writes a term in its other spelling ("color" for a question's "colour") or in
        # another inflection ("contrast" for "contrasted", "encoding" for "encoded") holds it.
        self.aliases = {v: t for t in self.weights for v in forms(t) if v != t and v not in self.weights}
        # … or hyphenated, when the corpus writes it so ("multi-line" for "multiline")
        self.aliases.update({v: t for t in self.weights if t.isalpha() for v in hyphenations(t)
                             if v in idf and v not in self.weights})
        # … or a hyphenated compound with its last word in another inflection ("re-encrypts" for
        # "re-encrypted", "re-expanding" for "re-expand"): the tokenizer keeps compounds whole
        self.aliases.update({v: t for t in self.weights for v in _compound_inflections(t)
                             if v in idf and v not in self.weights})
        self.compounds = _compounds(list(self.weights), qa.text, idf)
        # A name with sigils ("..width..", "%S") is held where the text writes it so: the tokenizer
        # drops the sigils, and "%s" is another name than "%S".
        self.sigil_names = tuple(i for i in qa.identifiers if WRAPPED_NAME.fullmatch(i))

    @staticmethod
    def tokens(text: str) -> frozenset[str]:
        return token_set(text)

    def __call__(self, text: str) -> float:
        held = self.held(text)
        return sum(w for t, w in self.weights.items() if t in held) / self.total

    def held(self, text: str) -> frozenset[str]:
        """The question's terms the text holds (in any of the forms above)."""
        toks = self.tokens(text)
        if self.aliases and not toks.isdisjoint(self.aliases):
            toks = toks | {self.aliases[x] for x in toks if x in self.aliases}
        for terms, held, pattern in self.compounds:
            if held <= toks and not terms <= toks and pattern.search(text):
                toks = toks | terms
        for name in self.sigil_names:
            if name in text:
                toks = toks | {name.lower()}  # (the weights' key)
        return frozenset(t for t in self.weights if t in toks)

    def without(self, terms: frozenset[str]) -> Scorer:
        """The scorer of the question's other terms: what a text adds to one holding `terms`."""
        out = copy.copy(self)
        out.weights = {t: w for t, w in self.weights.items() if t not in terms}
        out.total = sum(out.weights.values()) or 1.0
        return out


_MIN_PART = 3
_WORDS = re.compile(r"[a-z]+")


def _compounds(terms: list[str], question: str, idf: dict[str, float]
               ) -> list[tuple[frozenset[str], frozenset[str], re.Pattern[str]]]:
    """A compound written closed in one place and open in the other: the question's "barcode"
    is held by a text's "bar code", its "time stamp" by a text's "timestamp". Each entry is (the
    question terms it holds, the tokens a text must have before the pattern is tried, the
    pattern). Only splits into two words the corpus uses count, so "password" is not looked for
    as "pass word" unless the corpus writes both words."""
    out = []
    for t in terms:  # closed in the question, open in the text
        if not t.isalpha() or len(t) < 2 * _MIN_PART:
            continue
        for i in range(_MIN_PART, len(t) - _MIN_PART + 1):
            a, b = t[:i], t[i:]
            if a in idf and b in idf:
                out.append((frozenset({t}), frozenset({a, b}), re.compile(rf"\b{a}\s+{b}", re.I)))
    words = _WORDS.findall(question.lower())
    for a, b in itertools.pairwise(words):  # open in the question, closed in the text
        a, b, ab = stem(a), stem(b), stem(a + b)
        if a in terms and b in terms and ab in idf and min(len(a), len(b)) >= _MIN_PART:
            out.append((frozenset({a, b}), frozenset({ab}), re.compile(rf"\b{a}{b}", re.I)))
    return out


def _compound_inflections(term: str) -> set[str]:
    """A hyphenated compound's other inflections of its last word ("re-encrypted" → re-encrypt,
    re-encrypts, re-encrypting; "byte-array" → byte-arrays)."""
    head, sep, last = term.rpartition("-")
    if not sep or not head or not last.isalpha() or len(last) < 3:
        return set()
    out = set()
    for b in bases(last):
        out |= {f"{head}-{b}{e}" for e in ENDINGS}
        if b.endswith("e"):
            out |= {f"{head}-{b[:-1]}ing", f"{head}-{b}d"}
    return out - {term}
