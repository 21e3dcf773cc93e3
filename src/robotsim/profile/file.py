"""The profile file format (``robotsim-profile/1``): a small YAML next to a robot file
(``<robot>.profile.yaml``) or given with ``--profile FILE``.

Sections (all optional):

- ``kind``, ``base_link``, ``legs``, ``feet``, ``arms``, ``grippers``, ``wheels``,
  ``drive``: replace what is inferred from the model (:mod:`robotsim.profile.infer`);
- ``soles``: the support feet for motion playback — a frame per foot and the sole
  rectangle (or polygon) in that frame (default: from the feet);
- ``controller``: capacity of the robot's program memory (the paper's controller holds
  30 keyframes per motion and 20 motions per program: the defaults) — enforced when a
  motion file is read or written, by the CLI and editor, and before an upload;
- ``servos``: joint -> Dynamixel id, direction, zero offset and units (robotlink);
- ``physics``: position-servo gains and torque limits for the physics check, and the
  fall thresholds;
- ``sensors``: the robot's sensors (:mod:`robotsim.profile.sensor_spec`), mounted
  wherever the robot runs in physics (a scenario's robot may add or replace them).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from robotsim.errors import InputError, UnknownNameError
from robotsim.file_scope import note_read
from robotsim.profile.sensor_spec import SensorSpec
from robotsim.ranges import MAX_ARMATURE, MAX_DAMPING, MAX_FORCE, MAX_SERVO_GAIN
from robotsim.validation import first_duplicate, read_yaml_file, validate_as

__all__ = [
    "ArmSpec",
    "ControllerSpec",
    "DriveSpec",
    "FallSpec",
    "FootSpec",
    "GripperSpec",
    "LegSpec",
    "PhysicsSpec",
    "RobotProfile",
    "ServoBusSpec",
    "ServoSpec",
    "SoleSpec",
    "WheelSpec",
    "read_profile_file",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SoleSpec(_Strict):
    """A foot sole: ``frame`` (z up out of the sole), rectangle ``size`` [x, y] (m)
    centred at ``center`` [x, y] in that frame."""

    frame: str
    size: tuple[float, float] = Field((0.0, 0.0), description="length along x, width along y (m)")
    center: tuple[float, float] = (0.0, 0.0)
    polygon: tuple[tuple[float, float], ...] | None = Field(
        None, description="sole outline [[x, y], ...] in the frame instead of a rectangle"
    )

    def corners(self) -> np.ndarray:
        """The sole corners in the sole frame ``(k, 3)`` (m): the polygon, or the four
        corners of the rectangle."""
        if self.polygon is not None:
            p = np.asarray(self.polygon, dtype=np.float64).reshape(-1, 2)
            return np.column_stack([p, np.zeros(len(p))])
        hx, hy = self.size[0] / 2, self.size[1] / 2
        cx, cy = self.center
        return np.array(
            [[cx + sx * hx, cy + sy * hy, 0.0] for sx, sy in ((1, 1), (1, -1), (-1, -1), (-1, 1))]
        )


class ControllerSpec(_Strict):
    """The controller's program memory; defaults are the paper's (seed 000: 30 pose
    records per motion, 20 motions per program); ``null`` = no limit."""

    max_keyframes_per_motion: int | None = Field(30, ge=1)
    max_motions_per_program: int | None = Field(20, ge=1)
    baudrate: int = 115200


class ServoSpec(_Strict):
    """One servo: id on the bus, direction (+1/-1), offset (deg: the joint angle at
    the servo's centre position)."""

    id: int = Field(ge=0, le=252)
    direction: int = Field(1)
    offset_deg: float = 0.0

    def model_post_init(self, _context: Any) -> None:
        if self.direction not in (1, -1):
            raise ValueError(f"direction must be 1 or -1, got {self.direction}")


class ServoBusSpec(_Strict):
    """Dynamixel Protocol 2.0 bus: ticks per revolution, the centre tick, and the
    control-table addresses used (defaults: X series)."""

    baudrate: int = 1_000_000
    ticks_per_rev: int = 4096
    center_tick: int = 2048
    addr_torque_enable: int = 64
    addr_goal_position: int = 116
    addr_present_position: int = 132
    joints: dict[str, ServoSpec] = Field(default_factory=dict)


class FallSpec(_Strict):
    min_base_height: float = Field(0.2, description="m; below this the robot has fallen")
    max_tilt_deg: float = Field(35.0, description="body tilt from vertical that counts as a fall")


class PhysicsSpec(_Strict):
    """Position servos: ``torque = kp (q_ref - q) - kv qdot + feed-forward`` clipped to
    ``torque_limit``; ``feedforward``: ``gravity`` (default: the gravity torque of the
    limb beyond the joint), ``inverse_dynamics`` or ``none`` (docs/physics.md)."""

    kp: float = Field(20.0, gt=0, le=MAX_SERVO_GAIN, description="N m / rad")
    kv: float = Field(0.5, ge=0, le=MAX_DAMPING, description="N m s / rad")
    torque_limit: float = Field(4.0, gt=0, le=MAX_FORCE, description="N m")
    per_joint: dict[str, dict[str, float]] = Field(default_factory=dict)
    armature: float = Field(
        0.005, ge=0, le=MAX_ARMATURE, description="reflected rotor inertia, kg m^2"
    )
    friction: float = Field(1.0, gt=0)
    # physics.timestep's default and range (0, 0.05] s, written out: the profile sits
    # beside the physics layer, which reads robot profiles (a unit may not import back)
    timestep: float = Field(0.002, gt=0, le=0.05, description="physics step, s")
    fall: FallSpec = FallSpec()
    feedforward: Literal["none", "gravity", "inverse_dynamics"] = "gravity"

    @field_validator("per_joint")
    @classmethod
    def _per_joint_in_range(cls, v: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        """Each joint's own ``kp``/``kv``/``torque_limit``, in the ranges of the defaults."""
        bounds = {"kp": (0.0, MAX_SERVO_GAIN), "kv": (0.0, MAX_DAMPING),
                  "torque_limit": (0.0, MAX_FORCE)}  # fmt: skip
        for joint, gains in v.items():
            for key, value in gains.items():
                if key not in bounds:
                    raise ValueError(f"{joint}: unknown key {key!r}; valid: {', '.join(bounds)}")
                lo, hi = bounds[key]
                if not (lo <= value <= hi) or (key != "kv" and value == 0):
                    raise ValueError(f"{joint}.{key} = {value:g} is outside ({lo:g}, {hi:g}]")
        return v

    def gains(self, joint: str) -> tuple[float, float, float]:
        d = self.per_joint.get(joint, {})
        return (
            d.get("kp", self.kp),
            d.get("kv", self.kv),
            d.get("torque_limit", self.torque_limit),
        )


class LegSpec(_Strict):
    name: str
    joints: tuple[str, ...]
    foot: str


class FootSpec(_Strict):
    """A foot: ``link``, its sole ``frame`` (a model frame, z up out of the sole) and the
    sole ``polygon`` [[x, y], ...] in that frame (or ``size`` [x, y] + ``center``)."""

    name: str
    link: str
    frame: str
    polygon: tuple[tuple[float, float], ...] | None = None
    size: tuple[float, float] | None = None
    center: tuple[float, float] = (0.0, 0.0)


class ArmSpec(_Strict):
    name: str
    joints: tuple[str, ...]
    tool: str = Field(description="a frame or link name")
    gripper: str | None = None


class GripperSpec(_Strict):
    name: str
    link: str
    fingers: tuple[tuple[str, ...], ...]
    fingertips: tuple[str, ...] = Field(description="frame names, one per finger")


class WheelSpec(_Strict):
    joint: str
    radius: float = Field(gt=0, description="m")


class DriveSpec(_Strict):
    type: Literal["diff", "omni"]
    wheels: tuple[str, ...] | None = None
    casters: tuple[str, ...] | None = Field(None, description="links that slide (diff)")


class RobotProfile(_Strict):
    """A profile file (``robotsim-profile/1``). Every section is optional: what is given
    replaces what robotsim infers from the model (see :mod:`robotsim.profile.resolve`)."""

    format: Literal["robotsim-profile/1"] = "robotsim-profile/1"
    robot: str | None = None
    kind: Literal["humanoid", "legged", "arm", "dual-arm", "mobile-diff", "mobile-omni",
                  "other"] | None = None  # fmt: skip
    base_link: str | None = None
    legs: tuple[LegSpec, ...] | None = None
    feet: tuple[FootSpec, ...] | None = None
    arms: tuple[ArmSpec, ...] | None = None
    grippers: tuple[GripperSpec, ...] | None = None
    wheels: tuple[WheelSpec, ...] | None = None
    drive: DriveSpec | None = None
    soles: tuple[SoleSpec, ...] = ()
    controller: ControllerSpec = ControllerSpec()
    servos: ServoBusSpec = ServoBusSpec()
    physics: PhysicsSpec = PhysicsSpec()
    sensors: tuple[SensorSpec, ...] = ()

    @field_validator("sensors")
    @classmethod
    def _unique_sensors(cls, sensors: tuple[SensorSpec, ...]) -> tuple[SensorSpec, ...]:
        if (dup := first_duplicate(s.label for s in sensors)) is not None:
            raise ValueError(f"two sensors named {dup!r}; give each its own 'name'")
        return sensors

    def sole(self, frame: str) -> SoleSpec:
        for s in self.soles:
            if s.frame == frame:
                return s
        raise UnknownNameError("sole", frame, [s.frame for s in self.soles])


@lru_cache(maxsize=64)
def _read(path: str, mtime: float) -> RobotProfile:
    p = Path(path)
    data = read_yaml_file(p, InputError)
    if not isinstance(data, dict):
        raise InputError(f"{p}: a profile file is a YAML mapping (format: robotsim-profile/1)")
    return validate_as(RobotProfile, data, p, InputError)


def read_profile_file(path: str | Path) -> RobotProfile:
    """Read and validate a profile file (the message names the file and the field)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file")
    p = p.resolve()
    note_read(p)  # a run's receipt names it (cached or not)
    return _read(str(p), p.stat().st_mtime)
