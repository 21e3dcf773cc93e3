"""A hand-to-hand transfer planned from the object's geometry (issue #24, item 4).

The shipped ``hand_ball_transfer`` script's joint targets were fitted to its 6 cm ball;
``script: planned`` plans every move from the object instead, phase by phase, each
phase from where the previous one really left the object (the steps are played by the
same :class:`robotsim.hands.script.ScriptPlayer`, in either mode):

1. **first grasp**: the giving hand (the one whose shoulder is nearer the object) gets
   a grasp from :class:`robotsim.grasp.planner.Planner` on the object where it lies
   (candidates on its surface, reachable, clear of the table and the other arm): the
   fingers take the planned pre-shape, the arm goes to the pre-grasp and in (joints
   moving together: the straight line the planner checked), the fingers close to touch,
   the arm lifts;
2. **hand-over pose**: the giver brings the object to a point between the shoulders,
   in front of them, its approach axis pointing down, so that the part of the object
   its fingers leave free faces down; of a few such points (nearest the shoulders'
   height first) the first where the arm reaches and the receiving hand has a grasp
   (step 3, planned on the predicted object pose) is taken;
3. **second grasp**: once there, the receiver's grasp is planned again on the object's
   measured pose (any approach direction; clear of the giver's arm and hand): pre-shape,
   pre-grasp, in, close to touch, a measured settle while both hold;
4. the giver opens, backs off along its approach and returns to its start pose;
5. the receiver holds the object alone (the verdict's 2 s), then opens to drop it.

A phase that cannot be planned ends the run; the verdict then names that phase and the
planner's reason (:meth:`PlannedTransfer.verdict`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from robotsim.errors import ScenarioError
from robotsim.grasp.collide import moving_links
from robotsim.grasp.hand import GraspHand, grasp_hands, link_points
from robotsim.grasp.planner import GraspPlan, Planner, PlanOptions
from robotsim.grasp.reach import reach
from robotsim.grasp.setup import arm_reach
from robotsim.hands.layout import ARM_ROLES
from robotsim.hands.run import run_hand_kind, run_hand_scenario
from robotsim.hands.scene import HandsScene
from robotsim.hands.script import HandsSim, ScriptResult, ScriptStep
from robotsim.objects.query import signed_distance
from robotsim.run_io import RunOptions, opened_recorder

__all__ = ["PlannedTransfer", "run_planned_transfer", "run_transfer_kind"]

SETTLE = 0.3  # s: after arriving around the object, and while both hands hold
BACK_OFF = 0.08  # m: the giver's retreat along its approach after letting go
# m: the receiving hand's clearance from the giving hand (between points sampled on their
# surfaces); 0: their fingers may interleave around the object, as in the paper's
# hand-over (the physics has no contacts between the robot's own links)
HAND_MARGINS = (0.004, 0.0)
# the giver's plans, first that exists: (the closed hand clear of the table too, the
# fingertips' clearance above it, m, the lift, m; -0.002: the planner's own, may brush it)
GIVER_TRIES = ((True, 0.002, 0.08), (True, 0.0005, 0.08), (True, -0.002, 0.08),
               (False, 0.002, 0.08), (False, 0.0005, 0.08), (False, -0.002, 0.08),
               (False, -0.002, 0.04))  # fmt: skip
HOLD_EXTRA = 0.5  # s: held alone beyond the verdict's hold before the drop
ATTEMPTS = 2  # closes per grasp: a hand that closed on too few fingers plans once more
# the hand-over points' heights below the shoulders (fractions of the arm's reach), and
# how far above its start the object must be there (m)
HANDOVER_DROPS = (0.05, 0.15, 0.25)
LIFTED = 0.12
STEP_LIMIT = 10.0  # s: the moves' and opens' time limit (ScriptStep's default max_time)
HAND_LIMIT = 3.0  # s: the time limit of a pre-shape, a close, the drop's fall
PATH_STEP = 0.04  # rad: the spacing of the collision checks along a move to a pre-grasp
SWEEP_POINTS = 600  # points on each moving link's hull for the moves' object check
SWEEP_MARGIN = 0.003  # m: the clearance the moves keep from the object
# detours to a pre-grasp whose straight joint-space move would sweep the hand or arm
# through the object: via points backed off along the approach by these multiples of
# the pre-grasp's own back-off (joint space, linearised), the first clear one taken
DETOUR_BACKS = (1.0, 2.0, 3.0)


def _side_hands(scene: HandsScene) -> dict[str, GraspHand]:
    hands = grasp_hands(scene.robot)
    out = {}
    for side, lay in scene.layouts.items():
        for h in hands.values():
            if lay.arm_joints["shoulder_x"] in h.arm_joints:
                out[side] = h
    if set(out) != {"L", "R"}:
        raise ScenarioError("script: planned needs a hand on each arm in the robot's profile")
    return out


class PlannedTransfer:
    """The steps of a planned transfer (module docstring), given phase by phase to
    :func:`robotsim.hands.run.run_hand_scenario` (a ``StepSource``).

    Args:
        scene: the hands scene with an ``object``.
        seed: the planners' random samples.
        hold: the hold the verdict asks for (s).
    """

    def __init__(self, scene: HandsScene, seed: int = 0, hold: float = 2.0) -> None:
        if scene.obj is None:
            raise ScenarioError("script: planned needs object: (the ball's transfer is scripted)")
        self.scene = scene
        self.obj = scene.obj
        self.hold = hold
        self.rng = np.random.default_rng(seed)
        self.hands = _side_hands(scene)
        m = scene.robot
        T = scene.T_world_robot
        shoulder = {s: (T @ np.append(m.fk(scene.q0, m.joint(h.arm_joints[0]).child)[:3, 3], 1))[:3]
                    for s, h in self.hands.items()}  # fmt: skip
        p_obj = scene.start_pose[:3, 3]
        d = {s: float(np.linalg.norm((p_obj - c)[:2])) for s, c in shoulder.items()}
        self.giver = min(d, key=d.get)  # type: ignore[arg-type]
        self.receiver = "R" if self.giver == "L" else "L"
        self.shoulder = shoulder
        self.phase = "first grasp"
        self.failed: str | None = None
        self.report: dict[str, Any] = {"giver": self.giver, "receiver": self.receiver}
        self._second: GraspPlan | None = None
        self._q_over: np.ndarray | None = None
        self._margin = HAND_MARGINS[0]
        self._plans: dict[str, GraspPlan] = {}
        self.attempts = {"first grasp": 0, "second grasp": 0}
        self._cache: dict[str, Any] = {}

    # ------------------------------------------------------------------ StepSource
    def max_seconds(self, duration: float | None) -> float:
        """A bound on the run's length: every step's time limit, in the longest run the
        phases can make (each grasp closing :data:`ATTEMPTS` times)."""
        # a grasp's attempt: pre-shape, pre-grasp, in, settle, close; before each further
        # attempt: open, back to the pre-grasp
        attempt = HAND_LIMIT + 3 * STEP_LIMIT + SETTLE + HAND_LIMIT  # a detour: 3 moves
        retry = 2 * STEP_LIMIT
        grasp = ATTEMPTS * attempt + (ATTEMPTS - 1) * retry
        carry = 2 * STEP_LIMIT  # the lift, the move to the hand-over pose
        # both hold; the giver opens, backs off; the receiver holds alone, opens; the fall
        let_go = SETTLE + 2 * STEP_LIMIT + (self.hold + HOLD_EXTRA) + STEP_LIMIT + HAND_LIMIT
        total = 2 * grasp + carry + let_go
        return total if duration is None else min(total, duration)

    def next_steps(self, sim: HandsSim, so_far: ScriptResult) -> list[ScriptStep]:
        del so_far  # each phase measures the simulation itself
        if self.phase == "first grasp":
            return self._first(sim)
        if self.phase == "first grasp closed":
            return self._check(sim, self.giver, "first grasp", self._lift)
        if self.phase == "hand-over":
            return self._handover(sim)
        if self.phase == "second grasp":
            return self._take(sim)
        if self.phase == "second grasp closed":
            return self._check(sim, self.receiver, "second grasp", self._let_go)
        return []

    def _check(self, sim: HandsSim, side: str, phase: str, then: Any) -> list[ScriptStep]:
        """After a hand closed: on with ``then`` when it grasps; else (once) open, back
        to the pre-grasp and plan that phase again from where the object is now."""
        if sim.snapshot().hands[side].grasped:
            return then(sim)  # type: ignore[no-any-return]
        self.attempts[phase] += 1
        if self.attempts[phase] >= ATTEMPTS:
            return []  # the verdict names the phase and how many fingers touched
        plan = self._plans[phase]
        assert plan.q_pre is not None
        self.phase = phase
        return [ScriptStep("open", side, label=f"{side} opens: the grasp did not close"),
                ScriptStep("move", side, self._arm_targets(side, plan.q_pre), together=True,
                           label=f"{side} back to the pre-grasp, to plan again")]  # fmt: skip

    def verdict(self, transfer: dict[str, Any]) -> dict[str, Any]:
        out = {**transfer, "planned": self.report}
        if self.failed is not None and not transfer["success"]:
            out["reason"] = self.failed
        return out

    # ------------------------------------------------------------------ helpers
    def _q(self, sim: HandsSim) -> np.ndarray:
        return np.array(getattr(sim, "q", sim.command_q()), float)

    def _planner(
        self, side: str, options: PlanOptions | None = None, arm_margin: float | None = None
    ) -> Planner:
        other = self.hands["R" if side == "L" else "L"]
        p = Planner(self.hands[side], self.scene.T_world_robot, self.scene.tables,
                    other_arms=[other.arm_joints[0]], options=options)  # fmt: skip
        if arm_margin is not None:
            p.collider.arm_margin = arm_margin
        return p

    def _arm_targets(self, side: str, q: np.ndarray) -> dict[str, float]:
        lay = self.scene.layouts[side]
        m = self.scene.robot
        return {r: float(q[m.joint_index(lay.arm_joints[r])]) for r in ARM_ROLES}

    def _fingers(self, side: str, q: np.ndarray) -> float:
        m = self.scene.robot
        return float(np.mean([q[m.joint_index(j)] for j in self.hands[side].drive_joints]))

    def _sweep_points(self, side: str) -> tuple[list[int], list[np.ndarray]]:
        """Dense points on the collision hulls of the arm's moving links (as MuJoCo
        collides them), for the moves' object check: the planner's sparser points may
        straddle the object with a palm's face between them."""
        key = f"sweep {side}"
        if key not in self._cache:
            m = self.scene.robot
            pts = link_points(m, per_link=SWEEP_POINTS, seed=1)
            index = {n: i for i, n in enumerate(m.link_names)}
            links = [lk for lk in moving_links(m, self.hands[side].arm_joints[0]) if lk in pts]
            self._cache[key] = ([index[lk] for lk in links], [pts[lk] for lk in links])
        return self._cache[key]  # type: ignore[no-any-return]

    def _path_hit(
        self, side: str, planner: Planner, qa: np.ndarray, qb: np.ndarray, To: np.ndarray
    ) -> str | None:
        """What the straight joint-space move ``qa`` -> ``qb`` first hits (the object,
        a table, the ground, the other arm), checked every :data:`PATH_STEP` rad; None:
        clear. ``qa`` itself is not checked (the arm is there already)."""
        m, Tb = self.scene.robot, self.scene.T_world_robot
        idx, pts = self._sweep_points(side)
        n = max(2, int(np.ceil(np.max(np.abs(qb - qa)) / PATH_STEP)))
        for a in np.linspace(0.0, 1.0, n + 1)[1:]:
            q = qa + a * (qb - qa)
            c = planner.collider.check(q, self.obj, To)
            if c.hit is not None:
                return c.hit
            Ts = Tb @ m.fk_all(q)[idx]
            P = np.concatenate([p @ T[:3, :3].T + T[:3, 3] for p, T in zip(pts, Ts, strict=True)])
            local = (P - To[:3, 3]) @ To[:3, :3]
            d, _ = signed_distance(self.obj.piece_set, local, far=SWEEP_MARGIN + 0.01)
            if float(d.min()) < SWEEP_MARGIN:
                return "object"
        return None

    def _route(
        self, side: str, planner: Planner, plan: GraspPlan, sim: HandsSim, phase: str
    ) -> list[np.ndarray]:
        """The arm's way to the pre-grasp: straight in joint space when that move keeps
        clear of the object (and the tables, the other arm); else through the first clear
        via point (backed off along the approach, half-way and backed off, the wrist
        first, the upper arm first); else straight, the hit reported. With friction
        alone a hand sweeping through the object on its way knocks it off the table or
        out of the other hand."""
        q_pre = plan.q_pre
        assert q_pre is not None
        m, h = self.scene.robot, self.hands[side]
        cols = [m.joint_index(j) for j in h.arm_joints]
        q_now = self._q(sim)
        qa = q_pre.copy()
        qa[cols] = q_now[cols]
        To = np.asarray(sim.ball_T)
        report = self.report.setdefault("routes", {})
        hit = self._path_hit(side, planner, qa, q_pre, To)
        if hit is None:
            report[phase] = "straight"
            return [q_pre]
        q_g = plan.q_grasp
        assert q_g is not None
        back = np.zeros_like(q_pre)  # the joints' change that backs the hand off the approach
        back[cols] = q_pre[cols] - q_g[cols]
        dist = cols[len(cols) // 2 + 1 :]  # the wrist's joints
        vias: list[tuple[str, np.ndarray]] = []
        for k in DETOUR_BACKS:  # further back along the approach (linearised)
            vias.append((f"{k:g} x the approach back", q_pre + k * back))
        mid = 0.5 * (qa + q_pre)
        for k in DETOUR_BACKS:  # half-way there, backed off the object
            vias.append((f"half-way, {k:g} x the approach back", mid + k * back))
        wrist_first = qa.copy()
        wrist_first[dist] = q_pre[dist]
        vias.append(("the wrist first", wrist_first))
        arm_first = q_pre.copy()
        arm_first[dist] = qa[dist]
        vias.append(("the upper arm first", arm_first))
        tried = []
        for what, qv in vias:
            qv = np.clip(qv, m.lower, m.upper)
            h1 = self._path_hit(side, planner, qa, qv, To)
            h2 = None if h1 else self._path_hit(side, planner, qv, q_pre, To)
            if h1 is None and h2 is None:
                report[phase] = {"straight_hits": hit, "detour": what}
                return [qv, q_pre]
            tried.append(f"{what}: {h1 or h2}")
        report[phase] = {"straight_hits": hit, "detour": None, "tried": tried}
        return [q_pre]

    def _approach_steps(
        self, side: str, plan: GraspPlan, what: str, route: list[np.ndarray] | None = None
    ) -> list[ScriptStep]:
        q_pre, q_g = plan.q_pre, plan.q_grasp
        assert q_pre is not None and q_g is not None
        vias = [] if route is None else route[:-1]
        return [
            ScriptStep("shape", side, fingers=self._fingers(side, q_g), max_time=HAND_LIMIT,
                       label=f"{side} fingers to the planned pre-shape"),
            *[ScriptStep("move", side, self._arm_targets(side, qv), together=True,
                         label=f"{side} hand round the object, clear of it") for qv in vias],
            ScriptStep("move", side, self._arm_targets(side, q_pre), together=True,
                       label=f"{side} hand to the pre-grasp of {what}"),
            ScriptStep("move", side, self._arm_targets(side, q_g), together=True,
                       label=f"{side} hand in around the object"),
            ScriptStep("wait", seconds=SETTLE, label="settle"),
            ScriptStep("close", side, max_time=HAND_LIMIT, label=f"{side} hand closes to touch"),
        ]  # fmt: skip

    # ------------------------------------------------------------------ phases
    def _first(self, sim: HandsSim) -> list[ScriptStep]:
        g = self.giver
        # the fingertips off the table (the hands' own check cuts a move short where a
        # tip sphere would enter it)
        To = np.asarray(sim.ball_T)
        for closed, clearance, lift in GIVER_TRIES:
            opts = PlanOptions(finger_table_margin=clearance, lift=lift, closed_clear=closed)
            planner = self._planner(g, opts)
            plan = planner.plan(self.obj, To, self._q(sim), self.rng)
            if plan.ok:
                break
        self.report["first_grasp"] = plan.summary()
        if not plan.ok:
            self.failed = f"first grasp: no plan for {g}: {plan.reason}"
            return []
        self._plans["first grasp"] = plan
        self.phase = "first grasp closed"
        route = self._route(g, planner, plan, sim, "first grasp")
        return self._approach_steps(g, plan, "the object on the table", route)

    def _lift(self, sim: HandsSim) -> list[ScriptStep]:
        g = self.giver
        q_lift = self._plans["first grasp"].q_lift
        assert q_lift is not None
        self.phase = "hand-over"
        return [ScriptStep("move", g, self._arm_targets(g, q_lift), together=True,
                           label=f"{g} lifts the object")]  # fmt: skip

    def _handover(self, sim: HandsSim) -> list[ScriptStep]:
        g, r = self.giver, self.receiver
        if not sim.snapshot().hands[g].grasped:
            return []  # the verdict names the first grasp
        m, h = self.scene.robot, self.hands[g]
        Tb = self.scene.T_world_robot
        Tb_inv = np.linalg.inv(Tb)
        q = self._q(sim)
        T_tool = Tb @ m.fk(q, h.tool)
        To = np.asarray(sim.ball_T)
        T_tool_obj = np.linalg.inv(T_tool) @ To
        # the point frame on the tool: at the object, x along the hand's approach
        a_tool = h.T_tool_grasp[:3, 2]
        P = np.eye(4)
        P[:3, 3] = T_tool_obj[:3, 3]
        P[:3, :3] = _frame_with_x(a_tool)
        targets = self._handover_points(To)
        if not targets:
            return []  # too high to lift above its start between the shoulders: named
        T_targets = []
        for p in targets:
            T = np.eye(4)
            T[:3, :3] = _frame_with_x(np.array([0.0, 0.0, -1.0]))
            T[:3, 3] = p
            T_targets.append(Tb_inv @ T)
        q_over_all, dist = self._reach_points(h, np.array(T_targets), P, q)
        reached = np.isfinite(dist)
        # the nearest in joint space first (a short carry), at most four
        order = [int(k) for k in np.argsort(dist, kind="stable") if reached[k]][:4]
        tried: list[str] = []
        opts = PlanOptions(max_up=1.0, lift=0.03, approach=0.06)
        for margin in HAND_MARGINS:  # clear of the giver's hand, else fingers interleaving
            planner = self._planner(r, opts, margin)
            for k in order:
                q_over = q_over_all[k]
                To_pred = Tb @ m.fk(q_over, h.tool) @ T_tool_obj
                plan = planner.plan(self.obj, To_pred, q_over, self.rng)
                tried.append(f"({', '.join(f'{v:.2f}' for v in targets[k])}) at {margin:g} m: "
                             f"{'ok' if plan.ok else plan.reason}")  # fmt: skip
                if plan.ok:
                    self.report["handover"] = {"object_at": To_pred[:3, 3].tolist(),
                                               "hand_clearance_m": margin,
                                               "points_tried": tried}  # fmt: skip
                    self._second, self._q_over, self._margin = plan, q_over, margin
                    self.phase = "second grasp"
                    label = f"{g} brings the object to the hand-over pose"
                    return [ScriptStep("move", g, self._arm_targets(g, q_over), together=True,
                                       label=label)]  # fmt: skip
        self.report["handover"] = {"points_tried": tried, "reached": int(reached.sum()),
                                   "points": len(targets)}  # fmt: skip
        self.failed = (f"hand-over: no pose between the arms where {g} holds the object and "
                       f"{r} has a grasp ({int(reached.sum())} of {len(targets)} points reached"
                       + (f"; {tried[-1]}" if tried else "") + ")")  # fmt: skip
        return []

    def _reach_points(
        self, h: GraspHand, T_targets: np.ndarray, P: np.ndarray, q: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """IK for each target ``(n, 4, 4)`` (base frame) from the current pose, poses
        near it, the middle of the joint ranges and a few random poses; per target the
        reaching solution nearest the current pose and its joint distance (inf: none)."""
        cols = [h.model.joint_index(j) for j in h.arm_joints]
        if len(T_targets) == 0:
            return np.empty((0, len(q))), np.empty(0)
        near = np.tile(q, (6, 1))
        near[:, cols] += np.random.default_rng(3).normal(0.0, 0.4, (6, len(cols)))
        near[:, cols] = np.clip(near[:, cols], h.model.lower[cols], h.model.upper[cols])
        starts = [q, *near, _mid(h, q), *h.random_arm_q(6, 5)]
        n = len(T_targets)
        Q = np.concatenate([np.broadcast_to(s, (n, len(q))) for s in starts])
        res = reach(h.model, h.tool, h.arm_joints, np.concatenate([T_targets] * len(starts)),
                    P, Q, pos_tol=0.01, axis_tol=0.35)  # fmt: skip
        dist = np.linalg.norm(res.q[:, cols] - q[cols], axis=1)
        dist = np.where(res.ok, dist, np.inf).reshape(len(starts), n)
        best = np.argmin(dist, axis=0)
        q_out = res.q.reshape(len(starts), n, -1)[best, np.arange(n)]
        # the rest of the robot (the other arm, the fingers) as it is now
        keep = np.setdiff1d(np.arange(len(q)), cols)
        q_out[:, keep] = q[keep]
        return q_out, dist.min(axis=0)

    def _handover_points(self, To: np.ndarray) -> list[np.ndarray]:
        """Points between the shoulders, in front (towards the object's side), nearest
        the shoulders' height first, high enough to count as lifted (none: the phase
        fails, its reason set)."""
        sL, sR = self.shoulder["L"], self.shoulder["R"]
        mid = 0.5 * (sL + sR)
        across = (sL - sR)[:2]
        fwd = np.array([-across[1], across[0]]) / max(np.linalg.norm(across), 1e-9)
        if fwd @ (self.scene.start_pose[:2, 3] - mid[:2]) < 0:
            fwd = -fwd
        _, R = arm_reach(self.hands[self.giver])
        z_min = self.scene.start_pose[2, 3] + LIFTED
        pts = []
        for dz in HANDOVER_DROPS:
            for out in (0.65, 0.55, 0.75):
                p = np.array([*(mid[:2] + out * R * fwd), mid[2] - dz * R])
                if p[2] >= z_min:
                    pts.append(p)
        if not pts:
            z0, z_top = float(self.scene.start_pose[2, 3]), float(mid[2] - min(HANDOVER_DROPS) * R)
            self.report["handover"] = {"points": 0, "object_start_z": z0,
                                       "needs_z": float(z_min), "highest_z": z_top}  # fmt: skip
            self.failed = (
                f"hand-over: no point between the shoulders above the object's start (object "
                f"at z={z0:.3f} m: a hand-over point must be {LIFTED:g} m above it, "
                f"z >= {z_min:.3f} m; the highest is at z={z_top:.3f} m, "
                f"{min(HANDOVER_DROPS):g} of the arm's reach below the shoulders)"
            )
        return pts

    def _take(self, sim: HandsSim) -> list[ScriptStep]:
        r = self.receiver
        q = self._q(sim)
        opts = PlanOptions(max_up=1.0, lift=0.03, approach=0.06)
        planner = self._planner(r, opts, self._margin)
        plan = planner.plan(self.obj, np.asarray(sim.ball_T), q, self.rng)
        self.report["second_grasp"] = plan.summary()
        if not plan.ok:  # the object moved off the predicted pose: the predicted plan
            plan = self._second  # type: ignore[assignment]
            self.report["second_grasp"]["used"] = "the plan on the predicted pose"
        assert plan is not None
        self._plans["second grasp"] = plan
        self.phase = "second grasp closed"
        route = self._route(r, planner, plan, sim, "second grasp")
        return self._approach_steps(r, plan, "the held object", route)

    def _let_go(self, sim: HandsSim) -> list[ScriptStep]:
        g, r = self.giver, self.receiver
        q = self._q(sim)
        h, m = self.hands[g], self.scene.robot
        Tb = self.scene.T_world_robot
        steps = [ScriptStep("wait", seconds=SETTLE, label="both hands hold")]
        steps += [ScriptStep("open", g, label=f"{g} lets go")]
        # back off along the approach, the hand turned as it is
        T_tool = Tb @ m.fk(q, h.tool)
        T_g = T_tool @ h.T_tool_grasp
        P = h.T_tool_grasp.copy()
        P[:3, :3] = _frame_with_x(h.T_tool_grasp[:3, 2])
        T = np.eye(4)
        T[:3, :3] = _frame_with_x(T_g[:3, 2])
        T[:3, 3] = T_g[:3, 3] - BACK_OFF * T_g[:3, 2]
        q_back, d_back = self._reach_points(h, (np.linalg.inv(Tb) @ T)[None], P, q)
        if d_back[0] < 1.0:  # a short move, not a swing through the object
            steps.append(ScriptStep("move", g, self._arm_targets(g, q_back[0]), together=True,
                                    label=f"{g} backs off the object"))  # fmt: skip
        else:  # no straight retreat: back to where it started
            steps.append(ScriptStep("move", g, self._arm_targets(g, self.scene.q0),
                                    together=True, label=f"{g} arm back to its start"))  # fmt: skip
        steps += [
            ScriptStep("wait", seconds=self.hold + HOLD_EXTRA, label=f"{r} holds it alone"),
            ScriptStep("open", r, label=f"{r} lets go"),
            ScriptStep("wait_for", event="landed", max_time=HAND_LIMIT, label="the object falls"),
        ]  # fmt: skip
        self.phase = "done"
        return steps


def _mid(h: GraspHand, q: np.ndarray) -> np.ndarray:
    """``q`` with the arm's joints in the middle of their ranges."""
    out = np.array(q, float)
    for j in h.arm_joints:
        i = h.model.joint_index(j)
        lo, hi = float(h.model.lower[i]), float(h.model.upper[i])
        out[i] = 0.5 * (lo + hi) if np.isfinite(lo) and np.isfinite(hi) else 0.0
    return out


def _frame_with_x(x: np.ndarray) -> np.ndarray:
    """A rotation whose x axis is ``x`` (the other two: any right-handed pair)."""
    x = np.asarray(x, float) / np.linalg.norm(x)
    ref = np.array([0.0, 0.0, 1.0]) if abs(x[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    y = np.cross(ref, x)
    y /= np.linalg.norm(y)
    return np.column_stack([x, y, np.cross(x, y)])


def run_planned_transfer(
    spec: Any,
    scene: HandsScene,
    mode: str = "kinematic",
    out_dir: Any = None,
    recorder: Any = None,
    duration: float | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """:func:`robotsim.hands.run.run_hand_scenario` with the steps planned from the
    object (module docstring)."""
    plan = PlannedTransfer(scene, seed=seed)
    return run_hand_scenario(spec, scene, mode, out_dir, recorder, duration, plan=plan)


def run_transfer_kind(data: Any, source: str, options: RunOptions) -> dict[str, Any]:
    """The ``kind: hand_ball_transfer`` runner of ``robotsim run``: ``script: planned``
    plans the transfer from the object; a written script plays as before
    (:func:`robotsim.hands.run.run_hand_kind`)."""
    if not (isinstance(data, dict) and data.get("script") == "planned"):
        return run_hand_kind(data, source, options)
    from robotsim.hands.scenario_spec import hand_scenario_from_data

    spec, scene = hand_scenario_from_data(data, source)
    mode = options.mode or spec.mode or "kinematic"
    seed = 0 if options.seed is None else int(options.seed)
    if not (options.db or options.out_dir is not None):
        return run_planned_transfer(spec, scene, mode, None, None, options.duration, seed)
    with opened_recorder(options) as recorder:
        return run_planned_transfer(spec, scene, mode, options.out_dir, recorder,
                                    options.duration, seed)  # fmt: skip
