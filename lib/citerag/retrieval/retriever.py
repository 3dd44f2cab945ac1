"""Retrievers: dense (Chroma), BM25, and hybrid (RRF over both + query variants → rerank).

Every stage's ranking is kept in the result, so a miss can be explained as
never retrieved, lost in fusion, or demoted by the reranker.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from citerag.build.chunk import Chunk
from citerag.core.params import RetrieveParams
from citerag.core.types import Located, Location
from citerag.retrieval import rerank
from citerag.retrieval.query import QueryAnalysis, analyse, word_runs
from citerag.retrieval.store import IndexStore
from citerag.text.inflect import derives_from
from citerag.text.patterns import GLOSSARY_HEADING, holds_any, names_place, query_phrases
from citerag.text.tokenize import STOPWORDS, tokenize


@dataclass(frozen=True)
class Filters:
    """Metadata filters: documents and an inclusive physical page range (overlap)."""

    doc_ids: tuple[str, ...] | None = None
    page_from: int | None = None
    page_to: int | None = None

    def allows(self, doc_id: str, start: int, end: int) -> bool:
        if self.doc_ids is not None and doc_id not in self.doc_ids:
            return False
        if self.page_from is not None and end < self.page_from:
            return False
        return not (self.page_to is not None and start > self.page_to)

    def chroma_where(self) -> dict | None:
        clauses: list[dict] = []
        if self.doc_ids is not None:
            clauses.append({"doc_id": {"$in": list(self.doc_ids)}})
        if self.page_from is not None:
            clauses.append({"end_page": {"$gte": self.page_from}})
        if self.page_to is not None:
            clauses.append({"start_page": {"$lte": self.page_to}})
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}


@dataclass
class Hit(Located):
    rank: int
    loc: Location
    score: float
    ranks: dict[str, int | None] = field(default_factory=dict)
    features: dict[str, float] = field(default_factory=dict)

    def contract(self) -> dict[str, Any]:
        """The batch-contract form of a hit (other tools depend on these exact keys)."""
        return {"rank": self.rank, **self.loc.as_dict(), "score": round(self.score, 6)}


@dataclass
class RetrievalResult:
    query: str
    analysis: QueryAnalysis
    hits: list[Hit]
    rankings: dict[str, list[str]]  # stage -> chunk ids in rank order

    def ids(self) -> list[str]:
        return [h.chunk_id for h in self.hits]


def rrf(rankings: list[tuple[list[str], float]], k0: float) -> dict[str, float]:
    """Reciprocal rank fusion: sum of weight / (k0 + rank) over the rankings (rank from 1)."""
    scores: dict[str, float] = {}
    for ids, weight in rankings:
        for r, cid in enumerate(ids, start=1):
            scores[cid] = scores.get(cid, 0.0) + weight / (k0 + r)
    return scores


class Retriever:
    """Search one index with the knobs of `RetrieveParams`."""

    def __init__(self, store: IndexStore, params: RetrieveParams) -> None:
        self.store, self.p = store, params
        self._tiebreak = {c.chunk_id: (c.doc_id, c.start_page, c.chunk_id) for c in store.chunks}

    # -- single rankings --------------------------------------------------------------

    def _allowed(self, filters: Filters | None) -> np.ndarray | None:
        if filters is None:
            return None
        return np.array([filters.allows(c.doc_id, c.start_page, c.end_page) for c in self.store.chunks])

    def dense_ranking(self, qvec: np.ndarray, filters: Filters | None, depth: int,
                      allowed: np.ndarray | None = None) -> list[str]:
        """The `depth` chunks nearest the query by cosine distance, exactly (default) or by the
        collection's HNSW search (`retrieve.dense_search: chroma`)."""
        n = min(depth, len(self.store.chunks))  # the collection holds exactly the store's chunks
        if self.p.dense_search == "exact":
            dist = 1.0 - self.store.vectors @ qvec
            if filters is not None:
                keep = self._allowed(filters) if allowed is None else allowed
                dist = np.where(keep, dist, np.inf)
            cand = np.argpartition(dist, n - 1)[:n] if 0 < n < len(dist) else np.arange(len(dist))
            chunks = self.store.chunks  # aligned with `vectors`
            pairs = [(chunks[i].chunk_id, float(dist[i])) for i in cand if np.isfinite(dist[i])]
        else:
            where = filters.chroma_where() if filters else None
            res = self.store.collection.query(query_embeddings=[qvec.tolist()], n_results=n, where=where,
                                              include=["distances"])
            pairs = list(zip(res["ids"][0], res["distances"][0]))
        pairs.sort(key=lambda p: (round(p[1], 6), self._tiebreak[p[0]]))
        return [cid for cid, _ in pairs]

    def bm25_ranking(self, text: str, allowed: np.ndarray | None, depth: int) -> list[str]:
        s = self.store.bm25.scores(text)
        ids = self.store.bm25.ids
        hit = s > 0 if allowed is None else (s > 0) & allowed
        cand = np.flatnonzero(hit)  # only chunks holding a query term, not every chunk
        if len(cand) > 4 * depth:  # keep a margin for exact ties at the cut, then order exactly
            cut = np.partition(s[cand], len(cand) - 4 * depth)[len(cand) - 4 * depth]
            cand = cand[s[cand] >= cut]
        order = sorted(cand.tolist(), key=lambda i: (-round(float(s[i]), 9), self._tiebreak[ids[i]]))
        return [ids[i] for i in order[:depth]]

    def phrase_ranking(self, phrase: str, allowed: np.ndarray | None, depth: int) -> list[str]:
        """Chunks that hold the phrase (from `query_phrases`) verbatim, by BM25 score. Only the
        chunks BM25 scores above zero for the phrase are read, not every chunk."""
        return self._bm25_where(phrase, lambda c: holds_any((phrase,), c.text), allowed, depth)

    def definition_ranking(self, subject: str, allowed: np.ndarray | None, depth: int) -> list[str]:
        """Chunks with a sentence that opens by defining the subject ("A KEX is a …", "KEXs are
        the …"; not "the AB-KEX is", a longer name), or, in a glossary section, with an entry for
        it (the term opening a line, its definition's capital after it: "key pair A set of two
        keys …"), by their BM25 score for the subject. A glossary's short entry otherwise ranks
        below longer passages that use the term, and the named document's own entry is lost.
        (Outside a glossary, a line opening with a name and a capital is mostly a title: "Gri
        Commands".)"""
        s = " ".join(re.sub(r"^(?:an?|the)\s+", "", subject.lower().strip(" ,;:.?")).split())
        if not s:
            return []
        term = re.escape(s)
        opening = re.compile(rf"(?:^|[.!?:]\s+|\n\s*)(?:(?:an?|the)\s+)?{term}s?\s+(?:is|are)\s+(?:an?|the)\b", re.I)
        entry = re.compile(rf"(?:^|\n)[ \t]*(?:[-•*][ \t]*)?{term}(?:[ \t]*\n\s*|[ \t]+)(?-i:[A-Z][a-z ])", re.I)
        return self._bm25_where(s, lambda c: opening.search(c.text) is not None or (
            GLOSSARY_HEADING.search(" ".join(c.heading_path)) is not None and entry.search(c.text) is not None),
            allowed, depth)

    def _bm25_where(self, query: str, keep: Callable[[Chunk], bool], allowed: np.ndarray | None,
                    depth: int) -> list[str]:
        """The chunks BM25 scores above zero for the query that pass `keep`, by that score (ties
        in the fixed order): only those chunks are read, not every chunk."""
        ids = self.store.bm25.ids
        scores = self.store.bm25.scores(query)
        hit = scores > 0 if allowed is None else (scores > 0) & allowed
        by_id = self.store.by_id
        found = [i for i in np.flatnonzero(hit).tolist() if keep(by_id[ids[i]])]
        found.sort(key=lambda i: (-round(float(scores[i]), 9), self._tiebreak[ids[i]]))
        return [ids[i] for i in found[:depth]]

    def verbatim_runs(self, query: str, candidates: list[str], allowed: np.ndarray | None) -> tuple[str, ...]:
        """The question's longest runs of words (`word_runs`) that a candidate of a references
        list writes verbatim and that at most `verbatim_max_chunks` chunks write: a cited title
        the question writes without quotes. Such a list chunk loses its boilerplate penalty in the
        rerank, so the entry of a title asked about is not lost. Only the pool's reference-list
        chunks are read, and a pool without one (most queries) costs nothing."""
        p = self.p
        if p.verbatim_words <= 0:
            return ()
        chunks = [self.store.by_id[c] for c in candidates]
        texts = [c.text for c in chunks if rerank.in_references(c)]
        if not texts:
            return ()
        chosen: list[str] = []
        for run in word_runs(query, p.verbatim_words):
            if any(run in c for c in chosen) or not any(holds_any((run,), t) for t in texts):
                continue
            if len(self.phrase_ranking(run, allowed, p.verbatim_max_chunks + 1)) <= p.verbatim_max_chunks:
                chosen.append(run)
        return tuple(chosen)

    def rare_names(self, qa: QueryAnalysis, max_chunks: int) -> tuple[str, ...]:
        """The question's lower-case words that are no ordinary English and that at most
        `max_chunks` chunks write ("insidebox", "fullgroups"): names of options and commands, as a
        code name is."""
        ordinary = self.store.ordinary
        if not ordinary or max_chunks <= 0:
            return ()
        out = []
        for w in re.findall(r"(?<![\w.-])[a-z]{4,}(?![\w.-])", qa.text):
            toks = tokenize(w)
            if (w not in STOPWORDS and toks and 0 < self.store.bm25.chunk_count(toks[0]) <= max_chunks
                    and not derives_from(w, ordinary)):
                out.append(w)
        return tuple(dict.fromkeys(out))

    # -- the pipeline -----------------------------------------------------------------

    def search(self, query: str, k: int | None = None, filters: Filters | None = None,
               mode_hint: str | None = None) -> RetrievalResult:
        p = self.p
        k = k or p.k
        qa = analyse(query, self.store.knowledge, mode_hint, p.max_variants, acronyms=p.variants)
        allowed = self._allowed(filters)
        rankings: dict[str, list[str]] = {}
        qvec = None
        text = unscoped(query, qa.doc_mentions)
        if p.method in ("hybrid", "dense"):
            qvec = self.store.embedder.embed_query(text)
            rankings["dense"] = self.dense_ranking(qvec, filters, p.depth, allowed)
        if p.method in ("hybrid", "bm25"):
            rankings["bm25"] = self.bm25_ranking(text, allowed, p.depth)
        fuse_in = [(rankings.get("dense", []), p.weight_dense), (rankings.get("bm25", []), p.weight_bm25)]
        if p.method == "hybrid" and p.variants:
            for i, v in enumerate(qa.variants):
                rankings[f"variant{i + 1}"] = self.bm25_ranking(v, allowed, p.depth)
                fuse_in.append((rankings[f"variant{i + 1}"], p.variant_weight))
        if p.method == "hybrid" and p.phrase_weight > 0:
            for i, phrase in enumerate(query_phrases(query)):
                rankings[f"phrase{i + 1}"] = self.phrase_ranking(phrase, allowed, p.depth)
                fuse_in.append((rankings[f"phrase{i + 1}"], p.phrase_weight))
        if p.method == "hybrid" and p.definition_weight > 0 and qa.subject:
            rankings["defines"] = self.definition_ranking(qa.subject, allowed, p.depth)
            fuse_in.append((rankings["defines"], p.definition_weight))
        fused = rrf([(ids, w) for ids, w in fuse_in if ids], p.rrf_k0)
        fused_order = sorted(fused, key=lambda c: (-round(fused[c], 12), self._tiebreak[c]))
        rankings["fused"] = fused_order

        feats: dict[str, dict[str, float]] = {}
        if p.method == "hybrid" and p.rerank and fused_order:
            pool = fused_order[: p.rerank_depth]
            if qvec is None:
                qvec = self.store.embedder.embed_query(text)
            pos = self.store.position
            sims = self.store.vectors[[pos[c] for c in pool]] @ qvec
            best = fused[pool[0]]
            hints = rerank.doc_hints(qa, self.store.knowledge.name_docs)
            names = (*qa.code_names, *self.rare_names(qa, p.rare_name_chunks))
            weights = {i: max(self.store.bm25.term_idf(i), 0.0) for i in names} if p.identifier_idf else None
            runs = self.verbatim_runs(text, pool, allowed)
            final_scores = {}
            for cid, sim in zip(pool, sims):
                f = rerank.features(qa, self.store.by_id[cid], fused[cid] / best, float(sim), hints,
                                    p.heading_identifiers, weights, names, runs)
                feats[cid] = f
                final_scores[cid] = rerank.score(f, p.weights)
            final = sorted(pool, key=lambda c: (-round(final_scores[c], 9), self._tiebreak[c]))
            rankings["rerank"] = final
        else:
            final_scores = fused
            final = fused_order
        stage_pos = {name: {cid: r for r, cid in enumerate(ids, start=1)} for name, ids in rankings.items()}
        hits = []
        for r, cid in enumerate(final[:k], start=1):
            c = self.store.by_id[cid]
            hits.append(Hit(r, Location.of(c), float(final_scores[cid]),
                            {name: pos.get(cid) for name, pos in stage_pos.items()}, feats.get(cid, {})))
        return RetrievalResult(query, qa, hits, rankings)


def unscoped(query: str, mentions: tuple[str, ...]) -> str:
    """The query without the documents it names by number or title ("How does RFC 9999 define a
    public channel?" → "How does define a public channel?"): those tokens match a document's
    title pages and every reference to it, not the passage asked about. The reranker's document
    hint keeps the named document first. A document named by name (it is also the topic), and
    a query that names nothing else, keep their words."""
    out = query
    for m in mentions:
        if names_place(m):
            out = re.sub(rf"(?:\b(?:in|of|from|under|according to)\s+)?(?:\bthe\s+)?{re.escape(m)}(?:['’]s)?", " ", out)
    out = re.sub(r"\s+([?.!,;:])", r"\1", re.sub(r"\s+", " ", out)).strip()
    return out if tokenize(out) else query
