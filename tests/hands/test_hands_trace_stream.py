"""A hands run writes its trace as it goes (nothing held per tick) and refuses, before
stepping, a script whose trace could not fit the disk."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from robotsim.cli import main
from robotsim.errors import InputError
from robotsim.hands.run import TRACE_ROW_BYTES, run_hand_scenario, script_seconds
from robotsim.hands.scenario_spec import load_hand_scenario
from robotsim.shipped import shipped_dir

SCENARIO = shipped_dir("scenario") / "hand_ball_transfer.yaml"


class _Watcher:
    """A recorder that looks at trace.csv on disk while the run is going."""

    def __init__(self, trace: Path) -> None:
        self.trace, self.ticks, self.sizes = trace, 0, []

    def start_run(self, *a, **k):  # type: ignore[no-untyped-def]
        pass

    def signal(self, *a, **k):  # type: ignore[no-untyped-def]
        self.ticks += 1
        if self.ticks % 500 == 0:
            self.sizes.append(self.trace.stat().st_size)

    def event(self, *a, **k):  # type: ignore[no-untyped-def]
        pass

    def finish(self, *a, **k):  # type: ignore[no-untyped-def]
        pass


def test_the_trace_grows_on_disk_during_the_run(tmp_path: Path) -> None:
    spec, scene = load_hand_scenario(SCENARIO)
    watch = _Watcher(tmp_path / "trace.csv")
    summary = run_hand_scenario(spec, scene, "kinematic", tmp_path, recorder=watch)
    assert summary["completed"]
    sizes = watch.sizes
    assert len(sizes) >= 3 and sizes[0] > 0 and sizes == sorted(sizes) and sizes[-1] > sizes[0]
    lines = (tmp_path / "trace.csv").read_text().splitlines()
    assert len(lines) == watch.ticks + 1  # the header, then one row per tick
    assert max(len(line) + 1 for line in lines) <= TRACE_ROW_BYTES


def test_script_seconds_is_the_longest_the_script_can_take() -> None:
    spec, _ = load_hand_scenario(SCENARIO)
    steps = spec.steps()
    bound = sum(min(s.max_time, s.seconds) if s.kind == "wait" else s.max_time for s in steps)
    assert script_seconds(steps) == pytest.approx(bound)
    assert script_seconds(steps, duration=1.5) == 1.5


def test_a_script_whose_trace_cannot_fit_the_disk_is_refused_before_it_runs(tmp_path: Path):
    data = yaml.safe_load(SCENARIO.read_text())
    data["script"].append({"wait": 1e15, "max_time": 1e15})
    bad = tmp_path / "forever.yaml"
    bad.write_text(yaml.safe_dump(data))
    spec, scene = load_hand_scenario(bad)
    out = tmp_path / "out"
    with pytest.raises(
        InputError, match=r"trace\.csv and recording could take .* free; give the steps"
    ):
        run_hand_scenario(spec, scene, "kinematic", out)
    assert not (out / "trace.csv").exists()
    # --duration bounds it: the same script runs
    summary = run_hand_scenario(spec, scene, "kinematic", out, duration=0.5)
    assert not summary["completed"] and summary["sim_time"] <= 0.5 + 1e-9


def test_the_cli_names_the_trace_that_would_not_fit(tmp_path: Path, capsys) -> None:
    data = yaml.safe_load(SCENARIO.read_text())
    data["script"].append({"wait": 1e15, "max_time": 1e15})
    bad = tmp_path / "forever.yaml"
    bad.write_text(yaml.safe_dump(data))
    code = main(["run", str(bad), "--out", str(tmp_path / "out"), "--db", str(tmp_path / "r.db")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
    assert "trace.csv and recording could take" in err and "Traceback" not in err
