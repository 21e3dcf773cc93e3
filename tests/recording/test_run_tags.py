"""Run tags (``run_tags``): written with the run, filtered by ``runs(tags=...)``, and
added to a store made before the table existed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from robotsim.recording import Recorder, RunStore


def _record(db: Path, tags: dict[str, str] | None) -> int:
    with Recorder(db, tags=tags) as rec:
        rid = rec.start_run("s", {"k": 1})
        rec.signal("r", 0.0, ("x",), [1.0])
        rec.finish()
    return rid


def test_tags_are_stored_and_filter_runs(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    a = _record(db, {"sweep": "A", "sweep_run": "p00000-r0"})
    b = _record(db, {"sweep": "A", "sweep_run": "p00001-r0"})
    c = _record(db, {"sweep": "B"})
    d = _record(db, None)
    with RunStore(db) as store:
        assert [r.id for r in store.runs(tags={"sweep": "A"})] == [b, a]
        assert [r.id for r in store.runs(tags={"sweep": "A", "sweep_run": "p00000-r0"})] == [a]
        assert [r.id for r in store.runs(tags={"sweep": "C"})] == []
        assert [r.id for r in store.runs()] == [d, c, b, a]
        assert store.tags(c) == {"sweep": "B"} and store.tags(d) == {}


def test_a_store_without_the_tags_table_gains_it(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    old = _record(db, None)
    with sqlite3.connect(db) as conn:  # as a store written before run_tags existed
        conn.execute("DROP TABLE run_tags")
    new = _record(db, {"sweep": "S"})
    with RunStore(db) as store:
        assert [r.id for r in store.runs(tags={"sweep": "S"})] == [new]
        assert store.tags(old) == {} and store.run(old).status.value == "completed"
