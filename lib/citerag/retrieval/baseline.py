"""LlamaIndex's default `VectorStoreIndex` retriever as a baseline row.

Same chunks, same text (title + heading prefix), same bundled embedding model
(through citerag's embedding cache, so building the baseline embeds nothing
new); only the retrieval logic is LlamaIndex's default in-memory top-k.
"""

from __future__ import annotations

from typing import Any

from llama_index.core import VectorStoreIndex
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.schema import TextNode
from pydantic import PrivateAttr

from citerag.build.index.embed import Embedder
from citerag.retrieval.store import IndexStore


class CiteragLlamaEmbedding(BaseEmbedding):
    """A llama-index embedding model backed by citerag's `Embedder` (offline, cached)."""

    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Embedder, **kwargs: Any) -> None:
        super().__init__(model_name=embedder.params.model, embed_batch_size=embedder.params.batch_size,
                         **kwargs)
        self._embedder = embedder

    @classmethod
    def class_name(cls) -> str:
        return "CiteragLlamaEmbedding"

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._embedder.embed_query(query).tolist()

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._embedder.embed([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._embedder.embed(texts).tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)


class LlamaIndexBaseline:
    """`VectorStoreIndex(...).as_retriever(similarity_top_k=k)` over the store's chunks."""

    def __init__(self, store: IndexStore, k: int = 8) -> None:
        embedder = Embedder(store.params.embed, cache_dir=store.params.paths.cache,
                            models_dir=store.params.paths.models)
        self.embed_model = CiteragLlamaEmbedding(embedder)
        nodes = [
            TextNode(id_=c.chunk_id, text=store.index_text(c),
                     metadata={"doc_id": c.doc_id, "start_page": c.start_page, "end_page": c.end_page},
                     # embed exactly the index text (also keeps the embedding cache warm)
                     excluded_embed_metadata_keys=["doc_id", "start_page", "end_page"])
            for c in store.chunks
        ]
        self.index = VectorStoreIndex(nodes, embed_model=self.embed_model, show_progress=False)
        self.k = k
        self.retriever = self.index.as_retriever(similarity_top_k=k)

    def search(self, query: str) -> list[dict]:
        out = []
        for rank, n in enumerate(self.retriever.retrieve(query), start=1):
            md = n.node.metadata
            out.append({"rank": rank, "chunk_id": n.node.node_id, "doc_id": md["doc_id"],
                        "start_page": md["start_page"], "end_page": md["end_page"],
                        "score": float(n.score or 0.0)})
        return out
