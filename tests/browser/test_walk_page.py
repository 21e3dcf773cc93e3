"""A humanoid walked from the page's keyboard (issue 23 item 4), in a real Chromium: a
walk scenario open, the Walk tab's Keyboard ticked, W held in the page walks the robot
forward in MuJoCo (the studio's clock starts by itself), its planned footsteps are in
the scene; W let go, it stops and stands; Keyboard ticked off and on, S steers it
back (the new key endpoint gets its own page script)."""

from __future__ import annotations

import time

import pytest
from browser_helpers import UI_TIMEOUT_MS, close_notifications, wait_for

from robotsim.studio.walk.driver import WalkDriver

pytestmark = pytest.mark.browser


def tick(page, box, panel, want: bool, studio) -> None:  # type: ignore[no-untyped-def]
    """Click the Keyboard box until the page shows it ``want`` (a click lost on a busy
    page shows there at once, and is made again), then wait for the studio to have the
    value, however long a loaded machine takes to deliver it: no second click that
    would undo a slow first one."""
    shown = page.locator(f'input[type="checkbox"][id="{panel.keys._impl.uuid}"]')
    deadline = time.monotonic() + 60
    while shown.is_checked() is not want:
        assert time.monotonic() < deadline, f"Keyboard never showed {want}: {studio.errors}"
        box.click()
        until = time.monotonic() + 5
        while shown.is_checked() is not want and time.monotonic() < until:
            time.sleep(0.05)
    wait_for(lambda: panel.keys.value is want, f"the studio to get Keyboard {want}")


def test_w_held_in_the_page_walks_the_humanoid_forward(page, studio, tmp_path, artifacts):
    f = tmp_path / "walk_keys.yaml"  # no scheduled commands: the page steers
    f.write_text(
        "format: robotsim-scenario/1\nkind: walk\nname: walk_keys\nrobot: humanoid17\n"
        "duration: 120\n"
    )
    studio.open(f)
    d = studio.driver
    assert isinstance(d, WalkDriver) and not studio.playing
    panel = studio.panels["walk"]
    try:
        page.get_by_role("tab", name="Walk").click()
        page.get_by_text("planned steps", exact=False).first.wait_for(timeout=UI_TIMEOUT_MS)
        close_notifications(page)
        box = page.get_by_text("Keyboard", exact=True).locator("visible=true").first
        tick(page, box, panel, True, studio)
        wait_for(lambda: panel.keyboard is not None, "the key endpoint")
        page.mouse.click(500, 400)  # focus the 3D view, as a person would
        wait_for(lambda: panel.keyboard.events > 0, "the page script to reach the endpoint")
        T0 = d.sim.base.pose.copy()
        page.keyboard.down("w")
        wait_for(lambda: d.velocity[0] > 0, "the forward command")
        assert d.velocity == pytest.approx((d.cruise[0], 0.0, 0.0))
        wait_for(lambda: studio.playing, "the clock to start")
        wait_for(lambda: d.sim.t > 3.0, "3 s of walking in physics", timeout=180)
        page.keyboard.up("w")
        wait_for(lambda: d.velocity == (0.0, 0.0, 0.0), "the stop command")
        T1 = d.sim.base.pose
        step = T1[:2, 3] - T0[:2, 3]
        heading = T0[:2, 0]  # the robot's forward axis at the start
        along = float(step @ heading)
        assert not d.sim.fell, d.sim.reason
        assert along > 0.05 and abs(step[0] * heading[1] - step[1] * heading[0]) < 0.5 * along
        names = [h.name for h in d._footprints]
        assert names and all(n.startswith("/walk/footstep") for n in names), names
        page.screenshot(path=str(artifacts / "40_walk_from_the_page_keys.png"))
        t_stop = d.sim.t
        wait_for(lambda: d.sim.t > t_stop + 3.0, "3 s more", timeout=180)
        assert not d.driver.engine.walking and not d.sim.fell
        # Keyboard unticked and ticked again: a new key endpoint (port, token), whose
        # own page script takes the keys (the first one's closed endpoint is let go)
        first = panel.keyboard
        tick(page, box, panel, False, studio)
        # the endpoint closed before the box is ticked again (GUI callbacks run on
        # viser's threads: the panel makes the last one win, this makes it the "on")
        wait_for(lambda: panel.keyboard is None, "the first key endpoint to close")
        tick(page, box, panel, True, studio)
        wait_for(lambda: panel.keyboard not in (None, first), "the new key endpoint")
        page.mouse.click(500, 400)
        # its script posts the page's focus once installed: a key pressed before would be
        # taken by the first endpoint's script only
        wait_for(lambda: panel.keyboard.events > 0, "the new page script to reach its endpoint")
        page.keyboard.down("s")
        wait_for(lambda: d.velocity[0] < 0, "the backward command from the new endpoint")
        page.keyboard.up("s")
        wait_for(lambda: d.velocity == (0.0, 0.0, 0.0), "the stop command")
    finally:
        page.keyboard.up("w")
        page.keyboard.up("s")
        panel.keys.value = False
        panel.use_keyboard(False)
        studio.play(False)
        studio.load_default()
