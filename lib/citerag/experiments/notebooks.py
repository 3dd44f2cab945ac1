"""Execute the numbered notebooks with papermill into a run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from citerag.core.params import Params
from citerag.core.paths import repo_root
from citerag.experiments.kernels import WarmKernels, notebook_imports
from citerag.experiments.runs import start_run

KERNEL = "citerag"


def numbered_notebooks(folder: Path | None = None) -> list[Path]:
    """`notebooks/NN_*.ipynb` in order (the report notebook 07 is run by ablate, not here)."""
    folder = folder or repo_root() / "notebooks"
    return sorted(p for p in folder.glob("[0-9][0-9]_*.ipynb") if not p.name.startswith("07_"))


def execute(
    notebook: Path, out: Path, parameters: dict[str, Any], kernel: str = KERNEL,
    progress: bool = False, kernels: WarmKernels | None = None,
) -> Path:
    """Run one notebook with papermill, in a warm kernel from `kernels` if given (a fresh
    process either way; it is shut down afterwards)."""
    import papermill as pm

    out.parent.mkdir(parents=True, exist_ok=True)
    km = kernels.take() if kernels is not None else None
    try:
        pm.execute_notebook(
            str(notebook), str(out), parameters=parameters, kernel_name=kernel,
            cwd=str(notebook.parent), progress_bar=progress, log_output=False,
            **({"km": km} if km is not None else {}),
        )
    finally:
        WarmKernels.release(km)
    return out


def warm_kernels(notebooks: list[Path], total: int, ahead: int = 1) -> WarmKernels:
    """Kernels for `total` notebook executions, pre-importing what `notebooks` import."""
    return WarmKernels(KERNEL, notebooks[0].parent, notebook_imports(notebooks), total=total, ahead=ahead)


def run_notebooks(
    params: Params, params_path: Path, out_dir: Path, overrides: dict[str, Any] | None = None,
    notebooks: list[Path] | None = None, log=print, kernels: WarmKernels | None = None,
) -> list[Path]:
    """Run each notebook with the same params file, overrides and run folder. Without a shared
    `kernels` queue, each notebook's kernel starts while the one before it runs."""
    start_run(out_dir, params, params_path, overrides or {})
    nbs = notebooks or numbered_notebooks()
    own = kernels is None and len(nbs) > 1
    if own:
        kernels = warm_kernels(nbs, total=len(nbs))
    done = []
    try:
        for nb in nbs:
            log(f"run: executing {nb.name}")
            done.append(execute(nb, out_dir / nb.name, {
                "params_path": str(params_path), "overrides": overrides or {}, "run_dir": str(out_dir),
            }, kernels=kernels))
    finally:
        if own:
            kernels.close()
    return done
