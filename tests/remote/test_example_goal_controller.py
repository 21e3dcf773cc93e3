"""The example controller, in its own process, drives the omni robot to a goal over UDP
(the robot simulated in MuJoCo by ``robotsim serve`` in another process)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "udp_goal_controller.py"

SCENARIO = """\
format: robotsim-scenario/1
kind: mobile
name: omni_remote
robots:
  - {name: omni, model: omni3, start: [0, 0, 0]}
"""


def test_example_drives_the_physics_omni_base_to_the_goal(tmp_path: Path) -> None:
    scenario = tmp_path / "omni_remote.yaml"
    scenario.write_text(SCENARIO)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "robotsim",
            "serve",
            str(scenario),
            "--udp",
            "127.0.0.1:0",
            "--json",
            "--rate",
            "3",
            "--duration",
            "90",
            "--db",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        hello = json.loads(server.stdout.readline())
        assert hello["robots"]["omni"] == {
            "joints": [],
            "wheels": ["wheel1", "wheel2", "wheel3"],
            "mobile": True,
        }
        ctl = subprocess.run(
            [
                sys.executable,
                str(EXAMPLE),
                "--server",
                f"127.0.0.1:{hello['port']}",
                "--goal",
                "1.5,-1.0,0.8",
                "--timeout",
                "60",
            ],
            capture_output=True,
            text=True,
            timeout=90,
        )
    finally:
        server.terminate()  # SIGTERM: stops like Ctrl-C
        out, _ = server.communicate(timeout=20)
    assert ctl.returncode == 0, ctl.stderr
    result = json.loads(ctl.stdout)
    assert result["reached"] is True and result["robot"] == "omni"
    x, y, _ = result["position"]
    assert math.hypot(x - 1.5, y + 1.0) <= 0.05
    assert abs(result["yaw"] - 0.8) <= 0.05
    assert json.loads(out[out.index("{\n") :])["status"] == "interrupted"
