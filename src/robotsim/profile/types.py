"""What a robot profile says about a model: its limbs, feet, tools, fingers and wheels.

Frozen values; poses are in the model's own link frames; positions in metres. A profile
is inferred from a model (:mod:`robotsim.profile.infer`) and may be overridden in parts
by a profile file (:mod:`robotsim.profile.overrides`).
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "Arm",
    "Drive",
    "Foot",
    "Gripper",
    "Head",
    "Kind",
    "Leg",
    "Profile",
    "SiteFrame",
    "Wheel",
]


class Kind(enum.StrEnum):
    HUMANOID = "humanoid"
    LEGGED = "legged"
    ARM = "arm"
    DUAL_ARM = "dual-arm"
    MOBILE_DIFF = "mobile-diff"
    MOBILE_OMNI = "mobile-omni"
    OTHER = "other"


@dataclass(frozen=True)
class SiteFrame:
    """A frame on a link: the model's own frame ``name`` (``T_link_frame`` copied from it)
    or one the profile adds (``added=True``; :func:`robotsim.profile.with_frames` puts it
    on the model). ``T_link_frame`` ``(4, 4)`` as nested lists (JSON-friendly)."""

    name: str
    link: str
    T_link_frame: tuple[tuple[float, ...], ...]
    added: bool = False

    @property
    def T(self) -> np.ndarray:
        return np.array(self.T_link_frame, dtype=np.float64)


@dataclass(frozen=True)
class Foot:
    """A support foot: ``link`` (the ankle's child), the sole frame (z up out of the sole,
    on the sole plane) and the sole polygon ``(k, 2)`` in that frame, counter-clockwise."""

    name: str
    link: str
    sole: SiteFrame
    polygon: tuple[tuple[float, float], ...]
    toes: tuple[str, ...] = ()

    def corners(self) -> np.ndarray:
        """Sole polygon corners in the sole frame ``(k, 3)`` (z = 0), metres."""
        p = np.array(self.polygon, dtype=np.float64).reshape(-1, 2)
        return np.column_stack([p, np.zeros(len(p))])


@dataclass(frozen=True)
class Leg:
    """A leg: joints from hip to ankle (``q`` names, mimics excluded) and its foot name."""

    name: str
    joints: tuple[str, ...]
    foot: str


@dataclass(frozen=True)
class Gripper:
    """Fingers on a hand link: per finger its joints and fingertip frame."""

    name: str
    link: str
    fingers: tuple[tuple[str, ...], ...]
    fingertips: tuple[SiteFrame, ...]


@dataclass(frozen=True)
class Arm:
    """An arm: joints from shoulder to wrist, the tool frame, its gripper (if any)."""

    name: str
    joints: tuple[str, ...]
    tool: SiteFrame
    gripper: str | None = None


@dataclass(frozen=True)
class Head:
    """A head: its joints from the body up (``q`` names) and the link they carry (where
    a camera sits). Told from an arm by where it is, not by names (see
    :mod:`robotsim.profile.infer`)."""

    name: str
    joints: tuple[str, ...]
    link: str


@dataclass(frozen=True)
class Wheel:
    """A driven wheel: its joint, radius (m), axle ``axis`` and ground contact point
    ``position`` (the centre minus one radius along world z) in the base link frame at
    the zero pose; ``rollers``: the joints of its passive rollers (an omni or mecanum
    wheel modelled roller by roller), never driven."""

    joint: str
    radius: float
    axis: tuple[float, float, float]
    position: tuple[float, float, float]
    rollers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Drive:
    """How wheel speeds follow a base twist: ``omega = matrix @ [vx, vy, wz]`` (rad/s from
    m/s, m/s, rad/s; base frame, z up), one row per wheel in ``wheels`` order. Row ``i`` is
    ``[d_x, d_y, p_x d_y - p_y d_x] / r`` with ``d = axle x z`` the wheel's rolling
    direction and ``p`` its ground contact (the omniwheel decomposition; for two parallel
    wheels the differential drive, whose ``vy`` column is not realisable). ``casters``:
    the links (not wheels) a differential base also rests on; they slide on the ground."""

    type: str  # "diff" | "omni"
    wheels: tuple[str, ...]
    matrix: tuple[tuple[float, float, float], ...]
    track: float | None = None  # diff: distance between the two wheels (m)
    casters: tuple[str, ...] = ()

    @property
    def M(self) -> np.ndarray:
        return np.array(self.matrix, dtype=np.float64)


@dataclass(frozen=True)
class Profile:
    """Everything robotsim knows about how a model is built to be used."""

    robot: str
    kind: Kind
    base_link: str
    mass: float
    com: tuple[float, float, float]
    legs: tuple[Leg, ...] = ()
    feet: tuple[Foot, ...] = ()
    arms: tuple[Arm, ...] = ()
    grippers: tuple[Gripper, ...] = ()
    heads: tuple[Head, ...] = ()
    wheels: tuple[Wheel, ...] = ()
    drive: Drive | None = None
    notes: tuple[str, ...] = field(default=())

    def foot(self, name: str) -> Foot:
        from robotsim.errors import UnknownNameError

        for f in self.feet:
            if f.name == name:
                return f
        raise UnknownNameError("foot", name, [f.name for f in self.feet])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (what ``robotsim profile --json`` prints)."""
        d = asdict(self)
        d["kind"] = self.kind.value
        return d
