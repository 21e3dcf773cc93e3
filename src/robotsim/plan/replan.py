"""Replanning: a new joint path for one robot between its planned start and goal, the
others moving as planned (a time-indexed obstacle): the space-time RRT-Connect of
:mod:`robotsim.plan.spacetime`, shortcut and retimed, written as a chain of quintics
within the robot's limits, then certified over the whole run."""

from __future__ import annotations

from robotsim.plan.check import MarginCheck
from robotsim.plan.limits import JointLimits
from robotsim.plan.outcome import Budget, Change, Outcome
from robotsim.plan.smooth import smooth_states
from robotsim.plan.spacetime import plan_spacetime, shortcut, states_to_trajectory

__all__ = ["plan_replan"]


def plan_replan(
    check: MarginCheck,
    name: str,
    limits: JointLimits,
    budget: Budget,
    *,
    seed: int = 0,
    edge_dt: float = 0.05,
    smooth: bool = True,
) -> Outcome:
    """Replan robot ``name`` (see the module); ``smooth``: time the path without
    stopping at its waypoints where that is proved clear (else rest to rest)."""
    traj = check.trajectories[name]
    n0 = check.checks
    t0 = traj.start if traj.warp is None else float(traj.warp.inverse(traj.start))
    q_start = traj.q(t0 - 1e-9 if t0 > 0 else 0.0)
    q_goal = traj.q(traj.end)
    res = plan_spacetime(
        check, name, q_start, q_goal, t0, limits, budget, seed=seed, edge_dt=edge_dt
    )
    if res.states is None:
        return Outcome(None, res.reason, check.checks - n0)
    others_end = max((t.end for n, t in check.trajectories.items() if n != name), default=0.0)
    states = shortcut(
        res.states, check, name, limits, budget, seed=seed, edge_dt=edge_dt, hold_until=others_end
    )
    chain = states_to_trajectory(states)
    new, timing, pieces = chain, "rest-to-rest", ()
    if smooth:
        sm = smooth_states(
            states, check, name, limits, budget, hold_until=others_end, edge_dt=edge_dt
        )
        if sm.trajectory.end <= chain.end + 1e-9:
            new, pieces = sm.trajectory, sm.pieces
            kinds = {str(p["timing"]) for p in pieces}
            timing = kinds.pop() if len(kinds) == 1 else "mixed"
    final = check.robot_clear(name, new, quick=False)
    if not final.clear and new is not chain:  # each piece was proved clear: said, not hidden
        new, timing, pieces = chain, "rest-to-rest (smoothed failed its final check)", ()
        final = check.robot_clear(name, new, quick=False)
    if not final.clear:  # every edge was proved clear: this would be a bug, said plainly
        return Outcome(
            None,
            f"replanned path of {name} failed its final certified check "
            f"({final.worst}: {final.lower_bound:.4f} m)",
            check.checks - n0,
        )
    params = {
        "waypoints": [{"t": t, "q": q.tolist()} for q, t in states],
        "timing": timing,
        "pieces": list(pieces),
        "rest_to_rest_added_time_s": chain.end - traj.end,
        "states_grown": res.nodes,
        "edges_checked": res.edges_checked,
        "iterations": res.iterations,
    }
    change = Change(name, "replan", new, new.end - traj.end, params, final.lower_bound)
    return Outcome(
        change,
        f"{name} replanned through {len(states) - 2} intermediate waypoint(s) ({res.reason})",
        check.checks - n0,
    )
