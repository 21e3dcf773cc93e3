"""The page keyboard changes the studio's live parameters (issue 13 item 9): after
ticking Keyboard under Live parameters, M raises the motion speed level and ] doubles
the time scale, the page shows both, and a key the mapping does not bind (W) is left to
the camera (never sent to the key endpoint)."""

from __future__ import annotations

import time

import pytest
from browser_helpers import UI_TIMEOUT_MS

pytestmark = pytest.mark.browser


def wait_for(cond, what: str, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_m_and_bracket_change_the_live_parameters_and_w_stays_with_the_camera(
    page, studio, artifacts
):
    live = studio.panels["live"]
    page.get_by_text("Live parameters", exact=True).first.click()
    box = page.get_by_text("Keyboard", exact=True).first
    box.wait_for(state="visible")
    deadline = time.monotonic() + 60
    while not live.use_keys.value:  # a click lost while the folder opens is made again
        assert time.monotonic() < deadline, f"the Keyboard tick never arrived: {studio.errors}"
        box.click()
        wait_until = time.monotonic() + 10
        while not live.use_keys.value and time.monotonic() < wait_until:
            time.sleep(0.05)
    wait_for(lambda: live.keyboard is not None, f"the key endpoint ({studio.errors})")
    page.get_by_text("keys: M speed level +1", exact=False).first.wait_for(timeout=UI_TIMEOUT_MS)
    page.mouse.click(640, 400)  # focus the 3D view, as a person would
    wait_for(lambda: live.keyboard.events > 0, "the page script to reach the endpoint")
    try:
        page.keyboard.press("m")
        wait_for(lambda: studio.params.speed_level_shift == 1, "the speed level shift")
        page.keyboard.press("]")
        wait_for(lambda: studio.params.time_scale == 2.0, "the time scale")
        # the readout (params.status()), not the key hints
        readout = "time ×2 · gains ×1 · max speed ×1 · speed level +1"
        page.get_by_text(readout, exact=False).first.wait_for(timeout=UI_TIMEOUT_MS)
        sent = live.keyboard.events
        page.keyboard.press("w")
        page.wait_for_timeout(1000)
        assert live.keyboard.events == sent, "an unbound key reached the endpoint"
        page.screenshot(path=str(artifacts / "30_live_parameters_from_the_page_keys.png"))
    finally:
        studio.params.speed_level_shift = 0.0
        studio.params.time_scale = 1.0
