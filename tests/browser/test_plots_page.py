"""The Mobile tab's plots in a real page: time in seconds with a labelled axis, never
calendar dates (uPlot's default for an x axis)."""

from __future__ import annotations

import pytest
from browser_helpers import UI_TIMEOUT_MS

pytestmark = pytest.mark.browser


def test_mobile_plots_show_seconds_not_dates(page, studio, artifacts):
    studio.open("soccer_obstacles")
    for _ in range(90):  # 1.5 s of driving
        studio.step()
    panel = studio.panels["mobile"]
    panel.refresh(force=True)
    page.get_by_role("tab", name="Mobile").click()
    legend = page.locator(".u-legend").first
    legend.wait_for(timeout=UI_TIMEOUT_MS)
    legend.scroll_into_view_if_needed()
    page.get_by_text("time (s)").first.wait_for(timeout=UI_TIMEOUT_MS)
    page.wait_for_timeout(1500)
    text = page.locator(".u-legend").all_inner_texts()
    assert any("time (s)" in t for t in text) and any("to goal (m)" in t for t in text)
    assert not any(d in " ".join(text) for d in ("1970", "1/1/70", "am", "pm")), text
    page.screenshot(path=str(artifacts / "23_mobile_plots_in_seconds.png"))
