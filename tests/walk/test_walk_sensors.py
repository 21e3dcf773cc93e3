"""Sensors on a walking robot (``kind: walk``'s ``sensors:``, with its profile file's):
read in the walk's own world and recorded under the robot's name (acceptance of other
makers' humanoids: the field was refused and a profile file's sensors were ignored)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.model import load_robot
from robotsim.recording import open_run
from tests.humanoid_files import write_nao_like_urdf


def test_a_walk_scenario_records_imu_and_foot_forces(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    robot = write_nao_like_urdf(tmp_path / "nao.urdf")
    (tmp_path / "nao.profile.yaml").write_text(
        "format: robotsim-profile/1\nrobot: nao_like\nsensors:\n  - {type: imu, rate: 100}\n"
    )
    scenario = tmp_path / "stand.yaml"
    scenario.write_text(
        "format: robotsim-scenario/1\nkind: walk\nname: stand\nrobot: nao.urdf\n"
        "duration: 1.0\nsensors:\n  - {type: force, links: feet, rate: 50}\n"
    )
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert not summary["fell"]
    assert summary["sensors"] == {
        "imu": {"type": "imu", "rate_hz": 100.0, "robot": "nao_like"},  # the profile's
        "force": {"type": "force", "rate_hz": 50.0, "robot": "nao_like"},  # the file's
    }
    run = open_run(out / "runs.sqlite")
    try:
        imu = run.sensor("nao_like", "imu")
        force = run.sensor("nao_like", "force")
    finally:
        run.store.close()
    assert len(imu.t) == 100 and len(force.t) == 50
    late = imu.t >= 0.5  # standing still: specific force g, up
    assert np.mean(imu["accel"][late], axis=0) == pytest.approx([0, 0, 9.81], abs=0.05)
    model = load_robot(str(robot))
    weight = sum(lk.inertial.mass for lk in model.links if lk.inertial is not None) * 9.81
    carried = force["normal"][force.t >= 0.5].sum(axis=1)
    assert np.mean(carried) == pytest.approx(weight, rel=0.01)


def test_robotsim_walk_reads_the_profile_files_sensors(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """``robotsim walk FILE``: the robot profile file's sensors read as it walks, into
    ``summary.json`` and the run store under the robot's name (they were ignored)."""
    robot = write_nao_like_urdf(tmp_path / "nao.urdf")
    (tmp_path / "nao.profile.yaml").write_text(
        "format: robotsim-profile/1\nrobot: nao_like\n"
        "sensors:\n  - {type: force, links: feet, rate: 50}\n"
    )
    out = tmp_path / "out"
    assert main(["walk", str(robot), "--distance", "0.05", "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert not summary["fell"]
    assert summary["sensors"] == {"force": {"type": "force", "rate_hz": 50.0, "robot": "nao_like"}}
    run = open_run(out / "runs.sqlite")
    try:
        force = run.sensor("nao_like", "force")
    finally:
        run.store.close()
    assert force.t[-1] == pytest.approx(summary["duration_s"], abs=0.05)
    model = load_robot(str(robot))
    weight = sum(lk.inertial.mass for lk in model.links if lk.inertial is not None) * 9.81
    standing = (force.t > 0.3) & (force.t < 1.0)  # before the first step
    assert np.mean(force["normal"][standing].sum(axis=1)) == pytest.approx(weight, rel=0.01)
