"""Pause, Step and the time slider in a real page: Pause stops within a frame or two of
the time the page showed when it was clicked (a page gets the latest state as it draws),
Step advances one tick, and the slider scrubs a recorded run (soccer) and stops the
clearance run inside the collision."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from browser_helpers import UI_TIMEOUT_MS

pytestmark = pytest.mark.browser

_READOUT = re.compile(r"t = ([0-9.]+) s · (playing|paused)")


def wait_for(cond, timeout=60.0, what="condition"):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def shown(page) -> tuple[float, str]:
    """The readout's time (s) and state, as the page shows it now."""
    m = _READOUT.search(page.inner_text("body"))
    assert m, "no time readout on the page"
    return float(m.group(1)), m.group(2)


def click_in_page(page, name: str) -> float:
    """Click button ``name`` from a script in the page and return the time the readout
    showed at that moment (what a person clicking saw)."""
    text = page.evaluate(
        """(name) => {
            const m = document.body.innerText.match(/t = ([0-9.]+) s · (playing|paused)/);
            const b = [...document.querySelectorAll('button')]
                .find((e) => e.innerText.trim() === name);
            b.click();
            return m ? m[1] : null;
        }""",
        name,
    )
    assert text is not None
    return float(text)


def time_input(page):
    """The number field beside the time slider."""
    return page.locator(
        "xpath=//label[normalize-space()='Time (s)']"
        "/ancestor::div[contains(@class, 'mantine-Flex-root')][1]//input"
    ).last


def wait_for_slider_max(page, top: float) -> None:
    """Until the page's time slider reaches ``top`` s (a value typed beyond the page's
    current end would be clamped to it)."""
    thumb = page.locator(
        "xpath=//label[normalize-space()='Time (s)']"
        "/ancestor::div[contains(@class, 'mantine-Flex-root')][1]//*[@role='slider']"
    ).first
    wait_for(
        lambda: abs(float(thumb.get_attribute("aria-valuemax") or "nan") - top) < 1e-6,
        what=f"the page's slider to reach {top} s",
    )


def test_pause_stops_at_the_time_the_page_shows(page, studio, artifacts):
    studio.open("soccer_obstacles")
    page.get_by_text("scenario soccer_obstacles").first.wait_for(timeout=UI_TIMEOUT_MS)
    click_in_page(page, "Play")
    wait_for(lambda: studio.clock.t > 1.5, what="the robot to drive")
    page.wait_for_function(
        "() => /t = ([1-9][0-9]*|[0-9]*[.][0-9]+) s · playing/.test(document.body.innerText)"
        " && parseFloat(document.body.innerText.match(/t = ([0-9.]+) s · playing/)[1]) > 1.0",
        timeout=UI_TIMEOUT_MS,
    )
    rates = studio.page_frame_rates()
    seen = click_in_page(page, "Pause")
    wait_for(lambda: not studio.playing, what="pause")
    paused_at = studio.time
    # The page is sent a state only once it shows the last one (frames dropped, the
    # simulation on the wall clock): it is a frame or two behind, plus its readout's
    # refresh every 0.25 s of wall time; never seconds behind.
    assert rates and min(rates) > 0 and studio.pacer.answers > 0
    assert -1e-9 <= paused_at - seen <= 0.3 + 2 / min(rates), (seen, paused_at, rates)
    page.wait_for_function(
        f"() => document.body.innerText.includes('t = {paused_at:.2f} s · paused')",
        timeout=UI_TIMEOUT_MS,
    )
    page.screenshot(path=str(artifacts / "20_paused_where_shown.png"))

    steps = studio.clock.steps
    click_in_page(page, "Step")
    wait_for(lambda: studio.clock.steps == steps + 1, what="one step")
    page.wait_for_timeout(500)
    assert studio.clock.steps == steps + 1 and not studio.playing
    after = (steps + 1) * studio.dt
    page.wait_for_function(
        f"() => document.body.innerText.includes('t = {after:.2f} s · paused')",
        timeout=UI_TIMEOUT_MS,
    )


def test_slider_scrubs_the_recorded_soccer_run(page, studio, artifacts):
    # its own recorded run: under xdist the pause test may have run on another worker
    studio.open("soccer_obstacles")
    page.get_by_text("scenario soccer_obstacles").first.wait_for(timeout=UI_TIMEOUT_MS)
    for _ in range(90):  # 1.5 s of driving
        studio.step()
    view = studio.robot("omni")
    d = studio.driver
    end = studio.recorded_end()
    assert end > 1.0
    wait_for_slider_max(page, round(end, 2))
    field = time_input(page)
    field.fill("0.5")
    field.press("Enter")
    sim = studio.panels["sim"]
    wait_for(lambda: abs(studio.time - 0.5) < studio.dt and not sim.seeking, what="the scrub")
    np.testing.assert_allclose(view.link_poses(), d.log.at(studio.time)["omni"], atol=1e-12)
    assert studio.recorded_end() == end  # scrubbing simulates nothing
    page.wait_for_function(
        "() => document.body.innerText.includes('t = 0.50 s · paused')", timeout=UI_TIMEOUT_MS
    )
    page.wait_for_timeout(1000)
    page.screenshot(path=str(artifacts / "21_soccer_scrubbed_to_0_5_s.png"))


def test_slider_stops_the_clearance_run_inside_the_collision(page, studio, artifacts):
    studio.open("three_puma_clearance")
    page.get_by_text("scenario three_puma_clearance").first.wait_for(timeout=UI_TIMEOUT_MS)
    d = studio.driver
    a, b = d.result.pairs["A-B"].collision_intervals[0]
    mid = 0.5 * (a + b)
    wait_for(lambda: not studio.panels["sim"].slider.disabled, what="the slider")
    top = round(d.end, 2)
    wait_for_slider_max(page, top)
    # Click the slider's track where the collision is, as a person dragging it would.
    track = page.locator(
        "xpath=//label[normalize-space()='Time (s)']"
        "/ancestor::div[contains(@class, 'mantine-Flex-root')][1]"
        "//div[contains(@class, 'mantine-Slider-root')]"
    ).first
    box = track.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] * mid / top, box["y"] + box["height"] / 2)
    sim = studio.panels["sim"]
    wait_for(lambda: studio.time > 0.0 and not sim.seeking, what="the scrub into the collision")
    assert a <= studio.time <= b, (a, studio.time, b)
    assert d.volume_rgb["A", "link3"] == (220, 40, 40) == d.volume_rgb["B", "link3"]
    page.get_by_role("tab", name="Clearance").click()
    page.get_by_text("IN CONTACT").first.wait_for(timeout=UI_TIMEOUT_MS)
    page.wait_for_timeout(1500)
    page.screenshot(path=str(artifacts / "22_clearance_scrubbed_into_collision.png"))
