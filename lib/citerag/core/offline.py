"""Offline switches, applied once when citerag is imported.

Every library in the stack tries the network somewhere (model hubs, telemetry,
tokenizer downloads). These defaults keep a run offline; a user who really
wants the network can still set the variables before importing citerag.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

_DEFAULTS = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "ORT_DISABLE_TELEMETRY": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "RAGAS_DO_NOT_TRACK": "true",
    "TOKENIZERS_PARALLELISM": "false",
    "DO_NOT_TRACK": "1",
}


def apply() -> None:
    for key, value in _DEFAULTS.items():
        os.environ.setdefault(key, value)
    # llama-index ships tiktoken and nltk caches; point the libraries at them so
    # they never try to download (also when used outside llama-index).
    spec = importlib.util.find_spec("llama_index.core")
    if spec and spec.submodule_search_locations:
        static = Path(next(iter(spec.submodule_search_locations))) / "_static"
        if (static / "tiktoken_cache").is_dir():
            os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(static / "tiktoken_cache"))
        if (static / "nltk_cache").is_dir():
            os.environ.setdefault("NLTK_DATA", str(static / "nltk_cache"))
