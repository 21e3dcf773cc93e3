"""Wheel contact models for mobile robots (physics-specific; the RobotModel stays pure).

A robot with a wheel drive (``omni: {...}`` or ``diffdrive: {...}`` in its ``metadata``,
else the drive its robot profile infers from the wheels' geometry: any URDF/MJCF base
with continuous wheel joints) gets, on each wheel body, a **tyre capsule** whose axis
is the wheel's axle, touching the ground only through an explicit MuJoCo ``<pair>``:

- *omni wheels*: anisotropic friction. MuJoCo's capsule-plane collider aligns the
  contact frame with the capsule axis (tangent 1 = along the axle, tangent 2 = rolling
  direction), so the pair friction ``(mu2, mu)`` grips in the rolling direction and lets
  the wheel slide freely along its axle, which is what the passive rollers of an omni
  wheel do. This is ODE's classic omni-wheel trick (``fdir1`` along the rolling
  direction, ``mu2 = 0``) and the paper's own surface (``mu=3.0, mu2=0.0``). We chose it
  over modelling the rollers as bodies: one contact per wheel instead of ~10 roller
  bodies and joints (the 10-robot world stays fast), no bumps between rollers, and the
  ODE vocabulary maps one to one.
- *differential drive*: the same capsule tyre with isotropic friction; a caster link
  named in the metadata slides on the ground with near-zero friction.

Wheel joints driven by velocity motors get an armature (the gearmotor's reflected rotor
inertia) of at least ``2 kv h`` so the velocity servo stays stable at the step ``h``
(light wheels and a stiff servo otherwise oscillate); ``wheel_armature`` in the metadata
raises it.

The wheel body's own collision shapes, and those of everything it turns (the passive
rollers of an omni wheel modelled roller by roller), stop touching the ground
(``<exclude>`` world vs each) but still hit obstacles; rollers get no motor (they turn
freely). A wheel or roller whose file inertia its mass and size cannot have
(:func:`robotsim.profile.wheels.wheel_inertia_fixes`) gets its geometry's in the world
(one :class:`~robotsim.errors.ModelWarning`); the model keeps the file's. A body
shape that comes down to the ground the wheels stand on (:func:`resting_links`: a
chassis cylinder drawn to the floor, as Robotino's file has) would carry the weight and
drag the base along: it collides with obstacles but not the ground (one warning). Wheel joints
get velocity motors (the paper drives its wheels through ODE's ``dParamVel``) unless
the placement names their motors: a robot placed with position servos on its joints
still drives by velocity.
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robotsim.errors import InputError, ModelError
from robotsim.model.geometry import Cylinder, Sphere
from robotsim.physics.scene import Motor
from robotsim.physics.surface import ContactSurface

__all__ = [
    "DriveInfo",
    "WheelDrive",
    "drivable",
    "drive_kind",
    "drive_of",
    "placement_motor",
    "resting_links",
    "wheel_ground_height",
    "wheel_joints",
    "wheel_matrix",
    "wheel_motor",
    "wheel_radius",
]

OMNI_SURFACE = ContactSurface(mu=3.0, mu2=0.0)  # the paper's (seed 002) wheel surface
TYRE_SURFACE = ContactSurface(mu=1.5)
CASTER_SURFACE = ContactSurface(mu=0.005)
TYRE_HALF_LENGTH = 0.001  # m: a very short capsule: a rounded disc that barely scrubs
WHEEL_GAIN = 0.5  # N m s/rad: a wheel's velocity servo when nothing names one
WHEEL_FORCE = 5.0  # N m: its torque limit when the joint gives no effort
RESTING_CLEARANCE = 0.05  # of the wheel radius: a body shape this near the ground rests on it


@dataclass
class DriveInfo:
    """What the physics layer added for a robot's drive (names are world names).

    ``tyres``: the tyre capsule geom of each wheel (its centre is the wheel centre);
    ``pairs``: MuJoCo pair name -> (surface, capsule contact frame?).
    """

    kind: str  # "omni" or "diffdrive"
    robot: str
    wheel_joints: tuple[str, ...]
    wheel_radius: float
    surface: ContactSurface
    pairs: dict[str, tuple[ContactSurface, bool]] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    wheel_radii: tuple[float, ...] = ()
    tyres: tuple[str, ...] = ()


@dataclass(frozen=True)
class WheelDrive:
    """A robot's wheel drive as the physics layer needs it: ``kind`` (``omni`` or
    ``diffdrive``), the wheel joints in drive order with their radii (m) and centres
    ``(3,)`` in each wheel link's frame (``None``: the joint anchor), the caster links,
    the metadata parameters (``mu``, ``mu2``, ``wheel_armature``), ``source``
    (``metadata`` or ``profile``), the passive ``rollers`` (joints) on the wheels, and
    ``inertials``: link -> the :class:`~robotsim.model.Inertial` physics gives a wheel or
    roller whose file inertia is implausible (``inertia_note`` says which and why)."""

    kind: str
    wheel_joints: tuple[str, ...]
    radii: tuple[float, ...]
    centres: tuple[tuple[float, float, float] | None, ...]
    casters: tuple[str, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)
    source: str = "metadata"
    rollers: tuple[str, ...] = ()
    inertials: Mapping[str, Any] = field(default_factory=dict)
    inertia_note: str = ""


_DRIVES: weakref.WeakKeyDictionary[Any, WheelDrive | None] = weakref.WeakKeyDictionary()


def drive_of(model: Any) -> WheelDrive | None:
    """The model's wheel drive: its ``omni:``/``diffdrive:`` metadata when it has one,
    else the drive its robot profile finds (a URDF/MJCF base with continuous wheel
    joints; :mod:`robotsim.profile`), else ``None``. Cached per model."""
    try:
        return _DRIVES[model]
    except (KeyError, TypeError):
        pass
    kind = _meta_kind(model)
    if kind is not None:
        joints = wheel_joints(model, kind)
        radii = tuple(wheel_radius(model, kind, j) for j in joints)
        meta = dict(model.metadata[kind] or {})
        caster = meta.get("caster") or meta.get("caster_link")
        out: WheelDrive | None = WheelDrive(
            kind, joints, radii, (None,) * len(joints), (str(caster),) if caster else (), meta
        )
    else:
        out = _profile_drive(model)
    try:
        _DRIVES[model] = out
    except TypeError:
        pass
    return out


def drivable(model: Any) -> Any:
    """``model`` with a floating root if it has a wheel drive (a URDF base is welded to
    its world otherwise); the model itself when it floats already or cannot drive."""
    drive = drive_of(model)
    if drive is None or model.floating:
        return model
    out = dataclasses.replace(model, floating=True)
    try:
        _DRIVES[out] = drive
    except TypeError:
        pass
    return out


def wheel_ground_height(model: Any, drive: WheelDrive) -> float:
    """Height (m) of the wheels' lowest points above the root's origin at the zero pose
    (root z up): place the root at minus this on the ground and the wheels touch it."""
    T = model.fk_all(model.zero())
    idx = {n: i for i, n in enumerate(model.link_names)}
    low = math.inf
    for jn, r, c in zip(drive.wheel_joints, drive.radii, drive.centres):
        j = model.joint(jn)
        Tc = T[idx[j.child]]
        if c is None:
            post = np.asarray(j.post)
            c = -(post[:3, :3].T @ post[:3, 3])  # the joint anchor in the child frame
        z = float(Tc[2, :3] @ np.asarray(c, dtype=float) + Tc[2, 3])
        low = min(low, z - r)
    return low


def _spinning_joints(model: Any) -> int:
    """How many joints could turn a wheel (continuous, or revolute without limits)."""
    from robotsim.model.robot import JointType

    return sum(
        1
        for j in model.joints
        if j.mimic is None
        and (
            j.type is JointType.CONTINUOUS
            or (j.type is JointType.REVOLUTE and not math.isfinite(j.limits.lower))
        )
    )


def _profile_drive(model: Any) -> WheelDrive | None:
    from robotsim.profile.resolve import profile_file_for, resolve_profile
    from robotsim.profile.wheels import wheel_inertia_fixes

    if _spinning_joints(model) < 2 and profile_file_for(model) is None:
        return None  # no wheels possible: skip the inference (FK, mesh points)
    prof = resolve_profile(model)
    if prof.drive is None:
        return None
    by = {w.joint: w for w in prof.wheels}
    T = model.fk_all(model.zero())
    idx = {n: i for i, n in enumerate(model.link_names)}
    T_base = T[idx[prof.base_link]]
    centres = []
    for jn in prof.drive.wheels:
        w = by[jn]
        contact = T_base @ np.append(np.asarray(w.position, dtype=float), 1.0)
        centre_w = contact[:3] + T_base[:3, :3] @ np.array([0.0, 0.0, w.radius])
        T_child = T[idx[model.joint(jn).child]]
        c = T_child[:3, :3].T @ (centre_w - T_child[:3, 3])
        centres.append((float(c[0]), float(c[1]), float(c[2])))
    kind = "omni" if prof.drive.type == "omni" else "diffdrive"
    radii = tuple(by[j].radius for j in prof.drive.wheels)
    wheels = [by[j] for j in prof.drive.wheels]
    rollers = tuple(r for w in wheels for r in w.rollers)
    fixes = wheel_inertia_fixes(model, wheels)
    note = ""
    if fixes:
        note = (f"robot {model.name!r}: wheel/roller inertias beyond what their mass and "
                "size allow, replaced in physics by their geometry's: "
                + "; ".join(why for _, why in fixes.values()))  # fmt: skip
    return WheelDrive(kind, prof.drive.wheels, radii, tuple(centres), prof.drive.casters,
                      {}, "profile", rollers, {k: v for k, (v, _) in fixes.items()},
                      note)  # fmt: skip


def _meta_kind(model: Any) -> str | None:
    meta = getattr(model, "metadata", {}) or {}
    for kind in ("omni", "diffdrive"):
        if kind in meta:
            return kind
    return None


def drive_kind(model: Any) -> str | None:
    """``"omni"``, ``"diffdrive"`` or ``None``: the kind of :func:`drive_of`."""
    d = drive_of(model)
    return None if d is None else d.kind


def wheel_joints(model: Any, kind: str) -> tuple[str, ...]:
    """Wheel joint names in the order the drive kinematics uses (``kind``: the metadata
    section to read; a drive found by the profile ignores it)."""
    meta_all = getattr(model, "metadata", {}) or {}
    if kind not in meta_all:
        d = drive_of(model)
        return () if d is None else d.wheel_joints
    meta = dict(meta_all[kind] or {})
    names = meta.get("wheel_joints") or meta.get("wheels")
    if not names:
        for left, right in (("left", "right"), ("left_wheel", "right_wheel")):
            if kind == "diffdrive" and left in meta and right in meta:
                names = [meta[left], meta[right]]
                break
        else:
            names = [j.name for j in model.joints if j.type.value == "continuous"]
    names = [n["joint"] if isinstance(n, dict) else str(n) for n in names]
    for n in names:
        if n not in model.joint_names:
            raise ModelError(
                f"robot {model.name!r}: metadata.{kind} names wheel joint {n!r} "
                f"which is not a joint; joints: {', '.join(model.joint_names)}"
            )
    return tuple(names)


def wheel_radius(model: Any, kind: str, joint: str) -> float:
    """The metadata's wheel radius (m), else the wheel link's collision cylinder/sphere."""
    meta = dict(model.metadata[kind] or {})
    r = meta.get("wheel_radius")
    if r is not None:
        return float(r)
    link = model.link(model.joint(joint).child)
    for sh in (*link.collisions, *link.visuals):
        if isinstance(sh.geometry, Cylinder | Sphere):
            return float(sh.geometry.radius)
    raise ModelError(
        f"robot {model.name!r}: no wheel_radius in metadata.{kind} and wheel "
        f"link {link.name!r} has no cylinder or sphere to read it from"
    )


def wheel_motor(model: Any, joint: str) -> Motor:
    """The velocity motor a wheel gets when its placement names none: kv
    ``WHEEL_GAIN``, force limited to the joint's effort (else ``WHEEL_FORCE``)."""
    effort = model.joint(joint).limits.effort
    force = effort if math.isfinite(effort) else WHEEL_FORCE
    return Motor("velocity", gain=WHEEL_GAIN, force=force)


def placement_motor(placement: Any, joint: str, scene: Any) -> Motor | None:
    """The motor of ``joint`` of a robot placement: the one it names, else (a wheel of
    its drive, on a scene with ground, when the placement actuates its joints) a
    velocity motor (:func:`wheel_motor`), else the placement's default motor."""
    if joint in placement.motors:
        return placement.motors[joint]
    default = placement.default_motor
    if default is None or scene.ground is None:
        return default
    d = drive_of(placement.model)
    if d is not None and joint in d.wheel_joints:
        return wheel_motor(placement.model, joint)
    if d is not None and joint in d.rollers:
        return None  # passive rollers turn freely
    return default


def add_drive_model(spec: Any, placement: Any, scene: Any) -> DriveInfo | None:
    """Add tyre capsules, ground pairs and caster pairs for ``placement`` (see module)."""
    import mujoco

    model = placement.model
    drive = drive_of(model)
    if drive is None or scene.ground is None:
        return None
    kind, meta = drive.kind, dict(drive.params)
    prefix = f"{placement.name}/"
    joints = drive.wheel_joints
    if kind == "omni":
        surface = ContactSurface(
            mu=float(meta.get("mu", OMNI_SURFACE.mu)),
            mu2=float(meta.get("mu2", OMNI_SURFACE.mu2 or 0.0)),
        )
    else:
        surface = ContactSurface(mu=float(meta.get("mu", TYRE_SURFACE.mu)))
    if placement.surface is not None:
        surface = scene.surfaces[placement.surface]
    info = DriveInfo(
        kind,
        placement.name,
        tuple(prefix + j for j in joints),
        drive.radii[0],
        surface,
        params=meta,
        wheel_radii=drive.radii,
        tyres=tuple(f"{prefix}{jn}:tyre" for jn in joints),
    )
    for jn, radius, centre in zip(joints, drive.radii, drive.centres):
        joint = spec.joint(prefix + jn)
        motor = placement_motor(placement, jn, scene)
        if motor is not None and motor.kind == "velocity":
            # reflected gearmotor inertia; also keeps kv h / inertia <= 1/2 (stable servo)
            arm = max(float(meta.get("wheel_armature", 0.0)), 2.0 * motor.gain * scene.timestep)
            joint.armature = max(float(joint.armature), arm)
        body = joint.parent
        for name in _turned_links(model, jn):  # wheel and rollers: only the tyre touches
            spec.add_exclude(bodyname1="world", bodyname2=prefix + name)
        axis = np.asarray(joint.axis, dtype=float)
        axis = axis / np.linalg.norm(axis)
        pos = np.asarray(joint.pos if centre is None else centre, dtype=float)
        a, b = pos - TYRE_HALF_LENGTH * axis, pos + TYRE_HALF_LENGTH * axis
        tyre = body.add_geom(
            name=f"{prefix}{jn}:tyre",
            type=mujoco.mjtGeom.mjGEOM_CAPSULE,
            fromto=[*a, *b],
            size=[radius, 0, 0],
            density=0.0,
            rgba=[0.15, 0.15, 0.15, 1.0],
            contype=0,
            conaffinity=0,
            group=3,
        )
        pname = f"drive:{prefix}{jn}"
        spec.add_pair(name=pname, geomname1="ground", geomname2=tyre.name, condim=3)
        info.pairs[pname] = (surface, True)
    _set_inertials(spec, prefix, drive)
    resting = resting_links(model, drive)
    for link in resting:
        spec.add_exclude(bodyname1="world", bodyname2=prefix + link)
    if resting:
        gaps = ", ".join(f"{n!r} ({1e3 * gap:.1f} mm)" for n, gap in resting.items())
        _warn_once(
            f"robot {model.name!r}: shapes of {gaps} come down to the ground its wheels "
            "stand on (height above it at rest): they would carry the weight and drag the "
            "base along; in physics they collide with obstacles but not the ground, the "
            "wheels carry the base"
        )
    for caster in drive.casters:
        body = spec.body(prefix + str(caster))
        if body is None:
            raise ModelError(
                f"robot {model.name!r}: metadata.{kind}.caster {caster!r} is not "
                f"a link; links: {', '.join(model.link_names)}"
            )
        spec.add_exclude(bodyname1="world", bodyname2=body.name)
        touching = [g for g in body.geoms if g.contype or g.conaffinity]
        if not touching:  # a visual-only caster: give it a contact sphere of its size
            link = model.link(str(caster))
            r = next(
                (sh.geometry.radius for sh in link.visuals if isinstance(sh.geometry, Sphere)), 0.01
            )
            touching = [
                body.add_geom(
                    name=f"{body.name}:ball",
                    type=mujoco.mjtGeom.mjGEOM_SPHERE,
                    size=[r, 0, 0],
                    density=0.0,
                    contype=0,
                    conaffinity=0,
                    group=3,
                )
            ]
        for i, g in enumerate(touching):
            g.name = g.name or f"{body.name}#caster{i}"
            pname = f"caster:{g.name}"
            spec.add_pair(name=pname, geomname1="ground", geomname2=g.name, condim=3)
            info.pairs[pname] = (CASTER_SURFACE, False)
    return info


def resting_links(model: Any, drive: WheelDrive) -> dict[str, float]:
    """The links, neither turned by a wheel nor casters, whose collision shapes come
    down to within ``RESTING_CLEARANCE`` of the wheels' radius (at least 1 mm) of the
    plane the wheels stand on, at the zero pose (root z up): a chassis shape drawn down
    to the floor (Robotino's file: its base cylinder's bottom is level with the wheel
    bottoms). Such a shape would carry the robot's weight and drag it along the ground
    instead of the wheels; :func:`add_drive_model` lets it collide with everything but
    the ground. Returns link -> the height (m) of its lowest shape point above that
    plane (negative: below it)."""
    from robotsim.profile.shapes import shape_points

    plane = wheel_ground_height(model, drive)
    clearance = max(RESTING_CLEARANCE * min(drive.radii, default=0.0), 1e-3)
    skip = {n for jn in drive.wheel_joints for n in _turned_links(model, jn)}
    skip.update(str(c) for c in drive.casters)
    T = model.fk_all(model.zero())
    out = {}
    for i, name in enumerate(model.link_names):
        lk = model.link(name)
        if name in skip or not lk.collisions:
            continue
        p = np.vstack([shape_points(s) for s in lk.collisions])
        gap = float((p @ T[i][2, :3] + T[i][2, 3]).min()) - plane if len(p) else math.inf
        if gap <= clearance:
            out[name] = gap
    return out


def _warn_once(note: str) -> None:
    if note in _WARNED:
        return
    import warnings

    from robotsim.errors import ModelWarning

    _WARNED.add(note)
    warnings.warn(note, ModelWarning, stacklevel=5)


def _turned_links(model: Any, joint: str) -> list[str]:
    """The links a wheel joint turns: its child and everything below (rollers)."""
    children: dict[str, list[str]] = {}
    for j in model.joints:
        children.setdefault(j.parent, []).append(j.child)
    out, stack = [], [model.joint(joint).child]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(children.get(n, []))
    return out


_WARNED: set[str] = set()  # the notes said (one per robot file)


def _set_inertials(spec: Any, prefix: str, drive: WheelDrive) -> None:
    """Give the wheel and roller bodies with implausible file inertias their geometry's
    (:func:`robotsim.profile.wheels.wheel_inertia_fixes`), with one warning per drive."""
    if not drive.inertials:
        return
    from robotsim.model.principal_inertia import principal_inertia
    from robotsim.spatial import R_to_quat

    for link, ine in drive.inertials.items():
        body = spec.body(prefix + link)
        moments, R = principal_inertia(np.asarray(ine.inertia), link=link)
        body.mass = float(ine.mass)
        body.ipos = np.asarray(ine.com, dtype=float)
        body.iquat = R_to_quat(R) if R is not None else np.array([1.0, 0.0, 0.0, 0.0])
        body.inertia = moments
        body.explicitinertial = True
    _warn_once(drive.inertia_note)


def wheel_matrix(model: Any, data: Any, drive: DriveInfo, base_body: int) -> np.ndarray:
    """Wheel rates from a body twist in a compiled world: ``rates = G @ [vx, vy, w]``
    (rad/s from m/s, m/s, rad/s in the base body's frame), ``G`` ``(n_wheels, 3)`` from
    the wheels' real geometry in ``data`` (MuJoCo model and data; ``base_body`` the
    base's body id). Wheel ``i`` centred at ``p_i`` with axle ``a_i`` and radius
    ``r_i`` rolls without slip at ``u_i . (v + w z x p_i) / r_i``, ``u_i = unit(a_i x
    z)``. Raises InputError for a wheel whose axle is vertical."""
    R, o = data.xmat[base_body].reshape(3, 3), data.xpos[base_body]
    rows = []
    n = len(drive.wheel_joints)
    tyres = drive.tyres or (None,) * n
    radii = np.asarray(drive.wheel_radii or (drive.wheel_radius,) * n, dtype=np.float64)
    for jn, tyre in zip(drive.wheel_joints, tyres):
        jid = model.joint(jn).id
        a = R.T @ data.xaxis[jid]
        centre = data.xanchor[jid] if tyre is None else data.geom_xpos[model.geom(tyre).id]
        p = R.T @ (centre - o)
        u = np.cross(a, [0.0, 0.0, 1.0])
        norm = float(np.linalg.norm(u))
        if norm < 1e-6:
            raise InputError(f"wheel joint {jn!r}: its axle is vertical, it cannot roll")
        u /= norm
        rows.append([u[0], u[1], -u[0] * p[1] + u[1] * p[0]])
    return np.array(rows) / radii[:, None]
