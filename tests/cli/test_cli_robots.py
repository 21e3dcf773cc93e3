"""The thin CLI: robots, inspect, fk, ik, bench — in-process through main()."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from tests.paths import FIXTURES

from robotsim.cli import main

PANDA = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_robots_json(capsys) -> None:
    code, out, _ = run(capsys, "robots", "--json")
    assert code == 0
    rows = {r["name"]: r for r in json.loads(out)["robots"]}
    assert rows["puma560"]["dof"] == 6 and rows["puma560"]["kind"] == "arm"


def test_inspect_json(capsys) -> None:
    code, out, _ = run(capsys, "inspect", "puma560", "--json")
    info = json.loads(out)
    assert code == 0 and info["joint_order"] == [f"joint{i}" for i in range(1, 7)]
    assert info["joints"][0]["lower"] == pytest.approx(-np.deg2rad(160))
    assert "qn" in info["poses"]


def test_inspect_table(capsys) -> None:
    code, out, _ = run(capsys, "inspect", "puma560")
    assert code == 0 and "joint6" in out and "tool" in out


def test_inspect_velocity_limits_are_per_second(capsys, monkeypatch) -> None:
    """The vel column is a speed: deg/s for revolute joints, m/s for prismatic ones
    (it printed "124.6 deg" and "0.2 m", the units of a position). Into a pipe the
    table keeps its width: one line per joint, no name cut ("panda_jo…" at 80 columns)."""
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, "inspect", str(PANDA))
    assert code == 0 and "…" not in out
    assert "│ panda_finger_joint2    │ prismatic │ panda_hand -> panda_rightfinger │" in out
    rows = {line.split()[1]: line for line in out.splitlines() if "panda_" in line}
    assert "124.6 deg/s" in rows["panda_joint1"]  # URDF velocity="2.1750" rad/s
    assert "0.2 m/s" in rows["panda_finger_joint1"]  # velocity="0.2" m/s
    assert " deg " not in rows["panda_joint1"].split("│")[6]


def test_fk_json_deg(capsys) -> None:
    code, out, _ = run(capsys, "fk", "puma560", "--q", "0,45,180,0,45,0", "--deg", "--json")
    T = np.array(json.loads(out)["T"])
    assert code == 0
    assert np.allclose(T[:3, 3], [0.5963031486, -0.15005, 0.6574757323], atol=1e-9)


def test_dynamics_json(capsys) -> None:
    """Gravity torques at qn: the Robotics Toolbox's ``gravload`` (31.6399, 6.0351 N m)."""
    code, out, _ = run(capsys, "dynamics", "puma560", "--q", "0,45,180,0,45,0", "--deg",
                       "--qdd", "1,0,0,0,0,0", "--json")  # fmt: skip
    res = json.loads(out)
    assert code == 0
    assert res["gravity_torques"][1:3] == pytest.approx([31.63988, 6.035138], abs=1e-5)
    M = np.array(res["mass_matrix"])
    # qd = 0, qdd = 1 deg/s^2 on joint 1: tau = gravity + the first column of M times it.
    tau = np.array(res["gravity_torques"]) + M[:, 0] * np.deg2rad(1.0)
    assert np.allclose(res["tau"], tau, atol=1e-9)


TURTLEBOT = FIXTURES / "urdf" / "turtlebot3_burger" / "turtlebot3_description" / "urdf"
TURTLEBOT = TURTLEBOT / "turtlebot3_burger.urdf"
HUMANOID_XML = FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"


def test_dynamics_table_keeps_small_inertias(capsys) -> None:
    """A TurtleBot wheel's 2.0712558e-05 kg m^2 (its URDF izz) is printed with its
    digits, not as 0.00002 (5 fixed decimals); the q line names its units."""
    code, out, _ = run(capsys, "dynamics", str(TURTLEBOT))
    assert code == 0
    lines = out.splitlines()
    assert "at q (rad, m) = " in lines[0]
    rows = lines[lines.index("mass matrix (kg m^2, kg):") + 1 :]
    assert [r.split() for r in rows] == [["2.07126e-05", "0"], ["0", "2.07126e-05"]]


def test_dynamics_says_a_floating_base_is_held_fixed(capsys) -> None:
    """MuJoCo's humanoid has a free root: the torques are those of a welded base, and
    the table and the JSON say so (a fixed-base robot's output says nothing)."""
    code, out, _ = run(capsys, "dynamics", str(HUMANOID_XML))
    assert code == 0 and "floating base: the root 'torso' is held fixed" in out
    code, out, _ = run(capsys, "dynamics", str(HUMANOID_XML), "--json")
    res = json.loads(out)
    assert res["floating_base"] is True and res["root_fixed"] == "torso"
    code, out, _ = run(capsys, "dynamics", str(PANDA), "--q", "0,0,0,-1,0,1,0,0")
    assert code == 0 and "floating" not in out


def test_fk_says_a_floating_pose_is_relative_to_the_root(capsys) -> None:
    """fk of a floating robot gives the pose in its root's frame: the text and the
    JSON say which root (the humanoid's left foot, 'torso' at the origin)."""
    code, out, _ = run(capsys, "fk", str(HUMANOID_XML), "--link", "foot_left")
    assert code == 0
    assert out.splitlines()[1] == (
        "  floating base: the pose is relative to the root 'torso' (held at the world origin)"
    )
    code, out, _ = run(capsys, "fk", str(HUMANOID_XML), "--link", "foot_left", "--json")
    res = json.loads(out)
    assert res["relative_to"] == "torso" and res["floating_base"] is True
    assert np.array(res["T"])[2, 3] < -1.0  # the foot hangs > 1 m below the torso
    code, out, _ = run(capsys, "fk", "puma560", "--json")
    assert json.loads(out)["floating_base"] is False
    # ik's target is in the same frame, and says so
    argv = ("ik", str(HUMANOID_XML), "--target", "0.3,0.2,0.1", "--link", "hand_left")
    code, out, _ = run(capsys, *argv)
    assert code == 0 and out.startswith(
        "Humanoid hand_left to (0.3, 0.2, 0.1) (relative to the root 'torso': floating base): "
    )
    code, out, _ = run(capsys, *argv, "--json")
    assert json.loads(out)["relative_to"] == "torso"


@pytest.mark.parametrize("option", ["--qd", "--qdd"])
def test_dynamics_errors_name_the_option_given(capsys, option) -> None:
    """A wrong --qd/--qdd is named as such (the error said --q, which was right)."""
    code, _, err = run(capsys, "dynamics", "puma560", "--q", "0,0,0,0,0,0", option, "1,2")
    assert code == 2
    assert err.startswith(f"error: {option}: puma560 has 6 joints (joint1, ")
    code, _, err = run(capsys, "dynamics", "puma560", option, "1,x,3,4,5,6")
    assert code == 2 and err.startswith(f"error: {option}: ")


def test_ik_q0_in_degrees_with_deg(capsys) -> None:
    """``ik --q0 ... --deg`` like ``fk --q ... --deg`` (it had no --deg); the seed picks
    the branch, so the same seed in degrees and radians gives the same answer, and a
    wrong --q0 is named --q0."""
    target = ("--target", "0.5,0.1,0.4", "--json")
    seed_deg = "0,0,0,-90,0,90,45,0.02"
    seed_rad = ",".join(str(v) for v in [0, 0, 0, -np.pi / 2, 0, np.pi / 2, np.pi / 4, 0.02])
    code, out, _ = run(capsys, "ik", str(PANDA), *target, "--q0", seed_deg, "--deg")
    q_deg = json.loads(out)["q"]
    code2, out, _ = run(capsys, "ik", str(PANDA), *target, "--q0", seed_rad)
    assert code == code2 == 0
    assert np.allclose(q_deg, json.loads(out)["q"], atol=1e-9)
    assert q_deg[7] == pytest.approx(0.02)  # the finger stays in metres
    code, _, err = run(capsys, "ik", "puma560", *target, "--q0", "1,2")
    assert code == 2 and err.startswith("error: --q0: puma560 has 6 joints")


def test_fk_outside_limits_warns_or_fails_with_strict(capsys) -> None:
    args = ("fk", "puma560", "--q", "0,45,180,0,45,0", "--deg")
    code, out, err = run(capsys, *args, "--json")
    assert code == 0 and json.loads(out)["outside_limits"] == [
        "joint3 = 180 deg is outside [-135, 135] deg"
    ]
    assert err == (
        "warning: puma560: joint3 = 180 deg is outside [-135, 135] deg; the pose is computed "
        "anyway (--strict makes this an error)\n"
    )
    code, out, err = run(capsys, *args, "--strict")
    assert code == 2 and out == ""
    assert err == "error: --q: puma560: joint3 = 180 deg is outside [-135, 135] deg (--strict)\n"
    code, _, err = run(capsys, "fk", "puma560", "--q", "0,0,3,0,0,0", "--strict")
    assert code == 2 and "joint3 = 3 rad is outside [-2.35619, 2.35619] rad" in err
    code, out, err = run(capsys, "fk", "puma560", "--q", "0,45,-90,0,45,0", "--deg", "--strict")
    assert code == 0 and err == "" and json.loads(run(capsys, *args, "--json")[1])["T"]


def test_ik_text_is_readable(capsys) -> None:
    code, out, _ = run(capsys, "ik", "puma560", "--target", "0.5,-0.15,0.8")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("puma560 tool to (0.5, -0.15, 0.8): solved in ")
    assert lines[1].startswith("q (deg): joint1=") and "array(" not in out and "[" not in out
    q = np.array([float(v) for v in lines[2].split(": ")[1].split()[0].split(",")])
    code, fk_out, _ = run(capsys, "fk", "puma560", "--q", ",".join(map(str, q)), "--json")
    assert np.allclose(np.array(json.loads(fk_out)["T"])[:3, 3], [0.5, -0.15, 0.8], atol=1e-5)
    code, out, err = run(capsys, "ik", "puma560", "--target", "3,0,0")
    assert code == 1 and err == ""
    assert "puma560 tool to (3, 0, 0): no solution within the joint limits after" in out
    assert "misses by 2.2 m (out of reach? try another --q0)" in out
    assert out.splitlines()[1].startswith("closest q (deg): joint1=")


def test_ik_names_the_tool_frame_and_shows_sliding_joints_in_metres(capsys) -> None:
    """A robot without a default frame solves for its last link, and says so; a
    prismatic joint (the Panda's finger) is shown in metres, never in degrees."""
    from robotsim.model import load_robot

    panda = load_robot(str(PANDA))
    assert panda.default_frame is None and panda.tool_frame == panda.link_names[-1]
    finger = panda.joint_names.index("panda_finger_joint1")
    assert panda.prismatic_mask.tolist() == [i == finger for i in range(panda.nq)]
    code, out, _ = run(capsys, "ik", str(PANDA), "--target", "0.4,0.2,0.5")
    head, named, pasted = out.splitlines()
    assert code == 0 and head.startswith(f"panda {panda.tool_frame} to (0.4, 0.2, 0.5): solved")
    assert named.startswith("q (deg, m for sliding joints): panda_joint1=")
    q = np.array([float(v) for v in pasted.split(": ")[1].split()[0].split(",")])
    assert named.endswith(f"panda_finger_joint1={q[finger]:.4g} m")
    assert pasted.startswith("q (rad, m): ")
    code, out, _ = run(capsys, "ik", str(PANDA), "--target", "0.4,0.2,0.5", "--json")
    res = json.loads(out)
    assert res["link"] == panda.tool_frame and res["q_units"][finger] == "m"
    assert res["q_deg"][finger] == pytest.approx(res["q"][finger])
    assert res["q_deg"][0] == pytest.approx(np.degrees(res["q"][0]))


def test_ik_json(capsys) -> None:
    code, out, _ = run(capsys, "ik", "puma560", "--target", "0.5,-0.15,0.8", "--json")
    res = json.loads(out)
    assert code == 0 and res["success"] and res["position_error_m"] < 1e-8


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("fk", "puma560", "--q", "1,2"), "has 6 joints"),
        (("fk", "puma560", "--q", "a,b"), "comma-separated numbers"),
        (("fk", "puma560", "--link", "nose"), "unknown link or frame 'nose'"),
        (("inspect", "no_such_robot"), "unknown robot 'no_such_robot'; valid: "),
        (("ik", "puma560", "--target", "1,2"), "expected 3 or 7 numbers"),
        (("bench", "nothing"), "Invalid value"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, args, message) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 3


def test_console_script_no_traceback(tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ndh: {joints: [{d: oops}]}\n")
    proc = subprocess.run([sys.executable, "-m", "robotsim", "inspect", str(bad)],
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and str(bad) in proc.stderr
    assert "dh.joints[0].d" in proc.stderr and "Traceback" not in proc.stderr


def test_bench_kinematics_quick(capsys) -> None:
    code, out, _ = run(capsys, "bench", "kinematics", "--quick", "--json")
    fig = json.loads(out)
    assert code == 0
    for key in ("fk_batch_cfg_per_s", "fk_single_us"):
        assert fig[key] > 0


def test_inspect_of_thousands_of_joints_prints_plain_columns(capsys, tmp_path) -> None:
    """Past 500 joints the table is plain aligned text (rich lays out ~0.5 ms a row),
    with the same cells, one line per joint."""
    from robotsim.bench.parsing import mjcf_wide

    f = tmp_path / "wide.xml"
    f.write_text(mjcf_wide(1_000))
    code, out, _ = run(capsys, "inspect", str(f))
    assert code == 0
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("joint "))
    assert lines[header].split() == ["joint", "type", "parent", "->", "child", "lower",
                                     "upper", "vel", "mimic"]  # fmt: skip
    rows = lines[header + 2 : header + 2 + 1_000]
    assert rows[0].split()[:5] == ["j0_0", "revolute", "base", "->", "b0_0"]
    assert rows[-1].split()[0] == "j19_49" and len(rows) == 1_000
    assert "-1 deg" in rows[0] and "│" not in out
