"""Force and touch sensors on a profile's groups: a humanoid's feet (at their sole
frames), a hand's fingertips (at their tip frames); inferred from the robot, not from
names."""

from __future__ import annotations

import numpy as np

from robotsim.model import load_robot
from robotsim.profile.resolve import resolve_profile
from robotsim.sensors import mount_sensors
from tests.sensors.worlds import specs


def test_feet_and_fingertips_come_from_the_profile() -> None:
    humanoid = load_robot("humanoid17")
    feet = mount_sensors("h", humanoid, specs({"type": "force"}), 0.002)[0]
    prof = resolve_profile(humanoid)
    assert [s.link for s in feet.sites] == [f.link for f in prof.feet]
    for site, foot in zip(feet.sites, prof.feet):
        assert site.body == f"h/{foot.link}"
        np.testing.assert_allclose(site.T_link_sensor, foot.sole.T, atol=1e-12)  # the sole
    hands = load_robot("dual_arm_hands")
    tips = mount_sensors("a", hands, specs({"type": "touch"}), 0.002)[0]
    want = [t.link for g in resolve_profile(hands).grippers for t in g.fingertips]
    assert [s.link for s in tips.sites] == want and len(want) == 6
