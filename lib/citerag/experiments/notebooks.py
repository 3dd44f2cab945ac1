"""Execute the numbered notebooks with papermill into a run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from citerag.core.params import Params
from citerag.core.paths import repo_root
from citerag.experiments.runs import start_run

KERNEL = "citerag"


def numbered_notebooks(folder: Path | None = None) -> list[Path]:
    """`notebooks/NN_*.ipynb` in order (the report notebook 07 is run by ablate, not here)."""
    folder = folder or repo_root() / "notebooks"
    return sorted(p for p in folder.glob("[0-9][0-9]_*.ipynb") if not p.name.startswith("07_"))


def execute(
    notebook: Path, out: Path, parameters: dict[str, Any], kernel: str = KERNEL,
    progress: bool = False,
) -> Path:
    import papermill as pm

    out.parent.mkdir(parents=True, exist_ok=True)
    pm.execute_notebook(
        str(notebook), str(out), parameters=parameters, kernel_name=kernel,
        cwd=str(notebook.parent), progress_bar=progress, log_output=False,
    )
    return out


def run_notebooks(
    params: Params, params_path: Path, out_dir: Path, overrides: dict[str, Any] | None = None,
    notebooks: list[Path] | None = None, log=print,
) -> list[Path]:
    """Run each notebook with the same params file, overrides and run folder."""
    start_run(out_dir, params, params_path, overrides or {})
    done = []
    for nb in notebooks or numbered_notebooks():
        log(f"run: executing {nb.name}")
        done.append(execute(nb, out_dir / nb.name, {
            "params_path": str(params_path), "overrides": overrides or {}, "run_dir": str(out_dir),
        }))
    return done
