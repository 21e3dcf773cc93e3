"""How much a walk withstands, measured in physics (docs/walk.md, ``bench walk``).

- :func:`largest_push`: the largest impulse (N s) on the root, spread over 0.1 s in the
  middle of a single support phase, after which the walk still ends without a fall;
  lateral pushes go towards the swing foot's side (away from the stance foot: the
  capture point leaves the sole fastest that way), frontal ones forward. Bisection
  between a survived and a fatal impulse, ``iterations`` walks.
- :func:`slope_walk`: the walk planned on a slope (``Ground(slope_x)``: footsteps on it,
  soles tilted onto it, the CoM at its height above it) walked up or down it.
- :func:`friction_sweep`: the walk on floors of decreasing friction.

Every verdict is a :class:`~robotsim.walk.simulate.WalkRun` summary: the numbers behind
it (fell, when, why; distance; tilt) come with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from robotsim.walk.biped import Biped
from robotsim.walk.params import WalkParams
from robotsim.walk.simulate import Push, simulate_goal
from robotsim.walk.swing import Ground

__all__ = ["PushResult", "friction_sweep", "largest_push", "slope_walk"]


@dataclass(frozen=True)
class PushResult:
    """The largest impulse survived (N s) and the smallest that felled it (None: none
    up to the search's top), in ``direction`` (x, y), at ``t`` (s), with the trials."""

    survived_ns: float
    fell_ns: float | None
    direction: tuple[float, float]
    t: float
    trials: tuple[tuple[float, bool], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "survived_ns": self.survived_ns,
            "fell_ns": self.fell_ns,
            "direction": list(self.direction),
            "t_s": self.t,
            "trials": [{"impulse_ns": i, "fell": f} for i, f in self.trials],
        }


def _walk(biped: Biped, distance: float, params: WalkParams | None, **kw: Any) -> Any:
    from robotsim.walk.pattern import generate_walk

    speed = kw.pop("speed", None)
    pat = generate_walk(biped, distance, speed=speed, params=params, ground=kw.get("ground"))
    return pat, lambda **more: simulate_goal(
        biped, pat.goal, pat.pairs, pat.params.as_params(), **{**kw, **more}
    )


def largest_push(
    biped: Biped,
    direction: str = "lateral",
    distance: float | None = None,
    params: WalkParams | None = None,
    iterations: int = 6,
    top: float | None = None,
) -> PushResult:
    """The largest push survived mid-stride (module docs). ``direction``: ``lateral``
    or ``frontal``; ``distance`` (m, default three leg lengths: a few steps after the
    push); ``top`` (N s): the search's upper end (default the robot's mass x 0.5 m/s)."""
    from robotsim.errors import InputError
    from robotsim.walk.engine import START_HOLD, WalkEngine

    if direction not in ("lateral", "frontal"):
        raise InputError(f"push direction {direction!r}: lateral or frontal")
    d = 3.0 * biped.leg_length if distance is None else distance
    pat, run = _walk(biped, d, params)
    # the engine stands one preview horizon, is given the goal, holds START_HOLD, then
    # walks the same steps: push in the middle of the third step's swing (steady walking)
    eng = WalkEngine(biped, pat.params.as_params())
    hold = eng.N * eng.dt + START_HOLD / eng.res.omega
    step = pat.plan.steps[min(2, len(pat.plan.steps) - 1)]
    t_mid = hold + (step.t_lift + step.t_land) / 2 - pat.plan.t_start
    if direction == "lateral":
        sign = 1.0 if step.side == 0 else -1.0  # towards the swing foot's side
        vec = (0.0, sign)
    else:
        vec = (1.0, 0.0)
    hi = biped.mass * 0.5 if top is None else top
    lo, bad = 0.0, None
    trials: list[tuple[float, bool]] = []
    x = hi / 4
    for _ in range(iterations):
        fell = run(pushes=(Push(t_mid - 0.05, x, vec, 0.1),)).fell
        trials.append((x, fell))
        if fell:
            bad = x
        else:
            lo = x
        if bad is not None:
            x = (lo + bad) / 2
        elif lo >= hi:
            break  # survived the search's top
        else:
            x = min(2 * x, hi)
    return PushResult(lo, bad, vec, t_mid - 0.05, tuple(trials))


def slope_walk(
    biped: Biped,
    degrees: float,
    distance: float | None = None,
    params: WalkParams | None = None,
    speed: float | None = None,
) -> dict[str, Any]:
    """Walk ``distance`` (default three leg lengths) up (``degrees`` > 0) or down a
    slope planned for it (module docs) at a mean ``speed`` (m/s; default the walk's
    default); the run's summary."""
    d = 3.0 * biped.leg_length if distance is None else distance
    ground = Ground(slope_x=math.tan(math.radians(degrees)))
    _, run = _walk(biped, d, params, ground=ground, speed=speed)
    return {"slope_deg": degrees, **run().summary()}


def friction_sweep(
    biped: Biped,
    frictions: tuple[float, ...] = (1.0, 0.6, 0.4, 0.3, 0.2),
    distance: float | None = None,
    params: WalkParams | None = None,
) -> list[dict[str, Any]]:
    """The walk (``distance``, default three leg lengths) on floors of each friction;
    per floor: friction, fell, distance, heading change, tilt."""
    d = 3.0 * biped.leg_length if distance is None else distance
    _, run = _walk(biped, d, params)
    out = []
    for mu in frictions:
        s = run(friction=mu).summary()
        keys = ("fell", "fell_at_s", "distance_m", "heading_change_deg", "max_tilt_deg")
        out.append({"friction": mu, **{k: s[k] for k in keys}})
    return out
