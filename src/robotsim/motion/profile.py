"""Robot profiles: what a *real* robot adds to its kinematic model.

A profile (YAML, ``robotsim-profile/1``) names the robot it belongs to and gives

- ``soles``: the support feet — a frame per foot and the sole rectangle in that frame
  (used for ground contact, support switching and the support polygon);
- ``controller``: capacity of the robot's program memory (the paper's controller holds
  30 keyframes per motion and 20 motions per program) — only enforced when asked;
- ``servos``: joint -> Dynamixel id, direction, zero offset and units (robotlink);
- ``physics``: position-servo gains and torque limits for the physics check, and the
  fall thresholds.

Profiles of built-in robots live next to this module in ``profiles/<robot>.yaml``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from robotsim.errors import InputError, ScenarioError, UnknownNameError
from robotsim.physics.timestep import timestep_field
from robotsim.validation import yaml_error_message

__all__ = [
    "PROFILE_DIR",
    "ControllerSpec",
    "PhysicsSpec",
    "RobotProfile",
    "ServoBusSpec",
    "ServoSpec",
    "SoleSpec",
    "check_capacity",
    "load_profile",
]

PROFILE_DIR = Path(__file__).parent / "profiles"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SoleSpec(_Strict):
    """A foot sole: ``frame`` (z up out of the sole), rectangle ``size`` [x, y] (m)
    centred at ``center`` [x, y] in that frame."""

    frame: str
    size: tuple[float, float] = Field(description="length along x, width along y (m)")
    center: tuple[float, float] = (0.0, 0.0)

    def corners(self) -> np.ndarray:
        """The four sole corners in the sole frame ``(4, 3)`` (m)."""
        hx, hy = self.size[0] / 2, self.size[1] / 2
        cx, cy = self.center
        return np.array(
            [[cx + sx * hx, cy + sy * hy, 0.0] for sx, sy in ((1, 1), (1, -1), (-1, -1), (-1, 1))]
        )


class ControllerSpec(_Strict):
    max_keyframes_per_motion: int | None = Field(None, ge=1)
    max_motions_per_program: int | None = Field(None, ge=1)
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
    """Position servos: ``torque = kp (q_ref - q) - kv qdot`` clipped to ``torque_limit``."""

    kp: float = Field(20.0, gt=0, description="N m / rad")
    kv: float = Field(0.5, ge=0, description="N m s / rad")
    torque_limit: float = Field(4.0, gt=0, description="N m")
    per_joint: dict[str, dict[str, float]] = Field(default_factory=dict)
    armature: float = Field(0.005, ge=0, description="reflected rotor inertia, kg m^2")
    friction: float = Field(1.0, gt=0)
    timestep: float = timestep_field()
    fall: FallSpec = FallSpec()

    def gains(self, joint: str) -> tuple[float, float, float]:
        d = self.per_joint.get(joint, {})
        return (
            d.get("kp", self.kp),
            d.get("kv", self.kv),
            d.get("torque_limit", self.torque_limit),
        )


class RobotProfile(_Strict):
    format: str = "robotsim-profile/1"
    robot: str
    soles: tuple[SoleSpec, ...] = ()
    controller: ControllerSpec = ControllerSpec()
    servos: ServoBusSpec = ServoBusSpec()
    physics: PhysicsSpec = PhysicsSpec()

    def sole(self, frame: str) -> SoleSpec:
        for s in self.soles:
            if s.frame == frame:
                return s
        raise UnknownNameError("sole", frame, [s.frame for s in self.soles])


@lru_cache(maxsize=32)
def _load_file(path: str) -> RobotProfile:
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text())
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise InputError(f"{p}: {yaml_error_message(exc)}") from None
    try:
        return RobotProfile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise InputError(f"{p}: {loc}: {err['msg']}") from None


def load_profile(name_or_path: str | Path) -> RobotProfile:
    """The profile of a built-in robot (by robot name) or a profile file."""
    s = str(name_or_path)
    builtin = PROFILE_DIR / f"{s}.yaml"
    if builtin.is_file():
        return _load_file(str(builtin))
    p = Path(s)
    if p.suffix in (".yaml", ".yml") and p.is_file():
        return _load_file(str(p.resolve()))
    raise UnknownNameError("robot profile", s, sorted(x.stem for x in PROFILE_DIR.glob("*.yaml")))


def check_capacity(program: Any, profile: RobotProfile) -> None:
    """Raise :class:`ScenarioError` if ``program`` exceeds the controller's memory."""
    c = profile.controller
    if c.max_motions_per_program is not None and len(program.steps) > c.max_motions_per_program:
        raise ScenarioError(
            f"program {program.name!r}: {len(program.steps)} motions in the sequence; the "
            f"{profile.robot} controller holds at most {c.max_motions_per_program}"
        )
    if c.max_keyframes_per_motion is not None:
        for m in program.motions:
            if len(m.keyframes) > c.max_keyframes_per_motion:
                raise ScenarioError(
                    f"motion {m.name!r}: {len(m.keyframes)} keyframes; the {profile.robot} "
                    f"controller holds at most {c.max_keyframes_per_motion} per motion"
                )
