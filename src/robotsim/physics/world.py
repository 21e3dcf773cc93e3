"""The physics World: a Scene compiled to MuJoCo, stepped with fail-fast checks.

The top of this API does not mention MuJoCo: ``World.step()``, ``time``, ``state()``,
``body(name)``, ``joint(name)``, ``motor(name)``, ``pause()``/``resume()``/``reset()``.
The compiled ``model``/``data`` stay reachable for the physics layer and the studio.

The paper's three ways of moving a body (seed ``002_…``, section 2.2) are:

1. forces and torques: :meth:`BodyHandle.apply_force` (``dBodyAddForce``/``AddTorque``);
2. a motor's target velocity: :meth:`MotorHandle.set` (``dJointSetHingeParam(dParamVel)``);
3. setting a body's velocity directly: :meth:`BodyHandle.set_velocity`
   (``dBodySetLinearVel``/``AngularVel``; free bodies only).

Divergence is a fault: MuJoCo's automatic reset is disabled; after every step chunk
the world checks MuJoCo's bad-position/velocity/acceleration warnings (NaN, infinities)
and, every ``check_interval`` of simulated time, that no speed exceeds ``max_speed``;
every 0.1 s its :class:`~robotsim.physics.guard.Guard` checks the world's bounds, the
speed limits runs set and the energy balance. Each raises
:class:`robotsim.errors.PhysicsFault` (a :class:`~robotsim.errors.PhysicsError`) naming
the simulated time, the body and the quantity; ``fault.to_json()`` is what a run writes.

Work and Ctrl-C: a run sizes itself with :meth:`World.check_work` before it steps
(steps x bodies against the work budget, :mod:`robotsim.budget`); MuJoCo is called in
slices of at most about 50 ms of wall time, so Ctrl-C (which Python handles between
two calls) stops any run within a fraction of a second, whatever the timestep. Slicing
a step chunk changes nothing in the result: nothing is written between the slices.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError, UnknownNameError
from robotsim.physics.compile import Compiled, compile_scene
from robotsim.physics.feedforward import ChunkFeedForward
from robotsim.physics.guard import Guard, fault
from robotsim.physics.scene import Scene

__all__ = ["BodyHandle", "ContactForces", "JointHandle", "MotorHandle", "World", "WorldState"]


@dataclass(frozen=True, eq=False)
class WorldState:
    """A snapshot: ``time`` (s); ``body_names`` (B,), ``body_pos`` (B, 3) m,
    ``body_quat`` (B, 4) wxyz, world frame; ``joint_names`` (J,) of 1-DoF joints with
    ``joint_q`` (J,) rad or m and ``joint_qd`` (J,). Arrays are read-only copies."""

    time: float
    body_names: tuple[str, ...]
    body_pos: np.ndarray
    body_quat: np.ndarray
    joint_names: tuple[str, ...]
    joint_q: np.ndarray
    joint_qd: np.ndarray

    def pose(self, body: str) -> np.ndarray:
        """``T_world_body`` (4, 4) of a named body."""
        from robotsim.spatial import make_T, quat_to_R

        try:
            i = self.body_names.index(body)
        except ValueError:
            raise UnknownNameError("body", body, self.body_names) from None
        return make_T(quat_to_R(self.body_quat[i]), self.body_pos[i])

    def q(self, joint: str) -> float:
        try:
            return float(self.joint_q[self.joint_names.index(joint)])
        except ValueError:
            raise UnknownNameError("joint", joint, self.joint_names) from None


@dataclass(frozen=True, eq=False)
class ContactForces:
    """Contacts at one instant: ``body1``/``body2`` (K,) names as in
    :meth:`World.contacts`, ``position`` (K, 3) m and ``force`` (K, 3) N, the force
    ``body1`` exerts on ``body2`` (world frame; ``body2`` exerts its opposite)."""

    body1: tuple[str, ...]
    body2: tuple[str, ...]
    position: np.ndarray
    force: np.ndarray

    def on(self, bodies: set[str] | frozenset[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(position (k, 3), force (k, 3))`` of the contacts between ``bodies`` and
        anything else, each force as it acts on the body in ``bodies``."""
        pos, frc = [], []
        for i, (a, b) in enumerate(zip(self.body1, self.body2)):
            if (a in bodies) == (b in bodies):
                continue
            pos.append(self.position[i])
            frc.append(self.force[i] if b in bodies else -self.force[i])
        if not pos:
            return np.zeros((0, 3)), np.zeros((0, 3))
        return np.array(pos), np.array(frc)


def _ro(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=np.float64)
    a.setflags(write=False)
    return a


class BodyHandle:
    """A named body of a World (read pose/velocity, push it, set its velocity)."""

    def __init__(self, world: World, name: str, bid: int) -> None:
        self.world, self.name, self.id = world, name, bid
        m = world.model
        self._free_adr: int | None = None
        jnt = m.body_jntadr[bid]
        if m.body_jntnum[bid] == 1 and m.jnt_type[jnt] == 0:  # mjJNT_FREE
            self._free_adr = int(m.jnt_dofadr[jnt])

    @property
    def position(self) -> np.ndarray:
        """World position (3,) m of the body frame."""
        return self.world.data.xpos[self.id].copy()

    @property
    def quat(self) -> np.ndarray:
        """World orientation (4,) wxyz."""
        return self.world.data.xquat[self.id].copy()

    @property
    def pose(self) -> np.ndarray:
        from robotsim.spatial import make_T

        d = self.world.data
        return make_T(d.xmat[self.id].reshape(3, 3), d.xpos[self.id])

    @property
    def velocity(self) -> tuple[np.ndarray, np.ndarray]:
        """(linear (3,) m/s of the body origin, angular (3,) rad/s), world frame -- the
        same point :meth:`set_velocity` sets. (MuJoCo's ``mj_objectVelocity`` gives the
        centre of mass's; the two differ by ``w x (origin - com)``.)"""
        import mujoco

        d = self.world.data
        v = np.zeros(6)
        mujoco.mj_objectVelocity(self.world.model, d, mujoco.mjtObj.mjOBJ_BODY, self.id, v, 0)
        ang = v[:3].copy()
        return v[3:] + np.cross(ang, d.xpos[self.id] - d.xipos[self.id]), ang

    def apply_force(
        self,
        force: ArrayLike = (0, 0, 0),
        torque: ArrayLike = (0, 0, 0),
        point: ArrayLike | None = None,
    ) -> None:
        """Add a world-frame force (N) at ``point`` (world, m; default the centre of mass)
        and a torque (N m) during the next :meth:`World.step` call (ODE's
        ``dBodyAddForce``: accumulators are cleared after each step call)."""
        import mujoco

        f = np.asarray(force, dtype=np.float64)
        t = np.asarray(torque, dtype=np.float64)
        finite = np.isfinite(f).all() and np.isfinite(t).all()
        if f.shape != (3,) or t.shape != (3,) or not finite:
            raise InputError(f"body {self.name!r}: force and torque must be 3 finite numbers")
        w = self.world
        p = w.data.xipos[self.id] if point is None else np.asarray(point, dtype=np.float64)
        qfrc = np.zeros(w.model.nv)
        mujoco.mj_applyFT(w.model, w.data, f, t, p, self.id, qfrc)
        w._qfrc_pending += qfrc
        w._has_pending = True

    def set_velocity(self, linear: ArrayLike = (0, 0, 0), angular: ArrayLike = (0, 0, 0)) -> None:
        """Set a free body's linear (m/s, world) and angular (rad/s, world) velocity."""
        if self._free_adr is None:
            raise InputError(
                f"body {self.name!r} has no free joint; only free bodies can have "
                f"their velocity set (use a motor or a force)"
            )
        lin = np.asarray(linear, dtype=np.float64)
        ang = np.asarray(angular, dtype=np.float64)
        if lin.shape != (3,) or ang.shape != (3,):
            raise InputError(f"body {self.name!r}: velocities must have 3 numbers each")
        d, a = self.world.data, self._free_adr
        R = d.xmat[self.id].reshape(3, 3)
        d.qvel[a : a + 3] = lin
        d.qvel[a + 3 : a + 6] = R.T @ ang  # MuJoCo: free angular velocity in the body frame
        self.world._moved_from_outside()

    def set_pose(self, position: ArrayLike, quat: ArrayLike = (1, 0, 0, 0)) -> None:
        """Teleport a free body (world position m, quaternion wxyz)."""
        if self._free_adr is None:
            raise InputError(f"body {self.name!r} has no free joint; it cannot be moved")
        m, d = self.world.model, self.world.data
        adr = int(m.jnt_qposadr[m.body_jntadr[self.id]])
        q = np.asarray(quat, dtype=np.float64)
        d.qpos[adr : adr + 3] = np.asarray(position, dtype=np.float64)
        d.qpos[adr + 3 : adr + 7] = q / np.linalg.norm(q)
        self.world._forward()
        self.world._moved_from_outside()


class JointHandle:
    """A named 1-DoF joint (hinge, slider, hinge2 axis, robot joint)."""

    def __init__(self, world: World, name: str, jid: int) -> None:
        m = world.model
        self.world, self.name, self.id = world, name, jid
        self.qadr = int(m.jnt_qposadr[jid])
        self.vadr = int(m.jnt_dofadr[jid])

    @property
    def q(self) -> float:
        return float(self.world.data.qpos[self.qadr])

    @property
    def qd(self) -> float:
        return float(self.world.data.qvel[self.vadr])

    def set_q(self, value: float) -> None:
        self.world.data.qpos[self.qadr] = float(value)
        self.world._forward()
        self.world._moved_from_outside()


class MotorHandle:
    """A motor (actuator) named like its joint. ``set(target)``: velocity (rad/s or m/s),
    position (rad or m) or torque/force (N m or N) depending on the motor kind. The
    applied target follows it no faster than the acceleration limit (velocity motors) or
    the velocity limit (position motors), updated every 10 ms step chunk."""

    def __init__(
        self, world: World, name: str, aid: int, kind: str, velocity: float, acceleration: float
    ) -> None:
        self.world, self.name, self.id, self.kind = world, name, aid, kind
        self.velocity_limit, self.acceleration_limit = velocity, acceleration

    def set(self, target: float) -> None:
        t = float(target)
        if not math.isfinite(t):
            raise InputError(f"motor {self.name!r}: target must be finite, got {target!r}")
        if self.kind == "velocity":
            t = max(-self.velocity_limit, min(self.velocity_limit, t))
        self.world._targets[self.id] = t
        if self.world._ff is not None and self.kind == "position":
            self.world._ff.target_set(self.id, self.world.data.time, t)

    @property
    def target(self) -> float:
        return float(self.world._targets[self.id])

    @property
    def applied(self) -> float:
        """The control value MuJoCo sees now (after the acceleration ramp)."""
        return float(self.world.data.ctrl[self.id])


class World:
    """A compiled Scene you can step. See the module docstring.

    Args:
        scene: what to build (``World.scene`` is it as simulated: robots that stand on
            legs or wheels set free, :mod:`robotsim.physics.freebase`).
        seed: seeds ``world.rng`` (noise, random placements); MuJoCo itself is
            deterministic, so the same scene and seed give the same numbers.
        max_speed: a body speed (m/s or rad/s per DoF) above this counts as divergence.
        check_interval: simulated seconds between the speed checks.
    """

    def __init__(
        self, scene: Scene, seed: int = 0, max_speed: float = 1e3, check_interval: float = 0.01
    ) -> None:
        import mujoco

        self.seed = int(seed)
        self._compiled: Compiled = compile_scene(scene)
        self.scene = self._compiled.scene  # as simulated: robots on legs or wheels set free
        self.model = self._compiled.model
        self.data = mujoco.MjData(self.model)
        self.timestep = float(self.model.opt.timestep)
        self.max_speed = float(max_speed)
        self.check_interval = float(check_interval)
        self.paused = False
        m = self.model
        name = mujoco.mj_id2name
        self.body_names = tuple(
            name(m, mujoco.mjtObj.mjOBJ_BODY, i) or f"body{i}" for i in range(m.nbody)
        )
        self._body_ids = {n: i for i, n in enumerate(self.body_names)}
        one_dof = (2, 3)  # slide, hinge
        self.joint_names = tuple(
            name(m, mujoco.mjtObj.mjOBJ_JOINT, j) or f"joint{j}"
            for j in range(m.njnt)
            if m.jnt_type[j] in one_dof
        )
        self._joint_ids = {n: m.joint(n).id for n in self.joint_names}
        self._jq = np.array([m.jnt_qposadr[self._joint_ids[n]] for n in self.joint_names], int)
        self._jv = np.array([m.jnt_dofadr[self._joint_ids[n]] for n in self.joint_names], int)
        self.motor_names = tuple(mi.name for mi in self._compiled.motors)
        self._motor_ids = {n: m.actuator(n).id for n in self.motor_names}
        self._targets = np.zeros(m.nu)
        # how fast each motor's applied target may move (per second): velocity motors by
        # their acceleration limit, position motors by their velocity limit
        acc = np.full(m.nu, np.inf)  # by actuator id (feed-forward actuators: no ramp)
        for mi in self._compiled.motors:
            kind = mi.motor.kind
            acc[self._motor_ids[mi.name]] = (
                mi.motor.velocity
                if kind == "position"
                else mi.motor.acceleration
                if kind == "velocity"
                else np.inf
            )
        self._acc = acc
        self._ramped = bool(np.isfinite(acc).any())
        ff = self._compiled.feedforward
        self._ff = ChunkFeedForward(m, self.data, ff) if ff else None
        self._scratch: Any = None  # MjData of poses_now (allocated on first use)
        self._qfrc_pending = np.zeros(m.nv)
        self._has_pending = False
        self._warn_ids = [
            int(w)
            for w in (
                mujoco.mjtWarning.mjWARN_BADQACC,
                mujoco.mjtWarning.mjWARN_BADQVEL,
                mujoco.mjtWarning.mjWARN_BADQPOS,
            )
        ]
        # live views of those warning counters (indexing data.warning builds a new
        # wrapper each time, ~1 us; these are read after every step chunk)
        self._warn_stats = [self.data.warning[i] for i in self._warn_ids]
        self._handles: dict[tuple[str, str], Any] = {}
        self._geom_names: tuple[str, ...] | None = None  # contact names, by geom id
        self._chunk = max(1, round(self.check_interval / self.timestep))
        self._slice = 4  # steps per MuJoCo call, grown while a call takes < 25 ms
        self._bounce = list(self._compiled.bounce_geoms)
        self.guard = Guard(self)
        # a run's checkpoints (physics.checkpoint): this world registers with the
        # block it is built in, if any
        from robotsim.physics.checkpoint import current_log

        self._ckpt_log = current_log()
        self._ckpt_index = self._ckpt_log.register(self) if self._ckpt_log is not None else -1
        self.reset()
        self.guard.default_bounds()

    # -- life cycle -------------------------------------------------------------------
    def reset(self) -> None:
        """Back to the initial state (time 0, initial poses, zero velocities and targets)."""
        import mujoco

        mujoco.mj_resetData(self.model, self.data)
        self.data.qpos[:] = self._compiled.qpos0
        for mi in self._compiled.motors:  # position motors hold the initial joint value
            if mi.motor.kind == "position":
                aid = self._motor_ids[mi.name]
                jid = self.model.actuator_trnid[aid, 0]
                self._targets[aid] = self.data.qpos[self.model.jnt_qposadr[jid]]
            else:
                self._targets[self._motor_ids[mi.name]] = 0.0
        self.data.ctrl[:] = self._targets
        if self._ff is not None:
            self._ff.reset()
        self._qfrc_pending[:] = 0.0
        self._has_pending = False
        self.rng = np.random.default_rng(self.seed)
        self._next_check = self.check_interval
        log = self._ckpt_log
        self._next_ckpt = log.interval if log is not None else math.inf
        self._warn_counts = [0, 0, 0]
        self._forward()
        if self._bounce:
            self._update_bounce()
        self.guard.rebase()

    def pause(self) -> None:
        """Stop :meth:`advance` from stepping (explicit :meth:`step` still steps)."""
        self.paused = True

    def resume(self) -> None:
        self.paused = False

    @property
    def time(self) -> float:
        return float(self.data.time)

    # -- stepping ---------------------------------------------------------------------
    def step(
        self,
        n: int = 1,
        observe: Callable[[int], None] | None = None,
        at: Sequence[int] = (),
        advance: Callable[[int], None] | None = None,
    ) -> None:
        """Advance ``n`` physics steps (also when paused: single-stepping).

        ``observe(j)`` is called after step ``j`` of this call for each ``j`` in ``at``
        (ascending, 1..n), between two MuJoCo steps of a chunk: what the world does per
        chunk (motor ramps, servo feed-forward, divergence and bounce checks) is exactly
        what it does without observers, so an observer (the sensors) that only reads
        cannot change the run. ``advance(k)``, when given, takes every run of ``k``
        MuJoCo steps in place of ``mj_step(model, data, k)`` (at most a chunk at a
        time): an observer that reads between steps of its own choosing without being
        called back for each (the sensors' IMUs); it must step exactly ``k`` times.

        Raises PhysicsFault when the simulation diverges (see the module docstring).
        """
        import mujoco

        m, d = self.model, self.data
        marks = list(at) if observe is not None else []
        mi, done = 0, 0
        ramped = self._ramped
        if not ramped:
            d.ctrl[:] = self._targets
        if self._has_pending:
            d.qfrc_applied[:] = self._qfrc_pending
        w, counts = self._warn_stats, self._warn_counts
        chunk = self._chunk
        ff = self._ff
        sliced = self._step_sliced if advance is None else advance
        while n > 0:
            k = chunk if n > chunk else n
            t0 = d.time
            if ff is not None:  # servo feed-forward from the state MuJoCo last computed
                tau = ff.torques(m, d)
                self._targets[ff.act] = tau
                d.ctrl[ff.act] = tau
            if ramped:  # targets move at most rate x time, chunk by chunk (10 ms)
                self._ramp(k * self.timestep)
            if mi < len(marks) and marks[mi] <= done + k:  # observed inside this chunk
                j = 0
                while mi < len(marks) and marks[mi] <= done + k:
                    if marks[mi] - done > j:
                        sliced(marks[mi] - done - j)
                        j = marks[mi] - done
                    observe(marks[mi])  # type: ignore[misc]
                    mi += 1
                if k > j:
                    sliced(k - j)
            elif advance is not None:
                advance(k)
            elif k <= self._slice:
                mujoco.mj_step(m, d, k)
            else:
                self._step_sliced(k)
            n -= k
            done += k
            if w[0].number != counts[0] or w[1].number != counts[1] or w[2].number != counts[2]:
                self._diverged_warning(t0)
            if d.time >= self._next_check:
                self._next_check = d.time + self.check_interval
                self._check_speeds()
                if d.time >= self.guard.next_time:
                    self.guard.check()
            if d.time >= self._next_ckpt:
                self._checkpoint()
            if self._bounce:
                self._update_bounce()
        if self._has_pending:
            d.qfrc_applied[:] = 0.0
            self._qfrc_pending[:] = 0.0
            self._has_pending = False
            self.guard.rebase()  # a push from outside: its energy is input, not a fault

    def _checkpoint(self) -> None:
        """Record the state in the run's checkpoint log (physics.checkpoint)."""
        log = self._ckpt_log
        assert log is not None
        log.take(self._ckpt_index, self.model, self.data)
        self._next_ckpt = log.next_after(self.data.time)

    def _step_sliced(self, k: int) -> None:
        """``k`` MuJoCo steps in calls of 25-100 ms of wall time each (the slice size
        adapts to the model's cost), so that a KeyboardInterrupt is raised between two
        of them; the state is the same as after one call of ``k`` steps."""
        import mujoco

        m, d = self.model, self.data
        while k > 0:
            n = k if k < self._slice else self._slice
            t0 = time.perf_counter()
            mujoco.mj_step(m, d, n)
            k -= n
            wall = time.perf_counter() - t0
            if wall < 0.025 and n == self._slice:
                self._slice = min(2 * self._slice, 1 << 20)
            elif wall > 0.1 and self._slice > 1:
                self._slice //= 2

    def check_work(self, duration: float, what: str) -> int:
        """Refuse, before stepping, a run of ``duration`` simulated seconds that would
        take more body-steps than the work budget (:func:`robotsim.budget.check_work`):
        one line naming ``what`` (the run, e.g. its file) and the parameter to change,
        the timestep when the default one would fit, else the duration. Returns the
        number of steps."""
        from robotsim.budget import check_work, current_work_budget
        from robotsim.physics.timestep import DEFAULT_TIMESTEP

        dur = float(duration)
        if not (math.isfinite(dur) and dur >= 0):
            raise InputError(f"{what}: duration {duration!r} s must be a finite number >= 0")
        dt = self.timestep
        bodies = max(1, self.model.nbody - 1)  # the world body itself is not stepped
        steps = dur / dt
        budget = current_work_budget()
        if dt < DEFAULT_TIMESTEP and dur / DEFAULT_TIMESTEP * bodies <= budget:
            label = f"{what}: timestep {dt:g} s for {dur:g} s of simulated time"
            hint = f"use a timestep of at least {dur * bodies / budget:.2g} s"
        else:
            label = f"{what}: duration {dur:g} s at timestep {dt:g} s"
            hint = f"use a duration of at most {budget / bodies * dt:.4g} s"
        check_work(label, steps, bodies, hint)
        return math.ceil(steps)

    def advance(self, duration: float) -> int:
        """Step ``duration`` seconds of simulated time unless paused; returns the steps."""
        if self.paused:
            return 0
        n = max(1, round(duration / self.timestep))
        self.step(n)
        return n

    def _update_bounce(self) -> None:
        """ODE's ``bounce_vel``: at each contact onset (checked every step chunk, 10 ms)
        a bouncy geom keeps its restitution only if its body moves at least at
        ``bounce_vel``; slower impacts get the dead (critically damped) contact."""
        import mujoco

        m, d = self.model, self.data
        touching = set(d.contact.geom[: d.ncon].ravel().tolist()) if d.ncon else set()
        v = np.zeros(6)
        for gid, vmin, bouncy, dead in self._bounce:
            if gid in touching:
                continue  # keep the choice made at the onset for the whole contact
            body = int(m.geom_bodyid[gid])
            mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, body, v, 0)
            m.geom_solref[gid] = bouncy if float(np.linalg.norm(v[3:])) >= vmin else dead

    def _ramp(self, dt: float) -> None:
        ctrl = self.data.ctrl
        lim = self._acc * dt
        # np.clip's own arithmetic, without its Python-level wrapper (a few us a call)
        ctrl += np.minimum(np.maximum(self._targets - ctrl, -lim), lim)

    def sync_poses(self) -> None:
        """Recompute every body's world pose (``data.xpos``/``xquat``/``xmat``) from
        the current joint positions, with MuJoCo's ``mj_kinematics``. After
        :meth:`step`, MuJoCo's body poses are those of the state before its last
        physics step (``mj_step`` computes them before it integrates); after this call
        they are those of the state now. MuJoCo's next step recomputes them, but the
        servo feed-forward of the next chunk reads them before it does: a world with
        feed-forward servos runs differently after this call. To read the poses of a
        running world, use :meth:`poses_now` (which leaves :attr:`data` alone). About
        a microsecond per ten bodies."""
        import mujoco

        mujoco.mj_kinematics(self.model, self.data)

    def poses_now(self) -> tuple[np.ndarray, np.ndarray]:
        """Every body's world position ``(nbody, 3)`` (m) and orientation ``(nbody, 4)``
        (wxyz) in the state now: MuJoCo's ``mj_kinematics`` of the current joint (and
        mocap) positions, computed on a scratch ``MjData`` so that :attr:`data` is not
        touched: its body poses stay those MuJoCo computed before its last step, which
        the next chunk's servo feed-forward reads (:meth:`sync_poses` would change
        them, and with them the run). The arrays are overwritten by the next call."""
        import mujoco

        s = self._scratch
        if s is None:
            s = self._scratch = mujoco.MjData(self.model)
        s.qpos[:] = self.data.qpos
        if self.model.nmocap:
            s.mocap_pos[:] = self.data.mocap_pos
            s.mocap_quat[:] = self.data.mocap_quat
        mujoco.mj_kinematics(self.model, s)
        return s.xpos, s.xquat

    def _forward(self) -> None:
        import mujoco

        mujoco.mj_forward(self.model, self.data)

    def _moved_from_outside(self) -> None:
        """A pose, velocity or mass set from outside the simulation: the energy it adds
        is no fault (the guard's account starts again)."""
        self.guard.rebase()

    # -- the guard (robotsim.physics.guard) -------------------------------------------
    def set_bounds(self, lo: ArrayLike, hi: ArrayLike) -> None:
        """The world's box (m, world frame, ``lo`` and ``hi`` (3,)): a body outside it is
        a fault. Default: the scene's start box grown by max(100 m, 2 x its diagonal)."""
        try:
            self.guard.set_bounds(lo, hi)
        except ValueError as exc:
            raise InputError(str(exc)) from None

    def limit_speed(self, body: str, limit: float) -> None:
        """The linear speed (m/s) of ``body``'s centre of mass above which the run is a
        fault (a run sets it far above what its controllers command)."""
        try:
            self.guard.limit_speed(self.body(body).id, float(limit))
        except ValueError as exc:
            raise InputError(f"body {body!r}: {exc}") from None

    # -- divergence -------------------------------------------------------------------
    def _body_of_dof(self, dof: int) -> str:
        if 0 <= dof < self.model.nv:
            return self.body_names[int(self.model.dof_bodyid[dof])]
        return "(unknown body)"

    def _diverged_warning(self, t0: float) -> None:
        w = self.data.warning
        kinds = ("acceleration", "velocity", "position")
        for k, wid in enumerate(self._warn_ids):
            if w[wid].number != self._warn_counts[k]:
                self._warn_counts[k] = int(w[wid].number)
                body = self._body_of_dof(int(w[wid].lastinfo))
                raise fault(
                    body, t0 + self.timestep, kinds[k], None, None, "",
                    f"has a bad {kinds[k]} (NaN, inf or huge; MuJoCo's warning, within "
                    f"{self.time - t0:.3g} s)",
                )  # fmt: skip

    def _check_speeds(self) -> None:
        qv = self.data.qvel
        if qv.size == 0:
            return
        # the usual case, on a list (cheaper than NumPy's reductions for tens of DoF);
        # a NaN is caught by MuJoCo's bad-velocity warning checked before this
        if max(map(abs, qv.tolist())) <= self.max_speed:
            return
        i = int(np.argmax(np.abs(qv)))
        v = float(qv[i])
        if not (abs(v) <= self.max_speed):
            raise fault(
                self._body_of_dof(i), self.time, "speed", abs(v), self.max_speed, "m/s or rad/s",
                f"moves at {v:.3g} m/s or rad/s (a degree of freedom; the world's limit is "
                f"{self.max_speed:g})",
            )  # fmt: skip

    # -- named access -----------------------------------------------------------------
    def body(self, name: str) -> BodyHandle:
        h = self._handles.get(("body", name))
        if h is None:
            if name not in self._body_ids:
                raise UnknownNameError("body", name, self.body_names[1:])
            h = self._handles[("body", name)] = BodyHandle(self, name, self._body_ids[name])
        return h

    def joint(self, name: str) -> JointHandle:
        h = self._handles.get(("joint", name))
        if h is None:
            if name not in self._joint_ids:
                raise UnknownNameError("joint", name, self.joint_names)
            h = self._handles[("joint", name)] = JointHandle(self, name, self._joint_ids[name])
        return h

    def motor(self, name: str) -> MotorHandle:
        h = self._handles.get(("motor", name))
        if h is None:
            if name not in self._motor_ids:
                raise UnknownNameError("motor", name, self.motor_names)
            mi = next(x for x in self._compiled.motors if x.name == name)
            h = MotorHandle(
                self,
                name,
                self._motor_ids[name],
                mi.motor.kind,
                mi.motor.velocity,
                mi.motor.acceleration,
            )
            self._handles[("motor", name)] = h
        return h

    @property
    def drives(self) -> dict[str, Any]:
        """Robot name -> DriveInfo for robots with a wheel drive."""
        return dict(self._compiled.drives)

    def state(self) -> WorldState:
        """A read-only snapshot of every body pose and 1-DoF joint."""
        d = self.data
        q, qd = _ro(d.qpos[self._jq]), _ro(d.qvel[self._jv])
        return WorldState(
            self.time, self.body_names, _ro(d.xpos), _ro(d.xquat), self.joint_names, q, qd
        )

    def contacts(self) -> list[tuple[str, str, float]]:
        """Current contacts as (body 1, body 2, penetration depth m >= 0); geoms of the
        static world (the ground, static bodies merged into it) are named by geom."""
        _m, d = self.model, self.data
        out = []
        for i in range(d.ncon):
            c = d.contact[i]
            out.append(
                (
                    self._contact_name(int(c.geom1)),
                    self._contact_name(int(c.geom2)),
                    max(0.0, -float(c.dist)),
                )
            )
        return out

    def contact_forces(self) -> ContactForces:
        """Every current contact with where it is and the force it carries (world
        frame): see :class:`ContactForces`."""
        import mujoco

        m, d = self.model, self.data
        k = int(d.ncon)
        if self._geom_names is None:
            self._geom_names = tuple(self._contact_name(g) for g in range(m.ngeom))
        c = d.contact
        geoms = c.geom[:k]
        frame = c.frame[:k].reshape(k, 3, 3)  # rows: normal (geom1 -> geom2), tangents
        local = np.zeros((k, 3))
        if m.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC:
            adr, dim = c.efc_address[:k], c.dim[:k]
            efc = d.efc_force
            local[:, 0] = efc[adr]
            rich = dim >= 3
            local[rich, 1] = efc[adr[rich] + 1]
            local[rich, 2] = efc[adr[rich] + 2]
        else:  # pyramidal cones: MuJoCo's own conversion, contact by contact
            f6 = np.zeros(6)
            for i in range(k):
                mujoco.mj_contactForce(m, d, i, f6)
                local[i] = f6[:3]
        force = np.einsum("kji,kj->ki", frame, local)
        names = self._geom_names
        return ContactForces(
            tuple(names[g] for g in geoms[:, 0]),
            tuple(names[g] for g in geoms[:, 1]),
            _ro(c.pos[:k]),
            _ro(force),
        )

    def _contact_name(self, geom: int) -> str:
        import mujoco

        b = int(self.model.geom_bodyid[geom])
        if b == 0:
            return mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_GEOM, geom) or "world"
        return self.body_names[b]
