"""Absurd controller gains and limits are refused when the scenario is read (a 1e9 gain
used to run with the robot never moving and exit 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from robotsim.cli import main
from robotsim.shipped import shipped_dir

REPO = Path(__file__).resolve().parents[2]
SCENARIO = shipped_dir("scenario") / "pid_p_vs_pd.yaml"


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ("robots.0.controller.gains.x.kp=1e9", "robots[0].controller.gains.x.kp"),
        ("robots.0.controller.gains.theta.kd=1e9", "robots[0].controller.gains.theta.kd"),
        ("robots.0.controller.limits.y.max_speed=1e9", "robots[0].controller.limits.y.max_speed"),
        ("robots.0.controller.limits.x.accel=1e9", "robots[0].controller.limits.x.accel"),
    ],
)
def test_huge_gains_and_limits_are_refused(
    override: str, field: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(SCENARIO), "--set", override, "--duration", "0.1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    assert field in err and "less than or equal to" in err
