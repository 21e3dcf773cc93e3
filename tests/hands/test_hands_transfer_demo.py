"""The scripted hand-to-hand transfer (scenarios/hand_ball_transfer.yaml) in both modes,
and the transfer itself: no jump of the ball when one hand lets go."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from robotsim.hands.kinematic import KinematicHands
from robotsim.hands.run import run_hand_scenario
from robotsim.hands.scenario_spec import load_hand_scenario
from robotsim.hands.script import run_script
from robotsim.shipped import shipped_dir

SCENARIO = shipped_dir("scenario") / "hand_ball_transfer.yaml"
ORDER = [
    ("grasp", "L"),
    ("grasp", "R"),
    ("hold_both", None),
    ("release", "L"),
    ("release", "R"),
    ("landed", None),
]


def _check_timeline(summary: dict) -> None:
    events = summary["events"]
    assert all(set(e) >= {"t", "type", "hand"} for e in events)
    key = [(e["type"], e["hand"]) for e in events if e["type"] != "touch"]
    assert key == ORDER
    times = [e["t"] for e in events]
    assert times == sorted(times)
    touches = {e["hand"] for e in events if e["type"] == "touch"}
    assert touches == {"L", "R"}
    first_touch_L = min(e["t"] for e in events if e["type"] == "touch" and e["hand"] == "L")
    assert first_touch_L <= events[[e["type"] for e in events].index("grasp")]["t"]
    assert events[-1]["type"] == "landed" and events[-1].get("detail") == "floor"
    for hand in ("L", "R"):  # no touch events while that hand holds the ball
        t_grasp = next(e["t"] for e in events if (e["type"], e["hand"]) == ("grasp", hand))
        t_release = next(e["t"] for e in events if (e["type"], e["hand"]) == ("release", hand))
        assert not [
            e for e in events if e["type"] == "touch" and e["hand"] == hand
            and t_grasp < e["t"] < t_release
        ]  # fmt: skip
    assert summary["completed"], [s for s in summary["steps"] if not s["completed"]]
    # the verdict: the ball ends held by the right hand alone (>= 2 s, slip <= 1 cm)
    v = summary["transfer"]
    assert v["success"] and (v["giver"], v["receiver"]) == ("L", "R"), v
    assert v["held_alone_s"] >= 2.0 and v["slip_m"] <= 0.01 and v["lifted_m"] >= 0.1


def test_demo_timeline_kinematic(tmp_path: Path) -> None:
    spec, scene = load_hand_scenario(SCENARIO)
    summary = run_hand_scenario(spec, scene, "kinematic", tmp_path)
    _check_timeline(summary)
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk["events"] == summary["events"]
    assert summary["ball"]["resting"] and summary["ball"]["surface"] == "floor"
    assert summary["ball"]["position"][2] == pytest.approx(spec.ball.radius, abs=1e-12)
    assert (tmp_path / "trace.csv").read_text().count("\n") > 1000


def test_demo_timeline_physics(tmp_path: Path) -> None:
    spec, scene = load_hand_scenario(SCENARIO)
    summary = run_hand_scenario(spec, scene, "physics", tmp_path)
    _check_timeline(summary)
    # The ball ends at rest on the floor (MuJoCo contact: within 0.1 mm of touching).
    assert summary["ball"]["position"][2] == pytest.approx(spec.ball.radius, abs=1e-4)
    assert summary["ball"]["resting"] and summary["ball"]["surface"] == "floor"
    assert summary["options"]["engine"] == "mujoco" and summary["options"]["weld_assist"]


def test_transfer_has_no_jump_and_the_ball_is_still_while_both_hold() -> None:
    spec, scene = load_hand_scenario(SCENARIO)
    sim = KinematicHands(scene, spec.dt)
    steps = spec.steps()
    idx = next(i for i, s in enumerate(steps) if s.kind == "open" and s.hand == "L")
    run_script(sim, steps[:idx], spec.speed_rad)  # up to both hands holding
    assert sim.snapshot().held_by_both
    poses = [sim.ball_T.copy()]
    held = []

    def record(state) -> None:
        poses.append(np.array(state.ball_pose))
        held.append(state.grasped_by)

    # The left hand opens (the right keeps holding), then the right arm carries on.
    res = run_script(sim, steps[idx : idx + 4], spec.speed_rad, on_tick=record)
    assert [(e.type, e.hand) for e in res.events if e.type != "touch"] == [("release", "L")]
    release_tick = held.index(("R",))
    for k in range(release_tick + 1):
        assert np.array_equal(poses[k + 1], poses[0])  # held still, and no jump at release
    jumps = np.linalg.norm(np.diff(np.array(poses)[:, :3, 3], axis=0), axis=1)
    # Afterwards it moves with the right hand, no faster than the arm's speed step allows.
    assert jumps.max() < 0.02
    assert np.linalg.norm(poses[-1][:3, 3] - poses[0][:3, 3]) > 0.1


def test_physics_friction_alone_lifts_and_holds_the_ball() -> None:
    from robotsim.hands.physics import PhysicsHands, PhysicsOptions

    spec, scene = load_hand_scenario(SCENARIO)
    sim = PhysicsHands(scene, spec.dt, PhysicsOptions(weld_assist=False))
    steps = spec.steps()
    lift = next(i for i, s in enumerate(steps) if s.label == "lift")
    res = run_script(sim, steps[: lift + 1], spec.speed_rad)
    assert [(e.type, e.hand) for e in res.events if e.type != "touch"] == [("grasp", "L")]
    for _ in range(100):  # one more second, hand still
        sim.step({})
    state = sim.snapshot()
    assert state.grasped_by == ("L",)
    # Off the table (its top at 0.47 m, the ball's radius 0.03 m) by more than 8 cm.
    assert state.ball_position[2] > 0.47 + 0.03 + 0.08
    assert sim.world.contacts() and all("table" not in c[:2] for c in sim.world.contacts())
