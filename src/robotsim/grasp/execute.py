"""Grasp trials in MuJoCo: drop the object on the table, plan, approach, close (stop at
touch), lift and hold, and measure what happened.

The scene (:class:`GraspWorld`, compiled once and reset per trial): the robot with a
position servo on every actuated joint, holding against gravity with the servos' gravity
feed-forward (:mod:`robotsim.physics.feedforward`, as arm controllers do), the fingers'
servos limited to their joints' rated effort; the tables as boxes, the object as a free
body with its own mass properties and convex pieces
(:func:`robotsim.objects.object_body`), the ground.

Friction: elliptic cones, ``impratio`` 10 and no-slip iterations (MuJoCo's soft friction
otherwise lets a held object creep), the object's geoms with torsional friction (a pad
resists twisting: ``torsion`` m, the planner counts on the same) and a little rolling
resistance (a dropped cylinder comes to rest).

A trial, per control tick (``dt``):

1. **drop**: the object at a random pose above the table falls and settles (at most
   ``settle`` s, until it is still); one that leaves the table is dropped again;
2. **plan** (:class:`robotsim.grasp.planner.Planner`) from the pose it settled in;
3. **approach**: joint-space moves start -> pre-grasp -> grasp (rest to rest);
4. **close, stop at touch**: each finger drive moves towards closed; when every finger
   it drives touches the object (MuJoCo contacts between the finger's links and the
   object), its target stops ``squeeze`` past where it is, so it presses with at most
   its rated force;
5. **lift** to the planned lift pose, **hold** ``hold`` s.

Measured: ``lifted_m`` (the object's centre of mass at the end of the hold, above where
it rested), ``slip_m`` (the largest displacement of the object in the hand's frame during
the hold). Success: ``lifted_m >= lift_success`` and ``slip_m <= max_slip`` (0.1 m, 1 cm).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robotsim.errors import InputError
from robotsim.grasp.hand import GraspHand
from robotsim.grasp.planner import GraspPlan, Planner
from robotsim.hands.contact import BoxObstacle
from robotsim.objects.load import GraspObject
from robotsim.physics.timestep import DEFAULT_TIMESTEP
from robotsim.spatial import make_T, quat_to_R

__all__ = ["GraspWorld", "TrialOptions", "TrialResult"]

ROBOT = "robot"


@dataclass(frozen=True)
class TrialOptions:
    """Trial settings (s, m, rad).

    Attributes:
        timestep, dt: physics step and control tick.
        settle: longest the dropped object may take to come to rest.
        drop_height: how far above the table the object starts (above its lowest point).
        margin: drop poses keep the object's centre this far inside the table's edges.
        approach_speed: joint speed (rad/s) of the approach moves.
        close_time: time to close a finger drive from open to closed.
        squeeze: how far past the touch a finger's target stops (rad, or m for sliding
            fingers: ``squeeze_m``) when not ``press``; ``press``: after the touch the
            target is the closed end, so the drive presses with its effort limit (the
            thumb's and the opposing fingers' balanced) however far the object yields.
        lift_time, hold: lifting move and hold durations.
        lift_success, max_slip: the success thresholds.
        friction: the fingers' sliding friction (contacts take the larger of the two
            surfaces').
        torsion, rolling: the object's torsional (m) and rolling friction.
        arm_gain, arm_damping: arm servos (N m/rad, N m s/rad).
    """

    timestep: float = DEFAULT_TIMESTEP
    dt: float = 0.01
    settle: float = 1.5
    drop_height: float = 0.02
    margin: float = 0.05
    approach_speed: float = 1.2
    close_time: float = 0.6
    squeeze: float = np.radians(5.0)
    squeeze_m: float = 0.004
    press: bool = False
    lift_time: float = 1.0
    hold: float = 2.0
    lift_success: float = 0.1
    max_slip: float = 0.01
    friction: float = 1.0
    torsion: float = 0.004
    rolling: float = 0.0005
    arm_gain: float = 600.0
    arm_damping: float = 60.0


@dataclass(frozen=True, eq=False)
class TrialResult:
    """One trial: ``success``, ``lifted_m``, ``slip_m``, ``reason`` (None on success),
    the ``plan``, the object's rest pose ``T_rest`` ``(4, 4)``, the ``events``
    ``(t s, type, detail)``, wall times ``plan_s`` and ``sim_s`` (s), simulated time
    ``sim_time``, and the sampled ``trace`` (t, object xyz, lift, slip) for the recording."""

    success: bool
    lifted_m: float
    slip_m: float
    reason: str | None
    plan: GraspPlan
    T_rest: np.ndarray
    events: tuple[tuple[float, str, str | None], ...]
    plan_s: float
    sim_s: float
    sim_time: float
    trace: np.ndarray = field(default_factory=lambda: np.zeros((0, 6)))

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "success": self.success,
            "lifted_m": self.lifted_m,
            "slip_m": self.slip_m,
            "plan_s": self.plan_s,
            "sim_s": self.sim_s,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        if self.plan.ok:
            out["grasp"] = {"margin": self.plan.margin, "held_weights": self.plan.held,
                            "approach": np.asarray(self.plan.approach).tolist(),
                            "contacts": np.asarray(self.plan.contacts).tolist()}  # fmt: skip
        return out


def _subtree(model: Any, link: str) -> list[str]:
    out, stack = [], [link]
    while stack:
        lk = stack.pop()
        out.append(lk)
        stack.extend(j.child for j in model.joints if j.parent == lk)
    return out


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    """A uniformly random rotation (Shoemake's quaternion method)."""
    u1, u2, u3 = rng.random(3)
    a, b = np.sqrt(u1), np.sqrt(1 - u1)
    t2, t3 = 2 * np.pi * u2, 2 * np.pi * u3
    q = np.array([a * np.cos(t3), b * np.sin(t2), b * np.cos(t2), a * np.sin(t3)])
    return quat_to_R(q)


class GraspWorld:
    """The robot, the tables and the object in MuJoCo (module docstring)."""

    def __init__(
        self,
        hand: GraspHand,
        obj: GraspObject,
        T_world_base: np.ndarray,
        tables: tuple[BoxObstacle, ...],
        planner: Planner,
        options: TrialOptions | None = None,
        q_start: np.ndarray | None = None,
    ) -> None:
        from robotsim import physics as ph
        from robotsim.model.geometry import Box
        from robotsim.objects.body import object_body

        if not tables:
            raise InputError("a grasp trial needs a table to drop the object on")
        self.hand, self.obj, self.planner = hand, obj, planner
        self.o = o = options or TrialOptions()
        self.tables = tables
        self.table = tables[0]
        m = hand.model
        self.q_start = hand.q_fingers(0.0, hand.home if q_start is None else q_start)
        motors: dict[str, Any] = {}
        drives = set(hand.drive_joints) | {c[0] for c in hand.coupled}
        self._squeeze = {}
        for j in m.joint_names:
            lim = m.joint(j).limits
            if j in drives:
                eff = lim.effort if np.isfinite(lim.effort) and lim.effort > 0 else 20.0
                sq = o.squeeze_m if m.joint(j).type.value == "prismatic" else o.squeeze
                self._squeeze[j] = sq
                motors[j] = ph.Motor("position", gain=2.0 * eff / sq, damping=0.1 * eff / sq * 0.05,
                                     force=eff)  # fmt: skip
            else:
                motors[j] = ph.Motor("position", gain=o.arm_gain, damping=o.arm_damping)
        bodies = [ph.Body(f"table{i}" if i else "table", Box(t.size), make_T(None, t.center),
                          rgba=(0.6, 0.45, 0.3, 1.0)) for i, t in enumerate(tables)]  # fmt: skip
        top = self.table.top
        bodies.append(object_body(obj, "object", make_T(None, [*self.table.center[:2], top + 0.2]),
                                  surface="object"))  # fmt: skip
        q0 = {n: float(v) for n, v in zip(m.joint_names, self.q_start, strict=True)}
        self.scene = ph.Scene(
            bodies=tuple(bodies),
            robots=(
                ph.RobotPlacement(
                    ROBOT, m, T_world_base, q0=q0, motors=motors, collide_with_robots=False
                ),
            ),
            surfaces={"object": ph.ContactSurface(mu=max(obj.friction, 1e-3))},
            timestep=o.timestep,
            name=f"grasp {obj.name}",
        )
        self.world = ph.World(self.scene)
        self._on_tick: Callable[[float, np.ndarray, np.ndarray], None] | None = None
        self._t_start = 0.0
        self._setup()

    # ------------------------------------------------------------------ setup
    def _setup(self) -> None:
        w, m, h, o = self.world, self.hand.model, self.hand, self.o
        wm = w.model
        self._obj = w.body("object")
        self._obj_id = self._obj.id
        self._table_ids = {
            w.body("table" if i == 0 else f"table{i}").id for i in range(len(self.tables))
        }
        self._ground = int(wm.geom("ground").id)
        ids = {lk: w.body(f"{ROBOT}/{lk}").id for lk in m.link_names}
        self._finger_bodies = [{ids[lk] for lk in links} for links in h.finger_links]
        fingered = set().union(*self._finger_bodies)
        self._robot_bodies = set(ids.values())
        self._palm_bodies = self._robot_bodies - fingered
        fr_tool = next((f for f in m.frames if f.name == h.tool), None)
        self._tool_body = ids[fr_tool.link] if fr_tool is not None else ids[h.tool]
        fr = next((f for f in m.frames if f.name == h.tool), None)
        self._T_link_tool = np.asarray(fr.T_link_frame) if fr is not None else np.eye(4)
        self._jq = np.array([wm.jnt_qposadr[wm.joint(f"{ROBOT}/{j}").id] for j in m.joint_names])
        self._motors = {j: w.motor(f"{ROBOT}/{j}") for j in m.joint_names}
        self._drive_idx = [m.joint_index(j) for j in h.drive_joints]
        self._closing = np.sign(h.closed_q - h.open_q)
        # the thumb and the fingers opposing it squeeze equally hard
        for j, share in h.balanced_effort().items():
            aid = self._motors[j].id
            wm.actuator_forcerange[aid] = np.asarray(wm.actuator_forcerange[aid]) * share
        wm.opt.impratio = 10.0
        wm.opt.noslip_iterations = 4
        for g in range(
            wm.body_geomadr[self._obj_id],
            wm.body_geomadr[self._obj_id] + wm.body_geomnum[self._obj_id],
        ):
            wm.geom_condim[g] = 6
            wm.geom_friction[g] = (max(self.obj.friction, o.friction), o.torsion, o.rolling)
        for e in range(wm.neq):  # stiff couplings of mimic joints (fingers, phalanges)
            wm.eq_solref[e] = (0.01, 1.0)
            wm.eq_solimp[e] = (0.99, 0.999, 0.001, 0.5, 2.0)
        for links in self._finger_bodies:
            for b in links:
                a = wm.body_dofadr[b]
                if a >= 0:
                    wm.dof_armature[a : a + wm.body_dofnum[b]] = np.maximum(
                        wm.dof_armature[a : a + wm.body_dofnum[b]], 2e-4)  # fmt: skip

    # ------------------------------------------------------------------ state
    @property
    def q(self) -> np.ndarray:
        return self.world.data.qpos[self._jq].copy()

    def object_pose(self) -> np.ndarray:
        return self._obj.pose

    def tool_pose(self) -> np.ndarray:
        d = self.world.data
        b = self._tool_body
        return make_T(d.xmat[b].reshape(3, 3), d.xpos[b]) @ self._T_link_tool

    def contacts(self) -> tuple[list[bool], bool, bool]:
        """(each finger touches the object, the object touches a table or the ground,
        a robot link other than a finger touches a table, the ground or the object)."""
        d, wm = self.world.data, self.world.model
        touch = [False] * len(self._finger_bodies)
        support = bump = False
        n = d.ncon
        if n:
            g = d.contact.geom[:n]
            b1, b2 = wm.geom_bodyid[g[:, 0]], wm.geom_bodyid[g[:, 1]]
            for x, y, g1, g2 in zip(b1.tolist(), b2.tolist(), g[:, 0].tolist(), g[:, 1].tolist()):
                for a, b, gb in ((x, y, g2), (y, x, g1)):
                    if a == self._obj_id:
                        if b in self._table_ids or gb == self._ground:
                            support = True
                        for k, fb in enumerate(self._finger_bodies):
                            if b in fb:
                                touch[k] = True
                    if a in self._palm_bodies and (b in self._table_ids or gb == self._ground):
                        bump = True
        return touch, support, bump

    # ------------------------------------------------------------------ stepping
    def _tick(self, targets: np.ndarray) -> None:
        for k, motor in enumerate(self._motors.values()):
            motor.set(float(targets[k]))
        self.world.step(max(1, round(self.o.dt / self.o.timestep)))
        if self._on_tick is not None:
            self._t_start += self.o.dt  # ticks of this trial, drops included
            self._on_tick(self._t_start, self.q, self.object_pose())

    # ------------------------------------------------------------------ trial
    def drop(self, rng: np.random.Generator, attempts: int = 4) -> np.ndarray | None:
        """Drop the object at a random pose over the table; its rest pose, or None if it
        left the table ``attempts`` times."""
        o, t = self.o, self.table
        hull = self.obj.hull_points
        for _ in range(attempts):
            self.world.reset()
            R = random_rotation(rng)
            lowest = float((hull @ R.T)[:, 2].min())
            half = np.maximum(np.asarray(t.size[:2]) / 2 - o.margin, 0.0)
            xy = np.asarray(t.center[:2]) + rng.uniform(-half, half)
            com = R @ np.asarray(self.obj.inertial.com)
            pos = np.array([xy[0] - com[0], xy[1] - com[1], t.top - lowest + o.drop_height])
            from robotsim.spatial import R_to_quat

            self._obj.set_pose(pos, R_to_quat(R))
            targets = self.q_start.copy()
            still = 0
            for _ in range(round(o.settle / o.dt)):
                self._tick(targets)
                lin, ang = self._obj.velocity
                still = (
                    still + 1 if np.linalg.norm(lin) < 0.005 and np.linalg.norm(ang) < 0.05 else 0
                )
                if still >= 5:
                    break
            T = self.object_pose()
            local = T[:3, 3] - np.asarray(t.center)
            on = (abs(local[0]) <= t.size[0] / 2 and abs(local[1]) <= t.size[1] / 2
                  and T[2, 3] > t.top - 0.005)  # fmt: skip
            if on:
                return T
        return None

    def trial(
        self,
        rng: np.random.Generator,
        recorder: Any = None,
        on_tick: Callable[[float, np.ndarray, np.ndarray], None] | None = None,
    ) -> TrialResult:
        """One trial (module docstring). ``on_tick(t, q, T_world_object)`` is called after
        every control tick (``t`` from the start of the trial, s; what the studio plays)."""
        self._on_tick, self._t_start = on_tick, 0.0
        try:
            return self._trial(rng)
        finally:
            self._on_tick = None

    def _trial(self, rng: np.random.Generator) -> TrialResult:
        o, h = self.o, self.hand
        wall0 = time.perf_counter()
        events: list[tuple[float, str, str | None]] = []
        T_rest = self.drop(rng)
        if T_rest is None:
            plan = GraspPlan(False, "the object does not come to rest on the table")
            return TrialResult(False, 0.0, 0.0, plan.reason, plan, np.eye(4), (), 0.0,
                               time.perf_counter() - wall0, self.world.time)  # fmt: skip
        t_plan = time.perf_counter()
        plan = self.planner.plan(self.obj, T_rest, self.q_start, rng)
        plan_s = time.perf_counter() - t_plan
        if not plan.ok:
            return TrialResult(False, 0.0, 0.0, plan.reason, plan, T_rest, (), plan_s,
                               time.perf_counter() - wall0 - plan_s, self.world.time)  # fmt: skip
        trace: list[list[float]] = []
        z_rest = float((T_rest @ np.append(self.obj.inertial.com, 1.0))[2])
        bumped = [False]
        knocked = [0.0]

        def sample(phase: float) -> None:
            T = self.object_pose()
            c = T[:3, :3] @ self.obj.inertial.com + T[:3, 3]
            trace.append([self.world.time, *c, c[2] - z_rest, phase])

        def move(
            q0: np.ndarray, q1: np.ndarray, seconds: float | None = None, phase: float = 0
        ) -> None:
            span = float(np.abs(q1 - q0).max())
            secs = (
                seconds
                if seconds is not None
                else float(np.clip(span / o.approach_speed, 0.4, 2.0))
            )
            n = max(1, round(secs / o.dt))
            for i in range(1, n + 1):
                s = i / n
                s = 3 * s * s - 2 * s**3
                self._tick(q0 + s * (q1 - q0))
                if i % 5 == 0:
                    sample(phase)
                    _, _, bump = self.contacts()
                    bumped[0] |= bump

        def arrive(q_target: np.ndarray, most: float = 0.5) -> None:
            """Hold the target until the arm is there (servo lag), at most ``most`` s."""
            arm = [h.model.joint_index(j) for j in h.arm_joints]
            for _ in range(round(most / o.dt)):
                if float(np.abs(self.q[arm] - q_target[arm]).max()) < 2e-3:
                    break
                self._tick(q_target)

        q = self.q_start.copy()
        move(q, plan.q_pre, phase=1)
        move(plan.q_pre, plan.q_grasp, 0.5, phase=1)
        arrive(plan.q_grasp)
        T_before = self.object_pose()
        knocked[0] = float(np.linalg.norm(T_before[:3, 3] - T_rest[:3, 3]))
        # close, stop at touch (per drive: when every finger it drives touches)
        target = plan.q_grasp.copy()
        done = [False] * len(self._drive_idx)
        rate = np.abs(h.closed_q - h.open_q) / o.close_time
        fingers_of = [[k for k, j in enumerate(h.finger_joints) if j == d] for d in h.drive_joints]
        t_close = 0.0
        while t_close < o.close_time * 1.5 and not all(done):
            touch, _, _ = self.contacts()
            qa = self.q
            for i, (qi, fs) in enumerate(zip(self._drive_idx, fingers_of, strict=True)):
                if done[i]:
                    continue
                if all(touch[k] for k in fs):
                    done[i] = True
                    # from the touch on the drive presses with its (balanced) effort
                    # limit whatever it yields: a target only ``squeeze`` past the touch
                    # stops pressing once the object gives that much (the thumb pushes
                    # it, the lift pulls it)
                    target[qi] = h.closed_q[i] if o.press else (
                        qa[qi] + self._closing[i] * self._squeeze[h.drive_joints[i]])  # fmt: skip
                    events.append((self.world.time, "touch", h.drive_joints[i]))
                else:
                    nxt = target[qi] + self._closing[i] * rate[i] * o.dt
                    lo, hi = sorted((h.open_q[i], h.closed_q[i]))
                    target[qi] = float(np.clip(nxt, lo, hi))
            if h.coupled:
                target = h.follow(target)
            self._tick(target)
            t_close += o.dt
        for _ in range(round(0.2 / o.dt)):  # let the grip settle
            self._tick(target)
        touch, _, _ = self.contacts()
        if not any(touch):
            return self._result(False, "the fingers closed on nothing (the object moved away "
                                f"{knocked[0]:.3f} m during the approach)" if knocked[0] > 0.01
                                else "the fingers closed on nothing", plan, T_rest, events,
                                plan_s, wall0, trace, z_rest)  # fmt: skip
        events.append((self.world.time, "grasp", None))
        q_lift = plan.q_lift.copy()
        fq = h.finger_q_index
        q_lift[fq] = target[fq]
        move(target, q_lift, o.lift_time, phase=2)
        T0 = np.linalg.inv(self.tool_pose()) @ self.object_pose()
        c_loc = self.obj.inertial.com
        p0 = T0[:3, :3] @ c_loc + T0[:3, 3]
        slip = 0.0
        for i in range(round(o.hold / o.dt)):
            self._tick(q_lift)
            Tn = np.linalg.inv(self.tool_pose()) @ self.object_pose()
            slip = max(slip, float(np.linalg.norm(Tn[:3, :3] @ c_loc + Tn[:3, 3] - p0)))
            if i % 5 == 0:
                sample(3)
        T_end = self.object_pose()
        lifted = float((T_end[:3, :3] @ c_loc + T_end[:3, 3])[2] - z_rest)
        events.append((self.world.time, "held" if lifted >= o.lift_success else "dropped", None))
        ok = lifted >= o.lift_success and slip <= o.max_slip
        reason = None
        if not ok:
            if lifted < o.lift_success:
                reason = f"dropped: lifted {lifted:.3f} m (needs {o.lift_success:g})"
            else:
                reason = (f"slipped {slip * 100:.1f} cm in the hand during the {o.hold:g} s "
                          f"hold (at most {o.max_slip * 100:g})")  # fmt: skip
            if bumped[0]:
                reason += "; the hand touched the table on the way in"
            elif knocked[0] > 0.01:
                reason += f"; the approach pushed the object {knocked[0]:.3f} m"
        return self._result(ok, reason, plan, T_rest, events, plan_s, wall0, trace, z_rest,
                            lifted, slip)  # fmt: skip

    def _result(self, ok, reason, plan, T_rest, events, plan_s, wall0, trace, z_rest,  # type: ignore[no-untyped-def]
                lifted=None, slip=0.0) -> TrialResult:  # fmt: skip
        if lifted is None:
            T = self.object_pose()
            lifted = float((T[:3, :3] @ self.obj.inertial.com + T[:3, 3])[2] - z_rest)
        return TrialResult(ok, float(lifted), float(slip), reason, plan, T_rest, tuple(events),
                           plan_s, time.perf_counter() - wall0 - plan_s, self.world.time,
                           np.array(trace).reshape(-1, 6))  # fmt: skip
