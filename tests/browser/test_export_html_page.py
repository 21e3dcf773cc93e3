"""``robotsim export RUN --format html`` in headless Chromium: the page loads from a
file with no other request, draws the run in WebGL, plays and scrubs, and the poses
it draws are the run store's (float64, to 1e-9 m)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from browser_helpers import UI_TIMEOUT_MS

from robotsim.cli import main
from robotsim.export import load_replay
from robotsim.recording import RunStore


def _wait(page, expr: str) -> None:
    """Poll ``expr`` until true (Playwright's wait_for_function evaluates strings, which
    the page's Content-Security-Policy forbids, as it should)."""
    deadline = time.monotonic() + UI_TIMEOUT_MS / 1000
    while not page.evaluate(f"() => Boolean({expr})"):
        assert time.monotonic() < deadline, f"timed out waiting for {expr}"
        page.wait_for_timeout(100)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("html")
    assert main(["run", "soccer_obstacles", "--out", str(out), "--duration", "2"]) == 0
    page = out / "replay.html"
    assert main(["export", "last", "--db", str(out), "--format", "html", "--out", str(page)]) == 0
    return out / "runs.sqlite", page


def test_the_page_replays_the_run_offline_and_exactly(recorded, browser, artifacts) -> None:
    db, page_file = recorded
    ctx = browser.new_context(viewport={"width": 1100, "height": 650})
    try:
        page = ctx.new_page()
        requests: list[str] = []
        errors: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        url = page_file.resolve().as_uri()
        page.goto(url)
        _wait(page, "window.robotsim && window.robotsim.ready")
        assert requests == [url]  # the document itself, nothing else
        assert page.evaluate("() => window.robotsim.webgl") is True
        assert errors == []

        with RunStore(db) as store:
            replay = load_replay(store, "last")
        omni = replay.track("omni")
        worst = 0.0
        for k in (0, 17, len(omni.t) - 1):
            page.evaluate(f"() => window.robotsim.setTime({float(omni.t[k])!r})")
            poses = page.evaluate("() => window.robotsim.poses()")
            for i, frame in enumerate(omni.frames):
                got = np.array(poses[frame.name])
                worst = max(worst, float(np.abs(got - omni.T_world[k, i]).max()))
            assert np.allclose(poses["obstacle2"], replay.track("obstacle2").T_world[0, 0])
        assert worst < 1e-9, worst

        # play, then scrub back: the clock follows
        page.evaluate("() => window.robotsim.setTime(0)")
        page.click("#play")
        _wait(page, "window.robotsim.time() > 0.3")
        page.click("#play")  # pause
        page.fill("#scrub", "2500")
        page.dispatch_event("#scrub", "input")
        t = page.evaluate("() => window.robotsim.time()")
        assert t == pytest.approx(0.25 * replay.time_span()[1], abs=1e-6)
        assert "t = " in page.inner_text("#time")

        # the plot lists every signal and starts with the response (x, y, theta)
        chosen = page.eval_on_selector_all("#signals option:checked", "o => o.map(x => x.text)")
        assert chosen == ["omni: x", "omni: y", "omni: theta"]
        # the 3D view is drawn: the field's green fills part of it
        shot = page.locator("#view").screenshot(path=str(artifacts / "export_html_replay.png"))
        assert len(shot) > 1000
        # the page may not reach the network even if it tried
        blocked = page.evaluate(
            "() => fetch('http://127.0.0.1:9/x').then(() => 'fetched', () => 'blocked')"
        )
        assert blocked == "blocked"
        assert requests == [url]
    finally:
        ctx.close()
