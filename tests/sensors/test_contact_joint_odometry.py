"""Force, touch, joint and odometry sensors against statics and kinematics worked out
by hand: a resting block's weight and centre of pressure, a lever's holding torque,
wheel odometry against the true path and against wheels spinning in the air."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robotsim.control.wheeled_base import MobileBase
from robotsim.physics import RobotPlacement, Scene, World
from robotsim.spatial import make_T
from tests.sensors.worlds import block, lever, omni_placement, rig, world_of

G = 9.81


def _resting_block(com_x: float) -> World:
    placement = RobotPlacement("b", block(com_x), make_T(None, [0, 0, 0.1]), default_motor=None)
    return World(Scene(robots=(placement,), timestep=0.002))


@pytest.mark.parametrize("com_x", [0.0, 0.04])
def test_a_resting_block_weighs_its_mass_at_its_centre_of_mass(com_x: float) -> None:
    world = _resting_block(com_x)
    r = rig(world, "b", {"type": "force", "links": ["block"]},
            {"type": "touch", "links": ["block"], "threshold": 1.0})  # fmt: skip
    r.step(1000)
    f = r.latest("b", "force")
    np.testing.assert_allclose(f["force"][0], [0.0, 0.0, 2.0 * G], rtol=0, atol=0.02)
    assert f["normal"][0] == pytest.approx(2.0 * G, rel=1e-3)
    # statics: the centre of pressure lies under the centre of mass, on the bottom face
    np.testing.assert_allclose(f["cop"][0], [com_x, 0.0, -0.1], atol=2e-3)
    t = r.latest("b", "touch")
    assert t["touch"][0] and t["force"][0] == pytest.approx(2.0 * G, rel=1e-3)


def test_no_contact_reads_zero_force_and_no_touch() -> None:
    placement = RobotPlacement("b", block(), make_T(None, [0, 0, 1.0]), default_motor=None)
    world = World(Scene(robots=(placement,)))
    r = rig(
        world, "b", {"type": "force", "links": ["block"]}, {"type": "touch", "links": ["block"]}
    )
    r.step(50)
    f = r.latest("b", "force")
    assert np.all(f["force"] == 0) and np.isnan(f["cop"]).all()
    assert not r.latest("b", "touch")["touch"][0]


def test_a_lever_servo_holds_its_weight_times_its_arm() -> None:
    model = lever(arm=0.5, mass=2.0)
    world = World(Scene(robots=(RobotPlacement("l", model, np.eye(4)),), ground=None))
    r = rig(world, "l", {"type": "joint"})
    r.step(1500)
    j = r.latest("l", "joint")
    assert j["position"][0] == pytest.approx(world.joint("l/hinge").q)
    # gravity pulls the arm's tip down: about +y the torque is m g r; the servo holds -it
    assert abs(j["velocity"][0]) < 1e-4
    assert j["torque"][0] == pytest.approx(-2.0 * G * 0.5, rel=2e-3)


def test_odometry_follows_the_true_path_of_an_omni_base() -> None:
    world = world_of([omni_placement("r", x=1.0, y=-2.0, yaw=0.7)])
    r = rig(world, "r", {"type": "odometry", "rate": 50})
    base = MobileBase(world, "r")
    start = base.pose()
    for k in range(300):  # 3 s: forward, sideways, turning
        base.set_twist([0.5, 0.2 * math.sin(k / 50), 0.6])
        r.step(5)
    odo = r.latest("r", "odometry")
    true = base.pose()
    c, s = math.cos(start[2]), math.sin(start[2])
    dx, dy = true[0] - start[0], true[1] - start[1]
    in_start = [c * dx + s * dy, -s * dx + c * dy, true[2] - start[2]]
    moved = math.hypot(dx, dy)
    assert moved > 1.0
    np.testing.assert_allclose(odo["pose"][:2], in_start[:2], atol=0.03 * moved)
    assert odo["pose"][2] == pytest.approx(in_start[2], abs=0.03)


def test_wheels_spinning_in_the_air_fool_the_odometry() -> None:
    world = world_of([omni_placement("r", lift=0.5)], gravity=(0.0, 0.0, 0.0))
    r = rig(world, "r", {"type": "odometry"})
    base = MobileBase(world, "r")
    for _ in range(100):
        base.set_twist([0.5, 0.0, 0.0])
        r.step(10)
    odo = r.latest("r", "odometry")
    assert odo["pose"][0] > 0.5  # the encoders say it drove...
    assert abs(base.pose()[0]) < 0.05  # ...but it did not (all slip)


def test_sensor_errors_name_the_field() -> None:
    from robotsim.errors import InputError
    from robotsim.model import load_robot
    from robotsim.sensors import mount_sensors
    from tests.sensors.worlds import specs

    omni = load_robot("omni3")
    cases = [
        ({"type": "lidar", "link": "mast"}, "sensors[0].link: unknown link 'mast'; valid: base"),
        (
            {"type": "imu", "rate": 1000},
            "sensors[0].rate: 1000 Hz is above the physics rate of 500 Hz",
        ),
        (
            {"type": "camera", "width": 4000, "height": 3000},
            "sensors[0].width: a 4000 x 3000 camera",
        ),
        ({"type": "camera", "rate": 450}, "sensors[0].rate: 320 x 240 at 450 Hz"),
        ({"type": "imu", "frame": "nope"}, "sensors[0].frame: unknown frame 'nope'"),
        ({"type": "joint", "joints": ["wheel9"]}, "sensors[0].joints[0]: unknown joint 'wheel9'"),
        ({"type": "force"}, "sensors[0].links: 'feet': the profile of robot 'r' has no feet"),
    ]
    for spec, msg in cases:
        with pytest.raises(InputError) as err:
            mount_sensors("r", omni, specs(spec), 0.002)
        assert str(err.value).startswith(msg), str(err.value)
        assert "\n" not in str(err.value)
    with pytest.raises(InputError, match=r"sensors\[0\].type: odometry needs a wheel drive"):
        mount_sensors("r", lever(), specs({"type": "odometry"}), 0.002)
    with pytest.raises(InputError, match="two sensors named 'imu'"):
        mount_sensors("r", omni, specs({"type": "imu"}, {"type": "imu"}), 0.002)


def test_sensors_read_between_steps_without_changing_a_ramped_servo() -> None:
    from robotsim.physics import Motor

    def run(with_sensors: bool) -> np.ndarray:
        servo = Motor("position", gain=200.0, damping=20.0, velocity=1.0)  # a ramped target
        placement = RobotPlacement("l", lever(), np.eye(4), motors={"hinge": servo})
        world = World(Scene(robots=(placement,), ground=None, timestep=0.002))
        world.motor("l/hinge").set(0.8)
        if with_sensors:
            r = rig(world, "l", {"type": "imu", "link": "arm", "rate": 300},
                    {"type": "joint", "rate": 70})  # fmt: skip
            r.step(250)
            assert r.samples > 90
        else:
            world.step(250)
        return world.data.qpos.copy()

    np.testing.assert_array_equal(run(True), run(False))
