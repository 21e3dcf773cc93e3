"""The studio page's token and origin checks: the decision alone, then real HTTP and
websocket requests to a running studio (the browser tests drive it from Chromium)."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request

import pytest
import viser
from tests.aio import run_coroutine
from websockets.asyncio.client import connect
from websockets.datastructures import Headers
from websockets.exceptions import InvalidStatus

from robotsim.studio.access import PageAccess, new_token

TOKEN = "s3cret-token_for-tests"


def _cookie(access: PageAccess, value: str = TOKEN) -> str:
    return f"{access.cookie_name}={value}"


@pytest.fixture
def access() -> PageAccess:
    return PageAccess("127.0.0.1", 8080, TOKEN)


# ------------------------------------------------------------------ decisions
def test_the_printed_url_passes_and_sets_the_cookie(access: PageAccess) -> None:
    d = access.decide(f"/?token={TOKEN}", Headers())
    assert d.allowed and d.set_cookie
    assert access.cookie_header().startswith(f"robotsim-studio-8080={TOKEN}; Path=/; HttpOnly")
    assert "SameSite=Strict" in access.cookie_header()
    # the cookie already holds it: not set again
    again = access.decide(f"/?token={TOKEN}", Headers({"Cookie": _cookie(access)}))
    assert again.allowed and not again.set_cookie


def test_the_cookie_alone_passes_files_and_the_websocket(access: PageAccess) -> None:
    files = access.decide("/assets/index.js", Headers({"Cookie": "a=b; " + _cookie(access)}))
    assert files.allowed and not files.set_cookie
    ws = Headers({"Cookie": _cookie(access), "Upgrade": "websocket",
                  "Origin": "http://localhost:8080"})  # fmt: skip
    assert access.decide("/", ws).allowed


@pytest.mark.parametrize(
    ("target", "cookie"),
    [
        ("/", None),  # nothing
        ("/?token=", None),
        ("/?token=guess", None),
        (f"/?token={TOKEN}x", None),
        (f"/?token={TOKEN}&token=guess", None),  # two tokens: refused
        ("/", "guess"),  # a wrong cookie
        ("/?token=guess", TOKEN),  # a wrong URL token is not rescued by the cookie
        ("/index.html", "robotsim-studio-9999"),  # another studio's cookie name
    ],
)
def test_a_missing_or_wrong_token_is_refused(
    access: PageAccess, target: str, cookie: str | None
) -> None:
    headers = Headers()
    if cookie == "robotsim-studio-9999":
        headers["Cookie"] = f"robotsim-studio-9999={TOKEN}"
    elif cookie is not None:
        headers["Cookie"] = _cookie(access, cookie)
    d = access.decide(target, headers)
    assert not d.allowed
    assert "token" in d.reason and TOKEN not in d.reason


def test_a_malformed_cookie_header_is_no_token(access: PageAccess) -> None:
    assert not access.decide("/", Headers({"Cookie": '"unterminated; ;;==; \\'})).allowed


@pytest.mark.parametrize(
    "origin",
    ["http://evil.example", "http://127.0.0.1:9999", "https://127.0.0.1:8080", "null",
     "http://localhost.evil.example:8080", "http://127.0.0.1:8080.evil.example"],
)  # fmt: skip
def test_a_websocket_from_another_origin_is_refused_even_with_the_token(
    access: PageAccess, origin: str
) -> None:
    ws = Headers({"Upgrade": "websocket", "Origin": origin, "Cookie": _cookie(access)})
    d = access.decide(f"/?token={TOKEN}", ws)
    assert not d.allowed and "origin" in d.reason


@pytest.mark.parametrize("origin", ["http://127.0.0.1:8080", "http://localhost:8080",
                                    "http://[::1]:8080"])  # fmt: skip
def test_the_studio_origins_pass(access: PageAccess, origin: str) -> None:
    ws = Headers({"Upgrade": "websocket", "Origin": origin, "Cookie": _cookie(access)})
    assert access.decide("/", ws).allowed


def test_without_a_token_only_the_origin_is_checked() -> None:
    open_access = PageAccess("127.0.0.1", 8080, None)
    assert open_access.decide("/", Headers()).allowed
    ws = {"Upgrade": "websocket", "Origin": "http://evil.example"}
    assert not open_access.decide("/", Headers(ws)).allowed


def test_every_interface_accepts_the_page_by_ip_address_but_not_by_name() -> None:
    wide = PageAccess("0.0.0.0", 8080, TOKEN)
    by_ip = Headers({"Upgrade": "websocket", "Origin": "http://192.168.1.20:8080",
                     "Host": "192.168.1.20:8080", "Cookie": _cookie(wide)})  # fmt: skip
    assert wide.decide("/", by_ip).allowed
    # DNS rebinding: a name that resolves to this machine is not the studio's origin
    by_name = Headers({"Upgrade": "websocket", "Origin": "http://rebind.example:8080",
                       "Host": "rebind.example:8080", "Cookie": _cookie(wide)})  # fmt: skip
    assert not wide.decide("/", by_name).allowed


def test_tokens_are_fresh_and_long() -> None:
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50
    assert all(len(t) >= 32 for t in tokens)


# --------------------------------------------------------- a running studio
def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str | None, bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers.get("Set-Cookie"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Set-Cookie"), e.read()


def _websocket(studio, origin: str | None, cookie: bool) -> str:  # type: ignore[no-untyped-def]
    """Open the studio's websocket as the page does; "open" if a first message came."""
    headers = {"Cookie": _cookie(studio.access, studio.access.token)} if cookie else {}

    async def go() -> str:
        try:
            async with connect(
                f"ws://127.0.0.1:{studio.port}/", origin=origin, additional_headers=headers,
                subprotocols=[f"viser-v{viser.__version__}"], open_timeout=30,
            ) as ws:  # fmt: skip
                await asyncio.wait_for(ws.recv(), 30)
                return "open"
        except InvalidStatus as exc:
            return str(exc.response.status_code)

    return run_coroutine(go())


def test_the_studio_url_carries_the_token(studio) -> None:  # type: ignore[no-untyped-def]
    token = studio.access.token
    assert token and studio.url == f"http://127.0.0.1:{studio.port}/?token={token}"
    assert studio.base_url == f"http://127.0.0.1:{studio.port}/"


def test_the_page_needs_the_token(studio) -> None:  # type: ignore[no-untyped-def]
    code, cookie, body = _get(studio.base_url)
    assert code == 403 and cookie is None
    assert b"no token" in body and b"<html" not in body
    code, _, body = _get(studio.base_url + "?token=guess")
    assert code == 403 and b"wrong token" in body


def test_the_printed_url_serves_the_page_and_sets_the_cookie(studio) -> None:  # type: ignore[no-untyped-def]
    code, cookie, body = _get(studio.url)
    assert code == 200 and b"<html" in body
    assert cookie == studio.access.cookie_header()
    # the page's files come with the cookie alone
    code, _, body = _get(studio.base_url, {"Cookie": _cookie(studio.access, studio.access.token)})
    assert code == 200 and b"<html" in body


def test_the_websocket_needs_the_token_and_the_studio_origin(studio) -> None:  # type: ignore[no-untyped-def]
    own = f"http://127.0.0.1:{studio.port}"
    assert _websocket(studio, own, cookie=True) == "open"
    assert _websocket(studio, own, cookie=False) == "403"
    assert _websocket(studio, f"http://127.0.0.1:{studio.port + 1}", cookie=True) == "403"
    assert _websocket(studio, "http://evil.example", cookie=True) == "403"
    assert "this page's origin may not open the studio" in studio.access.refused


def test_a_studio_without_token_serves_the_page_but_checks_origins() -> None:
    from robotsim.studio import Studio

    st = Studio(port=0, token=False)
    try:
        assert st.access.token is None and st.url == st.base_url
        code, cookie, body = _get(st.url)
        assert code == 200 and cookie is None and b"<html" in body
        assert _websocket(st, f"http://localhost:{st.port}", cookie=False) == "open"
        assert _websocket(st, "http://evil.example", cookie=False) == "403"
    finally:
        st.stop()
