"""Another maker's gripper whose fingers are four-bar linkages closed by MJCF
``<equality><connect>`` (as adaptive two-finger grippers are written): robotsim keeps the
tree, so the loop is listed on the model and in the profile, and grasp refuses the gripper
with one line instead of planning with a linkage that is not there."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.hand_arms import arm_mjcf

from robotsim.errors import InputError, ModelWarning
from robotsim.grasp.hand import grasp_hands
from robotsim.model.loader import load_robot
from robotsim.model.mjcf import model_from_mjmodel
from robotsim.profile.infer import infer_profile


def _finger(side: str, y: float, sign: int) -> str:
    # driver and rocker from the palm; the coupler on the driver meets the follower
    # (on the rocker) at the <connect> anchor: a four-bar per finger
    return f"""
        <body name="{side}_driver" pos="0 {y:.3f} 0.02">
          <joint name="{side}_driver_joint" axis="{sign} 0 0" range="0 0.8"/>
          <geom type="capsule" fromto="0 0 0 0 {0.01 * sign:.3f} 0.03" size="0.004"/>
          <body name="{side}_coupler" pos="0 {0.01 * sign:.3f} 0.03">
            <joint name="{side}_coupler_joint" axis="{sign} 0 0" range="-1.5 0"/>
            <geom type="capsule" fromto="0 0 0 0 0 0.02" size="0.004"/>
          </body>
        </body>
        <body name="{side}_rocker" pos="0 {y - 0.01 * sign:.3f} 0.03">
          <joint name="{side}_rocker_joint" axis="{sign} 0 0" range="-0.3 0.8"/>
          <geom type="capsule" fromto="0 0 0 0 {0.01 * sign:.3f} 0.03" size="0.004"/>
          <body name="{side}_follower" pos="0 {0.01 * sign:.3f} 0.03">
            <joint name="{side}_follower_joint" axis="{sign} 0 0" range="-0.9 0.9"/>
            <geom type="box" pos="0 {-0.004 * sign:.3f} 0.02" size="0.01 0.003 0.02"/>
          </body>
        </body>"""


def _write(tmp_path: Path, loops: bool) -> Path:
    eq = (
        """
  <equality>
    <connect body1="right_follower" body2="right_coupler" anchor="0 0 0"/>
    <connect body1="left_follower" body2="left_coupler" anchor="0 0 0"/>
    <joint joint1="right_driver_joint" joint2="left_driver_joint"/>
  </equality>"""
        if loops
        else """
  <equality>
    <joint joint1="right_driver_joint" joint2="left_driver_joint"/>
  </equality>"""
    )
    palm = f"""              <geom type="box" size="0.03 0.045 0.01"/>
              {_finger("right", 0.03, 1)}
              {_finger("left", -0.03, -1)}"""
    tail = f"""{eq}
  <actuator>
    <position joint="right_driver_joint" kp="20" forcerange="-10 10"/>
  </actuator>"""
    text = arm_mjcf("arm_linkage", palm, 0.08, tail)
    path = tmp_path / ("linkage.xml" if loops else "open.xml")
    path.write_text(text)
    return path


def test_connect_loops_are_listed_by_both_readers(tmp_path: Path) -> None:
    import mujoco

    path = _write(tmp_path, loops=True)
    want = [["right_follower", "right_coupler"], ["left_follower", "left_coupler"]]
    with pytest.warns(ModelWarning, match=r"2 closed kinematic loop\(s\) \(<connect> right_"):
        ours = load_robot(path)
    assert "mujoco" not in str(ours.metadata.get("reader", "")), ours.metadata.get("reader")
    assert [lp["links"] for lp in ours.metadata["closed_loops"]] == want
    theirs = model_from_mjmodel(mujoco.MjModel.from_xml_path(str(path)), "arm_linkage")
    assert [lp["links"] for lp in theirs.metadata["closed_loops"]] == want
    notes = infer_profile(ours).notes
    assert sum("closed kinematic loop <connect>" in n for n in notes) == 2
    assert "closed_loops" not in load_robot(_write(tmp_path, loops=False)).metadata


@pytest.mark.filterwarnings("ignore::robotsim.errors.ModelWarning")  # the loops' load line
def test_grasp_refuses_a_gripper_on_closed_linkages(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        grasp_hands(load_robot(_write(tmp_path, loops=True)))
    msg = str(err.value)
    assert "\n" not in msg and "linkage.xml" in msg
    assert "<equality><connect> joins 'right_follower' and 'right_coupler'" in msg
    # the same gripper without the loops is planned as open chains
    hands = grasp_hands(load_robot(_write(tmp_path, loops=False)))
    assert len(hands) == 1 and next(iter(hands.values())).max_width > 0
