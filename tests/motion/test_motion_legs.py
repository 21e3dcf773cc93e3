"""Legs understood for gait generation (issue 22.4): the knee found by structure and its
bending direction from its limits (or the geometry), leg IK started from a bent knee
for 5- and 6-joint legs in any joint order, misses reported in metres and degrees with
advice that helps, and a walk for an H1-sized MJCF humanoid."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.model import load_robot
from robotsim.motion.gait import bent_leg, carries_sideways, knee_of, leg_ik, walk_legs
from robotsim.spatial import inv_T
from tests.humanoid_files import write_h1_like_mjcf, write_nao_like_urdf, write_op3_like_mjcf


def _legs(model):
    m, soles, legs = walk_legs(model)
    return m, soles, [[m.joint_index(n) for n in lg] for lg in legs]


def test_the_knee_and_its_bend_come_from_structure_and_limits(tmp_path: Path) -> None:
    h1, soles, cols = _legs(load_robot(str(write_h1_like_mjcf(tmp_path / "h1.xml"))))
    for frame, leg in zip(soles, cols):
        knee = knee_of(h1, leg, frame)
        assert knee is not None and h1.joint_names[knee.col].endswith("_knee")
        assert knee.bend == 1.0  # range -0.26..2.05: it folds the positive way
        assert 0.4 < knee.thigh < 0.43  # 0.4 m down, the hip offsets across
    # OP3's joints have no limits: the knee folds the way that swings the sole back,
    # whichever way its axis points (the right knee's axis is mirrored)
    op3, soles, cols = _legs(load_robot(str(write_op3_like_mjcf(tmp_path / "op3.xml"))))
    bends = []
    for frame, leg in zip(soles, cols):
        knee = knee_of(op3, leg, frame)
        assert knee is not None and op3.joint_names[knee.col].endswith("_knee")
        q = op3.zero()
        q[knee.col] = 0.3 * knee.bend
        assert op3.fk(q, frame)[0, 3] < op3.fk(op3.zero(), frame)[0, 3] - 0.01
        bends.append(knee.bend)
    assert bends[0] == -bends[1]


def test_h1_leg_ik_needs_the_bent_start(tmp_path: Path) -> None:
    """The crouch target the walk starts with: from straight knees the IK runs the knee
    into its limit (the round-2 failure); from the bent knee it lands exactly."""
    h1, soles, cols = _legs(load_robot(str(write_h1_like_mjcf(tmp_path / "h1.xml"))))
    frame, leg = soles[0], cols[0]
    T = h1.fk(h1.zero(), frame)
    T_body = np.eye(4)
    T_body[2, 3] = 0.83 * -T[2, 3]  # the body 17 % lower than standing
    target = inv_T(T_body) @ np.array(
        [[1, 0, 0, 0], [0, 1, 0, T[1, 3]], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=float
    )
    straight = leg_ik(h1, frame, target, h1.zero(), leg)
    assert not straight.reached
    bent = leg_ik(h1, frame, target, bent_leg(h1, h1.zero(), leg, knee_of(h1, leg, frame),
                                             frame, target), leg)  # fmt: skip
    assert bent.reached and bent.position_error < 1e-9 and bent.rotation_error < 1e-9
    assert bent.q[leg[3]] > 0.3  # the knee folded its own way


@pytest.mark.slow
def test_h1_gets_a_walk_that_plays(tmp_path: Path, capsys) -> None:
    h1 = write_h1_like_mjcf(tmp_path / "h1.xml")
    walk = tmp_path / "walk.yaml"
    argv = ["motion", "gait", "--robot", str(h1), "--steps", "6", "--step-length", "0.1",
            "--out", str(walk), "--json"]  # fmt: skip
    assert main(argv) == 0
    info = json.loads(capsys.readouterr().out)
    # 5-joint legs without ankle roll: the soles stay under the hips sideways, so the CoM
    # cannot go over one foot: a walk, said not to be statically stable
    assert info["statically_stable"] is False and "not statically stable" in info["note"]
    assert main(["motion", "play", str(walk), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["support_switches"] >= 5
    assert s["max_stance_slip_m"] <= 1e-9 and s["max_penetration_m"] <= 1e-3
    assert s["distance_walked_m"] == pytest.approx(5 * 0.1, abs=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("order", [(2, 1, 0, 3, 5, 4), (1, 2, 0, 3, 4, 5)], ids=["pry-ra", "rpy"])
def test_six_joint_legs_in_any_order_walk_statically(order, tmp_path: Path, capsys) -> None:
    """NAO's legs with the hip joints and the ankle joints in other orders: the knee is
    still found, the walk solves and keeps the CoM over the stance sole."""
    nao = write_nao_like_urdf(tmp_path / "nao.urdf", leg_order=order, mimic_hip=False)
    m, soles, cols = _legs(load_robot(str(nao)))
    assert carries_sideways(m, tuple(soles), tuple(cols))
    walk = tmp_path / "walk.yaml"
    argv = ["motion", "gait", "--robot", str(nao), "--steps", "4", "--step-length", "0.03",
            "--out", str(walk), "--json"]  # fmt: skip
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["statically_stable"] is True
    assert main(["motion", "play", str(walk), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["support_switches"] >= 3 and s["max_stance_slip_m"] <= 1e-9
    assert s["min_support_margin_m"] > 0.005


def test_a_miss_says_metres_and_degrees_and_the_advice_gets_there(tmp_path: Path, capsys):
    """make-walk too high for humanoid17: the error gives the position miss (m) and the
    rotation miss (deg) apart and a height; following the advice walks within three
    tries."""
    out = tmp_path / "walk.yaml"
    height = 0.5
    for _ in range(3):
        code = main(["motion", "make-walk", str(out), "--height", str(height)])
        err = capsys.readouterr().err
        if code == 0:
            break
        assert re.search(r"misses by [0-9.e-]+ m and [0-9.e-]+ deg", err), err
        found = re.search(r"give a lower --height \(about ([0-9.]+) m\)", err)
        assert found, err
        assert float(found.group(1)) < height
        height = float(found.group(1))
    assert code == 0 and height < 0.3
