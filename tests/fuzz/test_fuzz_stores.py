"""Fuzz the run store: a real SQLite file written by the recorder, then corrupted
(bytes flipped in its pages, truncated, spliced), replaced by another schema, or not
a database at all. Every read a user can ask for (``runs list``, ``runs show``, the
signals, events, scene and sensors of a run) gives a result or a one-line
RobotsimError naming the store; never a raw SQLAlchemy/sqlite3 traceback."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from robotsim.recording import Recorder, RunStore
from tests.fuzz.harness import Verdicts
from tests.fuzz.mutate import byte_mutation

BASE_COUNT = 24


@pytest.fixture(scope="module")
def store_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    db = tmp_path_factory.mktemp("store") / "runs.sqlite"
    rng = np.random.default_rng(0)
    with Recorder(str(db), flush_interval=0.05) as rec:
        rec.start_run("soccer.yaml", {"duration": 1.0}, seed=3)
        for k in range(200):
            rec.signal("omni", k * 0.01, ("x", "y", "yaw"), rng.normal(size=3))
        rec.event(0.5, "collision", data={"bodies": ["omni", "obstacle_1"]})
    with sqlite3.connect(db) as con:  # one file: the write-ahead log checkpointed in
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.execute("PRAGMA journal_mode=DELETE")
    return db.read_bytes()


def _read_everything(db: Path) -> None:
    with RunStore(str(db)) as store:
        runs = store.runs()
        for info in runs[:3]:
            rid = info.id
            store.run(rid)
            for robot in store.robots(rid):
                store.signals(rid, robot)
            store.events(rid)
            store.scene(rid)
            store.sensors(rid)
            store.time_span(rid)


def _other_schemas(tmp: Path) -> list[tuple[str, Path]]:
    out = []
    for i, sql in enumerate(
        [
            "CREATE TABLE runs (x TEXT); INSERT INTO runs VALUES ('a')",
            "CREATE TABLE runs (id INTEGER PRIMARY KEY, scenario BLOB, status INTEGER);"
            "INSERT INTO runs VALUES (1, x'00ff', 99)",
            "CREATE TABLE signals (run_id TEXT); CREATE TABLE other (y)",
        ]
    ):
        f = tmp / f"schema{i}.sqlite"
        with sqlite3.connect(f) as con:
            con.executescript(sql)
        out.append((f"schema{i}", f))
    for name, data in [("empty", b""), ("text", b"runs: 1\n" * 50), ("zeros", bytes(4096))]:
        f = tmp / f"{name}.sqlite"
        f.write_bytes(data)
        out.append((name, f))
    return out


def test_fuzz_run_store_files(
    store_bytes: bytes, tmp_path: Path, fuzz_scale: int, fuzz_seed: int
) -> None:
    v = Verdicts()
    f = tmp_path / "good.sqlite"
    f.write_bytes(store_bytes)
    v.check("intact", lambda: _read_everything(f))
    assert v.ok == 1, v.failures  # the intact store reads
    for label, path in _other_schemas(tmp_path):
        v.check(label, lambda p=path: _read_everything(p))
    rng = random.Random(fuzz_seed)
    for i in range(BASE_COUNT * fuzz_scale):
        f = tmp_path / f"case{i}.sqlite"
        data = bytearray(store_bytes)
        if rng.random() < 0.6:  # corrupt pages past the header, where the rows live
            for _ in range(rng.randint(1, 30)):
                k = rng.randrange(100, len(data))
                data[k] = rng.randrange(256)
            f.write_bytes(bytes(data))
        else:
            f.write_bytes(byte_mutation(rng, bytes(data)))
        v.check(f"store#{i}", lambda f=f: _read_everything(f))
    v.assert_clean()
