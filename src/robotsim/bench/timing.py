"""Timing helpers for benchmarks: medians of repeats, never single runs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

__all__ = ["median_time"]


def median_time(
    fn: Callable[[], object],
    repeats: int = 7,
    warmup: int = 1,
    inner: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Median time in seconds of ``inner`` calls of ``fn``, divided by ``inner``.

    ``clock``: wall time by default; ``time.thread_time`` gives the CPU time of the
    calling thread (what the figure would be on an otherwise idle core)."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = clock()
        for _ in range(inner):
            fn()
        samples.append((clock() - t0) / inner)
    return statistics.median(samples)
