"""The one test every plan passes: certified clearance at a margin.

:class:`MarginCheck` holds a scene, its planned trajectories, the sampling step and the
margin (m). :meth:`MarginCheck.robot_clear` says whether one robot, on a candidate
trajectory, keeps every pair it is in at more than the margin over the whole run,
with the others on their planned trajectories: the certified check of
:mod:`robotsim.clearance.certified` (a proof between samples, not a sampled guess),
stopping at the first sample found below the margin (a quick "no").

The searches ask for a little more than the margin (:data:`SEARCH_SLACK`): the tight
lower bound that ``robotsim clearance --certified`` reports (within
``certified_run``'s ``tight_tol`` of the true minimum, 1 mm) of a planned file then
proves the margin too, not only the plan's own check at the margin.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from robotsim.clearance.certified import (
    CertifiedPair,
    CertifiedResult,
    Motion,
    certified_run,
    certify_pair,
)
from robotsim.clearance.scene import Scene
from robotsim.clearance.trajectory import Trajectory

__all__ = ["SEARCH_SLACK", "MarginCheck", "RobotCheck"]

#: m above the margin that searches prove (the report's 1 mm tightness, and 0.5 mm)
SEARCH_SLACK = 1.5e-3


@dataclass(frozen=True)
class RobotCheck:
    """One robot's pairs checked: ``clear`` when every pair's certified bound is above
    the margin; ``lower_bound`` the smallest bound (m); ``worst`` that pair's name."""

    clear: bool
    lower_bound: float
    worst: str
    pairs: tuple[CertifiedPair, ...]


class MarginCheck:
    """Certified clearance of candidate trajectories at ``margin`` (m); samples every
    ``dt`` (s). ``time_tol``: the refinement's finest interval (s); ``slack`` (m):
    what :meth:`robot_clear` proves above the margin by default (``search_level``)."""

    def __init__(
        self,
        scene: Scene,
        trajectories: Mapping[str, Trajectory],
        dt: float,
        margin: float,
        time_tol: float = 1e-4,
        slack: float = SEARCH_SLACK,
    ) -> None:
        self.scene = scene
        self.trajectories = dict(trajectories)
        self.dt = float(dt)
        self.level = max(float(margin), float(scene.contact_threshold))
        self.search_level = self.level + max(float(slack), 0.0)
        self.time_tol = time_tol
        self.motions = {r.name: Motion(r, self.trajectories[r.name]) for r in scene.robots}
        self.checks = 0
        self._last_bad: dict[str, str] = {}

    def horizon(self, trajectories: Mapping[str, Trajectory] | None = None) -> float:
        """The end (s) of the last trajectory."""
        trajs = self.trajectories if trajectories is None else trajectories
        return max(t.end for t in trajs.values())

    def times(self, t0: float, t1: float, dt: float | None = None) -> np.ndarray:
        """Sample times from ``t0`` to ``t1`` (s) at most ``dt`` apart (default the
        check's step), both ends included."""
        step = self.dt if dt is None else dt
        n = max(2, math.ceil((t1 - t0) / step - 1e-9) + 1)
        return np.linspace(t0, t1, n)

    def robot_clear(
        self,
        name: str,
        traj: Trajectory,
        *,
        t0: float | None = None,
        t1: float | None = None,
        quick: bool = True,
        dt: float | None = None,
        level: float | None = None,
    ) -> RobotCheck:
        """Whether ``name`` on ``traj`` keeps every pair it is in above the margin over
        ``[t0, t1]`` (default: the whole run, the others on their planned
        trajectories). ``quick``: stop each pair at its first sample below; ``dt``:
        the sampling step (default the check's; the bound holds between samples at any
        step, a coarser one refines more near the others); ``level``: the distance (m)
        to stay above, default ``search_level`` (never below the margin)."""
        m = self.motions[name].following(traj)
        trajs = {**self.trajectories, name: traj}
        a = 0.0 if t0 is None else t0
        b = self.horizon(trajs) if t1 is None else t1
        times = self.times(a, b, dt)
        mine = m.at(times)
        out = []
        # the robot that last came too close is checked first: a "no" comes sooner
        last = self._last_bad.get(name)
        others = sorted((n for n in self.motions if n != name), key=lambda n: n != last)
        for other in others:
            mo = self.motions[other]
            self.checks += 1
            p, _ = certify_pair(
                m,
                mo,
                times,
                self.search_level if level is None else max(float(level), self.level),
                samples=(mine, mo.at(times)),
                time_tol=self.time_tol,
                tight_tol=math.inf,
                stop_at_contact=quick,
            )
            out.append(p)
            if not p.clear:
                self._last_bad[name] = other
                if quick:
                    break
        worst = min(out, key=lambda p: p.min_distance_lower_bound)
        return RobotCheck(
            clear=all(p.clear for p in out),
            lower_bound=worst.min_distance_lower_bound,
            worst=worst.name,
            pairs=tuple(out),
        )

    def full(self, trajectories: Mapping[str, Trajectory] | None = None) -> CertifiedResult:
        """Every pair certified at the margin with the tight lower bound (the report)."""
        trajs = self.trajectories if trajectories is None else trajectories
        return certified_run(self.scene, trajs, self.dt, level=self.level, time_tol=self.time_tol)
