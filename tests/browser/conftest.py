"""Browser fixtures: the studio in-process on a free port and Debian's headless
Chromium driven by Playwright (no Playwright browser download). Screenshots go to
``test-artifacts/browser/`` (gitignored) for a person to look at.

One Chromium per test process (session scope: starting it is most of a module's set-up
on a loaded machine); each module gets its own studio and its own browser context (a
fresh profile: no cookies, storage or pages of another module). A module's tests run
in the same worker (``xdist_group``; ``make test`` passes ``--dist loadgroup``), so
its studio and page are set up once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from browser_helpers import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    UI_TIMEOUT_MS,
    close_notifications,
    free_port,
)

from robotsim.studio import Studio


@pytest.hookimpl(tryfirst=True)  # before xdist names the groups
def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    """A browser test that fails is run once more before it counts as failed (as
    Playwright's own test runner does on CI): a real Chromium on a loaded 2-core machine
    now and then misses a click or a frame. The rerun is printed (``R`` and the
    ``rerun`` count in the summary); a broken page fails both runs."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.flaky(reruns=1, reruns_delay=2))
            item.add_marker(pytest.mark.xdist_group(f"browser-{Path(item.path).stem}"))


@pytest.fixture(scope="module")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    """The page's workspace is the session's temporary folder: every ``tmp_path``."""
    st = Studio(port=free_port(), root=tmp_path_factory.getbasetemp())
    st.load_default()
    st.start()
    yield st
    st.stop()


@pytest.fixture(scope="session")
def playwright():
    """Playwright (sync API), for the session's browser."""
    if not CHROMIUM.exists():
        pytest.fail("Debian chromium is missing: run `bash scripts/setup.sh` (as root) once")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright):
    """The test process's headless Chromium; modules open contexts of their own in it."""
    b = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                   headless=True)  # fmt: skip
    yield b
    b.close()


@pytest.fixture(scope="module")
def page(studio, browser):
    """A page connected to the studio (opened at its URL with the launch token), the
    robot drawn, notifications closed; in a browser context of the module's own."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = ctx.new_page()
    pg.set_default_timeout(UI_TIMEOUT_MS)  # clicks and fills wait for their element
    pg.goto(studio.url)
    deadline = time.monotonic() + 60
    while not studio.server.get_clients():
        assert time.monotonic() < deadline, "the page never connected to the studio"
        time.sleep(0.1)
    pg.get_by_text("Joints", exact=True).wait_for(timeout=60_000)
    close_notifications(pg)
    yield pg
    ctx.close()
