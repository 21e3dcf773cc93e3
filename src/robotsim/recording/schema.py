"""The run store's tables (SQLAlchemy Core), the same on SQLite and PostgreSQL.

Layout (documented in ``docs/recording.md``):

- ``runs``: one row per run: scenario, parameters (JSON text), seed, versions (JSON
  text), start/end (UNIX seconds, UTC), status, the writer's heartbeat, host and pid.
- ``channels``: one row per recorded signal of a run: ``(run_id, channel)`` ->
  ``(robot, name)``. Channel numbers are assigned by the writing process, so the hot
  path never waits for the database.
- ``signals``: the time series, long and narrow: ``(run_id, channel, t, value)``.
  Four numbers per row keep batch inserts fast on both engines; the view
  ``signals_named`` joins the names back for people typing SQL.
- ``events``: ``(run_id, t, type, robot, data)`` with ``data`` JSON text.
- ``run_tags``: ``(run_id, key) -> value`` labels such as ``sweep = pid_gains-...``
  (``runs list --sweep ID``). A separate table, so stores made before it gain it on
  open without touching ``runs``.
- ``run_scenes`` (schema version 2): ``run_id -> (version, scene)``, the run's 3D scene
  as JSON text (:mod:`robotsim.recording.scene`): what an exact replay needs besides
  the signals. Stores made before it gain it on open; their runs have no scene.
- ``sensor_channels``: one row per recorded sensor of a run: ``(run_id, channel)`` ->
  ``(robot, name, type, meta)``, ``meta`` JSON text: the fields of a reading (name,
  dtype, shape) and the sensor's own description (rays' angles, camera intrinsics...).
- ``run_receipts`` (schema version 3): ``run_id -> (version, receipt)``, what a run
  needs to be re-run and checked (:mod:`robotsim.recording.receipts`): the scenario
  after overrides, the digests of every file it read and of each compiled model, seed,
  options, versions, platform, its summary. ``run_checkpoints``: ``(run_id, seq) ->
  (world, t, digest, state)``, the physics state every N simulated seconds (digest and
  the state's bytes). Stores made before them gain them on open; their runs have no
  receipt.
- ``sensor_blocks``: ``(run_id, channel, t_first, t_last, n, data)``: the ``n``
  readings of one sensor that one commit wrote, as one binary blob
  (``robotsim.recording.frames``): a 360-ray scan is a share of one row, not 360 rows.

:data:`SCHEMA_VERSION` is written into every run's ``versions`` (``store_schema``): a
run without it was written by version 1.
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.schema import CreateIndex, CreateTable

__all__ = [
    "SCHEMA_VERSION",
    "channels",
    "create_all",
    "ensure_schema",
    "events",
    "metadata",
    "run_checkpoints",
    "run_receipts",
    "run_scenes",
    "run_tags",
    "runs",
    "sensor_blocks",
    "sensor_channels",
    "signals",
]

SCHEMA_VERSION = 3

metadata = MetaData()

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("scenario", Text, nullable=False),
    Column("parameters", Text, nullable=False, default="{}"),
    Column("seed", Integer, nullable=True),
    Column("versions", Text, nullable=False, default="{}"),
    Column("started_at", Float, nullable=False),
    Column("ended_at", Float, nullable=True),
    Column("status", String(16), nullable=False),
    Column("message", Text, nullable=True),
    Column("heartbeat", Float, nullable=False),
    Column("host", String(255), nullable=False),
    Column("pid", Integer, nullable=False),
    Column("flush_interval", Float, nullable=False),
)

channels = Table(
    "channels",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("channel", Integer, primary_key=True),
    Column("robot", String(255), nullable=False),
    Column("name", String(255), nullable=False),
)

signals = Table(
    "signals",
    metadata,
    Column("run_id", Integer, nullable=False),
    Column("channel", Integer, nullable=False),
    Column("t", Float, nullable=False),
    Column("value", Float, nullable=True),
)
Index("signals_run", signals.c.run_id)

events = Table(
    "events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("t", Float, nullable=False),
    Column("type", String(64), nullable=False),
    Column("robot", String(255), nullable=True),
    Column("data", Text, nullable=False, default="{}"),
)
Index("events_run", events.c.run_id)

run_tags = Table(
    "run_tags",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("key", String(64), primary_key=True),
    Column("value", String(255), nullable=False),
)
Index("run_tags_value", run_tags.c.key, run_tags.c.value)

run_scenes = Table(
    "run_scenes",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("scene", Text, nullable=False),
)

run_receipts = Table(
    "run_receipts",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("receipt", Text, nullable=False),
)

run_checkpoints = Table(
    "run_checkpoints",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("world", Integer, nullable=False),
    Column("t", Float, nullable=False),
    Column("digest", String(64), nullable=False),
    Column("state", LargeBinary, nullable=False),
)

sensor_channels = Table(
    "sensor_channels",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("channel", Integer, primary_key=True),
    Column("robot", String(255), nullable=False),
    Column("name", String(255), nullable=False),
    Column("type", String(32), nullable=False),
    Column("meta", Text, nullable=False, default="{}"),
)

sensor_blocks = Table(
    "sensor_blocks",
    metadata,
    Column("run_id", Integer, nullable=False),
    Column("channel", Integer, nullable=False),
    Column("t_first", Float, nullable=False),
    Column("t_last", Float, nullable=False),
    Column("n", Integer, nullable=False),
    Column("data", LargeBinary, nullable=False),
)
Index("sensor_blocks_run", sensor_blocks.c.run_id, sensor_blocks.c.channel)

_VIEW = (
    "signals_named AS SELECT s.run_id AS run_id, c.robot AS robot, s.t AS t, "
    "c.name AS name, s.value AS value FROM signals s JOIN channels c "
    "ON c.run_id = s.run_id AND c.channel = s.channel"
)


# Any constant: the key of the PostgreSQL advisory lock that serialises schema creation.
_PG_SCHEMA_LOCK = 0x726F626F


def _ddl(dialect_name: str) -> list[str]:
    """Every CREATE statement of the schema, each one a no-op when its object exists."""
    from sqlalchemy.dialects import postgresql, sqlite

    dialect = sqlite.dialect() if dialect_name == "sqlite" else postgresql.dialect()
    out = [
        str(CreateTable(t, if_not_exists=True).compile(dialect=dialect)).strip()
        for t in metadata.sorted_tables
    ]
    for t in metadata.sorted_tables:
        for ix in sorted(t.indexes, key=lambda i: str(i.name)):
            out.append(str(CreateIndex(ix, if_not_exists=True).compile(dialect=dialect)).strip())
    if dialect_name == "sqlite":
        out.append("CREATE VIEW IF NOT EXISTS " + _VIEW)
    else:
        out.append("CREATE OR REPLACE VIEW " + _VIEW)
    return out


def create_all(conn: Connection) -> None:
    """Create missing tables, indexes and the ``signals_named`` view on ``conn``.

    Idempotent (every statement is ``IF NOT EXISTS``); to be safe against other
    processes creating the same store at the same moment call :func:`ensure_schema`,
    which runs this under the database's lock.
    """
    from sqlalchemy import text

    for stmt in _ddl(conn.dialect.name):
        conn.execute(text(stmt))


def ensure_schema(engine: Engine) -> None:
    """Create the schema atomically: any number of processes may call this at once.

    SQLite: one ``BEGIN IMMEDIATE`` transaction (the database's write lock; others wait
    up to the busy timeout). PostgreSQL: one transaction holding an advisory lock, since
    concurrent ``CREATE TABLE IF NOT EXISTS`` can still collide in its catalog.
    """
    from sqlalchemy import text

    if engine.dialect.name == "sqlite":
        raw = engine.raw_connection()
        try:
            dbapi = raw.driver_connection
            old = dbapi.isolation_level
            dbapi.isolation_level = None  # we issue BEGIN/COMMIT ourselves
            cur = dbapi.cursor()
            try:
                cur.execute("BEGIN IMMEDIATE")
                try:
                    for stmt in _ddl("sqlite"):
                        cur.execute(stmt)
                    cur.execute("COMMIT")
                except BaseException:
                    cur.execute("ROLLBACK")
                    raise
            finally:
                cur.close()
                dbapi.isolation_level = old
        finally:
            raw.close()
        return
    with engine.begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_SCHEMA_LOCK})
        create_all(conn)
