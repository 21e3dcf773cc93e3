"""The studio page's key endpoint refuses other pages and malformed requests
(real HTTP over real sockets; the browser test drives it from the page itself)."""

from __future__ import annotations

import socket
import time

import pytest

from robotsim.studio.keyboard import BrowserKeyboard


def _post(kb: BrowserKeyboard, body: bytes, headers: dict[str, str], path: str | None = None,
          send_body: bool = True) -> int:  # fmt: skip
    path = path if path is not None else f"/keys?k={kb.token}"
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers.items())]
    with socket.create_connection(("127.0.0.1", kb.port), timeout=10) as s:
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + (body if send_body else b""))
        reply = s.recv(4096).decode()
    return int(reply.split()[1])


@pytest.fixture
def kb() -> BrowserKeyboard:
    k = BrowserKeyboard("127.0.0.1")
    k.origins.add("http://127.0.0.1:8080")  # as install(gui, page_port=8080) does
    yield k
    k.close()


def _key(body: str) -> tuple[bytes, dict[str, str]]:
    return body.encode(), {
        "Content-Length": str(len(body.encode())),
        "Origin": "http://127.0.0.1:8080",
    }


def test_the_studio_page_is_served(kb: BrowserKeyboard) -> None:
    body, headers = _key('{"type": "down", "key": "w"}')
    assert _post(kb, body, headers) == 204
    assert "w" in kb.poll().keys


def test_a_forged_origin_is_refused(kb: BrowserKeyboard) -> None:
    body, headers = _key('{"type": "down", "key": "w"}')
    headers["Origin"] = "http://evil.example"
    assert _post(kb, body, headers) == 403
    headers["Origin"] = "http://127.0.0.1:9999"  # another page on this machine
    assert _post(kb, body, headers) == 403
    assert not kb.poll().keys


def test_a_missing_or_wrong_token_is_refused(kb: BrowserKeyboard) -> None:
    body, headers = _key('{"type": "down", "key": "w"}')
    assert _post(kb, body, headers, path="/keys") == 403
    assert _post(kb, body, headers, path="/keys?k=guess") == 403
    assert not kb.poll().keys


@pytest.mark.parametrize(("length", "code"), [("-1", 411), ("abc", 411), ("99999", 413)])
def test_bad_lengths_are_refused_without_reading(
    kb: BrowserKeyboard, length: str, code: int
) -> None:
    body, headers = _key('{"type": "down", "key": "w"}')
    headers["Content-Length"] = length
    assert _post(kb, body, headers, send_body=False) == code


def test_a_stalled_client_is_dropped_and_others_are_served(kb: BrowserKeyboard) -> None:
    stalled = socket.create_connection(("127.0.0.1", kb.port), timeout=30)
    stalled.sendall(f"POST /keys?k={kb.token} HTTP/1.1\r\nContent-Length: 100\r\n\r\n".encode())
    body, headers = _key('{"type": "down", "key": "a"}')
    assert _post(kb, body, headers) == 204  # served while the other one stalls
    t0 = time.monotonic()
    reply = stalled.recv(4096)  # the server gives up on it (5 s socket timeout)
    assert time.monotonic() - t0 < 20
    assert reply == b"" or b" 400 " in reply
    stalled.close()


def test_no_wildcard_cors(kb: BrowserKeyboard) -> None:
    body, headers = _key('{"type": "up", "key": "w"}')
    with socket.create_connection(("127.0.0.1", kb.port), timeout=10) as s:
        head = f"POST /keys?k={kb.token} HTTP/1.1\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in headers.items()
        )
        s.sendall(head.encode() + b"\r\n" + body)
        reply = s.recv(4096).decode()
    assert "Access-Control-Allow-Origin: *" not in reply
    assert "Access-Control-Allow-Origin: http://127.0.0.1:8080" in reply


@pytest.mark.parametrize(
    "body",
    [
        "[" * 1000 + "]" * 24,  # the 1,024-byte body of issue 29: 1,000 levels deep
        '{"type": ' + "[" * 500 + "]" * 500 + "}",
        "{" * 1024,
        '{"type": "down", "key": NaN}',
        "[1, 2]",
        "\xff\xfe",
        '"just a string"',
    ],
)
def test_deep_or_malformed_json_gets_a_clean_400(kb: BrowserKeyboard, body: str) -> None:
    data, headers = _key(body)
    assert _post(kb, data, headers) == 400
    assert not kb.poll().keys
    ok, headers = _key('{"type": "down", "key": "w"}')
    assert _post(kb, ok, headers) == 204  # and it lives on
