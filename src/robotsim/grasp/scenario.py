"""``kind: grasp`` files: grasp trials as a scenario, for ``robotsim run`` (and sweeps)
and the studio (which plays the trials on its clock). Example::

    kind: grasp
    robot: dual_arm_hands         # a library name or a robot file (relative to this file)
    hand: L_hand                  # a gripper of the robot's profile (default: the first)
    object: {type: box, size: [0.045, 0.045, 0.045]}   # docs/objects.md
    trials: 5
    seed: 0
    table: {center: [0.47, 0.34, 0.17], size: [0.22, 0.22, 0.34]}   # default: placed

The summary is ``robotsim grasp``'s (docs/grasp.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from robotsim.errors import RobotsimError, ScenarioError
from robotsim.objects.spec import ObjectSpec
from robotsim.validation import format_validation_error

__all__ = ["GraspScenario", "prepare_scenario", "run_grasp_kind"]

Vec3 = Annotated[list[float], Field(min_length=3, max_length=3)]


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid")

    center: Vec3
    size: Annotated[list[Annotated[float, Field(gt=0)]], Field(min_length=3, max_length=3)]


class GraspScenario(BaseModel):
    """A ``kind: grasp`` file (module docstring)."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["robotsim-scenario/1"] = "robotsim-scenario/1"
    kind: Literal["grasp"]
    name: str = "grasp"
    description: str = ""
    robot: str
    hand: str | None = None
    object: ObjectSpec
    trials: int = Field(5, ge=1, le=10_000)
    seed: int = Field(0, ge=0)
    table: _Table | None = None


def parse(data: Any, source: str) -> GraspScenario:
    try:
        return GraspScenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(format_validation_error(exc, GraspScenario, source)) from None


def prepare_scenario(spec: GraspScenario, source: str) -> Any:
    """The prepared :class:`robotsim.grasp.run.GraspRun` of a file (robot and object
    files taken relative to it)."""
    from robotsim.grasp.run import prepare
    from robotsim.hands.contact import BoxObstacle
    from robotsim.objects.load import load_object

    base = Path(source).parent
    robot = spec.robot
    if (base / robot).suffix and (base / robot).exists():
        robot = str(base / robot)
    try:
        obj = load_object(spec.object, base_dir=base)
        table = None
        if spec.table is not None:
            t = spec.table
            table = BoxObstacle("table", tuple(t.center), tuple(t.size))  # type: ignore[arg-type]
        return prepare(robot, obj, hand=spec.hand, table=table)
    except RobotsimError as exc:
        raise ScenarioError(f"{source}: {exc}") from None


def run_grasp_kind(data: dict[str, Any], source: str, options: Any) -> dict[str, Any]:
    """The ``kind: grasp`` runner of ``robotsim run`` (``--seed`` overrides the file's)."""
    from robotsim.grasp.run import grasp_trials, write_outputs
    from robotsim.run_io import recorded_run

    spec = parse(data, source)
    run = prepare_scenario(spec, source)
    seed = spec.seed if options.seed is None else int(options.seed)
    meta = {"kind": "grasp", "robot": run.hand.model.name, "hand": run.hand.name,
            "object": run.obj.name, "trials": spec.trials}  # fmt: skip
    with recorded_run(options, spec.name, meta) as recorder:
        summary, results = grasp_trials(run, spec.trials, seed, recorder, options.progress)
    summary = {"scenario": spec.name, "kind": "grasp", **summary}
    if options.out_dir is not None:
        write_outputs(options.out_dir, summary, run, results)
    return summary
