"""Motion limits where the user works (seed 000: 30 keyframes per motion, 20 motions
per program) and the paper's second speed method sized by the foot-contact error."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from robotsim.cli import main
from robotsim.errors import ScenarioError
from robotsim.model import load_robot
from robotsim.motion.playback import play
from robotsim.motion.profile import load_profile, profile_for
from robotsim.motion.schema import Keyframe, Motion, Program, load_program, save_program
from robotsim.motion.speed import contact_points, time_per_pose
from robotsim.motion.support import ContactSettings
from robotsim.motion.timeline import compile_program
from robotsim.shipped import shipped_dir

WALK = shipped_dir("motion") / "walk_forward.yaml"


def big_program(keyframes: int = 31, motions: int = 1) -> Program:
    ms = [Motion(name=f"m{j}", keyframes=[Keyframe(name=f"k{i}", targets={"head_yaw": i % 30})
                                          for i in range(keyframes)])
          for j in range(motions)]  # fmt: skip
    return Program(name="big", robot="humanoid17", units="deg", motions=ms)


def test_paper_defaults_for_robots_without_a_profile() -> None:
    c = profile_for("puma560").controller
    assert (c.max_keyframes_per_motion, c.max_motions_per_program) == (30, 20)
    assert profile_for("humanoid17") == load_profile("humanoid17")


def test_files_refuse_programs_beyond_the_controller(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"big\.yaml: motion 'm0': 31 keyframes; the "
                       r"humanoid17 controller holds at most 30 per motion"):  # fmt: skip
        save_program(big_program(31), tmp_path / "big.yaml")
    assert not (tmp_path / "big.yaml").exists()  # nothing written
    save_program(big_program(30), tmp_path / "ok.yaml")
    data = yaml.safe_load((tmp_path / "ok.yaml").read_text())
    data["motions"][0]["keyframes"].append({"name": "k30", "targets": {"head_yaw": 1}})
    (tmp_path / "hand_edited.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(ScenarioError, match=r"hand_edited\.yaml: .*31 keyframes"):
        load_program(tmp_path / "hand_edited.yaml")


def test_cli_refuses_before_opening_the_port(tmp_path: Path, capsys) -> None:
    """play and upload exit 2 with one line; upload never touches the port (a path that
    does not exist would otherwise be the error)."""
    save_program(big_program(30, 1), tmp_path / "ok.yaml")
    data = yaml.safe_load((tmp_path / "ok.yaml").read_text())
    data["motions"] = [dict(data["motions"][0], name=f"m{j}") for j in range(21)]
    data["sequence"] = [{"motion": f"m{j}"} for j in range(21)]
    (tmp_path / "long.yaml").write_text(yaml.safe_dump(data))
    for args in (
        ["play", str(tmp_path / "long.yaml"), "--out", str(tmp_path / "o")],
        ["upload", str(tmp_path / "long.yaml"), "--port", "/dev/does-not-exist"],
    ):
        assert main(["motion", *args]) == 2
        err = capsys.readouterr().err
        assert "21 motions in the sequence; the humanoid17 controller holds at most 20" in err
        assert "Traceback" not in err and "does-not-exist" not in err


@pytest.fixture(scope="module")
def walk():  # type: ignore[no-untyped-def]
    model = load_robot("humanoid17")
    program = load_program(WALK)
    return model, compile_program(program, model, str(WALK)), load_profile("humanoid17").soles


def test_contact_tolerance_sets_points_and_bounds_the_error(walk) -> None:
    model, tl, soles = walk
    pts2 = contact_points(model, tl, soles, 0.002)
    pts1 = contact_points(model, tl, soles, 0.001)
    assert pts2.shape == (tl.segments,) and pts2.min() >= 1
    assert np.all(pts1 >= pts2) and pts1.max() > pts2.max()  # tighter -> more points
    assert pts2.max() > pts2.min()  # moves near the floor need more than moves in the air
    res = play(model, tl, soles, "fixed_points", points=pts2,
               settings=ContactSettings(detection="tick"))  # fmt: skip
    # With tick-time detection each switch leaves the new support sole at most one
    # tick's travel below the old support's plane, and the whole robot sinks by it: the
    # switch errors (depths below the floor) grow by at most the tolerance per switch.
    depth = np.abs([s.error_m for s in res.switches])
    assert len(depth) >= 6 and np.max(np.diff(np.r_[0.0, depth])) <= 0.002 + 1e-9


def test_min_tick_is_the_timer_floor(walk) -> None:
    tl = walk[1]
    fast = tl.sample("fixed_points", points=50)
    floored = tl.sample("fixed_points", points=50, min_tick=0.03)
    assert fast.dt[1:].min() < 0.03 and floored.dt[1:].min() >= 0.03 - 1e-12
    assert floored.t[-1] > fast.t[-1]
    table = time_per_pose(50, 0.03)
    # 50 points at the 30 ms floor: 1.5 s per pose from level 2 up; level 1 (2 s) is slower
    assert table[1]["time_per_pose_s"] == pytest.approx(2.0)
    assert all(table[k]["time_per_pose_s"] == pytest.approx(1.5) for k in range(2, 9))


def test_min_tick_floors_the_fixed_tick_too(walk, capsys, tmp_path: Path) -> None:
    tl = walk[1]
    fine = tl.sample("fixed_tick", tick=0.01)
    floored = tl.sample("fixed_tick", tick=0.01, min_tick=0.03)
    assert fine.dt[1:].min() == pytest.approx(0.01)
    assert floored.dt[1:].min() == pytest.approx(0.03) and floored.ticks < fine.ticks / 2
    # a floor below the tick changes nothing
    same = tl.sample("fixed_tick", tick=0.01, min_tick=0.005)
    assert np.array_equal(same.t, fine.t)
    args = ["motion", "play", str(WALK), "--out", str(tmp_path), "--no-strip", "--json"]
    assert main([*args, "--tick", "0.01", "--min-tick", "30ms"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["tick_s"] == pytest.approx(0.03)
    assert summary["speed_method_2"]["min_tick_s"] == pytest.approx(0.03)


def test_play_reports_points_and_time_per_pose(capsys, tmp_path: Path) -> None:
    code = main(["motion", "play", str(WALK), "--out", str(tmp_path), "--contact-tolerance",
                 "2mm", "--min-tick", "30ms", "--no-strip", "--json"])  # fmt: skip
    assert code == 0
    s = json.loads(capsys.readouterr().out)["speed_method_2"]
    assert s["contact_tolerance_m"] == pytest.approx(0.002) and s["min_tick_s"] == 0.03
    assert len(s["points_per_keyframe"]) > 20 and s["max_points"] >= 2
    assert set(s["time_per_pose_by_level"]) == {str(k) for k in range(1, 9)}
    bad = ["motion", "play", str(WALK), "--out", str(tmp_path), "--min-tick", "30 parsecs"]
    assert main(bad) == 2
    assert "--min-tick '30 parsecs'" in capsys.readouterr().err
