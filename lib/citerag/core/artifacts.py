"""Content-addressed stage artifacts: `artifacts/<stage>/<hash>/` + `manifest.json`.

A stage is built by the holder of its lock into a private folder
(`.<hash>.building-<pid>`), which gets its manifest last and is then renamed
into place in one step: `<hash>/` either does not exist or is finished, so no
reader or other builder ever sees half an artifact, and nothing deletes a
folder another process is writing. Leftovers of a killed build (private
folders, or a manifest-less `<hash>/` from an older layout) are cleared only
by the next lock holder. Finished artifacts of other params stay, which is
what lets ablations reuse them.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MANIFEST = "manifest.json"

TRACKED_PACKAGES = (
    "citerag", "pymupdf", "pymupdf4llm", "llama-index-core", "chromadb", "rank-bm25",
    "sentence-transformers", "torch", "transformers", "numpy",
)


def package_versions(names: tuple[str, ...] = TRACKED_PACKAGES) -> dict[str, str]:
    out = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


_UMASK = os.umask(0)
os.umask(_UMASK)


def write_text_atomic(path: Path, text: str) -> None:
    """Write text via a temp file + rename so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; outputs are shared like any file
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def write_jsonl(path: Path, rows: Iterable[dict], sort_keys: bool = True) -> int:
    """JSON lines via a temp file + rename; returns the row count. With sorted keys (the
    default, for artifacts) the same rows give a byte-identical file; contracts keep key order."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    n = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, sort_keys=sort_keys, ensure_ascii=False))
                fh.write("\n")
                n += 1
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return n


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def stage_dir(artifacts_root: Path, stage: str, digest: str) -> Path:
    return artifacts_root / stage / digest


def read_manifest(folder: Path) -> dict | None:
    """The manifest of a finished artifact, or None when absent/incomplete."""
    p = folder / MANIFEST
    if not p.is_file():
        return None
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return None


_BUILDING = ".building-"


def prepare(folder: Path) -> Path:
    """The private, empty folder to build `folder` in. Call it holding the stage lock: it clears
    what killed builds left (their private folders, a manifest-less `folder`), which only a lock
    holder may do, since nobody else can be writing them then."""
    folder = Path(folder)
    for stale in folder.parent.glob(f".{folder.name}{_BUILDING}*"):
        shutil.rmtree(stale, ignore_errors=True)
    if folder.exists() and read_manifest(folder) is None:
        shutil.rmtree(folder)
    work = folder.with_name(f".{folder.name}{_BUILDING}{os.getpid()}")
    work.mkdir(parents=True)
    return work


def final_folder(work: Path) -> Path:
    """Where a private build folder from `prepare` goes when finished."""
    work = Path(work)
    return work.with_name(work.name.rpartition(_BUILDING)[0][1:])


def finish(work: Path, manifest: dict) -> Path:
    """Write the manifest last, rename the private folder into place in one step, release the
    stage lock; returns the finished folder."""
    write_json_atomic(Path(work) / MANIFEST, manifest)
    folder = final_folder(work)
    os.rename(work, folder)  # same parent folder: atomic
    unlock_stage(folder)
    return folder


class BuildInterrupted(KeyboardInterrupt):
    """Ctrl-C during a build, carrying what was kept (the CLI prints it as its one line)."""

    def __init__(self, kept: str) -> None:
        super().__init__(kept)
        self.kept = kept


_LOCKS: dict[Path, int] = {}  # stage folder -> open lock file held by this process


def lock_stage(folder: Path) -> None:
    """Wait for, then hold, the build lock of a stage folder (`<folder>.lock`, an advisory
    `flock`: released by `finish`, or by the OS if the process dies). Re-entrant per process."""
    import fcntl

    folder = Path(folder)
    if folder in _LOCKS:
        return
    folder.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder.with_name(folder.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o666 & ~_UMASK)
    fcntl.flock(fd, fcntl.LOCK_EX)
    _LOCKS[folder] = fd


def releases_locks_on_error(fn):
    """Decorator for a stage builder: a build that fails (bad input, Ctrl-C) releases the stage
    locks it took, so another process (or a later cell of a live notebook kernel) is not left
    waiting on a build that will never finish."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        before = set(_LOCKS)
        try:
            return fn(*args, **kwargs)
        except BaseException:
            for folder in set(_LOCKS) - before:
                unlock_stage(folder)
            raise

    return wrapper


def unlock_stage(folder: Path) -> None:
    import fcntl

    fd = _LOCKS.pop(Path(folder), None)
    if fd is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
