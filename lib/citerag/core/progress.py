"""Progress that suits where it is shown.

On a terminal (or in a Jupyter kernel, where tqdm draws a widget) it is tqdm's bar. In a log —
CI, `make run > log`, a pipe — a bar would write hundreds of carriage-return frames onto one
line, so it prints at most `PLAIN_LINES` plain lines instead (one every tenth of the way, and
the last).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

PLAIN_LINES = 10


def _interactive(stream: TextIO) -> bool:
    if "ipykernel" in sys.modules and type(stream).__module__.startswith("ipykernel"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class PlainProgress:
    """tqdm's small interface (`update`, `close`, iteration), as a bounded number of plain lines."""

    def __init__(self, iterable: Iterable | None = None, total: int | None = None, desc: str = "",
                 unit: str = "it", stream: TextIO | None = None) -> None:
        self.iterable = iterable
        self.total = total if total is not None else (len(iterable) if hasattr(iterable, "__len__") else None)
        self.desc, self.unit, self.stream = desc, unit, stream or sys.stderr
        self.n, self.lines, self._next, self._t0 = 0, 0, 1, time.perf_counter()

    def update(self, k: int = 1) -> None:
        self.n += k
        if not self.total:
            return
        step = max(1, -(-self.total // PLAIN_LINES))  # ceil: at most PLAIN_LINES lines
        if self.n >= self.total or self.n >= self._next * step:
            self._next = self.n // step + 1
            self.lines += 1
            secs = time.perf_counter() - self._t0
            print(f"{self.desc}: {self.n}/{self.total} {self.unit} ({secs:.0f} s)", file=self.stream, flush=True)

    def close(self) -> None:
        pass

    def __iter__(self) -> Iterator:
        for item in self.iterable or ():
            yield item
            self.update(1)


def progress(iterable: Iterable | None = None, *, total: int | None = None, desc: str = "", unit: str = "it",
             disable: bool = False, stream: TextIO | None = None) -> Any:
    """A tqdm bar where one can be drawn, else `PlainProgress`; `disable` shows nothing."""
    stream = stream or sys.stderr
    if disable:
        return PlainProgress(iterable, total=0, desc=desc, unit=unit, stream=stream)
    if _interactive(stream):
        from tqdm.auto import tqdm

        return tqdm(iterable, total=total, desc=desc, unit=unit, file=stream)
    return PlainProgress(iterable, total=total, desc=desc, unit=unit, stream=stream)


def quiet_library_bars(stream: TextIO | None = None) -> None:
    """Libraries' own bars (transformers' "Loading weights") off where they would only be
    carriage-return frames in a log; left alone on a terminal or in a notebook."""
    if _interactive(stream or sys.stderr):
        return
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:
        pass
