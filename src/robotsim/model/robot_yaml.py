"""The robotsim robot file (YAML): a DH table or a link/joint tree, plus geometry,
frames and named poses. The built-in library is written in it. The format is
described in ``docs/file_formats.md``; every error names the file and the field path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from robotsim.errors import InputError, ModelError, ModelFileError
from robotsim.file_scope import OutsideScopeError, check_readable
from robotsim.model.builder import RobotBuilder, xyz_rpy
from robotsim.model.dh import DHJoint, dh_builder
from robotsim.model.geometry import (
    Shape,
)
from robotsim.model.robot import Inertial, JointDynamics, RobotModel
from robotsim.model.shape_spec import ShapeSpec
from robotsim.ranges import MAX_ARMATURE, MAX_DAMPING, MAX_JOINT_FRICTION, MAX_STIFFNESS
from robotsim.validation import (
    MAX_YAML_BYTES,
    describe_validation_error,
    read_input_bytes,
    safe_load,
    yaml_error_message,
)

__all__ = ["load_robot_yaml", "parse_robot_dict"]

Vec3 = Annotated[list[float], Field(min_length=3, max_length=3)]
LENGTH = {"m": 1.0, "cm": 0.01, "mm": 0.001, "in": 0.0254}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Units(_Strict):
    length: Literal["m", "cm", "mm", "in"] = "m"
    angle: Literal["rad", "deg"] = "rad"
    scale: float = Field(1.0, gt=0, description="extra factor on every length")


class Placement(_Strict):
    xyz: Vec3 = [0.0, 0.0, 0.0]
    rpy: Vec3 = [0.0, 0.0, 0.0]


class PlacedShapeSpec(ShapeSpec):
    """A link's visual or collision shape: the shape, where it sits on the link, colour."""

    xyz: Vec3 = Field(default_factory=lambda: [0.0, 0.0, 0.0])
    rpy: Vec3 = Field(default_factory=lambda: [0.0, 0.0, 0.0])
    rgba: Annotated[list[float], Field(min_length=4, max_length=4)] = Field(
        default_factory=lambda: [0.7, 0.7, 0.75, 1.0]
    )
    name: str = ""


class InertialSpec(_Strict):
    mass: float = Field(ge=0)
    com: Vec3 = [0.0, 0.0, 0.0]
    inertia: Annotated[list[float], Field(min_length=3, max_length=6)] | None = None


class LinkSpec(_Strict):
    name: str
    visuals: list[PlacedShapeSpec] = []
    collisions: list[PlacedShapeSpec] | None = None
    inertial: InertialSpec | None = None


class MimicSpec(_Strict):
    joint: str
    multiplier: float = 1.0
    offset: float = 0.0


class DynamicsSpec(_Strict):
    """Joint-space passive terms (SI per rad or m; ``rest`` in the file's units)."""

    armature: float = Field(0.0, ge=0, le=MAX_ARMATURE)
    damping: float = Field(0.0, ge=0, le=MAX_DAMPING)
    friction: float = Field(0.0, ge=0, le=MAX_JOINT_FRICTION)
    stiffness: float = Field(0.0, ge=0, le=MAX_STIFFNESS)
    rest: float = 0.0


class JointSpec(_Strict):
    name: str
    type: Literal["revolute", "continuous", "prismatic", "fixed"]
    parent: str
    child: str
    xyz: Vec3 = [0.0, 0.0, 0.0]
    rpy: Vec3 = [0.0, 0.0, 0.0]
    axis: Vec3 = [0.0, 0.0, 1.0]
    limits: Annotated[list[float], Field(min_length=2, max_length=2)] | None = None
    velocity: float = Field(np.inf, gt=0)
    effort: float = Field(np.inf, gt=0)
    mimic: MimicSpec | None = None
    dynamics: DynamicsSpec | None = None


class FrameSpec(_Strict):
    name: str
    link: str
    xyz: Vec3 = [0.0, 0.0, 0.0]
    rpy: Vec3 = [0.0, 0.0, 0.0]


class DHRowSpec(_Strict):
    name: str | None = None
    link: str | None = None
    type: Literal["revolute", "prismatic"] = "revolute"
    d: float = 0.0
    a: float = 0.0
    alpha: float = 0.0
    theta: float = 0.0
    offset: float = 0.0
    qlim: Annotated[list[float], Field(min_length=2, max_length=2)] | None = None
    velocity: float = Field(np.inf, gt=0)
    effort: float = Field(np.inf, gt=0)
    visuals: list[PlacedShapeSpec] = []
    inertial: InertialSpec | None = None
    dynamics: DynamicsSpec | None = None

    @field_validator("d", "a", "alpha", "theta", "offset")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not np.isfinite(v):
            raise ValueError("must be a finite number")
        return v


class DHSpec(_Strict):
    convention: Literal["standard", "modified"] = "standard"
    base: Placement = Placement()
    tool: Placement = Placement()
    base_visuals: list[PlacedShapeSpec] = []
    joints: list[DHRowSpec] = Field(min_length=1)


class RobotFile(_Strict):
    format: Literal["robotsim-robot/1"] = "robotsim-robot/1"
    name: str
    kind: str = "robot"
    description: str = ""
    units: Units = Field(default_factory=lambda: Units(scale=1.0))
    floating: bool = False
    default_frame: str | None = None
    dh: DHSpec | None = None
    links: list[LinkSpec] = []
    joints: list[JointSpec] = []
    frames: list[FrameSpec] = []
    poses: dict[str, dict[str, float]] = {}
    metadata: dict[str, Any] = {}


def load_robot_yaml(path: str | Path) -> RobotModel:
    """Read a robotsim robot file (``.yaml``/``.yml``)."""
    path = Path(path)
    check_readable(path)
    text = read_input_bytes(path, lambda m: ModelFileError(path, m), MAX_YAML_BYTES)
    try:
        data = safe_load(text)
    except yaml.YAMLError as exc:
        raise ModelFileError(path, yaml_error_message(exc)) from None
    return parse_robot_dict(data, path)


def parse_robot_dict(data: Any, path: str | Path = "<robot>") -> RobotModel:
    """Validate a robot description (already parsed YAML) and build the model."""
    path = Path(path)
    if not isinstance(data, dict):
        raise ModelFileError(path, "expected a mapping at the top level")
    try:
        spec = RobotFile.model_validate(data)
    except ValidationError as exc:
        where, msg = describe_validation_error(exc, RobotFile)
        raise ModelFileError(path, msg, where=where) from None
    try:
        return _build(spec, path)
    except (ModelError, InputError) as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(path, str(exc)) from None


def _build(spec: RobotFile, path: Path) -> RobotModel:
    L = LENGTH[spec.units.length] * spec.units.scale
    A = np.pi / 180.0 if spec.units.angle == "deg" else 1.0
    base_dir = path.parent

    def place(xyz: list[float], rpy: list[float]) -> np.ndarray:
        return xyz_rpy(np.asarray(xyz) * L, np.asarray(rpy) * A)

    def shape(s: PlacedShapeSpec, where: str) -> Shape:
        field = s.missing()
        if field is not None:
            raise ModelFileError(path, f"a {s.type} needs '{field}'", where=f"{where}.{field}")
        mesh_path = None
        if s.type == "mesh":
            mesh_path = (base_dir / s.file).resolve()  # type: ignore[operator]
            try:
                check_readable(mesh_path)
            except OutsideScopeError as exc:
                raise ModelFileError(path, f"file: {exc}", where=where) from None
            if not mesh_path.is_file():
                raise ModelFileError(path, f"mesh file not found: {mesh_path}", where=where)
        geom = s.geometry(L, mesh_path)
        return Shape(geom, place(s.xyz, s.rpy), tuple(s.rgba), s.name)  # type: ignore[arg-type]

    def inertia(spec_i: InertialSpec | None, where: str) -> Inertial | None:
        if spec_i is None:
            return None
        I = spec_i.inertia
        if I is None:
            Im = np.eye(3) * 1e-6
        elif len(I) == 3:
            Im = np.diag(I)
        elif len(I) == 6:
            ixx, iyy, izz, ixy, ixz, iyz = I
            Im = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
        else:
            raise ModelFileError(path, "inertia needs 3 or 6 values", where=f"{where}.inertia")
        return Inertial(spec_i.mass, np.asarray(spec_i.com) * L, Im * L * L)

    def dynamics(d: DynamicsSpec | None, qs: float) -> JointDynamics | None:
        if d is None:
            return None
        return JointDynamics(d.armature, d.damping, d.friction, d.stiffness, d.rest * qs)

    def shapes(items: list[PlacedShapeSpec], where: str) -> list[Shape]:
        return [shape(s, f"{where}[{i}]") for i, s in enumerate(items)]

    angular: set[str] = set()
    if spec.dh is not None:
        if spec.links or spec.joints:
            raise ModelFileError(path, "give either 'dh' or 'links'/'joints', not both")
        rows = []
        for i, r in enumerate(spec.dh.joints):
            lim = r.qlim
            qs = L if r.type == "prismatic" else A
            qlim = (-np.inf, np.inf) if lim is None else (lim[0] * qs, lim[1] * qs)
            rows.append(
                DHJoint(
                    d=r.d * L, a=r.a * L, alpha=r.alpha * A, offset=r.offset * qs,
                    theta=r.theta * A, prismatic=r.type == "prismatic", qlim=qlim,
                    velocity=r.velocity * qs, effort=r.effort, name=r.name, link=r.link,
                    visuals=tuple(shapes(r.visuals, f"dh.joints[{i}].visuals")),
                    inertial=inertia(r.inertial, f"dh.joints[{i}].inertial"),
                    dynamics=dynamics(r.dynamics, qs),
                )
            )  # fmt: skip
        b = dh_builder(
            rows,
            spec.dh.convention,
            spec.name,
            base=place(spec.dh.base.xyz, spec.dh.base.rpy),
            tool=place(spec.dh.tool.xyz, spec.dh.tool.rpy),
            base_visuals=shapes(spec.dh.base_visuals, "dh.base_visuals"),
            kind=spec.kind,
        )
        angular = {r.name or f"joint{i + 1}" for i, r in enumerate(spec.dh.joints)
                   if r.type == "revolute"}  # fmt: skip
    else:
        if not spec.links:
            raise ModelFileError(path, "no links: give 'links' and 'joints', or a 'dh' table")
        b = RobotBuilder(spec.name, kind=spec.kind)
        for i, lk in enumerate(spec.links):
            inertial = inertia(lk.inertial, f"links[{i}].inertial")
            vis = shapes(lk.visuals, f"links[{i}].visuals")
            col = None if lk.collisions is None else shapes(lk.collisions,
                                                            f"links[{i}].collisions")  # fmt: skip
            b.link(lk.name, visuals=vis, collisions=col, inertial=inertial)
        for i, j in enumerate(spec.joints):
            qs = L if j.type == "prismatic" else A
            lo, hi = (-np.inf, np.inf) if j.limits is None else (j.limits[0] * qs,
                                                                 j.limits[1] * qs)  # fmt: skip
            mimic = None
            if j.mimic is not None:
                mimic = (j.mimic.joint, j.mimic.multiplier, j.mimic.offset * qs)
            try:
                b.joint(j.name, j.type, j.parent, j.child, origin=place(j.xyz, j.rpy),
                        axis=j.axis, lower=lo, upper=hi, velocity=j.velocity * qs,
                        effort=j.effort, mimic=mimic,
                        dynamics=dynamics(j.dynamics, qs))  # fmt: skip
            except InputError as exc:
                raise ModelFileError(path, str(exc), where=f"joints[{i}]") from None
            if j.type in ("revolute", "continuous"):
                angular.add(j.name)
    for fr in spec.frames:
        b.frame(fr.name, fr.link, place(fr.xyz, fr.rpy))
    if spec.default_frame is not None:
        b.default_frame = spec.default_frame
    for pname, values in spec.poses.items():
        b.pose(pname, {k: v * (A if k in angular else L) for k, v in values.items()})
    b.floating = spec.floating
    b.metadata = dict(spec.metadata, description=spec.description)
    try:
        model = b.build()
    except ModelError as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(path, str(exc)) from None
    object.__setattr__(model, "source", path)
    return model
