"""Helpers shared by the browser tests and their fixtures."""

from __future__ import annotations

import socket
import time
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
# WebGL through ANGLE on Mesa's EGL (llvmpipe, software: no GPU is needed; scripts/setup.sh
# installs libegl-mesa0). Chromium's default software path, SwiftShader (what
# ``--disable-gpu`` gives), costs several times the CPU per frame: an idle studio page
# kept about a third of a core busy, and four tab clicks took ~45 CPU-s against ~6 here.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--use-gl=angle",
    "--use-angle=gl-egl",
    "--ignore-gpu-blocklist",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def wait_for(cond, what: str, timeout: float = 90.0, poll: float = 0.05) -> None:  # type: ignore[no-untyped-def]
    """Poll ``cond()`` every ``poll`` s until it is true; fail naming ``what`` after
    ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(poll)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# How long a page waits for something it expects (a notification, a tab's text). Waits
# end as soon as the condition holds; the limit is generous because a loaded 2-core
# machine running the suite beside a browser can take many seconds per UI update.
UI_TIMEOUT_MS = 60_000


def close_notifications(page, timeout_s: float = 20.0) -> None:
    """Close the toasts (viser warns that WebGL runs in software) so they do not cover
    the controls. The close buttons are clicked by a script in the page: on a loaded
    machine software WebGL keeps the page so busy that Playwright's own clicks (hit
    tests, "element is stable" checks over animation frames) time out. A toast that
    is still there after ``timeout_s`` (a busy page can be slow to run the close
    animation, or show a new one meanwhile) is made transparent to the mouse instead,
    so it cannot take a click meant for the panel; its text stays readable to tests."""
    page.wait_for_timeout(500)
    toasts = page.locator(".mantine-Notification-root")
    deadline = time.monotonic() + timeout_s
    while any(t.is_visible() for t in toasts.all()):
        if time.monotonic() > deadline:
            page.add_style_tag(
                content=".mantine-Notification-root { pointer-events: none !important; }"
            )
            return
        page.evaluate(
            "document.querySelectorAll('.mantine-Notification-root button')"
            ".forEach((b) => b.click())"
        )
        page.wait_for_timeout(300)


def try_websocket(page, url: str, protocol: str) -> str:
    """Open a websocket to ``url`` from a script in ``page`` (the browser adds the
    page's origin and its cookies, as for any page); ``"open"`` if it opened,
    ``"closed CODE"`` if it was refused or dropped first."""
    return page.evaluate(
        """([url, protocol, ms]) => new Promise((done) => {
            const ws = new WebSocket(url, [protocol]);
            ws.onopen = () => { done("open"); ws.close(); };
            ws.onclose = (e) => done("closed " + e.code);
            setTimeout(() => done("timeout"), ms);
        })""",
        [url, protocol, UI_TIMEOUT_MS],
    )
