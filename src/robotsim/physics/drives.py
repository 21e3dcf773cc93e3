"""Wheel contact models for mobile robots (physics-specific; the RobotModel stays pure).

A robot whose ``metadata`` has ``omni: {...}`` or ``diffdrive: {...}`` gets, on each
wheel body, a **tyre capsule** whose axis is the wheel's axle, touching the ground only
through an explicit MuJoCo ``<pair>``:

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

The wheel body's own collision shapes stop touching the ground (``<exclude>`` world vs
wheel) but still hit obstacles. Wheel joints get velocity motors (the paper drives its
wheels through ODE's ``dParamVel``) unless the placement says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robotsim.errors import ModelError
from robotsim.model.geometry import Cylinder, Sphere
from robotsim.physics.surface import ContactSurface

__all__ = ["DriveInfo", "drive_kind", "wheel_joints", "wheel_radius"]

OMNI_SURFACE = ContactSurface(mu=3.0, mu2=0.0)  # the paper's (seed 002) wheel surface
TYRE_SURFACE = ContactSurface(mu=1.5)
CASTER_SURFACE = ContactSurface(mu=0.005)
TYRE_HALF_LENGTH = 0.001  # m: a very short capsule: a rounded disc that barely scrubs


@dataclass
class DriveInfo:
    """What the physics layer added for a robot's drive (names are world names).

    ``pairs``: MuJoCo pair name -> (surface, capsule contact frame?).
    """

    kind: str  # "omni" or "diffdrive"
    robot: str
    wheel_joints: tuple[str, ...]
    wheel_radius: float
    surface: ContactSurface
    pairs: dict[str, tuple[ContactSurface, bool]] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)


def drive_kind(model: Any) -> str | None:
    """``"omni"``, ``"diffdrive"`` or ``None`` from a RobotModel's metadata."""
    meta = getattr(model, "metadata", {}) or {}
    for kind in ("omni", "diffdrive"):
        if kind in meta:
            return kind
    return None


def wheel_joints(model: Any, kind: str) -> tuple[str, ...]:
    """Wheel joint names in the order the drive kinematics uses."""
    meta = dict(model.metadata[kind] or {})
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


def add_drive_model(spec: Any, placement: Any, scene: Any) -> DriveInfo | None:
    """Add tyre capsules, ground pairs and caster pairs for ``placement`` (see module)."""
    import mujoco

    model = placement.model
    kind = drive_kind(model)
    if kind is None or scene.ground is None:
        return None
    meta = dict(model.metadata[kind] or {})
    prefix = f"{placement.name}/"
    joints = wheel_joints(model, kind)
    radius = wheel_radius(model, kind, joints[0])
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
        kind, placement.name, tuple(prefix + j for j in joints), radius, surface, params=meta
    )
    for jn in joints:
        joint = spec.joint(prefix + jn)
        motor = placement.motors.get(jn, placement.default_motor)
        if motor is not None and motor.kind == "velocity":
            # reflected gearmotor inertia; also keeps kv h / inertia <= 1/2 (stable servo)
            arm = max(float(meta.get("wheel_armature", 0.0)), 2.0 * motor.gain * scene.timestep)
            joint.armature = max(float(joint.armature), arm)
        body = joint.parent
        axis = np.asarray(joint.axis, dtype=float)
        axis = axis / np.linalg.norm(axis)
        pos = np.asarray(joint.pos, dtype=float)
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
        spec.add_exclude(bodyname1="world", bodyname2=body.name)
        pname = f"drive:{prefix}{jn}"
        spec.add_pair(name=pname, geomname1="ground", geomname2=tyre.name, condim=3)
        info.pairs[pname] = (surface, True)
    caster = meta.get("caster") or meta.get("caster_link")
    if caster:
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
