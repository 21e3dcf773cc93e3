"""``kind: walk``: a humanoid walking in physics on a schedule of commands.

The same walk as ``robotsim walk`` (the online engine, balance feedback, re-anchoring),
steered by commands at given times, like a remote controller would::

    format: robotsim-scenario/1
    kind: walk
    name: walk_commands
    robot: humanoid17            # a library name or a robot file (relative to this file)
    duration: 14                 # s of simulated time
    friction: 1.0                # optional: the floor's (default: the robot profile's)
    params: {step_height: 0.02}  # optional: walk parameters (docs/walk.md)
    commands:
      - {t: 1.0, vx: 0.1}                  # walk forward at 0.1 m/s (body frame)
      - {t: 6.0, vx: 0.0, vy: 0.03}        # sideways to the left
      - {t: 9.0, stop: true}               # feet together, stand
      - {t: 11.0, goal: [0.2, 0.0, 0.0]}   # 0.2 m forward and stop there (m, m, deg)
    pushes:
      - {t: 4.0, impulse: 0.1, direction: [0, 1]}   # N s on the root, 0.1 s
    sensors:                                        # optional (docs/sensors.md)
      - {type: imu}
      - {type: force, links: feet}

Velocities are ``vx`` (m/s forward), ``vy`` (m/s left), ``turn`` (deg/s, left
positive), clamped to the robot's step limits; ``stop: true`` is all zero. The summary
says whether it fell (with the numbers), how far it went, its heading change, the
largest tilt and ZMP error, the steps and the real-time factor; the run store records
the root pose, CoM, ZMP and their references per tick, and the readings of the robot's
sensors (its profile file's and the file's ``sensors``) under the robot's name.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from robotsim.errors import InputError, ScenarioError
from robotsim.jsonable import dumps as json_dumps
from robotsim.profile.sensor_spec import SensorSpec
from robotsim.ranges import MAX_LENGTH
from robotsim.run_io import RunOptions
from robotsim.validation import validate_as

__all__ = [
    "WalkCommand",
    "WalkPushSpec",
    "WalkScenario",
    "run_walk_kind",
    "scenario_params",
    "scenario_robot",
]


class WalkCommand(BaseModel):
    """One command at time ``t`` (s): a velocity, a stop or a goal."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    t: float = Field(ge=0, description="s")
    vx: float = Field(0.0, description="m/s forward")
    vy: float = Field(0.0, description="m/s to the left")
    turn: float = Field(0.0, description="deg/s, left positive")
    stop: bool = False
    goal: tuple[float, float, float] | None = Field(
        None, description="[forward m, left m, turn deg] from where the robot stands"
    )

    @model_validator(mode="after")
    def _one_thing(self) -> WalkCommand:
        moving = any(v != 0 for v in (self.vx, self.vy, self.turn))
        if sum([moving, self.stop, self.goal is not None]) > 1:
            raise ValueError("give one of a velocity (vx, vy, turn), stop or goal")
        for v in (self.t, self.vx, self.vy, self.turn, *(self.goal or ())):
            if not math.isfinite(v):
                raise ValueError("numbers must be finite")
        if self.goal is not None and max(abs(self.goal[0]), abs(self.goal[1])) > MAX_LENGTH:
            raise ValueError(
                f"goal {list(self.goal)}: a goal within {MAX_LENGTH:g} m (a farther one "
                "needs more footsteps than a number can count)"
            )
        return self


class WalkPushSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    t: float = Field(ge=0)
    impulse: float = Field(gt=0, description="N s")
    direction: tuple[float, float] = (0.0, 1.0)
    duration: float = Field(0.1, gt=0, description="s")


class WalkScenario(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    format: str = "robotsim-scenario/1"
    kind: str = "walk"
    name: str
    description: str = ""
    robot: str = Field(description="library robot name or robot file, relative to this file")
    duration: float = Field(gt=0, le=3600, description="s of simulated time")
    friction: float | None = Field(None, gt=0)
    params: dict[str, float] = Field(default_factory=dict, description="walk parameters")
    commands: list[WalkCommand] = Field(default_factory=list)
    pushes: list[WalkPushSpec] = Field(default_factory=list)
    sensors: list[SensorSpec] = Field(
        default_factory=list,
        description="sensors on the robot (docs/sensors.md), with its profile file's",
    )


def scenario_robot(robot: str, source: str) -> str:
    """The file's ``robot``: a robot file next to the scenario ``source`` if there is
    one, else as given (a library name or a path)."""
    p = Path(robot)
    if p.suffix and not p.is_absolute() and Path(source).is_file():
        near = Path(source).resolve().parent / p
        if near.is_file():
            return str(near)
    return robot


def scenario_params(given: dict[str, float], source: str) -> Any:
    """The file's ``params`` as :class:`~robotsim.walk.params.WalkParams` (names checked;
    values are checked when the walk sizes itself)."""
    from dataclasses import fields

    from robotsim.walk.params import WalkParams

    valid = [f.name for f in fields(WalkParams)]
    for k in given:
        if k not in valid:
            raise ScenarioError(
                f"{source}: params.{k}: unknown walk parameter; valid: {', '.join(valid)}"
            )
    return WalkParams(**given)


def run_walk_kind(data: dict[str, Any], source: str, options: RunOptions) -> dict[str, Any]:
    """Run a ``kind: walk`` file (module docs) -> its summary."""
    import numpy as np

    from robotsim.model.loader import load_robot
    from robotsim.run_io import recorded_run
    from robotsim.walk.biped import biped_of
    from robotsim.walk.engine import WalkEngine
    from robotsim.walk.report import record_walk_scene
    from robotsim.walk.sensing import sensor_summary, walk_sensors
    from robotsim.walk.simulate import CommandDriver, Push, WalkSim

    sc = validate_as(WalkScenario, data, source, ScenarioError)
    if options.mode not in (None, "physics"):
        raise InputError(f"--mode {options.mode!r}: walk scenarios run in physics only")
    params = scenario_params(sc.params, source)
    biped = biped_of(load_robot(scenario_robot(sc.robot, source)))
    engine = WalkEngine(biped, params)
    driver = CommandDriver(engine)
    pushes = tuple(Push(p.t, p.impulse, p.direction, p.duration) for p in sc.pushes)
    sim = WalkSim(driver, pushes=pushes, friction=sc.friction)
    duration = sc.duration if options.duration is None else min(sc.duration, options.duration)
    commands = sorted(sc.commands, key=lambda c: c.t)
    done: list[dict[str, Any]] = []
    names = ("base_x", "base_y", "base_z", "tilt_deg", "com_x", "com_y", "com_ref_x",
             "com_ref_y", "zmp_x", "zmp_y", "zmp_ref_x", "zmp_ref_y", "support")  # fmt: skip
    with recorded_run(options, sc.name, {"file": source, "robot": biped.name}) as recorder:
        sim.sensors = walk_sensors(sim, biped, sc.sensors, f"{source}: sensors", recorder)
        n = round(duration / sim.dt)
        for k in range(n):
            while commands and commands[0].t <= sim.t + 1e-9:
                c = commands.pop(0)
                if c.goal is not None:
                    driver.go_to(c.goal[0], c.goal[1], math.radians(c.goal[2]))
                else:
                    driver.command(c.vx, c.vy, math.radians(c.turn))
                done.append({"t": sim.t, **c.model_dump(exclude_defaults=True)})
                if hasattr(recorder, "event"):
                    recorder.event(sim.t, "command", biped.name, done[-1])
            sim.step()
            if options.progress is not None and k % 100 == 0:
                options.progress(k, n)
            if sim.fell_at is not None and sim.t >= sim.fell_at + 0.5:
                break
        run = sim.result()
        if hasattr(recorder, "signals"):
            tilt = run.tilt_deg
            cols = np.column_stack([run.root[:, :3, 3], tilt, run.com[:, :2], run.com_ref[:, :2],
                                    np.nan_to_num(run.zmp), run.zmp_ref, run.support])  # fmt: skip
            recorder.signals(biped.name, run.t, names, cols)
        record_walk_scene(recorder, run, biped.name)
        sensed = sensor_summary(sim.sensors, biped.name)
        if sim.sensors is not None:
            sim.sensors.close()
    root = run.root
    yaw = np.unwrap(np.arctan2(root[:, 1, 0], root[:, 0, 0]))
    path = float(np.sum(np.linalg.norm(np.diff(root[:, :2, 3], axis=0), axis=1)))
    ze = np.linalg.norm(run.zmp - run.zmp_ref, axis=1)
    ze = ze[np.isfinite(ze)]
    summary: dict[str, Any] = {
        "scenario": sc.name,
        "kind": "walk",
        "file": source,
        "robot": biped.name,
        "fell": run.fell,
        "fell_at_s": run.fell_at_s,
        "reason": run.reason,
        "leg_length_m": biped.leg_length,
        "displacement_m": [float(v) for v in root[-1, :2, 3] - root[0, :2, 3]],
        "path_length_m": path,
        "heading_change_deg": float(np.degrees(yaw[-1] - yaw[0])),
        "max_tilt_deg": float(np.max(run.tilt_deg)),
        "max_zmp_error_m": float(np.max(ze)) if ze.size else None,
        "steps": len(run.steps),
        "commands": done,
        "sim_time": float(run.t[-1]),
        "rtf": run.rtf,
        "cpu_rtf": run.cpu_rtf,
        "sensors": sensed,
    }
    if options.out_dir is not None:
        out = Path(options.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json_dumps(summary, indent=2))
    return summary
