"""Run folders: where papermill writes executed notebooks and the run summary.

`summary.json` is flat per section (one object per stage/notebook) so later
reports can compare runs key by key.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from citerag.artifacts import write_json_atomic
from citerag.params import Params, stable_hash
from citerag.paths import resolve

SUMMARY = "summary.json"


def params_digest(params: Params) -> str:
    return stable_hash(params.to_dict())


def new_run_name(params_path: str | Path | None, params: Params) -> str:
    stem = Path(params_path).stem if params_path else "default"
    return f"{stem}-{params_digest(params)[:8]}-{time.strftime('%Y%m%d-%H%M%S')}"


def run_dir(params: Params, name: str) -> Path:
    return resolve(params.paths.runs) / name


def record_summary(folder: str | Path | None, section: str, data: dict[str, Any]) -> None:
    """Merge `data` under `section` in the run's summary.json (no-op without a run folder)."""
    if not folder:
        return
    path = Path(folder) / SUMMARY
    summary = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    summary[section] = data
    write_json_atomic(path, summary)


def read_summary(folder: str | Path) -> dict[str, Any]:
    path = Path(folder) / SUMMARY
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
