"""Reading a run store: list runs, one run's details, its signals and events.

Opening a store also repairs runs left ``running`` by a process that died without
finishing (SIGKILL, power cut): a run whose writer heartbeat is older than
``stale_after`` seconds (five minutes when its writing process is alive on this host: a
starved writer is not a dead one), or whose writing process on this host no longer
exists, is marked ``interrupted``.
"""

from __future__ import annotations

import enum
import functools
import os
import socket
import sqlite3
import struct
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from sqlalchemy import and_, func, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from robotsim.errors import RobotsimError, UnknownNameError
from robotsim.jsonable import read_json
from robotsim.recording import schema
from robotsim.recording.engine import open_engine
from robotsim.recording.frames import SensorSeries, decode_block

__all__ = [
    "RecordingError",
    "RunInfo",
    "RunStatus",
    "RunStore",
    "SensorInfo",
    "SignalTable",
    "StoredRun",
    "open_run",
]


class RecordingError(RobotsimError):
    """The run store cannot be written or read (database down, unknown run...)."""


class RunStatus(enum.Enum):
    RUNNING = "running"
    COMPLETED = "completed"
    INTERRUPTED = "interrupted"
    FAILED = "failed"


@dataclass(frozen=True)
class RunInfo:
    """One row of ``runs`` (times in UNIX seconds, UTC)."""

    id: int
    scenario: str
    parameters: dict[str, Any]
    seed: int | None
    versions: dict[str, Any]
    started_at: float
    ended_at: float | None
    status: RunStatus
    message: str | None
    heartbeat: float
    host: str
    pid: int
    flush_interval: float

    def to_json(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["status"] = self.status.value
        return d


@dataclass(frozen=True)
class SignalTable:
    """Signals of one robot in a run, pivoted wide: ``values[i, j]`` is ``names[j]``
    at ``t[i]`` (NaN where that signal was not recorded at that time).

    Shapes: ``t`` (T,) seconds, ``values`` (T, N).
    """

    robot: str
    t: np.ndarray
    names: tuple[str, ...]
    values: np.ndarray

    def column(self, name: str) -> np.ndarray:
        if name not in self.names:
            raise UnknownNameError("signal", name, self.names)
        return self.values[:, self.names.index(name)]


@dataclass(frozen=True)
class SensorInfo:
    """A recorded sensor of a run: ``robot``, ``name``, ``type``, ``readings`` (how many)
    and ``meta`` (fields, the sensor's description)."""

    channel: int
    robot: str
    name: str
    type: str
    readings: int
    meta: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        fields = {
            f["name"]: {"dtype": f["dtype"], "shape": f["shape"]} for f in self.meta["fields"]
        }
        return {"robot": self.robot, "name": self.name, "type": self.type,
                "readings": self.readings, "rate": self.meta.get("rate"),
                "fields": fields}  # fmt: skip


def _pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this host (a zombie, killed but not yet reaped
    by its parent, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # Linux: the state after the command name in /proc/PID/stat; Z = zombie
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


#: Seconds without a heartbeat before a run whose writing process is still alive on
#: this host is marked interrupted (a process id can be reused after a kill -9).
LIVE_WRITER_GRACE = 300.0


F = TypeVar("F", bound=Callable[..., Any])

#: What a damaged store or one of another schema raises while it is read: the driver's
#: errors, and the decoders' on rows that hold what no recorder wrote.
_DAMAGE = (SQLAlchemyError, sqlite3.Error, struct.error, zlib.error, ValueError, TypeError,
           KeyError, IndexError, OverflowError)  # fmt: skip


def _damage_is_an_error(method: F) -> F:
    """A read of a damaged store (a corrupted SQLite file, a database of another
    schema) raises a one-line :class:`RecordingError` naming the store, not the
    driver's traceback; robotsim's own errors pass through."""

    @functools.wraps(method)
    def wrapper(self: RunStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except RobotsimError:
            raise
        except _DAMAGE as exc:
            detail = (str(exc).splitlines() or [""])[0][:200]
            raise RecordingError(
                f"run store {self.engine.url}: damaged or not a robotsim run store "
                f"({type(exc).__name__}: {detail})"
            ) from exc

    return wrapper  # type: ignore[return-value]


class RunStore:
    """A run store opened for reading (and repair of stale runs).

    Args:
        db: a path (SQLite; a folder means ``folder/runs.sqlite``) or an SQLAlchemy URL.
        stale_after: seconds without a heartbeat after which a ``running`` run is
            considered dead and marked ``interrupted`` (a run whose writer is alive on
            this host: at least :data:`LIVE_WRITER_GRACE`; one whose writer is gone
            from this host: at once).
    """

    def __init__(self, db: str | os.PathLike[str] | Engine, stale_after: float = 5.0) -> None:
        self.engine = db if isinstance(db, Engine) else open_engine(db)
        self.stale_after = stale_after
        try:
            schema.ensure_schema(self.engine)
        except Exception as exc:  # connection refused, bad credentials, read-only file
            raise RecordingError(
                f"cannot open run store {self.engine.url!r}: "
                f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
            ) from exc
        self.recover_stale()

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- repair -----------------------------------------------------------------------
    @_damage_is_an_error
    def recover_stale(self) -> list[int]:
        """Mark dead ``running`` runs ``interrupted``; returns their ids."""
        now = time.time()
        host = socket.gethostname()
        me = os.getpid()
        r = schema.runs
        dead: list[int] = []
        with self.engine.begin() as conn:
            rows = conn.execute(
                select(r.c.id, r.c.heartbeat, r.c.host, r.c.pid).where(r.c.status == "running")
            ).all()
            for rid, beat, rhost, pid in rows:
                local = rhost == host
                alive = local and (pid == me or _pid_alive(pid))
                # a writer alive on this host is only starved (a loaded machine): its
                # run is given LIVE_WRITER_GRACE before a missing heartbeat counts
                limit = max(self.stale_after, LIVE_WRITER_GRACE) if alive else self.stale_after
                if now - beat > limit or (local and not alive):
                    dead.append(rid)
            if dead:
                conn.execute(
                    update(r)
                    .where(and_(r.c.id.in_(dead), r.c.status == "running"))
                    .values(
                        status="interrupted",
                        ended_at=r.c.heartbeat,
                        message="writer stopped without finishing (killed or crashed)",
                    )
                )
        return dead

    # -- queries ----------------------------------------------------------------------
    @_damage_is_an_error
    def runs(
        self, limit: int | None = None, tags: Mapping[str, str] | None = None
    ) -> list[RunInfo]:
        """All runs (or those carrying every tag in ``tags``), newest first."""
        q = select(schema.runs).order_by(schema.runs.c.id.desc())
        for key, value in (tags or {}).items():
            t = schema.run_tags.alias()
            q = q.where(
                schema.runs.c.id.in_(
                    select(t.c.run_id).where(and_(t.c.key == key, t.c.value == str(value)))
                )
            )
        if limit is not None:
            q = q.limit(limit)
        with self.engine.connect() as conn:
            return [_info(row._mapping) for row in conn.execute(q)]

    @_damage_is_an_error
    def resolve(self, run: int | str) -> int:
        """A run id from ``7``, ``"7"``, ``"last"`` or ``"latest"``."""
        if isinstance(run, str) and run.lower() in ("last", "latest"):
            with self.engine.connect() as conn:
                rid = conn.execute(select(func.max(schema.runs.c.id))).scalar()
            if rid is None:
                raise RecordingError(f"{self.engine.url}: the run store has no runs")
            return int(rid)
        try:
            return int(run)
        except (TypeError, ValueError):
            raise RecordingError(f"RUN must be a run id or 'last', got {run!r}") from None

    @_damage_is_an_error
    def run(self, run: int | str) -> RunInfo:
        rid = self.resolve(run)
        with self.engine.connect() as conn:
            row = conn.execute(select(schema.runs).where(schema.runs.c.id == rid)).first()
        if row is None:
            ids = [str(i.id) for i in self.runs(limit=20)]
            raise UnknownNameError("run", str(rid), ids)
        return _info(row._mapping)

    @_damage_is_an_error
    def tags(self, run: int | str) -> dict[str, str]:
        """The run's tags (``{"sweep": ID, ...}``; empty for untagged runs)."""
        rid = self.resolve(run)
        t = schema.run_tags
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.c.key, t.c.value).where(t.c.run_id == rid)).all()
        return {str(k): str(v) for k, v in rows}

    @_damage_is_an_error
    def channels(self, run: int | str) -> list[tuple[int, str, str]]:
        """``(channel, robot, name)`` of every signal of a run."""
        rid = self.run(run).id
        c = schema.channels
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(c.c.channel, c.c.robot, c.c.name)
                .where(c.c.run_id == rid)
                .order_by(c.c.channel)
            ).all()
        return [(int(a), str(b), str(n)) for a, b, n in rows]

    @_damage_is_an_error
    def robots(self, run: int | str) -> list[str]:
        seen: dict[str, None] = {}
        for _, robot, _ in self.channels(run):
            seen.setdefault(robot)
        return list(seen)

    @_damage_is_an_error
    def signal_count(self, run: int | str) -> int:
        rid = self.run(run).id
        s = schema.signals
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).where(s.c.run_id == rid)).scalar() or 0)

    @_damage_is_an_error
    def signals(
        self, run: int | str, robot: str, names: Sequence[str] | None = None
    ) -> SignalTable:
        """One robot's signals of a run, wide (see :class:`SignalTable`)."""
        rid = self.run(run).id
        chans = [(ch, n) for ch, rb, n in self.channels(rid) if rb == robot]
        if not chans:
            raise UnknownNameError("robot", robot, self.robots(rid))
        if names is not None:
            by_name = {n: ch for ch, n in chans}
            for n in names:
                if n not in by_name:
                    raise UnknownNameError(f"signal of robot {robot!r}", n, list(by_name))
            chans = [(by_name[n], n) for n in names]
        col = {ch: j for j, (ch, _) in enumerate(chans)}
        s = schema.signals
        q = select(s.c.channel, s.c.t, s.c.value).where(
            and_(s.c.run_id == rid, s.c.channel.in_(list(col)))
        )
        with self.engine.connect() as conn:
            # rows as plain tuples from the driver's cursor (SQLAlchemy's Row objects
            # cost several times the query for a long run)
            rows = conn.execute(q).cursor.fetchall()
        if not rows:
            return SignalTable(
                robot, np.zeros(0), tuple(n for _, n in chans), np.zeros((0, len(chans)))
            )
        arr = np.array(rows, dtype=float)  # NULL (None) -> NaN
        lookup = np.full(max(col) + 1, -1, dtype=np.intp)
        lookup[list(col)] = list(col.values())
        t_unique, ti = np.unique(arr[:, 1], return_inverse=True)
        values = np.full((len(t_unique), len(chans)), np.nan)
        values[ti, lookup[arr[:, 0].astype(np.intp)]] = arr[:, 2]
        return SignalTable(robot, t_unique, tuple(n for _, n in chans), values)

    @_damage_is_an_error
    def events(self, run: int | str, type: str | None = None) -> list[dict[str, Any]]:
        """Events of a run in time order: ``{"t", "type", "robot", "data"}``."""
        rid = self.run(run).id
        e = schema.events
        q = select(e.c.t, e.c.type, e.c.robot, e.c.data).where(e.c.run_id == rid)
        if type is not None:
            q = q.where(e.c.type == type)
        with self.engine.connect() as conn:
            rows = conn.execute(q.order_by(e.c.t, e.c.id)).all()
        return [
            {"t": t, "type": ty, "robot": rb, "data": read_json(d, "run store: event data")}
            for t, ty, rb, d in rows
        ]

    @_damage_is_an_error
    def scene(self, run: int | str) -> dict[str, Any] | None:
        """The run's 3D scene (:mod:`robotsim.recording.scene`), or None when it has
        none (recorded before schema version 2, or by a kind that records no scene)."""
        rid = self.run(run).id
        sc = schema.run_scenes
        with self.engine.connect() as conn:
            row = conn.execute(select(sc.c.scene).where(sc.c.run_id == rid)).first()
        return None if row is None else dict(read_json(row[0], "run store: scene"))

    @_damage_is_an_error
    def sensors(self, run: int | str) -> list[SensorInfo]:
        """Every recorded sensor of a run (robot, name, type, number of readings)."""
        rid = self.run(run).id
        c, f = schema.sensor_channels, schema.sensor_blocks
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(c.c.channel, c.c.robot, c.c.name, c.c.type, c.c.meta)
                .where(c.c.run_id == rid)
                .order_by(c.c.channel)
            ).all()
            counts = dict(
                conn.execute(
                    select(f.c.channel, func.sum(f.c.n))
                    .where(f.c.run_id == rid)
                    .group_by(f.c.channel)
                ).all()
            )
        return [
            SensorInfo(
                int(ch),
                str(rb),
                str(n),
                str(ty),
                int(counts.get(ch, 0)),
                read_json(m, "run store: sensor meta"),
            )
            for ch, rb, n, ty, m in rows
        ]

    @_damage_is_an_error
    def sensor(
        self,
        run: int | str,
        robot: str,
        name: str,
        t0: float | None = None,
        t1: float | None = None,
        fields: Sequence[str] | None = None,
    ) -> SensorSeries:
        """The readings of one sensor of a run, between ``t0`` and ``t1`` (s, both
        included; default all), optionally only some ``fields``: arrays with
        timestamps (:class:`~robotsim.recording.frames.SensorSeries`). The arrays are
        sized against the memory budget (:mod:`robotsim.budget`) before they are read."""
        from robotsim import budget

        infos = self.sensors(run)
        rid = self.run(run).id
        info = next((i for i in infos if i.robot == robot and i.name == name), None)
        if info is None:
            raise UnknownNameError(
                "sensor", f"{robot}/{name}", [f"{i.robot}/{i.name}" for i in infos]
            )
        layout = info.meta["fields"]
        names = [f["name"] for f in layout]
        want = names if fields is None else list(fields)
        for k in want:
            if k not in names:
                raise UnknownNameError(f"field of sensor {robot}/{name}", k, names)
        f = schema.sensor_blocks
        cond = [f.c.run_id == rid, f.c.channel == info.channel]
        if t0 is not None:
            cond.append(f.c.t_last >= float(t0))
        if t1 is not None:
            cond.append(f.c.t_first <= float(t1))
        with self.engine.connect() as conn:
            n = int(conn.execute(select(func.sum(f.c.n)).where(and_(*cond))).scalar() or 0)
            per = sum(
                np.dtype(x["dtype"]).itemsize * int(np.prod(x["shape"], dtype=np.int64))
                for x in layout
                if x["name"] in want
            )
            budget.check(
                f"{n} readings of sensor {robot}/{name}", float(n) * per,
                "read a time window (t0, t1) or fewer fields",
            )  # fmt: skip
            rows = conn.execute(
                select(f.c.n, f.c.data).where(and_(*cond)).order_by(f.c.t_first)
            ).all()
        times: list[np.ndarray] = []
        cols: dict[str, list[np.ndarray]] = {k: [] for k in want}
        for count, blob in rows:
            tb, arrays = decode_block(blob, int(count), layout)
            keep = np.ones(tb.size, dtype=bool)
            if t0 is not None:
                keep &= tb >= float(t0)
            if t1 is not None:
                keep &= tb <= float(t1)
            times.append(tb[keep])
            for k, a in zip(names, arrays):
                if k in cols:
                    cols[k].append(a[keep])
        t = np.concatenate(times) if times else np.zeros(0)
        data = {}
        for x in layout:
            k = x["name"]
            if k in cols:
                shape = (0, *x["shape"])
                arr = np.concatenate(cols[k]) if cols[k] else np.zeros(shape, dtype=x["dtype"])
                arr.setflags(write=False)
                data[k] = arr
        t.setflags(write=False)
        meta = {k: v for k, v in info.meta.items()}
        return SensorSeries(robot, name, info.type, t, data, meta)

    def open(self, run: int | str = "last") -> StoredRun:
        """One run to read: ``store.open(3).sensor("r0", "lidar")``."""
        return StoredRun(self, self.run(run))

    @_damage_is_an_error
    def time_span(self, run: int | str) -> tuple[float | None, float | None]:
        """First and last signal time of a run (None, None without signals)."""
        rid = self.run(run).id
        s = schema.signals
        with self.engine.connect() as conn:
            lo, hi = conn.execute(
                select(func.min(s.c.t), func.max(s.c.t)).where(s.c.run_id == rid)
            ).one()
        return lo, hi


def _info(m: Any) -> RunInfo:
    return RunInfo(
        id=int(m["id"]),
        scenario=m["scenario"],
        parameters=read_json(m["parameters"] or "{}", "run store: run parameters"),
        seed=m["seed"],
        versions=read_json(m["versions"] or "{}", "run store: run versions"),
        started_at=float(m["started_at"]),
        ended_at=None if m["ended_at"] is None else float(m["ended_at"]),
        status=RunStatus(m["status"]),
        message=m["message"],
        heartbeat=float(m["heartbeat"]),
        host=m["host"],
        pid=int(m["pid"]),
        flush_interval=float(m["flush_interval"]),
    )


class StoredRun:
    """One run of a store, read through its methods (the store stays open while you
    use it): ``info`` (:class:`RunInfo`), ``robots()``, ``signals(robot)``,
    ``events()``, ``sensors()``, ``sensor(robot, name)``."""

    def __init__(self, store: RunStore, info: RunInfo) -> None:
        self.store, self.info, self.id = store, info, info.id

    def robots(self) -> list[str]:
        return self.store.robots(self.id)

    def signals(self, robot: str, names: Sequence[str] | None = None) -> SignalTable:
        return self.store.signals(self.id, robot, names)

    def events(self, type: str | None = None) -> list[dict[str, Any]]:
        return self.store.events(self.id, type)

    def sensors(self) -> list[SensorInfo]:
        return self.store.sensors(self.id)

    def sensor(
        self,
        robot: str,
        name: str,
        t0: float | None = None,
        t1: float | None = None,
        fields: Sequence[str] | None = None,
    ) -> SensorSeries:
        return self.store.sensor(self.id, robot, name, t0, t1, fields)


def open_run(db: str | os.PathLike[str] | Engine, run: int | str = "last") -> StoredRun:
    """Open the store ``db`` and one of its runs (``"last"``: the newest):
    ``open_run("out").sensor("r0", "lidar")``. The store stays open with the run
    (``run.store.close()`` releases it)."""
    return RunStore(db).open(run)
