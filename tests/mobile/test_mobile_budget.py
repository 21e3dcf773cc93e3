"""A mobile run is sized before it steps (issue 17): its poses are held only up to a
bound, so a long duration is no longer refused for memory; what is still held (a
formation's 2 Hz series and snapshots) is checked against the budget, a duration that is
not finite is refused, and a recorded run whose signals would not fit the free disk is
refused naming the bytes needed and free."""

from __future__ import annotations

import json
import shutil

import pytest

from robotsim.budget import BudgetError, memory_budget, set_budget
from robotsim.cli import main
from robotsim.mobile.run import check_run_budget
from robotsim.mobile.sizing import held_bytes
from robotsim.mobile.ticklog import BLOCK, hold_ticks


def test_a_recorded_run_that_would_not_fit_the_disk_is_refused_before_stepping(
    capsys: pytest.CaptureFixture[str], tmp_path
) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    # (the work budget, which refuses this run too, lifted: the disk check is the subject)
    rc = main(["run", "soccer_obstacles", "--set", "duration=1e9", "--max-work", "1e16",
               "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "a mobile run of 1e+09 s records 5e+10 samples of 20 signals per robot (1)" in err
    # 10 signals, the root pose (7) and the 3 wheels' angles per sample
    assert "about 29.1 TB, more than the" in err and "free there" in err
    free = shutil.disk_usage(out).free
    assert f"{free / 1024**3:.1f} GB free" in err or "TB free" in err
    assert "--duration" in err and "record_rate" in err
    assert not (out / "summary.json").exists()


def test_held_memory_does_not_grow_with_the_duration() -> None:
    assert held_bytes(30.0, 1) == held_bytes(1e9, 1)  # the pose log is bounded
    assert held_bytes(1e9, 8) < 64 * 1024**2
    check_run_budget(1e9, 0.02, 8)  # passes: nothing held grows with the duration
    with pytest.raises(BudgetError, match="unbounded"):
        check_run_budget(float("inf"), 0.02, 1)


def test_a_formation_holds_its_series_and_is_sized() -> None:
    assert held_bytes(1e6, 3, formation=True) > held_bytes(1e3, 3, formation=True)
    check_run_budget(3600.0, 0.02, 3, formation=True)
    with memory_budget("100M"):
        with pytest.raises(BudgetError, match=r"1e\+06 s .*5e\+07 control ticks .*3 robots, in"):
            check_run_budget(1e6, 0.02, 3, formation=True)
    with memory_budget("2G"):
        check_run_budget(1e6, 0.02, 3, formation=True)


def test_a_long_run_folds_and_reports_the_same_numbers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A run past what the log holds (a 4 MB budget makes it fold after 5 blocks of
    4,096 ticks; 600 s are 30,000) reports the numbers of the same run held whole, and
    still draws its map."""
    with memory_budget("4M"):
        assert hold_ticks(3) == 4 * BLOCK
    args = ["run", "soccer_obstacles", "--duration", "600", "--json"]
    held, folded = tmp_path / "held", tmp_path / "folded"
    assert main([*args, "--out", str(held)]) == 0
    try:
        assert main([*args, "--out", str(folded), "--max-memory", "4M"]) == 0
    finally:
        set_budget(None)  # the option sets the process's budget: back to the default
    a = json.loads((held / "summary.json").read_text())["robots"]["omni"]
    b = json.loads((folded / "summary.json").read_text())["robots"]["omni"]
    for key in ("path_length", "overshoot"):
        assert b[key] == pytest.approx(a[key], rel=1e-12, abs=1e-12)
    for axis, pct in a["overshoot_pct"].items():
        assert b["overshoot_pct"][axis] == pytest.approx(pct, rel=1e-12, abs=1e-12)
    for key in ("reached_goal", "time_to_goal", "collisions", "min_obstacle_clearance",
                "final_pose"):  # fmt: skip
        assert b[key] == a[key]
    assert (folded / "map.png").stat().st_size > 10_000
