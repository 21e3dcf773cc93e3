"""The ``kind: mobile`` scenario schema: wheeled robots driving to goals on a field
with obstacles (seed ``002_…``), validated with pydantic. See ``docs/scenarios.md``."""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from robotsim.model.shape_spec import ShapeSpec
from robotsim.physics.timestep import MOBILE_MAX_TIMESTEP, timestep_field
from robotsim.profile.sensor_spec import SensorSpec
from robotsim.ranges import (
    MAX_DAMPING,
    MAX_FORCE,
    MAX_FRICTION,
    MAX_LENGTH,
    MAX_PID_GAIN,
    MAX_SERVO_GAIN,
    MAX_STIFFNESS,
    MAX_VELOCITY_GAIN,
)
from robotsim.validation import first_duplicate

__all__ = [
    "AxisGains",
    "AxisLimits",
    "ControllerSpec",
    "FieldSpec",
    "MobileScenario",
    "MotorSpec",
    "ObjectJointSpec",
    "ObjectSpec",
    "ObstacleSpec",
    "RandomLayout",
    "Reference",
    "RobotSpec",
    "ShapeSpec",
    "SpringSpec",
    "SurfaceSpec",
    "Tolerance",
    "Units",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


#: A coordinate or a length of the scene (m): finite, within :data:`MAX_LENGTH`.
Coord = Annotated[float, Field(ge=-MAX_LENGTH, le=MAX_LENGTH)]
Length = Annotated[float, Field(ge=0, le=MAX_LENGTH)]
Vec2 = tuple[Coord, Coord]
Vec3 = tuple[Coord, Coord, Coord]


# Upper bounds: far above any robot (an omni base does a few m/s; 1e4 deg/s is 28 turns
# a second), far below the values that made a run silently do nothing (1e9 saturated
# every command and MuJoCo zeroed the controls).
MAX_GAIN = MAX_PID_GAIN
MAX_SPEED = 1.0e4
MAX_ACCEL = 1.0e5


class Units(_Strict):
    angle: Literal["deg", "rad"] = "deg"


class SurfaceSpec(_Strict):
    """The paper's ODE contact vocabulary (see docs/physics.md)."""

    mu: float = Field(1.0, ge=0, le=MAX_FRICTION)
    mu2: float | None = Field(None, ge=0, le=MAX_FRICTION)
    slip1: float = Field(0.0, ge=0)
    slip2: float = Field(0.0, ge=0)
    bounce: float = Field(0.0, ge=0, le=1)
    bounce_vel: float = Field(0.0, ge=0, le=MAX_SPEED)
    soft_erp: float | None = Field(None, gt=0, le=1)
    soft_cfm: float | None = Field(None, gt=0)


class FieldSpec(_Strict):
    """The playing field: ``size`` (m) x by y, centred on the origin."""

    size: tuple[Length, Length] = (20.0, 14.0)
    markings: Literal["soccer", "none"] = "soccer"


class RandomLayout(_Strict):
    """Obstacles placed from the seed in ``region`` [[xmin, ymin], [xmax, ymax]]."""

    count: int = Field(8, ge=0, le=500)
    region: tuple[Vec2, Vec2] = ((-6.0, -4.0), (3.0, 4.0))
    min_gap: Length = 1.0
    keep_clear: Length = 1.5


class ObstacleSpec(_Strict):
    """Cylindrical obstacles (the paper: diameter 0.5 m), fixed or random layout."""

    layout: Literal["fixed", "random"] = "fixed"
    diameter: float = Field(0.5, gt=0, le=MAX_LENGTH)
    height: float = Field(0.5, gt=0, le=MAX_LENGTH)
    positions: list[Vec2] = Field(default_factory=list)
    random: RandomLayout = Field(default_factory=RandomLayout)


class SpringSpec(_Strict):
    """A joint's Hooke's-law spring-damper ``F = -stiffness (x - rest) - damping v``:
    N/m and N s/m on a slider, N m/rad and N m s/rad on a hinge; ``rest`` in m or the
    file's angle unit."""

    stiffness: float = Field(0.0, ge=0, le=MAX_STIFFNESS)
    damping: float = Field(0.0, ge=0, le=MAX_DAMPING)
    rest: float = 0.0


class ObjectJointSpec(SpringSpec):
    """Hang an object from the world by a hinge or a slider (ODE's ``dJointAttach(j,
    body, 0)``) along ``axis`` (world axes) through ``anchor`` (object frame, m)."""

    type: Literal["hinge", "slider"]
    axis: Vec3 = (0.0, 0.0, 1.0)
    anchor: Vec3 = (0.0, 0.0, 0.0)
    range: tuple[float, float] | None = None


class ObjectSpec(_Strict):
    """A free or static body: a ball, a box, an imported .3ds/.x/.obj mesh... With a
    ``joint`` it hangs from the world on it (``free`` is then ignored)."""

    name: str
    shape: ShapeSpec
    position: Vec3
    rpy: Vec3 = (0.0, 0.0, 0.0)
    mass: float | None = Field(None, gt=0)
    free: bool = True
    surface: SurfaceSpec | None = None
    joint: ObjectJointSpec | None = None


class AxisGains(_Strict):
    kp: float = Field(1.0, ge=0, le=MAX_GAIN)
    ki: float = Field(0.0, ge=0, le=MAX_GAIN)
    kd: float = Field(0.0, ge=0, le=MAX_GAIN)
    integral_limit: float = Field(math.inf, gt=0, allow_inf_nan=True)


class AxisLimits(_Strict):
    """Body-frame limits of one axis: m/s and m/s^2 (x, y), rad/s and rad/s^2 or the
    file's angle unit per second (theta)."""

    max_speed: float = Field(1.5, gt=0, le=MAX_SPEED)
    accel: float = Field(1.5, gt=0, le=MAX_ACCEL)
    decel: float = Field(2.0, gt=0, le=MAX_ACCEL)


class Tolerance(_Strict):
    position: float = Field(0.05, gt=0, le=MAX_LENGTH)
    heading: float = Field(3.0, gt=0)


def _gains() -> dict[str, AxisGains]:
    return {"x": AxisGains(kp=1.0), "y": AxisGains(kp=1.0), "theta": AxisGains(kp=2.0)}


def _limits() -> dict[str, AxisLimits]:
    return {
        "x": AxisLimits(),
        "y": AxisLimits(),
        "theta": AxisLimits(max_speed=180.0, accel=360.0, decel=480.0),
    }


class ControllerSpec(_Strict):
    type: Literal["pid"] = "pid"
    gains: dict[Literal["x", "y", "theta"], AxisGains] = Field(default_factory=_gains)
    limits: dict[Literal["x", "y", "theta"], AxisLimits] = Field(default_factory=_limits)
    avoidance: Literal["none", "potential", "vfh"] = "none"
    # what the avoidance sees: the scenario's obstacles (ground_truth) or the scans of
    # one of the robot's lidars (``sensor``: its name; default the robot's only lidar)
    source: Literal["ground_truth", "lidar"] = "ground_truth"
    sensor: str | None = None
    safety_margin: Length = 0.25
    lookahead: float = Field(0.8, gt=0, le=MAX_LENGTH)
    tolerance: Tolerance = Field(default_factory=Tolerance)


class MotorSpec(_Strict):
    """Wheel motors (velocity servos): gain kv (N m s/rad, at most 1e4), force limit
    (N m, at most 1e5; default the joint's effort limit)."""

    gain: float = Field(0.5, gt=0, le=MAX_VELOCITY_GAIN)
    force: float | None = Field(None, gt=0, le=MAX_FORCE)


class ServoSpec(_Strict):
    """Position servos (PD) on the robot's actuated joints other than its wheels (an arm
    or a pan-tilt on the base; the joints ``joints`` gives springs stay passive): kp
    ``gain`` (N m/rad, N/m), kd ``damping`` (N m s/rad, N s/m), force limit ``force``
    (N m or N; default the joint's effort limit), ``feedforward`` ``gravity`` (default:
    the gravity torque of the limb beyond the joint), ``inverse_dynamics`` or ``none``
    (docs/physics.md). They hold the start pose until a ``joints`` command
    (docs/commands.md) moves them."""

    gain: float = Field(200.0, gt=0, le=MAX_SERVO_GAIN)
    damping: float = Field(20.0, ge=0, le=MAX_DAMPING)
    force: float | None = Field(None, gt=0, le=MAX_FORCE)
    feedforward: Literal["none", "gravity", "inverse_dynamics"] = "gravity"


class RobotSpec(_Strict):
    """One robot, or ``count`` copies named ``<name>1..N`` offset by ``spacing``."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_\-]+$")
    model: str
    start: Vec3
    goal: Vec3 | None = None
    path: list[Vec2] = Field(default_factory=list)
    controller: ControllerSpec = Field(default_factory=ControllerSpec)
    motor: MotorSpec = Field(default_factory=MotorSpec)
    servo: ServoSpec = Field(default_factory=ServoSpec)
    count: int = Field(1, ge=1, le=100)
    spacing: Vec2 = (0.0, 1.0)
    color: tuple[float, float, float] | None = None
    joints: dict[str, SpringSpec] = Field(default_factory=dict)
    # the robot's sensors (docs/sensors.md); one named like a sensor of the robot's
    # profile file replaces it
    sensors: list[SensorSpec] = Field(default_factory=list)

    @field_validator("sensors")
    @classmethod
    def _unique_sensors(cls, sensors: list[SensorSpec]) -> list[SensorSpec]:
        if (dup := first_duplicate(s.label for s in sensors)) is not None:
            raise ValueError(f"two sensors named {dup!r}; give each its own 'name'")
        return sensors


class Reference(_Strict):
    """Published numbers to report beside ours (e.g. the paper's times)."""

    source: str
    time_to_goal: dict[str, float] = Field(default_factory=dict)
    notes: str = ""


class FormationSpec(_Strict):
    """Leader-follower formation (:mod:`robotsim.mobile.formation`): ``leader`` names a
    robot; ``slots`` give each follower's offset [dx, dy] (m) in the leader's frame."""

    leader: str
    slots: dict[str, Vec2] = Field(min_length=1)


class MobileScenario(_Strict):
    """``kind: mobile`` — wheeled robots to goals on a field with obstacles."""

    format: Literal["robotsim-scenario/1"] = "robotsim-scenario/1"
    kind: Literal["mobile"]
    name: str
    description: str = ""
    units: Units = Field(default_factory=Units)
    duration: float = Field(30.0, gt=0)
    timestep: float = timestep_field(MOBILE_MAX_TIMESTEP)
    control_rate: float = Field(50.0, gt=0)
    record_rate: float = Field(50.0, gt=0)
    seed: int = Field(0, ge=0)
    robots_collide: bool = True
    avoid_robots: bool = False  # avoidance sees the other robots (on with a formation)
    formation: FormationSpec | None = None
    stop_when_all_reached: bool = False
    erp: float | None = Field(None, gt=0, le=1)
    cfm: float | None = Field(None, gt=0, le=1)
    field: FieldSpec = Field(default_factory=FieldSpec)
    contact: SurfaceSpec = Field(default_factory=SurfaceSpec)
    obstacles: ObstacleSpec = Field(default_factory=ObstacleSpec)
    objects: list[ObjectSpec] = Field(default_factory=list)
    robots: list[RobotSpec] = Field(min_length=1)
    plots: list[Literal["map", "response"]] = Field(default_factory=lambda: ["map"])
    reference: Reference | None = None

    @field_validator("robots")
    @classmethod
    def _unique_names(cls, robots: list[RobotSpec]) -> list[RobotSpec]:
        if (dup := first_duplicate(r.name for r in robots)) is not None:
            raise ValueError(f"duplicate robot name {dup!r}")
        return robots
