"""The studio's tab bar stays on one row at 1920x1080 (issue 29, item 6: it wrapped to
two rows), with every kind's tab present; a narrow window scrolls the row instead of
wrapping it."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

ROWS = """() => {
    const tabs = [...document.querySelectorAll('[role=tab]')].filter((e) => e.offsetParent);
    const bar = tabs.length ? tabs[0].parentElement.getBoundingClientRect() : null;
    return {labels: tabs.map((e) => e.textContent.trim()),
            hidden: tabs.filter((e) => e.getBoundingClientRect().right > bar.right + 0.5)
                        .map((e) => e.textContent.trim()),
            tops: [...new Set(tabs.map((e) => Math.round(e.getBoundingClientRect().top)))]};
}"""


@pytest.mark.parametrize("width,height", [(1920, 1080), (1280, 720)])
def test_the_tab_bar_is_one_row(page, studio, artifacts, width, height):
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_timeout(500)
    got = page.evaluate(ROWS)
    assert got["labels"] == [t.lower().capitalize() for t in got["labels"]]  # labels only
    assert {"Pose", "Motion", "Open", "View", "Sweep", "Clearance"} <= set(got["labels"])
    assert len(got["tops"]) == 1, got
    if width >= 1920:  # all of them in view, none scrolled out
        assert got["hidden"] == [], got
    page.screenshot(path=str(artifacts / f"23_tab_bar_{width}x{height}.png"))
