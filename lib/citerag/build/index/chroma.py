"""The dense index: an embedded, persistent Chroma collection over chunks.

Vectors come from `Embedder` (and its cache), so Chroma never embeds on its
own; the collection still records a registered embedding function, because
Chroma refuses to reopen a collection whose function it cannot rebuild, and
its default function would try to download a model.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import chromadb
import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.config import Settings
from chromadb.utils.embedding_functions import register_embedding_function

from citerag.build.chunk import Chunk
from citerag.build.index.embed import Embedder
from citerag.core.params import ChromaHttpParams, EmbedParams


@register_embedding_function
class CiteragEmbeddingFunction(EmbeddingFunction[Documents]):
    """Chroma-facing wrapper of `Embedder` (offline, bundled model)."""

    def __init__(self, model: str, max_seq_length: int = 256, normalize: bool = True,
                 backend: str = "torch", precision: str = "fp32") -> None:
        self._params = EmbedParams(model=model, max_seq_length=max_seq_length, normalize=normalize,
                                   backend=backend, precision=precision)
        self._embedder = Embedder(self._params)

    def __call__(self, input: Documents) -> Embeddings:
        return list(self._embedder.embed(list(input)))

    @staticmethod
    def name() -> str:
        return "citerag-sentence-transformers"

    def get_config(self) -> dict[str, Any]:
        return {"model": self._params.model, "max_seq_length": self._params.max_seq_length,
                "normalize": self._params.normalize, "backend": self._params.backend,
                "precision": self._params.precision}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> CiteragEmbeddingFunction:
        return CiteragEmbeddingFunction(**config)

    def is_legacy(self) -> bool:
        return False


# Cosine space, one insertion thread, and a search beam of 1000. With Chroma's default beam (100)
# the dense neighbours past the first ten or so differed between two processes opening the same
# store, even with one thread. With this beam the top 40 equal exact (numpy) search on every dev
# question of both corpora (928 and 1645 chunks) and are identical across processes
# (tests/test_reproducible.py). A query costs more as the beam grows, so this is a setting to
# revisit for collections far larger than these.
HNSW = {"space": "cosine", "num_threads": 1, "ef_search": 1000}


def client(path: Path) -> chromadb.ClientAPI:
    return chromadb.PersistentClient(
        path=str(path), settings=Settings(anonymized_telemetry=False, allow_reset=False)
    )


def _forget_client(path: Path) -> None:
    """Drop Chroma's in-process client for `path` (it caches one per folder).

    A stage folder rebuilt in the same process (deleted, then written again)
    would otherwise reuse a client bound to the deleted files. Chroma has no
    public call for one path, hence the class attribute.
    """
    from chromadb.api.shared_system_client import SharedSystemClient

    system = SharedSystemClient._identifier_to_system.pop(str(path), None)
    SharedSystemClient._identifier_to_refcount.pop(str(path), None)
    if system is not None:
        system.stop()


def chunk_metadata(c: Chunk) -> dict[str, Any]:
    """Chroma metadata holds scalars only; lists are joined."""
    return {
        "doc_id": c.doc_id, "start_page": c.start_page, "end_page": c.end_page,
        "ordinal": c.ordinal, "heading": " > ".join(c.heading_path), "kinds": ",".join(c.kinds),
    }


def http_client(hp: ChromaHttpParams) -> chromadb.ClientAPI:
    """A client of the Chroma server `hp` names; the auth header's value comes from the variable
    `hp.auth_env` (never from params, so it never reaches run.json or a trace)."""
    headers = {}
    if hp.auth_env:
        value = os.environ.get(hp.auth_env)
        if not value:
            raise RuntimeError(f"index.http.auth_env: the variable {hp.auth_env} is not set")
        headers[hp.auth_header] = value
    return chromadb.HttpClient(host=hp.host, port=hp.port, ssl=hp.ssl, headers=headers,
                               settings=Settings(anonymized_telemetry=False))


def remote_name(collection: str, index_digest: str) -> str:
    """The server-side collection of one index build: content-addressed like the artifact, so
    variants and rebuilds never overwrite each other's collections."""
    return f"{collection}-{index_digest}"


def write_remote(hp: ChromaHttpParams, name: str, chunks: list[Chunk], vectors: np.ndarray,
                 params: EmbedParams) -> None:
    """Write the collection to a Chroma server, replacing a half-written one of the same build."""
    api = http_client(hp)
    if name in {c if isinstance(c, str) else c.name for c in api.list_collections()}:
        api.delete_collection(name)
    _fill(api, name, chunks, vectors, params)


def open_remote(hp: ChromaHttpParams, name: str) -> chromadb.Collection:
    api = http_client(hp)
    return api.get_collection(name=name, embedding_function=_stored_function(api, name))


def write_collection(
    path: Path, name: str, chunks: list[Chunk], vectors: np.ndarray, params: EmbedParams,
    batch: int = 512,
) -> None:
    """Create the collection (cosine HNSW) in `path` and add every chunk with its vector."""
    _forget_client(path)
    _fill(client(path), name, chunks, vectors, params, batch)
    # Release Chroma's files: the stage folder is renamed into place after this.
    _forget_client(path)


def _fill(api: chromadb.ClientAPI, name: str, chunks: list[Chunk], vectors: np.ndarray, params: EmbedParams,
          batch: int = 512) -> None:
    """Create the collection and add every chunk with its precomputed vector.

    See `HNSW` for why the search is configured for reproducible, exact neighbours."""
    ef = CiteragEmbeddingFunction(params.model, params.max_seq_length, params.normalize, params.backend,
                                  params.precision)
    coll = api.create_collection(
        name=name, embedding_function=ef, configuration={"hnsw": HNSW},
    )
    for i in range(0, len(chunks), batch):
        part = chunks[i : i + batch]
        coll.add(
            ids=[c.chunk_id for c in part],
            embeddings=vectors[i : i + batch],
            documents=[c.text for c in part],
            metadatas=[chunk_metadata(c) for c in part],
        )


def open_collection(path: Path, name: str) -> chromadb.Collection:
    """Reopen a persisted collection with its embedding function rebuilt from the stored config.

    Chroma rebuilds our registered function from the collection's configuration;
    passing it back explicitly keeps text queries off Chroma's downloading default.
    """
    api = client(path)
    return api.get_collection(name=name, embedding_function=_stored_function(api, name))


def _stored_function(api: chromadb.ClientAPI, name: str) -> CiteragEmbeddingFunction:
    ef = api.get_collection(name=name).configuration.get("embedding_function")
    if not isinstance(ef, CiteragEmbeddingFunction):
        raise RuntimeError(f"collection {name!r} was not written by citerag")
    return ef
