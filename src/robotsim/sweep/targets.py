"""Base scenarios of a sweep: finding them (file or name), checking a parameter path
against them, and running one patched copy.

Any kind of :data:`robotsim.scenario.kinds.KINDS` with a runner runs through it (mobile,
hand_ball_transfer, motion_check) and is checked against the registry's schema;
clearance studies (``kind: clearance``, which ``robotsim run`` does not run) run through
:func:`run_clearance`, which adds the whole-study numbers a sweep wants
(``min_distance``, ``collision_time``) to the per-pair summary of ``robotsim clearance``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from robotsim.errors import ScenarioError
from robotsim.run_io import RunOptions
from robotsim.scenario.kinds import kind_of

__all__ = ["resolve_base", "run_base", "run_clearance", "validate_base"]


def resolve_base(base: str, sweep_file: Path) -> Path:
    """``base:`` -> a scenario file: a path relative to the sweep file, a path, or the
    name of a shipped scenario (``soccer_obstacles``, :mod:`robotsim.shipped`)."""
    from robotsim.shipped import find_shipped, shipped_names

    for cand in (sweep_file.parent / base, Path(base)):
        if cand.is_file():
            return cand.resolve()
    found = find_shipped(base, "scenario")
    if found is not None:
        return found
    raise ScenarioError(
        f"{sweep_file}: base: {base!r} is neither a scenario file nor a shipped scenario; "
        f"valid names: {', '.join(shipped_names('scenario')) or '(none)'}"
    )


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
    """A clearance study as a run: distance curves of every pair (recorded as signals
    when a run store is given) and its summary (per pair, plus the study's minimum
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
