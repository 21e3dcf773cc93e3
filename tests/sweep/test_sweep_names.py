"""Shipped sweeps work by name from any folder, like scenarios (issue 29, item 6): they
are package data (``robotsim/data/sweeps``, the checkout's ``sweeps/``), and an unknown
name is one line listing the shipped ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from robotsim.errors import ScenarioError
from robotsim.sweep import load_sweep
from robotsim.sweep.engine import SHIPPED_SWEEPS, resolve_sweep_file, shipped_sweeps
from tests.paths import REPO


def test_the_shipped_sweeps_are_the_checkouts(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no sweeps/ here
    names = shipped_sweeps()
    assert names == sorted(p.stem for p in (REPO / "sweeps").glob("*.yaml")) and names
    for given in ("pid_gains", "pid_gains.yaml", "sweeps/pid_gains.yaml"):
        p = resolve_sweep_file(given)
        assert p == SHIPPED_SWEEPS / "pid_gains.yaml"
        assert p.read_bytes() == (REPO / "sweeps" / "pid_gains.yaml").read_bytes()
    sw = load_sweep("pid_gains")
    assert sw.base_path.name == "pid_p_vs_pd.yaml" and len(sw.tasks) == 36


def test_a_file_of_ones_own_wins_and_an_unknown_name_lists_the_shipped(
    monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    mine = tmp_path / "pid_gains.yaml"
    mine.write_text((REPO / "sweeps" / "pid_gains.yaml").read_text())
    assert resolve_sweep_file("pid_gains.yaml") == Path("pid_gains.yaml")
    with pytest.raises(ScenarioError) as err:
        resolve_sweep_file("pid_gainz")
    msg = str(err.value)
    assert msg.startswith("pid_gainz: no such sweep file, and not a shipped sweep name")
    assert "pid_gains, pid_optimize" in msg and "\n" not in msg


def test_the_cli_names_the_shipped_sweeps(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "robotsim", "sweep", "run", "nope", "--out", "x"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "shipped: clearance_spacing" in r.stderr
