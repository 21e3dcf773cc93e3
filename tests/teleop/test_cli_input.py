"""``robotsim input devices|mappings|watch`` with a virtual gamepad."""

from __future__ import annotations

import json

import pytest

from robotsim.cli import main
from robotsim.teleop import GamepadManager, VirtualGamepad


def test_devices_and_watch_see_a_virtual_pad(capsys: pytest.CaptureFixture[str]) -> None:
    with GamepadManager(), VirtualGamepad(naxes=4, nbuttons=8, nhats=2) as pad:
        assert main(["input", "devices", "--json"]) == 0
        pads = json.loads(capsys.readouterr().out)["gamepads"]
        assert any(p["axes"] == 4 and p["buttons"] == 8 and p["hats"] == 2 for p in pads)
        pad.set_hat(0, (0, -1))
        pad.set_button(2, True)
        slot = next(p["slot"] for p in pads if p["instance_id"] == pad.instance_id)
        args = [
            "input",
            "watch",
            "--mapping",
            "arm_paper",
            "--var",
            "side=R",
            "--slot",
            str(slot),
            "--seconds",
            "0.25",
            "--hz",
            "20",
            "--json",
        ]
        assert main(args) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines and lines[-1]["grip"] == -1
    assert lines[-1]["joint_velocities"]["R_shoulder_x"] < 0
    assert lines[0]["pressed"] == ["release"]


def test_mappings_list_and_bad_var(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["input", "mappings", "--json"]) == 0
    maps = json.loads(capsys.readouterr().out)["mappings"]
    assert maps["arm_paper"]["placeholders"] == ["side"]
    assert main(["input", "watch", "--var", "side", "--seconds", "0"]) == 2
    assert "--var: expected NAME=VALUE" in capsys.readouterr().err


def test_a_virtual_pad_drives_a_served_robot_over_udp() -> None:
    from robotsim import load_robot
    from robotsim.remote import Client, KinematicTarget, RemoteServer

    target = KinematicTarget({"omni3": load_robot("omni3")}, dt=0.002)
    with RemoteServer(target, port=0).start() as srv, GamepadManager():
        with VirtualGamepad(naxes=4, nbuttons=8, nhats=1) as pad:
            pad.set_axis(1, -1.0)  # left stick fully up: forward at 0.5 m/s
            host, port = srv.address
            args = ["input", "drive", "--server", f"{host}:{port}", "--seconds", "0.6"]
            assert main(args) == 0
        with Client(srv.address) as c:
            st = c.state()["robots"]["omni3"]
    x, y, _ = st["base"]["position"]
    assert 0.05 < x < 0.8 and abs(y) < 1e-9  # drove forward (~0.3 m), then was stopped
    assert st["base_velocity"] == {"vx": 0.0, "vy": 0.0, "omega": 0.0}
