"""Running one scenario mapping of any kind, as ``robotsim run`` and sweeps do.

Any kind of :data:`robotsim.scenario.kinds.KINDS` with a runner runs through it (mobile,
hand_ball_transfer, motion_check, ...) and is checked against the registry's schema;
clearance studies (``kind: clearance``, which ``robotsim run`` does not run) run through
:func:`run_clearance`, which adds the whole-study numbers a sweep wants
(``min_distance``, ``collision_time``) to the per-pair summary of ``robotsim clearance``.
Used by sweeps (a patched base scenario per run) and by the re-run of a recorded run
(:mod:`robotsim.scenario.verify`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from robotsim.errors import ScenarioError
from robotsim.run_io import RunOptions
from robotsim.scenario.kinds import kind_of

__all__ = ["run_base", "run_clearance", "validate_base"]


def run_base(data: dict[str, Any], source: str, options: RunOptions) -> dict[str, Any]:
    """Run one (patched) base scenario mapping; returns its summary."""
    kind = kind_of(data, source)
    if kind.name == "clearance":
        return run_clearance(data, source, options)
    if kind.runner is None:
        raise ScenarioError(
            f"{source}: kind: {kind.name} cannot be a sweep's base (it runs under "
            f"'robotsim {kind.command}')"
        )
    return kind.load_runner()(data, source, options)


def validate_base(data: dict[str, Any], source: str) -> None:
    """Check a patched base scenario against its kind's schema (the registry's) without
    running it; ScenarioError naming the field otherwise."""
    from robotsim.validation import validate_as

    kind = kind_of(data, source)
    if kind.name != "clearance" and kind.runner is None:
        raise ScenarioError(f"{source}: kind: {kind.name} cannot be a sweep's base")
    validate_as(kind.load_schema(), data, source, ScenarioError)
    if kind.name == "motion_check":  # its physics: section is checked at run time
        from robotsim.motion.profile import PhysicsSpec

        physics = dict(data.get("physics") or {})
        validate_as(PhysicsSpec, physics, f"{source}: physics", ScenarioError)


def run_clearance(data: dict[str, Any], source: str, options: RunOptions) -> dict[str, Any]:
    """A clearance study as a run: recorded when a run store is given (its scene, the
    robots' joints, every pair's distance curve and the collisions as events: it
    replays in 3D) and its summary (per pair, plus the study's minimum
    distance and total collision time)."""
    from robotsim.clearance import run
    from robotsim.clearance.record import ClearanceRecording
    from robotsim.clearance.scenario import ClearanceScenario, build
    from robotsim.run_io import recorded_run
    from robotsim.validation import validate_as

    sc = build(validate_as(ClearanceScenario, data, source, ScenarioError), source)
    name = Path(source).stem
    with recorded_run(options, name, {"file": source, "dt": sc.dt}) as recorder:
        # the scene, the robots' poses and every pair's distance (a 3D replay)
        recording = ClearanceRecording(recorder, sc.scene, sc.trajectories)
        res = run(sc.scene, sc.trajectories, sc.dt, t_end=sc.t_end, cutoff=sc.cutoff)
        recording.chunk(res.times, {k: p.distance for k, p in res.pairs.items()})
        recording.finish(res)
    pairs = {k: p.summary() for k, p in res.pairs.items()}
    ivs = [iv for p in res.pairs.values() for iv in p.collision_intervals]
    return {
        "scenario": name,
        "kind": "clearance",
        "file": source,
        "pairs": pairs,
        "min_distance": min(float(p.min_distance) for p in res.pairs.values()),
        "collision_time": float(sum(b - a for a, b in ivs)),
        "collides": bool(ivs),
    }
