"""Running a coroutine from a test, whatever else the test process holds."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` in a thread of its own, its result or its exception.

    The browser tests keep one Chromium per test process through Playwright's sync API,
    which leaves an event loop running in the main thread for the rest of the process:
    ``asyncio.run`` there would refuse ("cannot be called from a running event loop").
    A fresh thread has no loop of its own."""
    box: dict[str, Any] = {}

    def main() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=main, name="test-coroutine")
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["value"]
