"""The hand-to-hand transfer planned from the object's geometry (``script: planned``,
``robotsim.grasp.transfer``): a brick goes from hand to hand with the verdict's
numbers; a phase that cannot be planned is named (an object too high to hand over
too); the user's seed reaches the planners; the run's time bound covers its longest
run; the scripted steps it adds (``shape``, ``together``) do what they say."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from robotsim.errors import InputError, ScenarioError
from robotsim.hands.scenario_spec import hand_scenario_from_data
from robotsim.hands.script import ScriptStep, run_script

TABLE = {"name": "table", "center": [0.5, 0.25, 0.235], "size": [0.2, 0.2, 0.47]}


def _data(obj: dict, lowest: float, **extra: object) -> dict:
    return {
        "kind": "hand_ball_transfer", "robot": "dual_arm_hands", "speed": 90,
        "start": {f"{s}_finger{k}": 60 for s in "LR" for k in (1, 2, 3)},
        "object": {**obj, "position": [0.5, 0.25, 0.47 + lowest]}, "tables": [TABLE],
        "script": "planned", **extra,
    }  # fmt: skip


@pytest.mark.slow
def test_planned_transfer_of_a_brick_kinematic(tmp_path: Path) -> None:
    from robotsim.grasp.transfer import run_planned_transfer

    data = _data({"type": "box", "size": [0.05, 0.03, 0.07]}, 0.035)
    spec, scene = hand_scenario_from_data(data, str(tmp_path / "t.yaml"))
    s = run_planned_transfer(spec, scene, "kinematic", out_dir=tmp_path / "out")
    v = s["transfer"]
    assert v["success"], (v.get("reason"), v["planned"], s["steps"])
    assert (v["giver"], v["receiver"]) == ("L", "R")
    assert v["held_alone_s"] >= 2.0 and v["slip_m"] <= 0.01 and v["lifted_m"] >= 0.1
    p = v["planned"]
    assert p["first_grasp"]["ok"] and p["second_grasp"]["ok"] and p["handover"]["object_at"]
    # the giver's fingers took the planned pre-shape exactly, and the moves completed
    labels = {st["label"]: st for st in s["steps"]}
    assert all(st["completed"] for st in s["steps"]), s["steps"]
    assert "L fingers to the planned pre-shape" in labels
    assert (tmp_path / "out" / "summary.json").is_file()


@pytest.mark.slow
def test_a_flat_plate_changes_hands_in_physics_by_friction_alone(tmp_path: Path) -> None:
    # the docs' 9 x 5 x 1.2 cm box lying flat: the squeezed fingertips reach the table
    # top as the lift starts (the table check takes the tick's arm step as a whole), and
    # the plate is held by finger contacts and friction only (no weld assist)
    from robotsim.grasp.transfer import run_planned_transfer

    data = _data({"type": "box", "size": [0.09, 0.05, 0.012]}, 0.006)
    data.pop("speed")
    spec, scene = hand_scenario_from_data(data, str(tmp_path / "t.yaml"))
    s = run_planned_transfer(spec, scene, "physics")
    assert s["options"]["weld_assist"] is False
    v = s["transfer"]
    assert v["success"], (v.get("reason"), s["steps"])
    assert (v["giver"], v["receiver"]) == ("L", "R")
    assert v["held_alone_s"] >= 2.0 and v["slip_m"] <= 0.01 and v["lifted_m"] >= 0.1
    lift = next(st for st in s["steps"] if st["label"] == "L lifts the object")
    assert lift["completed"], lift


def test_a_phase_that_cannot_be_planned_is_named(tmp_path: Path) -> None:
    from robotsim.grasp.transfer import run_planned_transfer

    # a 30 cm crate: wider than the hand opens
    data = _data({"type": "box", "size": [0.3, 0.3, 0.3]}, 0.15)
    data["tables"] = [{**TABLE, "size": [0.4, 0.4, 0.47]}]
    spec, scene = hand_scenario_from_data(data, str(tmp_path / "t.yaml"))
    summary = run_planned_transfer(spec, scene, "kinematic")
    v = summary["transfer"]
    assert not v["success"]
    assert v["reason"].startswith("first grasp: no plan for L: too large for L_hand"), v
    assert v["planned"]["first_grasp"]["ok"] is False
    assert summary["completed"] is False  # no step played, yet the run did not do its job
    assert summary["not_planned"] == v["reason"]


def test_planned_needs_an_object(tmp_path: Path) -> None:
    data = _data({"type": "box", "size": [0.04, 0.04, 0.04]}, 0.02)
    data.pop("object")
    data["ball"] = {"radius": 0.03, "position": [0.5, 0.25, 0.5]}
    with pytest.raises(
        ScenarioError, match=r"t\.yaml: .*script: planned plans the transfer of an object"
    ):
        hand_scenario_from_data(data, "t.yaml")
    spec, _ = hand_scenario_from_data(_data({"type": "box", "size": [0.04] * 3}, 0.02), "t.yaml")
    with pytest.raises(ScenarioError, match="needs a written script"):
        spec.steps()


def test_shape_meets_the_angle_and_together_moves_arrive_at_once(tmp_path: Path) -> None:
    from robotsim.hands.kinematic import KinematicHands

    data = _data({"type": "box", "size": [0.04, 0.04, 0.04]}, 0.02)
    _, scene = hand_scenario_from_data(data, str(tmp_path / "t.yaml"))
    sim = KinematicHands(scene, 0.01)
    m = scene.robot
    lay = scene.layouts["R"]
    targets = {"shoulder_x": -0.3, "elbow_y": 0.2}
    steps = [ScriptStep("shape", "R", fingers=np.radians(37.3)),
             ScriptStep("move", "R", targets, together=True)]  # fmt: skip
    arrivals: dict[str, float] = {}

    def watch(state) -> None:  # type: ignore[no-untyped-def]
        for role, t in targets.items():
            if (
                role not in arrivals
                and abs(sim.command_q()[m.joint_index(lay.arm_joints[role])] - t) < 1e-12
            ):
                arrivals[role] = state.t

    r = run_script(sim, steps, np.radians(45.0), on_tick=watch)
    assert r.completed
    q = sim.command_q()
    for j in lay.finger_joints:
        assert q[m.joint_index(j)] == pytest.approx(np.radians(37.3), abs=1e-9)
    # shoulder_x moves 0.3 rad, elbow_y 0.2: the same tick ends both (straight line)
    assert arrivals["shoulder_x"] == pytest.approx(arrivals["elbow_y"])
    with pytest.raises(InputError, match="shape: fingers must be an angle"):
        ScriptStep("shape", "R")


class _Sim:
    """Enough of a simulation for the phases' planning: the robot at its start pose,
    the object where it starts, the hands' ``grasped`` as told, one answer a look."""

    def __init__(self, scene: Any, grasped: list[bool]) -> None:
        self.q, self.ball_T, self.grasped = scene.q0, scene.start_pose, list(grasped)

    def command_q(self) -> np.ndarray:
        return self.q

    def snapshot(self) -> SimpleNamespace:
        g = self.grasped.pop(0)
        return SimpleNamespace(hands={s: SimpleNamespace(grasped=g) for s in "LR"})


def test_an_object_too_high_to_hand_over_names_the_phase(tmp_path: Path) -> None:
    from robotsim.grasp.transfer import PlannedTransfer

    # on a 0.75 m table: no point between the shoulders is 0.12 m above its start
    data = _data({"type": "box", "size": [0.05, 0.03, 0.07]}, 0.035)
    data["tables"] = [{**TABLE, "center": [0.5, 0.25, 0.375], "size": [0.2, 0.2, 0.75]}]
    data["object"]["position"] = [0.5, 0.25, 0.785]
    _, scene = hand_scenario_from_data(data, str(tmp_path / "t.yaml"))
    plan = PlannedTransfer(scene)
    plan.phase = "hand-over"  # the giver holds it, lifted
    assert plan.next_steps(_Sim(scene, [True]), None) == []  # type: ignore[arg-type]
    reason = plan.verdict({"success": False})["reason"]
    assert reason.startswith(
        "hand-over: no point between the shoulders above the object's start (object at "
        "z=0.785 m: a hand-over point must be 0.12 m above it, z >= 0.905 m; the highest"
    ), reason
    h = plan.report["handover"]
    assert h["points"] == 0 and h["highest_z"] < h["needs_z"] == pytest.approx(0.905)


def test_the_users_seed_reaches_the_planners(tmp_path: Path, monkeypatch: Any) -> None:
    import robotsim.grasp.transfer as transfer
    from robotsim.run_io import RunOptions

    monkeypatch.setattr(transfer, "run_hand_scenario", lambda *a, plan, **k: {"plan": plan})
    data = _data({"type": "box", "size": [0.04, 0.04, 0.04]}, 0.02)

    def rng_state(seed: int | None) -> Any:
        out = transfer.run_transfer_kind(data, str(tmp_path / "t.yaml"), RunOptions(seed=seed))
        return out["plan"].rng.bit_generator.state["state"]

    def state(seed: int) -> Any:
        return np.random.default_rng(seed).bit_generator.state["state"]

    assert rng_state(7) == state(7) and rng_state(8) == state(8) != state(7)
    assert rng_state(None) == state(0)


def test_the_time_bound_covers_both_grasps_closing_twice(tmp_path: Path) -> None:
    from robotsim.grasp.transfer import ATTEMPTS, PlannedTransfer
    from robotsim.hands.run import script_seconds

    data = _data({"type": "box", "size": [0.04, 0.04, 0.04]}, 0.02)
    _, scene = hand_scenario_from_data(data, str(tmp_path / "t.yaml"))
    plan = PlannedTransfer(scene)
    q0 = scene.q0
    # every plan found at the start pose; every reach reached (the phases' steps only)
    found = SimpleNamespace(ok=True, q_pre=q0, q_grasp=q0, q_lift=q0, summary=lambda: {})
    planner = SimpleNamespace(plan=lambda *a: found)
    plan._planner = lambda *a, **k: planner  # type: ignore[method-assign]
    plan._reach_points = lambda h, T, P, q: (np.tile(q, (len(T), 1)), np.zeros(len(T)))  # type: ignore[method-assign]
    # every move to a pre-grasp goes round the object through a via point (the longest)
    plan._route = lambda side, planner, p, sim, phase: [q0, q0]  # type: ignore[method-assign]
    # each grasp closes on too few fingers first; the giver holds it at the hand-over
    sim = _Sim(scene, [False, True, True, False, True])
    steps: list[ScriptStep] = []
    while more := plan.next_steps(sim, None):  # type: ignore[arg-type]
        steps += more
    assert plan.phase == "done" and plan.attempts == {"first grasp": 1, "second grasp": 1}
    assert ATTEMPTS == 2 and sum(st.kind == "move" for st in steps) == 17
    assert plan.max_seconds(None) == pytest.approx(script_seconds(steps))
    assert plan.max_seconds(5.0) == 5.0
