"""``robotsim run --out DIR`` says every file it wrote (it named summary.json alone)."""

from __future__ import annotations

from pathlib import Path

from tests.paths import FIXTURES

from robotsim.cli import main

TURTLEBOT = (
    FIXTURES / "urdf" / "turtlebot3_burger" / "turtlebot3_description" / "urdf"
    / "turtlebot3_burger.urdf"
)  # fmt: skip

SCENARIO = f"""\
format: robotsim-scenario/1
kind: mobile
name: burger_goal
duration: 1
robots:
  - {{name: burger, model: {TURTLEBOT}, start: [0, 0, 0], goal: [1, 0, 0]}}
"""


def _wrote(out: str) -> list[str]:
    (line,) = [x for x in out.splitlines() if x.startswith("wrote ")]
    return line.removeprefix("wrote ").split(", ")


def test_mobile_run_lists_its_files(tmp_path: Path, capsys) -> None:
    sc = tmp_path / "burger.yaml"
    sc.write_text(SCENARIO)
    out = tmp_path / "out"
    assert main(["run", str(sc), "--out", str(out)]) == 0
    files = _wrote(capsys.readouterr().out)
    assert files == [f"{out}/summary.json", f"{out}/map.png", f"{out}/runs.sqlite"]
    assert all(Path(f).is_file() for f in files)
    assert sorted(p.name for p in out.iterdir()) == ["map.png", "runs.sqlite", "summary.json"]


def test_hands_run_lists_its_trace(tmp_path: Path, capsys) -> None:
    out = tmp_path / "hands"
    assert main(["run", "hand_ball_transfer", "--out", str(out), "--duration", "0.05"]) == 0
    files = _wrote(capsys.readouterr().out)
    assert files == [f"{out}/summary.json", f"{out}/trace.csv", f"{out}/runs.sqlite"]
    assert sorted(p.name for p in out.iterdir()) == ["runs.sqlite", "summary.json", "trace.csv"]
