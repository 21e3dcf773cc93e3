"""A mobile run is sized before it steps: a huge duration is refused with the estimate
and the options that change it (issue 17), and raising the budget lets it through."""

from __future__ import annotations

import pytest

from robotsim.budget import BudgetError, memory_budget
from robotsim.cli import main
from robotsim.mobile.run import check_run_budget


def test_a_huge_duration_is_refused_before_stepping(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    rc = main(["run", "soccer_obstacles", "--set", "duration=1e7", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "a mobile run of 1e+07 s (5e+08 control ticks of 0.02 s, 1 robot)" in err
    assert "would need about 115.5 GB of memory, more than the budget of 2.0 GB" in err
    assert "--duration" in err and "--max-memory" in err
    assert not (out / "summary.json").exists()


def test_the_estimate_grows_with_robots_and_ticks() -> None:
    check_run_budget(30.0, 0.02, 8)  # a normal run passes
    with pytest.raises(BudgetError, match=r"1e\+06 s .*5e\+07 control ticks .*4 robots"):
        check_run_budget(1e6, 0.02, 4)
    with pytest.raises(BudgetError, match="unbounded"):
        check_run_budget(float("inf"), 0.02, 1)


def test_a_larger_budget_lets_the_run_through() -> None:
    with pytest.raises(BudgetError):
        check_run_budget(1e7, 0.02, 1)
    with memory_budget("200G"):
        check_run_budget(1e7, 0.02, 1)
