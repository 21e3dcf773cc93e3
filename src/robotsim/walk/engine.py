"""The walk generated online: velocity commands, a goal, stop, and re-anchoring.

:class:`WalkEngine` makes the same walk as :func:`robotsim.walk.pattern.generate_walk`
tick by tick, so a walk can be steered while it runs (the studio's keys and gamepad,
UDP ``set_base_velocity``, like NAO's ``moveToward``) and corrected by what the robot
really does:

- **commands**: :meth:`set_velocity` ``(vx, vy, wz)`` (body frame, m/s, m/s, rad/s):
  the steps not yet lifted are replanned with the new increments (``(vx, vy, wz) T``
  per step, clamped to the step limits; sideways step-and-close, open-and-close turns,
  :mod:`robotsim.walk.footsteps`); a zero command brings the feet side by side and the
  weight back between them, and the robot stands; :meth:`set_goal` walks to a pose
  (forward, left, turn from the walk frame where it was given) at a mean speed and
  stops there;
- **the pattern**: footsteps are planned at least one preview horizon ahead (the
  current command is assumed to hold); each tick the ZMP reference over the horizon
  feeds one step of the preview controller (Kajita et al. 2003), the swing feet follow
  :mod:`robotsim.walk.swing` and whole-body IK gives the joints;
- **re-anchoring** (:meth:`reanchor`): when a foot lands, the caller may say where it
  really is (a simulation's or a robot's estimate); the engine's world (feet, CoM, plan)
  moves onto it, so a slipped foot is where the walk goes on from and a goal is reached
  where it lies, not where the slip put it (step adjustment by replanning).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from robotsim.walk.biped import Biped
from robotsim.walk.footsteps import LEFT, RIGHT, compose, relative, step_increment, walk_frame
from robotsim.walk.momentum import swing_momentum_gains, zmp_shift
from robotsim.walk.params import Resolved, WalkParams, resolve_params
from robotsim.walk.pattern import bent_seed, heading_R, standing_feet
from robotsim.walk.plan import DOUBLE, TimedStep
from robotsim.walk.preview import preview_gains
from robotsim.walk.swing import Ground, foot_T, swing_poses
from robotsim.walk.wbik import WholeBodyIK

__all__ = ["Reference", "WalkEngine"]

#: a walk started from standing holds the ZMP still this many pendulum time constants
#: (``1 / omega``) before the weight shift begins, so the preview controller sees the
#: shift coming and starts the CoM smoothly (started at once, the CoM had to reach the
#: pendulum's speed within a few ticks: 0.45 m/s sideways in 30 ms on a 1 m humanoid)
START_HOLD = 1.0

#: a goal that turns and whose heading is still off by more than this (rad) when its
#: steps are taken (the stance feet slipped in yaw after the turn limit had spread the
#: turn) gets more pairs of steps, at most :data:`EXTRA_PAIRS`: the heading is closed
#: in the loop
HEADING_TOL = math.radians(2.0)
EXTRA_PAIRS = 3


@dataclass(frozen=True)
class Reference:
    """The engine's nominal walk at time ``t`` (world frame): soles ``feet`` (2, 4, 4),
    CoM ``com`` (3,) and ``com_vel`` (3,), ZMP ``zmp`` (2,), torso orientation
    ``R_torso`` (3, 3), ``support`` (0 left, 1 right, 2 both)."""

    t: float
    feet: np.ndarray
    com: np.ndarray
    com_vel: np.ndarray
    zmp: np.ndarray
    R_torso: np.ndarray
    support: int


class WalkEngine:
    """Online walk generation for one biped (module docs). Starts standing, crouched,
    its walk frame at the origin heading +x. ``tick()`` advances ``dt`` and returns the
    :class:`Reference`; ``solve()`` gives the joints for it (or corrected targets)."""

    def __init__(
        self, biped: Biped, params: WalkParams | None = None, ground: Ground | None = None
    ) -> None:
        from robotsim.walk.params import CROUCHES

        p = params or WalkParams()
        if p.crouch is None and p.com_height is None:
            p = p.with_(crouch=CROUCHES[-2] * biped.leg_length)  # room for any step
        self.biped = biped
        self.res: Resolved = resolve_params(biped, p)
        self.ground = ground or Ground()
        res = self.res
        self.dt = res.dt
        self.gains = preview_gains(res.dt, res.com_height, res.preview, res.qe, res.r)
        self.N = self.gains.horizon
        self.t = 0.0
        self.rest = standing_feet(biped, p.half_width)  # where each foot stands now
        self.planned = self.rest.copy()  # where each foot stands after the planned steps
        self.Q = walk_frame(self.rest)  # the walk frame after the planned steps
        # each foot's place in the walk frame when the feet are side by side: where it
        # stands now (a robot's soles may stand a few mm apart along x, or turned: its
        # own stance, not a reason for steps), at the walk's half width
        self._stance = np.array([relative(self.Q, self.rest[k]) for k in (0, 1)])
        self._stance[:, 1] = (self.res.half_width, -self.res.half_width)
        self.steps: list[TimedStep] = []
        self.knots_t: list[float] = [0.0]
        self.knots_xy: list[np.ndarray] = [self._mid(self.rest)]
        self.next_lift = 0.0
        #: when the start hold ends (s): a walk started from standing shifts its weight
        #: from then (:data:`START_HOLD`); replans before the first lift keep it
        self.hold_until = 0.0
        self.command = (0.0, 0.0, 0.0)
        self.goal: np.ndarray | None = None
        self.goal_pairs = 0
        self._goal_steps = 0
        self._extra_pairs = 0
        self._goal_turns = False
        self._goal_lifts: set[float] = set()  # lift times of the planned goal steps
        self._pair_inc: tuple[float, float, float] | None = None
        self._frames: dict[float, np.ndarray] = {}  # walk frame after each step, by lift time
        self.x = np.zeros((3, 2))
        self.x[0] = self.knots_xy[0]
        self.sum_e = np.zeros(2)
        self.ik = WholeBodyIK(biped, tol=1e-9, max_iter=8)
        ref = self._reference()
        T0 = np.eye(4)
        T0[:3, :3] = ref.R_torso
        T0[:3, 3] = ref.com + np.array([0.0, 0.0, biped.sole_height - biped.com_height])
        big = WholeBodyIK(biped, max_iter=200)
        self.q, self.T, err = big.solve(ref.feet, ref.com, ref.R_torso, bent_seed(biped), T0)
        if max(err[0], err[2]) > 1e-6:
            from robotsim.errors import KinematicsError

            raise KinematicsError(
                f"{biped.name}: cannot stand crouched at the walking height "
                f"{res.com_height:.3f} m (IK misses by {max(err[0], err[2]) * 1e3:.2g} mm)"
            )
        # the legs' momentum shifts the ZMP (momentum.py): the pendulum tracks less that
        self.K = swing_momentum_gains(
            biped, self.ik, ref.feet, ref.com, ref.R_torso, self.q, self.T, res.step_height
        )
        self._shifts: dict[tuple, tuple[int, np.ndarray]] = {}
        self.landed: list[int] = []  # the feet that landed during the last tick
        self.lifted: list[int] = []  # the feet that lifted off during the last tick

    # -- geometry ----------------------------------------------------------------------
    def _centre(self, side: int, pose: np.ndarray) -> np.ndarray:
        c, s = math.cos(pose[2]), math.sin(pose[2])
        cx, cy = self.biped.centres[side]
        return np.array([pose[0] + c * cx - s * cy, pose[1] + s * cx + c * cy])

    def _mid(self, feet: np.ndarray) -> np.ndarray:
        return (self._centre(0, feet[0]) + self._centre(1, feet[1])) / 2

    @property
    def walking(self) -> bool:
        """Whether steps are planned or in progress."""
        return bool(self.steps)

    @property
    def period(self) -> float:
        return self.res.step_period

    # -- commands ----------------------------------------------------------------------
    def set_velocity(self, vx: float, vy: float = 0.0, wz: float = 0.0) -> None:
        """Walk at ``(vx, vy, wz)`` (body frame, m/s, m/s, rad/s) until told otherwise;
        all zero: stop (module docs). Clamped to the step limits."""
        for v in (vx, vy, wz):
            if not math.isfinite(v):
                from robotsim.errors import InputError

                raise InputError(f"walk command ({vx}, {vy}, {wz}): give finite numbers")
        self.goal = None
        self.command = (float(vx), float(vy), float(wz))
        self._replan()

    def stop(self) -> None:
        """Bring the feet together and stand (the same as a zero velocity)."""
        self.set_velocity(0.0, 0.0, 0.0)

    def set_goal(self, distance: float, lateral: float = 0.0, turn: float = 0.0,
                 pairs: int | None = None) -> None:  # fmt: skip
        """Walk to ``(distance, lateral, turn)`` from the current walk frame (m, m, rad)
        in ``pairs`` pairs of steps (default: the fewest the limits allow) and stop."""
        from robotsim.walk.footsteps import pairs_needed

        self._cut_future()
        self.goal = compose(self.Q, np.array([distance, lateral, turn]))
        self.goal_pairs = max(pairs_needed(self.res, distance, lateral, turn), pairs or 0)
        self._goal_steps = 0
        self._extra_pairs = 0
        # only a goal that turns closes its heading with more steps (a straight walk's
        # small drift is not worth the steps: its speed would drop)
        self._goal_turns = abs(turn) > 1e-9 and self.res.max_turn > 0
        self._goal_lifts = set()
        self.command = (0.0, 0.0, 0.0)
        self._plan_ahead()

    # -- planning ----------------------------------------------------------------------
    def _cut_future(self) -> None:
        """Drop the steps not yet lifted (and their ZMP knots); the plan then ends with
        the step in progress, if any."""
        keep = [s for s in self.steps if s.t_lift <= self.t + 1e-9]
        dropped = [s for s in self.steps if s.t_lift > self.t + 1e-9]
        self._goal_steps -= sum(1 for s in dropped if s.t_lift in self._goal_lifts)
        self._goal_lifts -= {s.t_lift for s in dropped}
        self.steps = keep
        self._pair_inc = None
        self.planned = self.rest.copy()
        for s in keep:
            self.planned[s.side] = s.pose
        self.Q = walk_frame(self.planned) if not keep else self.Q_after(keep)
        hold = 0.0
        if not keep:
            if not any(t > self.t + 1e-9 for t in self.knots_t):  # the ZMP at rest
                self.hold_until = self.t + START_HOLD / self.res.omega
            # a replan within the hold (a command re-sent: a slider dragged, UDP
            # set_base_velocity streamed) keeps the hold's end, not a fresh or no hold
            hold = max(self.hold_until - self.t, 0.0)
            if hold < 1e-9:
                hold = 0.0
        if keep:
            last = keep[-1]
            cut = last.t_land
            self.next_lift = last.t_land + self.res.t_double
        else:
            cut = self.t
            # a weight shift before the first lift, after a hold the preview sees ahead
            self.next_lift = self.t + hold + self.period
        n = sum(1 for t in self.knots_t if t <= cut + 1e-12)
        del self.knots_t[n:], self.knots_xy[n:]
        if not keep:  # standing: the ZMP holds where it is now until the shift
            here = self._zmp_at(self.t) if n else self._mid(self.rest)
            self.knots_t += [self.t, self.t + hold] if hold > 0 else [self.t]
            self.knots_xy += [here, here] if hold > 0 else [here]

    def Q_after(self, steps: list[TimedStep]) -> np.ndarray:
        """The walk frame after ``steps``: the one their last step was placed beside."""
        return self._frames.get(steps[-1].t_lift, walk_frame(self.planned))

    def _replan(self) -> None:
        self._cut_future()
        self._plan_ahead()

    def _new_increment(self, side: int) -> tuple[float, float, float] | None:
        """How the walk frame moves with the next step, of foot ``side``; ``None`` when
        the walk should close and stop. Velocity: the command's increment, the sideways
        and turning parts doubled on the steps of the foot on their side (zero on the
        other's; :func:`~robotsim.walk.footsteps.step_increment`). Goal: what remains,
        forward over the steps that remain, sideways and turning over the remaining
        steps of the foot on their side."""
        if self.goal is not None:
            r = relative(self.Q, self.goal)
            if math.hypot(r[0], r[1]) < 1e-4 and abs(r[2]) < 1e-3:
                return None
            left = 2 * self.goal_pairs - self._goal_steps
            if left <= 0:
                # the steps are taken: the closing steps finish it, unless the stance
                # feet slipped the heading off by more than HEADING_TOL: more pairs
                more = min(math.ceil(abs(r[2]) / max(self.res.max_turn, 1e-9)),
                           EXTRA_PAIRS - self._extra_pairs)  # fmt: skip
                if abs(r[2]) <= HEADING_TOL or not self._goal_turns or more <= 0:
                    return None
                self._extra_pairs += more
                self.goal_pairs += more
                left = 2 * more

            def part(value: float) -> float:
                if abs(value) < 1e-12:
                    return 0.0
                mine = (LEFT if value > 0 else RIGHT) == side
                if not mine:
                    return 0.0
                return value / ((left + 1) // 2)  # this foot's steps that remain

            res = self.res
            # within the step limits (a robot that cannot turn keeps its heading)
            dx = min(max(r[0] / left, -0.5 * res.max_step_length), res.max_step_length)
            dy = min(max(part(r[1]), -res.max_step_side), res.max_step_side)
            dth = min(max(part(r[2]), -res.max_turn), res.max_turn)
            return (dx, dy, dth)
        vx, vy, wz = self.command
        if vx == 0 and vy == 0 and wz == 0:
            return None
        from robotsim.walk.footsteps import clamp_increment

        T = self.period
        return step_increment(side, clamp_increment(self.res, (vx * T, vy * T, wz * T)))

    def _plan_ahead(self) -> None:
        """Plan steps until the preview horizon is covered (or the walk closes)."""
        horizon = self.t + (self.N + 2) * self.dt + self.period
        while self.next_lift < horizon:
            side = self._next_side()
            inc = self._new_increment(side)
            self._pair_inc = inc
            if inc is None:
                if not self._close_step():
                    break
                continue
            self.Q = compose(self.Q, np.array(inc))
            pose = compose(self.Q, self._stance[side])
            self._append(side, pose)
            if self.goal is not None:
                self._goal_steps += 1
                self._goal_lifts.add(self.steps[-1].t_lift)
        self._finish_if_closed()

    def _next_side(self) -> int:
        """The foot that steps next: the other foot than the last step's; to start, the
        foot on the side of the goal or command (sideways first, then turning), else
        the left."""
        if self.steps:
            return 1 - self.steps[-1].side
        if self.goal is not None:
            r = relative(self.Q, self.goal)
            dy, dth = r[1], r[2]
        else:
            dy, dth = self.command[1], self.command[2]
        if abs(dy) > 1e-12:
            return LEFT if dy > 0 else RIGHT
        if abs(dth) > 1e-12:
            return LEFT if dth > 0 else RIGHT
        return LEFT

    def _close_step(self) -> bool:
        """A step that puts a foot beside the walk frame (feet side by side); False when
        they already are."""
        first = self._next_side()
        for side in (first, 1 - first):
            target = compose(self.Q, self._stance[side])
            d = relative(self.planned[side], target)
            if math.hypot(d[0], d[1]) > 1e-4 or abs(d[2]) > 1e-3:
                self._append(side, target)
                return True
        return False

    def _append(self, side: int, pose: np.ndarray) -> None:
        res = self.res
        stance = 1 - side
        c = self._centre(stance, self.planned[stance])
        t_lift = self.next_lift
        t_land = t_lift + res.t_single
        self.knots_t += [t_lift, t_land]
        self.knots_xy += [c, c]
        self.steps.append(
            TimedStep(
                side,
                tuple(float(v) for v in self.planned[side]),
                tuple(float(v) for v in pose),
                t_lift,
                t_land,
            )
        )
        self.planned[side] = pose
        self._frames[t_lift] = self.Q.copy()
        self.next_lift = t_land + res.t_double

    def _finish_if_closed(self) -> None:
        """After the last planned step of a stop, the ZMP returns between the feet."""
        if self._pair_inc is None and self.steps and not self._open_feet():
            t_end = self.steps[-1].t_land + self.period
            if self.knots_t[-1] < t_end - 1e-12:
                self.knots_t.append(t_end)
                self.knots_xy.append(self._mid(self.planned))

    def _open_feet(self) -> bool:
        for side in (0, 1):
            target = compose(self.Q, self._stance[side])
            d = relative(self.planned[side], target)
            if math.hypot(d[0], d[1]) > 1e-4 or abs(d[2]) > 1e-3:
                return True
        return False

    # -- the walk ----------------------------------------------------------------------
    def _zmp_at(self, t: float | np.ndarray) -> np.ndarray:
        kt = np.asarray(self.knots_t)
        kp = np.asarray(self.knots_xy)
        tt = np.asarray(t, dtype=np.float64)
        return np.stack([np.interp(tt, kt, kp[:, 0]), np.interp(tt, kt, kp[:, 1])], axis=-1)

    def _feet_at(self, t: float) -> tuple[np.ndarray, int]:
        xy = self.rest.copy()
        z = self.ground.z(xy[:, 0], xy[:, 1]).astype(np.float64)
        support = DOUBLE
        for s in self.steps:
            if s.t_lift < t < s.t_land:
                u = (t - s.t_lift) / (s.t_land - s.t_lift)
                p, h = swing_poses(
                    s.start, s.pose, np.array([u]), self.res.step_height, self.ground
                )
                xy[s.side], z[s.side] = p[0], h[0]
                support = 1 - s.side
        return foot_T(xy, z, self.ground.tilt()), support

    def _step_shift(self, s: TimedStep) -> tuple[int, np.ndarray]:
        """``(k0, shift (m, 2))``: the ZMP shift (momentum.py) of step ``s``'s swing at
        the samples ``k0 .. k0 + m - 1`` (times ``k dt``); cached by the step's poses and
        times (a replanned or re-anchored step is a new one)."""
        key = (s.side, s.start, s.pose, s.t_lift, s.t_land)
        got = self._shifts.get(key)
        if got is not None:
            return got
        dt = self.dt
        k0 = round(s.t_lift / dt) - 2
        k1 = round(s.t_land / dt) + 2
        times = np.arange(k0, k1 + 1) * dt
        xy = np.repeat(np.asarray(s.start, dtype=np.float64)[None], len(times), axis=0)
        xy[times >= s.t_land] = s.pose
        lift = np.zeros(len(times))
        during = (times > s.t_lift) & (times < s.t_land)
        if during.any():
            u = (times[during] - s.t_lift) / (s.t_land - s.t_lift)
            pp, h = swing_poses(s.start, s.pose, u, self.res.step_height, self.ground)
            xy[during] = pp
            lift[during] = h - self.ground.z(pp[:, 0], pp[:, 1])
        xyz = np.zeros((len(times), 2, 3))
        yaw = np.zeros((len(times), 2))
        xyz[:, s.side] = np.column_stack([xy[:, :2], self.ground.z(xy[:, 0], xy[:, 1]) + lift])
        yaw[:, s.side] = xy[:, 2]
        got = (k0 + 1, zmp_shift(self.K, self.biped.mass, xyz, yaw, dt))
        if len(self._shifts) > 256:
            self._shifts.clear()
        self._shifts[key] = got
        return got

    def _window_shift(self) -> np.ndarray:
        """The ZMP shift ``(N + 1, 2)`` over the preview window from now."""
        out = np.zeros((self.N + 1, 2))
        k_now = round(self.t / self.dt)
        for s in self.steps:
            k0, sh = self._step_shift(s)
            a, b = max(k0, k_now), min(k0 + len(sh), k_now + self.N + 1)
            if a < b:
                out[a - k_now : b - k_now] += sh[a - k0 : b - k0]
        return out

    def _reference(self) -> Reference:
        feet, support = self._feet_at(self.t)
        ya = math.atan2(feet[0, 1, 0], feet[0, 0, 0])
        yb = math.atan2(feet[1, 1, 0], feet[1, 0, 0])
        yaw = ya + ((yb - ya + math.pi) % (2 * math.pi) - math.pi) / 2
        com = np.array([self.x[0, 0], self.x[0, 1], 0.0])
        com[2] = float(self.ground.z(com[0], com[1])) + self.res.com_height
        vel = np.array([self.x[1, 0], self.x[1, 1], 0.0])
        vel[2] = self.ground.slope_x * vel[0] + self.ground.slope_y * vel[1]
        return Reference(
            t=self.t,
            feet=feet,
            com=com,
            com_vel=vel,
            zmp=self._zmp_at(self.t),
            R_torso=heading_R(self.biped, np.array([yaw]))[0],
            support=support,
        )

    def reference(self) -> Reference:
        """The nominal walk now."""
        return self._reference()

    def tick(self) -> Reference:
        """Advance one sample (``dt``) and return the nominal walk at the new time."""
        from robotsim.walk._preview_kernel import preview_step

        self._plan_ahead()
        g = self.gains
        window = self._zmp_at(self.t + self.dt * np.arange(self.N + 1))
        if self.steps:
            window = window - self._window_shift()
        preview_step(
            self.x, self.sum_e, np.ascontiguousarray(window), g.A, g.B, g.C, g.Gi, g.Gx, g.Gp
        )
        t0 = self.t
        self.t += self.dt
        self.landed, self.lifted = [], []
        for s in self.steps:  # landings passed: the foot rests there
            if t0 + 1e-9 < s.t_land <= self.t + 1e-9:
                self.rest[s.side] = s.pose
                self.landed.append(s.side)
            if t0 + 1e-9 < s.t_lift <= self.t + 1e-9:
                self.lifted.append(s.side)
        # forget steps landed more than a period ago, and old ZMP knots
        while len(self.steps) > 1 and self.steps[0].t_land < self.t - self.period:
            self._frames.pop(self.steps.pop(0).t_lift, None)
        if self.steps and self.steps[-1].t_land < self.t - self.period and not self._open_feet():
            self._frames.clear()
            self.steps.clear()  # stood still for a period: standing
            self.goal = None
        while len(self.knots_t) > 2 and self.knots_t[1] < self.t - 1.0:
            del self.knots_t[0], self.knots_xy[0]
        return self._reference()

    def solve(
        self, ref: Reference, com: np.ndarray | None = None, R_torso: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(q, T_world_root)`` for ``ref`` (or its CoM and torso replaced by corrected
        targets), warm-started from the last solution."""
        c = ref.com if com is None else com
        R = ref.R_torso if R_torso is None else R_torso
        self.q, self.T, _ = self.ik.solve(ref.feet, c, R, self.q, self.T)
        return self.q, self.T

    # -- feedback ----------------------------------------------------------------------
    def reanchor(
        self, side: int, measured: tuple[float, float, float], yaw_gain: float = 1.0
    ) -> None:
        """Foot ``side``, standing, is at ``measured`` (x, y, yaw) rather than where it
        was planned: move the engine's world onto it (module docs). Call when the foot
        carries the robot alone (the other just lifted): it has settled and slips no
        more. The position moves fully (at most a quarter leg length), the yaw by
        ``yaw_gain`` of its error (at most 10 deg). Half the yaw (as once, lest the
        body's sway in a foot's yaw be chased) left half of every slip unwalked: Unitree's
        H1 file turned 74.9 of 90 deg; with all of it 82.3, and NAO's, OP3's files and
        a 44 kg URDF humanoid walk 2 m within 0.7 deg of their heading (were up to 2.2)."""
        if self.res.max_turn <= 0:
            # a robot that cannot turn cannot steer back onto a goal either: chasing a
            # slipped foot sideways only adds sideways steps (humanoid17 fell so);
            # its steps follow the plan
            return
        planned = self.rest[side]
        m = np.asarray(measured, dtype=np.float64)
        lim = 0.25 * self.biped.leg_length
        d = m[:2] - planned[:2]
        n = float(np.linalg.norm(d))
        if n > lim:
            m = m.copy()
            m[:2] = planned[:2] + d * lim / n
        dyaw = (m[2] - planned[2] + math.pi) % (2 * math.pi) - math.pi
        dyaw = max(-math.radians(10), min(math.radians(10), yaw_gain * dyaw))
        m = np.array([m[0], m[1], planned[2] + dyaw])
        c, s = math.cos(dyaw), math.sin(dyaw)
        R = np.array([[c, -s], [s, c]])
        # the rigid motion taking the planned pose onto the measured one
        shift = m[:2] - R @ planned[:2]

        def move(p: np.ndarray) -> np.ndarray:
            out = np.array(p, dtype=np.float64)
            out[:2] = R @ out[:2] + shift
            if out.shape[0] > 2:
                out[2] += dyaw
            return out

        self.rest = np.array([move(f) for f in self.rest])
        self.planned = np.array([move(f) for f in self.planned])
        self.Q = move(self.Q)
        self._frames = {k: move(v) for k, v in self._frames.items()}
        self.steps = [
            TimedStep(
                st.side,
                tuple(move(np.array(st.start))),
                tuple(move(np.array(st.pose))),
                st.t_lift,
                st.t_land,
            )
            for st in self.steps
        ]
        self.knots_xy = [R @ k + shift for k in self.knots_xy]
        self.x[0] = R @ self.x[0] + shift
        self.x[1] = R @ self.x[1]
        self.x[2] = R @ self.x[2]
        # the integral of the ZMP error is a direction too
        self.sum_e = R @ self.sum_e
        Rz = np.eye(4)
        Rz[:2, :2] = R
        Rz[:2, 3] = shift
        self.T = Rz @ self.T
        if self.goal is not None:
            self._replan()
