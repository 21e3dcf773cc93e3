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
