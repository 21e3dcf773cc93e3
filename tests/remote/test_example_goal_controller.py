"""The example controller, in its own process, drives the omni robot to a goal over UDP."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "udp_goal_controller.py"


def test_example_drives_the_omni_base_to_the_goal() -> None:
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "robotsim",
            "serve",
            "omni3",
            "--kinematic",
            "--udp",
            "127.0.0.1:0",
            "--json",
            "--rate",
            "4",
            "--duration",
            "60",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        hello = json.loads(server.stdout.readline())
        assert hello["robots"]["omni3"]["mobile"] is True
        ctl = subprocess.run(
            [
                sys.executable,
                str(EXAMPLE),
                "--server",
                f"127.0.0.1:{hello['port']}",
                "--goal",
                "1.5,-1.0,0.8",
                "--timeout",
                "40",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert ctl.returncode == 0, ctl.stderr
    result = json.loads(ctl.stdout)
    assert result["reached"] is True and result["robot"] == "omni3"
    x, y, _ = result["position"]
    assert math.hypot(x - 1.5, y + 1.0) <= 0.05
    assert abs(result["yaw"] - 0.8) <= 0.05
