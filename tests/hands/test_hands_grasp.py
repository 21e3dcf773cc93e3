"""Kinematic mode on constructed poses: touch, stop at touch, grasp, carry, transfer,
fall, floor (the arm paper's algorithm, seed 001)."""

from __future__ import annotations

import numpy as np
import pytest

import robotsim
from robotsim.hands import (
    ArmCommand,
    BallSpec,
    BoxObstacle,
    GraspParams,
    Grip,
    HandsScene,
    KinematicHands,
)
from robotsim.spatial import inv_T, trans

R_BALL = 0.03
R_TIP = 0.01


@pytest.fixture(scope="module")
def model() -> robotsim.RobotModel:
    return robotsim.load_robot("dual_arm_hands")


def _open_q(model: robotsim.RobotModel) -> np.ndarray:
    opened = {f"{s}_finger{i}": np.radians(60) for s in "LR" for i in (1, 2, 3)}
    return model.q_from(opened, base=model.pose("initial"))


def _scene_with_ball_at(model, q0, centre, **grasp) -> HandsScene:
    """The ball resting on a small table whose top is just under it."""
    c = np.asarray(centre, float)
    top = c[2] - R_BALL
    table = BoxObstacle("table", (c[0], c[1], top / 2), (0.04, 0.04, top))
    return HandsScene(
        model, q0=q0, ball=BallSpec(R_BALL, tuple(c)), tables=(table,), grasp=GraspParams(**grasp)
    )


def test_touch_is_distance_at_most_sum_of_radii(model) -> None:
    q0 = _open_q(model)
    tip = model.fk(q0, "L_tip1")[:3, 3]
    grasp = model.fk(q0, "L_grasp")[:3, 3]
    out = (tip - grasp) / np.linalg.norm(tip - grasp)
    for gap, expect in ((-1e-4, True), (+1e-4, False)):
        centre = tip + out * (R_BALL + R_TIP + gap)
        sim = KinematicHands(_scene_with_ball_at(model, q0, centre), dt=0.01)
        st = sim.snapshot().hands["L"]
        assert st.touching == (expect, False, False)
        assert not st.grasped
        assert sim.snapshot().hands["R"].touching == (False, False, False)


def _grasped_sim(model, **grasp) -> KinematicHands:
    q0 = _open_q(model)
    centre = model.fk(model.pose("initial"), "L_grasp")[:3, 3]
    sim = KinematicHands(_scene_with_ball_at(model, q0, centre, **grasp), dt=0.01)
    for _ in range(300):
        sim.step({"L": ArmCommand(grip=Grip.CLOSE)})
        if all(sim.touch["L"]):
            break
    return sim


def test_closing_fingers_stop_at_touch_then_grasp(model) -> None:
    sim = _grasped_sim(model)
    st = sim.snapshot()
    assert st.hands["L"].touching == (True, True, True)
    assert st.hands["L"].grasped and st.grasped_by == ("L",)
    d = np.linalg.norm(sim.tip_positions("L") - st.ball_position, axis=1)
    # Each finger stopped where its sphere touches: never inside, within 1e-9 m of it.
    assert np.all(d >= R_BALL + R_TIP - 1e-9)
    assert np.all(d - (R_BALL + R_TIP) < 1e-9)
    events = [(e.type, e.hand) for e in sim.observable.events]
    assert events.count(("touch", "L")) == 3 and ("grasp", "L") in events
    # Keeping the close button pressed does not move touching fingers.
    q = sim.q.copy()
    sim.step({"L": ArmCommand(grip=Grip.CLOSE)})
    assert np.array_equal(q, sim.q)


def test_three_touches_with_too_small_a_spread_is_not_a_grasp(model) -> None:
    sim = _grasped_sim(model, min_spread=0.2)
    st = sim.snapshot().hands["L"]
    assert st.touching == (True, True, True)
    assert st.spread < 0.2 and not st.grasped
    assert sim.snapshot().grasped_by == ()


def test_grasped_ball_keeps_its_hand_relative_pose(model) -> None:
    sim = _grasped_sim(model)
    T0 = inv_T(sim.palm_pose("L")) @ sim.ball_T
    rng = np.random.default_rng(1)
    roles = ("shoulder_x", "shoulder_y", "elbow_y", "elbow_r", "wrist_x")
    worst, moved = 0.0, 0.0
    start = sim.ball_T[:3, 3].copy()
    for _ in range(150):
        rates = {r: float(v) for r, v in zip(roles, rng.uniform(-1, 1, 5))}
        rates["shoulder_x"] = abs(rates["shoulder_x"])  # up, away from the table
        sim.step({"L": ArmCommand(rates=rates)})
        rel = inv_T(sim.palm_pose("L")) @ sim.ball_T
        worst = max(worst, float(np.abs(rel - T0).max()))
        moved = max(moved, float(np.linalg.norm(sim.ball_T[:3, 3] - start)))
        assert sim.grasped["L"]
    assert worst < 1e-12
    assert moved > 0.05  # the ball really travelled with the hand


def test_released_ball_falls_to_the_floor_in_sqrt_2h_over_g(model) -> None:
    q0 = _open_q(model)
    h = 0.8  # centre above the resting height
    scene = HandsScene(model, q0=q0, ball=BallSpec(R_BALL, (1.5, 0.0, R_BALL + h)))
    dt = 0.01
    sim = KinematicHands(scene, dt=dt)
    landed = None
    for _ in range(200):
        for e in sim.step():
            if e.type == "landed":
                landed = e
        if landed:
            break
    assert landed is not None and landed.detail == "floor"
    exact = np.sqrt(2 * h / 9.81)
    assert 0.0 <= landed.t - exact < dt
    assert sim.ball_T[2, 3] == pytest.approx(R_BALL, abs=1e-12)
    sim.step()
    assert sim.snapshot().ball_resting and sim.snapshot().ball_surface == "floor"


def test_hand_never_goes_below_the_floor_and_only_that_move_is_blocked(model) -> None:
    q0 = _open_q(model)
    # The stand sunk by 0.35 m: shoulders 0.40 m above the floor, well within reach.
    scene = HandsScene(
        model, T_world_robot=trans([0, 0, -0.35]), q0=q0, ball=BallSpec(R_BALL, (1.5, 1, R_BALL))
    )
    sim = KinematicHands(scene, dt=0.01)
    lay = sim.layouts["L"]
    names = [*lay.tip_frames, lay.palm_frame]
    radii = np.array([lay.tip_radius] * 3 + [scene.grasp.palm_radius])
    start = sim.world(sim.q, names)[:, 2, 3] - radii
    assert start.min() > 0.05
    lowest = np.inf
    blocked = 0
    iy = model.joint_index("L_shoulder_y")
    y_before = sim.q[iy]
    for _ in range(400):
        # Lower the arm and bend the elbow and wrist down while swinging outward.
        rates = {"shoulder_x": -1.0, "elbow_y": -1.0, "wrist_x": -1.0, "shoulder_y": 0.2}
        sim.step({"L": ArmCommand(rates=rates)})
        z = sim.world(sim.q, names)[:, 2, 3] - radii
        lowest = min(lowest, float(z.min()))
        blocked += sim.snapshot().hands["L"].blocked
    assert lowest >= -1e-9  # spheres of the fingertips and palm stay above z = 0
    assert lowest < 1e-3  # ...and the hand did reach the floor
    assert blocked > 0
    assert sim.q[iy] > y_before + 0.5  # the outward swing went on regardless


def test_joint_limits_hold_and_the_fingers_move_together(model) -> None:
    scene = HandsScene(model, q0=_open_q(model), ball=BallSpec(R_BALL, (1.5, 0.0, R_BALL)))
    sim = KinematicHands(scene, dt=0.05)
    rng = np.random.default_rng(7)
    roles = ("shoulder_x", "shoulder_y", "elbow_y", "elbow_r", "wrist_x")
    fingers = [model.joint_index(f"R_finger{i}") for i in (1, 2, 3)]
    for k in range(400):
        cmds = {
            s: ArmCommand(
                rates={r: float(np.sign(v)) for r, v in zip(roles, rng.uniform(-1, 1, 5))},
                grip=Grip(int(rng.integers(-1, 2))),
                speed=np.radians(90),
            )
            for s in ("L", "R")
        }
        before = sim.q[fingers].copy()
        sim.step(cmds)
        model.check_limits(sim.q, tol=0.0)  # raises naming the joint if outside
        moved = sim.q[fingers] - before
        # The three fingers of a hand open and close together (away from the ball).
        assert np.allclose(moved, moved[0], atol=1e-12), k
    assert np.isclose(sim.q, model.lower).any() or np.isclose(sim.q, model.upper).any()


def test_physics_mode_also_keeps_the_hand_above_the_floor(model) -> None:
    from robotsim.hands.physics import PhysicsHands

    scene = HandsScene(
        model,
        T_world_robot=trans([0, 0, -0.35]),
        q0=_open_q(model),
        ball=BallSpec(R_BALL, (1.5, 1, R_BALL)),
    )
    sim = PhysicsHands(scene, dt=0.01)
    lay = sim.layouts["L"]
    lowest, blocked = np.inf, 0
    for _ in range(150):
        sim.step({"L": ArmCommand(rates={"shoulder_x": -1.0, "elbow_y": -1.0, "wrist_x": -1.0})})
        tips = sim.tip_positions("L")[:, 2] - lay.tip_radius
        palm = sim.palm_pose("L")[2, 3] - scene.grasp.palm_radius
        lowest = min(lowest, float(tips.min()), palm)
        blocked += sim.snapshot().hands["L"].blocked
    assert blocked > 0  # the setpoints stopped at the floor
    assert -2e-3 < lowest < 0.01  # the real hand reached it without sinking in
