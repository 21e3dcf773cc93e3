"""A planned transfer holds the object by friction alone unless asked (the weld assist
is the paper's ball scenario's), and its moves to a pre-grasp keep clear of the object:
the sweep check says where a move would go through it and where it would not."""

from __future__ import annotations

from pathlib import Path

from robotsim.errors import ScenarioError
from robotsim.hands.scenario_spec import hand_scenario_from_data
from robotsim.shipped import shipped_dir

TABLE = {"name": "table", "center": [0.5, 0.25, 0.235], "size": [0.2, 0.2, 0.47]}


def _planned(**extra: object) -> dict:
    return {
        "kind": "hand_ball_transfer", "robot": "dual_arm_hands",
        "start": {f"{s}_finger{k}": 60 for s in "LR" for k in (1, 2, 3)},
        "object": {"type": "box", "size": [0.045, 0.045, 0.045], "position": [0.5, 0.25, 0.4925]},
        "tables": [TABLE], "script": "planned", **extra,
    }  # fmt: skip


def test_friction_alone_unless_asked(tmp_path: Path) -> None:
    from robotsim.hands.run import make_sim
    from robotsim.validation import read_yaml_file

    spec, scene = hand_scenario_from_data(_planned(), str(tmp_path / "t.yaml"))
    assert spec.physics.weld_assist is None and spec.weld_assist is False
    assert make_sim(scene, "physics", spec.dt, spec).options.weld_assist is False  # type: ignore[attr-defined]
    spec, _ = hand_scenario_from_data(_planned(physics={"weld_assist": True}), "t.yaml")
    assert spec.weld_assist is True
    # the paper's ball scenario (a written script) keeps the assist it needs
    ball = read_yaml_file(shipped_dir("scenario") / "hand_ball_transfer.yaml", ScenarioError)
    spec, _ = hand_scenario_from_data(ball, "hand_ball_transfer.yaml")
    assert spec.weld_assist is True
    ball["physics"].pop("weld_assist")
    spec, _ = hand_scenario_from_data(ball, "hand_ball_transfer.yaml")
    assert spec.weld_assist is True


def test_the_sweep_check_finds_a_move_through_the_object(tmp_path: Path) -> None:
    from robotsim.grasp.transfer import PlannedTransfer

    _, scene = hand_scenario_from_data(_planned(), str(tmp_path / "t.yaml"))
    plan = PlannedTransfer(scene)
    planner = plan._planner("L")
    To = scene.start_pose
    g = planner.plan(plan.obj, To, scene.q0, plan.rng)
    assert g.ok, g.reason
    h, m = plan.hands["L"], scene.robot
    # in along the planned approach, the hand open as planned: clear
    assert plan._path_hit("L", planner, g.q_pre, g.q_grasp, To) is None
    # the same hand closed all the way at the grasp: its fingers go through the object
    shut = g.q_grasp.copy()
    for j in h.drive_joints:
        i = m.joint_index(j)
        shut[i] = h.closed_q[list(h.drive_joints).index(j)]
    assert plan._path_hit("L", planner, g.q_grasp, shut, To) == "object"
