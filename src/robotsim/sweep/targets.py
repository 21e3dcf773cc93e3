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


def _scenario_dirs() -> list[Path]:
    from robotsim.shipped import shipped_dir

    return [d for d in (shipped_dir("scenario"),) if d.is_dir()]


def resolve_base(base: str, sweep_file: Path) -> Path:
    """``base:`` -> a scenario file: a path relative to the sweep file, a path, or the
    name of a shipped scenario (``soccer_obstacles``)."""
    for cand in (sweep_file.parent / base, Path(base)):
        if cand.is_file():
            return cand.resolve()
    names: dict[str, Path] = {}
    for d in _scenario_dirs():
        for f in sorted(d.glob("*.yaml")):
            names.setdefault(f.stem, f)
    stem = Path(base).stem if base.endswith((".yaml", ".yml")) else base
    if stem in names:
        return names[stem]
    raise ScenarioError(
        f"{sweep_file}: base: {base!r} is neither a scenario file nor a shipped scenario; "
        f"valid names: {', '.join(names) or '(none)'}"
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
    from pydantic import ValidationError

    from robotsim.validation import format_validation_error

    kind = kind_of(data, source)
    if kind.name != "clearance" and kind.runner is None:
        raise ScenarioError(f"{source}: kind: {kind.name} cannot be a sweep's base")
    model = kind.load_schema()
    try:
        model.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(format_validation_error(exc, model, source)) from None
    if kind.name == "motion_check":  # its physics: section is checked at run time
        from robotsim.motion.profile import PhysicsSpec

        try:
            PhysicsSpec.model_validate(dict(data.get("physics") or {}))
        except ValidationError as exc:
            raise ScenarioError(
                format_validation_error(exc, PhysicsSpec, f"{source}: physics")
            ) from None


def run_clearance(data: dict[str, Any], source: str, options: RunOptions) -> dict[str, Any]:
    """A clearance study as a run: distance curves of every pair (recorded as signals
    when a run store is given) and its summary (per pair, plus the study's minimum
    distance and total collision time)."""
    import numpy as np
    from pydantic import ValidationError

    from robotsim.clearance import run
    from robotsim.clearance.scenario import ClearanceScenario, build
    from robotsim.run_io import open_recorder
    from robotsim.validation import format_validation_error

    try:
        spec = ClearanceScenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(format_validation_error(exc, ClearanceScenario, source)) from None
    sc = build(spec, source)
    name = Path(source).stem
    recorder = open_recorder(options)
    recorder.start_run(name, {"file": source, "dt": sc.dt})
    status = "failed"
    try:
        res = run(sc.scene, sc.trajectories, sc.dt, t_end=sc.t_end, cutoff=sc.cutoff)
        if hasattr(recorder, "signals"):
            for pair, p in res.pairs.items():
                d = np.where(np.isfinite(p.distance), p.distance, np.nan)
                recorder.signals(pair, res.times, ("distance",), d[:, None])
        status = "completed"
    finally:
        recorder.finish(status)
        close = getattr(recorder, "close", None)
        if close is not None:
            close()
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
