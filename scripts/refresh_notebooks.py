"""Execute notebooks and commit only their deterministic outputs.

Keeps the outputs of cells marked `# NBVAL_CHECK_OUTPUT` (what nbval compares)
and clears every other output (timings, paths, plots), so diffs stay small
and nbval checks facts, not noise.  Usage: python scripts/refresh_notebooks.py [NB ...]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import nbformat
from citerag.experiments.notebooks import execute, numbered_notebooks

MARK = "# NBVAL_CHECK_OUTPUT"


def refresh(path: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = execute(path, Path(tmp) / path.name, {})
        ran = nbformat.read(str(out), as_version=4)
    src = nbformat.read(str(path), as_version=4)
    for cell, done in zip(src.cells, [c for c in ran.cells if c.get("id") != "injected-parameters"]):
        if cell.cell_type != "code":
            continue
        keep = cell.source.lstrip().startswith(MARK)
        streams = [o for o in done.get("outputs", []) if o.get("output_type") == "stream"]
        cell.outputs = streams if keep else []
        cell.execution_count = done.get("execution_count") if keep else None
    nbformat.write(src, str(path))
    print(f"refreshed {path}")


if __name__ == "__main__":
    targets = [Path(a) for a in sys.argv[1:]] or numbered_notebooks()
    for nb in targets:
        refresh(nb)
