"""Replanning one robot among moving ones: a bidirectional RRT (RRT-Connect, Kuffner
and LaValle 2000) in space-time, the others a time-indexed obstacle.

A state is ``(q, t)``: joint values and time. An edge from ``(qa, ta)`` to
``(qb, tb)`` (``tb > ta``) is the rest-to-rest quintic between them (:class:`JointQuintic`,
a :class:`Hold` when ``qa = qb``), allowed when ``tb - ta`` is at least the quintic's
shortest duration within the joints' velocity and acceleration limits
(:meth:`JointLimits.quintic_duration`), and valid when the certified check
(:mod:`robotsim.clearance.certified`) proves the robot stays above the margin from
every other robot over ``[ta, tb]``. So the path found is, edge for edge, the
trajectory written out: nothing is smoothed after it was checked.

The start tree grows forward in time from ``(q_start, t_start)``; the goal tree grows
backward from goal states ``(q_goal, t_g)`` at several arrival times, each kept only
if the robot can then stay at its goal until every other robot has stopped. Samples
are drawn in the box spanned by the start and goal widened by ``spread`` rad (the full
joint range with probability ``global_rate``); joints that move none of the robot's
volumes are drawn between their start and goal values. Each iteration extends one tree
by at most ``step`` rad towards the sample (the time in proportion, never faster than
the limits), then the other tree greedily towards the new state; the trees swap roles.

The path is then shortcut (random pairs of states joined directly when that edge is
valid) and its states moved as early as their edges allow (bisection), which shortens
the motion. Everything runs under a :class:`~robotsim.plan.outcome.Budget`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from robotsim.clearance.trajectory import Hold, JointQuintic, Segment, Trajectory
from robotsim.plan.check import MarginCheck
from robotsim.plan.limits import JointLimits
from robotsim.plan.outcome import Budget

__all__ = ["SpaceTimeResult", "plan_spacetime"]


@dataclass
class _Tree:
    forward: bool
    q: list[np.ndarray] = field(default_factory=list)
    t: list[float] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)

    def add(self, q: np.ndarray, t: float, parent: int) -> int:
        self.q.append(q)
        self.t.append(t)
        self.parent.append(parent)
        return len(self.q) - 1

    def chain(self, k: int) -> list[int]:
        out = []
        while k >= 0:
            out.append(k)
            k = self.parent[k]
        return out


@dataclass(frozen=True)
class SpaceTimeResult:
    """The states ``(q, t)`` of the path found (None when none), why, and counts."""

    states: list[tuple[np.ndarray, float]] | None
    reason: str
    nodes: int
    edges_checked: int
    iterations: int


class _Edges:
    """Edge validity with a count; holds the check, the robot and the limits."""

    def __init__(self, check: MarginCheck, name: str, limits: JointLimits, dt: float) -> None:
        self.check, self.name, self.limits, self.dt = check, name, limits, dt
        self.count = 0

    def segment(self, qa: np.ndarray, qb: np.ndarray, T: float) -> Segment:
        if np.array_equal(qa, qb):
            return Hold(qa, T)
        return JointQuintic(qa, qb, T)

    def feasible(self, qa: np.ndarray, ta: float, qb: np.ndarray, tb: float) -> bool:
        return tb - ta >= float(self.limits.quintic_duration(qb - qa)) * (1 - 1e-9) and tb > ta

    def valid(self, qa: np.ndarray, ta: float, qb: np.ndarray, tb: float) -> bool:
        """The quintic from ``(qa, ta)`` to ``(qb, tb)`` is within the limits and stays
        above the margin (certified)."""
        if not self.feasible(qa, ta, qb, tb):
            return False
        self.count += 1
        traj = Trajectory((self.segment(qa, qb, tb - ta),), start=ta)
        return self.check.robot_clear(self.name, traj, t0=ta, t1=tb, dt=self.dt).clear

    def hold_valid(self, q: np.ndarray, t0: float, t1: float) -> bool:
        """Staying at ``q`` over ``[t0, t1]`` stays above the margin."""
        self.count += 1
        t1 = max(t1, t0 + self.dt)
        traj = Trajectory((Hold(q, t1 - t0),), start=t0)
        return self.check.robot_clear(self.name, traj, t0=t0, t1=t1, dt=self.dt).clear


def _active_joints(check: MarginCheck, name: str) -> np.ndarray:
    """Joints that move at least one of the robot's volumes."""
    lev = check.motions[name].levers
    nq = check.scene.robot(name).model.nq
    active = np.zeros(nq, dtype=bool)
    used = lev.on_path.any(axis=0)
    active[lev.qi[used]] = True
    return active


def plan_spacetime(
    check: MarginCheck,
    name: str,
    q_start: np.ndarray,
    q_goal: np.ndarray,
    t_start: float,
    limits: JointLimits,
    budget: Budget,
    *,
    seed: int = 0,
    step: float = 0.6,
    spread: float = 1.0,
    global_rate: float = 0.2,
    edge_dt: float = 0.05,
    horizon: float | None = None,
    max_nodes: int = 5000,
) -> SpaceTimeResult:
    """A valid space-time path of robot ``name`` from ``q_start`` at ``t_start`` to
    ``q_goal`` (then held), others on the check's trajectories (see the module)."""
    rng = np.random.default_rng(seed)
    model = check.scene.robot(name).model
    edges = _Edges(check, name, limits, edge_dt)
    qs, qg = np.asarray(q_start, dtype=float), np.asarray(q_goal, dtype=float)
    others_end = max((t.end for n, t in check.trajectories.items() if n != name), default=0.0)
    t_min = float(limits.quintic_duration(qg - qs))
    own = check.trajectories[name]
    H = (
        horizon
        if horizon is not None
        else max(others_end, t_start) + 2 * max(own.duration, t_min) + 1.0
    )
    lo = np.maximum(model.lower, -math.pi)
    hi = np.minimum(model.upper, math.pi)
    active = _active_joints(check, name)
    box_lo = np.maximum(lo, np.minimum(qs, qg) - spread * active)
    box_hi = np.minimum(hi, np.maximum(qs, qg) + spread * active)
    free_lo, free_hi = np.minimum(qs, qg), np.maximum(qs, qg)

    def sample() -> tuple[np.ndarray, float]:
        if rng.random() < global_rate:
            q = rng.uniform(lo, hi)
        else:
            q = rng.uniform(box_lo, box_hi)
        q = np.where(active, q, rng.uniform(free_lo, free_hi))
        return q, float(rng.uniform(t_start, H))

    # the start: the robot waits at its start configuration until t_start
    if t_start > 0 and not edges.hold_valid(qs, 0.0, t_start):
        return SpaceTimeResult(
            None,
            f"{name} waiting at its start configuration until "
            f"{t_start:.3f} s comes within the margin of another robot",
            0,
            edges.count,
            0,
        )
    if not edges.hold_valid(qs, t_start, t_start):
        return SpaceTimeResult(
            None,
            f"the start configuration of {name} is within the margin "
            f"of another robot at {t_start:.3f} s",
            0,
            edges.count,
            0,
        )
    # goal states: arrival times from the fastest to the horizon, each held afterwards
    end_hold = max(others_end, H)
    goals = []
    for c in (1.0, 1.25, 1.6, 2.0, 3.0):
        tg = t_start + c * t_min
        if tg <= H:
            goals.append(tg)
    goals += list(np.linspace(max(t_start + t_min, others_end), H, 3))
    goals = sorted({round(g, 9) for g in goals})
    valid_goals = [tg for tg in goals if edges.hold_valid(qg, tg, end_hold)]
    if not valid_goals:
        if not edges.hold_valid(qg, end_hold, end_hold + edge_dt):
            why = (
                f"the goal configuration of {name} is within the margin of another robot's "
                "final configuration: no arrival time can be clear"
            )
        else:
            why = (
                f"{name} cannot stay at its goal from any arrival time up to {H:.3f} s "
                "without coming within the margin of another robot"
            )
        return SpaceTimeResult(None, why, 0, edges.count, 0)
    fwd = _Tree(True)
    fwd.add(qs, t_start, -1)
    bwd = _Tree(False)
    for tg in valid_goals:
        bwd.add(qg, tg, -1)
    # the direct move, to each goal state
    for k, tg in enumerate(valid_goals):
        if edges.valid(qs, t_start, qg, tg):
            return SpaceTimeResult(
                [(qs, t_start), (qg, tg)], "direct", 1 + len(valid_goals), edges.count, 0
            )
        del k
    trees = (fwd, bwd)
    it = 0
    while not budget.spent() and len(fwd.q) + len(bwd.q) < max_nodes:
        it += 1
        a, b = trees
        q_r, t_r = sample()
        new = _extend(a, q_r, t_r, edges, step)
        if new is not None:
            hit = _connect(b, a.q[new], a.t[new], edges, step, budget)
            if hit is not None:
                ia, ib = (new, hit) if a.forward else (hit, new)
                path = [(fwd.q[i], fwd.t[i]) for i in reversed(fwd.chain(ia))]
                path += [(bwd.q[i], bwd.t[i]) for i in bwd.chain(ib)]
                return SpaceTimeResult(path, "connected", len(fwd.q) + len(bwd.q), edges.count, it)
        trees = (b, a)
    why = "time budget spent" if budget.spent() else f"{max_nodes} states grown"
    return SpaceTimeResult(
        None,
        f"no collision-free path for {name}: {why} ({len(fwd.q)} + "
        f"{len(bwd.q)} states, {edges.count} edges checked)",
        len(fwd.q) + len(bwd.q),
        edges.count,
        it,
    )


def _nearest(tree: _Tree, q: np.ndarray, t: float, edges: _Edges) -> int:
    """The nearest state of ``tree`` (joint distance plus 0.1 rad per s) that can reach
    ``(q, t)`` in time (forward tree: before it, backward: after it)."""
    Q = np.asarray(tree.q)
    T = np.asarray(tree.t)
    dt = (t - T) if tree.forward else (T - t)
    need = edges.limits.quintic_duration(q[None, :] - Q)
    ok = dt >= need
    if not ok.any():
        return -1
    cost = np.linalg.norm(Q - q, axis=1) + 0.1 * np.abs(dt)
    cost[~ok] = np.inf
    return int(np.argmin(cost))


def _edge(tree: _Tree, k: int, q: np.ndarray, t: float, edges: _Edges) -> bool:
    """The edge between state ``k`` and ``(q, t)`` in the tree's direction of time."""
    if tree.forward:
        return edges.valid(tree.q[k], tree.t[k], q, t)
    return edges.valid(q, t, tree.q[k], tree.t[k])


def _towards(
    tree: _Tree, k: int, q: np.ndarray, t: float, edges: _Edges, step: float
) -> tuple[np.ndarray, float]:
    """At most ``step`` rad from state ``k`` towards ``(q, t)``, time in proportion but
    never faster than the limits allow."""
    qk, tk = tree.q[k], tree.t[k]
    d = q - qk
    n = float(np.linalg.norm(d))
    if n <= step:
        return q, t
    f = step / n
    qn = qk + f * d
    need = float(edges.limits.quintic_duration(qn - qk))
    span = f * (t - tk)
    span = math.copysign(
        max(abs(span), need), t - tk if t != tk else (1.0 if tree.forward else -1.0)
    )
    return qn, tk + span


def _extend(tree: _Tree, q: np.ndarray, t: float, edges: _Edges, step: float) -> int | None:
    k = _nearest(tree, q, t, edges)
    if k < 0:
        return None
    qn, tn = _towards(tree, k, q, t, edges, step)
    if not _edge(tree, k, qn, tn, edges):
        return None
    return tree.add(qn, tn, k)


def _connect(
    tree: _Tree, q: np.ndarray, t: float, edges: _Edges, step: float, budget: Budget
) -> int | None:
    """Grow ``tree`` greedily towards ``(q, t)``; the index of the state that reached it
    (a state of ``tree`` joined to it by a valid edge), or None."""
    k = _nearest(tree, q, t, edges)
    while k >= 0 and not budget.spent():
        qn, tn = _towards(tree, k, q, t, edges, step)
        if not _edge(tree, k, qn, tn, edges):
            return None
        if qn is q:  # reached: the state of the other tree joins state k
            return k
        k = tree.add(qn, tn, k)
    return None


def shortcut(
    states: list[tuple[np.ndarray, float]],
    check: MarginCheck,
    name: str,
    limits: JointLimits,
    budget: Budget,
    *,
    seed: int = 0,
    tries: int = 40,
    edge_dt: float = 0.05,
    hold_until: float | None = None,
    greedy: bool = True,
) -> list[tuple[np.ndarray, float]]:
    """Join states directly where that edge is valid (greedily from the start, each to
    the farthest it reaches, then random pairs), then move every
    state as early as its edges allow (bisection to 1 ms; the last one only while the
    robot can then stay at its goal until ``hold_until``)."""
    rng = np.random.default_rng(seed)
    edges = _Edges(check, name, limits, edge_dt)
    P = list(states)
    for _ in range(tries):
        if len(P) < 3 or budget.spent():
            break
        i = int(rng.integers(0, len(P) - 2))
        j = int(rng.integers(i + 2, len(P)))
        (qa, ta), (qb, tb) = P[i], P[j]
        if edges.valid(qa, ta, qb, tb):
            P = P[: i + 1] + P[j:]
    # greedy: from each state, the farthest later state joined directly
    i = 0
    while greedy and i < len(P) - 2 and not budget.spent():
        for j in range(len(P) - 1, i + 1, -1):
            if budget.spent():
                break
            if edges.valid(P[i][0], P[i][1], P[j][0], P[j][1]):
                P = P[: i + 1] + P[j:]
                break
        i += 1
    # drop states that repeat their predecessor's configuration, then retime
    for k in range(1, len(P)):
        if budget.spent():
            break
        q_prev, t_prev = P[k - 1]
        qk, tk = P[k]
        lo = t_prev + float(limits.quintic_duration(qk - q_prev))
        hi = tk

        def ok(
            tn: float,
            k: int = k,
            q_prev: np.ndarray = q_prev,
            t_prev: float = t_prev,
            qk: np.ndarray = qk,
        ) -> bool:
            if not edges.valid(q_prev, t_prev, qk, tn):
                return False
            if k + 1 < len(P):
                return edges.valid(qk, tn, P[k + 1][0], P[k + 1][1])
            return hold_until is None or edges.hold_valid(qk, tn, max(hold_until, tn))

        if lo < hi - 1e-3 and ok(lo):
            hi = lo
        else:
            while hi - lo > 1e-3 and not budget.spent():
                mid = 0.5 * (lo + hi)
                if ok(mid):
                    hi = mid
                else:
                    lo = mid
        P[k] = (qk, hi)
    return P


def states_to_trajectory(states: list[tuple[np.ndarray, float]]) -> Trajectory:
    """The chain of quintics (holds where the configuration repeats) through the states."""
    segs: list[Segment] = []
    for (qa, ta), (qb, tb) in itertools.pairwise(states):
        if tb - ta <= 0:
            continue
        segs.append(Hold(qa, tb - ta) if np.array_equal(qa, qb) else JointQuintic(qa, qb, tb - ta))
    if not segs:
        segs = [Hold(states[0][0], 1e-3)]
    return Trajectory(tuple(segs), start=states[0][1])
