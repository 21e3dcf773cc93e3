"""``kind: motion_check``: a motion program's physics check as a scenario file.

The same check as ``robotsim motion check FILE --physics`` (:mod:`robotsim.motion.
physics_check`), with the robot profile's ``physics`` section overridable in the file, so
the floor friction, servo gains or fall thresholds can be changed with ``--set`` and swept
(``robotsim sweep``)::

    format: robotsim-scenario/1
    kind: motion_check
    name: walk_forward_check
    program: ../motions/walk_forward.yaml   # relative to this file
    physics: {friction: 1.0}                # overrides of the profile's physics section

The summary is the check's (``verdict``, ``fell_at_s``, margins, divergence) plus
``stands`` (bool) and the physics values used; ``--duration`` stops the playback early;
``--out`` writes ``summary.json`` (and the run store records base height, tilt, support
margin and divergence).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from robotsim.errors import InputError, ScenarioError
from robotsim.jsonable import dumps as json_dumps
from robotsim.run_io import RunOptions
from robotsim.validation import validate_as

__all__ = ["MotionCheckScenario", "run_motion_check_kind"]


class MotionCheckScenario(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    format: str = "robotsim-scenario/1"
    kind: str = "motion_check"
    name: str
    description: str = ""
    program: str = Field(description="motion program file, relative to the scenario file")
    robot: str | None = Field(None, description="robot name or file; default: the program's")
    physics: dict[str, Any] = Field(
        default_factory=dict, description="overrides of the robot profile's physics section"
    )
    settle: float = Field(0.5, ge=0, description="s holding the start pose before playing")


def run_motion_check_kind(data: dict[str, Any], source: str, options: RunOptions) -> dict[str, Any]:

    from robotsim.model import load_robot
    from robotsim.motion.physics_check import check_physics, record_check
    from robotsim.motion.playback import play
    from robotsim.motion.profile import PhysicsSpec, load_profile
    from robotsim.motion.schema import load_program
    from robotsim.motion.timeline import compile_program
    from robotsim.recording.scene import keeps_scenes
    from robotsim.run_io import recorded_run

    sc = validate_as(MotionCheckScenario, data, source, ScenarioError)
    if options.mode not in (None, "physics"):
        raise InputError(f"--mode {options.mode!r}: motion_check runs in physics only")
    from robotsim.shipped import find_shipped

    # the program is relative to the scenario file (a shipped one when run by name)
    shipped = None if Path(source).is_file() else find_shipped(source, "scenario")
    file = Path(source) if shipped is None else shipped
    base = file.resolve().parent if file.is_file() else Path.cwd()
    prog_path = (base / sc.program).resolve()
    if not prog_path.is_file():
        raise ScenarioError(f"{source}: program: no such file {prog_path}")
    program = load_program(prog_path)
    robot = sc.robot or program.robot
    if robot is None:
        raise ScenarioError(f"{source}: robot: the program names no robot; give 'robot:'")
    model = load_robot(robot)
    profile = load_profile(model.name)
    physics_data = {**profile.physics.model_dump(), **sc.physics}
    physics = validate_as(PhysicsSpec, physics_data, f"{source}: physics", ScenarioError)
    profile = profile.model_copy(update={"physics": physics})
    if not profile.soles:
        raise ScenarioError(f"{source}: robot {model.name}: no foot soles in its profile")
    res = play(model, compile_program(program, model, str(prog_path)), profile.soles)
    with recorded_run(options, sc.name, {"file": source, "physics": sc.physics}) as recorder:
        # the poses only for a store that keeps them (a 3D replay of the check)
        poses = keeps_scenes(recorder)
        chk = check_physics(res, profile, settle=sc.settle, t_end=options.duration, poses=poses)
        record_check(recorder, chk)
    summary = {
        "scenario": sc.name,
        "kind": "motion_check",
        "file": source,
        "program": program.name,
        "robot": model.name,
        "stands": chk.verdict == "stands",
        "physics": physics.model_dump(),
        **chk.summary(),
        "sim_time": float(chk.t[-1]) if len(chk.t) else 0.0,
        "wall_time_s": chk.wall_seconds,
    }
    if options.out_dir is not None:
        out = Path(options.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json_dumps(summary, indent=2))
    return summary
