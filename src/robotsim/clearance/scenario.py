"""Clearance scenario files (``kind: clearance``), validated with pydantic.

Example (angles in degrees, lengths in metres)::

    kind: clearance
    dt: 0.01                    # sampling step (s)
    contact_threshold: 0.0      # collision when distance <= this (m)
    robots:
      - name: A
        model: puma560          # library name or robot file (relative to this file's folder)
        base: {xyz: [0, 0, 0], rpy: [0, 0, 0]}
        volumes:
          - {link: link3, type: ellipsoid, radii: [0.12, 0.125, 0.25], xyz: [0, 0, 0.2159]}
          - {link: link2, fit: ellipsoid}          # fitted to the link's geometry
          - {link: link1, fit: model}              # the link's own collision primitives
        # or: volumes: paper   -- an ellipsoid on every link by the paper's construction
        # or: volumes: {fit: capsule}  -- that fit on every moving link (any arm, any file)
        start: {joint2: -30, joint3: -30}          # other joints 0
        segments:
          - {type: line, link: link4, from: [0.55, -0.35, 0.8], to: [0.67, 0.35, 0.8],
             duration: 4}                          # world positions, position-only IK
          - {type: quintic, to: {joint1: 20}, duration: 2}
          - {type: trapezoid, to: {joint1: 0}, duration: 2, accel_fraction: 0.25}
          - {type: hold, duration: 0.5}            # stay still
          - {type: spline, joints: [joint1, joint2], t: [0, 1, 2],      # cubic Hermite
             q: [[0, 0], [10, 5], [20, 10]], qd: [[0, 0], [10, 5], [0, 0]]}  # deg, deg/s
        delay: 0.5                 # s: the trajectory starts late (holds its start before)
        time_warp: {t: [...], s: [...], rate: [...]}   # scene time -> own time (TimeWarp)

Every error names the file and the field path (``robots[1].volumes[0].radii[2]``).
Files written before the ``kind:`` registry say ``format: robotsim-clearance/1`` instead;
they still load, with a deprecation note on stderr (once per process).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from robotsim.clearance.paper_volumes import paper_link_volumes
from robotsim.clearance.scene import PlacedRobot, Scene
from robotsim.clearance.timewarp import TimeWarp
from robotsim.clearance.trajectory import (
    CartesianLine,
    Hold,
    JointQuintic,
    JointSpline,
    JointTrapezoid,
    Segment,
    Trajectory,
    UnreachableLine,
)
from robotsim.clearance.volumes import LinkVolume, fit_link_volume, model_link_volumes
from robotsim.errors import RobotsimError, ScenarioError
from robotsim.model import load_robot
from robotsim.model.geometry import Box, Capsule, Ellipsoid, Sphere
from robotsim.model.robot import RobotModel
from robotsim.shipped import resolve
from robotsim.spatial import make_T, rpy_to_R
from robotsim.validation import read_yaml_file, validate_as

__all__ = ["ClearanceScenario", "LoadedScenario", "load_scenario"]

#: The largest coordinate or size in the file's length unit: 10 km in millimetres (a
#: base at 1e308 overflowed the distances to inf and leaked numpy warnings).
MAX_FILE_LENGTH = 1.0e7
Pos = Annotated[float, Field(gt=0)]
Size = Annotated[float, Field(gt=0, le=MAX_FILE_LENGTH)]
Coord = Annotated[float, Field(ge=-MAX_FILE_LENGTH, le=MAX_FILE_LENGTH)]
Vec3 = tuple[Coord, Coord, Coord]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)


class BaseSpec(_Strict):
    xyz: Vec3 = (0.0, 0.0, 0.0)
    rpy: Vec3 = (0.0, 0.0, 0.0)


class VolumeSpec(_Strict):
    link: str
    type: Literal["ellipsoid", "sphere", "capsule", "box"] | None = None
    fit: Literal["ellipsoid", "sphere", "capsule", "box", "model"] | None = None
    radii: tuple[Size, Size, Size] | None = None
    radius: Size | None = None
    length: Annotated[float, Field(ge=0)] | None = None
    size: tuple[Size, Size, Size] | None = None
    xyz: Vec3 = (0.0, 0.0, 0.0)
    rpy: Vec3 = (0.0, 0.0, 0.0)

    @model_validator(mode="after")
    def _one_way(self) -> VolumeSpec:
        if (self.type is None) == (self.fit is None):
            raise ValueError("give either 'type' (with its sizes) or 'fit'")
        need = {"ellipsoid": "radii", "sphere": "radius", "capsule": "radius", "box": "size"}
        if self.type is not None and getattr(self, need[self.type]) is None:
            raise ValueError(f"a {self.type} needs '{need[self.type]}'")
        if self.type == "capsule" and self.length is None:
            raise ValueError("a capsule needs 'length' (cylindrical part, m)")
        return self


class LineSpec(_Strict):
    type: Literal["line"]
    link: str | None = None
    from_: Vec3 | None = Field(default=None, alias="from")
    to: Vec3
    duration: Pos


class JointSpec(_Strict):
    type: Literal["quintic", "trapezoid"]
    to: dict[str, float]
    duration: Pos
    accel_fraction: Annotated[float, Field(gt=0, le=0.5)] = 0.25


class HoldSpec(_Strict):
    type: Literal["hold"]
    duration: Pos


class SplineSpec(_Strict):
    """Knots of a cubic Hermite joint path: times from 0 (s), per knot the ``joints``'
    values and speeds (the file's angle unit, per second); other joints stay put."""

    type: Literal["spline"]
    joints: list[str] = Field(min_length=1)
    t: list[float] = Field(min_length=2)
    q: list[list[float]]
    qd: list[list[float]]

    @model_validator(mode="after")
    def _shapes(self) -> SplineSpec:
        n, m = len(self.t), len(self.joints)
        if len(self.q) != n or len(self.qd) != n:
            raise ValueError(f"q and qd need one row per knot time ({n})")
        if any(len(r) != m for r in (*self.q, *self.qd)):
            raise ValueError(f"every q and qd row needs one value per joint ({m})")
        if self.t[0] != 0 or any(b <= a for a, b in zip(self.t, self.t[1:], strict=False)):
            raise ValueError("t must start at 0 and increase")
        return self


class WarpSpec(_Strict):
    """:class:`~robotsim.clearance.timewarp.TimeWarp` knots: scene times ``t`` (s), the
    trajectory's own times ``s`` (s) and rates ``ds/dt``."""

    t: list[float] = Field(min_length=2)
    s: list[float] = Field(min_length=2)
    rate: list[Annotated[float, Field(ge=0)]] = Field(min_length=2)


SegmentSpec = Annotated[LineSpec | JointSpec | HoldSpec | SplineSpec, Field(discriminator="type")]


class RobotSpec(_Strict):
    name: str
    model: str
    base: BaseSpec = BaseSpec()
    volumes: list[VolumeSpec] = []
    paper_volumes: bool = False  # set by ``volumes: paper``
    # set by ``volumes: {fit: TYPE}`` (errors say ``volumes.fit``): that fit on every
    # moving link with geometry
    fit_all: Literal["ellipsoid", "sphere", "capsule", "box", "model"] | None = Field(
        None, validation_alias="volumes.fit"
    )
    start: dict[str, float] = {}
    segments: list[SegmentSpec] = Field(min_length=1)
    delay: Annotated[float, Field(ge=0)] = 0.0
    time_warp: WarpSpec | None = None

    @model_validator(mode="before")
    @classmethod
    def _paper(cls, data: object) -> object:
        if isinstance(data, dict) and data.get("volumes") == "paper":
            return {**data, "volumes": [], "paper_volumes": True}
        v = data.get("volumes") if isinstance(data, dict) else None
        if isinstance(v, dict) and set(v) == {"fit"}:
            return {**data, "volumes": [], "volumes.fit": v["fit"]}
        return data

    @model_validator(mode="after")
    def _some_volumes(self) -> RobotSpec:
        if not self.volumes and not self.paper_volumes and self.fit_all is None:
            raise ValueError("volumes: give a list of volumes, 'paper' or {fit: TYPE}")
        return self


LEGACY_FORMAT = "robotsim-clearance/1"


class ClearanceScenario(_Strict):
    kind: Literal["clearance"] | None = None
    format: Literal["robotsim-clearance/1", "robotsim-scenario/1"] | None = None
    description: str = ""
    units: dict[str, str] = {"length": "m", "angle": "deg"}
    dt: Pos = 0.01
    duration: Pos | None = None
    contact_threshold: float = 0.0
    cutoff: Pos | None = None
    robots: list[RobotSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _kind(self) -> ClearanceScenario:
        if self.kind is None and self.format != LEGACY_FORMAT:
            raise ValueError("a clearance file says 'kind: clearance'")
        return self

    @model_validator(mode="after")
    def _units(self) -> ClearanceScenario:
        if self.units.get("length", "m") != "m" or self.units.get("angle", "deg") not in (
            "deg",
            "rad",
        ):
            raise ValueError("units: length must be m, angle deg or rad")
        return self


class LoadedScenario(BaseModel):
    """A validated scenario ready for :func:`robotsim.clearance.run`."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    spec: ClearanceScenario
    scene: Scene
    trajectories: dict[str, Trajectory]
    dt: float
    t_end: float | None
    cutoff: float


def load_scenario(path: str | Path) -> LoadedScenario:
    """Read and validate a scenario file (a path, or the name of a shipped scenario);
    raises :class:`ScenarioError`."""
    path = resolve(path, "scenario")
    data = read_yaml_file(path, ScenarioError)
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: expected a mapping at the top level")
    spec = validate_as(ClearanceScenario, data, path, ScenarioError)
    if spec.kind is None:
        _legacy_note(path)
    return build(spec, path)


_noted: list[bool] = []  # the deprecation note is printed once per process


def _legacy_note(path: Path) -> None:
    if not _noted:
        _noted.append(True)
        print(
            f"note: {path}: 'format: {LEGACY_FORMAT}' without 'kind: clearance' is "
            "deprecated; add 'kind: clearance' to the file",
            file=sys.stderr,
        )


def model_target(name: str, scenario: Path | str | None) -> str:
    """What to load for a robot's ``model:``: a relative path is read from the scenario
    file's folder (as mobile scenarios do), else from the working directory; a name that
    is no file there is a library robot. ``scenario``: the file's path (or a label such
    as ``"<scenario>"`` for a document without a file)."""
    p = Path(name)
    if p.is_absolute() or scenario is None:
        return name
    folder = Path(str(scenario)).parent
    candidate = folder / p
    if candidate.suffix and candidate.is_file() and Path(str(scenario)).is_file():
        return str(candidate)
    return name


def build(spec: ClearanceScenario, path: Path | str = "<scenario>") -> LoadedScenario:
    deg = spec.units.get("angle", "deg") == "deg"
    robots, trajs = [], {}
    names = [r.name for r in spec.robots]
    for i, rs in enumerate(spec.robots):
        where = f"{path}: robots[{i}]"
        if names.count(rs.name) > 1:
            raise ScenarioError(f"{where}.name: robot name {rs.name!r} is used twice")
        try:
            model = load_robot(model_target(rs.model, path))
        except RobotsimError as exc:
            raise ScenarioError(f"{where}.model: {exc}") from None
        ang = np.radians if deg else np.asarray
        T_base = make_T(rpy_to_R(ang(rs.base.rpy)), np.array(rs.base.xyz))
        if rs.paper_volumes:
            vols = list(paper_link_volumes(model))
            if not vols:
                raise ScenarioError(
                    f"{where}.volumes: paper: {model.name} has no link segment of 5 cm or "
                    "more to put an ellipsoid on"
                )
        elif rs.fit_all is not None:
            links = moving_links(model)
            if not links:
                raise ScenarioError(
                    f"{where}.volumes: {{fit: {rs.fit_all}}}: {model.name} has no link with "
                    "geometry below a movable joint"
                )
            vols = [
                u
                for link in links
                for u in _volume(
                    model, VolumeSpec(link=link, fit=rs.fit_all), f"{where}.volumes", ang
                )
            ]
        else:
            vols = [
                u
                for k, v in enumerate(rs.volumes)
                for u in _volume(model, v, f"{where}.volumes[{k}]", ang)
            ]
        placed = PlacedRobot(rs.name, model, tuple(vols), T_base)
        q = _joints(model, rs.start, f"{where}.start", deg, model.zero())
        segs: list[Segment] = []
        for k, sg in enumerate(rs.segments):
            sw = f"{where}.segments[{k}]"
            if isinstance(sg, JointSpec):
                q1 = _joints(model, sg.to, f"{sw}.to", deg, q)
                cls = JointQuintic if sg.type == "quintic" else JointTrapezoid
                extra = {"accel_fraction": sg.accel_fraction} if sg.type == "trapezoid" else {}
                segs.append(cls(q, q1, sg.duration, **extra))
                q = q1
            elif isinstance(sg, HoldSpec):
                segs.append(Hold(q, sg.duration))
            elif isinstance(sg, SplineSpec):
                segs.append(_spline(model, sg, q, sw, deg))
                q = segs[-1].q1
            else:
                segs.append(_line(model, placed, sg, q, sw))
                q = segs[-1].at(np.array([sg.duration]))[0]
        robots.append(placed)
        warp = None
        if rs.time_warp is not None:
            try:
                warp = TimeWarp(rs.time_warp.t, rs.time_warp.s, rs.time_warp.rate)
            except RobotsimError as exc:
                raise ScenarioError(f"{where}.time_warp: {exc}") from None
        trajs[rs.name] = Trajectory(tuple(segs), start=rs.delay, warp=warp)
    scene = Scene(tuple(robots), spec.contact_threshold)
    return LoadedScenario(
        spec=spec,
        scene=scene,
        trajectories=trajs,
        dt=spec.dt,
        t_end=spec.duration,
        cutoff=spec.cutoff if spec.cutoff is not None else math.inf,
    )


def moving_links(model: RobotModel) -> list[str]:
    """The links a joint move carries (below a movable joint) that have geometry, in the
    model's order: what ``volumes: {fit: TYPE}`` covers for any arm."""
    moving: set[str] = set()
    for j in model.joints:  # parents come before children
        if j.movable or j.parent in moving:
            moving.add(j.child)
    return [lk.name for lk in model.links if lk.name in moving and (lk.collisions or lk.visuals)]


def _check_link(model: RobotModel, link: str, where: str) -> None:
    if link not in model.link_names:
        valid = ", ".join(model.link_names)
        raise ScenarioError(f"{where}: unknown link {link!r} of {model.name}; valid: {valid}")


def _volume(model: RobotModel, v: VolumeSpec, where: str, ang) -> list[LinkVolume]:  # type: ignore[no-untyped-def]
    _check_link(model, v.link, f"{where}.link")
    T = make_T(rpy_to_R(ang(v.rpy)), np.array(v.xyz))
    if v.fit == "model":
        try:
            return [
                LinkVolume(v.link, u.shape, T @ u.T_link_volume)
                for u in model_link_volumes(model, v.link)
            ]
        except RobotsimError as exc:
            raise ScenarioError(f"{where}.fit: {exc}") from None
    if v.fit is not None:
        try:
            fitted = fit_link_volume(model, v.link, v.fit)
        except RobotsimError as exc:
            raise ScenarioError(f"{where}.fit: {exc}") from None
        return [LinkVolume(v.link, fitted.shape, T @ fitted.T_link_volume)]
    shape: Sphere | Capsule | Box | Ellipsoid
    if v.type == "ellipsoid" and v.radii is not None:
        shape = Ellipsoid(v.radii)
    elif v.type == "sphere" and v.radius is not None:
        shape = Sphere(v.radius)
    elif v.type == "capsule" and v.radius is not None and v.length is not None:
        shape = Capsule(v.radius, v.length)
    elif v.size is not None:
        shape = Box(v.size)
    return [LinkVolume(v.link, shape, T)]


def _joints(
    model: RobotModel, values: dict[str, float], where: str, deg: bool, base: np.ndarray
) -> np.ndarray:
    q = np.array(base, dtype=float)
    for name, val in values.items():
        if name not in model.joint_names:
            valid = ", ".join(model.joint_names)
            raise ScenarioError(f"{where}.{name}: unknown joint of {model.name}; valid: {valid}")
        j = model.joint_index(name)
        x = math.radians(val) if deg and model.joint(name).type.value != "prismatic" else val
        lo, hi = model.lower[j], model.upper[j]
        if not lo - 1e-9 <= x <= hi + 1e-9:
            unit = "deg" if deg else "rad"
            f = math.degrees if deg else float
            raise ScenarioError(
                f"{where}.{name}: {val:g} {unit} is outside the joint limits "
                f"[{f(lo):.6g}, {f(hi):.6g}]"
            )
        q[j] = x
    return q


def _spline(model: RobotModel, sg: SplineSpec, q: np.ndarray, where: str, deg: bool) -> JointSpline:
    """The spline's knots as full configurations: listed joints from the file (the first
    knot must be where the robot is), the others held at ``q``."""
    cols = []
    for k, name in enumerate(sg.joints):
        if name not in model.joint_names:
            valid = ", ".join(model.joint_names)
            raise ScenarioError(
                f"{where}.joints[{k}]: unknown joint {name!r} of {model.name}; valid: {valid}"
            )
        cols.append(model.joint_index(name))
    if len(set(cols)) != len(cols):
        raise ScenarioError(f"{where}.joints: a joint is listed twice")
    angular = np.array([model.joint(n).type.value != "prismatic" for n in sg.joints])
    scale = np.where(angular & deg, math.pi / 180, 1.0)
    qk = np.tile(q, (len(sg.t), 1))
    qk[:, cols] = np.asarray(sg.q, dtype=float) * scale
    qdk = np.zeros_like(qk)
    qdk[:, cols] = np.asarray(sg.qd, dtype=float) * scale
    if np.max(np.abs(qk[0] - q)) > 1e-6:
        here = ", ".join(f"{n}: {v:.6g}" for n, v in zip(sg.joints, q[cols] / scale, strict=True))
        raise ScenarioError(f"{where}.q[0]: the spline must start where the robot is ({here})")
    qk[0] = q
    for j, name in enumerate(model.joint_names):
        lo, hi = model.lower[j], model.upper[j]
        bad = np.flatnonzero((qk[:, j] < lo - 1e-9) | (qk[:, j] > hi + 1e-9))
        if bad.size:
            raise ScenarioError(f"{where}.q[{int(bad[0])}]: {name} is outside its joint limits")
    return JointSpline(np.asarray(sg.t, dtype=float), qk, qdk)


def _xyz(p: np.ndarray) -> str:
    return "[" + ", ".join(f"{v:.4g}" for v in np.asarray(p, float)) + "]"


def _line(
    model: RobotModel, placed: PlacedRobot, sg: LineSpec, q: np.ndarray, where: str
) -> CartesianLine:
    link = sg.link or model.tool_frame
    if link not in model.link_names and link not in model.frame_names:
        _check_link(model, link, f"{where}.link")
    inv = np.linalg.inv(placed.T_world_base)
    to_base = lambda p: inv[:3, :3] @ np.asarray(p, float) + inv[:3, 3]  # noqa: E731
    p0 = to_base(sg.from_) if sg.from_ is not None else model.fk(q, link)[:3, 3]
    try:
        return CartesianLine(model, link, p0, to_base(sg.to), None, sg.duration, q)
    except UnreachableLine as exc:
        # the file's points are world coordinates: say where the line fails in them
        w0 = placed.T_world_base[:3, :3] @ p0 + placed.T_world_base[:3, 3]
        w1 = np.asarray(sg.to, float)
        at = w0 + exc.fraction * (w1 - w0)
        raise ScenarioError(
            f"{where}: {link} of {model.name} cannot follow the straight line to "
            f"{_xyz(w1)} (world): {exc.fraction:.0%} of the way, at {_xyz(at)}, IK misses "
            f"by {exc.residual:.3g} m (outside the reach or the joint limits)"
        ) from None
    except RobotsimError as exc:
        raise ScenarioError(f"{where}: {exc}") from None
