"""A ``hand_ball_transfer`` file for a single arm with a parallel gripper: the smallest
general way into the hand scenario for any arm whose profile finds a gripper.

A file with a ``gripper:`` section (instead of the two-hand ``script:``) runs
:func:`robotsim.hands.gripper.gripper_grasp` in physics mode: the ball on its table, the
gripper picks it, lifts it ``lift`` m, holds it ``hold`` s and lets it go. Example::

    kind: hand_ball_transfer
    robot: panda.urdf            # relative to the file, or a library name
    ball: {radius: 0.025, position: [0.5, 0.0, 0.325], mass: 0.05, friction: 1.5}
    tables: [{center: [0.5, 0.0, 0.15], size: [0.2, 0.2, 0.3]}]
    gripper: {approach: 0.12, lift: 0.15, hold: 1.0}
    expect: [touch, grasp, release, landed]

The summary has the hand scenario's fields: ``events`` (``t``, ``type``, ``hand`` = the
gripper, ``detail`` = the fingertip frame of a touch), ``completed``, ``missing_events``
and the ball's final position.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from robotsim.errors import RobotsimError, ScenarioError
from robotsim.file_scope import OutsideScopeError
from robotsim.jsonable import dumps as json_dumps
from robotsim.validation import format_validation_error

__all__ = ["GripperScenario", "run_gripper_data"]

EVENTS = ("touch", "grasp", "release", "landed")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)


class _Ball(_Strict):
    radius: float = Field(0.025, gt=0)
    position: tuple[float, float, float]
    mass: float = Field(0.05, gt=0)
    friction: float = Field(1.5, ge=0)


class _Table(_Strict):
    name: str = "table"
    center: tuple[float, float, float]
    size: tuple[float, float, float]


class _Gripper(_Strict):
    approach: float = Field(0.12, gt=0, description="m above the ball before descending")
    lift: float = Field(0.15, gt=0, description="m the ball is lifted")
    hold: float = Field(1.0, ge=0, description="s it is held up")


class GripperScenario(_Strict):
    """A single-arm gripper pick (module docstring)."""

    format: Literal["robotsim-scenario/1"] = "robotsim-scenario/1"
    kind: Literal["hand_ball_transfer"]
    name: str = "gripper_pick"
    description: str = ""
    robot: str
    dt: float = Field(0.01, gt=0, le=0.05)
    ball: _Ball
    tables: tuple[_Table] = Field(description="the one table the ball rests on")
    gripper: _Gripper = _Gripper()
    expect: list[Literal["touch", "grasp", "release", "landed"]] = list(EVENTS)


def run_gripper_data(
    data: dict[str, Any],
    source: str,
    mode: str | None = None,
    out_dir: str | Path | None = None,
    recorder: Any = None,
) -> dict[str, Any]:
    """Validate and run a gripper file; returns the summary (and writes summary.json)."""
    from robotsim.hands.gripper import GripperOptions, gripper_grasp
    from robotsim.model.loader import load_robot

    try:
        spec = GripperScenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(format_validation_error(exc, GripperScenario, source)) from None
    if (mode or "physics") != "physics":
        raise ScenarioError(
            f"{source}: gripper: a gripper pick runs in physics mode (--mode physics)"
        )
    table = spec.tables[0]
    top = table.center[2] + table.size[2] / 2
    b = spec.ball
    if abs(b.position[2] - b.radius - top) > 1e-3 or any(
        abs(b.position[k] - table.center[k]) > table.size[k] / 2 for k in (0, 1)
    ):
        raise ScenarioError(
            f"{source}: ball.position: the ball must rest on the table (centre at "
            f"z = {top + b.radius:g} m, within the table's top)"
        )
    target = Path(source).parent / spec.robot
    try:
        try:
            model = load_robot(str(target) if target.suffix and target.exists() else spec.robot)
        except OutsideScopeError as exc:
            raise OutsideScopeError(f"robot: {exc}") from None
        opts = GripperOptions(
            ball_radius=b.radius, ball_mass=b.mass, ball_xy=(b.position[0], b.position[1]),
            table_height=top, approach=spec.gripper.approach, lift=spec.gripper.lift,
            finger_friction=b.friction, dt=spec.dt, hold_time=spec.gripper.hold,
        )  # fmt: skip
        if recorder is not None:
            recorder.start_run(spec.name, {"kind": spec.kind, "mode": "physics", "dt": spec.dt})
        wall = time.perf_counter()
        res = gripper_grasp(model, opts)
        wall = time.perf_counter() - wall
    except RobotsimError as exc:
        if recorder is not None:
            recorder.finish("failed", str(exc))
        raise ScenarioError(f"{source}: {exc}") from None
    hand = res.extra["gripper"]
    events = [
        {"t": round(t, 9), "type": k, "hand": hand, **({"detail": d} if d else {})}
        for t, k, d in res.events
    ]
    if recorder is not None:
        for e in events:
            recorder.event(
                e["t"], e["type"], hand, {"detail": e["detail"]} if "detail" in e else None
            )
        recorder.finish("completed")
    types = [e["type"] for e in events]
    missing = [t for t in spec.expect if t not in types]
    summary: dict[str, Any] = {
        "scenario": spec.name,
        "kind": spec.kind,
        "mode": "physics",
        "dt": spec.dt,
        "robot": model.name,
        "gripper": hand,
        "fingertips": list(res.fingertips),
        "sim_time": float(res.t[-1]),
        "real_time_factor": float(res.t[-1]) / wall if wall > 0 else None,
        "completed": not missing,
        "events": events,
        "missing_events": missing,
        "held_lift_m": res.held_lift,
        "ball": {"position": res.ball[-1].tolist()},
    }
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json_dumps(summary, indent=2))
    return summary
