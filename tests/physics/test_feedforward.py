"""Position servos hold a pose against gravity (issue 22.5): gravity feed-forward by
default, inverse dynamics on request, the PD servo alone with ``feedforward: none``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.doc_numbers import quoted
from tests.humanoid_files import write_nao_like_urdf
from tests.paths import FIXTURES

from robotsim.errors import InputError, ScenarioError
from robotsim.model import load_robot
from robotsim.model.dh import DHJoint, from_dh
from robotsim.model.robot import Inertial
from robotsim.physics import Motor, RobotPlacement, Scene, World

PANDA = FIXTURES / "urdf/franka_panda/panda.urdf"
PANDA_READY = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]


def ur5e() -> object:
    """UR5e from Universal Robots' published "DH parameters for calculations of
    kinematics and dynamics" (universal-robots.com, UR5e row): standard DH d, a, alpha,
    link masses and centres of mass in the DH frames. UR publishes no inertia tensors
    there: each link gets a solid-cylinder estimate (they do not enter a static hold)."""
    d = [0.1625, 0.0, 0.0, 0.1333, 0.0997, 0.0996]
    a = [0.0, -0.425, -0.3922, 0.0, 0.0, 0.0]
    alpha = [np.pi / 2, 0.0, 0.0, np.pi / 2, -np.pi / 2, 0.0]
    mass = [3.761, 8.058, 2.846, 1.37, 1.3, 0.365]
    com = [[0, -0.02561, 0.00193], [0.2125, 0, 0.11336], [0.15, 0, 0.0265],
           [0, -0.0018, 0.01634], [0, 0.0018, 0.01634], [0, 0, -0.001159]]  # fmt: skip
    effort = [150, 150, 150, 28, 28, 28]  # N m (UR5e joint sizes 3, 3, 3, 1, 1, 1)
    joints = []
    for i in range(6):
        r, length = 0.045, max(abs(a[i]), 0.1)
        inertia = mass[i] * np.diag([(3 * r**2 + length**2) / 12] * 2 + [r**2 / 2])
        joints.append(
            DHJoint(d=d[i], a=a[i], alpha=alpha[i], qlim=(-2 * np.pi, 2 * np.pi),
                    effort=effort[i], inertial=Inertial(mass[i], np.array(com[i]), inertia))
        )  # fmt: skip
    return from_dh(joints, name="ur5e")


def _hold(model, q: np.ndarray, feedforward: str | None, seconds: float = 2.0) -> float:
    """Max joint error (rad) after holding ``q`` for ``seconds`` under the default servo
    gains (kp 200 N m/rad, kv 20 N m s/rad)."""
    kw = {} if feedforward is None else {"feedforward": feedforward}
    motor = Motor("position", gain=200.0, damping=20.0, **kw)
    r = RobotPlacement("r", model, q0=dict(zip(model.joint_names, q)), default_motor=motor)
    world = World(Scene(robots=(r,)))
    for n, v in zip(model.joint_names, q):
        world.motor(f"r/{n}").set(float(v))
    world.advance(seconds)
    got = np.array([world.joint(f"r/{n}").q for n in model.joint_names])
    return float(np.max(np.abs(got - q)))


@pytest.fixture(scope="module")
def panda():
    return load_robot(str(PANDA))


def test_panda_holds_its_ready_pose(panda) -> None:
    q = panda.zero()
    q[:7] = PANDA_READY
    assert _hold(panda, q, None) < 0.01  # the default: gravity feed-forward
    sag = _hold(panda, q, "none")
    assert sag > 0.05  # the PD servo alone sags
    (quoted_sag,) = quoted("physics.md", r"a Panda in its ready pose ([\d.]+) rad")
    assert quoted_sag.holds(sag)


def test_ur5e_holds_an_outstretched_pose() -> None:
    arm = ur5e()
    q = np.array([0.0, -1.2, 1.0, -1.0, -1.57, 0.0])
    assert _hold(arm, q, "gravity") < 0.01
    assert _hold(arm, q, "inverse_dynamics") < 0.01
    sag = _hold(arm, q, "none")
    assert sag > 0.1
    (quoted_sag,) = quoted("physics.md", r"a UR5e reaching out ([\d.]+) rad")
    assert quoted_sag.holds(sag)


def test_inverse_dynamics_tracks_a_moving_reference_best() -> None:
    """A UR5e swings shoulder and elbow at 0.5 Hz: the RMS tracking error falls from the
    PD servo alone to gravity feed-forward to full inverse dynamics."""
    arm = ur5e()
    q0 = np.array([0.0, -1.2, 1.0, -1.0, -1.57, 0.0])
    swing = np.array([0, 1, 1, 0, 0, 0])

    def ref(t: float) -> np.ndarray:
        return q0 + 0.4 * np.sin(np.pi * t) * swing

    rms = {}
    for ff in ("none", "gravity", "inverse_dynamics"):
        motor = Motor("position", gain=200.0, damping=20.0, feedforward=ff)
        r = RobotPlacement("r", arm, q0=dict(zip(arm.joint_names, q0)), default_motor=motor)
        world = World(Scene(robots=(r,)))
        errs = []
        for k in range(300):  # 3 s at 10 ms ticks
            for n, v in zip(arm.joint_names, ref(k * 0.01)):
                world.motor(f"r/{n}").set(float(v))
            world.advance(0.01)
            got = np.array([world.joint(f"r/{n}").q for n in arm.joint_names])
            if k >= 100:  # after the start-up transient
                errs.append(got - ref((k + 1) * 0.01))
        rms[ff] = float(np.sqrt(np.mean(np.square(errs))))
    assert rms["gravity"] < 0.7 * rms["none"], rms
    figures = quoted(
        "physics.md",
        r"the RMS tracking error is ([\d.]+) rad \(`none`\), ([\d.]+) \(`gravity`\), "
        r"([\d.]+) \(`inverse_dynamics`\)",
    )
    for fig, ff in zip(figures, ("none", "gravity", "inverse_dynamics")):
        assert fig.holds(rms[ff]), (ff, rms[ff])
    assert rms["inverse_dynamics"] < 0.1 * rms["gravity"], rms


def test_a_floating_robots_feedforward_is_its_gravity_torque(tmp_path: Path) -> None:
    """On a robot set free (a NAO-sized URDF humanoid) the World computes each servo's
    feed-forward from the joint's subtree: it equals robotsim's own gravity torques."""
    # (its hips on motors of their own: a mimic follower carries no feed-forward)
    nao = load_robot(str(write_nao_like_urdf(tmp_path / "nao.urdf", mimic_hip=False)))
    rng = np.random.default_rng(3)
    q = rng.uniform(np.maximum(nao.lower, -1.0), np.minimum(nao.upper, 1.0))
    r = RobotPlacement("nao", nao, q0=dict(zip(nao.joint_names, q)))
    world = World(Scene(robots=(r,), gravity=(0.0, 0.0, -9.81)))
    assert world.scene.robots[0].model.floating
    world.step(1)  # the feed-forward of the first chunk: from the start state
    ctrl = np.array([world.data.ctrl[world.model.actuator(f"nao/{n}:ff").id]
                     for n in nao.joint_names])  # fmt: skip
    want = nao.gravity_torques(q)
    assert np.max(np.abs(ctrl - want)) < 1e-9 * max(1.0, float(np.max(np.abs(want))))
    assert np.max(np.abs(want)) > 0.1  # the test means something: arms and legs load


def test_feedforward_choices_are_checked(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"feedforward 'gravitation': valid: none, gravity, "
                       r"inverse_dynamics"):  # fmt: skip
        Motor("position", feedforward="gravitation")  # type: ignore[arg-type]
    from robotsim.mobile import load_mobile
    from robotsim.scenario_yaml import read_scenario_yaml
    from robotsim.shipped import find_shipped

    path = find_shipped("soccer_obstacles", "scenario")
    data = read_scenario_yaml(path)
    data["robots"][0]["servo"] = {"feedforward": "gravitation"}
    with pytest.raises(ScenarioError) as exc:
        load_mobile(data, str(path))
    msg = str(exc.value)
    assert "\n" not in msg and "robots[0].servo.feedforward: 'gravitation'" in msg
    assert "'none', 'gravity' or 'inverse_dynamics'" in msg
