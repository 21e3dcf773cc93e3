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
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)
from sqlalchemy.engine import Connection

__all__ = ["SCHEMA_VERSION", "channels", "create_all", "events", "metadata", "runs", "signals"]

SCHEMA_VERSION = 1

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

_VIEW = (
    "signals_named AS SELECT s.run_id AS run_id, c.robot AS robot, s.t AS t, "
    "c.name AS name, s.value AS value FROM signals s JOIN channels c "
    "ON c.run_id = s.run_id AND c.channel = s.channel"
)


def create_all(conn: Connection) -> None:
    """Create missing tables, indexes and the ``signals_named`` view."""
    from sqlalchemy import text

    metadata.create_all(conn, checkfirst=True)
    if conn.dialect.name == "sqlite":
        conn.execute(text("CREATE VIEW IF NOT EXISTS " + _VIEW))
    else:
        conn.execute(text("CREATE OR REPLACE VIEW " + _VIEW))
