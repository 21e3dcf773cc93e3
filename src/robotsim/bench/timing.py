"""Timing helpers for benchmarks: medians of repeats, never single runs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

__all__ = ["median_time"]


def median_time(fn: Callable[[], object], repeats: int = 7, warmup: int = 1,
                inner: int = 1) -> float:  # fmt: skip
    """Median wall time in seconds of ``inner`` calls of ``fn``, divided by ``inner``."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples)
