"""Run folders: where papermill writes executed notebooks, the run's params and its summary.

`summary.json` is flat — one number per metric under a `section.metric` key,
plus `run_id` and `params_hash` — so any two runs (or ablation variants)
compare key by key. `run.json` holds what produced the run: the params file,
the overrides and the full validated params.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

from citerag.core.artifacts import write_json_atomic
from citerag.core.params import Params, stable_hash
from citerag.core.paths import resolve

SUMMARY = "summary.json"
RUN_INFO = "run.json"


def params_digest(params: Params) -> str:
    return stable_hash(params.to_dict())


def new_run_name(params_path: str | Path | None, params: Params) -> str:
    stem = Path(params_path).stem if params_path else "default"
    return f"{stem}-{params_digest(params)[:8]}-{time.strftime('%Y%m%d-%H%M%S')}"


def run_dir(params: Params, name: str) -> Path:
    return resolve(params.paths.runs) / name


def flatten(section: str, data: dict[str, Any]) -> dict[str, Any]:
    """`{"a": {"b": 1}}` under `s` → `{"s.a.b": 1}`; lists and other non-scalars are dropped
    (they belong in per-question files, not in the one-number-per-metric summary)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{section}.{key}" if section else str(key)
        if isinstance(value, dict):
            out.update(flatten(name, value))
        elif isinstance(value, float) and math.isnan(value):
            out[name] = None
        elif isinstance(value, bool | int | float | str) or value is None:
            out[name] = value
    return out


def start_run(folder: Path, params: Params, params_path: str | Path, overrides: dict[str, Any]) -> None:
    """Write run.json and the summary's identity keys (a re-run of the folder starts clean)."""
    folder.mkdir(parents=True, exist_ok=True)
    digest = params_digest(params)
    write_json_atomic(folder / RUN_INFO, {"run_id": folder.name, "params_hash": digest,
                                          "params_path": str(params_path), "overrides": overrides,
                                          "params": params.to_dict()})
    write_json_atomic(folder / SUMMARY, {"run_id": folder.name, "params_hash": digest})


def record_summary(folder: str | Path | None, section: str, data: dict[str, Any]) -> None:
    """Merge `data`, flattened under `section`, into the run's summary.json (no-op without a run folder)."""
    if not folder:
        return
    path = Path(folder) / SUMMARY
    summary = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    summary.update(flatten(section, data))
    write_json_atomic(path, summary)


def read_summary(folder: str | Path) -> dict[str, Any]:
    path = Path(folder) / SUMMARY
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
