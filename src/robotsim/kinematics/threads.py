"""Run a batched nogil kernel over row ranges on several threads.

The compiled kernels (``nogil=True``) release the GIL, so splitting a batch of ``N``
rows into contiguous ranges and running each range on its own thread uses every core.
Each row is computed by the same code whatever the split, so the result is identical
to one thread. Small batches stay on the calling thread (a hand-off costs tens of
microseconds). A batch is cut into several ranges per thread, which the threads take
one after the other as they finish: a thread whose core is also busy with other work
(a shared machine) or whose rows cost more (overlapping ellipsoids) takes fewer ranges
instead of holding the others up at the end.

``threads=None`` means all cores this process may use (``ROBOTSIM_THREADS`` overrides).
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from robotsim.errors import InputError

__all__ = ["default_threads", "resolve_threads", "run_rows"]

CHUNKS_PER_THREAD = 8
"""Ranges per thread a batch is cut into (each at least ``min_rows`` long)."""

_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_lock = threading.Lock()


def _forget_pool() -> None:
    """A forked child has none of the parent's worker threads: start a new pool."""
    global _pool, _pool_size, _lock
    _pool, _pool_size, _lock = None, 0, threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


def default_threads() -> int:
    """Cores available to this process, or ``ROBOTSIM_THREADS`` when set."""
    env = os.environ.get("ROBOTSIM_THREADS")
    if env:
        return resolve_threads(int(env))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def resolve_threads(threads: int | None) -> int:
    """``threads`` checked (an int >= 1), or :func:`default_threads` for None."""
    if threads is None:
        return default_threads()
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise InputError(
            f"threads must be an integer >= 1 (or None for all cores), got {threads!r}"
        )
    return threads


def _executor(n: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size < n:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="robotsim-kernel")
            _pool_size = n
        return _pool


def run_rows(
    fn: Callable[[int, int], object], n: int, threads: int | None, min_rows: int = 4096
) -> None:
    """Call ``fn(start, stop)`` over contiguous ranges covering ``range(n)``.

    Uses up to ``threads`` threads (None: all cores), the calling thread included;
    the ranges (at least ``min_rows`` long, up to :data:`CHUNKS_PER_THREAD` per
    thread) are handed out in order to whichever thread is free. Exceptions propagate.
    """
    t = resolve_threads(threads)
    most = n // max(min_rows, 1)
    parts = min(t, most)
    if parts <= 1:
        fn(0, n)
        return
    chunks = min(parts * CHUNKS_PER_THREAD, most)
    bounds = [n * k // chunks for k in range(chunks + 1)]
    take = itertools.count().__next__  # atomic under the GIL: each range goes once

    def work() -> None:
        while (k := take()) < chunks:
            fn(bounds[k], bounds[k + 1])

    pool = _executor(parts - 1)
    futures: list[Future[None]] = [pool.submit(work) for _ in range(1, parts)]
    try:
        work()
    finally:
        for f in futures:
            f.result()
