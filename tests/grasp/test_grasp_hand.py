"""What the planner measures of a hand, from the model alone: the Panda's parallel
gripper (a mimic finger, flat pads) and the three-finger hands of dual_arm_hands."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.errors import InputError, UnknownNameError
from robotsim.grasp.hand import grasp_hands, pick_hand
from robotsim.model import RobotBuilder
from robotsim.model.geometry import Box


def test_panda_gripper(panda_hand) -> None:  # type: ignore[no-untyped-def]
    h = panda_hand
    assert h.n_fingers == 2 and h.drive_joints == ("panda_finger_joint1",)
    np.testing.assert_allclose([h.open_q[0], h.closed_q[0]], [0.04, 0.0])  # the joint limits
    # the pads meet when closed and stand 2 x 0.04 m apart when open
    assert h.max_width == pytest.approx(0.08, abs=0.003)
    assert h.min_width == pytest.approx(0.0, abs=0.003)
    assert h.grip_force == pytest.approx(20.0)  # the finger joint's effort (N)
    T = h.T_tool_grasp
    assert abs(T[:3, 0] @ T[:3, 2]) < 1e-12  # closing axis across the approach
    # the pads close along the closing axis, symmetric about the grasp centre
    travel = h.paths[:, -1] - h.paths[:, 0]
    np.testing.assert_allclose(travel[0] / np.linalg.norm(travel[0]), T[:3, 0], atol=1e-6)
    assert len(h.pad_offsets) == 3  # flat pads touch along their length


def test_three_finger_hands(dual_hands) -> None:  # type: ignore[no-untyped-def]
    assert set(dual_hands) == {"L_hand", "R_hand"}
    h = dual_hands["L_hand"]
    assert h.n_fingers == 3
    assert h.tips[h.thumb] == "L_tip3"  # the finger that opposes the other two
    np.testing.assert_allclose(h.tip_radius, 0.01)  # the fingertip spheres
    assert len(h.pad_offsets) == 1
    assert 0.05 < h.max_width < 0.25
    # revolute fingers: force = effort over the lever from the joint axis to the tip
    assert 1.0 < h.grip_force < 50.0
    assert pick_hand(dual_hands, "R_hand").name == "R_hand"
    with pytest.raises(UnknownNameError, match="unknown hand 'X'; valid: L_hand, R_hand"):
        pick_hand(dual_hands, "X")


def test_a_robot_without_a_gripper_is_told_so() -> None:
    b = RobotBuilder("stick")
    b.link("base", [Box((0.1, 0.1, 0.1))])
    b.link("arm", [Box((0.05, 0.05, 0.3))])
    b.joint("j1", "revolute", "base", "arm", lower=-1, upper=1)
    with pytest.raises(InputError, match="no arm with a hand or gripper in its profile"):
        grasp_hands(b.build())


def test_thumb_and_fingers_squeeze_equally(dual_hands, panda_hand) -> None:  # type: ignore[no-untyped-def]
    """Three fingers at full effort push the object into the one thumb: the drives'
    shares make the thumb's force equal the opposing fingers' sum (each finger's force
    is its effort over its measured lever)."""
    h = dual_hands["L_hand"]
    share = h.balanced_effort()
    f = h.finger_force
    assert f.shape == (3,) and np.all(f > 0)
    t = h.thumb
    thumb = f[t] * share[h.finger_joints[t]]
    others = sum(f[k] * share[h.finger_joints[k]] for k in range(3) if k != t)
    assert thumb == pytest.approx(others, rel=1e-9)
    assert max(share.values()) == pytest.approx(1.0)  # the weaker side at full effort
    # before balancing, the two fingers outpush the thumb (the measured imbalance)
    assert sum(f[k] for k in range(3) if k != t) > 1.5 * f[t]
    # one joint moving both fingers of a parallel gripper: already balanced
    assert panda_hand.balanced_effort() == {d: 1.0 for d in panda_hand.drive_joints}
