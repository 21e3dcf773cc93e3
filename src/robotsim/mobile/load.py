"""Validating a ``kind: mobile`` scenario: the schema, then the checks a schema cannot do
(robot models and their drives, expanded robot names, overlapping starts, positions on
the field, obstacles), giving the robots in SI units (:class:`RobotSetup`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from robotsim.errors import RobotsimError, ScenarioError, UnknownNameError
from robotsim.file_scope import OutsideScopeError
from robotsim.mobile.obstacles import place_obstacles
from robotsim.mobile.schema import MobileScenario
from robotsim.mobile.types import RobotSetup
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Sphere
from robotsim.model.robot import RobotModel
from robotsim.physics.drives import drivable, drive_of
from robotsim.validation import format_validation_error

__all__ = ["RobotSetup", "footprint_radius", "load_mobile"]


def _angle(sc: MobileScenario, v: float) -> float:
    return math.radians(v) if sc.units.angle == "deg" else float(v)


def footprint_radius(model: RobotModel) -> float:
    """Radius (m) of the smallest vertical cylinder about the root holding every
    collision shape at q = 0 (shapes by their bounding spheres)."""
    poses = model.fk_all(model.zero())
    best = 0.0
    for i, link in enumerate(model.links):
        for sh in link.collisions:
            c = (poses[i] @ sh.T_link_shape)[:3, 3]
            g = sh.geometry
            if isinstance(g, Sphere):
                r = g.radius
            elif isinstance(g, Cylinder):
                r = math.hypot(g.radius, g.length / 2)
            elif isinstance(g, Capsule):
                r = g.radius + g.length / 2
            elif isinstance(g, Box):
                r = 0.5 * math.sqrt(sum(s * s for s in g.size))
            elif isinstance(g, Ellipsoid):
                r = max(g.radii)
            else:
                r = 0.0
            best = max(best, math.hypot(c[0], c[1]) + r)
    return best if best > 0 else 0.3


def _load_model(name: str, where: str, source: str, base: Path) -> RobotModel:
    from robotsim.model import library_names, load_robot

    candidate = (base / name) if not Path(name).is_absolute() else Path(name)
    target = str(candidate) if candidate.suffix and candidate.exists() else name
    try:
        return load_robot(target)
    except OutsideScopeError as exc:
        raise ScenarioError(f"{source}: {where}: {exc}") from None
    except RobotsimError as exc:
        missing = not (candidate.exists() or Path(target).exists())
        if target == name and name not in library_names() and missing:
            if candidate.suffix or "/" in name or "\\" in name:  # meant as a file
                raise ScenarioError(
                    f"{source}: {where}: no robot file {str(candidate)!r} (a path is read "
                    "relative to the scenario file's folder); or a library robot: "
                    f"{', '.join(library_names())}"
                ) from None
            unknown = UnknownNameError("robot", name, library_names())
            raise ScenarioError(f"{source}: {where}: {unknown} (or give a robot file)") from None
        raise ScenarioError(f"{source}: {where}: {exc}") from None


def _no_drive(model: RobotModel, name: str) -> str:
    """Why ``model`` cannot drive: what its profile found and what a drive needs."""
    from robotsim.profile.resolve import resolve_profile

    prof = resolve_profile(model)
    found = (
        "; ".join(n for n in prof.notes if "wheel" in n)
        if prof.wheels
        else "no wheels found: continuous joints turning a disc that touches the ground"
    )
    return (
        f"robot {name!r} has no wheel drive ({found}); a mobile base needs "
        "2 parallel wheels (differential) or 3/4 wheels with non-parallel axles (omni), "
        "or a profile file with 'wheels:'/'drive:'"
    )


def load_mobile(
    data: dict[str, Any], source: str = "<scenario>", seed: int | None = None
) -> tuple[MobileScenario, list[RobotSetup], np.ndarray]:
    """Validate; returns the scenario, the expanded robots and the obstacles ``(N, 3)``
    ``[x, y, radius]`` (the random layout drawn from ``seed`` or the file's seed)."""
    try:
        sc = MobileScenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(format_validation_error(exc, MobileScenario, source)) from None
    base = Path(source).resolve().parent if source != "<scenario>" else Path.cwd()
    models: dict[str, RobotModel] = {}
    robots: list[RobotSetup] = []
    hx, hy = sc.field.size[0] / 2, sc.field.size[1] / 2
    for i, r in enumerate(sc.robots):
        if r.model not in models:
            models[r.model] = _load_model(r.model, f"robots[{i}].model", source, base)
        model = models[r.model]
        if drive_of(model) is None:
            raise ScenarioError(f"{source}: robots[{i}].model: {_no_drive(model, r.model)}")
        model = models[r.model] = drivable(model)
        for k in range(r.count):
            off = np.array([r.spacing[0] * k, r.spacing[1] * k, 0.0])
            start = np.array([r.start[0], r.start[1], _angle(sc, r.start[2])]) + off
            g = r.goal if r.goal is not None else r.start
            goal = np.array([g[0], g[1], _angle(sc, g[2])]) + off
            path = np.array(r.path, dtype=float).reshape(-1, 2) + off[:2]
            name = r.name if r.count == 1 else f"{r.name}{k + 1}"
            for label, p in (("start", start), ("goal", goal)):
                if abs(p[0]) > hx or abs(p[1]) > hy:
                    raise ScenarioError(
                        f"{source}: robots[{i}].{label}: ({p[0]:g}, {p[1]:g}) is "
                        f"outside the field ({2 * hx:g} x {2 * hy:g} m, centred "
                        f"on the origin)"
                    )
            robots.append(RobotSetup(name, r, model, start, goal, path, footprint_radius(model)))
    names = [r.name for r in robots]
    if len(set(names)) != len(names):
        raise ScenarioError(f"{source}: robots: expanded robot names collide: {names}")
    if sc.robots_collide:
        for k, a in enumerate(robots):
            for b in robots[k + 1 :]:
                gap = float(np.hypot(*(a.start[:2] - b.start[:2]))) - a.radius - b.radius
                if gap < 0:
                    raise ScenarioError(
                        f"{source}: robots: the starts of {a.name!r} at ({a.start[0]:g}, "
                        f"{a.start[1]:g}) and {b.name!r} at ({b.start[0]:g}, {b.start[1]:g}) "
                        f"overlap by {-gap:.2f} m; move them apart or set robots_collide: false"
                    )
    obstacles = place_obstacles(sc, robots, source, sc.seed if seed is None else seed)
    return sc, robots, obstacles
