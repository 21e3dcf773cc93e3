"""Walking live: over real UDP (``set_base_velocity`` steers the walk, like NAO's
``moveToward``), and on a schedule of commands (``kind: walk``)."""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from robotsim.cli import main
from robotsim.cli.serve import build_target
from robotsim.errors import InputError
from robotsim.remote import Client, RemoteError, RemoteServer
from tests.procs import default_sigint
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


def test_serve_a_walk_scenario_steered_over_udp(tmp_path: Path) -> None:
    """``robotsim serve`` of a ``kind: walk`` scenario, a real process on a real socket:
    set_base_velocity walks humanoid17 forward, the planned footsteps come with the
    state, a zero twist stands it still; the file's own commands are left out."""
    f = tmp_path / "walk_here.yaml"
    f.write_text(
        "format: robotsim-scenario/1\nkind: walk\nname: walk_here\nrobot: humanoid17\n"
        "duration: 60\nfriction: 1.0\ncommands:\n  - {t: 0.1, vx: 0.0, vy: 0.05}\n"
    )
    cmd = [sys.executable, "-m", "robotsim", "serve", str(f), "--udp", "127.0.0.1:0",
           "--json", "--paused"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    try:
        assert proc.stdout is not None
        hello = json.loads(proc.stdout.readline())
        (name,) = hello["robots"]
        assert name == "humanoid17" and hello["robots"][name]["mobile"]
        with Client((hello["host"], hello["port"]), timeout=10.0) as c:
            c.step(20)
            st = c.state()["robots"][name]
            x0, y0, _ = st["base"]["position"]
            assert st["footsteps"] == []  # the file's sideways command is not run
            c.set_base_velocity(name, vx=0.1)
            _walk(c, 3.0, 0.01)
            st = c.state()["robots"][name]
            assert "fell" not in st and st["footsteps"]
            assert all(s["foot"] in ("left", "right") for s in st["footsteps"])
            x1, y1, _ = st["base"]["position"]
            assert x1 - x0 > 0.15 and abs(y1 - y0) < 0.05, (x1 - x0, y1 - y0)
            c.set_base_velocity(name)
            _walk(c, 2.0, 0.01)
            st = c.state()["robots"][name]
            assert "fell" not in st and st["footsteps"] == []
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0


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
