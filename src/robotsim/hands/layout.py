"""Which joints and frames of a robot make up one arm with a 3-finger hand.

The arm paper's hand (seed 001, table 1) has five arm joints — shoulder x/y, elbow
y/R (upper-arm rotation), wrist x — and three fingers whose segments are coupled
(finger1, subfinger1, subfinger11 move together), so one actuated joint closes each
finger. In robotsim the coupled segments are mimic joints; a :class:`HandLayout` names
the actuated ones, the fingertip frames (centres of the bounding spheres) and the palm
frame for one side (``L`` or ``R``), resolved once against the model.

The closing direction of each finger (the sign of ``dq`` that brings its tip towards
the other two) is measured on the model, not assumed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from robotsim.errors import InputError, UnknownNameError
from robotsim.model.geometry import Sphere
from robotsim.model.robot import RobotModel

__all__ = ["ARM_ROLES", "HandLayout", "hand_layouts"]

ARM_ROLES = ("shoulder_x", "shoulder_y", "elbow_y", "elbow_r", "wrist_x")
"""The paper's five arm joints, by role; joint names are ``{side}_{role}``."""

FINGER_ROLES = ("finger1", "finger2", "finger3")
"""Actuated finger joints; ``finger3`` is the thumb (the paper's third finger)."""

DEFAULT_TIP_RADIUS = 0.01  # m, when the fingertip link carries no sphere


@dataclass(frozen=True)
class HandLayout:
    """One arm + hand of a robot, by name.

    Attributes:
        side: ``"L"`` or ``"R"``.
        arm_joints: role -> actuated joint name, for :data:`ARM_ROLES`.
        finger_joints: actuated joint of each finger (thumb last).
        tip_frames: fingertip frame of each finger (same order).
        palm_frame: the frame the grasped ball is attached to.
        closing: ``+1.0`` or ``-1.0`` per finger: the sign of ``dq`` that closes it.
        tip_radius: fingertip bounding-sphere radius (m).
        thumb: index of the thumb in the finger tuples.
    """

    side: str
    arm_joints: dict[str, str]
    finger_joints: tuple[str, ...]
    tip_frames: tuple[str, ...]
    palm_frame: str
    closing: tuple[float, ...]
    tip_radius: float
    thumb: int = 2

    @property
    def joints(self) -> tuple[str, ...]:
        """Every actuated joint of this side (arm, then fingers)."""
        return (*self.arm_joints.values(), *self.finger_joints)

    @classmethod
    def from_model(
        cls,
        model: RobotModel,
        side: str,
        tip_radius: float | None = None,
        q_ref: Sequence[float] | None = None,
    ) -> HandLayout:
        """Resolve ``{side}_shoulder_x`` ... ``{side}_wrist_x`` and the fingers, tips,
        palm and thumb on ``model``: from the robot file's ``metadata.hands.<side>`` when
        present, else ``{side}_finger1..3`` (thumb last), ``{side}_tip1..3`` and
        ``{side}_palm``. An unknown name lists the valid ones.

        Args:
            tip_radius: bounding-sphere radius (m); default: the radius of a sphere on
                the fingertip's link, else 0.01 m.
            q_ref: configuration the closing directions are measured at (default: the
                model's ``initial`` pose if it has one, else zero).
        """
        if side not in ("L", "R"):
            raise InputError(f"hand side must be 'L' or 'R', got {side!r}")
        p = f"{side}_"
        arm = {}
        for role in ARM_ROLES:
            name = p + role
            if name not in model.joint_names:
                exc = UnknownNameError("joint", name, model.joint_names)
                exc.args = (
                    f"{exc} (hands need a two-arm robot with the paper's arms: joints "
                    f"{p}shoulder_x, {p}shoulder_y, {p}elbow_y, {p}elbow_r, {p}wrist_x and three "
                    "fingers, as dual_arm_hands has (docs/hands.md); one arm with any gripper: "
                    "a 'gripper:' section, or 'robotsim grasp')",
                )
                raise exc
            arm[role] = name
        meta = _hand_metadata(model, side)
        fingers = tuple(meta.get("fingers") or (p + r for r in FINGER_ROLES))
        tips = tuple(meta.get("tips") or (f"{p}tip{i}" for i in (1, 2, 3)))
        palm = str(meta.get("palm") or p + "palm")
        if len(fingers) != 3 or len(tips) != 3:
            raise InputError(f"{model.name}: hand {side} needs 3 fingers and 3 tips, got "
                             f"{list(fingers)} and {list(tips)}")  # fmt: skip
        for name in fingers:
            model.joint_index(name)
        thumb_name = meta.get("thumb", fingers[-1])
        if thumb_name not in fingers:
            raise UnknownNameError(f"thumb of hand {side}", str(thumb_name), fingers)
        frames = set(model.frame_names) | set(model.link_names)
        for name in (*tips, palm):
            if name not in frames:
                raise UnknownNameError("frame", name, model.frame_names)
        if tip_radius is None:
            tip_radius = meta.get("tip_radius") or _sphere_radius(model, tips[0])
        if not np.isfinite(tip_radius) or tip_radius <= 0:
            raise InputError(f"tip_radius must be > 0 m, got {tip_radius!r}")
        if q_ref is None:
            q = model.pose("initial") if "initial" in model.poses else model.zero()
        else:
            q = np.asarray(q_ref, float)
        closing = _closing_signs(model, q, fingers, tips)
        thumb = fingers.index(str(thumb_name))
        return cls(side, arm, fingers, tips, palm, closing, float(tip_radius), thumb)


def hand_layouts(model: RobotModel, tip_radius: float | None = None) -> dict[str, HandLayout]:
    """Both sides of a dual-arm model: ``{"L": ..., "R": ...}``."""
    return {s: HandLayout.from_model(model, s, tip_radius) for s in ("L", "R")}


def _hand_metadata(model: RobotModel, side: str) -> dict[str, Any]:
    """``metadata.hands.<side>`` of the robot file (fingers, tips, palm, thumb,
    tip_radius), when it has one."""
    hands = model.metadata.get("hands") if isinstance(model.metadata, Mapping) else None
    entry = hands.get(side) if isinstance(hands, Mapping) else None
    return dict(entry) if isinstance(entry, Mapping) else {}


def _sphere_radius(model: RobotModel, tip_frame: str) -> float:
    link = next((f.link for f in model.frames if f.name == tip_frame), tip_frame)
    for shape in model.link(link).collisions:
        if isinstance(shape.geometry, Sphere):
            return float(shape.geometry.radius)
    return DEFAULT_TIP_RADIUS


def _closing_signs(
    model: RobotModel, q: np.ndarray, fingers: tuple[str, ...], tips: tuple[str, ...]
) -> tuple[float, ...]:
    """+1 where increasing the finger joint moves its tip towards the centroid of the
    three tips, else -1 (finite difference of 1e-4 rad, away from the limits)."""
    signs = []
    base = model.tree.fk_frames(q, list(tips))[:, :3, 3]
    centre = base.mean(axis=0)
    for k, name in enumerate(fingers):
        i = model.joint_index(name)
        lo, hi = model.lower[i], model.upper[i]
        h = 1e-4 if q[i] + 1e-4 <= hi else -1e-4
        if q[i] + h < lo:
            h = hi - q[i]
        qq = q.copy()
        qq[i] += h
        moved = model.fk(qq, tips[k])[:3, 3]
        closer = np.linalg.norm(moved - centre) < np.linalg.norm(base[k] - centre)
        signs.append(1.0 if closer == (h > 0) else -1.0)
    return tuple(signs)
