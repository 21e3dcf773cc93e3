"""``robotsim walk`` in-process: the summary with the numbers behind the verdict, the
walk as a motion program that motion play takes, the run store, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.export import load_replay
from robotsim.motion.profile import check_capacity, profile_for
from robotsim.motion.schema import load_program
from robotsim.recording import RunStore
from tests.walk.robots import arm_urdf

pytestmark = pytest.mark.slow


def run(capsys, *args: object) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_walk_writes_summary_program_recording_and_picture(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(
        capsys, "walk", "humanoid17", "--distance", "0.5", "--out", tmp_path, "--json"
    )
    assert code == 0
    s = json.loads(out)
    assert s == json.loads((tmp_path / "summary.json").read_text())
    for key in ("fell", "distance_m", "mean_speed_m_s", "leg_length_m", "heading_change_deg",
                "max_tilt_deg", "max_zmp_error_m", "rtf", "program"):  # fmt: skip
        assert key in s
    assert s["fell"] is False and 0.4 < s["distance_m"] < 0.6
    assert s["leg_length_m"] == pytest.approx(0.2185)
    assert s["mean_speed_m_s"] > 0 and s["rtf"] > 0
    # the walk as a program the motion commands take (within the controller's memory)
    program = load_program(s["program"])
    check_capacity(program, profile_for("humanoid17"))
    code, out, _ = run(capsys, "motion", "play", s["program"], "--out", tmp_path / "play",
                       "--no-strip", "--json")  # fmt: skip
    assert code == 0 and json.loads(out)["distance_walked_m"] == pytest.approx(0.5, rel=0.15)
    assert (tmp_path / "side_view.png").stat().st_size > 10_000
    store = RunStore(tmp_path / "runs.sqlite")
    (info,) = store.runs()
    table = store.signals(info.id, "humanoid17")
    assert "zmp_x" in table.names and "dcm_error_x" in table.names and len(table.t) > 100
    touchdowns = [e for e in store.events(info.id) if e["type"] == "touchdown"]
    assert len(touchdowns) == s["steps"]
    # the 3D scene, so the walk exports to mp4/gif/html: the root is the measured one
    replay = load_replay(store, info.id)
    root = replay.track("humanoid17").T_world[:, 0, :3, 3]
    assert store.scene(info.id)["engine"] == "physics"
    assert np.array_equal(root, np.column_stack([table.column(f"base_{a}") for a in "xyz"]))
    store.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--distance", "1", "--speed", "5"), "more than its legs can do: at most"),
        (("--turn", "90"), "cannot turn"),
        ((), "nothing to walk"),
        (("--distance", "1", "--speed", "-1"), "--speed"),
    ],
)
def test_bad_requests_exit_2_with_one_line(capsys, tmp_path: Path, args, message) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "walk", "humanoid17", *args, "--out", tmp_path)
    assert code == 2 and message in err
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert not (tmp_path / "summary.json").exists()


def test_a_robot_without_legs_is_refused(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "walk", arm_urdf(tmp_path), "--distance", "1", "--out", tmp_path)
    assert code == 2 and "walking needs a biped" in err and err.count("\n") == 1
