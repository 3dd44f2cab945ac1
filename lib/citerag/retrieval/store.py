"""The built index, opened once: chunks, Chroma collection, vectors, BM25, embedder, knowledge.

Serving opens what a build command built (`citerag index`, notebooks 01–03,
ablation pre-builds); it never builds. Params whose artifacts are missing or
stale (the manifest, profile, params or code changed) get one line naming the
command that builds them, and nothing is written.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from citerag.build.chunk import Chunk
from citerag.build.index.bm25 import BM25Index
from citerag.build.index.embed import Embedder, model_vocabulary
from citerag.build.knowledge import CorpusKnowledge
from citerag.build.pipeline import NotBuiltError, StageResult, index_text, load_chunks, load_knowledge, open_stages
from citerag.core.artifacts import read_jsonl
from citerag.core.params import Params


@dataclass
class IndexStore:
    params: Params
    chunks: list[Chunk]
    vectors: np.ndarray  # aligned with `chunks`, unit norm
    bm25: BM25Index
    embedder: Embedder
    knowledge: CorpusKnowledge
    stages: dict[str, StageResult] = field(default_factory=dict)

    @cached_property
    def collection(self):
        """The Chroma collection (for `retrieve.dense_search: chroma`): on the Chroma server for
        `index.store: http`; else opened from a private copy made on first use, since Chroma
        rewrites its files even when only queried, and a built artifact must stay byte-identical
        to what the build wrote."""
        from citerag.build.index import chroma  # chromadb costs ~1.7 s to import; serving rarely needs it

        if self.params.index.store == "http":
            name = chroma.remote_name(self.params.index.collection, self.stages["index"].digest)
            return chroma.open_remote(self.params.index.http, name)
        tmp = Path(tempfile.mkdtemp(prefix="citerag-chroma-"))
        atexit.register(shutil.rmtree, tmp, True)
        shutil.copytree(self.stages["index"].dir / "chroma", tmp / "chroma")
        return chroma.open_collection(tmp / "chroma", self.params.index.collection)

    @cached_property
    def ordinary(self) -> frozenset[str]:
        """General-English words: the whole words of the embedding model's vocabulary."""
        return model_vocabulary(self.params.embed.model)

    @property
    def titles(self) -> dict[str, str]:
        return self.knowledge.titles

    @cached_property
    def by_id(self) -> dict[str, Chunk]:
        return {c.chunk_id: c for c in self.chunks}

    @cached_property
    def position(self) -> dict[str, int]:
        return {c.chunk_id: i for i, c in enumerate(self.chunks)}

    @cached_property
    def doc_ids(self) -> list[str]:
        return sorted({c.doc_id for c in self.chunks})

    def index_text(self, chunk: Chunk) -> str:
        return index_text(chunk, self.titles, self.params.embed.prefix_headings)


_STORES: dict[str, IndexStore] = {}


def load_store(params: Params, params_hint: str = "PARAMS") -> IndexStore:
    """The store for these params, opened from built artifacts and cached in-process.
    Raises `NotBuiltError` (naming `citerag index --params <params_hint>`) when not built."""
    stages = open_stages(params, params_hint)
    index = stages["index"]
    key = f"{index.digest}:{stages['knowledge'].digest}"
    if key in _STORES:
        return _STORES[key]
    chunks = load_chunks(stages["chunk"])
    vectors = np.load(index.dir / "vectors.npy")
    if vectors.shape[0] != len(chunks):
        raise NotBuiltError(f"{index.dir}: vectors.npy holds {vectors.shape[0]} rows for {len(chunks)} chunks;"
                            f" rebuild with `citerag index --params {params_hint}`")
    tokens = {r["chunk_id"]: r["tokens"] for r in read_jsonl(index.dir / "bm25_tokens.jsonl")}
    bm25 = BM25Index([c.chunk_id for c in chunks], [tokens[c.chunk_id] for c in chunks],
                     params.index.bm25_k1, params.index.bm25_b, params.index.bm25_stem)
    embedder = Embedder(params.embed, cache_dir=params.paths.cache, models_dir=params.paths.models)
    store = IndexStore(params, chunks, vectors, bm25, embedder, load_knowledge(stages["knowledge"]), stages)
    _STORES[key] = store
    return store
