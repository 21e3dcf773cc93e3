"""Receipts in the run store: what a run needs to be re-run and checked.

A receipt is a JSON document (``run_receipts``, written once when the run has
returned) and the run's checkpoints (``run_checkpoints``: each a digest of the physics
state and the state's bytes, :mod:`robotsim.physics.checkpoint`). What goes into the
document is the business of whoever ran the run (:mod:`robotsim.scenario.receipt`);
this module stores and reads it.

A :class:`~robotsim.recording.Recorder` started inside a :func:`capturing_runs` block
notes its run there (its database and id), so that the caller of a scenario runner,
which never sees the recorder, can write the receipt to the run it made.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.engine import Engine

from robotsim.jsonable import read_json, to_jsonable
from robotsim.recording import schema

__all__ = [
    "RECEIPT_VERSION",
    "StoredCheckpoint",
    "StoredReceipt",
    "capturing_runs",
    "note_run",
    "read_receipt",
    "write_receipt",
]

RECEIPT_VERSION = 1

_runs: ContextVar[list[tuple[str, int]] | None] = ContextVar("robotsim_recorded", default=None)


@contextmanager
def capturing_runs() -> Iterator[list[tuple[str, int]]]:
    """Runs recorded inside the block: ``[(database URL, run id), ...]``."""
    seen: list[tuple[str, int]] = []
    token = _runs.set(seen)
    try:
        yield seen
    finally:
        _runs.reset(token)


def note_run(engine: Engine, run_id: int) -> None:
    """Called by the recorder when a run starts (nothing outside a block)."""
    seen = _runs.get()
    if seen is not None:
        seen.append((engine.url.render_as_string(hide_password=False), int(run_id)))


@lru_cache(maxsize=8)
def _engine(url: str) -> Engine:
    """One engine per store per process (a sweep worker writes every run's receipt):
    the schema is checked once; its connections are closed after each write."""
    from robotsim.recording.store import RunStore

    return RunStore(url).engine  # the schema made (or extended) once


@dataclass(frozen=True)
class StoredCheckpoint:
    """A checkpoint as stored: ``seq``, ``world``, ``t`` (s), ``digest``, ``state``."""

    seq: int
    world: int
    t: float
    digest: str
    state: bytes


@dataclass(frozen=True)
class StoredReceipt:
    """A run's receipt document and its checkpoints (in ``seq`` order)."""

    run_id: int
    receipt: dict[str, Any]
    checkpoints: tuple[StoredCheckpoint, ...]


def write_receipt(
    db: str | Engine,
    run_id: int,
    receipt: dict[str, Any],
    checkpoints: Sequence[Any],
    keep_open: bool = False,
) -> None:
    """Store a receipt (strict JSON) and its checkpoints (objects with ``seq``,
    ``world``, ``t``, ``digest``, ``state``) for run ``run_id``, in one transaction.
    With a URL, the connection is closed afterwards unless ``keep_open``."""
    engine = db if isinstance(db, Engine) else _engine(str(db))
    text = json.dumps(to_jsonable(receipt), allow_nan=False)
    rows = [{"run_id": run_id, "seq": c.seq, "world": c.world, "t": float(c.t),
             "digest": c.digest, "state": bytes(c.state)} for c in checkpoints]  # fmt: skip
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                # handed to the operating system, not synced: the receipt survives a
                # crash of this process, and the close (a WAL checkpoint) waits for no
                # disk (tens of ms on a busy one)
                conn.exec_driver_sql("PRAGMA synchronous=OFF")
                conn.commit()  # the pragma's autobegun transaction
            with conn.begin():
                conn.execute(
                    insert(schema.run_receipts).values(
                        run_id=run_id, version=RECEIPT_VERSION, receipt=text
                    )
                )
                if rows:
                    conn.execute(insert(schema.run_checkpoints), rows)
    finally:
        if not isinstance(db, Engine) and not keep_open:
            engine.dispose()  # no connection left open (an SQLite store's -wal file goes)


def read_receipt(engine: Engine, run_id: int) -> StoredReceipt | None:
    """The receipt of run ``run_id`` (``None`` when it has none)."""
    r, c = schema.run_receipts, schema.run_checkpoints
    with engine.connect() as conn:
        row = conn.execute(select(r.c.receipt).where(r.c.run_id == run_id)).first()
        if row is None:
            return None
        cps = conn.execute(
            select(c.c.seq, c.c.world, c.c.t, c.c.digest, c.c.state)
            .where(c.c.run_id == run_id)
            .order_by(c.c.seq)
        ).all()
    doc = read_json(row[0], f"run store: receipt of run {run_id}")
    return StoredReceipt(
        run_id,
        dict(doc),
        tuple(
            StoredCheckpoint(int(s), int(w), float(t), str(d), bytes(b)) for s, w, t, d, b in cps
        ),
    )
