"""Mobile runs with bases from makers' robot files (no robotsim metadata): the drive comes
from the inferred profile. The TurtleBot3 URDF drives round obstacles to a goal on MuJoCo
physics; a three-omniwheel URDF moves holonomically with the paper's decomposition
(seed 002, eq. 1) computed from its geometry."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from tests.wheeled_urdf import OMNI_R, OMNI_WHEEL_R, TURTLEBOT, write_omni_urdf

from robotsim.control.omni import Omni3
from robotsim.control.wheeled_base import MobileBase
from robotsim.errors import ScenarioError
from robotsim.mobile import MobileRun, load_mobile
from robotsim.model import load_robot
from robotsim.physics import World
from robotsim.physics.drives import drivable, drive_of
from robotsim.profile.resolve import resolve_profile
from robotsim.remote.world_target import robot_scene


def _scenario(model: str, start: list, goal: list, obstacles: list, **controller) -> dict:
    return {
        "format": "robotsim-scenario/1",
        "kind": "mobile",
        "name": "urdf_base",
        "units": {"angle": "deg"},
        "timestep": 0.004,
        "field": {"size": [6, 4]},
        "obstacles": {"diameter": 0.3, "positions": obstacles},
        "stop_when_all_reached": True,
        "robots": [
            {"name": "r", "model": model, "start": start, "goal": goal, "controller": controller}
        ],
    }


def _run(data: dict, seconds: float) -> tuple[MobileRun, dict]:
    sc, robots, obstacles = load_mobile(data)
    run = MobileRun(sc, robots, obstacles)
    run.run(seconds)
    return run, run.results()["r"]


def test_turtlebot_urdf_drives_round_an_obstacle_to_its_goal() -> None:
    data = _scenario(
        str(TURTLEBOT),
        [-1.0, 0.0, 0.0],
        [1.0, 0.1, 0.0],
        [[0.0, 0.05]],
        avoidance="vfh",
        safety_margin=0.1,
        gains={"x": {"kp": 1.0}, "y": {"kp": 1.0}, "theta": {"kp": 2.5}},
        limits={
            "x": {"max_speed": 0.22, "accel": 0.5, "decel": 0.5},
            "y": {"max_speed": 0.22, "accel": 0.5, "decel": 0.5},
            "theta": {"max_speed": 160, "accel": 300, "decel": 300},
        },
        tolerance={"position": 0.05, "heading": 10},
    )
    data["robots"][0]["motor"] = {"gain": 0.2}
    run, r = _run(data, 45.0)
    assert r["reached_goal"] and r["final_position_error"] <= 0.05
    assert r["collisions"] == 0 and r["min_obstacle_clearance"] > 0.0
    poses = np.array(run.samples[0])
    # it went round the obstacle (radius 0.15 on the straight line), not through it
    assert np.abs(poses[:, 1]).max() > 0.15 + r["footprint_radius"]
    # a differential drive: it never slid sideways (body-frame vy stays ~0)
    base = run.bases[0]
    assert not base.holonomic and base.drive.kind == "diffdrive"
    assert base.drive.tyres and "caster:" in " ".join(base.drive.pairs)
    # wheels on the ground, chassis upright
    z = run.world.body("r/base_link").pose[2, 3]
    assert z == pytest.approx(0.010, abs=2e-3)


def test_omni_urdf_drive_is_the_papers_decomposition_from_its_geometry(tmp_path: Path) -> None:
    model = load_robot(str(write_omni_urdf(tmp_path / "tri_omni.urdf")))
    prof = resolve_profile(model)
    assert prof.kind.value == "mobile-omni" and prof.drive is not None
    assert prof.drive.wheels == ("axle_1", "axle_2", "axle_3")
    # wheels at -60, 60, 180 deg rolling counter-clockwise: eq. 1 with alpha 30, beta 60
    paper = Omni3(alpha=np.radians(30), beta=np.radians(60), R=OMNI_R).matrix
    np.testing.assert_allclose(prof.drive.M * OMNI_WHEEL_R, paper, atol=1e-8)
    # the physics base reads the same matrix off the compiled world (wheels on the ground)
    world = World(robot_scene(model))
    base = MobileBase(world, "tri_omni")
    np.testing.assert_allclose(base.G, prof.drive.M, atol=1e-6)
    assert base.holonomic


def test_omni_urdf_translates_without_turning(tmp_path: Path) -> None:
    """Holonomic: a sideways twist moves it sideways, heading held, in physics."""
    model = load_robot(str(write_omni_urdf(tmp_path / "tri_omni.urdf")))
    world = World(robot_scene(model))
    base = MobileBase(world, "tri_omni")
    world.step(100)  # settle on the wheels
    p0 = base.pose()
    base.set_twist([0.0, 0.3, 0.0])
    world.step(round(2.0 / world.timestep))
    p1 = base.pose()
    assert p1[1] - p0[1] == pytest.approx(0.6, abs=0.06)
    assert abs(p1[0] - p0[0]) < 0.02 and abs(p1[2] - p0[2]) < 0.02
    base.set_twist([0.2, 0.0, 0.5])  # translate and turn at once
    world.step(round(1.0 / world.timestep))
    tw = base.twist()
    assert tw == pytest.approx([0.2, 0.0, 0.5], abs=0.03)


def test_omni_urdf_scenario_reaches_a_diagonal_goal_heading_held(tmp_path: Path) -> None:
    f = write_omni_urdf(tmp_path / "tri_omni.urdf")
    data = _scenario(
        str(f),
        [-1.5, -0.5, 0.0],
        [1.5, 0.5, 0.0],
        [[0.0, 0.0]],
        avoidance="vfh",
        limits={
            "x": {"max_speed": 0.5, "accel": 1.0, "decel": 1.0},
            "y": {"max_speed": 0.5, "accel": 1.0, "decel": 1.0},
        },
    )
    run, r = _run(data, 20.0)
    assert r["reached_goal"] and r["collisions"] == 0
    assert run.bases[0].holonomic
    theta = np.array(run.samples[0])[:, 2]
    assert np.abs(theta).max() < 0.05  # it never turned to go sideways


def test_scenario_file_names_a_urdf_next_to_it(tmp_path: Path) -> None:
    write_omni_urdf(tmp_path / "tri_omni.urdf")
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(_scenario("tri_omni.urdf", [0, 0, 0], [1, 0, 0], [])))
    from robotsim.scenario_yaml import read_scenario_yaml

    _, robots, _ = load_mobile(read_scenario_yaml(f), str(f))
    assert robots[0].model.floating and drive_of(robots[0].model).source == "profile"


def test_a_robot_without_a_drive_says_what_was_found(tmp_path: Path) -> None:
    one = tmp_path / "one_wheel.urdf"
    text = write_omni_urdf(tmp_path / "x.urdf").read_text()
    # drop two wheels: one wheel left cannot drive
    for i in (2, 3):
        a = text.index(f'<joint name="axle_{i}"')
        b = text.index("</link>", text.index(f'<link name="hub_{i}"')) + len("</link>")
        text = text[:a] + text[b:]
    one.write_text(text)
    with pytest.raises(ScenarioError) as e:
        load_mobile(_scenario(str(one), [0, 0, 0], [1, 0, 0], []))
    msg = str(e.value)
    assert "robots[0].model: robot" in msg
    assert "has no wheel drive (1 wheel(s) found (axle_1)" in msg
    assert "2 parallel wheels (differential) or 3/4 wheels" in msg
    assert drivable(load_robot(str(one))).floating is False
