"""Running a coroutine from synchronous code, in a script or inside Jupyter.

The agent, the chat engine and the ragas judge are async underneath (llama-index
Workflows, ragas' timed scoring) but are called from plain functions, the CLI
and notebook cells. A notebook already runs an event loop, so `asyncio.run`
cannot be used there directly: the coroutine gets a private loop in a thread.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any


def run_sync(coro):
    """Run a coroutine to completion, also where a loop is already running (Jupyter: a private
    loop in a thread). Its result is returned and its exception raised, as `asyncio.run` does."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["r"] = asyncio.run(coro)
        except BaseException as exc:  # re-raised in the caller's thread
            box["e"] = exc

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if "e" in box:
        raise box["e"]
    return box["r"]
