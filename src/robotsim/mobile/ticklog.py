"""Per-tick samples of a long run in bounded memory.

A mobile run samples something every control tick (the robots' poses, a formation's
errors). :class:`TickLog` keeps those rows in NumPy blocks of :data:`BLOCK` ticks (the
current block is staged as a flat list of floats, then copied into its block when
full). Up to ``hold`` ticks it holds every block, and its readers compute their results
from the whole arrays (:meth:`TickLog.arrays`), exactly as from lists of samples. Past
``hold`` it *folds*: the held blocks, and from then on every block as it fills, are
handed to a ``fold(times, rows)`` callback (which keeps running results: sums, maxima,
an :class:`Envelope` for plots) and dropped, so the memory no longer grows with the
run's length.

:class:`Envelope` is what a plot keeps of a folded series: per bucket of consecutive
ticks the first and last sample and, for each column, the samples where it is smallest
and largest, in time order (at most ``2 + 2 * columns`` per bucket). When there are
more than ``max_buckets`` buckets, neighbouring buckets merge (the bucket length
doubles); the extremes of a merged bucket are among those its halves kept, so no peak
or dip is lost, only the resolution between them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["BLOCK", "BUCKETS", "HOLD", "Envelope", "TickLog", "hold_ticks"]

#: Ticks per block.
BLOCK = 4096
#: Ticks held whole before a log folds (fewer when the memory budget is small).
HOLD = 16 * BLOCK
#: Buckets an envelope keeps at most.
BUCKETS = 2048


def hold_ticks(width: int, hold: int | None = None) -> int:
    """Ticks a log of ``width`` floats per tick holds whole: ``hold`` if given, else
    :data:`HOLD`, or fewer so that they take at most an eighth of the memory budget;
    a whole number of blocks, at least one."""
    from robotsim import budget

    if hold is not None:
        return max(1, int(hold))
    fit = budget.current_budget() // 8 // (8 * (width + 1))
    return max(BLOCK, min(HOLD, fit // BLOCK * BLOCK))


def held_bytes(width: int, hold: int | None = None) -> int:
    """The most a log of ``width`` floats per tick holds (bytes): its held blocks, the
    staged block as Python floats and one block being folded."""
    ticks = hold_ticks(width, hold)
    return ticks * 8 * (width + 1) + BLOCK * 32 * (width + 1) + BLOCK * 8 * (width + 1)


class TickLog:
    """Rows of ``width`` floats, one per tick with its time (s), in bounded memory
    (module docs). ``fold(times (m,), rows (m, width))`` receives the ticks in order,
    in blocks, once the log holds more than ``hold`` ticks."""

    def __init__(
        self,
        width: int,
        fold: Callable[[np.ndarray, np.ndarray], None],
        hold: int | None = None,
        block: int = BLOCK,
    ) -> None:
        self.width = int(width)
        self.hold = hold_ticks(width, hold)
        self.block = max(1, min(int(block), self.hold))
        self._fold = fold
        self._t: list[float] = []
        self._rows: list[float] = []
        self._blocks: list[tuple[np.ndarray, np.ndarray]] = []
        self._held = 0  # ticks in _blocks
        self.count = 0  # ticks added
        self.folded = False

    def __len__(self) -> int:
        return self.count

    @property
    def held(self) -> int:
        """Ticks in memory now (held blocks and the staged block)."""
        return self._held + len(self._t)

    def add(self, t: float, row: list[float]) -> None:
        """Append the tick at time ``t`` (s) with ``row`` (``width`` floats)."""
        self._t.append(t)
        self._rows += row
        self.count += 1
        if len(self._t) >= self.block:
            self._close_block()

    def _staged(self) -> tuple[np.ndarray, np.ndarray]:
        m = len(self._t)
        times = np.empty(m)
        times[:] = self._t
        rows = np.empty((m, self.width))
        rows.reshape(-1)[:] = self._rows
        self._t, self._rows = [], []
        return times, rows

    def _close_block(self) -> None:
        times, rows = self._staged()
        if self.folded:
            self._fold(times, rows)
            return
        self._blocks.append((times, rows))
        self._held += len(times)
        if self._held > self.hold:
            self.folded = True
            for bt, br in self._blocks:
                self._fold(bt, br)
            self._blocks, self._held = [], 0

    def sync(self) -> None:
        """Fold the staged ticks too (a folded log, before its results are read)."""
        if self.folded and self._t:
            self._fold(*self._staged())

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Every tick: times ``(K,)`` (s) and rows ``(K, width)``; only while the log
        holds them all (not :attr:`folded`)."""
        if self.folded:
            raise RuntimeError("the log has folded: its ticks are no longer held")
        parts = [*self._blocks]
        if self._t:
            times = np.array(self._t, dtype=np.float64)
            rows = np.array(self._rows, dtype=np.float64).reshape(-1, self.width)
            parts.append((times, rows))
        if not parts:
            return np.zeros(0), np.zeros((0, self.width))
        if len(parts) == 1:
            return parts[0][0].copy(), parts[0][1].copy()
        return (
            np.concatenate([p[0] for p in parts]),
            np.concatenate([p[1] for p in parts]),
        )


def _extremes(bucket: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Positions (sorted) of the first, last, smallest and largest sample of each
    column within each run of equal ``bucket`` ids (non-decreasing)."""
    n = len(bucket)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    ends = np.r_[starts[1:], n] - 1
    keep = [starts, ends]
    for c in range(values.shape[1]):
        order = np.lexsort((values[:, c], bucket))  # by bucket, then by value
        keep += [order[starts], order[ends]]
    return np.unique(np.concatenate(keep))


class Envelope:
    """A series of ``columns`` floats per tick, as a plot keeps it (module docs): at
    most ``max_buckets`` (default :data:`BUCKETS`) buckets of ``2 + 2 * columns``
    samples each."""

    def __init__(self, columns: int, max_buckets: int | None = None) -> None:
        self.columns = int(columns)
        self.max_buckets = int(BUCKETS if max_buckets is None else max_buckets)
        self.bucket = 1  # ticks per bucket
        self._n = 0  # ticks seen
        self._i = np.zeros(0, dtype=np.int64)  # tick index of each kept sample
        self.times = np.zeros(0)
        self.values = np.zeros((0, self.columns))

    def add(self, times: np.ndarray, values: np.ndarray) -> None:
        """The next ticks: ``times`` ``(m,)`` (s), ``values`` ``(m, columns)``."""
        m = len(times)
        if m == 0:
            return
        idx = np.arange(self._n, self._n + m, dtype=np.int64)
        self._n += m
        first = idx[0] // self.bucket
        open_ = self._i // self.bucket >= first  # kept samples of the bucket still open
        keep = ~open_
        i = np.concatenate([self._i[open_], idx])
        t = np.concatenate([self.times[open_], times])
        v = np.concatenate([self.values[open_], values])
        k = _extremes(i // self.bucket, v)
        self._i = np.concatenate([self._i[keep], i[k]])
        self.times = np.concatenate([self.times[keep], t[k]])
        self.values = np.concatenate([self.values[keep], v[k]])
        while (self._n - 1) // self.bucket + 1 > self.max_buckets:
            self.bucket *= 2
            k = _extremes(self._i // self.bucket, self.values)
            self._i, self.times, self.values = self._i[k], self.times[k], self.values[k]
