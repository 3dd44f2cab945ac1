"""Kernels started ahead: the next notebook's kernel boots and imports while the current one runs.

A cached ablation variant spends about half its wall time starting a kernel and importing
citerag, llama-index, ragas and matplotlib (measured: 06_eval, 19 s cold kernel vs 9 s warm).
`WarmKernels` keeps one kernel per slot booted and pre-imported in a background thread, so that
cost overlaps the previous notebook. Every notebook still runs in a fresh kernel process: no
variable, cache or model crosses from one notebook or variant to the next, only the import work
is moved off the critical path.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import json
import subprocess
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

# Modules citerag imports inside functions (to keep the CLI quick) that a notebook run reaches.
LAZY_MODULES = (
    "citerag.agent.workflow",
    "citerag.conversation.workflow",
    "citerag.experiments.ragas",
    "ragas.metrics",
    "rouge_score.rouge_scorer",
    "matplotlib.pyplot",
)


def notebook_imports(notebooks: list[Path]) -> list[str]:
    """The import statements of the notebooks' code cells, deduplicated in first-seen order
    (cells that are not plain Python, e.g. with magics, are skipped)."""
    found: dict[str, None] = {}
    for path in notebooks:
        cells = json.loads(Path(path).read_text(encoding="utf-8")).get("cells", [])
        for cell in cells:
            if cell.get("cell_type") != "code":
                continue
            src = cell.get("source", "")
            try:
                tree = ast.parse("".join(src) if isinstance(src, list) else src)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0):
                    found[ast.unparse(node)] = None
    return list(found)


def preload_code(statements: list[str], modules: tuple[str, ...] = LAZY_MODULES) -> str:
    """Kernel code running each import statement and importing `modules`, every one on its own:
    one that fails is left for the notebook to report. Only module state is created; the names
    are deleted again, so the notebook starts from an empty namespace."""
    steps = [*statements, *(f"import {m}" for m in modules)]
    return (
        "def _citerag_preload():\n"
        "    import warnings\n"
        "    with warnings.catch_warnings():\n"
        "        warnings.simplefilter('ignore')\n"
        f"        for step in {steps!r}:\n"
        "            try:\n"
        "                exec(step, {})\n"
        "            except Exception:\n"
        "                pass\n"
        "_citerag_preload()\n"
        "del _citerag_preload\n"
    )


class WarmKernels:
    """`total` kernels, started `ahead` at a time and pre-imported in a background thread.

    `take()` hands out a warm kernel manager (or None if starting one failed, in which case
    papermill starts its own) and starts the next one if more are due; `release()` shuts a
    kernel down. Thread-safe: parallel ablation workers take from the same queue."""

    def __init__(self, kernel_name: str, cwd: Path, imports: list[str], total: int, ahead: int = 1,
                 start_timeout: float = 120.0) -> None:
        # Import the Jupyter stack here, in the calling thread: a worker importing jupyter_client
        # while this thread imports papermill fails on a partially initialised module.
        import papermill  # noqa: F401
        from jupyter_client import AsyncKernelManager

        self._km_class = AsyncKernelManager
        self.kernel_name, self.cwd, self.timeout = kernel_name, str(cwd), start_timeout
        self.code = preload_code(imports)
        self._pool = ThreadPoolExecutor(max_workers=max(1, ahead), thread_name_prefix="warm-kernel")
        self._queue: deque[Future] = deque()
        self._lock = threading.Lock()
        self._to_start = total
        for _ in range(min(max(1, ahead), total)):
            self._submit()

    def _submit(self) -> None:
        self._to_start -= 1
        self._queue.append(self._pool.submit(self._start))

    async def _start_async(self):
        km = self._km_class(kernel_name=self.kernel_name)
        # the kernel's own stderr would repeat ipykernel's start-up banner in every log
        await km.start_kernel(cwd=self.cwd, stderr=subprocess.DEVNULL)
        kc = km.client()
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=self.timeout)
            await kc.execute_interactive(self.code, timeout=self.timeout, store_history=False,
                                         output_hook=lambda _msg: None)
        except Exception:
            await km.shutdown_kernel(now=True)
            raise
        finally:
            kc.stop_channels()
        return km

    def _start(self):
        return asyncio.run(self._start_async())

    def take(self):
        """A warm kernel manager, or None if one could not be started."""
        with self._lock:
            if not self._queue:
                return None  # more taken than announced: papermill starts its own
            fut = self._queue.popleft()
            if self._to_start > 0:
                self._submit()
        try:
            return fut.result()
        except Exception:
            return None

    @staticmethod
    def release(km) -> None:
        if km is not None:
            with contextlib.suppress(Exception):  # already dead: nothing to release
                asyncio.run(km.shutdown_kernel(now=True))

    def close(self) -> None:
        with self._lock:
            self._to_start = 0
            pending = list(self._queue)
            self._queue.clear()
        for fut in pending:
            with contextlib.suppress(Exception):  # a kernel that never started
                self.release(fut.result())
        self._pool.shutdown(wait=True)

    def __enter__(self) -> WarmKernels:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
