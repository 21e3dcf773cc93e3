"""A walk scenario in the studio: the physics walk follows the clock, the Walk panel's
sliders steer it, the planned footsteps are drawn, stop stands it still."""

from __future__ import annotations

import pytest

from robotsim.shipped import shipped_dir
from robotsim.studio.walk.driver import WalkDriver

WALK = shipped_dir("scenario") / "walk_commands.yaml"

pytestmark = pytest.mark.slow


@pytest.fixture
def walking(studio, tmp_path):
    f = tmp_path / "walk_here.yaml"  # no scheduled commands: the panel steers
    f.write_text(
        "format: robotsim-scenario/1\nkind: walk\nname: walk_here\nrobot: humanoid17\n"
        "duration: 60\n"
    )
    studio.open(f)
    yield studio
    studio.clear()


def test_the_shipped_walk_opens(studio):
    studio.open(WALK)
    assert isinstance(studio.driver, WalkDriver) and len(studio.driver.commands) == 4
    studio.clear()


def test_the_walk_follows_the_clock_and_the_sliders(walking):
    d = walking.driver
    assert isinstance(d, WalkDriver)
    panel = walking.panels["walk"]
    assert "humanoid17" in panel.status.content
    panel.vx.value = 0.1  # steer from the panel (before the file's first command)
    panel.send_sliders()
    for _ in range(150):  # 2.5 s of studio ticks
        walking.tick()
    walking.push()
    sim = d.sim
    assert sim.t == pytest.approx(walking.clock.t, abs=d.sim.dt + 1e-9)
    assert not sim.fell
    x0 = d.sim.base.pose[0, 3]
    assert d._footprints, "the planned footsteps are drawn"
    view = walking.robots["humanoid17"]
    assert abs(view.scene_link_poses()[0, 0] - x0) < 1e-9  # the view shows the physics
    for _ in range(120):
        walking.tick()
    assert d.sim.base.pose[0, 3] > x0 + 0.05  # it walked on
    panel.stop.value = None  # the Stop button's handler
    for s in (panel.vx, panel.vy, panel.wz):
        s.value = 0
    panel.send_sliders()
    for _ in range(240):
        walking.tick()
    assert not d.driver.engine.walking and not d.sim.fell
    walking.reset()
    assert d.sim.t == 0.0
