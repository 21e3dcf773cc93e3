"""Building a mobile run from its validated scenario: the physics Scene (field,
obstacle cylinders, objects, robots with wheel motors at their starts, wheels on the
ground) and one goal controller per robot. The wheels are those of the robot's drive
(:func:`robotsim.physics.drives.drive_of`: its metadata, else its inferred profile);
the robot's other actuated joints (an arm, a pan-tilt on the base) get position servos
(:func:`servo_joints`) that database ``joints`` commands move."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from robotsim.control.goal_controller import MobileController, MobileControllerConfig
from robotsim.control.limits import AxisLimit
from robotsim.control.pid import PIDGains
from robotsim.errors import ScenarioError
from robotsim.file_scope import OutsideScopeError, check_readable
from robotsim.mobile.load import RobotSetup
from robotsim.mobile.schema import MobileScenario, ObjectJointSpec, ObjectSpec, SurfaceSpec
from robotsim.model.geometry import Cylinder
from robotsim.model.robot import JointDynamics
from robotsim.physics import Body, ContactSurface, Joint, Motor, RobotPlacement, Scene
from robotsim.physics.drives import drive_of, wheel_ground_height
from robotsim.spatial import make_T, rot_z, rpy_to_R

__all__ = ["build_mobile", "contact_surface", "make_controller", "object_body", "servo_joints"]


def contact_surface(s: SurfaceSpec) -> ContactSurface:
    """The physics contact surface of a scenario's surface spec."""
    return ContactSurface(**s.model_dump())


def object_joint(j: ObjectJointSpec, T: np.ndarray, angle: float) -> Joint:
    """A hinge/slider to the world; axis given in world axes, stored in the body's;
    ``angle``: radians per unit of the file's angles."""
    scale = angle if j.type == "hinge" else 1.0
    axis = np.asarray(T[:3, :3]).T @ np.asarray(j.axis, dtype=float)
    rng = None if j.range is None else (j.range[0] * scale, j.range[1] * scale)
    return Joint(j.type, axis=tuple(axis), anchor=tuple(j.anchor), range=rng,
                 damping=j.damping, stiffness=j.stiffness, rest=j.rest * scale)  # fmt: skip


def object_body(o: ObjectSpec, base: Path, idx: int, source: str, angle: float = 1.0) -> Body:
    """The physics body of ``objects[idx]`` (mesh files relative to ``base``)."""
    sh = o.shape
    where = f"{source}: objects[{idx}].shape"

    field = sh.missing()
    if field is not None:
        raise ScenarioError(f"{where}.{field}: required for a {sh.type}")
    f = None
    if sh.type == "mesh":
        f = Path(sh.file)  # type: ignore[arg-type]
        f = f if f.is_absolute() else base / f
        try:
            check_readable(f)
        except OutsideScopeError as exc:
            raise ScenarioError(f"{where}.file: {exc}") from None
        if not f.exists():
            raise ScenarioError(f"{where}.file: {f} does not exist")
    geom = sh.geometry(1.0, f)
    T = make_T(rpy_to_R(np.radians(o.rpy)), o.position)
    joint = Joint("free") if o.free else None
    if o.joint is not None:
        joint = object_joint(o.joint, T, angle)
    return Body(
        o.name,
        geom,
        T,
        joint=joint,
        mass=o.mass,
        surface=f"object:{o.name}" if o.surface is not None else None,
    )


def servo_joints(rb: RobotSetup) -> tuple[str, ...]:
    """The joints of ``rb`` that get position servos: every actuated joint (movable, not
    a mimic) except the drive's wheels and their passive rollers, joints under a caster
    link and the joints the scenario gives a spring (``robots[i].joints``: passive by
    choice)."""
    model = rb.model
    drive = drive_of(model)
    skip = set(rb.spec.joints)
    if drive is not None:
        skip.update(drive.wheel_joints)
        skip.update(drive.rollers)  # passive
    casters = set() if drive is None else set(drive.casters)
    out = []
    for jn in model.joint_names:
        j = model.joint(jn)
        if j.actuated and jn not in skip and j.child not in casters:
            out.append(jn)
    return tuple(out)


def _servo(rb: RobotSetup, joint: str) -> Motor:
    spec = rb.spec.servo
    effort = rb.model.joint(joint).limits.effort
    force = spec.force if spec.force is not None else effort
    return Motor(
        "position", gain=spec.gain, damping=spec.damping, force=force, feedforward=spec.feedforward
    )


def build_mobile(
    sc: MobileScenario, robots: list[RobotSetup], obstacles: np.ndarray, source: str = "<scenario>"
) -> Scene:
    """The physics Scene: field plane, obstacle cylinders, objects, robots at their starts."""
    base = Path(source).resolve().parent if source != "<scenario>" else Path.cwd()
    bodies: list[Body] = []
    h = sc.obstacles.height
    for i, (x, y, r) in enumerate(obstacles):
        bodies.append(
            Body(
                f"obstacle{i + 1}",
                Cylinder(r, h),
                make_T(None, [x, y, h / 2]),
                rgba=(0.85, 0.45, 0.1, 1.0),
            )
        )
    surfaces: dict[str, ContactSurface] = {}
    for i, o in enumerate(sc.objects):
        bodies.append(object_body(o, base, i, source, _angle_unit(sc)))
        if o.surface is not None:
            surfaces[f"object:{o.name}"] = contact_surface(o.surface)
    placements = []
    for rb in robots:
        motor_force = rb.spec.motor.force
        motors = {}
        drive = drive_of(rb.model)
        wheels = drive.wheel_joints if drive is not None else ()
        for jn in wheels:
            effort = rb.model.joint(jn).limits.effort
            force = (
                motor_force
                if motor_force is not None
                else (effort if math.isfinite(effort) else 5.0)
            )
            motors[jn] = Motor("velocity", gain=rb.spec.motor.gain, force=force)
        for jn in servo_joints(rb):
            motors[jn] = _servo(rb, jn)
        lift = 0.0 if drive is None else -wheel_ground_height(rb.model, drive)
        T = make_T(rot_z(rb.start[2]), [rb.start[0], rb.start[1], lift])
        placements.append(
            RobotPlacement(
                rb.name,
                rb.model,
                T,
                motors=motors,
                default_motor=None,
                collide_with_robots=sc.robots_collide,
                joint_dynamics=_springs(rb, _angle_unit(sc), source),
            )
        )
    return Scene(
        bodies=tuple(bodies),
        robots=tuple(placements),
        surfaces=surfaces,
        default_surface=contact_surface(sc.contact),
        timestep=sc.timestep,
        name=sc.name,
        erp=sc.erp,
        cfm=sc.cfm,
    )


def _angle_unit(sc: MobileScenario) -> float:
    """Radians per unit of the file's angles."""
    return math.radians(1.0) if sc.units.angle == "deg" else 1.0


def _springs(rb: RobotSetup, angle: float, source: str) -> dict[str, JointDynamics]:
    """``robots[i].joints`` -> the placement's joint dynamics (other terms kept)."""
    out = {}
    for jn, sp in rb.spec.joints.items():
        if jn not in rb.model.joint_names:
            raise ScenarioError(
                f"{source}: robots ({rb.name}).joints: unknown joint {jn!r}; valid: "
                f"{', '.join(rb.model.joint_names)}"
            )
        joint = rb.model.joint(jn)
        scale = 1.0 if joint.type.value == "prismatic" else angle
        out[jn] = replace(joint.dynamics, stiffness=sp.stiffness, damping=sp.damping,
                          rest=sp.rest * scale)  # fmt: skip
    return out


def make_controller(
    sc: MobileScenario, rb: RobotSetup, obstacles: np.ndarray, holonomic: bool
) -> MobileController:
    """The goal controller of one robot (file units -> SI, gains and limits per axis)."""
    c = rb.spec.controller
    ang = math.radians(1.0) if sc.units.angle == "deg" else 1.0
    gains = []
    limits = []
    for axis in ("x", "y", "theta"):
        g = c.gains.get(axis)
        g = g if g is not None else type(next(iter(c.gains.values())))()
        gains.append(PIDGains(kp=g.kp, ki=g.ki, kd=g.kd, integral_limit=g.integral_limit))
        lm = c.limits.get(axis)
        scale = ang if axis == "theta" else 1.0
        if lm is None:
            limits.append(AxisLimit())
        else:
            limits.append(AxisLimit(lm.max_speed * scale, lm.accel * scale, lm.decel * scale))
    cfg = MobileControllerConfig(
        gains=(gains[0], gains[1], gains[2]),
        limits=(limits[0], limits[1], limits[2]),
        avoidance=c.avoidance,
        robot_radius=rb.radius,
        safety_margin=c.safety_margin,
        position_tolerance=c.tolerance.position,
        heading_tolerance=c.tolerance.heading * ang,
        lookahead=c.lookahead,
        holonomic=holonomic,
    )
    return MobileController(
        cfg, rb.goal, path=rb.path if len(rb.path) else None, obstacles=obstacles
    )
