"""``robotsim motion ...`` in-process: play, check, thumbnails, make-walk, errors."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import yaml

from robotsim.cli import main
from robotsim.motion.schema import load_program
from robotsim.recording import RunStore
from robotsim.shipped import shipped_dir
from tests.motion.programs import LIFT_WITHOUT_SHIFT

WALK = shipped_dir("motion") / "walk_forward.yaml"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_play_writes_summary_strip_and_recording(capsys, tmp_path: Path) -> None:
    code, out, _ = run(
        capsys, "motion", "play", WALK, "--robot", "humanoid17", "--out", tmp_path, "--json"
    )
    assert code == 0
    s = json.loads(out)
    assert s == json.loads((tmp_path / "summary.json").read_text())
    assert s["frames"] > 1000 and s["support_switches"] >= 6
    assert s["max_stance_slip_m"] <= 1e-9 and s["max_penetration_m"] <= 1e-3
    assert s["distance_walked_m"] >= 0.3
    sm = s["speed_methods"]["all_level_8"]
    assert sm["fixed_tick"]["ticks"] < sm["fixed_points"]["ticks"]
    assert (tmp_path / "side_view.png").stat().st_size > 10_000
    import numpy as np

    traj = np.load(tmp_path / "trajectory.npz")
    assert traj["link_pos"].shape == (s["frames"], len(traj["link_names"]), 3)
    assert traj["link_quat"].shape[-1] == 4
    store = RunStore(tmp_path / "runs.sqlite")
    (info,) = store.runs()
    table = store.signals(info.id, "humanoid17")
    assert len(table.t) == s["frames"] and "left_sole_height" in table.names
    events = store.events(info.id)
    assert sum(e["type"] == "support_switch" for e in events) == s["support_switches"]
    store.close()


def test_check_physics_exit_codes(capsys, tmp_path: Path) -> None:
    code, out, _ = run(capsys, "motion", "check", WALK, "--physics", "--json", "--out", tmp_path)
    assert code == 0 and json.loads(out)["verdict"] == "stands"
    assert (tmp_path / "com_path.png").is_file()
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({**LIFT_WITHOUT_SHIFT, "robot": "humanoid17"}))
    code, out, _ = run(capsys, "motion", "check", bad, "--physics")
    assert code == 1 and "FALLS at t=" in out and "->" not in out  # no --out, no files
    code, out, _ = run(capsys, "motion", "check", bad, "--physics", "--out", tmp_path / "c")
    assert code == 1  # the text says where the files went, as play's does
    assert out.rstrip().endswith(f"-> {tmp_path / 'c'}/physics_check.json, com_path.png")
    assert (tmp_path / "c" / "physics_check.json").is_file()


def test_thumbnails_are_rendered_and_recorded(capsys, tmp_path: Path) -> None:
    f = tmp_path / "wave.yaml"
    f.write_text(
        yaml.safe_dump(
            {
                "format": "robotsim-motion/1",
                "name": "wave",
                "robot": "humanoid17",
                "units": "deg",
                "keyframes": [
                    {"name": "up", "targets": {"right_shoulder_pitch": -150}, "speed": 5},
                    {"name": "down", "targets": {"right_shoulder_pitch": 0}, "speed": 5},
                ],
            }
        )
    )
    code, out, _ = run(capsys, "motion", "thumbnails", f)
    assert code == 0 and "2 thumbnails" in out
    prog = load_program(f)
    thumbs = [tmp_path / k.thumbnail for k in prog.motions[0].keyframes]
    assert all(p.is_file() and p.read_bytes()[:4] == b"\x89PNG" for p in thumbs)
    assert thumbs[0].read_bytes() != thumbs[1].read_bytes()
    # --out, as every other motion command names its folder (it was --out-dir only)
    code, out, _ = run(capsys, "motion", "thumbnails", f, "--out", tmp_path / "t", "--no-update")
    assert code == 0 and f"2 thumbnails in {tmp_path / 't'}" in out
    assert len(list((tmp_path / "t").glob("*.png"))) == 2


def test_make_walk_regenerates_the_stored_walk(capsys, tmp_path: Path) -> None:
    out = tmp_path / "walk.yaml"
    code, _, _ = run(capsys, "motion", "make-walk", out)
    assert code == 0
    assert load_program(out) == load_program(WALK)


def test_generated_walks_take_a_name(capsys, tmp_path: Path) -> None:
    """make-walk and gait called every program walk_forward; --name names it (checked
    like a program name in a file)."""
    out = tmp_path / "walk.yaml"
    code, _, _ = run(capsys, "motion", "make-walk", out, "--name", "short walk")
    assert code == 0 and load_program(out).name == "short walk"
    assert load_program(out).motions == load_program(WALK).motions
    gait = ["motion", "gait", "--robot", "humanoid17", "--step-length", "0.03", "--steps", "4"]
    code, out_text, _ = run(capsys, *gait, "--out", tmp_path / "g.yaml", "--name", "g1", "--json")
    assert code == 0 and load_program(tmp_path / "g.yaml").name == "g1"
    assert '"name": "g1"' in out_text
    code, _, err = run(capsys, *gait, "--out", tmp_path / "h.yaml", "--name", "a/b")
    assert code == 2 and not (tmp_path / "h.yaml").exists()
    assert err.strip() == (
        "error: --name 'a/b': a program name is 1 to 64 letters, digits, '_', '.', '-' or spaces"
    )


def test_make_walk_errors_name_its_own_options(capsys, tmp_path: Path) -> None:
    """make-walk's reach error suggested --step-length, an option only gait had (now
    both take it), printed the target as raw floats, and did not say that its defaults
    are humanoid17's: for another robot it points at gait, which sizes the walk."""
    from tests.paths import FIXTURES

    out = tmp_path / "walk.yaml"
    code, _, _ = run(capsys, "motion", "make-walk", out, "--step-length", "0.03")
    assert code == 0 and load_program(out).motions
    code, _, err = run(capsys, "motion", "make-walk", out, "--height", "0.5")
    assert code == 2 and len(err.splitlines()) == 1
    assert "left_sole cannot reach (0, 0.028, 0) m with the body 0.5 m above the floor" in err
    # position and rotation misses apart; the reach that is missing and the height to give
    assert re.search(r"misses by [0-9.]+ m and [0-9.]+ deg", err)
    assert (
        "the leg is stretched (the sole 0.431 m from the hip, the straight leg 0.219 m): "
        "give a lower --height (about 0.267 m)" in err
    )
    assert "--step-length" not in err  # the crouch is not a step: a shorter one cannot help
    assert "motion gait" not in err  # humanoid17 is the robot the defaults fit
    humanoid = FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"
    code, _, err = run(capsys, "motion", "make-walk", out, "--robot", humanoid)
    assert code == 2 and len(err.splitlines()) == 1
    assert f"'robotsim motion gait --robot {humanoid} --step-length L --out FILE'" in err


def test_bad_files_are_one_line_errors(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    shutil.copy(WALK, bad)
    text = bad.read_text().replace("speed: 8", "speed: 9", 1)
    bad.write_text(text)
    code, _, err = run(capsys, "motion", "play", bad, "--out", tmp_path / "o")
    assert code == 2
    assert err.count("\n") == 1 and "speed" in err and "(got 9)" in err
    code, _, err = run(capsys, "motion", "play", tmp_path / "none.yaml", "--out", tmp_path)
    assert (
        code == 2
        and err
        == f"error: {tmp_path / 'none.yaml'}: no such file and no shipped "
        "motion of that name (shipped motions: walk_forward; 'robotsim scenarios' lists them)\n"
    )
    code, _, err = run(capsys, "motion", "play", tmp_path, "--out", tmp_path / "o")
    assert code == 2 and err.count("\n") == 1 and "is a directory" in err
    bad.write_text("format: robotsim-motion/1\nname: e\n  bad: [\n")
    code, _, err = run(capsys, "motion", "play", bad, "--out", tmp_path / "o")
    assert code == 2 and err.count("\n") == 1 and "not valid YAML (line 3, column 6)" in err
    bad.write_text(WALK.read_text().replace("robot: humanoid17", "robot: humanoid99", 1))
    code, _, err = run(capsys, "motion", "play", bad, "--out", tmp_path / "o")
    assert code == 2 and err.count("\n") == 1
    assert f"{bad}: robot: unknown robot 'humanoid99'" in err
    # upload checks names and limits before it opens the port
    bad.write_text(WALK.read_text().replace("left_knee: 88.12795", "left_knee: 300", 1))
    code, _, err = run(capsys, "motion", "upload", bad, "--port", tmp_path / "no-such-port")
    assert code == 2 and "left_knee: 300 deg is outside the joint limits" in err


def test_fixed_base_arm_plays_without_soles(capsys, tmp_path: Path) -> None:
    f = tmp_path / "arm.yaml"
    f.write_text(
        yaml.safe_dump(
            {
                "format": "robotsim-motion/1",
                "name": "arm",
                "robot": "puma560",
                "units": "deg",
                "start": "qz",
                "interpolation": "minjerk",
                "keyframes": [{"name": "up", "targets": {"joint2": 45, "joint3": -90}, "speed": 3}],
            }
        )
    )
    code, out, _ = run(capsys, "motion", "play", f, "--out", tmp_path / "o", "--json", "--no-strip")
    s = json.loads(out)
    assert code == 0 and s["support_switches"] == 0 and s["distance_walked_m"] == 0.0
    assert s["phases"][0]["support"] == "fixed base"
    code, _, err = run(capsys, "motion", "check", f, "--physics")
    assert code == 2 and "needs a legged robot" in err


def test_render_pose_png_for_an_editor(tmp_path: Path) -> None:
    from robotsim import load_robot
    from robotsim.motion import load_profile, render_pose_png

    model = load_robot("humanoid17")
    soles = load_profile("humanoid17").soles
    a = render_pose_png(model, model.pose("crouch"), tmp_path / "a.png", soles)
    b = render_pose_png(model, model.pose("arms_forward"), tmp_path / "b.png")
    assert a.read_bytes()[:4] == b"\x89PNG" and a.read_bytes() != b.read_bytes()
