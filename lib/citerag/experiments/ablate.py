"""Ablations: a base params file and a grid over dotted param paths, run through papermill.

    # params/ablations/rrf_k0.yaml
    base: params/default.yaml
    grid:
      retrieve.rrf_k0: [10, 30, 60, 100]

Every variant is validated before anything runs (an error names the file and
the grid key). Each variant executes the spec's notebooks (default `06_eval`)
into `<paths.ablations>/<name>/<variant>/` with the variant's overrides; the
stage cache makes variants that share ingest/chunk/index params reuse them.
A variant with `status.json` `ok` and a summary is skipped on re-run
(resumable); a failing one records its error and the others still run. At
the end `07_compare_runs.ipynb` renders `report.ipynb`, `report.html` (code
hidden, images inline) and `report.md`.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citerag.core.artifacts import write_json_atomic
from citerag.core.params import Params, ParamsError, load_params
from citerag.core.paths import repo_root, resolve
from citerag.experiments.runs import SUMMARY

STATUS = "status.json"
SPEC = "ablation.yaml"
REPORT_NOTEBOOK = "07_compare_runs.ipynb"


class AblationSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base: str = "params/default.yaml"
    description: str = ""
    notebooks: list[str] = Field(default_factory=lambda: ["06_eval"], min_length=1)
    grid: dict[str, list[Any]] = Field(min_length=1)
    # Overrides every variant shares, not part of its name: e.g. `eval.also` to measure other
    # corpora side by side in the report.
    set: dict[str, Any] = Field(default_factory=dict)
    x: str | None = None  # the swept param on the report's x axis (default: the first grid key)


@dataclass
class Variant:
    name: str
    overrides: dict[str, Any]


@dataclass
class Ablation:
    name: str
    path: Path
    spec: AblationSpec
    base: Params
    variants: list[Variant]

    @property
    def x(self) -> str:
        return self.spec.x or next(iter(self.spec.grid))

    def overrides(self, v: Variant, extra: dict[str, Any]) -> dict[str, Any]:
        """A variant's overrides as its notebooks receive them: they re-load the base params file,
        so the spec's shared `set` travels with the variant's own values and the caller's extras."""
        return {**self.spec.set, **v.overrides, **extra}


@dataclass
class AblationRun:
    out: Path
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    report: dict[str, Path] = field(default_factory=dict)


def _label(key: str, keys: list[str]) -> str:
    leaf = key.split(".")[-1]
    return leaf if sum(k.split(".")[-1] == leaf for k in keys) == 1 else key


def variant_name(overrides: dict[str, Any], keys: list[str]) -> str:
    parts = [f"{_label(k, keys)}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in overrides.items()]
    return re.sub(r"[^\w.=,-]", "_", ",".join(parts))


def load_ablation(path: str | Path, base: str | None = None) -> Ablation:
    """Read and validate a spec and every variant's params (nothing runs before all are valid).
    `base` replaces the spec's base params file (the same sweep on another corpus)."""
    p = resolve(path)
    if not p.is_file():
        raise ParamsError(f"{p}: ablation file not found")
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ParamsError(f"{p}: not valid YAML: {exc}") from None
    try:
        spec = AblationSpec.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ParamsError(f"{p}: {'.'.join(str(x) for x in err['loc'])}: {err['msg']}") from None
    for key, values in spec.grid.items():
        if not values:
            raise ParamsError(f"{p}: grid.{key}: needs at least one value")
    keys = list(spec.grid)
    if spec.x is not None and spec.x not in keys:
        raise ParamsError(f"{p}: x: {spec.x!r} is not a grid key ({', '.join(keys)})")
    folder = repo_root() / "notebooks"
    for nb in spec.notebooks:
        if not (folder / f"{nb}.ipynb").is_file():
            raise ParamsError(f"{p}: notebooks: no notebook {nb}.ipynb in {folder}")
    if base is not None:
        spec = spec.model_copy(update={"base": base})
    base_params = load_params(resolve(spec.base))
    for key, value in spec.set.items():
        try:
            base_params = base_params.with_overrides({key: value})
        except ParamsError as exc:
            raise ParamsError(f"{p}: set.{key}={value!r}: {exc}") from None
    variants = []
    for combo in itertools.product(*spec.grid.values()):
        overrides = dict(zip(keys, combo, strict=True))
        for key, value in overrides.items():
            try:
                base_params.with_overrides({key: value})
            except ParamsError as exc:
                raise ParamsError(f"{p}: grid.{key}={value!r}: {exc}") from None
        try:
            base_params.with_overrides(overrides)
        except ParamsError as exc:
            raise ParamsError(f"{p}: variant {overrides}: {exc}") from None
        variants.append(Variant(variant_name(overrides, keys), overrides))
    return Ablation(p.stem, p, spec, base_params, variants)


def variant_done(folder: Path) -> bool:
    status = folder / STATUS
    if not (status.is_file() and (folder / SUMMARY).is_file()):
        return False
    return json.loads(status.read_text(encoding="utf-8")).get("status") == "ok"


def _one_line(exc: BaseException) -> str:
    ename = getattr(exc, "ename", None)
    msg = f"{ename}: {getattr(exc, 'evalue', '')}" if ename else f"{type(exc).__name__}: {exc}"
    return " ".join(msg.split())[:2000]


def _spec_notebooks(ab: Ablation) -> list[Path]:
    return [repo_root() / "notebooks" / f"{n}.ipynb" for n in ab.spec.notebooks]


def run_variant(ab: Ablation, v: Variant, folder: Path, extra: dict[str, Any],
                kernels=None) -> tuple[bool, float, str | None]:
    """Execute the spec's notebooks for one variant; returns (ok, seconds, error)."""
    from citerag.experiments.notebooks import run_notebooks

    overrides = ab.overrides(v, extra)
    params = ab.base.with_overrides(overrides)
    folder.mkdir(parents=True, exist_ok=True)
    write_json_atomic(folder / STATUS, {"status": "running", "variant": v.name, "overrides": v.overrides})
    t0 = time.perf_counter()
    try:
        run_notebooks(params, resolve(ab.spec.base), folder, overrides, notebooks=_spec_notebooks(ab),
                      log=lambda _m: None, kernels=kernels)
    except Exception as exc:  # recorded; the other variants still run
        secs = time.perf_counter() - t0
        err = _one_line(exc)
        write_json_atomic(folder / STATUS, {"status": "failed", "variant": v.name, "overrides": v.overrides,
                                            "error": err, "seconds": round(secs, 2)})
        return False, secs, err
    secs = time.perf_counter() - t0
    write_json_atomic(folder / STATUS, {"status": "ok", "variant": v.name, "overrides": v.overrides,
                                        "seconds": round(secs, 2), "finished": time.strftime("%Y-%m-%dT%H:%M:%S")})
    return True, secs, None


def run_ablation(path: str | Path, jobs: int = 1, force: bool = False, extra: dict[str, Any] | None = None,
                 out_root: Path | None = None, report: bool = True, progress: bool = True,
                 log=print, base: str | None = None) -> AblationRun:
    """Run every variant (skipping completed ones unless `force`), then render the report.

    `extra` overrides apply to every variant without naming it (the benchmark points the
    artifact cache at a scratch folder this way)."""
    from citerag.core.progress import progress as progress_bar
    from citerag.experiments.notebooks import warm_kernels

    ab = load_ablation(path, base)
    extra = extra or {}
    out = out_root or resolve(ab.base.with_overrides(extra).paths.ablations) / ab.name
    out.mkdir(parents=True, exist_ok=True)
    # the spec as run (its base may have been replaced by --params)
    (out / SPEC).write_text(yaml.safe_dump(ab.spec.model_dump(mode="json"), sort_keys=False), encoding="utf-8")
    write_json_atomic(out / "variants.json", {"variants": [{"name": v.name, "overrides": v.overrides}
                                                            for v in ab.variants]})  # grid order
    result = AblationRun(out)
    todo = []
    for v in ab.variants:
        if not force and variant_done(out / v.name):
            result.skipped.append(v.name)
        else:
            todo.append(v)
    if jobs > 1 and todo:
        _prebuild(ab, todo, extra, log)  # shared stages once, serially; notebooks then only reuse them
    bar = progress_bar(total=len(ab.variants), desc=f"ablate {ab.name}", unit="variant", disable=not progress)
    bar.update(len(result.skipped))

    # Each variant's kernels boot and import while the variant before runs (fresh processes all).
    kernels = warm_kernels(_spec_notebooks(ab), total=len(todo) * len(ab.spec.notebooks)) if todo else None

    def one(v: Variant):
        ok, secs, err = run_variant(ab, v, out / v.name, extra, kernels)
        return v, ok, secs, err

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for v, ok, secs, err in pool.map(one, todo):
                result.seconds[v.name] = round(secs, 2)
                if ok:
                    result.ran.append(v.name)
                else:
                    result.failed[v.name] = err or "failed"
                    log(f"ablate: variant {v.name} failed: {err}")
                bar.update(1)
    finally:
        if kernels is not None:
            kernels.close()
    bar.close()
    if report:
        result.report = render_report(out)
    return result


def _prebuild(ab: Ablation, variants: list[Variant], extra: dict[str, Any], log) -> None:
    """Build every variant's stages serially, for its own corpus and every `eval.also` corpus,
    so parallel variants only open what exists and never build the same artifact at once."""
    from citerag.build.pipeline import build_all
    from citerag.experiments.eval_run import companion_params, missing_files

    for v in variants:
        overrides = ab.overrides(v, extra)
        try:
            params = ab.base.with_overrides(overrides)
            build_all(params, log=lambda _m: None, progress=False)
            for _, other in companion_params(params, overrides):
                if not missing_files(other):
                    build_all(other, log=lambda _m: None, progress=False)
        except Exception as exc:  # the variant's own run records the error
            log(f"ablate: pre-build of {v.name} failed: {_one_line(exc)}")


def render_report(ablation_dir: Path) -> dict[str, Path]:
    """Execute 07_compare_runs over the folder → report.ipynb, report.html (no code), report.md."""
    from citerag.experiments.notebooks import execute
    from citerag.experiments.report import export_html

    nb = execute(repo_root() / "notebooks" / REPORT_NOTEBOOK, ablation_dir / "report.ipynb",
                 {"ablation_dir": str(ablation_dir), "write_files": True})
    html = export_html(nb, ablation_dir / "report.html")
    return {"ipynb": nb, "html": html, "md": ablation_dir / "report.md"}
