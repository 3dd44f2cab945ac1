"""The built index, loaded once: chunks, Chroma collection, vectors, BM25, embedder.

Loading goes through `pipeline.build_all`, so asking for a store with params
whose artifacts do not exist yet builds them (and reuses whatever exists).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from citerag.build.chunk import Chunk
from citerag.build.index import chroma
from citerag.build.index.bm25 import BM25Index
from citerag.build.index.embed import Embedder
from citerag.build.pipeline import StageResult, build_all, doc_titles, index_text, load_chunks
from citerag.core.artifacts import read_jsonl
from citerag.core.params import Params


@dataclass
class IndexStore:
    params: Params
    chunks: list[Chunk]
    vectors: np.ndarray  # aligned with `chunks`, unit norm
    collection: object  # chromadb.Collection
    bm25: BM25Index
    embedder: Embedder
    titles: dict[str, str]
    stages: dict[str, StageResult] = field(default_factory=dict)

    @cached_property
    def by_id(self) -> dict[str, Chunk]:
        return {c.chunk_id: c for c in self.chunks}

    @cached_property
    def position(self) -> dict[str, int]:
        return {c.chunk_id: i for i, c in enumerate(self.chunks)}

    @cached_property
    def doc_ids(self) -> list[str]:
        return sorted({c.doc_id for c in self.chunks})

    @cached_property
    def glossary(self) -> dict[str, str]:
        """Acronym → expansion, mined from the corpus's own glossaries and "Expansion (ACR)" text."""
        from citerag.retrieval.query import mine_acronyms

        return mine_acronyms(self.chunks)

    def index_text(self, chunk: Chunk) -> str:
        return index_text(chunk, self.titles, self.params.embed.prefix_headings)


_STORES: dict[str, IndexStore] = {}


def load_store(params: Params, log=lambda _m: None) -> IndexStore:
    """The store for these params (built if needed), cached per index artifact in-process."""
    stages = build_all(params, log=log, progress=False)
    index = stages["index"]
    if index.digest in _STORES:
        return _STORES[index.digest]
    chunks = load_chunks(stages["chunk"])
    coll = chroma.open_collection(index.dir / "chroma", params.index.collection)
    got = coll.get(include=["embeddings"])
    pos = {cid: i for i, cid in enumerate(got["ids"])}
    vectors = np.asarray([got["embeddings"][pos[c.chunk_id]] for c in chunks], dtype=np.float32)
    tokens = {r["chunk_id"]: r["tokens"] for r in read_jsonl(index.dir / "bm25_tokens.jsonl")}
    bm25 = BM25Index([c.chunk_id for c in chunks], [tokens[c.chunk_id] for c in chunks],
                     params.index.bm25_k1, params.index.bm25_b, params.index.bm25_stem)
    store = IndexStore(params, chunks, vectors, coll, bm25, Embedder(params.embed, cache_dir=params.paths.cache),
                       doc_titles(params), stages)
    _STORES[index.digest] = store
    return store
