"""JSON-lines batch I/O shared by `citerag retrieve`, `ask` and `chat`.

Inputs are validated in full before any work starts, so a bad line 900 fails
in a second with its line number instead of after 899 answers; outputs are
written atomically (one line per input line, in order).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from citerag.core.artifacts import write_jsonl


class BatchInputError(ValueError):
    """A batch input file or line is unusable; the message names the file and line."""


def read_jsonl_records(path: str | Path, required: dict[str, type],
                       check: Callable[[dict], str | None] | None = None,
                       unique: str | None = None) -> list[dict[str, Any]]:
    """Parse every non-blank line; each must be a JSON object with the `required` fields
    (and pass `check`, which returns a problem description or None). `unique` names the id
    field (qid, cid): it must be a non-empty string or a number, and appear once. A file
    with no record is an error, not an empty batch."""
    p = Path(path)
    if not p.is_file():
        raise BatchInputError(f"{p}: file not found")
    records = []
    seen: dict[Any, int] = {}
    for n, raw in enumerate(p.read_bytes().splitlines(), start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BatchInputError(f"{p}:{n}: not UTF-8 text (byte {exc.start} of the line)") from None
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BatchInputError(f"{p}:{n}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise BatchInputError(f"{p}:{n}: expected a JSON object, got {type(obj).__name__}")
        for key, typ in required.items():
            if key not in obj:
                raise BatchInputError(f"{p}:{n}: missing field {key!r}")
            value = obj[key]
            if typ is str and (not isinstance(value, str) or not value.strip()):
                raise BatchInputError(f"{p}:{n}: field {key!r} must be a non-empty string")
            if typ is list and not isinstance(value, list):
                raise BatchInputError(f"{p}:{n}: field {key!r} must be a list")
        if unique is not None:
            ident = obj.get(unique)
            if isinstance(ident, bool) or not (isinstance(ident, int | float) or
                                               (isinstance(ident, str) and ident.strip())):
                raise BatchInputError(f"{p}:{n}: field {unique!r} must be a non-empty string or a number"
                                      f" (got {ident!r})")
            if ident in seen:
                raise BatchInputError(f"{p}:{n}: duplicate {unique} {ident!r} (first on line {seen[ident]})")
            seen[ident] = n
        problem = check(obj) if check else None
        if problem:
            raise BatchInputError(f"{p}:{n}: {problem}")
        records.append(obj)
    if not records:
        raise BatchInputError(f"{p}: no records (the file is empty or blank)")
    return records


def write_jsonl_atomic(path: str | Path, rows: Iterable[dict[str, Any]]) -> int:
    """Contract output: key order as built (qid first), written atomically."""
    return write_jsonl(Path(path), rows, sort_keys=False)


def conversation_problem(obj: dict) -> str | None:
    """A `chat --conversations` line needs at least one turn, each with a non-empty `user` text."""
    if not obj["turns"]:
        return "field 'turns' must not be empty"
    for i, t in enumerate(obj["turns"]):
        if not isinstance(t, dict) or not isinstance(t.get("user"), str) or not t["user"].strip():
            return f"turns[{i}].user must be a non-empty string"
    return None
