"""``CsvRecorder`` (run_io.py) writes rows as the run goes: a loop faster than its
wall-time flush holds at most ``max_rows`` rows in memory (issue 17, long outputs),
and the file has every row in order."""

from __future__ import annotations

import csv
import tracemalloc
from pathlib import Path

from robotsim.run_io import CsvRecorder


def _run(out: Path, ticks: int, max_rows: int) -> int:
    rec = CsvRecorder(out, flush_interval=3600.0, max_rows=max_rows)  # no wall-time flush
    rec.start_run("fast", {"ticks": ticks})
    most = 0
    for k in range(ticks):
        rec.signal("r", k * 0.001, ("x", "y"), (k, -k))
        most = max(most, len(rec._rows))
    rec.finish()
    return most


def test_rows_are_flushed_every_max_rows(tmp_path: Path) -> None:
    assert _run(tmp_path / "a", 10_000, 256) <= 256
    with (tmp_path / "a" / "recording.csv").open() as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["robot", "t", "x", "y"] and len(rows) == 10_001
    assert rows[-1] == ["r", "9.999000", "9999", "-9999"]
    assert [int(r[2]) for r in rows[1:]] == list(range(10_000))


def test_memory_does_not_grow_with_the_run(tmp_path: Path) -> None:
    peaks = []
    for ticks in (5_000, 20_000):
        tracemalloc.start()
        try:
            _run(tmp_path / str(ticks), ticks, 512)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    assert peaks[1] < 1.3 * peaks[0], peaks  # four times the rows, about the same peak
