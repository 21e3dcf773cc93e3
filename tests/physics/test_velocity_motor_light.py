"""Velocity motors on very light bodies stay stable (issue 29, item 7): a servo's kv
acts explicitly once its force limit clips it, so a light link chattered between 0 and
40 rad/s (or diverged) at kv 5; every velocity-motor joint now carries the wheels'
rotor-inertia floor 2 kv h. Real MuJoCo; the same worlds without the floor fail."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim import load_robot
from robotsim.model.geometry import Box
from robotsim.physics import World
from robotsim.physics.scene import Body, Joint, Motor, RobotPlacement, Scene
from robotsim.spatial import make_T


def _flap(mass: float, kv: float = 5.0, force: float = 2.0) -> World:
    b = Body(
        "flap", Box((0.02, 0.02, 0.02)), make_T(None, [0, 0, 1]),
        joint=Joint("hinge", axis=(0, 0, 1), motor=Motor("velocity", gain=kv, force=force)),
        mass=mass,
    )  # fmt: skip
    return World(Scene(bodies=(b,), ground=None))


def _speeds(w: World, joint: str, motor: str, target: float, seconds: float) -> np.ndarray:
    w.motor(motor).set(target)
    out = []
    for _ in range(round(seconds / w.timestep)):
        w.step(1)
        out.append(w.joint(joint).qd)
    return np.array(out)


@pytest.mark.parametrize("mass", [0.001, 0.01, 0.1, 1.0])
def test_a_light_flap_reaches_its_speed_and_stays_there(mass: float) -> None:
    w = _flap(mass)
    assert w.model.dof_armature[0] == pytest.approx(2 * 5.0 * w.timestep)
    qd = _speeds(w, "flap", "flap", 10.0, 1.0)
    settled = qd[len(qd) // 2 :]
    assert np.ptp(settled) < 1e-3 and settled.mean() == pytest.approx(10.0, rel=1e-3)


def test_without_the_floor_the_same_flap_diverges_in_mujoco() -> None:
    """The same flap written straight in MJCF (no rotor inertia): MuJoCo's velocity
    servo, clipped by its force limit, throws it past 1,000 rad/s within 10 ms."""
    import mujoco

    xml = """<mujoco><option timestep="0.002" integrator="implicitfast"/>
      <worldbody><body pos="0 0 1"><joint name="flap" type="hinge" axis="0 0 1"/>
        <geom type="box" size="0.01 0.01 0.01" mass="0.01"/></body></worldbody>
      <actuator><velocity joint="flap" kv="5" forcelimited="true" forcerange="-2 2"/></actuator>
    </mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    ctrl = 0.0
    speeds = []
    for _ in range(50):  # the target ramped at 100 rad/s^2 per 10 ms, as the World does
        ctrl = min(10.0, ctrl + 1.0)
        d.ctrl[0] = ctrl
        mujoco.mj_step(m, d, 5)
        speeds.append(abs(d.qvel[0]))
    assert max(speeds) > 1000.0  # what the World's fault check stopped before the floor


def test_a_robot_wrist_on_a_velocity_motor_is_stable() -> None:
    arm = load_robot("puma560")
    motor = Motor("velocity", gain=5.0, force=1.0)
    w = World(Scene(robots=(RobotPlacement("arm", arm, np.eye(4), motors={"joint6": motor}),)))
    qd = _speeds(w, "arm/joint6", "arm/joint6", 3.0, 1.0)
    settled = qd[len(qd) // 2 :]
    assert np.ptp(settled) < 1e-2 and settled.mean() == pytest.approx(3.0, rel=1e-2)
