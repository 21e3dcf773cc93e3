"""Other pages cannot drive the studio (issue 17), checked in headless Chromium: a page
of another origin gets no websocket even though the browser sends it the studio's
cookie, a browser without the launch token gets 403 and no websocket, and a motion
saved from the page to ``../../x.yaml`` is refused with nothing written."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import viser
from browser_helpers import (
    UI_TIMEOUT_MS,
    close_notifications,
    try_websocket,
)

pytestmark = pytest.mark.browser

PROTOCOL = f"viser-v{viser.__version__}"
EVIL_PAGE = b"<!doctype html><html><body><p>another page on this machine</p></body></html>"


class _EvilPage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(EVIL_PAGE)))
        self.end_headers()
        self.wfile.write(EVIL_PAGE)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def evil_origin() -> Iterator[str]:
    """A web page on another port of 127.0.0.1: the same site as the studio for the
    browser's cookies, another origin."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EvilPage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _ws_url(studio) -> str:  # type: ignore[no-untyped-def]
    return f"ws://127.0.0.1:{studio.port}/"


def test_the_studio_page_itself_opens_a_websocket(page, studio) -> None:  # type: ignore[no-untyped-def]
    # the control for the two refusals below: same browser, same cookie, own origin
    assert try_websocket(page, _ws_url(studio), PROTOCOL) == "open"


def test_a_forged_origin_gets_no_websocket(page, studio, evil_origin) -> None:  # type: ignore[no-untyped-def]
    clients = set(studio.server.get_clients())
    refused = len(studio.access.refused)
    other = page.context.new_page()
    try:
        other.goto(evil_origin + "/")
        cookies = {c["name"] for c in page.context.cookies(studio.base_url)}
        assert studio.access.cookie_name in cookies  # the browser would send it
        assert try_websocket(other, _ws_url(studio), PROTOCOL) == "closed 1006"
    finally:
        other.close()
    new = studio.access.refused[refused:]
    assert new == ("this page's origin may not open the studio",)
    assert set(studio.server.get_clients()) == clients


def test_a_browser_without_the_token_gets_403_and_no_websocket(browser, studio) -> None:  # type: ignore[no-untyped-def]
    refused = len(studio.access.refused)
    ctx = browser.new_context()  # a profile of its own: no cookie of the studio's page
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(UI_TIMEOUT_MS)
        response = pg.goto(studio.base_url)
        assert response is not None and response.status == 403
        assert "no token" in pg.inner_text("body")
        assert pg.locator("canvas").count() == 0  # viser's page never loaded
        # a script of this (same-origin) page has no cookie to send either
        assert try_websocket(pg, _ws_url(studio), PROTOCOL) == "closed 1006"
        wrong = pg.goto(studio.base_url + "?token=guess")
        assert wrong is not None and wrong.status == 403
    finally:
        ctx.close()
    reasons = studio.access.refused[refused:]
    assert len(reasons) >= 3 and all("token" in r for r in reasons)  # + favicon.ico


def _field(page, label: str):  # type: ignore[no-untyped-def]
    """The input on the row labelled ``label`` (viser's labels do not point at it)."""
    return page.locator(
        f"xpath=//label[normalize-space()='{label}']"
        "/ancestor::div[contains(@class, 'mantine-Flex-root')][1]//input"
    )


def _wait(cond, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + UI_TIMEOUT_MS / 1000
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_motion_save_stays_in_the_workspace_and_asks_before_overwriting(page, studio) -> None:  # type: ignore[no-untyped-def]
    root = studio.workspace.root
    name = f"robotsim-traversal-{uuid.uuid4().hex}.yaml"
    outside = (root / ".." / ".." / name).resolve()
    editor = studio.panels["motion"]
    studio.load_default()
    editor.new()
    page.get_by_role("tab", name="Motion").click()
    page.get_by_role("button", name="Capture pose", exact=True).click()
    _wait(lambda: editor.motion() is not None, "a keyframe")
    close_notifications(page)

    errors = len(studio.errors)
    _field(page, "Motion file").fill(f"../../{name}")
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_text("outside the studio's workspace").first.wait_for(timeout=UI_TIMEOUT_MS)
    assert not outside.exists()
    assert not list(outside.parent.glob(f"{Path(name).stem}*"))  # nor its thumbnails
    assert "outside the studio's workspace" in studio.errors[errors]
    close_notifications(page)

    inside = root / f"inside-{uuid.uuid4().hex}.yaml"
    _field(page, "Motion file").fill(inside.name)
    page.get_by_role("button", name="Save", exact=True).click()
    _wait(lambda: inside.is_file(), "the motion file")
    first = inside.stat().st_mtime_ns
    page.get_by_role("button", name="Save", exact=True).click()  # again, no confirm
    page.get_by_text("tick Overwrite").first.wait_for(timeout=UI_TIMEOUT_MS)
    assert inside.stat().st_mtime_ns == first
    close_notifications(page)
    _field(page, "Overwrite").check()
    _wait(lambda: editor.overwrite.value, "the Overwrite tick")
    page.get_by_role("button", name="Save", exact=True).click()
    _wait(lambda: inside.stat().st_mtime_ns != first, "the confirmed save")
    _wait(lambda: not editor.overwrite.value, "the tick to clear after the save")
