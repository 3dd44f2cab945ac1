"""The sparse index: BM25 (rank-bm25) with a tokenizer that respects technical terms.

`ML-KEM-768` is indexed whole and as `ml`, `kem`, `768` and `ml-kem`;
`SHAKE128` as itself and `shake`, `128`; `Algorithm 2` as the phrase token
`algorithm 2` plus its words. Queries go through the same tokenizer, so an
exact identifier match scores high while partial mentions still count.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
from rank_bm25 import BM25Okapi

_REF = re.compile(
    r"\b(algorithms?|tables?|sections?|sec\.|figures?|fig\.|appendix|appendices|equations?|definitions?"
    r"|examples?|theorems?)"
    r"\s+([A-Z]?\d+(?:\.\d+)*|[A-Z])\b",
    re.I,
)
_REF_NAME = {"sec.": "section", "fig.": "figure", "appendices": "appendix"}
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-_./'][A-Za-z0-9]+)*")
_ALNUM_SPLIT = re.compile(r"[a-z]+|\d+")

STOPWORDS = frozenset(
    """a an and are as at be been being but by can could did do does for from had has have
    how if in into is it its may might must of on or our shall should so such than that the
    their them then there these they this those to under upon was were what when where which
    while who whom why will with would you your also not no any all each other only both one
    between about""".split()
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A deliberately light plural stemmer: signatures→signature, keys→key, policies→policy."""
    if not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokenize(text: str, use_stem: bool = True) -> list[str]:
    """Tokens for BM25: technical compounds whole and in parts, reference phrases, words."""
    toks: list[str] = []
    for m in _REF.finditer(text):
        kind = m.group(1).lower()
        kind = _REF_NAME.get(kind, kind.rstrip("s") if kind.endswith("s") else kind)
        toks.append(f"{kind} {m.group(2).lower()}")
    for m in _TOKEN.finditer(text):
        word = m.group(0).lower().strip("._'/-")
        if not word or word in STOPWORDS:
            continue
        parts = [p for p in re.split(r"[-_./']", word) if p]
        if len(parts) > 1:
            toks.append(word)
            toks.extend("-".join(parts[:i]) for i in range(2, len(parts)))
        else:
            sub = _ALNUM_SPLIT.findall(word)
            toks.append(stem(word) if use_stem else word)
            if len(sub) > 1:
                parts = sub
            else:
                continue
        toks.extend((stem(p) if use_stem else p) for p in parts if p not in STOPWORDS)
    return toks


class BM25Index:
    """BM25Okapi over chunk texts; scores come back aligned with `ids`."""

    def __init__(self, ids: list[str], token_lists: list[list[str]], k1: float, b: float,
                 use_stem: bool = True) -> None:
        self.ids = ids
        self.use_stem = use_stem
        # BM25Okapi cannot take an empty document list or empty documents.
        self._bm25 = BM25Okapi([t or ["\u2205"] for t in token_lists] or [["\u2205"]], k1=k1, b=b)
        # rank-bm25 scores by looping over every document per query token in Python; an
        # inverted index over its own statistics gives the same numbers ~10x faster.
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for i, freqs in enumerate(self._bm25.doc_freqs):
            for term, tf in freqs.items():
                docs, tfs = postings.setdefault(term, ([], []))
                docs.append(i)
                tfs.append(tf)
        self._postings = {t: (np.asarray(d), np.asarray(f, dtype=np.float64)) for t, (d, f) in postings.items()}
        self._norm = k1 * (1 - b + b * np.asarray(self._bm25.doc_len, dtype=np.float64) / self._bm25.avgdl)

    @classmethod
    def from_texts(cls, ids: list[str], texts: list[str], k1: float, b: float,
                   use_stem: bool = True) -> BM25Index:
        return cls(ids, [tokenize(t, use_stem) for t in texts], k1, b, use_stem)

    def scores(self, query: str) -> np.ndarray:
        q = tokenize(query, self.use_stem)
        out = np.zeros(len(self.ids))
        if not q or not self.ids:
            return out
        k1 = self._bm25.k1
        for term in q:  # repeated query tokens count repeatedly, as in BM25Okapi.get_scores
            if term not in self._postings:
                continue
            docs, tf = self._postings[term]
            out[docs] += (self._bm25.idf.get(term) or 0) * (tf * (k1 + 1) / (tf + self._norm[docs]))
        return out

    def reference_scores(self, query: str) -> np.ndarray:
        """rank-bm25's own (slow) scores, kept to check the fast path against."""
        return np.asarray(self._bm25.get_scores(tokenize(query, self.use_stem)), dtype=np.float64)

    def top(self, query: str, n: int) -> list[tuple[str, float]]:
        """Best `n` (id, score) with score > 0; ties broken by id order (stable)."""
        s = self.scores(query)
        order = sorted((i for i in range(len(s)) if s[i] > 0), key=lambda i: (-s[i], i))
        return [(self.ids[i], float(s[i])) for i in order[:n]]
