"""Locating the repository root so params paths mean the same from any cwd.

Notebooks run with cwd `notebooks/` (papermill, nbval, JupyterLab) while the CLI
runs from the repo root; resolving every relative path against the root keeps
them pointing at the same artifacts.
"""

from __future__ import annotations

import os
from pathlib import Path


def repo_root() -> Path:
    """The project root: $CITERAG_ROOT, else the nearest parent with pyproject.toml."""
    env = os.environ.get("CITERAG_ROOT")
    if env:
        return Path(env).resolve()
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").is_file() and (parent / "lib" / "citerag").is_dir():
            return parent
    cwd = Path.cwd().resolve()
    for parent in (cwd, *cwd.parents):
        if (parent / "pyproject.toml").is_file():
            return parent
    return cwd


def resolve(path: str | Path) -> Path:
    """An absolute path; relative ones are taken from the repository root."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else (repo_root() / p)
