"""The run store as a command channel (seed 002: the simulator's database link is how
other programs talk to a running simulation, not only where it records).

Two tables beside the recording (``docs/commands.md``), the same on SQLite and
PostgreSQL:

- ``commands``: what an external process asks a running run to do, one row per
  command: ``(id, run_id, robot, kind, args, status, reason, created_at, picked_at,
  sim_time)``. A writer inserts ``run_id``, ``kind``, ``args`` (JSON text) and
  optionally ``robot``; the database fills ``status = 'pending'``. The run marks each
  row ``done`` or ``failed`` (``reason`` says why) and notes the simulated time it acted.
- ``run_status``: one row per ``(run_id, robot)``, rewritten while the run goes: the
  simulated and wall time, ``state`` (``running``, ``paused``, ``finished``), ``mode``
  (``goal`` or ``velocity``), the pose, the measured twist, the goal, whether it is
  reached and the last command handled.

Kinds and their ``args`` (angles in degrees, like the scenario files):

- ``goal``: ``{"x": m, "y": m, "theta": deg (optional: keep the heading goal)}``;
- ``velocity``: ``{"vx": m/s, "vy": m/s, "w": deg/s}`` body-frame twist, held until
  the next ``goal`` (within the robot's speed limits);
- ``joints``: ``{"JOINT": target, ...}`` position-servo targets (deg for hinges, m
  for slides; the wheels are not position servos);
- ``pause``, ``resume``, ``stop`` (no args): the simulation holds still, goes on, ends.

Pick-up: PostgreSQL notifies the run (a trigger on ``commands`` calls
``pg_notify('robotsim_commands', run_id)``; the run LISTENs and reads the table only when
notified); on SQLite the run reads its pending rows every control tick. Either way a
command inserted before a tick starts acts in that tick.
"""

from __future__ import annotations

import math
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    delete,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.schema import CreateIndex, CreateTable

from robotsim.errors import InputError
from robotsim.jsonable import dumps as json_dumps
from robotsim.jsonable import read_json

__all__ = [
    "KINDS",
    "NOTIFY_CHANNEL",
    "Command",
    "CommandChannel",
    "commands",
    "ensure_command_schema",
    "parse_args",
    "read_status",
    "run_status",
    "send_command",
    "wait_command",
]

NOTIFY_CHANNEL = "robotsim_commands"

#: kind -> (required argument names, optional argument names); ``joints`` takes any names.
KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "goal": (("x", "y"), ("theta",)),
    "velocity": (("vx", "vy"), ("w",)),
    "joints": ((), ()),
    "pause": ((), ()),
    "resume": ((), ()),
    "stop": ((), ()),
}

metadata = MetaData()

commands = Table(
    "commands",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, nullable=False),
    Column("robot", String(255), nullable=True),
    Column("kind", String(32), nullable=False),
    Column("args", Text, nullable=False, server_default="{}"),
    Column("status", String(16), nullable=False, server_default="pending"),
    Column("reason", Text, nullable=True),
    Column("created_at", Float, nullable=True),
    Column("picked_at", Float, nullable=True),
    Column("sim_time", Float, nullable=True),
)
Index("commands_run_status", commands.c.run_id, commands.c.status)

run_status = Table(
    "run_status",
    metadata,
    Column("run_id", Integer, primary_key=True),
    Column("robot", String(255), primary_key=True),
    Column("t", Float, nullable=False),
    Column("wall", Float, nullable=False),
    Column("state", String(16), nullable=False),
    Column("mode", String(16), nullable=False),
    Column("x", Float),
    Column("y", Float),
    Column("theta", Float),
    Column("vx", Float),
    Column("vy", Float),
    Column("w", Float),
    Column("goal_x", Float),
    Column("goal_y", Float),
    Column("goal_theta", Float),
    Column("reached", Integer, nullable=False),
    Column("last_command", Integer, nullable=True),
)

_PG_TRIGGER = [
    f"""CREATE OR REPLACE FUNCTION robotsim_notify_command() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('{NOTIFY_CHANNEL}', NEW.run_id::text);
  RETURN NEW;
END $$ LANGUAGE plpgsql""",
    """DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'commands_notify') THEN
    CREATE TRIGGER commands_notify AFTER INSERT ON commands
      FOR EACH ROW EXECUTE FUNCTION robotsim_notify_command();
  END IF;
END $$""",
]
_ENSURED: weakref.WeakSet[Engine] = weakref.WeakSet()  # engines whose schema is there
_PG_LOCK = 0x726F6263  # advisory lock key serialising the DDL below


def ensure_command_schema(engine: Engine) -> None:
    """Create ``commands`` and ``run_status`` (and on PostgreSQL the notify trigger) if
    missing; safe to call from several processes at once; once per engine."""
    if engine in _ENSURED:
        return
    dialect = engine.dialect
    ddl = [str(CreateTable(t, if_not_exists=True).compile(dialect=dialect)).strip()
           for t in metadata.sorted_tables]  # fmt: skip
    for t in metadata.sorted_tables:
        ddl += [str(CreateIndex(ix, if_not_exists=True).compile(dialect=dialect)).strip()
                for ix in t.indexes]  # fmt: skip
    with engine.begin() as conn:
        if dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK})
            ddl += _PG_TRIGGER
        for stmt in ddl:
            conn.execute(text(stmt))
    _ENSURED.add(engine)


@dataclass(frozen=True)
class Command:
    """One row of ``commands`` as the run reads it."""

    id: int
    robot: str | None
    kind: str
    args: dict[str, Any]


def parse_args(kind: str, args: Any) -> dict[str, Any]:
    """Check a command's kind and argument syntax (names, numbers); raise
    :class:`InputError` with the reason. What they mean for the run (robot names, the
    field, speed limits, joints) the run checks."""
    if kind not in KINDS:
        raise InputError(f"unknown command kind {kind!r}; valid: {', '.join(KINDS)}")
    if isinstance(args, str):
        args = read_json(args, f"{kind}: args", max_depth=8) if args.strip() else {}
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise InputError(f"{kind}: args must be a JSON object, got {type(args).__name__}")
    required, optional = KINDS[kind]
    if kind != "joints":
        unknown = sorted(set(args) - set(required) - set(optional))
        if unknown:
            valid = ", ".join(required + optional) or "none"
            raise InputError(f"{kind}: unknown argument {unknown[0]!r}; valid: {valid}")
        missing = [k for k in required if k not in args]
        if missing:
            need = ", ".join(required)
            raise InputError(f"{kind}: missing argument {missing[0]!r} (needs {need})")
    elif not args:
        raise InputError("joints: give at least one JOINT=target")
    out: dict[str, Any] = {}
    for k, v in args.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InputError(f"{kind}: {k} must be a finite number, got {v!r}")
        out[str(k)] = float(v)
    return out


def cli_args(kind: str, tokens: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """``goal 2 1 90`` / ``velocity 0.5 0 0`` / ``joints elbow=30`` -> args."""
    if kind not in KINDS:
        raise InputError(f"unknown command kind {kind!r}; valid: {', '.join(KINDS)}")
    required, optional = KINDS[kind]
    names = required + optional
    out: dict[str, Any] = {}
    if kind == "joints":
        for tok in tokens:
            name, sep, val = tok.partition("=")
            if not sep or not name:
                raise InputError(f"joints: expected JOINT=target, got {tok!r}")
            out[name] = _number(kind, name, val)
    else:
        if not len(required) <= len(tokens) <= len(names):
            want = " ".join(required) + "".join(f" [{o}]" for o in optional)
            raise InputError(f"{kind} takes {want or 'no arguments'}; got {len(tokens)}")
        for name, tok in zip(names, tokens):
            out[name] = _number(kind, name, tok)
    return parse_args(kind, out)


def _number(kind: str, name: str, tok: str) -> float:
    try:
        return float(tok)
    except ValueError:
        raise InputError(f"{kind}: {name} must be a number, got {tok!r}") from None


def send_command(
    engine: Engine, run_id: int, kind: str, args: Mapping[str, Any] | None = None,
    robot: str | None = None,
) -> int:  # fmt: skip
    """Insert a command for run ``run_id``; returns its id (the row notifies the run)."""
    ensure_command_schema(engine)
    with engine.begin() as conn:
        res = conn.execute(
            insert(commands).values(
                run_id=int(run_id),
                robot=robot,
                kind=kind,
                args=json_dumps(dict(args or {})),
                created_at=time.time(),
            )
        )
        return int(res.inserted_primary_key[0])


def command_row(engine: Engine, command_id: int) -> dict[str, Any] | None:
    with engine.connect() as conn:
        row = conn.execute(select(commands).where(commands.c.id == command_id)).mappings().first()
    return None if row is None else dict(row)


def wait_command(engine: Engine, command_id: int, timeout: float = 10.0) -> dict[str, Any]:
    """The command's row once the run has handled it (``status`` done or failed), or
    as it is after ``timeout`` seconds (still ``pending``)."""
    end = time.monotonic() + timeout
    while True:
        row = command_row(engine, command_id)
        if row is None:
            raise InputError(f"no command {command_id}")
        if row["status"] != "pending" or time.monotonic() >= end:
            return row
        time.sleep(0.02)


def read_status(engine: Engine, run_id: int) -> list[dict[str, Any]]:
    """The ``run_status`` rows of a run (one per robot)."""
    ensure_command_schema(engine)
    with engine.connect() as conn:
        rows = conn.execute(
            select(run_status).where(run_status.c.run_id == run_id).order_by(run_status.c.robot)
        ).mappings()
        return [dict(r) for r in rows]


class CommandChannel:
    """The run's side: fetch pending commands, mark them, publish status rows.

    ``poll()`` returns the pending commands in insertion order: on PostgreSQL only when a
    notification for this run arrived (a LISTEN connection checked without blocking),
    on SQLite by reading the table."""

    def __init__(self, engine: Engine, run_id: int) -> None:
        self.engine, self.run_id = engine, int(run_id)
        ensure_command_schema(engine)
        self._conn = engine.connect()  # one connection for the run: no pool round trips
        self._listen = None
        if engine.dialect.name == "postgresql":
            import psycopg

            url = engine.url.set(drivername="postgresql")
            self._listen = psycopg.connect(url.render_as_string(hide_password=False),
                                           autocommit=True)  # fmt: skip
            self._listen.execute(f"LISTEN {NOTIFY_CHANNEL}")
        self._wake = True  # read once at the start: commands sent before the run began

    def _notified(self) -> bool:
        if self._listen is None:
            return True
        mine = self._wake
        for n in self._listen.notifies(timeout=0.0):
            mine = mine or n.payload == str(self.run_id)
        self._wake = False
        return mine

    def wait(self, timeout: float) -> bool:
        """Sleep up to ``timeout`` s; on PostgreSQL wake up early when a notification
        arrives (True: something came; poll)."""
        if timeout <= 0:
            return False
        if self._listen is None:
            time.sleep(timeout)
            return False
        import select as _select

        ready, _, _ = _select.select([self._listen.fileno()], [], [], timeout)
        return bool(ready)

    def poll(self) -> list[Command]:
        if not self._notified():
            return []
        c = commands.c
        with self._conn.begin():
            rows = self._conn.execute(
                select(c.id, c.robot, c.kind, c.args)
                .where(and_(c.run_id == self.run_id, c.status == "pending"))
                .order_by(c.id)
            ).all()
        out = []
        for r in rows:
            try:
                args = read_json(r.args, "args", max_depth=8) if r.args else {}
            except InputError:
                args = r.args  # parse_args names the problem
            out.append(Command(int(r.id), r.robot, str(r.kind), args))
        return out

    def finish(self, command: Command, sim_time: float, error: str | None = None) -> None:
        """Mark ``command`` done, or failed with ``error`` as the reason."""
        with self._conn.begin():
            self._conn.execute(
                update(commands)
                .where(commands.c.id == command.id)
                .values(
                    status="failed" if error else "done",
                    reason=error,
                    picked_at=time.time(),
                    sim_time=float(sim_time),
                )
            )

    def publish(self, rows: list[dict[str, Any]]) -> None:
        """Replace this run's ``run_status`` rows (one per robot)."""
        with self._conn.begin():
            self._conn.execute(delete(run_status).where(run_status.c.run_id == self.run_id))
            if rows:
                rows = [{"run_id": self.run_id, **r} for r in rows]
                self._conn.execute(insert(run_status), rows)

    def close(self) -> None:
        self._conn.close()
        if self._listen is not None:
            self._listen.close()
            self._listen = None
