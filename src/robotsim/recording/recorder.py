"""Writing a run: the :class:`Recorder` a simulation loop calls.

The simulation thread only appends to in-memory buffers (a ``deque`` append, no
lock); a writer thread commits them in one transaction of batch inserts (multi-row
``INSERT`` on SQLite, ``COPY`` on PostgreSQL) when asked, or every ``flush_interval``
seconds of wall time (0.5 s by default), and refreshes the run's heartbeat. Both
threads use one database connection, under a lock. So:

- a clean end, an exception or Ctrl-C (``KeyboardInterrupt``) flushes everything and
  marks the run ``completed``, ``failed`` or ``interrupted`` (a Ctrl-C that arrives
  while the simulation thread commits is raised after the commit);
- a hard kill (SIGKILL, power cut) loses at most the last ``flush_interval`` seconds
  of wall time *and* at most ``2 * sim_flush_interval`` (0.5 s) of simulated time: the
  recorder notes a checkpoint every ``sim_flush_interval / 2`` seconds of signal time
  and asks the writer for a commit every ``sim_flush_interval``; before running on past
  a checkpoint it makes sure that everything up to ``2 * sim_flush_interval`` minus that
  spacing behind is committed. A commit asked of the writer has 0.375 s of simulated
  time to land; when it has not, the simulation thread commits everything itself
  (about 0.1-0.2 ms) instead of waiting for the writer thread to be scheduled and to
  get the GIL, which on a loaded machine took milliseconds of wall time, several
  checkpoints' worth for a run far ahead of real time (docs/performance.md). The very
  first sample is committed before :meth:`Recorder.signal` returns, so a run killed
  right after it keeps its rows. The next :class:`~robotsim.recording.store.RunStore`
  opened on the same database marks the run ``interrupted`` (stale heartbeat or dead
  pid).
- On SQLite the committing connection never checkpoints the write-ahead log (a
  checkpoint syncs the file to disk: milliseconds); the writer thread does, every
  ``flush_interval``, on a connection of its own and without the GIL.

Typical use::

    with Recorder("out/runs.sqlite") as rec:
        rec.start_run("soccer.yaml", parameters={"duration": 30}, seed=1)
        for k in range(n):
            world.step()
            rec.signal("omni", t, ("x", "y", "yaw"), pose)
        rec.event(t, "goal_reached", robot="omni", data={"error": 0.02})
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import io
import json
import os
import platform
import signal
import socket
import threading
import time
import warnings
import weakref
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain, repeat
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sqlalchemy import insert, update
from sqlalchemy.engine import Engine

from robotsim.errors import InputError
from robotsim.jsonable import dumps as json_dumps
from robotsim.recording import schema
from robotsim.recording.frames import (
    COMPRESSED,
    encode_chunks,
    encode_rows,
    field_layout,
    row_spans,
)
from robotsim.recording.receipts import note_run
from robotsim.recording.store import RecordingError, RunStatus, RunStore

__all__ = ["DEFAULT_FLUSH_INTERVAL", "Recorder", "default_versions"]

DEFAULT_FLUSH_INTERVAL = 0.5
#: Seconds of simulated (signal) time between commit requests; a hard kill loses at most
#: twice this much simulated time.
DEFAULT_SIM_FLUSH_INTERVAL = 0.25

_live: weakref.WeakSet[Recorder] = weakref.WeakSet()


def default_versions() -> dict[str, str]:
    """Versions of robotsim, Python and the engines, for the ``runs.versions`` column."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ours = version("robotsim")
    except PackageNotFoundError:  # a source tree on sys.path, not installed
        ours = "unknown"
    out = {"robotsim": ours, "python": platform.python_version()}
    try:
        import mujoco

        out["mujoco"] = mujoco.__version__
    except Exception:  # mujoco is a dependency, but recording must not need it
        pass
    out["numpy"] = np.__version__
    return out


class Recorder:
    """Records one run into a run store (see the module doc).

    Args:
        db: a path (SQLite; a folder means ``folder/runs.sqlite``), an SQLAlchemy URL or
            an engine.
        flush_interval: seconds between commits; at most this much wall time of data
            is lost on a hard kill.
        sim_flush_interval: seconds of signal time between commit requests; at most
            twice this much simulated time is lost on a hard kill.
        tags: labels written with the run (table ``run_tags``), e.g. ``{"sweep": ID}``.
    """

    def __init__(
        self,
        db: str | os.PathLike[str] | Engine,
        flush_interval: float = DEFAULT_FLUSH_INTERVAL,
        sim_flush_interval: float = DEFAULT_SIM_FLUSH_INTERVAL,
        tags: Mapping[str, str] | None = None,
    ) -> None:
        if not flush_interval > 0:
            raise InputError(f"flush_interval must be > 0 s, got {flush_interval}")
        if not sim_flush_interval > 0:
            raise InputError(f"sim_flush_interval must be > 0 s, got {sim_flush_interval}")
        self.sim_flush_interval = float(sim_flush_interval)
        self._sim_mark: float | None = None  # signal time of the next checkpoint
        self._sim_spacing = self.sim_flush_interval / 2  # signal time between checkpoints
        # checkpoints not known committed yet: (signal time, number of items up to it)
        self._requests: deque[tuple[float, int]] = deque()
        self._asked_t = -np.inf  # signal time of the last commit asked of the writer
        self._committed_t = -np.inf  # signal time up to which everything is committed
        self._want = 0  # items the writer is asked to commit
        self.store = RunStore(db)
        self.engine = self.store.engine
        self.flush_interval = float(flush_interval)
        self.tags = {str(k): str(v) for k, v in (tags or {}).items()}
        self.run_id: int | None = None
        self.status: RunStatus | None = None
        self.rows_written = 0
        self._lock = threading.Lock()  # guards the channel tables (new channels only)
        # appended by the simulation thread, drained by the writer (both atomic on a deque)
        self._sig: deque[tuple[Any, ...]] = deque()
        self._ev: deque[tuple[Any, ...]] = deque()
        self._new_channels: list[tuple[int, str, str]] = []
        # sensor readings: (channel, t, arrays), drained like the signals
        self._frames: deque[tuple[Any, ...]] = deque()
        self._holders: list[Any] = []  # see hand_over_at_checkpoints
        self._sensor_chan: dict[tuple[str, str], tuple[int, tuple[str, ...], Any, str]] = {}
        self._sensor_shapes: dict[int, list[tuple[int, ...]]] = {}
        self._rows_dtype: dict[int, np.dtype] = {}  # per channel: the rows' dtype checked
        self._raw_blocks: dict[int, int] = {}  # per channel: blocks to store uncompressed
        # per channel and rows' dtype: where t and the fields lie in a row (or None)
        self._spans: dict[tuple[int, np.dtype], Any] = {}
        self._new_sensor_channels: list[tuple[int, str, str, str, str]] = []
        self._chan: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        self._chan_by_name: dict[tuple[str, str], int] = {}
        self._wake = _Wake()  # a commit asked for, or finish()
        self._stop = False
        # one connection, used by whichever thread commits, under this lock
        self._io = threading.Lock()
        self._raw: Any = None
        self._last_commit = 0.0  # time.monotonic() of the last commit
        # items (signal rows, blocks, events) appended so far and the number committed
        self._appended = 0
        self._committed = 0
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        #: CPU seconds the writer thread used (its own clock), set when it ends
        self.writer_cpu = 0.0

    # -- life cycle -------------------------------------------------------------------
    def start_run(
        self,
        scenario: str,
        parameters: Mapping[str, Any] | None = None,
        seed: int | None = None,
        versions: Mapping[str, Any] | None = None,
    ) -> int:
        """Insert the run (status ``running``), start the writer; returns the run id."""
        if self.run_id is not None:
            raise RecordingError(
                f"this recorder already holds run {self.run_id}; use one Recorder per run"
            )
        now = time.time()
        vers = {**dict(versions or default_versions()), "store_schema": schema.SCHEMA_VERSION}
        vals = {
            "scenario": str(scenario),
            "parameters": json_dumps(dict(parameters or {})),
            "seed": None if seed is None else int(seed),
            "versions": json_dumps(vers),
            "started_at": now,
            "status": RunStatus.RUNNING.value,
            "heartbeat": now,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "flush_interval": self.flush_interval,
        }
        with self.engine.begin() as conn:
            key = conn.execute(insert(schema.runs).values(**vals)).inserted_primary_key
            assert key is not None  # an insert always has one
            self.run_id = int(key[0])
            if self.tags:
                conn.execute(
                    insert(schema.run_tags),
                    [{"run_id": self.run_id, "key": k, "value": v} for k, v in self.tags.items()],
                )
        self._raw = self.engine.raw_connection()
        self._sqlite = self.engine.dialect.name == "sqlite"
        if self._sqlite:  # the writer thread checkpoints the WAL (see _writer)
            self._raw.driver_connection.execute("PRAGMA wal_autocheckpoint=0")
        self._last_commit = time.monotonic()
        self.status = RunStatus.RUNNING
        self._thread = threading.Thread(
            target=self._writer, name=f"recorder-{self.run_id}", daemon=True
        )
        self._thread.start()
        _live.add(self)
        note_run(self.engine, self.run_id)  # a run's receipt is written to it afterwards
        return self.run_id

    def finish(
        self, status: RunStatus | str = RunStatus.COMPLETED, message: str | None = None
    ) -> None:
        """Flush everything, stop the writer and set the run's final status."""
        status = RunStatus(status)
        if self.run_id is None or self.status is not RunStatus.RUNNING:
            return
        if self._error is None:  # what producers hold back comes in before the end
            self._call_holders()
        self._stop = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
        self._release_connection()
        end = time.time()
        err = self._error
        if err is not None:
            status, message = RunStatus.FAILED, f"recording failed: {err}"
        r = schema.runs
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    update(r)
                    .where(r.c.id == self.run_id)
                    .values(status=status.value, ended_at=end, heartbeat=end, message=message)
                )
        except Exception as exc:  # the database went away: say so in our own terms
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            cause = f"writer failed: {err}; " if err is not None else ""
            raise RecordingError(
                f"run {self.run_id}: {cause}cannot set status {status.value!r}: {first}"
            ) from exc
        finally:
            self.status = status
            _live.discard(self)
        if err is not None:
            raise RecordingError(f"run {self.run_id}: writer failed: {err}") from err

    def _release_connection(self) -> None:
        raw, self._raw = self._raw, None
        if raw is None:
            return
        try:
            if self._error is not None:
                raw.invalidate()  # do not hand a broken connection back to the pool
            else:
                raw.close()
        except Exception:  # the connection may already be gone with the server
            pass

    def close(self) -> None:
        """Finish as ``interrupted`` if still running, then release the database."""
        if self.status is RunStatus.RUNNING:
            self.finish(RunStatus.INTERRUPTED, "recorder closed before the run finished")
        self.store.close()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        if self.status is RunStatus.RUNNING:
            if exc_type is None:
                self.finish(RunStatus.COMPLETED)
            else:
                status = RunStatus.FAILED
                message = f"{exc_type.__name__}: {exc}"
                if issubclass(exc_type, KeyboardInterrupt):
                    status, message = RunStatus.INTERRUPTED, "interrupted (Ctrl-C)"
                try:
                    self.finish(status, message)
                except RecordingError as rec_err:  # keep the original exception going
                    warnings.warn(str(rec_err), RuntimeWarning, stacklevel=2)
        self.store.close()

    def scene(self, doc: Mapping[str, Any]) -> None:
        """Store the run's 3D scene (:mod:`robotsim.recording.scene`), once per run,
        committed at once (strict JSON: a NaN or infinity is refused)."""
        if self._error is not None or self.status is not RunStatus.RUNNING:
            self._not_running()
        try:
            text = json.dumps(_jsonable(dict(doc)), allow_nan=False)
        except ValueError as exc:
            raise InputError(f"run {self.run_id}: scene: {exc}") from None
        version = int(str(doc.get("format", "robotsim-scene/1")).rpartition("/")[2] or 1)
        with self.engine.begin() as conn:
            conn.execute(
                insert(schema.run_scenes).values(run_id=self.run_id, version=version, scene=text)
            )

    # -- the hot path -----------------------------------------------------------------
    def _channels(self, robot: str, names: tuple[str, ...]) -> list[int]:
        chs = []
        for n in names:
            ch = self._chan_by_name.get((robot, n))
            if ch is None:
                ch = len(self._chan_by_name)
                self._chan_by_name[(robot, n)] = ch
                self._new_channels.append((ch, robot, str(n)))
            chs.append(ch)
        self._chan[(robot, names)] = chs
        return chs

    def signal(self, robot: str, t: float, names: Sequence[str], values: ArrayLike) -> None:
        """Record ``values[i]`` of signal ``names[i]`` of ``robot`` at time ``t`` (s).

        ``names`` is best passed as the same tuple every call (it is a cache key).
        """
        if self._error is not None or self.status is not RunStatus.RUNNING:
            self._not_running()
        key = (robot, names if type(names) is tuple else tuple(names))
        vals: list[Any] | None = None
        if isinstance(values, np.ndarray) and values.dtype == np.float64:
            vals = values.reshape(-1).tolist()
        elif type(values) is list:  # the mobile loop's case: plain numbers
            try:
                vals = [float(v) for v in values]
            except TypeError:  # nested lists and such: NumPy's reading below
                vals = None
        if vals is None:
            vals = np.asarray(values, dtype=np.float64).reshape(-1).tolist()
        if len(vals) != len(key[1]):
            raise InputError(f"signal {robot!r}: {len(key[1])} names but {len(vals)} values")
        chs = self._chan.get(key)
        if chs is None:
            with self._lock:
                chs = self._channels(*key)
        self._sig.append((chs, float(t), vals))
        self._appended += 1
        self._after_signal(float(t))

    def signals(self, robot: str, t: ArrayLike, names: Sequence[str], values: ArrayLike) -> None:
        """Record a block: ``t`` (T,) seconds, ``values`` (T, N) for ``names`` (N,)."""
        if self._error is not None or self.status is not RunStatus.RUNNING:
            self._not_running()
        key = (robot, names if type(names) is tuple else tuple(names))
        ta = np.array(t, dtype=np.float64).reshape(-1)
        va = np.array(values, dtype=np.float64)
        if va.shape != (ta.size, len(key[1])):
            raise InputError(
                f"signals {robot!r}: values must have shape "
                f"({ta.size}, {len(key[1])}), got {va.shape}"
            )
        chs = self._chan.get(key)
        if chs is None:
            with self._lock:
                chs = self._channels(*key)
        self._sig.append((chs, ta, va))
        self._appended += 1
        if ta.size:
            self._after_signal(float(np.max(ta)))

    def sensor(
        self,
        robot: str,
        name: str,
        t: float,
        data: Mapping[str, Any],
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        """Record one reading of sensor ``name`` of ``robot`` at time ``t`` (s): ``data``
        maps field names to arrays (a :class:`robotsim.sensors.Reading`'s ``data``).
        The first reading of a sensor fixes its fields (names, dtypes, shapes) and
        keeps ``meta`` (JSON-able: the sensor's type, rate, angles...); the arrays are
        kept as given (not copied: pass arrays nobody writes to) and encoded when
        committed, one row per sensor per commit (:mod:`robotsim.recording.frames`)."""
        if self._error is not None or self.status is not RunStatus.RUNNING:
            self._not_running()
        key = (robot, name)
        entry = self._sensor_chan.get(key)
        if entry is None:
            with self._lock:
                entry = self._sensor_channel(robot, name, data, meta or {})
        ch, names, _dtypes, _ = entry
        try:
            if len(data) != len(names):
                raise KeyError(name)
            arrays = [data[k] for k in names]
        except KeyError:
            raise InputError(
                f"sensor {robot}/{name}: fields {sorted(data)}, but it records {list(names)}"
            ) from None
        for a, shape, k in zip(arrays, self._sensor_shapes[ch], names):
            if getattr(a, "shape", None) != shape and np.shape(a) != shape:
                raise InputError(
                    f"sensor {robot}/{name}: field {k!r} has shape {list(np.shape(a))}, "
                    f"but it records {list(shape)}"
                )
        self._frames.append((ch, float(t), arrays))
        self._appended += 1
        self._after_signal(float(t))

    def hand_over_at_checkpoints(self, method: Any) -> None:
        """Call the bound ``method`` (no arguments) at every checkpoint of the signal
        time that asks the writer for a commit (see :meth:`_after_signal`: every
        ``sim_flush_interval``) before it is noted, and when a run finishes, before the
        last commit: a producer that hands readings over in batches
        (:class:`robotsim.sensors.SensorRig`) gives what it holds, so that commit
        covers every reading taken up to it. Kept (strongly) until the producer is
        released (:meth:`release_hand_over`: a rig that closes or is given another
        recorder), so that the readings held by a producer nobody else keeps are not
        lost when it is dropped before the run finishes."""
        if all(m != method for m in self._holders):
            self._holders.append(method)

    def release_hand_over(self, method: Any) -> None:
        """Stop calling ``method`` (registered with :meth:`hand_over_at_checkpoints`)."""
        self._holders = [m for m in self._holders if m != method]

    def _call_holders(self) -> None:
        for hand_over in list(self._holders):
            hand_over()

    def sensor_rows(
        self,
        robot: str,
        name: str,
        rows: np.ndarray,
        meta: Mapping[str, Any] | None = None,
        start: int = 0,
        stop: int | None = None,
    ) -> None:
        """Record readings of sensor ``name`` of ``robot`` given stacked: ``rows[start:
        stop]`` of a structured array whose first field is ``t`` (s, float64) and the
        others the reading's fields in order (each ``(*shape)`` of its dtype), as
        :class:`robotsim.sensors.SensorRig` hands over the rows its IMUs write. The
        same channel and blocks as :meth:`sensor` (``meta`` kept with the first rows).
        The rows are kept as given, not copied: nobody may write to them again. (Given
        the whole array and the range, the ranges one array is handed over in are
        joined again before they are stored.)"""
        if self._error is not None or self.status is not RunStatus.RUNNING:
            self._not_running()
        stop = len(rows) if stop is None else int(stop)
        if stop <= start:
            return
        dt = rows.dtype
        entry = self._sensor_chan.get((robot, name))
        if entry is None:
            names = dt.names or ()
            if len(names) < 2 or names[0] != "t":
                raise InputError(
                    f"sensor {robot}/{name}: rows need the fields t, then the reading's; "
                    f"got {list(names)}"
                )
            with self._lock:
                sub = {k: np.empty(dt.fields[k][0].shape, dt.fields[k][0].base) for k in names[1:]}
                entry = self._sensor_channel(robot, name, sub, meta or {})
        ch = entry[0]
        known = self._rows_dtype.get(ch)
        if known is not dt and (known is None or known != dt):
            self._check_rows(robot, name, entry, dt)
        self._frames.append((ch, rows, start, stop))
        self._appended += 1
        self._after_signal(float(rows["t"][stop - 1]))

    def _check_rows(self, robot: str, name: str, entry: tuple[Any, ...], dt: np.dtype) -> None:
        """Rows of dtype ``dt`` must carry the channel's fields (once per new dtype)."""
        ch, names, dtypes, _ = entry
        got = dt.names or ()
        if tuple(got[1:]) != tuple(names) or not got or got[0] != "t":
            raise InputError(
                f"sensor {robot}/{name}: rows with fields {list(got)}, but it records "
                f"{['t', *names]}"
            )
        for k, want, shape in zip(names, dtypes, self._sensor_shapes[ch]):
            sub = dt.fields[k][0]
            if sub.shape != shape or sub.base.newbyteorder("<") != want.newbyteorder("<"):
                raise InputError(
                    f"sensor {robot}/{name}: field {k!r} is {sub.base} {list(sub.shape)}, "
                    f"but it records {want} {list(shape)}"
                )
        self._rows_dtype[ch] = dt

    def _sensor_channel(
        self, robot: str, name: str, data: Mapping[str, Any], meta: Mapping[str, Any]
    ) -> tuple[int, tuple[str, ...], Any, str]:
        layout = field_layout({k: np.asarray(v) for k, v in data.items()})
        ch = len(self._sensor_chan)
        full = {**_jsonable(dict(meta)), "fields": layout}
        kind = str(meta.get("type", "sensor"))
        entry = (ch, tuple(str(k) for k in data), [np.dtype(f["dtype"]) for f in layout], "")
        self._sensor_shapes[ch] = [tuple(f["shape"]) for f in layout]
        self._sensor_chan[(robot, name)] = entry
        self._new_sensor_channels.append((ch, robot, name, kind, json_dumps(full)))
        return entry

    def event(
        self, t: float, type: str, robot: str | None = None, data: Mapping[str, Any] | None = None
    ) -> None:
        """Record an event (``type`` e.g. ``collision``, ``grasp``, ``goal_reached``)."""
        if self._error is not None or self.status is not RunStatus.RUNNING:
            self._not_running()
        row = (float(t), str(type), robot, json_dumps(dict(data or {})))
        self._ev.append(row)
        self._appended += 1

    def _after_signal(self, t: float) -> None:
        """Commit the first sample now; then note a checkpoint every ``sim_flush_interval
        / 2`` of signal time, ask the writer for a commit every ``sim_flush_interval``,
        and commit here when the committed data lag too far behind.

        Until the next checkpoint (signal time below ``t + spacing``) a kill may lose
        everything after the committed signal time, so that must reach
        ``t + spacing - 2 * sim_flush_interval``: a commit asked of the writer at ``t``
        has ``2 * sim_flush_interval - spacing`` (0.375 s) of signal time to land. If it
        has not, this thread commits everything itself instead of waiting for the
        writer thread to be scheduled and to get the GIL (a run far ahead of real time
        leaves the writer a few milliseconds of wall time; docs/performance.md).

        Producers registered with :meth:`hand_over_at_checkpoints` hand over what they
        hold at each checkpoint that asks the writer for a commit (every
        ``sim_flush_interval``), before it is noted, so it covers their readings too."""
        if self._sim_mark is None:
            self._sim_mark = t + self._sim_spacing
            self._commit_here()
            self._committed_t = self._asked_t = t
            return
        if not t >= self._sim_mark:  # also true for NaN
            return
        self._sim_mark = t + self._sim_spacing
        ask = t - self._asked_t >= self.sim_flush_interval - 1e-9 * abs(t)
        if ask and self._holders:  # readings held back join the commit asked for (their
            self._call_holders()  # own calls land here before the new mark: they return)
        seq = self._appended
        checkpoints = self._requests
        checkpoints.append((t, seq))
        if ask:
            self._asked_t = t
            self._want = seq
            self._wake.set()
        self._drop_committed()
        if self._committed_t < t + self._sim_spacing - 2.0 * self.sim_flush_interval:
            self._commit_here()
            self._drop_committed()

    def _drop_committed(self) -> None:
        """Forget the checkpoints committed (by either thread)."""
        requests, done = self._requests, self._committed
        while requests and requests[0][1] <= done:
            self._committed_t = requests.popleft()[0]

    def _commit_here(self) -> None:
        try:
            self._commit()
        except Exception as exc:
            if self._error is None:
                self._error = exc
            raise RecordingError(f"run {self.run_id}: writer failed: {exc}") from exc

    def flush(self, timeout: float | None = 30.0) -> None:
        """Commit everything recorded so far, on the calling thread (waiting at most
        ``timeout`` seconds for a commit of the writer's in progress)."""
        if self.status is not RunStatus.RUNNING:
            return
        if self._error is None:
            try:
                if not self._commit(-1.0 if timeout is None else timeout):
                    raise RecordingError(f"run {self.run_id}: flush timed out after {timeout} s")
            except RecordingError:
                raise
            except Exception as exc:
                self._error = exc
        if self._error is not None:
            raise RecordingError(f"run {self.run_id}: {self._error}")

    def _not_running(self) -> None:
        if self._error is not None:
            raise RecordingError(f"run {self.run_id}: writer failed: {self._error}")
        raise RecordingError(
            "no run in progress: call start_run() first"
            if self.run_id is None
            else f"run {self.run_id} is finished"
        )

    # -- committing -------------------------------------------------------------------
    def _commit(self, timeout: float = -1.0) -> bool:
        """Commit everything appended so far in one transaction, on the calling thread;
        False if the connection stayed busy ``timeout`` seconds (-1: wait)."""
        if not self._io.acquire(timeout=timeout):
            return False
        try:
            if threading.current_thread() is threading.main_thread():
                with _sigint_deferred():  # Ctrl-C must not lose the rows being written
                    self._commit_locked()
            else:
                self._commit_locked()
        finally:
            self._io.release()
        return True

    def _commit_locked(self) -> None:
        if self._error is not None:  # the connection is broken: never touch it again
            raise self._error
        covered = self._appended  # before draining: all of these are drained
        sig, ev, frames = _drain(self._sig), _drain(self._ev), _drain(self._frames)
        with self._lock:  # after the signals: their channels are all in here
            chans, self._new_channels = self._new_channels, []
            schans, self._new_sensor_channels = self._new_sensor_channels, []
        self._write(self._raw.driver_connection, self._sqlite, sig, ev, chans, frames, schans)
        self._committed = covered
        self._last_commit = time.monotonic()

    def _writer(self) -> None:
        """Commit when asked, when ``flush_interval`` of wall time passed without a
        commit, and once more when :meth:`finish` asks. On SQLite, also checkpoint the
        write-ahead log every ``flush_interval`` on a connection of its own (the
        committing connection does not: a checkpoint syncs the file to disk, which the
        simulation thread would wait for when it commits)."""
        ckpt = None
        cpu0 = time.thread_time()
        try:
            next_ckpt = time.monotonic() + self.flush_interval
            while True:
                now = time.monotonic()
                due = self._last_commit + self.flush_interval
                asked = self._want > self._committed
                wait = (min(due, next_ckpt) if self._sqlite else due) - now
                if wait > 0 and not asked and not self._stop:
                    self._wake.wait(wait)
                    continue
                stopping = self._stop
                if stopping or asked or now >= due:
                    self._commit()
                if self._sqlite and (stopping or now >= next_ckpt):
                    if ckpt is None:
                        ckpt = self.engine.raw_connection()
                    ckpt.driver_connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    next_ckpt = time.monotonic() + self.flush_interval
                if stopping:
                    break
        except BaseException as exc:  # reported to the simulation thread on its next call
            if self._error is None:
                self._error = exc
        finally:
            if ckpt is not None:
                try:
                    ckpt.close()
                except Exception:  # closing after a failure: nothing more to do
                    pass
            self.writer_cpu = time.thread_time() - cpu0

    def _write(
        self,
        dbapi: Any,
        sqlite: bool,
        sig: list[tuple[Any, ...]],
        ev: list[tuple[Any, ...]],
        chans: list[tuple[int, str, str]],
        frames: list[tuple[Any, ...]] = (),  # type: ignore[assignment]
        schans: list[tuple[int, str, str, str, str]] = (),  # type: ignore[assignment]
    ) -> None:
        rid = int(self.run_id or 0)
        ph = "?" if sqlite else "%s"
        blobs = self._encode_frames(rid, frames) if frames else []
        cur = dbapi.cursor()
        try:
            if chans:
                cur.executemany(
                    f"INSERT INTO channels (run_id, channel, robot, name) "
                    f"VALUES ({ph}, {ph}, {ph}, {ph})",
                    [(rid, c, r, n) for c, r, n in chans],
                )
            if schans:
                cur.executemany(
                    f"INSERT INTO sensor_channels (run_id, channel, robot, name, type, meta) "
                    f"VALUES ({ph}, {ph}, {ph}, {ph}, {ph}, {ph})",
                    [(rid, *c) for c in schans],
                )
            if blobs:
                cur.executemany(
                    f"INSERT INTO sensor_blocks (run_id, channel, t_first, t_last, n, data) "
                    f"VALUES ({ph}, {ph}, {ph}, {ph}, {ph}, {ph})",
                    blobs,
                )
            n = 0
            if sig:
                if sqlite:
                    n = _insert_sqlite(cur, rid, sig)
                else:
                    n = _copy_postgres(cur, rid, sig)
            if ev:
                cur.executemany(
                    f"INSERT INTO events (run_id, t, type, robot, data) "
                    f"VALUES ({ph}, {ph}, {ph}, {ph}, {ph})",
                    [(rid, *e) for e in ev],
                )
            cur.execute(f"UPDATE runs SET heartbeat = {ph} WHERE id = {ph}", (time.time(), rid))
            dbapi.commit()
            self.rows_written += n
        except BaseException:
            dbapi.rollback()
            raise
        finally:
            cur.close()

    def _encode_frames(self, rid: int, frames: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """Rows of ``sensor_blocks`` for the drained readings: one per sensor (Zstandard runs
        without the GIL, so the simulation thread goes on while the writer encodes).
        A drained item is one reading ``(channel, t, arrays)`` or a range of stacked
        rows ``(channel, rows, start, stop)``; ranges that continue one another in the
        same array are joined first.

        A channel whose blocks compression shrinks by less than 15 % (an IMU's noisy floats)
        is stored raw for its next 31 blocks, then tried again: the blob says which."""
        with self._lock:
            chans = {ch: (names, dts) for ch, names, dts, _ in self._sensor_chan.values()}
        # per channel: runs of rows (array, start, stop) and single readings, in order
        by_channel: dict[int, list[Any]] = {}
        for item in frames:
            parts = by_channel.get(item[0])
            if parts is None:
                parts = by_channel[item[0]] = []
            if len(item) == 4 and parts and isinstance(parts[-1], list):
                last = parts[-1]
                if last[0] is item[1] and last[2] == item[2]:  # continues the last run
                    last[2] = item[3]
                    continue
            parts.append([item[1], item[2], item[3]] if len(item) == 4 else item)
        out = []
        for ch, parts in by_channel.items():
            names, dtypes = chans[ch]
            skip = self._raw_blocks.get(ch, 0)
            if len(parts) == 1 and type(parts[0]) is list and parts[0][0].flags.c_contiguous:
                arr, a, b = parts[0]  # one run of rows of one array: the common case
                key = (ch, arr.dtype)
                spans = self._spans.get(key, False)
                if spans is False:
                    spans = self._spans[key] = row_spans(arr.dtype, names, dtypes)
                if spans is not None:
                    blob, raw = encode_rows(arr, a, b, spans, skip == 0)
                    self._after_encoding(ch, skip, blob, raw)
                    t = arr["t"]
                    out.append((rid, ch, float(t[a]), float(t[b - 1]), b - a, blob))
                    continue
            ts: list[np.ndarray] = []
            fields: list[list[np.ndarray]] = [[] for _ in names]
            single: list[tuple[Any, ...]] = []
            for part in parts:
                if isinstance(part, tuple):
                    single.append(part)
                    continue
                if single:
                    _stack_readings(single, ts, fields, dtypes)
                rows = part[0][part[1] : part[2]]
                ts.append(rows["t"])
                for j, k in enumerate(names):
                    fields[j].append(rows[k])
            if single:
                _stack_readings(single, ts, fields, dtypes)
            blob, raw = encode_chunks(ts, fields, dtypes, compress=skip == 0)
            self._after_encoding(ch, skip, blob, raw)
            n = sum(len(c) for c in ts)
            out.append((rid, ch, float(ts[0][0]), float(ts[-1][-1]), n, blob))
        return out

    def _after_encoding(self, ch: int, skip: int, blob: bytes, raw: int) -> None:
        """Count down the blocks a channel stores raw, or start doing so when its blob
        came out less than 15 % smaller than its ``raw`` bytes."""
        if skip:
            self._raw_blocks[ch] = skip - 1
        elif blob[:1] in COMPRESSED and len(blob) > 0.85 * raw:
            self._raw_blocks[ch] = 31


def _stack_readings(
    single: list[tuple[Any, ...]], ts: list[Any], fields: list[list[Any]], dtypes: Any
) -> None:
    """Stack the single readings ``(channel, t, arrays)`` into one chunk of each."""
    ts.append(np.asarray([t for _, t, _ in single], dtype="<f8"))
    for j, dt in enumerate(dtypes):
        fields[j].append(np.asarray([r[2][j] for r in single], dtype=dt))
    single.clear()


class _Wake:
    """A wake-up call whose :meth:`set` never blocks: a plain lock, released to wake
    the waiter. (``threading.Event.set`` takes the lock of a condition the woken writer
    holds while it returns from its wait; the simulation thread then waited for the
    writer to give the GIL back, a tenth of its time in sampled profiles.)"""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()

    def set(self) -> None:
        try:
            self._lock.release()
        except RuntimeError:  # already set, not yet taken
            pass

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a :meth:`set` and take it."""
        return self._lock.acquire(timeout=max(timeout, 0.0))


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold a SIGINT (Ctrl-C) that arrives inside the block until its end, then hand
    it to the handler that was in place (main thread only)."""
    held: list[Any] = []
    old = signal.getsignal(signal.SIGINT)
    if old is None:  # a handler not installed from Python: leave it alone
        yield
        return
    try:
        signal.signal(signal.SIGINT, lambda sig, frame: held.append(frame))
    except ValueError:  # not the main interpreter's main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if held:
            if callable(old):
                old(signal.SIGINT, held[0])
            elif old == signal.SIG_DFL:
                os.kill(os.getpid(), signal.SIGINT)


def _drain(queue: deque[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """What ``queue`` holds now, oldest first (another thread may append meanwhile)."""
    return [queue.popleft() for _ in range(len(queue))]


def _rows(rid: int, sig: list[tuple[Any, ...]]):  # type: ignore[no-untyped-def]
    for chs, t, vals in sig:
        if isinstance(t, float):
            yield from zip(repeat(rid), chs, repeat(t), vals)
        else:  # a block: t (T,), vals (T, N)
            nt, nc = vals.shape
            cols = np.broadcast_to(np.asarray(chs), (nt, nc)).ravel().tolist()
            ts = np.repeat(t, nc).tolist()
            yield from zip(repeat(rid), cols, ts, vals.ravel().tolist())


#: Rows per multi-row INSERT on SQLite (4 parameters a row: within the 999 host
#: parameters the oldest SQLite builds allow).
_SQLITE_ROWS = 128


@functools.cache
def _sqlite_insert(rows: int) -> str:
    """``INSERT INTO signals ... VALUES (?, ?, ?, ?), ...`` for ``rows`` rows."""
    return "INSERT INTO signals (run_id, channel, t, value) VALUES " + ", ".join(
        ["(?, ?, ?, ?)"] * rows
    )


def _insert_sqlite(cur: Any, rid: int, sig: list[tuple[Any, ...]]) -> int:
    """Insert the rows as multi-row INSERTs of 128, 64, ..., 1 rows (at most eight
    statement shapes). One statement runs as one SQLite step, which the ``sqlite3``
    module executes without the GIL; ``executemany`` stepped once per row, taking the
    GIL back from the simulation thread after every row."""
    flat = list(chain.from_iterable(_rows(rid, sig)))
    n = len(flat) // 4
    before = cur.connection.total_changes
    i, size = 0, _SQLITE_ROWS
    while i < n:
        while size > n - i:
            size //= 2
        cur.execute(_sqlite_insert(size), flat[4 * i : 4 * (i + size)])
        i += size
    return int(cur.connection.total_changes - before)


def _copy_postgres(cur: Any, rid: int, sig: list[tuple[Any, ...]]) -> int:
    buf = io.StringIO()
    n = 0
    null = "\\N"
    for r, c, t, v in _rows(rid, sig):
        buf.write(f"{r}\t{c}\t{t!r}\t{null if v != v else repr(v)}\n")
        n += 1
    with cur.copy("COPY signals (run_id, channel, t, value) FROM STDIN") as cp:
        cp.write(buf.getvalue())
    return n


def _jsonable(obj: Any) -> Any:
    """Numpy values -> plain Python, so ``json.dumps`` accepts them."""
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray | np.generic):
        return _jsonable(obj.tolist())
    if isinstance(obj, float) and obj != obj:
        return None
    return obj


@atexit.register
def _finish_live() -> None:
    """A process exiting with runs still open marks them interrupted (data flushed)."""
    for rec in list(_live):
        try:
            rec.finish(RunStatus.INTERRUPTED, "process exited before the run finished")
        except Exception:  # exiting anyway; the next open marks the run interrupted
            pass
