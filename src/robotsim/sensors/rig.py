"""The sensors of a world, sampled at their rates while it steps.

:class:`SensorRig` holds every mounted sensor of a :class:`robotsim.physics.World`.
:meth:`SensorRig.step` replaces ``world.step(n)``: it steps the world up to the next
physics step at which a sensor reads, reads it, and goes on, so every sensor reads at
exact multiples of its period (whole physics steps) whatever the control rate; a sensor
faster than the controller is not held back to it. Nothing is computed for a sensor that
is not due: the world steps as fast as without sensors in between. The world hands the
rig its MuJoCo steps (``World.step``'s ``advance``), chunk by chunk, and the rig makes
one MuJoCo call per stretch between two readings: no call back per reading.

**What a reading at time t holds.** A MuJoCo step from step ``k`` first computes
everything that follows from the state at ``k`` (body poses, contacts and their forces,
accelerations), then integrates to ``k + 1``; after the step the data still hold those
step-``k`` quantities beside the new positions. The sensors that look at the scene
(lidar, camera, IMU, force, touch) therefore read their step-``k`` reading right after
the step from ``k``: exactly the state at ``k``, stamped ``t = k h``, available one
physics step later (a few milliseconds of latency, as real sensors have). Where the
data already hold the current state (after a reset) they read at once. Joint and
odometry sensors read positions and velocities at ``k`` itself (joint torques: the
motors' forces over the step before).

Sensors observe, they never act: they read the world's data without changing anything
the next step uses (the IMU's ``mj_rnePostConstraint`` only fills MuJoCo's outputs for
sensors), so a run with sensors follows the same path as without. :meth:`sample_now`
(a reading of every sensor at once, say for a remote client) reads a sensing copy of
the data brought up to the current state instead.

Each reading is kept as the sensor's latest (:meth:`SensorRig.latest`), handed to the
listeners (:meth:`SensorRig.listen`) and, when a recorder with a ``sensor`` method is
attached, recorded (:meth:`robotsim.recording.Recorder.sensor`).

**Rows.** A sensor with a ``row_dtype`` and a ``read_row`` method (the IMU, the lidar)
writes each reading straight into the next row of a block of readings (a structured
array: ``t`` then the fields) in compiled calls: no arrays, no dictionary and no
:class:`~robotsim.sensors.types.Reading` are made per reading. Its latest reading is
made from its row when asked for (read-only views of the row), and the rows read during
a :meth:`SensorRig.step` go to the recorder in one call
(:meth:`robotsim.recording.Recorder.sensor_rows`) whenever the recorder asks its writer
for a commit (every ``sim_flush_interval`` of its signal time: 0.25 s of simulated
time by default; it asks through
:meth:`~robotsim.recording.Recorder.hand_over_at_checkpoints`, so that commit covers
every reading taken up to it; the checkpoint between two of them, half an interval
earlier, covers the signals only), and otherwise at the end of the first step that
ends a ``sim_flush_interval`` or more after the last hand-over (a recorder that gets no
signals; a quarter for a recorder that does not ask), when a block is full, at
:meth:`SensorRig.sample_now`, :meth:`SensorRig.sample_due`, ``reset`` and ``close``,
and when the recorder finishes the run. A recorder in a tight loop is called a few
times a second per sensor, not at every step. A row once written is never written
again: a full block is left to the recorder and the latest readings, and a new one is
started.

**IMUs and lidars in compiled stepping.** Where nobody listens, each stretch of steps
the world hands the rig is one call of :func:`robotsim.sensors._stepping.advance_imus`:
it steps MuJoCo (``mj_step``), and where IMUs or lidars are due, ``mj_rnePostConstraint``
(for an IMU) and their rows (:func:`~robotsim.sensors.inertial.imu_row`, the lidar's cast
and row: :func:`~robotsim.sensors._raycast.lidar_row`), on to the next, with the
schedules, counts and the rig's state (the step, the next reading's step, the readings
taken) kept in int64 arrays it shares with this class, so a chunk with only those due
costs one Python call, not a pass through the rig's loop; and where a whole
:meth:`SensorRig.step` needs nothing else
(:func:`~robotsim.sensors._stepping.plan_stretch`, one compiled call: only IMUs and
lidars due, room in their blocks and drawn noise, MuJoCo's arena roomy), the world is
handed the compiled call itself as its ``advance``: no Python frame per chunk at all.
It makes the same MuJoCo calls in the same order as the Python loop, so the run and the
rows are the same to the bit; another sensor due (or a lidar with angle noise or meshes
in sight: :attr:`Lidar.compiled <robotsim.sensors.lidar.Lidar.compiled>`) hands the
step back to the Python loop, which reads it and calls the kernel again for the rest
of the stretch. (A soccer tick with the lidar due: 139 us with the scan in the
compiled stepping, 187 us handed back, medians of 300 ticks.)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numba
import numpy as np

from robotsim.errors import UnknownNameError
from robotsim.kinematics.kernels import entry_point
from robotsim.sensors._stepping import ARENA_TIGHT, advance_imus, plan_stretch
from robotsim.sensors.camera import CameraSensor, WorldRenderer
from robotsim.sensors.contact import ForceSensor, TouchSensor
from robotsim.sensors.inertial import _NOISE_ROWS, Imu
from robotsim.sensors.joints import JointSensor
from robotsim.sensors.lidar import Lidar
from robotsim.sensors.mount import Mount
from robotsim.sensors.odometry import Odometry
from robotsim.sensors.types import Reading, Sensor

__all__ = ["BLOCK_BYTES", "BLOCK_MAX_BYTES", "BLOCK_MIN_ROWS", "KINDS", "SensorRig"]

KINDS: dict[str, type[Sensor]] = {
    "lidar": Lidar,
    "camera": CameraSensor,
    "imu": Imu,
    "odometry": Odometry,
    "force": ForceSensor,
    "touch": TouchSensor,
    "joint": JointSensor,
}

#: Bytes of one block of a row-writing sensor's readings (256 IMU readings) ...
BLOCK_BYTES = 256 * 88
#: ... but at least this many readings (64 scans of a 360-ray lidar: a new block, which
#: the Python loop starts, every 6.4 s at 10 Hz rather than every 1.4 s), within
#: :data:`BLOCK_MAX_BYTES`.
BLOCK_MIN_ROWS = 64
BLOCK_MAX_BYTES = 1 << 20


class SensorRig:
    """Every sensor of ``world``'s robots (``mounts``, from
    :func:`robotsim.sensors.mount.mount_sensors`); noise seeded from ``world.seed``.
    ``recorder``: where readings go (anything with ``sensor(robot, name, t, data,
    meta)``, and ``sensor_rows(robot, name, rows, meta)`` for blocks of rows; others
    are ignored)."""

    def __init__(self, world: Any, mounts: Sequence[Mount], recorder: Any = None) -> None:
        import mujoco

        self._mj = mujoco
        self.world = world
        self.timestep = float(world.timestep)
        self._wdata = world.data  # the world's MuJoCo data (one for its lifetime)
        #: the sensing copy of the world's data, for readings out of schedule
        self.data = mujoco.MjData(world.model)
        self.renderer: WorldRenderer | None = None
        cams = [m for m in mounts if m.type == "camera"]
        if cams:
            self.renderer = WorldRenderer(
                world, max(m.spec.width for m in cams), max(m.spec.height for m in cams)
            )
        seed = int(world.seed)
        self.sensors: list[Sensor] = []
        for m in mounts:
            if m.type == "camera":
                self.sensors.append(CameraSensor(world, m, seed, None, self.renderer))
            else:
                self.sensors.append(KINDS[m.type](world, m, seed))
        self._by_name = {(s.robot, s.name): s for s in self.sensors}
        self._index = {(s.robot, s.name): i for i, s in enumerate(self.sensors)}
        self._periods = np.array([s.mount.period for s in self.sensors], dtype=np.float64)
        self._deferred = [s.deferred for s in self.sensors]
        self._acc = [s.needs_accelerations for s in self.sensors]
        self._keys = [(s.robot, s.name) for s in self.sensors]
        self._meta: list[dict[str, Any] | None] = [None] * len(self.sensors)
        self._listeners: list[Callable[[Reading], None]] = []
        self._record: Callable[..., None] | None = None
        self._record_rows: Callable[..., None] | None = None
        n = len(self.sensors)
        # the sensors that write rows (see the module doc) and their blocks of readings
        self._row_of: list[Callable[[int, float], None] | None] = [
            s.read_row if getattr(s, "row_dtype", None) is not None else None  # type: ignore[attr-defined]
            for s in self.sensors
        ]
        self._rowed = [i for i in range(n) if self._row_of[i] is not None]
        # shared with the compiled stepping (see advance_imus): [0] the world's step
        # while :meth:`_advance` steps it, [1] the smallest read_at, [2] compiled calls,
        # [3] readings they took, [4] the step the current stretch ends at
        self._st = np.zeros(5, dtype=np.int64)
        self._samples = 0  # readings taken here (the compiled stepping counts its own)
        # row-writing sensors that read the step just taken (the IMUs): written in place
        self._fast = [self._row_of[i] is not None and self._deferred[i] for i in range(n)]
        self._dtype = [getattr(s, "row_dtype", None) for s in self.sensors]
        # int64 arrays (as the schedules, see reset): the compiled stepping shares them
        self._item = np.array([0 if dt is None else dt.itemsize for dt in self._dtype], np.int64)
        self._rows = np.array(
            [max(1, BLOCK_BYTES // k, min(BLOCK_MIN_ROWS, BLOCK_MAX_BYTES // k)) if k else 0
             for k in self._item], np.int64
        )  # fmt: skip
        self._block: list[np.ndarray | None] = [None] * n  # the block being filled
        self._block_at = np.zeros(n, dtype=np.int64)  # its address
        self._filled = self._rows.copy()  # rows written in it (full: none yet)
        self._sent = [int(r) for r in self._rows]  # of those, rows the recorder has
        self._latest: list[Reading | None] = [None] * n
        self._latest_w = [0] * n  # a row-writing sensor's rows written when it was made
        self.recorder = recorder
        self._compiled_setup()
        self.reset()

    def _compiled_setup(self) -> None:
        """The compiled stepping of :mod:`robotsim.sensors._stepping` for the IMUs and
        lidars that read the world's own data (None without MuJoCo's library)."""
        from robotsim.sensors._stepping import (
            COMPILED_IMU,
            COMPILED_LIDAR,
            arena_offsets,
            mujoco_functions,
        )

        n = len(self.sensors)
        self._imus = [i for i, s in enumerate(self.sensors) if isinstance(s, Imu)]
        lidars = [i for i, s in enumerate(self.sensors) if isinstance(s, Lidar) and s.compiled]
        fns = mujoco_functions() if self._imus or lidars else None
        self._kernel_args: tuple[Any, ...] | None = None
        self._kernel: Callable[..., int] | None = None
        offsets = arena_offsets(self._wdata) if fns is not None else None
        if fns is None or offsets is None:
            return
        addr = np.zeros((n, 8), dtype=np.int64)
        nz = np.zeros((n, 4), dtype=np.int64)
        compiled = np.zeros(n, dtype=np.int64)
        for i in self._imus:
            imu = self.sensors[i]
            addr[i] = imu.addresses(self._wdata)  # type: ignore[attr-defined]
            nz[i, :3] = imu._nz  # type: ignore[attr-defined]
            nz[i, 3] = _NOISE_ROWS
            imu._nz = nz[i, :3]  # type: ignore[attr-defined]  # shared from now on
            compiled[i] = COMPILED_IMU
        self._lidar_params = []  # kept alive: the compiled stepping reads them
        for i in lidars:
            lidar = self.sensors[i]
            par = lidar.params(self._wdata)  # type: ignore[attr-defined]
            self._lidar_params.append(par)
            addr[i, 0] = int(par.ctypes.data)
            nz[i] = lidar._nz  # type: ignore[attr-defined]
            lidar._nz = nz[i]  # type: ignore[attr-defined]  # shared from now on
            compiled[i] = COMPILED_LIDAR
        m = self.world.model
        self._kernel_args = (fns[0], fns[1], int(m._address), int(self._wdata._address))
        self._kernel_arrays = (compiled, addr, nz, self._st)
        self._h = np.array([self.timestep])
        self._kernel_tail = (int(self._h.ctypes.data), *offsets, int(m.narena), 0)

    def _kernel_pointers(self) -> None:
        """The addresses of the arrays :func:`advance_imus` shares (after :meth:`reset`
        made the schedules)."""
        if self._kernel_args is None:
            return
        arrays = (
            *(self._read_at, self._due, self._start, self._count, self._periods),
            *(self._filled, self._rows, self._block_at, self._item, *self._kernel_arrays),
            self._written,
        )
        for a in arrays:
            assert a.flags.c_contiguous and a.dtype.itemsize == 8
        ptrs = [*self._kernel_args, len(self.sensors), *(int(a.ctypes.data) for a in arrays)]
        ptrs += self._kernel_tail
        self._ctx = np.array(ptrs, dtype=np.int64)  # see advance_imus
        self._ctx_at = int(self._ctx.ctypes.data)
        if self._kernel is None:  # compiled (or loaded) once, then no dispatch
            i = numba.types.intp
            self._kernel = entry_point(advance_imus, (i, i))
            self._plan = entry_point(plan_stretch, (i, i))
        # the world's advance for a planned stretch: the compiled call, no Python frame
        self._advance_c = functools.partial(self._kernel, self._ctx_at)

    # -- access -----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.sensors)

    def __iter__(self) -> Iterator[Sensor]:
        return iter(self.sensors)

    def sensor(self, robot: str, name: str) -> Sensor:
        try:
            return self._by_name[(robot, name)]
        except KeyError:
            valid = [f"{r}/{n}" for r, n in self._by_name]
            raise UnknownNameError("sensor", f"{robot}/{name}", valid) from None

    def names(self, robot: str | None = None) -> list[tuple[str, str]]:
        """``(robot, sensor name)`` of every sensor (of ``robot``)."""
        return [k for k in self._by_name if robot is None or k[0] == robot]

    def latest(self, robot: str, name: str) -> Reading | None:
        """The newest reading of a sensor (None before its first)."""
        self.sensor(robot, name)
        return self._latest_of(self._index[(robot, name)])

    def _latest_of(self, i: int) -> Reading | None:
        reading = self._latest[i]
        if self._row_of[i] is not None:  # the last row written, once asked for
            w = int(self._written[i])
            if w == 0:
                return None
            if reading is None or self._latest_w[i] != w:
                row = int(self._filled[i]) - 1  # a new block is started by its first row
                reading = self._reading_of_row(i, self._block[i], row)  # type: ignore[arg-type]
                self._latest[i], self._latest_w[i] = reading, w
        return reading

    @property
    def samples(self) -> int:
        """Readings taken since the rig was made."""
        return self._samples + int(self._st[3])

    @property
    def compiled_samples(self) -> int:
        """Readings the compiled stepping took (of :attr:`samples`)."""
        return int(self._st[3])

    @property
    def compiled_calls(self) -> int:
        """Stretches of steps the compiled stepping took."""
        return int(self._st[2])

    def _reading_of_row(self, i: int, block: np.ndarray, row: int) -> Reading:
        """The reading in row ``row`` of a block: read-only views of its fields."""
        s = self.sensors[i]
        data = {}
        for k in block.dtype.names[1:]:  # type: ignore[index]
            v = block[k][row, ...]
            v.flags.writeable = False
            data[k] = v
        return Reading(s.robot, s.name, s.type, float(block["t"][row]), data)

    def meta(self, robot: str, name: str) -> dict[str, Any]:
        return self.sensor(robot, name).meta()

    @property
    def recorder(self) -> Any:
        """Where readings are recorded: anything with ``sensor(robot, name, t, data,
        meta)`` (:class:`robotsim.recording.Recorder`); None or another object: not."""
        return self._recorder

    @recorder.setter
    def recorder(self, value: Any) -> None:
        self._release_recorder()
        self._recorder = value
        self._record = getattr(value, "sensor", None) if value is not None else None
        self._record_rows = getattr(value, "sensor_rows", None) if value is not None else None
        flush = getattr(value, "sim_flush_interval", None) if value is not None else None
        checkpoints = getattr(value, "hand_over_at_checkpoints", None)  # None: getattr(None) too
        # steps between hand-overs of rows (see the module doc): a quarter flush interval,
        # a whole one when the recorder's commits ask for them
        part = 1 if checkpoints is not None else 4
        self._hand_every = 0 if not flush else max(0, int(float(flush) / part / self.timestep))
        if self._record is None and self._record_rows is None:
            self._hand_every = 1 << 62  # nobody to hand rows to
        self._handed_at = -(1 << 62)  # the step of the last hand-over
        if self._rowed and self._record_rows is not None and checkpoints is not None:
            checkpoints(self._hand_over_asked)  # at its checkpoints and when the run ends
        for i in self._rowed:  # a new recorder records from the next reading on
            self._sent[i] = int(self._filled[i])

    def bytes_per_second(self) -> float:
        """The bytes a recording of every sensor takes per simulated second, before
        compression (an upper bound for the disk checks)."""
        return float(sum(s.reading_bytes() * s.mount.rate for s in self.sensors))

    def listen(self, callback: Callable[[Reading], None]) -> None:
        """Call ``callback(reading)`` for every reading from now on."""
        self._listeners.append(callback)

    # -- stepping ---------------------------------------------------------------------
    def _step_index(self) -> int:
        return round(self._wdata.time / self.timestep)

    def step(self, n: int = 1) -> None:
        """Step the world ``n`` physics steps, reading every sensor when it is due
        (sensors due at the current step first, where they can read now). The world
        hands the rig its MuJoCo steps (:meth:`robotsim.physics.World.step`'s
        ``advance``): the rig steps MuJoCo up to each step at which a sensor reads,
        reads it there and goes on, so the world does per chunk exactly what it does
        without sensors."""
        if not self.sensors:
            self.world.step(n)
            return
        k = round(self._wdata.time / self.timestep)  # as _step_index
        if k != self._at:  # someone else stepped the world: its data hold step k - 1
            self._kin, self._at = k - 1, k
        st = self._st
        if st[1] <= k:
            self._read_ready(k)
        end = k + int(n)
        try:
            if st[1] <= end:
                st[0] = k
                if self._kernel is None or self._listeners:
                    self.world.step(n, None, (), self._advance_bindings)
                elif self._plan(self._ctx_at, n):  # only IMUs due: no Python per chunk
                    self.world.step(n, None, (), self._advance_c)
                    if st[0] != end:  # the plan and the stepping disagree: a bug of ours
                        raise RuntimeError(
                            f"sensors: a planned stretch to step {end} stopped at {int(st[0])}"
                        )
                else:
                    self.world.step(n, None, (), self._advance)
            else:
                self.world.step(n)
        finally:
            self._kin, self._at = end - 1, end
            if self._rowed and end - self._handed_at >= self._hand_every:
                self._hand_over()
                self._handed_at = end

    @staticmethod
    def _arena_roomy(m: Any, d: Any) -> bool:
        """Whether the compiled stepping may take the next stretch (what it checks
        itself: :data:`robotsim.sensors._stepping.ARENA_TIGHT`): MuJoCo reports a
        memory arena too small for the model (stack and arena together, ``m.narena``
        bytes) as a fatal error, which the bindings raise as ``mujoco.FatalError`` but
        which would end the process inside a compiled call. So the compiled call runs
        only after MuJoCo has measured the run's use (one step taken) and while the
        most it ever used is under a quarter of the arena; otherwise the stretch goes
        through the bindings, where such an error is an exception."""
        used = int(d.maxuse_stack) + int(d.maxuse_arena)
        return 0 < used and 4 * used < int(m.narena)

    def _advance(self, k: int) -> None:
        """``k`` MuJoCo steps (the world's ``advance``), the sensors read on the way
        where they are due, when nobody listens: the compiled
        :func:`robotsim.sensors._stepping.advance_imus` takes the stretch in one call
        (it checks MuJoCo's arena first: :meth:`_arena_roomy`): it steps, and writes the
        IMUs' rows (the reading of the step just taken) where they are due, with the
        same rows, schedules and counts :meth:`_read_ready` gives them; it hands back
        the step at which another sensor (a lidar) is due, which :meth:`_advance_py`
        reads before going on."""
        stop = self._kernel(self._ctx_at, k)  # type: ignore[misc]
        if stop != -1:
            self._advance_rest(stop)

    def _advance_rest(self, stop: int) -> None:
        st = self._st
        if stop == ARENA_TIGHT:  # nothing stepped: through the bindings
            self._advance_py(int(st[0]), int(st[4]), False)
        else:  # a sensor the kernel does not read is due at step ``stop``
            self._advance_py(stop, int(st[4]), True)

    def _advance_bindings(self, k: int) -> None:
        """``k`` MuJoCo steps as :meth:`_advance`, through the bindings (someone
        listens, or no compiled stepping)."""
        pos = int(self._st[0])
        self._advance_py(pos, pos + k, False)

    def _advance_py(self, pos: int, end: int, compiled: bool) -> None:
        """Step from step ``pos`` to ``end``, reading the sensors where they are due:
        one MuJoCo call per stretch between two readings (``compiled``: the compiled
        stepping takes the stretches where only IMUs are due). Row-writing sensors
        that read the step just taken (a lidar) due alone with room in their blocks
        are written here, in place; the rest through :meth:`_read_ready`."""
        mj = self._mj
        m, d = self.world.model, self._wdata
        st = self._st
        at = int(st[1])
        read_at, due_of, filled, cap = self._read_at, self._due, self._filled, self._rows
        fast, acc_of, listening = self._fast, self._acc, bool(self._listeners)
        kernel = self._kernel if compiled else None
        written = self._written
        h = self.timestep
        while at <= end:
            if kernel is not None and at > pos:
                st[0] = pos
                stop = kernel(self._ctx_at, end - pos)
                if stop == -1:  # stepped to the end, every reading due on the way taken
                    return
                if stop == ARENA_TIGHT:  # nothing stepped: the bindings from here on
                    kernel = None
                    continue
                pos = stop  # a sensor the kernel does not read is due here
                at = int(st[1])
            elif at > pos:
                mj.mj_step(m, d, at - pos)
                pos = at
            kin = at - 1
            self._kin, self._at = kin, at
            here, acc = not listening, False
            if here:
                for i in range(len(fast)):
                    if read_at[i] <= at:
                        if not fast[i] or due_of[i] != kin or filled[i] == cap[i]:
                            here = False
                            break
                        acc = acc or acc_of[i]
            if not here:
                st[0] = pos
                self._read_ready(at)
                at = int(st[1])
                continue
            if acc:
                mj.mj_rnePostConstraint(m, d)
            for i in range(len(fast)):
                if read_at[i] <= at:
                    s = self.sensors[i]
                    s.data = d
                    row = int(filled[i])
                    s.read_row(int(self._block_at[i] + row * self._item[i]), int(due_of[i]) * h)  # type: ignore[attr-defined]
                    filled[i] = row + 1
                    written[i] += 1
                    c = self._count[i] = self._count[i] + 1
                    nxt = due_of[i] = self._start[i] + int(c * self._periods[i] + 0.5)
                    read_at[i] = nxt + 1  # > at: a period is at least one step
                    self._samples += 1
            at = min(read_at.tolist())  # (ndarray.min: a Python-level wrapper)
            st[1] = at
        if end > pos:
            mj.mj_step(m, d, end - pos)
        st[0] = end

    def sample_due(self) -> None:
        """Read the sensors whose reading can be taken at the world's current step (the
        ones :meth:`step` would read before stepping), so they are there to act on now."""
        if self.sensors:
            k = self._step_index()
            if k != self._at:
                self._kin, self._at = k - 1, k
            if self._st[1] <= k:
                self._read_ready(k)
                self._hand_over()

    def sample_now(self) -> list[Reading]:
        """A reading of every sensor at the world's current state, due or not (their
        schedules are kept): from the sensing copy brought up to date."""
        self._refresh()
        k = self._step_index()
        for i, s in enumerate(self.sensors):
            self._read(i, s, k * self.timestep, self.data)
        self._hand_over()
        self._samples += len(self.sensors)
        return [self._latest_of(i) for i in range(len(self.sensors))]  # type: ignore[misc]

    def _refresh(self) -> None:
        """Bring the sensing copy up to the world's current state: positions,
        velocities, and the last step's accelerations and contacts."""
        mj, m = self._mj, self.world.model
        src, d = self.world.data, self.data
        d.time = src.time
        d.qpos[:] = src.qpos
        d.qvel[:] = src.qvel
        d.qacc[:] = src.qacc
        mj.mj_kinematics(m, d)
        mj.mj_comPos(m, d)
        mj.mj_comVel(m, d)
        mj.mj_rnePostConstraint(m, d)

    def _schedule(self, i: int) -> None:
        due = self._start[i] + int(self._count[i] * self._periods[i] + 0.5)
        self._due[i] = due
        # a sensor that looks at the scene reads step ``due`` once the world has taken
        # the step from ``due`` (its data then hold that state), unless they hold it now
        self._read_at[i] = due + 1 if self._deferred[i] and due > self._kin else due

    def _read_ready(self, k: int) -> None:
        world_data = self.world.data
        h = self.timestep
        refreshed = accelerations = False
        n = 0
        read_at, due_of, count = self._read_at, self._due, self._count
        for i, at in enumerate(read_at):
            if at > k:
                continue
            n += 1
            s = self.sensors[i]
            due = due_of[i]
            if not self._deferred[i]:
                self._read(i, s, k * h, world_data)
            elif due == self._kin:
                if self._acc[i] and not accelerations:
                    self._mj.mj_rnePostConstraint(self.world.model, world_data)
                    accelerations = True
                self._read(i, s, due * h, world_data)
            else:  # out of step (the world was stepped elsewhere): read it as it is now
                if not refreshed:
                    self._refresh()
                    refreshed = True
                self._read(i, s, k * h, self.data)
            c = count[i] = count[i] + 1
            # the next reading (as _schedule): read once the step from it is taken
            nxt = due_of[i] = self._start[i] + int(c * self._periods[i] + 0.5)
            at = read_at[i] = nxt + 1 if self._deferred[i] and nxt > self._kin else nxt
            if at <= k:  # behind its schedule: go on from here
                self._start[i], count[i] = k, 1
                self._schedule(i)
        self._samples += n
        self._st[1] = min(read_at.tolist())

    def _read(self, i: int, s: Sensor, t: float, data: Any) -> None:
        s.data = data
        write = self._row_of[i]
        if write is not None:  # into the next row of its block
            row = int(self._filled[i])
            if row == self._rows[i]:
                row = self._new_block(i)
            write(int(self._block_at[i] + row * self._item[i]), t)
            self._filled[i] = row + 1
            self._written[i] += 1  # the latest reading: made from the row when asked for
            if self._listeners:
                reading = self._latest_of(i)
                for cb in self._listeners:
                    cb(reading)  # type: ignore[arg-type]
            return
        values = s.sample()
        for a in values.values():
            a.flags.writeable = False
        reading = Reading(s.robot, s.name, s.type, t, values)
        self._latest[i] = reading
        if self._record is not None:
            meta = self._meta[i]
            if meta is None:
                meta = self._meta[i] = s.meta()
            self._record(s.robot, s.name, t, values, meta)
        for cb in self._listeners:
            cb(reading)

    def _new_block(self, i: int) -> int:
        """Start a new block for sensor ``i`` (the full one's rows recorded first)."""
        self._hand_over_one(i)
        block = np.empty(self._rows[i], self._dtype[i])
        self._block[i] = block
        self._block_at[i] = int(block.ctypes.data)
        self._filled[i] = self._sent[i] = 0
        return 0

    def _hand_over_asked(self) -> None:
        """The recorder's checkpoint (or its finish) asks for the rows held."""
        self._hand_over()
        self._handed_at = self._at

    def _hand_over(self) -> None:
        """Give the recorder the rows read since it was last given any."""
        for i in self._rowed:
            if self._filled[i] > self._sent[i]:
                self._hand_over_one(i)

    def _hand_over_one(self, i: int) -> None:
        a, b = self._sent[i], int(self._filled[i])
        if b <= a:
            return
        self._sent[i] = b
        block = self._block[i]
        if self._record_rows is not None:
            s = self.sensors[i]
            meta = self._meta[i]
            if meta is None:
                meta = self._meta[i] = s.meta()
            self._record_rows(s.robot, s.name, block, meta, a, b)
        elif self._record is not None:  # a recorder of single readings
            s = self.sensors[i]
            meta = self._meta[i]
            if meta is None:
                meta = self._meta[i] = s.meta()
            for j in range(a, b):
                r = self._reading_of_row(i, block, j)  # type: ignore[arg-type]
                self._record(s.robot, s.name, r.t, r.data, meta)

    def reset(self) -> None:
        """At the world's start (and after ``world.reset()``): fresh noise generators,
        schedules from the current step, no latest readings. The world's data must hold
        its current state (a reset or ``mj_forward`` does that)."""
        self._hand_over()
        for s in self.sensors:
            s.reset()
        n = len(self.sensors)
        self._latest = [None] * n
        self._written = np.zeros(n, dtype=np.int64)  # rows written since the reset
        k = self._step_index()
        self._kin = self._at = k  # the world's data hold the state at step k
        # int64 arrays, shared with the compiled stepping (sensors._stepping)
        self._start = np.full(n, k, dtype=np.int64)  # the step of reading 0 of each sensor
        self._count = np.zeros(n, dtype=np.int64)  # readings taken since then
        self._due = np.full(n, k, dtype=np.int64)
        self._read_at = np.full(n, k, dtype=np.int64)
        for i in range(n):
            self._schedule(i)
        self._st[0] = k
        self._st[1] = int(self._read_at.min()) if n else k
        self._kernel_pointers()

    def _release_recorder(self) -> None:
        """Stop the recorder's commits asking this rig for its rows (``close`` hands
        them over first; a new recorder records from the next reading on)."""
        old = getattr(self, "_recorder", None)
        release = getattr(old, "release_hand_over", None)
        if release is not None:
            release(self._hand_over_asked)

    def close(self) -> None:
        self._hand_over()
        self._release_recorder()
        if self.renderer is not None:
            self.renderer.close()
            self.renderer = None

    def __enter__(self) -> SensorRig:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
