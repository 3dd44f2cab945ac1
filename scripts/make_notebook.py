"""Write a notebook from a compact cell list (a dev tool; notebooks are committed).

Usage from other scripts: build(path, cells) where cells are ("md"|"code"|"params", source).
"""

from __future__ import annotations

from pathlib import Path

import nbformat

KERNEL = {"name": "citerag", "display_name": "citerag (.venv)", "language": "python"}


def build(path: Path, cells: list[tuple[str, str]]) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = KERNEL
    nb.metadata["language_info"] = {"name": "python"}
    for kind, src in cells:
        src = src.strip("\n")
        if kind == "md":
            nb.cells.append(nbformat.v4.new_markdown_cell(src))
        else:
            cell = nbformat.v4.new_code_cell(src)
            if kind == "params":
                cell.metadata["tags"] = ["parameters"]
            nb.cells.append(cell)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{path.stem[:2]}-{i:02d}"
    nbformat.write(nb, str(path))
