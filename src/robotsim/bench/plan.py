"""``robotsim bench plan``: planning around collisions (issue 25's figures).

* ``three_puma``: ``three_puma_clearance`` planned (``auto``, margin 0.02 m) and written
  out: collision free and certified on the written file, the margin, the lower bound,
  the added time, the planning time.
* ``missed_collisions``: random 3-PUMA scenes (``clearance.random_scene``, the paper's
  forearm ellipsoids, bases ``SPACING`` reach from the centre) checked every
  ``CHECK_DT`` s by the certified check, against a dense oracle sampling every 1e-4 s
  (:func:`dense_oracle`): pairs the oracle sees touch (distance <= 0) that the
  certified check gives no collision interval (must be 0), lower bounds above the
  oracle's minimum (must be 0), and, for contrast, the pairs today's sampled check at
  the same step misses.
* ``certified_cost_ratio``: CPU time of the certified check over the sampled check
  (``clearance.run``) on the same scene and step: the three-PUMA scene at its 0.01 s,
  and the random scenes at ``CHECK_DT``.
* ``replan_median_s``: replanning PUMA A of the three-PUMA scene among the moving B and
  C, over seeds: the median wall and CPU time of :func:`robotsim.plan.plan_replan`
  (the certified check's set-up excluded), its success rate and added time; with OMPL
  installed, OMPL's RRT-Connect on the same space-time problem (the same edge check, a
  Python motion validator, the same shortcut) side by side. The added time of the
  smooth timing and of the rest-to-rest chain of the same path, and the load average
  (wall times on a shared machine are several times the CPU times).
* ``random_replan_*``: replanning on random 3-PUMA scenes (:func:`_replan_random`):
  the added time with the smooth timing against the rest-to-rest chain.
"""

from __future__ import annotations

import math
import os
import statistics
import tempfile
import time
from typing import Any

import numpy as np

__all__ = ["dense_oracle", "run"]

SCENARIO = "three_puma_clearance"
CHECK_DT = 0.5  # s: the random scenes' check step (coarse: the bound must carry it)
ORACLE_DT = 1e-4
OMPL_BUDGET_S = 10.0  # s per OMPL attempt
SPACING = 0.35  # the arms' bases at 0.35 reach from the centre: many pairs touch


def dense_oracle(scene, trajs, step: float = ORACLE_DT, chunk: int = 20000) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Each pair's smallest exact distance over samples every ``step`` s, independent
    of the certified check. Exact everywhere it can matter: at each chunk the samples
    whose volumes' bounding spheres are nearest are computed first, then every sample
    whose sphere bound is below the best distance so far (the others cannot hold the
    minimum)."""
    from robotsim.clearance.monitor import _Mover, _pair_distance

    end = max(t.end for t in trajs.values())
    times = np.arange(0.0, end + step / 2, step)
    movers = {r.name: _Mover(r, trajs[r.name]) for r in scene.robots}
    names = list(movers)
    out = {f"{a}-{b}": math.inf for i, a in enumerate(names) for b in names[i + 1 :]}
    for k in range(0, len(times), chunk):
        t = times[k : k + chunk]
        P = {n: m.poses(t) for n, m in movers.items()}
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                ma, mb = movers[a], movers[b]
                ca, cb = P[a][:, :, :3, 3], P[b][:, :, :3, 3]
                gap = np.linalg.norm(ca[:, :, None] - cb[:, None, :], axis=-1)
                lb = (gap - ma.radius[None, :, None] - mb.radius[None, None, :]).min(axis=(1, 2))
                first = np.zeros(len(t), dtype=bool)
                first[np.argsort(lb)[:64]] = True
                d = _pair_distance(ma, mb, P[a], P[b], active=first)[0]
                best = min(out[f"{a}-{b}"], float(np.min(d[first])))
                rest = (lb < best) & ~first
                if rest.any():
                    d2 = _pair_distance(ma, mb, P[a], P[b], active=rest)[0]
                    best = min(best, float(np.min(d2[rest])))
                out[f"{a}-{b}"] = best
    return out


def _three_puma() -> dict[str, Any]:
    from robotsim.plan import plan_scenario

    with tempfile.TemporaryDirectory() as tmp:
        _, s, _ = plan_scenario(SCENARIO, tmp, method="auto", margin=0.02, plots=False)
    return {
        "collision_free": s["collision_free"],
        "certified": s["certified"],
        "method": s["method"],
        "margin_m": s["margin_m"],
        "min_distance_m": s["min_distance_m"],
        "min_distance_lower_bound_m": s["min_distance_lower_bound_m"],
        "added_time_s": s["added_time_s"],
        "rest_to_rest_added_time_s": [
            c.get("rest_to_rest_added_time_s")
            for c in s["changes"]  # type: ignore[attr-defined]
        ],
        "timing": [c.get("timing") for c in s["changes"]],  # type: ignore[attr-defined]
        "plan_time_s": s["plan_time_s"],
        "before_min_distance_m": min(
            p["min_distance"]
            for p in s["before"]["pairs"].values()  # type: ignore[index]
        ),
    }


def _oracle_scenes(n: int) -> dict[str, Any]:
    from robotsim.clearance import paper_puma_end_link, run
    from robotsim.clearance.certified import certified_run
    from robotsim.clearance.random_scene import random_scene
    from robotsim.model import load_robot

    model = load_robot("puma560")
    vols = (paper_puma_end_link(),)
    missed = bound_violations = sampled_missed = touching = 0
    cert_cpu = samp_cpu = 0.0
    for seed in range(n):
        scene, trajs = random_scene(seed, model, vols, 3, spacing=SPACING)
        oracle = dense_oracle(scene, trajs)
        c0 = time.process_time()
        cert = certified_run(scene, trajs, CHECK_DT)
        c1 = time.process_time()
        samp = run(scene, trajs, CHECK_DT)
        c2 = time.process_time()
        cert_cpu += c1 - c0
        samp_cpu += c2 - c1
        for name, d_min in oracle.items():
            c = cert.pairs[name]
            if c.min_distance_lower_bound > d_min + 1e-9:
                bound_violations += 1
            if d_min <= scene.contact_threshold:
                touching += 1
                missed += not c.collision_intervals
                sampled_missed += not samp.pairs[name].collision_intervals
    return {
        "scenes": n,
        "pairs": 3 * n,
        "touching_pairs": touching,
        "missed_collisions": missed,
        "lower_bound_violations": bound_violations,
        "sampled_missed_collisions": sampled_missed,
        "check_dt_s": CHECK_DT,
        "oracle_dt_s": ORACLE_DT,
        "certified_cost_ratio_random": cert_cpu / samp_cpu if samp_cpu > 0 else None,
    }


def _cost_ratio(repeats: int) -> dict[str, Any]:
    from robotsim.bench.timing import median_time
    from robotsim.clearance import run
    from robotsim.clearance.certified import certified_run
    from robotsim.clearance.scenario import load_scenario

    sc = load_scenario(SCENARIO)
    cert = median_time(lambda: certified_run(sc.scene, sc.trajectories, sc.dt), repeats=repeats,
                       clock=time.process_time)  # fmt: skip
    samp = median_time(lambda: run(sc.scene, sc.trajectories, sc.dt), repeats=repeats,
                       clock=time.process_time)  # fmt: skip
    return {"certified_cpu_s": cert, "sampled_cpu_s": samp, "certified_cost_ratio": cert / samp}


def _replan(seeds: int, ompl_seeds: int, ompl_budget_s: float) -> dict[str, Any]:
    from robotsim.clearance.scenario import load_scenario
    from robotsim.plan import Budget, MarginCheck, joint_limits, plan_replan

    sc = load_scenario(SCENARIO)
    lim = joint_limits(sc.scene.robot("A").model, sc.trajectories["A"])
    walls, cpus, added, chain, ok = [], [], [], [], 0
    for seed in range(seeds):
        check = MarginCheck(sc.scene, sc.trajectories, sc.dt, 0.02)
        t0, c0 = time.perf_counter(), time.process_time()
        out = plan_replan(check, "A", lim, Budget(30), seed=seed)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        if out.change is not None:
            ok += 1
            added.append(out.change.added_time_s)
            chain.append(out.change.params["rest_to_rest_added_time_s"])
    res: dict[str, Any] = {
        "replan_median_s": statistics.median(walls),
        "replan_median_cpu_s": statistics.median(cpus),
        "replan_success": ok / seeds,
        "replan_added_time_median_s": statistics.median(added) if added else None,
        "replan_rest_to_rest_added_time_median_s": statistics.median(chain) if chain else None,
        "replan_seeds": seeds,
        "load_average": list(os.getloadavg()),
    }
    res.update(_ompl_peer(sc, lim, ompl_seeds, ompl_budget_s))
    return res


def _replan_random(seeds: int, budget_s: float = 5.0) -> dict[str, Any]:
    """Replanning on random 3-PUMA scenes (``SPACING``): in every scene with a pair
    within the margin whose ends are clear, the robot in the most such pairs is
    replanned (seed 0). Its own added time (its new end minus its old one; negative
    when it now finishes earlier) with the smooth timing and as the rest-to-rest chain
    of the same path, medians over the scenes solved."""
    from collections import Counter

    from robotsim.clearance import paper_puma_end_link
    from robotsim.clearance.random_scene import random_scene
    from robotsim.model import load_robot
    from robotsim.plan import Budget, MarginCheck, joint_limits, plan_replan
    from robotsim.plan.solve import _fixed_ends, _violations

    model = load_robot("puma560")
    vols = (paper_puma_end_link(),)
    problems, smooth, chain, cpus, timings = 0, [], [], [], Counter()
    for seed in range(seeds):
        scene, trajs = random_scene(seed, model, vols, 3, spacing=SPACING)
        check = MarginCheck(scene, trajs, 0.05, 0.02)
        bad = _violations(check.full())
        if not bad or _fixed_ends(check, bad):
            continue
        problems += 1
        name = Counter(n for k in bad for n in k.split("-")).most_common(1)[0][0]
        lim = joint_limits(model, trajs[name])
        c0 = time.process_time()
        out = plan_replan(check, name, lim, Budget(budget_s))
        cpus.append(time.process_time() - c0)
        if out.change is None:
            continue
        smooth.append(out.change.added_time_s)
        chain.append(out.change.params["rest_to_rest_added_time_s"])
        timings[str(out.change.params["timing"])] += 1
    med = lambda x: statistics.median(x) if x else None  # noqa: E731
    return {
        "random_replan_scenes": seeds,
        "random_replan_problems": problems,
        "random_replan_solved": len(smooth),
        "random_replan_added_time_median_s": med(smooth),
        "random_replan_rest_to_rest_added_time_median_s": med(chain),
        "random_replan_saved_median_s": med([b - a for a, b in zip(smooth, chain, strict=True)]),
        "random_replan_timing": dict(timings),
        "random_replan_median_cpu_s": med(cpus),
        "random_replan_budget_s": budget_s,
    }


def _ompl_peer(sc, lim, seeds: int, budget_s: float) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """OMPL's RRT-Connect in the same space-time (joints and time), with the same edge
    check as a motion validator (directed in time) and the same goal states and
    shortcut; None when OMPL is not installed."""
    try:
        from ompl import base as ob
        from ompl import geometric as og
    except ImportError:
        return {"ompl_replan_median_s": None, "ompl": "not installed"}
    from robotsim.plan import Budget, MarginCheck
    from robotsim.plan.spacetime import _active_joints, _Edges, shortcut, states_to_trajectory

    try:
        from ompl import util as ou

        ou.setLogLevel(ou.LOG_WARN)
    except Exception:
        pass
    model = sc.scene.robot("A").model
    traj = sc.trajectories["A"]
    qs, qg = traj.q(0.0), traj.q(traj.end)
    nq = model.nq
    walls, ok = [], 0
    for seed in range(seeds):
        check = MarginCheck(sc.scene, sc.trajectories, sc.dt, 0.02)
        edges = _Edges(check, "A", lim, 0.05)
        others_end = max(t.end for n, t in sc.trajectories.items() if n != "A")
        t_min = float(lim.quintic_duration(qg - qs))
        H = others_end + 2 * max(traj.duration, t_min) + 1.0
        active = _active_joints(check, "A")
        lo = np.where(active, np.maximum(model.lower, np.minimum(qs, qg) - 1.0), np.minimum(qs, qg))
        hi = np.where(active, np.minimum(model.upper, np.maximum(qs, qg) + 1.0), np.maximum(qs, qg))
        t0 = time.perf_counter()
        space = ob.RealVectorStateSpace(nq + 1)
        b = ob.RealVectorBounds(nq + 1)
        for j in range(nq):
            b.setLow(j, float(lo[j]))
            b.setHigh(j, float(max(hi[j], lo[j] + 1e-9)))
        b.setLow(nq, 0.0)
        b.setHigh(nq, float(H))
        space.setBounds(b)
        si = ob.SpaceInformation(space)

        def vec(s) -> tuple[np.ndarray, float]:  # type: ignore[no-untyped-def]
            return np.array([s[j] for j in range(nq)]), float(s[nq])

        class Validator(ob.MotionValidator):  # type: ignore[misc]
            def __init__(self, si, edges) -> None:  # type: ignore[no-untyped-def]
                super().__init__(si)
                self.edges = edges

            def checkMotion(self, s1, s2, *args):  # type: ignore[no-untyped-def]
                (qa, ta), (qb, tb) = vec(s1), vec(s2)
                return self.edges.valid(qa, ta, qb, tb)

        si.setStateValidityChecker(lambda s: True)
        mv = Validator(si, edges)
        si.setMotionValidator(mv)
        si.setup()
        pdef = ob.ProblemDefinition(si)
        start = space.allocState()
        for j in range(nq):
            start[j] = float(qs[j])
        start[nq] = 0.0
        pdef.addStartState(start)
        goals = ob.GoalStates(si)
        for c in (1.0, 1.25, 1.6, 2.0, 3.0):
            tg = c * t_min
            if edges.hold_valid(qg, tg, max(others_end, H)):
                g = space.allocState()
                for j in range(nq):
                    g[j] = float(qg[j])
                g[nq] = tg
                goals.addState(g)
        pdef.setGoal(goals)
        planner = og.RRTConnect(si)
        planner.setProblemDefinition(pdef)
        planner.setup()
        solved = planner.solve(budget_s)
        states = None
        if solved and pdef.hasExactSolution():
            path = pdef.getSolutionPath()
            states = [vec(path.getState(i)) for i in range(path.getStateCount())]
            states = shortcut(states, check, "A", lim, Budget(30), seed=seed, hold_until=others_end)
            states_to_trajectory(states)
            ok += 1
        walls.append(time.perf_counter() - t0)
    return {
        "ompl_replan_median_s": statistics.median(walls),
        "ompl_replan_success": ok / seeds,
        "ompl_budget_s": budget_s,
        "ompl": "RRTConnect, the same space-time edge check as a Python motion validator",
    }


def run(quick: bool = False) -> dict[str, Any]:
    """The figures; ``quick``: 4 oracle scenes instead of 1,000, 2 replanning seeds
    instead of 11 (OMPL: one, with a 2 s budget), 8 random replanning scenes instead
    of 100, fewer repeats."""
    out: dict[str, Any] = {"three_puma": _three_puma()}
    out.update(_oracle_scenes(4 if quick else 1000))
    out.update(_cost_ratio(2 if quick else 7))
    out.update(_replan(2 if quick else 11, 1 if quick else 11, 2.0 if quick else OMPL_BUDGET_S))
    out.update(_replan_random(8 if quick else 100))
    return out
