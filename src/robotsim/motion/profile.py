"""Robot profiles as motion uses them: the support soles, the controller's memory, the
servos and the physics-check gains.

The file format and its classes live in :mod:`robotsim.profile.file` (re-exported here);
a robot's profile is its profile file (``<robot>.profile.yaml`` next to the robot file,
or one given by path) on top of what :mod:`robotsim.profile` infers from the model:
without ``soles`` in the file, the inferred feet are the soles.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from robotsim.errors import InputError, ScenarioError, UnknownNameError
from robotsim.model.robot import RobotModel
from robotsim.profile.file import (
    ControllerSpec,
    PhysicsSpec,
    RobotProfile,
    ServoBusSpec,
    ServoSpec,
    SoleSpec,
    read_profile_file,
)

__all__ = [
    "ControllerSpec",
    "PhysicsSpec",
    "RobotProfile",
    "ServoBusSpec",
    "ServoSpec",
    "SoleSpec",
    "check_capacity",
    "check_keyframe_room",
    "load_profile",
    "motion_profile",
    "profile_for",
]


def load_profile(name_or_path: str | Path) -> RobotProfile:
    """The profile file of a built-in robot (by robot name) or a profile file by path."""
    from robotsim.model.loader import LIBRARY_DIR

    s = str(name_or_path)
    builtin = LIBRARY_DIR / f"{s}.profile.yaml"
    if builtin.is_file():
        return read_profile_file(builtin)
    p = Path(s)
    if p.suffix in (".yaml", ".yml") and p.is_file():
        return read_profile_file(p)
    valid = sorted(x.name.removesuffix(".profile.yaml") for x in LIBRARY_DIR.glob("*.profile.yaml"))
    raise UnknownNameError("robot profile", s, valid)


def motion_profile(
    model: RobotModel, file: str | Path | None = None
) -> tuple[RobotModel, RobotProfile]:
    """``(model, profile)`` for motion: the model with the profile's added frames (inferred
    sole frames...) and the profile file's settings with ``soles`` filled from the
    (inferred or overridden) feet when the file gives none."""
    from robotsim.profile.resolve import profile_file_for, resolve_profile, soles_of, with_frames

    path = Path(file) if file is not None else profile_file_for(model)
    spec = read_profile_file(path) if path is not None else RobotProfile(robot=model.name)
    prof = resolve_profile(model, path)
    model = with_frames(model, prof)
    if not spec.soles and prof.feet:
        spec = spec.model_copy(update={"soles": soles_of(prof)})
    if "physics" not in spec.model_fields_set and prof.feet:
        spec = spec.model_copy(update={"physics": scaled_physics(model, prof, spec.soles)})
    for i, s in enumerate(spec.soles):
        if s.frame not in model.frame_names and s.frame not in model.link_names:
            raise InputError(f"{path}: soles[{i}].frame: unknown frame {s.frame!r}")
    return model, spec


def scaled_physics(model: RobotModel, prof: Any, soles: tuple[SoleSpec, ...]) -> PhysicsSpec:
    """Servo gains and fall thresholds scaled to a legged robot with no ``physics`` in its
    profile file: torque limit = its weight times its standing base height (the moment
    of the whole body over a leg), stiffness = that torque per 0.1 rad, damping a
    fiftieth of it per rad/s, the rotor inertia big enough for the servo to stay stable at
    the time step; a fall is the base below half its standing height or tilted 35 deg."""
    from robotsim.profile.file import FallSpec

    h = -min(float(model.fk(model.zero(), s.frame)[2, 3]) for s in soles)
    tau = max(prof.mass, 1e-3) * 9.81 * max(h, 1e-3)
    kp = tau / 0.02
    kv = kp / 50.0
    dt = 0.002
    return PhysicsSpec(
        kp=kp,
        kv=kv,
        torque_limit=tau,
        armature=max(0.005, kp * dt**2, kv * dt),
        timestep=dt,
        fall=FallSpec(min_base_height=0.5 * h, max_tilt_deg=35.0),
    )


def profile_for(robot: str | None) -> RobotProfile:
    """The built-in profile of ``robot``, or the defaults (the paper's controller) for
    robots without one and programs that name no robot."""
    from robotsim.model.loader import LIBRARY_DIR

    if robot is not None and (LIBRARY_DIR / f"{robot}.profile.yaml").is_file():
        return load_profile(robot)
    return RobotProfile(robot=robot or "(any robot)")


def check_capacity(program: Any, profile: RobotProfile, source: str = "") -> None:
    """Raise :class:`ScenarioError` if ``program`` exceeds the controller's memory
    (``source``, a file name, prefixes the message)."""
    try:
        _check_capacity(program, profile)
    except ScenarioError as exc:
        if source:
            raise ScenarioError(f"{source}: {exc}") from None
        raise


def check_keyframe_room(robot: str | None, motion: Any, adding: int = 0) -> None:
    """Raise :class:`InputError` if ``motion`` with ``adding`` more keyframes would not fit
    the controller of ``robot`` (its built-in profile, else the paper's 30): what an
    editor checks before it changes a motion."""
    cap = profile_for(robot).controller.max_keyframes_per_motion
    n = 0 if motion is None else len(motion.keyframes)
    if motion is None or cap is None or n + adding <= cap:
        return
    head = f"motion {motion.name!r} " + (f"has {n}" if adding else f"would have {n}")
    tail = ": start a new motion" if adding else ""
    raise InputError(
        f"{head} keyframes; the {robot} controller holds at most {cap} per motion{tail}"
    )


def _check_capacity(program: Any, profile: RobotProfile) -> None:
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
