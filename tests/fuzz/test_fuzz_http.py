"""Fuzz the studio's HTTP and WebSocket door over real sockets: raw requests built
from hostile parts (methods, paths that climb out of the package, tokens, cookies,
origins, lengths that lie, oversized or endless headers, WebSocket upgrades without a
key, bodies nested deep), some also mutated as bytes, sent to a running studio and to
its key endpoint. No reply is a 5xx or shows a traceback or a file outside the page's
assets; both keep serving the real page afterwards (seeded; see conftest.py)."""

from __future__ import annotations

import random
import socket
import urllib.request

import pytest

from robotsim.studio.keyboard import BrowserKeyboard
from tests.fuzz.mutate import byte_mutation
from tests.procs import free_port

METHODS = ["GET", "POST", "PUT", "DELETE", "OPTIONS", "HEAD", "TRACE", "CONNECT", "G\x00T",
           "", "GET GET", "x" * 300]  # fmt: skip
PATHS = ["/", "/?token=", "/?token=%00", "/?token=guess&token=guess", "/../../etc/passwd",
         "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/assets/../../../../etc/passwd", "//etc/passwd",
         "/" + "a" * 9000, "/?" + "&".join(["a=b"] * 2000), "/keys?k=x", "*",
         "http://evil.example/", "/\r\nX-Injected: 1", "/%ff%fe",
         "/index.html?token=é"]  # fmt: skip
HEADERS = [
    "Cookie: " + "a=b; " * 3000,
    "Cookie: robotsim-studio-1=guess",
    "Origin: http://evil.example",
    "Origin: null",
    "Upgrade: websocket\r\nConnection: Upgrade",
    "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
    "Sec-WebSocket-Key: short",
    "Content-Length: -1",
    "Content-Length: 100000000000000000000",
    "Content-Length: abc",
    "Transfer-Encoding: chunked",
    "X-Long: " + "b" * 70000,
    "\r\n".join(f"X-H{i}: {i}" for i in range(400)),
    "Host: " + "h" * 5000,
    "Bad header without colon",
]
BODIES = [b"", b"{" * 5000, b'{"type": "down", "key": "w"}', bytes(range(256)) * 8,
          b"0\r\n\r\n", b"ffffffff\r\n" + b"x" * 100]  # fmt: skip


def _request(rng: random.Random, host_port: str, token: str) -> bytes:
    method = rng.choice(METHODS)
    path = rng.choice(PATHS)
    if rng.random() < 0.3:
        path += ("&" if "?" in path else "?") + f"token={token}"
    lines = [f"{method} {path} HTTP/{rng.choice(['1.1', '1.0', '2.0', '9.9'])}"]
    if rng.random() < 0.9:
        lines.append(f"Host: {host_port}")
    lines += rng.sample(HEADERS, rng.randint(0, 3))
    data = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogateescape")
    data += rng.choice(BODIES)
    if rng.random() < 0.2:
        data = byte_mutation(rng, data)
    if rng.random() < 0.1:
        data = data[: rng.randrange(len(data) + 1)]  # cut short: the server must not wait
    return data


def _exchange(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        try:
            s.sendall(data)
        except OSError:  # the server closed early (a refused header): fine
            return b""
        s.settimeout(0.5)
        out = b""
        try:
            while len(out) < 1 << 20:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except (TimeoutError, OSError):
            pass
    return out


def _judge(label: str, reply: bytes, bad: list[str]) -> None:
    head = reply.split(b"\r\n", 1)[0]
    parts = head.split()
    if len(parts) >= 2 and parts[1][:1] == b"5" and parts[1] != b"501":  # 501: no such method
        bad.append(f"{label}: {head[:80]!r}")
    if b"Traceback" in reply or b"root:x:0:0" in reply:
        bad.append(f"{label}: {reply[:200]!r}")


@pytest.mark.slow
def test_fuzz_studio_http(tmp_path_factory: pytest.TempPathFactory, fuzz_scale: int,
                          fuzz_seed: int) -> None:  # fmt: skip
    from robotsim.studio import Studio

    studio = Studio(port=free_port(), root=tmp_path_factory.mktemp("studio"))
    kb = BrowserKeyboard("127.0.0.1")
    kb.origins.add(f"http://127.0.0.1:{studio.port}")
    rng = random.Random(f"{fuzz_seed}:http")
    bad: list[str] = []
    try:
        token = studio.access.token or ""
        for i in range(60 * fuzz_scale):
            data = _request(rng, f"127.0.0.1:{studio.port}", token)
            port = studio.port if rng.random() < 0.7 else kb.port
            _judge(f"http#{i} :{'studio' if port == studio.port else 'keys'} {data[:100]!r}",
                   _exchange(port, data), bad)  # fmt: skip
        with urllib.request.urlopen(studio.url, timeout=30) as r:  # still serving
            assert r.status == 200 and b"<html" in r.read()
        ok = b'{"type": "down", "key": "w"}'
        reply = _exchange(kb.port, (
            f"POST /keys?k={kb.token} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: "
            f"http://127.0.0.1:{studio.port}\r\nContent-Length: {len(ok)}\r\n\r\n"
        ).encode() + ok)  # fmt: skip
        assert reply.split()[1] == b"204" or reply.split()[1] == b"200", reply[:200]
    finally:
        kb.close()
        studio.stop()
    assert not bad, "\n".join(bad[:10])
