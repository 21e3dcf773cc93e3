"""Kinematic mode: the arm paper's grasp algorithm (seed 001, sections 1.3.2 and 2.2),
on our kinematics, one deterministic tick at a time.

Per tick, for each hand:

1. **Move** (the paper's control steps 1-3). Each arm joint moves by
   ``rate * speed * dt`` and each finger by ``±speed * dt`` (the three fingers together;
   their coupled segments follow as mimic joints), clipped to the joint limits. A move
   that would push a fingertip or palm sphere into the floor or a table, a fingertip
   into a ball this hand does not hold, or a carried ball into the floor, a table or the
   other hand's fingertips is cut short exactly where it would start to penetrate
   (bisection along that joint's step) — only that joint's move, not the whole arm. A
   closing finger that already touches the ball does not move. While both hands hold
   the ball, the arms do not move (the paper's moveflag); the fingers still open.
2. **Ball** (algorithm steps 3-5). Held by one hand: ``T_world_ball = T_world_palm @
   T_palm_ball`` with ``T_palm_ball`` saved at the grasp. Held by both: it stays put.
   Held by none: it falls (:func:`robotsim.hands.ball.fall_step`) to the highest surface
   under it — a table or the floor — and rests there.
3. **Touch and grasp** (algorithm steps 1-2). A finger touches when the distance
   between its tip sphere and the ball centre is at most the sum of the radii; the hand
   grasps when all three touch and the thumb–finger spread exceeds the threshold.

Any other object (``HandsScene.obj``) goes through the same steps with its own shape
(:mod:`robotsim.hands.carried`): a tip touches when its sphere reaches the object's
surface, a falling object rests on its lowest point (its orientation kept, as the
paper's ball keeps its own).

Events (``touch``, ``grasp``, ``hold_both``, ``release``, ``landed``) are stamped with
the time at the end of the tick.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from robotsim.errors import InputError
from robotsim.hands.ball import fall_step
from robotsim.hands.commands import ArmCommand, Grip
from robotsim.hands.contact import (
    grasp_ok,
    move_joint_limited,
    sphere_depth,
    support_height,
    thumb_spread,
    touching,
)
from robotsim.hands.scene import HandsScene
from robotsim.hands.state import (
    HandEvent,
    HandsObservable,
    HandsState,
    blank_hands_state,
    grasp_events,
    hands_snapshot,
)
from robotsim.spatial import inv_T

__all__ = ["KinematicHands"]

SIDES = ("L", "R")
_PEN_TOL = 1e-9  # m of penetration a move may add before it is cut short
_BISECT = 40  # halvings of a blocked step (2^-40 of a step: far below touch_tol)


class KinematicHands:
    """The kinematic hands simulation.

    Args:
        scene: robot, ball, tables.
        dt: tick length (s).
    """

    mode = "kinematic"

    def __init__(self, scene: HandsScene, dt: float = 1.0 / 60.0) -> None:
        if not np.isfinite(dt) or dt <= 0:
            raise InputError(f"dt must be > 0 s, got {dt}")
        self.scene = scene
        self.dt = float(dt)
        self.model = scene.robot
        self.layouts = scene.layouts
        m = self.model
        self._arm_idx = {
            s: {role: m.joint_index(j) for role, j in lay.arm_joints.items()}
            for s, lay in self.layouts.items()
        }
        self._finger_idx = {
            s: [m.joint_index(j) for j in lay.finger_joints] for s, lay in self.layouts.items()
        }
        self._names = {s: [*lay.tip_frames, lay.palm_frame] for s, lay in self.layouts.items()}
        self._radii = {
            s: np.array([lay.tip_radius] * 3 + [scene.grasp.palm_radius])
            for s, lay in self.layouts.items()
        }
        self.observable = HandsObservable(blank_hands_state())
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Back to t = 0: start configuration, ball at its start position, at rest."""
        self.tick = 0
        self.q = np.array(self.scene.q0, dtype=float)
        self.ball_T = np.array(self.scene.start_pose)
        self.ball_v = np.zeros(3)
        self.grasped = {s: False for s in SIDES}
        self.touch: dict[str, tuple[bool, bool, bool]] = {s: (False, False, False) for s in SIDES}
        self.T_palm_ball = {s: np.eye(4) for s in SIDES}
        self.blocked = {s: False for s in SIDES}
        self.spread = {s: 0.0 for s in SIDES}
        self._landed_since_release = True
        self.ball_surface: str | None = None
        self.ball_resting = False
        self._settle_ball()
        self._update_touch()
        self.observable.reset(self.snapshot())

    @property
    def t(self) -> float:
        return self.tick * self.dt

    @property
    def grasped_by(self) -> tuple[str, ...]:
        return tuple(s for s in SIDES if self.grasped[s])

    @property
    def held_by_both(self) -> bool:
        return all(self.grasped.values())

    def command_q(self) -> np.ndarray:
        """The joint values ``(nq,)``; in kinematic mode they are also the actual ones."""
        return self.q

    def snapshot(self) -> HandsState:
        return hands_snapshot(self, self.ball_v, self.ball_resting, self.ball_surface)

    # -------------------------------------------------------------- geometry
    def world(self, q: np.ndarray, names: list[str]) -> np.ndarray:
        """World poses ``(len(names), 4, 4)`` of frames at configuration ``q``."""
        return self.scene.T_world_robot @ self.model.tree.fk_frames(q, names)

    def palm_pose(self, side: str, q: np.ndarray | None = None) -> np.ndarray:
        """``T_world_palm`` ``(4, 4)`` of one hand."""
        return self.world(self.q if q is None else q, [self.layouts[side].palm_frame])[0]

    def tip_positions(self, side: str, q: np.ndarray | None = None) -> np.ndarray:
        """Fingertip sphere centres ``(3, 3)`` (m, world), thumb last."""
        names = list(self.layouts[side].tip_frames)
        return self.world(self.q if q is None else q, names)[:, :3, 3]

    def _violation(self, side: str, q: np.ndarray) -> float:
        """Deepest penetration (m) the hand of ``side`` would cause at ``q``."""
        sc = self.scene
        T = self.world(q, self._names[side])
        centres = T[:, :3, 3]
        worst = float(sphere_depth(centres, self._radii[side], sc.tables).max())
        obj, r_tip = sc.carried, self.layouts[side].tip_radius
        carrying = self.grasped[side] and not self.held_by_both
        if carrying:
            T_obj = T[3] @ self.T_palm_ball[side]
            worst = max(worst, obj.support_depth(T_obj, sc.tables))
            other = "R" if side == "L" else "L"
            tips = self.tip_positions(other, q)
            r_other = self.layouts[other].tip_radius
            worst = max(worst, float(obj.tip_depths(tips, r_other, T_obj).max()))
        elif not self.grasped[side]:
            d = obj.tip_depths(centres[:3], r_tip, self.ball_T)
            worst = max(worst, float(d.max()))
        return worst

    def _move_joint(self, side: str, i: int, dq: float) -> bool:
        """Move joint ``i`` by ``dq`` within limits, as far as it may go; True if cut."""
        m = self.model
        target = float(np.clip(self.q[i] + dq, m.lower[i], m.upper[i]))
        self.q, cut = move_joint_limited(
            self.q, i, target, lambda q: self._violation(side, q), _PEN_TOL, _BISECT
        )
        return cut

    # ------------------------------------------------------------------ tick
    def step(self, commands: Mapping[str, ArmCommand] | None = None) -> tuple[HandEvent, ...]:
        """Advance one tick with per-side commands (a missing side stays still);
        returns the events of this tick (also published with the new state)."""
        commands = dict(commands or {})
        for side in commands:
            if side not in SIDES:
                raise InputError(f"command for unknown hand {side!r}; valid: {list(SIDES)}")
        dt = self.dt
        can_move = not self.held_by_both
        for side in SIDES:
            cmd = commands.get(side)
            self.blocked[side] = False
            if cmd is None or cmd.idle:
                continue
            cut = False
            if can_move:
                # shoulder to wrist (the paper's table order): a lift moves first, so a
                # carried object does not dip a corner into the table it leaves
                for role in self._arm_idx[side]:
                    rate = cmd.rates.get(role, 0.0)
                    if rate:
                        cut |= self._move_joint(
                            side, self._arm_idx[side][role], rate * cmd.speed * dt
                        )
            if cmd.grip is not Grip.HOLD:
                lay = self.layouts[side]
                for k, i in enumerate(self._finger_idx[side]):
                    if cmd.grip is Grip.CLOSE and self.touch[side][k]:
                        continue  # the paper: a touching finger stops closing
                    dq = int(cmd.grip) * lay.closing[k] * cmd.speed * dt
                    cut |= self._move_joint(side, i, dq)
            self.blocked[side] = cut
        self.tick += 1
        events: list[HandEvent] = []
        self._move_ball(events)
        self._update_grasp(events)
        state = self.snapshot()
        out = tuple(events)
        self.observable.publish(state, out)
        return out

    def _move_ball(self, events: list[HandEvent]) -> None:
        by = self.grasped_by
        if len(by) == 1:
            self.ball_T = self.palm_pose(by[0]) @ self.T_palm_ball[by[0]]
            return
        if by:
            return  # held by both: stays still
        if self.ball_resting:
            return
        sc = self.scene
        p = self.ball_T[:3, 3]
        low = sc.carried.rest_height(self.ball_T)
        top, name = support_height(p[:2], p[2] - low, sc.tables)
        res = fall_step(p[2], self.ball_v[2], self.dt, top + low, sc.gravity, sc.ball.bounce)
        self.ball_T[2, 3] = res.z
        self.ball_v = np.array([0.0, 0.0, res.vz])
        if res.impacts and not self._landed_since_release:
            self._landed_since_release = True
            events.append(HandEvent(self.t, "landed", None, name))
        if res.resting:
            self.ball_resting = True
            self.ball_surface = name

    def _settle_ball(self) -> None:
        """At reset: a ball placed on a surface rests there; one in the air falls."""
        sc = self.scene
        p = self.ball_T[:3, 3]
        low = sc.carried.rest_height(self.ball_T)
        top, name = support_height(p[:2], p[2] - low, sc.tables)
        if abs(p[2] - low - top) <= 1e-9:
            self.ball_resting, self.ball_surface = True, name
        else:
            self._landed_since_release = False

    def _update_touch(self) -> None:
        sc = self.scene
        for side in SIDES:
            lay = self.layouts[side]
            tips = self.tip_positions(side)
            d = sc.carried.tip_depths(tips, lay.tip_radius, self.ball_T)
            t1, t2, t3 = (bool(b) for b in touching(d, sc.grasp.touch_tol))
            self.touch[side] = (t1, t2, t3)
            self.spread[side] = thumb_spread(tips, lay.thumb)

    def _update_grasp(self, events: list[HandEvent]) -> None:
        t = self.t
        before_touch = dict(self.touch)
        before = dict(self.grasped)
        self._update_touch()
        for side in SIDES:
            lay = self.layouts[side]
            for k in range(3):
                if self.touch[side][k] and not before_touch[side][k]:
                    finger = lay.finger_joints[k]
                    events.append(HandEvent(t, "touch", side, finger))
        now = {s: grasp_ok(self.touch[s], self.spread[s], self.scene.min_spread) for s in SIDES}
        events += grasp_events(t, before, now)
        self.grasped = now
        for side in SIDES:
            if now[side] and (not before[side] or sum(before.values()) != sum(now.values())):
                # New grasp, or the other hand let go: re-anchor (the ball did not move).
                self.T_palm_ball[side] = inv_T(self.palm_pose(side)) @ self.ball_T
        if any(now.values()):
            self.ball_v = np.zeros(3)
            self.ball_resting = False
            self.ball_surface = None
        elif any(before.values()):
            self._landed_since_release = False
            self.ball_v = np.zeros(3)
            self._settle_ball_after_release()

    def _settle_ball_after_release(self) -> None:
        sc = self.scene
        p = self.ball_T[:3, 3]
        low = sc.carried.rest_height(self.ball_T)
        top, name = support_height(p[:2], p[2] - low, sc.tables)
        if p[2] - low - top <= 1e-9:
            self.ball_resting, self.ball_surface = True, name
            self._landed_since_release = True
        else:
            self.ball_resting, self.ball_surface = False, None
