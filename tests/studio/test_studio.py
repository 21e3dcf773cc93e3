"""The studio server from Python: scene nodes follow the kinematics, posing, IK
handles, simulation controls, opening robots and scenarios, errors as notifications."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from robotsim.errors import ScenarioError, UnknownNameError
from robotsim.model import load_robot
from robotsim.model.builder import RobotBuilder, xyz_rpy
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Shape, Sphere
from robotsim.shipped import shipped_dir
from robotsim.spatial import R_to_quat, quat_to_R, trans
from robotsim.studio.ik_handles import handle_frames
from robotsim.studio.panels.pose import slider_spec


def walker():
    """A small floating two-legged robot using every primitive shape."""
    b = RobotBuilder("walker", kind="humanoid", floating=True)
    b.link(
        "body",
        [Shape(Box((0.3, 0.2, 0.3))), Shape(Ellipsoid((0.05, 0.05, 0.08)), xyz_rpy([0, 0, 0.25]))],
    )
    for side, y in (("left", 0.08), ("right", -0.08)):
        b.link(f"{side}_thigh", [Shape(Capsule(0.04, 0.2), xyz_rpy([0, 0, -0.15]))])
        b.link(f"{side}_shin", [Shape(Cylinder(0.035, 0.25), xyz_rpy([0, 0, -0.125]))])
        b.link(
            f"{side}_foot",
            [Shape(Box((0.16, 0.08, 0.03)), xyz_rpy([0.03, 0, -0.015])), Shape(Sphere(0.02))],
        )
        b.joint(
            f"{side}_hip",
            "revolute",
            "body",
            f"{side}_thigh",
            xyz_rpy([0, y, -0.15]),
            (0, 1, 0),
            lower=-1.5,
            upper=1.5,
        )
        b.joint(
            f"{side}_knee",
            "revolute",
            f"{side}_thigh",
            f"{side}_shin",
            xyz_rpy([0, 0, -0.3]),
            (0, 1, 0),
            lower=0.0,
            upper=2.5,
        )
        b.joint(
            f"{side}_ankle",
            "revolute",
            f"{side}_shin",
            f"{side}_foot",
            xyz_rpy([0, 0, -0.25]),
            (0, 1, 0),
            lower=-1.0,
            upper=1.0,
        )
        b.frame(f"{side}_sole", f"{side}_foot", xyz_rpy([0, 0, -0.03]))
    b.pose("crouch", {"left_knee": 0.8, "right_knee": 0.8, "left_hip": -0.4, "right_hip": -0.4})
    return b.build()


@pytest.fixture
def scene(studio):
    studio.clear()
    yield studio
    studio.clear()


def test_scene_nodes_hold_the_fk_link_poses(scene):
    view = scene.add_robot("puma560")
    q = np.radians([10, 20, -30, 40, 50, 60])
    scene.set_q("puma560", q)
    scene.push()
    got = view.scene_link_poses()
    want = view.state.T_world_root @ view.model.fk_all(q)
    np.testing.assert_allclose(got[:, :3], want[:, :3, 3], atol=1e-12)
    np.testing.assert_allclose(quat_to_R(got[:, 3:]), want[:, :3, :3], atol=1e-9)


def test_three_robots_side_by_side_on_the_ground(scene):
    scene.add_robot("puma560")
    scene.add_robot(walker())
    scene.add_robot("puma560")
    assert list(scene.robots) == ["puma560", "walker", "puma560_2"]
    bounds = [v.world_bounds() for v in scene.robots.values()]
    for a, b in itertools.pairwise(bounds):
        assert b[0, 1] >= a[1, 1] + 0.49  # 0.5 m apart along y
    # The floating walker stands on the ground; the arms stand on their base.
    assert bounds[1][0, 2] == pytest.approx(0.0, abs=1e-9)
    assert bounds[0][0, 2] == pytest.approx(0.0, abs=1e-9)


def test_every_shape_is_drawn_and_toggles(scene):
    view = scene.add_robot(walker())
    nvis = sum(len(lk.visuals) for lk in view.model.links)
    ncol = sum(len(lk.collisions) for lk in view.model.links)
    assert (view.count("visual"), view.count("collision")) == (nvis, ncol)
    assert view.count("frames") == len(view.model.links) + len(view.model.frames)
    scene.panels["view"].toggles["collision"].value = True
    assert view.show["collision"] and all(h.visible for h in view._shape_handles["collision"])
    scene.panels["view"].toggles["collision"].value = False
    assert not any(h.visible for h in view._shape_handles["collision"])


def test_pose_panel_sliders_in_degrees_and_synced(scene):
    scene.add_robot("puma560")
    panel = scene.panels["pose"]
    assert set(panel.sliders) == set(load_robot("puma560").joint_names)
    slider, _ = panel.sliders["joint2"]
    assert (slider.min, slider.max) == (-110.0, 110.0)
    scene.set_joint("puma560", "joint2", np.radians(30))
    assert slider.value == pytest.approx(30.0)
    panel.pose_name.value = "qr"
    assert "qr" in panel.pose_name.options
    assert slider_spec(-np.inf, np.inf, False)[:2] == (-180.0, 180.0)
    assert slider_spec(0.0, 0.25, True) == (0.0, 250.0, 1.0, 1000.0)


def test_named_pose_and_reset(scene):
    view = scene.add_robot("puma560")
    start = view.q.copy()
    scene.set_q("puma560", view.model.pose("qs"))
    np.testing.assert_allclose(view.q, view.model.pose("qs"))
    scene.reset()
    np.testing.assert_allclose(view.q, start)


def test_ik_handle_drags_the_tool(scene):
    view = scene.add_robot("puma560", q=np.radians([0, 45, -120, 10, 45, 0]))
    handles = scene.panels["pose"].handles
    handles.set_enabled(True)
    try:
        frame = handles.handles[0].frame
        target = view.state.pose(frame) @ trans([0.0, 0.05, 0.03])
        err = handles.drag("puma560", frame, target)
        assert err < 1e-5
        np.testing.assert_allclose(view.state.pose(frame)[:3, 3], target[:3, 3], atol=1e-5)
        scene.push()
        h = handles.handles[0].control
        np.testing.assert_allclose(h.position, target[:3, 3], atol=1e-5)
    finally:
        handles.set_enabled(False)


def test_handles_on_feet_of_a_legged_robot():
    assert handle_frames(walker()) == ["left_sole", "right_sole"]


def test_step_play_reset(scene):
    view = scene.add_robot("puma560")
    q0 = view.q.copy()
    scene.step()
    scene.step()
    assert scene.clock.t == pytest.approx(2 * scene.clock.dt)
    assert not np.allclose(view.q, q0)  # the pose tour moved it
    scene.reset()
    assert scene.clock.t == 0.0
    np.testing.assert_allclose(view.q, q0)


def _pose_sliders(studio, view) -> np.ndarray:
    """The Pose tab's sliders in SI units (rad)."""
    sliders = studio.panels["pose"].sliders
    return np.array([sliders[n][0].value / sliders[n][1] for n in view.model.joint_names])


SHOWN = np.radians(1e-3)  # the sliders show degrees to three decimals


def test_pose_sliders_show_where_a_pause_stopped(scene):
    """The loop syncs the sliders on its clock events (every 0.25 s) while playing; the
    ticks run after the last of them must show once the clock stops (they stayed at the
    older pose while paused). The loop's order of events, replayed without its thread."""
    view = scene.add_robot("puma560")
    scene.play(True)  # the clock event of Play: a sync while playing
    for _ in range(30):
        scene.tick()  # the loop's ticks between two clock events (no events)
    assert np.abs(_pose_sliders(scene, view) - view.q).max() > 0.01  # moved since
    scene.play(False)  # the clock event of Pause
    np.testing.assert_allclose(_pose_sliders(scene, view), view.q, atol=SHOWN)
    scene.emit("clock")  # the loop's next clock event, paused: the sliders are the user's
    np.testing.assert_allclose(_pose_sliders(scene, view), view.q, atol=SHOWN)
    scene.reset()


def test_pose_sliders_show_where_a_driver_stopped_itself(scene):
    """A driver at its end stops the clock inside a tick (no event): the loop's next
    clock event shows its last pose."""
    view = scene.add_robot("puma560")
    scene.play(True)
    for _ in range(30):
        scene.tick()
    scene.halt()  # as a driver at its end does
    assert np.abs(_pose_sliders(scene, view) - view.q).max() > 0.01
    scene.emit("clock")
    np.testing.assert_allclose(_pose_sliders(scene, view), view.q, atol=SHOWN)
    scene.reset()


def test_open_scenario_with_base_poses(scene, tmp_path):
    f = tmp_path / "two_arms.yaml"
    f.write_text(
        "units: {angle: deg}\n"
        "robots:\n"
        "  A: {robot: puma560, base: {xyz: [0, 0, 0]}}\n"
        "  B: {robot: puma560, base: {xyz: [1.5, 0, 0], rpy: [0, 0, 180]},"
        " q: [0, 90, -90, 0, 0, 0]}\n"
    )
    desc = scene.open(f)
    assert "A" in desc and set(scene.robots) == {"A", "B"}
    B = scene.robots["B"]
    np.testing.assert_allclose(B.state.T_world_root[:3, 3], [1.5, 0, 0])
    np.testing.assert_allclose(B.q, B.model.pose("qr"), atol=1e-12)
    np.testing.assert_allclose(B.scene_link_poses()[0, 3:], R_to_quat(B.link_poses()[0, :3, :3]))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("robots: [\n", "not valid YAML"),
        ("robots:\n  A: {robot: nosuch}\n", "robots.A: unknown robot 'nosuch'"),
        ("robots:\n  A: {robot: puma560, q: [1, 2]}\n", "needs 6 values"),
        ("robots:\n  A: {robot: puma560, base: {xyz: [1, 2]}}\n", "robots.A.base"),
        ("world: {}\n", "no 'kind:', 'robots:' or 'robot:' section"),
    ],
)
def test_bad_scenario_keeps_the_scene(scene, tmp_path, text, match):
    scene.add_robot("puma560")
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(ScenarioError, match=match):
        scene.open(f)
    assert list(scene.robots) == ["puma560"]


def test_gui_errors_become_notifications(scene):
    scene.add_robot("puma560")
    files = scene.panels["open"]
    files.path.value = "/no/such/robot.urdf"
    before = len(scene.errors)
    scene.guarded("open robot file")(files.open_robot)(files.path.value)
    assert len(scene.errors) == before + 1
    assert "robot.urdf" in scene.errors[-1]
    assert list(scene.robots) == ["puma560"]  # still serving the old scene


def test_unknown_robot_name_lists_the_valid_ones(scene):
    scene.add_robot("puma560")
    with pytest.raises(UnknownNameError, match="puma560"):
        scene.robot("nobody")


def test_single_robot_scenario_with_start_and_objects(scene, tmp_path):
    f = tmp_path / "pick.yaml"
    f.write_text(
        "robot: puma560\n"
        "units: {angle: deg}\n"
        "start_pose: qs\n"
        "start: {joint1: 30}\n"
        "tables:\n  - {name: table, center: [0.5, 0.2, 0.2], size: [0.2, 0.2, 0.4]}\n"
        "ball: {radius: 0.03, position: [0.5, 0.2, 0.43]}\n"
        "obstacles:\n  - {position: [1.0, -1.0], radius: 0.25, height: 0.5}\n"
    )
    scene.open(f)
    view = scene.robots["puma560"]
    want = view.model.q_from({"joint1": np.radians(30)}, base=view.model.pose("qs"))
    np.testing.assert_allclose(view.q, want)
    assert len(scene.objects) == 3
    positions = np.array([o.position for o in scene.objects])
    # A 2D position puts the object on the ground (cylinder centre at half height).
    assert np.any(np.all(np.abs(positions - [1.0, -1.0, 0.25]) < 1e-9, axis=1))
    scene.clear()
    assert scene.objects == ()


def test_mobile_start_puts_the_base_on_the_ground(scene, tmp_path):
    f = tmp_path / "cart.yaml"
    robot_file = tmp_path / "cart_robot.yaml"
    robot_file.write_text(
        "format: robotsim-robot/1\nname: cart\nkind: mobile\nfloating: true\n"
        "links:\n  - {name: chassis, visuals: [{type: box, size: [0.4, 0.3, 0.1]}]}\n"
        "joints: []\n"
    )
    f.write_text("robots:\n  R: {robot: cart_robot.yaml, start: [2.0, 1.0, 1.5708]}\n")
    scene.open(f)
    view = scene.robots["R"]
    lo, hi = view.world_bounds()
    assert lo[2] == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(view.state.T_world_root[:2, 3], [2.0, 1.0])
    assert hi[0] - lo[0] == pytest.approx(0.3, abs=1e-4)  # turned by 90 degrees


def test_bad_start_pose_is_named(scene, tmp_path):
    f = tmp_path / "bad_pose.yaml"
    f.write_text("robot: puma560\nstart_pose: sitting\n")
    with pytest.raises(ScenarioError, match="start_pose: puma560 has no pose 'sitting'"):
        scene.open(f)


def test_drive_options_stay_unique_when_a_scenario_registers_its_driver(studio) -> None:
    """The page's dropdown stops rendering on duplicate options (a blank page after
    opening the hand-transfer scenario was this)."""
    from robotsim.studio.scenarios import open_scenario

    open_scenario(studio, shipped_dir("scenario") / "hand_ball_transfer.yaml")
    studio.panels["sim"].refresh()
    options = studio.panels["sim"].driver.options
    assert len(options) == len(set(options)) and "hand transfer script" in options
