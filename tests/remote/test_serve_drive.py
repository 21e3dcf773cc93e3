"""``robotsim serve ROBOT`` drives a wheeled base by velocity in physics (issue 13.1):
wheels get velocity motors whatever the robot file is (library omni3, a three-omniwheel
URDF, the TurtleBot3 URDF), so ``set_base_velocity`` over real UDP makes it roll; the
example controller, run as its docstring says, reaches (2, 1) against a served robot."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from robotsim.cli.serve import build_target
from robotsim.remote import Client, RemoteServer
from tests.paths import REPO
from tests.wheeled_urdf import TURTLEBOT, write_omni_urdf

EXAMPLE = REPO / "examples" / "udp_goal_controller.py"
SERVE_ARGS = ("--udp", "127.0.0.1:0", "--json", "--rate", "3", "--duration", "90")
GOAL_ARGS = ("--goal", "2,1,0.5", "--timeout", "60")


def _yaw(quat: list[float]) -> float:
    w, x, y, z = quat
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def _spec(which: str, tmp_path: Path) -> str:
    if which == "omni_urdf":
        return str(write_omni_urdf(tmp_path / "tri_omni.urdf"))
    return str(TURTLEBOT) if which == "turtlebot" else which


@pytest.mark.parametrize("which", ["omni3", "omni_urdf", "turtlebot"])
def test_served_base_rolls_where_set_base_velocity_says(which: str, tmp_path: Path) -> None:
    target = build_target(_spec(which, tmp_path))
    (name,) = target.robots()
    world = target.world  # type: ignore[attr-defined]
    info = target.robots()[name]
    assert info.mobile and len(info.wheels) in (2, 3)
    assert set(info.wheels).isdisjoint(info.joints)  # wheels are not position-servoed
    for w in info.wheels:
        assert world.motor(f"{name}/{w}").kind == "velocity"
    holonomic = which != "turtlebot"
    with RemoteServer(target, port=0).start() as srv, Client(srv.address) as c:
        c.pause()
        c.step(250)  # settle on the wheels
        st = c.state()["robots"][name]
        x0, y0, _ = st["base"]["position"]
        yaw0 = _yaw(st["base"]["quaternion"])
        vy = 0.1 if holonomic else 0.0
        c.set_base_velocity(name, vx=0.2, vy=vy, omega=0.0)
        t0 = c.state()["t"]
        n = round(2.0 / target.dt)
        c.step(n)
        st = c.state()["robots"][name]
        x1, y1, _ = st["base"]["position"]
        assert c.state()["t"] - t0 == pytest.approx(2.0)
        assert x1 - x0 == pytest.approx(0.4, abs=0.05)
        assert y1 - y0 == pytest.approx(2 * vy, abs=0.05)
        assert abs(_yaw(st["base"]["quaternion"]) - yaw0) < 0.05
        bv = st["base_velocity"]
        assert bv["vx"] == pytest.approx(0.2, abs=0.02) and bv["vy"] == pytest.approx(vy, abs=0.02)
        c.set_base_velocity(name, vx=0.0, vy=0.0, omega=0.8)
        c.step(round(1.0 / target.dt))
        st = c.state()["robots"][name]
        assert st["base_velocity"]["omega"] == pytest.approx(0.8, abs=0.08)
        assert abs(st["base"]["position"][0] - x1) < 0.05  # turning on the spot


def test_example_controller_reaches_its_goal_against_a_served_robot(tmp_path: Path) -> None:
    """As the example's docstring says: ``robotsim serve omni3 --udp ...``, then the
    controller with ``--goal 2,1,0.5`` (issue 13.1: it ended at (0.05, 0.39) before)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "robotsim", "serve", "omni3", *SERVE_ARGS],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        hello = json.loads(server.stdout.readline())
        assert hello["robots"]["omni3"]["mobile"] is True
        ctl = subprocess.run(
            [sys.executable, str(EXAMPLE), "--server", f"127.0.0.1:{hello['port']}", *GOAL_ARGS],
            capture_output=True,
            text=True,
            timeout=90,
        )
    finally:
        server.terminate()
        server.communicate(timeout=20)
    assert ctl.returncode == 0, ctl.stderr
    result = json.loads(ctl.stdout)
    assert result["reached"] is True and result["robot"] == "omni3"
    x, y, _ = result["position"]
    assert math.hypot(x - 2.0, y - 1.0) <= 0.05
    assert abs(result["yaw"] - 0.5) <= 0.05
