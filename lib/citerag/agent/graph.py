"""The evidence graph over chunks, and a stateful traversal from retrieved hits.

Edges: `next`/`prev` between neighbouring chunks of a document; `xref` from a
mention of `Algorithm N`, `Table N` or `Section x.y` to the chunk that defines
it (same document); `term` from a chunk that uses a glossary term to the
glossary chunk defining it. Traversal keeps an explicit state — visited nodes
and edges (nothing twice), findings with provenance, a confidence that never
decreases, corroborating sources and depth — and reports why it stopped.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import networkx as nx

from citerag.build.chunk import Chunk
from citerag.text.patterns import as_word

_REF = re.compile(r"\b(Algorithm|Table|Section|Sec\.)\s+(\d+(?:\.\d+)*)\b")
_GLOSSARY = re.compile(r"terms|definitions|glossary|acronyms", re.I)
EDGE_WEIGHT = {"next": 0.8, "prev": 0.6, "xref": 1.0, "term": 0.7}


def _definition_keys(c: Chunk) -> set[str]:
    """Anchors this chunk defines: algorithm titles, table captions, section headings."""
    keys = set()
    for line in c.text.split("\n"):
        m = re.match(r"^(Algorithm|Table)\s+(\d+)\b", line)
        if m:
            keys.add(f"{m.group(1).lower()} {m.group(2)}")
    for h in c.heading_path[-1:]:
        m = re.match(r"^(\d+(?:\.\d+)*)\.?\s", h)
        if m and c.text.startswith(h):
            keys.add(f"section {m.group(1)}")
    return keys


def build_graph(chunks: list[Chunk], max_terms_per_chunk: int = 5) -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        g.add_node(c.chunk_id, doc_id=c.doc_id, start_page=c.start_page)
        by_doc.setdefault(c.doc_id, []).append(c)
    defines: dict[tuple[str, str], str] = {}
    terms: dict[tuple[str, str], str] = {}
    for doc, cs in by_doc.items():
        cs.sort(key=lambda c: c.ordinal)
        for a, b in itertools.pairwise(cs):
            g.add_edge(a.chunk_id, b.chunk_id, key="next", kind="next")
            g.add_edge(b.chunk_id, a.chunk_id, key="prev", kind="prev")
        for c in cs:
            for k in _definition_keys(c):
                defines.setdefault((doc, k), c.chunk_id)
            if any(_GLOSSARY.search(h) for h in c.heading_path):
                for line in c.text.split("\n"):
                    cells = line.split(" | ")
                    if len(cells) == 2 and 3 <= len(cells[0]) <= 40:
                        terms.setdefault((doc, cells[0].strip().lower()), c.chunk_id)
    term_patterns = {doc: [(t, re.compile(as_word(t)))
                           for (d, t) in terms if d == doc and (" " in t or len(t) >= 5)]
                     for doc in by_doc}
    for c in chunks:
        for m in _REF.finditer(c.text):
            kind = "section" if m.group(1).startswith("Sec") else m.group(1).lower()
            target = defines.get((c.doc_id, f"{kind} {m.group(2)}"))
            if target and target != c.chunk_id:
                g.add_edge(c.chunk_id, target, key=f"xref:{kind} {m.group(2)}", kind="xref")
        low = c.text.lower()
        n = 0
        for t, pat in term_patterns.get(c.doc_id, []):
            target = terms[(c.doc_id, t)]
            if target != c.chunk_id and pat.search(low):
                g.add_edge(c.chunk_id, target, key=f"term:{t}", kind="term")
                n += 1
                if n >= max_terms_per_chunk:
                    break
    return g


@dataclass
class Finding:
    chunk_id: str
    doc_id: str
    score: float
    via: str  # the chunk it was reached from ("" for a seed)
    edge: str  # edge kind ("seed" for a retrieved hit)
    depth: int


@dataclass
class TraversalState:
    visited_nodes: list[str] = field(default_factory=list)
    visited_edges: list[tuple[str, str, str]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    confidence: float = 0.0
    sources: set[str] = field(default_factory=set)
    depth: int = 0
    stop_reason: str | None = None

    def to_dict(self) -> dict:
        return {"visited_nodes": self.visited_nodes, "visited_edges": [list(e) for e in self.visited_edges],
                "findings": [vars(f) for f in self.findings], "confidence": round(self.confidence, 4),
                "sources": sorted(self.sources), "depth": self.depth, "stop_reason": self.stop_reason}


def _confidence(state: TraversalState, min_score: float, target_sources: int) -> float:
    """Weighted from the best finding scores, corroborating documents and finding count."""
    good = sorted((f.score for f in state.findings if f.score >= min_score), reverse=True)
    if not good:
        return 0.0
    top = sum(good[:3]) / 3
    docs = len({f.doc_id for f in state.findings if f.score >= min_score})
    return min(1.0, 0.6 * top + 0.25 * min(1.0, docs / max(1, target_sources)) + 0.15 * min(1.0, len(good) / 5))


def traverse(graph: nx.MultiDiGraph, seeds: list[tuple[str, float]], score: Callable[[str], float],
             max_depth: int, confidence_threshold: float, min_sources: int,
             min_score: float = 0.3, doc_of: Callable[[str], str] | None = None) -> TraversalState:
    """Breadth-first expansion from seed hits; stops on confidence, sources, depth or an empty frontier."""
    doc_of = doc_of or (lambda cid: graph.nodes[cid]["doc_id"])
    st = TraversalState()

    def record(cid: str, s: float, via: str, edge: str, depth: int) -> None:
        st.visited_nodes.append(cid)
        st.findings.append(Finding(cid, doc_of(cid), round(s, 4), via, edge, depth))
        if s >= min_score:
            st.sources.add(doc_of(cid))
        st.confidence = max(st.confidence, _confidence(st, min_score, min_sources))  # never decreases

    frontier = []
    for cid, _ in seeds:
        if cid not in st.visited_nodes:
            record(cid, score(cid), "", "seed", 0)
            frontier.append(cid)

    def done() -> str | None:
        if st.confidence >= confidence_threshold:
            return "confidence_reached"
        if len(st.sources) >= min_sources:
            return "sources_reached"
        return None

    while True:
        if (reason := done()) is not None:
            st.stop_reason = reason
            return st
        if st.depth >= max_depth:
            st.stop_reason = "max_depth"
            return st
        nxt = []
        for cid in frontier:
            for _, target, key, data in sorted(graph.out_edges(cid, keys=True, data=True), key=lambda e: (e[2], e[1])):
                edge = (cid, target, key)
                if edge in st.visited_edges:
                    continue
                st.visited_edges.append(edge)
                if target in st.visited_nodes:
                    continue
                record(target, score(target) * EDGE_WEIGHT[data["kind"]], cid, data["kind"], st.depth + 1)
                nxt.append(target)
        st.depth += 1
        if not nxt:
            st.stop_reason = "frontier_empty"
            return st
        frontier = nxt
