"""The grasp planner: from an object lying somewhere to joint values that approach, close
on and lift it, with the proof of each step.

1. candidates on the object's surface, closed and ranked
   (:mod:`robotsim.grasp.candidates`);
2. the best ``ik_batch`` are reached by the arm (:mod:`robotsim.grasp.reach`); the
   fingers are closed again at the pose the arm actually reaches, and the contacts must
   still be in force closure (exact GWS margin) and hold ``min_hold`` times the object's
   weight at the hand's grip force;
3. a pre-grasp ``approach`` m back along the approach direction and a lift ``lift`` m up
   are reached too;
4. (when no candidate passes: hand poses the arm is known to reach, centred on the
   object's centre of mass, :mod:`robotsim.grasp.reachmap`, go through 2 and 3 too);
5. the arm's links keep clear of the tables, the ground, the object (hand open) and the
   other arms at the pre-grasp, along the way in, at the grasp and at the lift, and on
   the way from the start pose to the pre-grasp (:mod:`robotsim.grasp.collide`).

The first candidate that passes is the plan. When none does, the reason names the
stage where the last candidates fell and the numbers behind it (the object's narrowest
width against the hand's opening, the grip needed against the grip available, how many
candidates the arm could not reach or collided and with what).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from robotsim.grasp.candidates import (
    COARSE,
    close_fingers,
    raise_tips,
    rank_contacts,
    sample_candidates,
    score_contacts,
)
from robotsim.grasp.collide import Collider, moving_links
from robotsim.grasp.hand import GraspHand, link_points
from robotsim.grasp.reach import ReachResult, reach
from robotsim.hands.contact import BoxObstacle
from robotsim.objects.load import GraspObject
from robotsim.objects.query import ray_exit, sample_surface, signed_distance

__all__ = ["GraspPlan", "PlanOptions", "Planner"]

MAP_RADIUS = 0.04  # m: stored arm poses this near a candidate start its IK
MAP_NEAR = 0.06  # m: stored arm poses this near the object's centre of mass grasp it
MAP_CANDIDATES = 64  # of them at most
MAP_SAMPLES = 200_000  # arm configurations sampled once for the map (FK only: ~0.1 s)


@dataclass(frozen=True)
class PlanOptions:
    """Planner settings (lengths m).

    Attributes:
        n_points, rolls, max_pairs, max_poses: surface samples, turns about each
            closing axis, antipodal pairs kept, hand poses closed.
        mu: friction the planner counts on (below the physical one: a margin).
        torsion: torsional friction of a pad (N m per N).
        min_hold: weights the contacts should hold at the grip force (the grasps that
            do are tried first).
        least_hold: weights a grasp must hold at the least: when no reachable grasp
            holds ``min_hold``, the strongest of those holding ``least_hold`` are tried
            (the planner's friction and torsion are half the physical ones already).
        last_mu, last_torsion: friction and torsion of the last resort: when no
            reachable grasp holds ``least_hold`` at ``mu`` and ``torsion``, those holding
            it at these (nearer the physical ones, 1 and 0.004 m in
            :class:`robotsim.grasp.execute.TrialOptions`) are tried, strongest first.
        min_margin: the smallest GWS margin kept (a grasp barely in force closure slips
            at the first disturbance).
        ik_batch: candidates given to the arm at once; ``ik_rounds`` batches at most.
        approach, lift: pre-grasp distance and lift height.
        max_up: largest upward component of the approach direction.
        near_pos, near_axis: how close (m, rad) the arm must bring the hand to a
            candidate for the fingers to be closed again where it stands.
        max_lift_turn: how far (rad) the hand may turn on the way up (an arm short of
            joints may reach the lift only by turning the hand, which twists the object
            out of the grip).
        finger_table_margin: the fingers' clearance from the tables and the ground
            (negative: they may brush them; :class:`robotsim.grasp.collide.Collider`).
        closed_clear: the hand closed as far as its contacts at the grasp pose is
            checked against the tables too (fingers that curl into the table stall
            before they all touch).
    """

    n_points: int = 120
    rolls: int = 8
    max_pairs: int = 96
    max_poses: int = 160
    mu: float = 0.5
    torsion: float = 0.002
    min_hold: float = 2.0
    least_hold: float = 1.0
    last_mu: float = 0.8
    last_torsion: float = 0.003
    min_margin: float = 0.015
    ik_batch: int = 24
    ik_rounds: int = 4
    approach: float = 0.08
    lift: float = 0.15
    max_up: float = 0.3
    near_pos: float = 0.006
    near_axis: float = 0.3
    max_lift_turn: float = 0.35
    finger_table_margin: float = -0.002
    closed_clear: bool = False


@dataclass(frozen=True, eq=False)
class GraspPlan:
    """What the planner found. ``ok``: a plan; else ``reason`` (one line).

    Joint values ``(nq,)`` (fingers open): ``q_start``, ``q_pre``, ``q_grasp``,
    ``q_lift``. ``contacts`` and inward ``normals`` ``(k, 3)`` and ``closure`` ``(k,)``
    where the fingers touch (world), ``margin`` (exact GWS margin), ``held`` (weights
    held at the grip force), ``approach`` (unit, world: from the hand towards the
    object), ``T_world_tool`` at the grasp; ``counts``: survivors of each stage;
    ``plan_s``: wall time (s)."""

    ok: bool
    reason: str | None = None
    q_start: np.ndarray | None = None
    q_pre: np.ndarray | None = None
    q_grasp: np.ndarray | None = None
    q_lift: np.ndarray | None = None
    contacts: np.ndarray | None = None
    normals: np.ndarray | None = None
    closure: np.ndarray | None = None
    margin: float = 0.0
    held: float = 0.0
    approach: np.ndarray | None = None
    T_world_tool: np.ndarray | None = None
    counts: dict[str, int] = field(default_factory=dict)
    plan_s: float = 0.0

    def summary(self) -> dict[str, object]:
        """JSON-ready facts of the plan."""
        out: dict[str, object] = {"ok": self.ok, "plan_s": self.plan_s, "counts": dict(self.counts)}
        if self.ok:
            out.update(margin=self.margin, held_weights=self.held,
                       contacts=np.asarray(self.contacts).tolist(),
                       approach=np.asarray(self.approach).tolist())  # fmt: skip
        else:
            out["reason"] = self.reason
        return out


def _narrowest(obj: GraspObject, rng: np.random.Generator) -> float:
    pts, nrm = sample_surface(obj.pieces, 200, rng)
    w = ray_exit(obj.piece_set, pts - 1e-6 * nrm, -nrm)
    w = w[np.isfinite(w)]
    return float(w.min()) if len(w) else float("nan")


class Planner:
    """Plans grasps for one hand of a robot placed at ``T_world_base`` among ``tables``."""

    def __init__(
        self,
        hand: GraspHand,
        T_world_base: np.ndarray,
        tables: tuple[BoxObstacle, ...],
        other_arms: list[str] | None = None,
        options: PlanOptions | None = None,
    ) -> None:
        self.hand = hand
        self.options = options or PlanOptions()
        self.T_world_base = np.asarray(T_world_base, float)
        self.T_base_world = np.linalg.inv(self.T_world_base)
        m = hand.model
        pts = hand._cache.get("points")
        if pts is None:
            pts = hand._cache["points"] = link_points(m)
        arm = moving_links(m, hand.arm_joints[0])
        others: list[str] = []
        for j in other_arms or []:
            others += moving_links(m, j)
        fingers = tuple(lk for links in hand.finger_links for lk in links)
        self.collider = Collider(m, pts, arm, [lk for lk in others if lk not in arm],
                                 self.T_world_base, tables, finger_links=fingers,
                                 finger_table_margin=self.options.finger_table_margin)  # fmt: skip
        self.tables = tables
        self.symmetric = hand.n_fingers == 2
        self._map = None  # reachable hand poses, built when first needed (or kept)
        # a second IK start: the middle of every arm joint's range
        q_mid = np.array(hand.home, float)
        for j in hand.arm_joints:
            i = m.joint_index(j)
            lo, hi = float(m.lower[i]), float(m.upper[i])
            q_mid[i] = 0.5 * (lo + hi) if np.isfinite(lo) and np.isfinite(hi) else 0.0
        self.q_mid = q_mid
        # arm poses known to reach over the table (set-up, FK only): IK starts and grasps
        self._ensure_map()
        # the hand's points in the tool frame at each opening the candidates may take
        # (for the check before any IK)
        index = {n: i for i, n in enumerate(m.link_names)}
        self.hand_points: dict[int, np.ndarray] = {}
        links = [lk for lk in hand.hand_links if lk in pts]
        margin = np.concatenate([np.full(len(pts[lk]), self.collider.finger_table_margin
                                         if lk in fingers else self.collider.table_margin)
                                 for lk in links]) if links else np.zeros(0)  # fmt: skip
        keep = np.arange(len(margin))
        if len(keep) > 160:  # a spread-out subset: the first check is a coarse one
            keep = np.linspace(0, len(keep) - 1, 160).astype(int)
        self.hand_margin = margin[keep]
        for si in range(0, len(hand.closures), COARSE):
            q_open = hand.q_fingers(float(hand.closures[si]), hand.home)
            Ts = m.fk_all(q_open)
            T_tool_inv = np.linalg.inv(m.fk(q_open, hand.tool))
            hp = [pts[lk] @ Ts[index[lk], :3, :3].T + Ts[index[lk], :3, 3] for lk in links]
            P = np.concatenate(hp)[keep] if hp else np.zeros((0, 3))
            self.hand_points[si] = P @ T_tool_inv[:3, :3].T + T_tool_inv[:3, 3]

    def _hand_clear(
        self,
        obj: GraspObject | None,
        To: np.ndarray,
        T_obj_tool: np.ndarray,
        opening: np.ndarray | None = None,
    ) -> np.ndarray:
        """Which hand poses ``(B, 4, 4)`` (object frame), the hand opened to ``opening``
        ``(B,)`` (closure samples, multiples of COARSE; default fully open), keep clear of
        the tables, the ground and (given ``obj``) the object ``(B,)``, before any arm is
        asked."""
        B = len(T_obj_tool)
        op = np.zeros(B, int) if opening is None else np.asarray(opening, int)
        ok = np.zeros(B, bool)
        for si in np.unique(op):
            rows = np.flatnonzero(op == si)
            ok[rows] = self._hand_clear_at(obj, To, T_obj_tool[rows], int(si) - int(si) % COARSE)
        return ok

    def _hand_clear_at(
        self, obj: GraspObject | None, To: np.ndarray, T_obj_tool: np.ndarray, si: int
    ) -> np.ndarray:
        hp = self.hand_points[si]
        local = np.einsum("bij,nj->bni", T_obj_tool[:, :3, :3], hp) + T_obj_tool[:, None, :3, 3]
        world = local @ To[:3, :3].T + To[:3, 3]
        m = self.hand_margin
        ok = np.all(world[..., 2] >= m, axis=1)
        for t in self.tables:
            ok &= np.all(t.signed_distance(world) >= m, axis=1)
        rows = np.flatnonzero(ok)
        if obj is not None and len(rows):
            d, _ = signed_distance(obj.piece_set, local[rows], far=0.01)
            ok[rows] = d.min(axis=1) >= self.collider.object_margin
        return ok

    def _tips_low(
        self, To: np.ndarray, T_obj_tool: np.ndarray, opening: np.ndarray, s: np.ndarray
    ) -> np.ndarray:
        """How far (m, >= 0) each closed hand pose ``(B, 4, 4)`` (object frame) must rise
        for every fingertip to keep off the tables and the ground from the opening
        ``(B,)`` (closure samples) to where each finger touches (closures ``(B, k)``): a
        tip stopped by the table never reaches the object, and one that touches it low
        pushes it up and out of the grip."""
        h = self.hand
        B = len(T_obj_tool)
        if not B:
            return np.zeros(0)
        P = h.paths[:, None] + h.pad_offsets[None, :, None, :]  # (k, m, S, 3) tool frame
        Tw = To @ np.asarray(T_obj_tool, float)
        W = np.einsum("bij,kmsj->bkmsi", Tw[:, :3, :3], P) + Tw[:, None, None, None, :3, 3]
        d = W[..., 2]
        for t in self.tables:
            d = np.minimum(d, t.signed_distance(W))
        need = h.tip_radius[None, :, None, None] + self.collider.finger_table_margin
        S = len(h.closures)
        span = (np.arange(S)[None, None, :] >= np.asarray(opening, int)[:, None, None]) & (
            h.closures[None, None, :] < np.asarray(s, float)[:, :, None] + 1.0 / (S - 1)
        )  # (B, k, S): up to the first sample past the touch
        low = np.where(span[:, :, None, :], need - d, 0.0)
        return np.maximum(low.max(axis=(1, 2, 3)), 0.0)

    def _reach(self, T_world_target: np.ndarray, T_tool_point: np.ndarray, q0: np.ndarray,
               q_alt: np.ndarray | None = None, pos_tol: float = 2e-3,
               axis_tol: float = 0.03) -> ReachResult:  # fmt: skip
        """IK from ``q0``, and (one batch) from ``q_alt`` too, keeping the better."""
        h = self.hand
        T = self.T_base_world @ np.asarray(T_world_target).reshape(-1, 4, 4)
        n = len(T)
        Tp = np.broadcast_to(np.asarray(T_tool_point), (n, 4, 4))
        tol = {"pos_tol": pos_tol, "axis_tol": axis_tol}
        if q_alt is None:
            return reach(h.model, h.tool, h.arm_joints, T, Tp, q0, symmetric=self.symmetric, **tol)
        q_starts = np.concatenate(
            [np.broadcast_to(q0, (n, len(q0))), np.broadcast_to(q_alt, (n, len(q0)))]
        )
        r = reach(h.model, h.tool, h.arm_joints, np.concatenate([T, T]), np.concatenate([Tp, Tp]),
                  q_starts, symmetric=self.symmetric, **tol)  # fmt: skip
        use = ~r.ok[:n] & (r.ok[n:] | (r.position_error[n:] < r.position_error[:n]))
        k = np.where(use, np.arange(n) + n, np.arange(n))
        return ReachResult(r.q[k], r.position_error[k], r.axis_error[k], r.ok[k])

    def plan(
        self,
        obj: GraspObject,
        T_world_obj: np.ndarray,
        q_start: np.ndarray,
        rng: np.random.Generator,
    ) -> GraspPlan:
        """Plan a grasp of ``obj`` lying at ``T_world_obj`` with the robot at ``q_start``
        ``(nq,)`` (module docstring)."""
        t0 = time.perf_counter()
        o, h = self.options, self.hand
        To = np.asarray(T_world_obj, float)
        q_start = h.q_fingers(0.0, np.asarray(q_start, float))
        self.collider.set_others(q_start)
        cand = sample_candidates(h, obj, To, rng, n_points=o.n_points, rolls=o.rolls, mu=o.mu,
                                 torsion=o.torsion, max_up=o.max_up, max_pairs=o.max_pairs,
                                 max_poses=o.max_poses,
                                 pose_ok=lambda T, op: self._hand_clear(None, To, T, op),
                                 )  # fmt: skip
        counts = dict(cand.counts)

        def fail(reason: str) -> GraspPlan:
            return GraspPlan(False, reason, q_start=q_start, counts=counts,
                             plan_s=time.perf_counter() - t0)  # fmt: skip

        if not len(cand):
            return fail(self._why_none(obj, counts, rng))
        top = min(len(cand), 3 * o.ik_batch * o.ik_rounds)
        clear = self._hand_clear(obj, To, cand.T_obj_tool[:top], cand.opening[:top])
        counts["hand clear of object"] = int(clear.sum())
        if not clear.any():
            return fail(f"no grasp leaves the open hand clear of the object "
                        f"(the {top} best of {len(cand)} candidate grasps)")  # fmt: skip
        order = np.flatnonzero(clear)
        up_obj = To[:3, :3].T @ np.array([0.0, 0.0, 1.0])
        # the arm's reach first: candidates whose closing axis some sampled arm pose
        # puts near their contacts come first, and IK starts from that pose; then hand
        # poses the arm is known to reach, placed across the object; then the rest
        T_tp_all = h.contact_frames[cand.frame[order]]
        seeds, fits = self._map_seeds(To @ cand.T_obj_tool[order] @ T_tp_all)
        first = fits <= o.near_axis
        counts["map fits"] = int(first.sum())
        mT, mframe, mopen, mseed = self._map_candidates(obj, To, up_obj)
        counts["arm poses across"] = len(mT)
        P_T = np.concatenate([cand.T_obj_tool[order[first]], mT, cand.T_obj_tool[order[~first]]])
        P_frame = np.concatenate([cand.frame[order[first]], mframe, cand.frame[order[~first]]])
        P_open = np.concatenate([cand.opening[order[first]], mopen, cand.opening[order[~first]]])
        P_seed = np.concatenate([seeds[first], mseed, seeds[~first]])
        hits: dict[str, int] = {}
        weak = 0
        reached = 0
        best_held = 0.0
        spare: list[tuple[float, tuple]] = []  # (held, _finish args) holding least_hold
        last: list[tuple[float, tuple]] = []  # holding least_hold only at last_mu
        best_last = 0.0
        for rnd in range(o.ik_rounds):
            rows = np.arange(len(P_T))[rnd * o.ik_batch : (rnd + 1) * o.ik_batch]
            if not len(rows):
                break
            T_tool_point = h.contact_frames[P_frame[rows]]
            T_target = To @ P_T[rows] @ T_tool_point
            # near misses too: what counts is that the hand, where the arm puts it,
            # still closes on the object in force closure (an arm short of joints may
            # only come near the candidate's closing axis)
            res = self._reach(T_target, T_tool_point, q_start, P_seed[rows],
                              pos_tol=o.near_pos, axis_tol=o.near_axis)  # fmt: skip
            reached += int(res.ok.sum())
            for j in np.flatnonzero(res.ok):
                s_open = float(h.closures[P_open[rows[j]]])
                q_g = h.q_fingers(s_open, res.q[j])  # the pre-shape: open only so far
                T_tool = self.T_world_base @ h.model.fk(q_g, h.tool)
                T_obj_tool = np.linalg.inv(To) @ T_tool
                con = close_fingers(h, obj, T_obj_tool[None], start=P_open[rows[j : j + 1]])
                if not con.complete[0]:
                    weak += 1
                    continue
                margin, held = score_contacts(obj, con.points[0], con.normals[0], up_obj,
                                              o.mu, o.torsion, h.grip_force)  # fmt: skip
                best_held = max(best_held, held)
                if margin < o.min_margin or held < o.min_hold:
                    weak += 1
                    if margin >= o.min_margin and held >= o.least_hold:
                        spare.append((held, (q_g, T_tool, T_tool_point[j], con, margin, held)))
                    else:
                        m2, h2 = score_contacts(
                            obj, con.points[0], con.normals[0], up_obj, o.last_mu,
                            o.last_torsion, h.grip_force,
                        )  # fmt: skip
                        best_last = max(best_last, h2)
                        if m2 >= o.min_margin and h2 >= o.least_hold:
                            last.append((h2, (q_g, T_tool, T_tool_point[j], con, m2, h2)))
                    continue
                plan = self._finish(
                    obj, To, q_start, q_g, T_tool, T_tool_point[j], con, margin, held, hits
                )
                if plan is not None:
                    counts.update(reached=reached, **{f"hit {k}": v for k, v in hits.items()})
                    return GraspPlan(
                        **{**plan, "counts": counts, "plan_s": time.perf_counter() - t0}
                    )
        plan = self._from_reach_map(obj, To, q_start, up_obj, hits)
        if plan is not None:
            counts.update(reached=reached, reach_map=1, **{f"hit {k}": v for k, v in hits.items()})
            return GraspPlan(**{**plan, "counts": counts, "plan_s": time.perf_counter() - t0})
        for _, args in sorted(spare, key=lambda s: -s[0])[: o.ik_batch]:
            plan = self._finish(obj, To, q_start, *args, hits)
            if plan is not None:
                counts.update(reached=reached, weaker=1, **{f"hit {k}": v for k, v in hits.items()})
                return GraspPlan(**{**plan, "counts": counts, "plan_s": time.perf_counter() - t0})
        for _, args in sorted(last, key=lambda s: -s[0])[: o.ik_batch]:
            plan = self._finish(obj, To, q_start, *args, hits)
            if plan is not None:
                counts.update(reached=reached, weaker=2, **{f"hit {k}": v for k, v in hits.items()})
                return GraspPlan(**{**plan, "counts": counts, "plan_s": time.perf_counter() - t0})
        counts.update(reached=reached, weak=weak, **{f"hit {k}": v for k, v in hits.items()})
        tried = min(len(P_T), o.ik_batch * o.ik_rounds)
        if reached == 0:
            return fail(f"no reachable grasp: the arm reaches none of the {tried} best of "
                        f"{len(cand)} candidate grasps")  # fmt: skip
        if hits:
            moves = ("lift turns the hand", "unreachable pre-grasp or lift")
            ranked = sorted(hits.items(), key=lambda kv: -kv[1])
            hit = ", ".join(f"{k} {v}" for k, v in ranked if k not in moves)
            move = ", ".join(f"{k.replace('lift turns', 'the lift turns')} {v}"
                             for k, v in ranked if k in moves)  # fmt: skip
            if hit:
                return fail(f"no collision-free grasp: of {reached} reachable grasps, the arm "
                            f"hits {hit}{'; ' + move if move else ''} (others too weak: "
                            f"{weak})")  # fmt: skip
            return fail(f"no approach or lift: of {reached} reachable grasps, {move} (others "
                        f"too weak: {weak})")  # fmt: skip
        if best_held == 0.0 and weak:
            return fail(f"no closing grasp: where the arm puts the hand, the fingers of {h.name} "
                        f"do not all touch the object or close in force closure (the {reached} "
                        f"reachable grasps)")  # fmt: skip
        return fail(f"no grasp holds: the {reached} reachable grasps do not hold "
                    f"{o.least_hold:g} x the weight ({obj.mass * 9.81:.3g} N) at "
                    f"{h.grip_force:.3g} N per finger (the best {best_held:.2g} x; "
                    f"{best_last:.2g} x at friction {o.last_mu:g})")  # fmt: skip

    def _ensure_map(self):  # type: ignore[no-untyped-def]
        from robotsim.grasp.reachmap import ReachMap

        if self._map is None and self.tables:  # (the map is of hand poses over a table)
            self._map = ReachMap.cached(self.hand, self.T_world_base, self.tables[0],
                                        samples=MAP_SAMPLES,
                                        max_up=self.options.max_up)  # fmt: skip
        return self._map

    def _map_candidates(
        self, obj: GraspObject, To: np.ndarray, up_obj: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Grasps from hand poses the arm is known to reach near the object
        (:mod:`robotsim.grasp.reachmap`): each keeps its stored orientation (closing axis
        and approach: what the arm does there), its contacts' midpoint moved to the middle
        of the object's extent along the closing axis through the centre of mass, opened
        ``2 cm`` wider than that extent, fingers closed, raised until the tips keep off
        the table; those closing in force closure, best first, as (tool poses in the
        object frame ``(B, 4, 4)``, contact frame samples, openings, IK starts)."""
        h, o = self.hand, self.options
        nq = h.model.nq
        none = (np.zeros((0, 4, 4)), np.zeros(0, int), np.zeros(0, int), np.zeros((0, nq)))
        mp = self._ensure_map()
        if mp is None:
            return none
        com = np.asarray(obj.inertial.com, float)
        com_w = To[:3, :3] @ com + To[:3, 3]
        idx = mp.nearest(com_w, MAP_CANDIDATES, radius=MAP_NEAR)
        if not len(idx):
            return none
        R_cf = np.swapaxes(To[:3, :3], -1, -2) @ mp.T[idx, :3, :3]  # object frame
        x = R_cf[:, :, 0]
        proj = (obj.hull_points - com) @ x.T  # (n, B)
        lo, hi = proj.min(axis=0), proj.max(axis=0)
        width = hi - lo
        mid = com + 0.5 * (lo + hi)[:, None] * x
        si = np.argmin(np.abs(h.widths[None, :] - width[:, None]), axis=1)
        wide = (h.widths[None, :] >= width[:, None] + 0.02) & (
            np.arange(len(h.widths)) % COARSE == 0)[None, :]  # fmt: skip
        opening = np.where(
            wide.any(axis=1), len(h.widths) - 1 - np.argmax(wide[:, ::-1], axis=1), 0
        )
        T_cf = np.tile(np.eye(4), (len(idx), 1, 1))
        T_cf[:, :3, :3], T_cf[:, :3, 3] = R_cf, mid
        T = T_cf @ np.linalg.inv(h.contact_frames[si])
        ok = (width <= 0.97 * h.max_width) & self._hand_clear(obj, To, T, opening)
        if not ok.any():
            return none
        T, si, opening, idx = T[ok], si[ok], opening[ok], idx[ok]
        con = close_fingers(h, obj, T, start=opening)
        T, con = raise_tips(h, obj, T, opening, con,
                            lambda T_, op, s: self._tips_low(To, T_, op, s), up_obj)  # fmt: skip
        margin = rank_contacts(obj, con, o.mu, o.torsion)
        keep = np.flatnonzero(margin > 0)
        keep = keep[np.argsort(-margin[keep])]
        return T[keep], si[keep], opening[keep], mp.q[idx[keep]]

    def _map_seeds(self, T_world_target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per target frame ``(B, 4, 4)`` (world; x the closing axis): the stored arm pose
        (:mod:`robotsim.grasp.reachmap`) whose grasp frame lies within
        ``MAP_RADIUS`` of it with the nearest closing axis, as an IK start ``(B, nq)``
        (the middle of the joint ranges where none lies near), and that axis's angle
        (rad; inf where none lies near)."""
        B = len(T_world_target)
        seeds = np.tile(self.q_mid, (B, 1))
        fits = np.full(B, np.inf)
        mp = self._ensure_map()
        if mp is None or not len(mp) or not B:
            return seeds, fits
        near = mp.tree().query_ball_point(T_world_target[:, :3, 3], MAP_RADIUS)
        for b, idx in enumerate(near):
            if not idx:
                continue
            idx = np.asarray(idx)
            c = mp.T[idx, :3, 0] @ T_world_target[b, :3, 0]
            c = np.abs(c) if self.symmetric else c
            d = np.linalg.norm(mp.T[idx, :3, 3] - T_world_target[b, :3, 3], axis=1)
            cost = np.arccos(np.clip(c, -1.0, 1.0)) + d / MAP_RADIUS * 0.2
            j = int(np.argmin(cost))
            seeds[b], fits[b] = mp.q[idx[j]], float(np.arccos(np.clip(c[j], -1.0, 1.0)))
        return seeds, fits

    def _from_reach_map(self, obj, To, q_start, up_obj, hits):  # type: ignore[no-untyped-def]
        """Grasps from hand poses the arm is known to reach (:mod:`robotsim.grasp.reachmap`):
        centred on the object's centre of mass, closed where the arm puts them; the
        first that holds and clears, as GraspPlan fields (None if none does)."""
        o, h = self.options, self.hand
        if self._ensure_map() is None:
            return None
        com = To[:3, :3] @ obj.inertial.com + To[:3, 3]
        idx = self._map.nearest(com, o.ik_batch)
        if not len(idx):
            return None
        # open each hand just wider than the object along its closing axis
        pts = obj.hull_points @ To[:3, :3].T + To[:3, 3]
        x = self._map.T[idx, :3, 0]
        ext = np.ptp(pts @ x.T, axis=0)
        si = np.argmin(np.abs(h.widths[None, :] - ext[:, None]), axis=1)
        wide = (h.widths[None, :] >= ext[:, None] + 0.02) & (
            np.arange(len(h.widths)) % COARSE == 0)[None, :]  # fmt: skip
        opening = np.where(
            wide.any(axis=1), len(h.widths) - 1 - np.argmax(wide[:, ::-1], axis=1), 0
        )
        T_point = h.contact_frames[si]
        T_t = self._map.T[idx].copy()
        T_t[:, :3, 3] = com
        res = reach(h.model, h.tool, h.arm_joints, self.T_base_world @ T_t, T_point,
                    self._map.q[idx], symmetric=self.symmetric, pos_tol=o.near_pos,
                    axis_tol=o.near_axis)  # fmt: skip
        for j in np.flatnonzero(res.ok):
            q_g = h.q_fingers(float(h.closures[opening[j]]), res.q[j])
            T_tool = self.T_world_base @ h.model.fk(q_g, h.tool)
            T_obj_tool = np.linalg.inv(To) @ T_tool
            if not self._hand_clear(obj, To, T_obj_tool[None], opening[j : j + 1])[0]:
                continue
            con = close_fingers(h, obj, T_obj_tool[None], start=opening[j : j + 1])
            if not con.complete[0]:
                continue
            margin, held = score_contacts(obj, con.points[0], con.normals[0], up_obj, o.mu,
                                          o.torsion, h.grip_force)  # fmt: skip
            if margin < o.min_margin or held < o.min_hold:
                continue
            plan = self._finish(obj, To, q_start, q_g, T_tool, T_point[j], con, margin, held, hits)
            if plan is not None:
                return plan
        return None

    def _finish(self, obj, To, q_start, q_g, T_tool, T_tool_point, con, margin, held, hits):  # type: ignore[no-untyped-def]
        """Pre-grasp, lift and collision checks for one reachable grasp; a dict of
        GraspPlan fields, or None (``hits`` counts what was hit)."""
        o, h = self.options, self.hand
        T_point = T_tool @ T_tool_point
        approach = T_tool[:3, :3] @ h.T_tool_grasp[:3, 2]
        # pre-grasp and lift, the longest that the arm reaches (a short arm may only
        # back off or lift part of the way)
        backs = [o.approach, 0.6 * o.approach, 0.35 * o.approach]
        # straight up first; then up and sideways (5 cm, 8 ways): an arm short of joints
        # may reach straight up only by turning the hand, and a little to one side
        # without turning it
        side = [(0.0, 0.0)] + [(0.05 * np.cos(a), 0.05 * np.sin(a))
                               for a in np.arange(8) * np.pi / 4]  # fmt: skip
        lifts = [(dx, dy, up) for dx, dy in side for up in (o.lift, 0.8 * o.lift)]
        targets = []
        for b in backs:
            T = T_point.copy()
            T[:3, 3] -= b * approach
            targets.append(T)
        for dx, dy, up in lifts:
            T = T_point.copy()
            T[:3, 3] += [dx, dy, up]
            targets.append(T)
        res = self._reach(np.stack(targets), T_tool_point, q_g, pos_tol=0.005, axis_tol=0.1)
        nb = len(backs)
        pre_ok, reached_lift = res.ok[:nb], res.ok[nb:]
        turn = np.full(len(lifts), np.inf)
        R_g = T_tool[:3, :3]
        for i in np.flatnonzero(reached_lift):  # the lift carries the object, not turn it
            R_l = (self.T_world_base @ h.model.fk(res.q[nb + i], h.tool))[:3, :3]
            turn[i] = np.arccos(np.clip((np.trace(R_g.T @ R_l) - 1) / 2, -1.0, 1.0))
        lift_ok = turn <= o.max_lift_turn
        if pre_ok.any() and reached_lift.any() and not lift_ok.any():
            hits["lift turns the hand"] = hits.get("lift turns the hand", 0) + 1
            return None
        if not pre_ok.any() or not lift_ok.any():
            hits["unreachable pre-grasp or lift"] = hits.get("unreachable pre-grasp or lift", 0) + 1
            return None
        straight = lift_ok[:2]
        high = np.where(lift_ok & (np.arange(len(lifts)) % 2 == 0), turn, np.inf)
        if straight.any():
            pick = int(np.argmax(straight))
        else:
            pick = int(np.argmin(high)) if np.isfinite(high).any() else int(np.argmin(turn))
        fingers = h.finger_q_index
        q_pre = res.q[int(np.argmax(pre_ok))].copy()
        q_lift = res.q[nb + pick].copy()
        q_pre[fingers] = q_lift[fingers] = q_g[fingers]  # the pre-shape all the way
        checks = [(q_pre, True), (q_g, True)]
        checks += [(q_pre + a * (q_g - q_pre), True) for a in (0.33, 0.67)]
        checks += [(q_start + a * (q_pre - q_start), True) for a in (0.25, 0.5, 0.75)]
        checks += [(h.q_fingers(float(con.s[0].max()), q_lift), False)]
        if o.closed_clear:
            checks += [(h.q_fingers(float(con.s[0].max()), q_g), False)]
        for q, with_object in checks:
            c = self.collider.check(q, obj if with_object else None, To if with_object else None)
            if c.hit is not None:
                hits[c.hit] = hits.get(c.hit, 0) + 1
                return None
        R, p = To[:3, :3], To[:3, 3]
        return {
            "ok": True, "q_start": q_start, "q_pre": q_pre, "q_grasp": q_g, "q_lift": q_lift,
            "contacts": con.points[0] @ R.T + p, "normals": con.normals[0] @ R.T,
            "closure": con.s[0], "margin": margin, "held": held, "approach": approach,
            "T_world_tool": T_tool,
        }  # fmt: skip

    def _why_none(self, obj: GraspObject, counts: dict[str, int], rng: np.random.Generator) -> str:
        h = self.hand
        if counts.get("within opening", 0) == 0:
            w = _narrowest(obj, rng)
            if np.isfinite(w) and w > h.max_width:
                return (f"too large for {h.name}: its narrowest width {w:.3g} m exceeds the "
                        f"hand's opening {h.max_width:.3g} m")  # fmt: skip
            return f"too small for {h.name}: the hand closes to {h.min_width:.3g} m at most"
        if counts.get("antipodal", 0) == 0:
            return "no antipodal contact pair within the friction cone on the object's surface"
        if counts.get("poses", 0) == 0:
            return "no approach direction from above the table for any contact pair"
        if counts.get("hand clear", 1) == 0:
            return (f"no hand pose on the object's {counts['antipodal']} antipodal pairs within "
                    f"the {h.max_width:.3g} m opening keeps the open {h.name} clear of the "
                    f"table")  # fmt: skip
        if counts.get("closing", 0) == 0:
            return (f"the fingers of {h.name} miss the object or cannot open around it: none "
                    f"of the {counts.get('hand clear', counts['poses'])} hand poses clear of "
                    f"the table on its {counts['antipodal']} antipodal pairs within the "
                    f"{h.max_width:.3g} m opening closes every finger on it")  # fmt: skip
        return "no closing grasp is in force closure"
