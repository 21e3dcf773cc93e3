"""Walking live: over real UDP (``set_base_velocity`` steers the walk, like NAO's
``moveToward``), and on a schedule of commands (``kind: walk``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from robotsim.cli import main
from robotsim.cli.serve import build_target
from robotsim.errors import InputError
from robotsim.remote import Client, RemoteError, RemoteServer
from tests.walk.robots import urdf_humanoid

pytestmark = pytest.mark.slow


def _yaw(quat: list[float]) -> float:
    w, x, y, z = quat
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def _walk(c: Client, seconds: float, dt: float) -> None:
    for _ in range(round(seconds / dt / 10)):  # small requests: each answered in time
        c.step(10)


def test_udp_walks_where_set_base_velocity_says(tmp_path: Path) -> None:
    target = build_target(str(urdf_humanoid(tmp_path)), walk=True)
    (name,) = target.robots()
    assert target.robots()[name].mobile
    with RemoteServer(target, port=0).start() as srv, Client(srv.address, timeout=5.0) as c:
        c.pause()
        c.step(20)
        st = c.state()["robots"][name]
        x0, y0, _ = st["base"]["position"]
        c.set_base_velocity(name, vx=0.2)
        _walk(c, 4.0, target.dt)
        st = c.state()["robots"][name]
        assert "fell" not in st
        assert st["footsteps"], "the planned footsteps are in the state"
        x1, y1, _ = st["base"]["position"]
        assert x1 - x0 > 0.4 and abs(y1 - y0) < 0.1
        c.set_base_velocity(name, omega=0.3)  # turn in place
        _walk(c, 3.0, target.dt)
        yaw = _yaw(c.state()["robots"][name]["base"]["quaternion"])
        assert math.degrees(yaw) > 20
        c.set_base_velocity(name)  # stop: it stands
        _walk(c, 3.0, target.dt)
        st = c.state()["robots"][name]
        assert "fell" not in st and st["footsteps"] == []
        with pytest.raises(RemoteError, match="unknown joint"):  # the walk owns the legs
            c.set_joints(name, {"left_knee": 0.5})


def test_walk_needs_a_robot_and_physics(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--walk"):
        build_target("humanoid17", kinematic=True, walk=True)


def test_kind_walk_runs_a_command_schedule(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc = {
        "format": "robotsim-scenario/1", "kind": "walk", "name": "w", "robot": "humanoid17",
        "duration": 9.0,
        "commands": [{"t": 0.5, "vx": 0.1}, {"t": 5.0, "stop": True}],
    }  # fmt: skip
    f = tmp_path / "w.yaml"
    f.write_text(yaml.safe_dump(doc))
    code = main(["run", str(f), "--out", str(tmp_path / "out"), "--json"])
    s = json.loads(capsys.readouterr().out)
    assert code == 0 and s["fell"] is False
    assert 0.25 < s["displacement_m"][0] < 0.6 and abs(s["heading_change_deg"]) < 15
    assert [c["t"] for c in s["commands"]] == pytest.approx([0.5, 5.0], abs=0.011)
    bad = dict(doc, params={"stride": 1})
    f.write_text(yaml.safe_dump(bad))
    code = main(["run", str(f)])
    assert code == 2 and "params.stride: unknown walk parameter" in capsys.readouterr().err
