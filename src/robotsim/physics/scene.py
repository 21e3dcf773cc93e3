"""A Scene: what a physics world is made of, as frozen values (no MuJoCo here).

Bodies are rigid shapes in the ODE sense: a ``Body`` with no ``parent`` and no
``joint`` is static (welded to the world); with ``joint=Joint("free")`` it moves freely;
with a ``parent`` and a joint it hangs from that body (MuJoCo is a tree: a joint belongs
to its child body). Robots are RobotModels placed at a base pose. Lengths in m, angles
in rad, masses in kg.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from robotsim.errors import InputError, UnknownNameError
from robotsim.model.geometry import (
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    Mesh,
    Shape,
    Sphere,
    readonly,
)
from robotsim.model.robot import Inertial, JointDynamics, RobotModel
from robotsim.physics.feedforward import FEEDFORWARDS
from robotsim.physics.surface import ContactSurface
from robotsim.physics.timestep import DEFAULT_TIMESTEP, check_timestep

__all__ = [
    "JOINT_TYPES",
    "Body",
    "Compound",
    "Joint",
    "Light",
    "Motor",
    "Plane",
    "RobotPlacement",
    "Scene",
    "SurfacePair",
    "WorldShape",
]

JOINT_TYPES = ("hinge", "ball", "slider", "fixed", "hinge2", "free")
MOTOR_KINDS = ("position", "velocity", "torque")
INTEGRATORS = ("implicitfast", "euler", "auto")
BASES = ("auto", "file")


@dataclass(frozen=True)
class Plane:
    """An infinite (``size`` 0) or finite ground plane, half sizes ``size`` (m) in x, y."""

    size: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True, eq=False)
class Compound:
    """Several shapes moving as one rigid body: the convex pieces of a decomposed mesh,
    an object made of a box and a cylinder. Each part is a model
    :class:`~robotsim.model.geometry.Shape` placed in the body frame (``T_link_shape``,
    its ``rgba``); contacts are per part. Compiled as one geom per part, named
    ``<body>:<k>``."""

    parts: tuple[Shape, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", tuple(self.parts))
        if not self.parts:
            raise InputError("a compound shape needs at least one part")
        for p in self.parts:
            if not isinstance(p, Shape):
                raise InputError(f"compound parts are Shapes, got {type(p).__name__}")


WorldShape = Box | Sphere | Cylinder | Capsule | Ellipsoid | Mesh | Plane | Compound


@dataclass(frozen=True)
class Motor:
    """A motor on a joint axis (ODE's built-in joint motors, MuJoCo actuators).

    ``kind``: ``velocity`` (target speed, like ODE's ``dParamVel``), ``position``
    (target angle/offset, a PD servo) or ``torque`` (direct effort). ``gain`` is kv
    (N m s/rad) for velocity motors, kp for position motors. Limits: ``force`` (N m or
    N, like ``dParamFMax``), ``velocity`` (target speed range), ``acceleration``
    (how fast the target may change, rad/s^2 or m/s^2; applied per step call).
    ``feedforward`` (position motors): ``gravity`` (default) adds the gravity torque of
    everything beyond the joint, ``inverse_dynamics`` the rigid-body inverse dynamics
    of the reference motion, ``none`` nothing (:mod:`robotsim.physics.feedforward`).
    """

    kind: Literal["position", "velocity", "torque"] = "velocity"
    gain: float = 50.0
    damping: float = 0.0
    force: float = math.inf
    velocity: float = math.inf
    acceleration: float = math.inf
    feedforward: Literal["none", "gravity", "inverse_dynamics"] = "gravity"

    def __post_init__(self) -> None:
        if self.kind not in MOTOR_KINDS:
            raise InputError(f"motor kind {self.kind!r}: valid: {', '.join(MOTOR_KINDS)}")
        if self.feedforward not in FEEDFORWARDS:
            raise InputError(
                f"motor feedforward {self.feedforward!r}: valid: {', '.join(FEEDFORWARDS)}"
            )
        for name in ("gain", "force", "velocity", "acceleration"):
            v = getattr(self, name)
            if not (v > 0):
                raise InputError(f"motor {name} must be > 0, got {v!r}")


@dataclass(frozen=True, eq=False)
class Joint:
    """How a body is attached to its parent.

    ``axis`` (hinge/slider; hinge2's steering axis 1) and ``axis2`` (hinge2's drive axis,
    expressed before steering) are in the child body's frame, through ``anchor`` (child
    frame, m). ``range`` limits the (first) axis. ``motor``/``motor2`` drive axis 1/2.
    A hinge2 joint becomes two MuJoCo hinges named ``<name>.steer`` and ``<name>.drive``.
    ``damping`` (N m s/rad, N s/m), ``stiffness`` (N m/rad, N/m) and ``rest`` (rad, m)
    make a hinge or slider a Hooke's-law spring-damper ``F = -k (x - rest) - c v``
    (the paper's second way; MuJoCo's joint ``stiffness``/``springref``/``damping``).
    """

    type: Literal["hinge", "ball", "slider", "fixed", "hinge2", "free"] = "free"
    axis: tuple[float, float, float] = (0.0, 0.0, 1.0)
    axis2: tuple[float, float, float] = (0.0, 1.0, 0.0)
    anchor: tuple[float, float, float] = (0.0, 0.0, 0.0)
    range: tuple[float, float] | None = None
    damping: float = 0.0
    motor: Motor | None = None
    motor2: Motor | None = None
    stiffness: float = 0.0
    rest: float = 0.0

    def __post_init__(self) -> None:
        if self.type not in JOINT_TYPES:
            raise InputError(f"joint type {self.type!r}: valid: {', '.join(JOINT_TYPES)}")
        for name in ("damping", "stiffness"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise InputError(f"joint {name} must be finite and >= 0, got {v!r}")
        if self.stiffness and self.type not in ("hinge", "slider"):
            raise InputError(f"a {self.type} joint cannot carry a spring (hinge or slider)")
        for name in ("axis", "axis2"):
            if np.linalg.norm(getattr(self, name)) < 1e-12:
                raise InputError(f"joint {name} must be a non-zero vector")
        if self.range is not None and not self.range[0] < self.range[1]:
            raise InputError(
                f"joint range must be (lower, upper) with lower < upper, got {self.range}"
            )
        if self.type in ("ball", "free", "fixed") and (self.motor or self.motor2):
            raise InputError(f"a {self.type} joint has no motor axis; use torques instead")
        if self.type != "hinge2" and self.motor2 is not None:
            raise InputError("motor2 is only for hinge2 joints (the drive axis)")


@dataclass(frozen=True, eq=False)
class Body:
    """A rigid body: one shape, a pose, mass properties, a joint and a surface name.

    ``T_parent_body`` ``(4, 4)``: pose in the parent body (or the world). ``mass``
    ``None`` = from ``density`` (kg/m^3) and the shape volume. ``inertial`` (a model
    :class:`~robotsim.model.robot.Inertial`: mass kg, centre of mass m and inertia about
    it kg m^2, body axes) gives the mass properties explicitly instead: the shapes then
    only collide (objects whose file states its inertia). ``surface`` names an entry of
    ``Scene.surfaces`` (``None`` = the scene default).
    """

    name: str
    shape: WorldShape
    T_parent_body: np.ndarray = field(default_factory=lambda: readonly(np.eye(4)))
    parent: str | None = None
    joint: Joint | None = None
    mass: float | None = None
    density: float = 1000.0
    surface: str | None = None
    rgba: tuple[float, float, float, float] = (0.6, 0.6, 0.65, 1.0)
    inertial: Inertial | None = None

    def __post_init__(self) -> None:
        if not self.name or "/" in self.name:
            raise InputError(f"body name {self.name!r}: must be non-empty without '/'")
        object.__setattr__(self, "T_parent_body", readonly(self.T_parent_body, (4, 4)))
        if self.mass is not None and not (self.mass > 0 and math.isfinite(self.mass)):
            raise InputError(f"body {self.name!r}: mass must be finite and > 0")
        if isinstance(self.shape, Compound) and self.mass is not None and self.inertial is None:
            raise InputError(
                f"body {self.name!r}: a compound body takes its mass as inertial (mass, "
                "com, inertia) or from density, not as mass alone"
            )
        if self.inertial is not None:
            problem = self.inertial.problem()
            if self.inertial.mass <= 0 or problem is not None:
                why = problem or f"mass must be > 0, got {self.inertial.mass}"
                raise InputError(f"body {self.name!r}: inertial: {why}")
        if isinstance(self.shape, Plane) and (self.joint is not None or self.parent):
            raise InputError(f"body {self.name!r}: a plane can only be static")

    @property
    def static(self) -> bool:
        return self.parent is None and (self.joint is None or self.joint.type == "fixed")


@dataclass(frozen=True, eq=False)
class RobotPlacement:
    """A RobotModel placed in the world: names become ``<name>/<link or joint>``.

    ``T_world_base`` ``(4, 4)``; ``q0`` initial joint values by name; ``motors`` per
    joint name (joints not listed get ``default_motor``; ``None`` = unactuated).
    ``surface`` names the contact surface of the robot's geoms. ``self_collision``:
    whether the robot's non-adjacent links collide with each other (off by default:
    simplified collision shapes of neighbouring links often overlap).
    ``joint_dynamics`` replaces the model's :class:`JointDynamics` of the named joints
    (springs, dampers, armature, friction for this placement only).

    ``base``: ``"auto"`` (default): a robot that stands on legs or drives on wheels
    gets a free-floating root in the world whatever its file says, and one set free so
    is put down on the ground (lowest sole or wheel bottom at ``z = 0`` at ``q0``; x, y
    and orientation of ``T_world_base`` kept): :mod:`robotsim.physics.freebase` (the
    World's ``scene`` holds the placement as simulated). ``"file"``: the model's own
    root (welded to the world unless the model floats).
    """

    name: str
    model: RobotModel
    T_world_base: np.ndarray = field(default_factory=lambda: readonly(np.eye(4)))
    q0: Mapping[str, float] = field(default_factory=dict)
    motors: Mapping[str, Motor] = field(default_factory=dict)
    default_motor: Motor | None = field(
        default_factory=lambda: Motor("position", gain=200.0, damping=20.0)
    )
    surface: str | None = None
    collide_with_robots: bool = True
    self_collision: bool = False
    joint_dynamics: Mapping[str, JointDynamics] = field(default_factory=dict)
    base: Literal["auto", "file"] = "auto"

    def __post_init__(self) -> None:
        if not self.name or "/" in self.name:
            raise InputError(f"robot name {self.name!r}: must be non-empty without '/'")
        if self.base not in BASES:
            raise InputError(f"robot {self.name!r}: base {self.base!r}: valid: {', '.join(BASES)}")
        for jn in self.joint_dynamics:
            if jn not in self.model.joint_names:
                raise UnknownNameError(f"joint of robot {self.name!r}", jn, self.model.joint_names)
        object.__setattr__(self, "T_world_base", readonly(self.T_world_base, (4, 4)))


@dataclass(frozen=True)
class SurfacePair:
    """An explicit surface for contacts between two bodies (ODE's per-pair callback).

    Names are scene body names or ``robot/link``; ``"ground"`` is the scene's ground.
    """

    body1: str
    body2: str
    surface: str


@dataclass(frozen=True)
class Light:
    pos: tuple[float, float, float] = (0.0, 0.0, 10.0)
    direction: tuple[float, float, float] = (0.0, 0.0, -1.0)
    diffuse: tuple[float, float, float] = (0.7, 0.7, 0.7)
    directional: bool = True


@dataclass(frozen=True, eq=False)
class Scene:
    """Everything a World is compiled from.

    ``ground``: a static plane named ``"ground"`` (``None`` = no ground). ``surfaces``
    name ContactSurfaces; ``default_surface`` applies to every contact no other rule
    covers. ``timestep`` (s), ``gravity`` (m/s^2). ``keep_visuals``: compile robots'
    visual-only shapes too (for MuJoCo rendering; slower). ``erp``/``cfm``: ODE's
    world-wide ERP and CFM (``dWorldSetERP``/``dWorldSetCFM``), the softness of every
    contact whose surface sets neither ``soft_erp`` nor ``soft_cfm`` (``None`` = MuJoCo's
    default contacts); see docs/physics.md. ``integrator``: ``auto`` (default) takes
    MuJoCo's ``euler`` for scenes driven only by wheel velocity servos and
    ``implicitfast`` otherwise (see :func:`robotsim.physics.compile.integrator_for`);
    ``implicitfast`` or ``euler`` force one.
    """

    bodies: tuple[Body, ...] = ()
    robots: tuple[RobotPlacement, ...] = ()
    ground: Plane | None = field(default_factory=Plane)
    surfaces: Mapping[str, ContactSurface] = field(default_factory=dict)
    default_surface: ContactSurface = field(default_factory=ContactSurface)
    pairs: tuple[SurfacePair, ...] = ()
    lights: tuple[Light, ...] = (Light(),)
    timestep: float = DEFAULT_TIMESTEP
    gravity: tuple[float, float, float] = (0.0, 0.0, -9.81)
    name: str = "world"
    keep_visuals: bool = False
    erp: float | None = None
    cfm: float | None = None
    integrator: Literal["implicitfast", "euler", "auto"] = "auto"

    def __post_init__(self) -> None:
        if self.integrator not in INTEGRATORS:
            raise InputError(
                f"scene integrator {self.integrator!r}: valid: {', '.join(INTEGRATORS)}"
            )
        if self.erp is not None and not (0 < self.erp <= 1):
            raise InputError(f"scene erp {self.erp!r}: must be in (0, 1] (ODE's default 0.2)")
        if self.cfm is not None and not (0 < self.cfm <= 1):
            raise InputError(f"scene cfm {self.cfm!r}: must be in (0, 1] (ODE: 1e-9 .. 1)")
        object.__setattr__(self, "bodies", tuple(self.bodies))
        object.__setattr__(self, "robots", tuple(self.robots))
        object.__setattr__(self, "pairs", tuple(self.pairs))
        check_timestep(self.timestep, "scene timestep")
        names = [b.name for b in self.bodies] + [r.name for r in self.robots]
        if self.ground is not None:
            names.append("ground")
        seen: set[str] = set()
        for n in names:
            if n in seen:
                raise InputError(f"scene: duplicate body/robot name {n!r}")
            seen.add(n)
        for b in self.bodies:
            if b.surface is not None and b.surface not in self.surfaces:
                raise InputError(
                    f"body {b.name!r}: unknown surface {b.surface!r}; valid: "
                    f"{', '.join(self.surfaces) or '(none defined)'}"
                )
            if b.parent is not None and b.parent not in seen:
                raise InputError(f"body {b.name!r}: unknown parent {b.parent!r}")
        for p in self.pairs:
            if p.surface not in self.surfaces:
                raise InputError(
                    f"surface pair {p.body1}-{p.body2}: unknown surface "
                    f"{p.surface!r}; valid: {', '.join(self.surfaces)}"
                )
