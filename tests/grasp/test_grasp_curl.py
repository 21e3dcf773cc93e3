"""A hand whose fingers have a spread joint and separately actuated phalanges (as an
Allegro- or Shadow-like hand from another maker is written: no mimic couplings): the
grasp hand drives each finger by a flexing joint, curls its other phalanges with it,
turns the thumb to face the fingers, and its opening narrows as it closes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from tests.hand_arms import arm_mjcf

from robotsim.grasp.hand import grasp_hands
from robotsim.model.loader import load_robot


def _finger(name: str, y: float, thumb: bool = False) -> str:
    # spread (about the finger's length for the thumb: its opposition), then two
    # phalanges flexing about parallel axes, each driven by its own actuator
    spread_axis = "0 0 1" if thumb else "1 0 0"
    spread_range = "0.2 1.6" if thumb else "-0.4 0.4"
    return f"""
      <body name="{name}_base" pos="0 {y:.3f} 0">
        <joint name="{name}_spread" axis="{spread_axis}" range="{spread_range}"/>
        <geom type="box" size="0.008 0.008 0.006" pos="0 0 0.006"/>
        <body name="{name}_proximal" pos="0 0 0.012">
          <joint name="{name}_flex1" axis="0 1 0" range="-0.2 1.6"/>
          <geom type="capsule" fromto="0 0 0 0 0 0.045" size="0.008"/>
          <body name="{name}_distal" pos="0 0 0.045">
            <joint name="{name}_flex2" axis="0 1 0" range="-0.2 1.6"/>
            <geom type="capsule" fromto="0 0 0 0 0 0.035" size="0.008"/>
          </body>
        </body>
      </body>"""


def _write(tmp_path: Path) -> Path:
    fingers, parts = ("index", "middle", "thumb"), ("spread", "flex1", "flex2")
    joints = [f"{f}_{j}" for f in fingers for j in parts]
    actuators = "\n".join(f'    <position joint="{j}" kp="5" forcerange="-2 2"/>' for j in joints)
    palm = f"""              <geom type="box" size="0.01 0.04 0.02" pos="0 0 -0.02"/>
              {_finger("index", 0.02)}
              {_finger("middle", -0.02)}
              <!-- the thumb faces the fingers with its opposition joint at 1.2 rad -->
              <body name="thumb_mount" pos="0.03 0 -0.01" quat="0.5646 0 0 0.8253">
                <geom type="box" size="0.006 0.006 0.006"/>
                {_finger("thumb", 0.0, thumb=True)}
              </body>"""
    tail = f"""
  <actuator>
{actuators}
  </actuator>"""
    text = arm_mjcf("arm_curl_hand", palm, 0.06, tail, radians=True)
    path = tmp_path / "curl_hand.xml"
    path.write_text(text)
    return path


def test_separately_driven_phalanges_curl_and_the_thumb_faces_the_fingers(tmp_path: Path) -> None:
    h = next(iter(grasp_hands(load_robot(_write(tmp_path))).values()))
    m = h.model
    assert h.n_fingers == 3
    # each finger is driven by a flexing joint, never by its spread joint ...
    assert all("flex" in j for j in h.finger_joints), h.finger_joints
    # ... and its other phalanx follows the drive
    following = {c[0] for c in h.coupled}
    assert len(following) == 3 and all("flex" in j for j in following)
    for j, i, lo, hi in h.coupled:
        # a phalanx closes the way its drive does (both flex towards the palm)
        d = h.drive_joints[i]
        assert np.sign(hi - lo) == np.sign(h.closed_q[i] - h.open_q[i]), (j, d)
    # the thumb is the finger across from the others, turned to face them (where it
    # waits, at the lower end of its opposition range, it would close 1 rad askew;
    # its range is sampled 0.175 rad apart)
    assert h.finger_joints[h.thumb] == "thumb_flex1"
    assert abs(h.home[m.joint_index("thumb_spread")] - 1.2) < 0.3
    assert h.home[m.joint_index("index_spread")] == 0.0
    # the opening narrows monotonically from wide open to nearly shut
    assert np.all(np.diff(h.widths) <= 1e-4)
    assert h.max_width > 0.06 and h.min_width < 0.3 * h.max_width
    # the closure moves every driven joint and phalanx (the spreads stay put)
    q0, q1 = h.q_fingers(0.0, h.home), h.q_fingers(1.0, h.home)
    moved = {m.joint_names[i] for i in np.flatnonzero(np.abs(q1 - q0) > 1e-9)}
    assert moved == set(h.drive_joints) | following
