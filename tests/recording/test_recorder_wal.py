"""SQLite's write-ahead log is checkpointed by the recorder's writer thread every
``flush_interval`` (the committing connection never does: a checkpoint syncs the file
to disk, which the simulation thread would wait for)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from robotsim.recording import Recorder, RunStore


def test_the_wal_is_checkpointed_every_flush_interval(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    wal = Path(str(db) + "-wal")
    biggest = 0
    with Recorder(db, flush_interval=0.05) as rec:
        rid = rec.start_run("wal")
        assert rec._raw.driver_connection.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
        for k in range(40):  # 80,000 samples, ~6 MB in the database
            t = np.arange(k * 2000, (k + 1) * 2000) * 1e-3
            rec.signals("bot", t, ("a", "b"), np.c_[t, -t])
            time.sleep(0.06)
            biggest = max(biggest, os.path.getsize(wal))
    # SQLite's own auto-checkpoint would let the log grow to 1000 pages (~4 MB) and with
    # none it would hold all ~6 MB; every 50 ms it stays near one interval's writes
    # (~0.15 MB), a few intervals' worth when a loaded machine delays the writer thread
    assert biggest < 3_000_000, biggest
    with RunStore(db) as store:
        tab = store.signals(rid, "bot")
    assert tab.t.size == 80_000
    np.testing.assert_array_equal(tab.column("b"), -tab.t)
