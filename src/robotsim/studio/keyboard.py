"""The studio page's keyboard as an input device.

viser sends no key events to Python, so the page gets a few lines of JavaScript (in an
HTML element of the GUI) that post every key-down, key-up, focus and blur of the page
to a tiny HTTP endpoint served here, on the studio's host and the next free port.
The script listens in the capture phase on the window and stops every key outside the
GUI's text fields and sliders there (or, installed with ``every=False`` for the
studio's live parameters, only the keys its mapping binds): viser's camera listens on
the document (W/A/S/D/Q/E and the arrows fly the camera), so while the page drives a
robot the keys move only the robot; the keys the mapping binds also lose their browser
default (Tab does not move the focus).
:class:`BrowserKeyboard` keeps the held keys (:class:`robotsim.teleop.keys.HeldKeys`)
and answers ``poll()`` like the terminal keyboard, so the same mappings drive the arms
from the page. Keys typed into the GUI's own text fields are ignored; losing focus
releases every key (key-ups are lost then). Each endpoint's script is installed once
per page (guarded by its token), so a keyboard closed and opened again (a new port and
token: the Walk tab's Keyboard unticked and ticked) gets a script of its own (the closed
one's script stays in the page until it is reloaded, posting into the void). The page
posts its events one after the
other, each once the previous one was answered: every post is a connection of its own,
served by a thread of its own, so two posted at once (the down and up of a quick tap)
could be taken in the wrong order and leave the key held.

The endpoint only takes key events from the studio's own page: every request must carry
the per-launch secret that the page script receives through the studio (``?k=...``),
a request whose ``Origin`` is not the studio page's is refused (403) and no
``Access-Control-Allow-Origin: *`` is sent, the body is at most 1 KB with a valid
``Content-Length`` (a missing, negative or larger one is refused before reading), and a
client that stalls is dropped after 5 s. See ``docs/security.md``.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from robotsim.jsonable import read_json
from robotsim.teleop.gamepad import InputSnapshot
from robotsim.teleop.keys import HeldKeys, browser_key

__all__ = ["BrowserKeyboard", "key_label"]

MAX_BODY = 1024  # bytes of one key event (a few dozen in practice)
TIMEOUT = 5.0  # seconds a client may take to send its request
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]", "::1")

_SCRIPT = (
    "if(!window['__robotsimKeys{token}']){{window['__robotsimKeys{token}']=1;"
    "const u='http://'+location.hostname+':{port}/keys?k={token}';"
    "let q=Promise.resolve();"
    "const s=(t,k)=>{{q=q.then(()=>fetch(u,{{method:'POST',"
    "body:JSON.stringify({{type:t,key:k}})}})).catch(()=>{{}})}};"
    "const f=e=>e.target&&(['INPUT','TEXTAREA','SELECT'].includes(e.target.tagName)"
    "||e.target.isContentEditable||e.target.getAttribute&&e.target.getAttribute('role')==='slider');"
    "const b=new Set({bound});const a={every};"
    "const n=k=>({{ArrowUp:'up',ArrowDown:'down',ArrowLeft:'left',ArrowRight:'right',"
    "' ':'space',Enter:'enter',Tab:'tab',Escape:'esc',Backspace:'backspace'}})[k]"
    "||(k.length==1?k.toLowerCase():k);"
    "window.addEventListener('keydown',e=>{{if(f(e))return;const m=b.has(n(e.key));"
    "if(!a&&!m)return;e.stopPropagation();"
    "if(m)e.preventDefault();if(!e.repeat)s('down',e.key)}},true);"
    "window.addEventListener('keyup',e=>{{if(f(e))return;"
    "if(!a&&!b.has(n(e.key)))return;e.stopPropagation();s('up',e.key)}},true);"
    "window.addEventListener('blur',()=>s('blur',''));"
    "window.addEventListener('focus',()=>s('focus',''));"
    "s(document.hasFocus()?'focus':'blur','')}}"
)


def key_label(key: str) -> str:
    """A key name as a keyboard shows it: ``"w"`` -> ``"W"``, ``"up"`` -> ``"↑"``."""
    arrows = {"up": "↑", "down": "↓", "left": "←", "right": "→"}
    if key in arrows:
        return arrows[key]
    return key.upper() if len(key) == 1 else key.capitalize()


class BrowserKeyboard:
    """Held keys of the studio page. ``host`` is where the page reaches this machine
    (the studio's host); ``port`` 0 picks a free one."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.held = HeldKeys()
        self.focused = False
        self.events = 0
        self.refused = 0
        self.token = secrets.token_urlsafe(24)
        self.host = host
        #: origins (``http://host:port``) of the studio page; set by :meth:`install`
        self.origins: set[str] = set()
        #: called (without arguments, on the endpoint's thread) after every key event
        self.listeners: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        kb = self

        class Handler(BaseHTTPRequestHandler):
            timeout = TIMEOUT  # socket timeout: a stalled client cannot hold a thread

            def _answer(self, code: int, origin: str | None = None) -> None:
                if code >= 400:
                    with kb._lock:
                        kb.refused += 1
                self.send_response(code)
                if origin is not None:
                    self.send_header("Access-Control-Allow-Origin", origin)
                    self.send_header("Vary", "Origin")
                self.send_header("Content-Length", "0")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True

            def do_POST(self) -> None:
                url = urlsplit(self.path)
                given = parse_qs(url.query).get("k", [""])[0]
                if url.path != "/keys" or not hmac.compare_digest(given, kb.token):
                    self._answer(403)
                    return
                origin = self.headers.get("Origin")
                if origin is not None and not kb._origin_ok(origin):
                    self._answer(403)
                    return
                length = self.headers.get("Content-Length")
                try:
                    n = int(length) if length is not None else -1
                except ValueError:
                    n = -1
                if n < 0:
                    self._answer(411)  # a valid length is required (never read to EOF)
                    return
                if n > MAX_BODY:
                    self._answer(413)
                    return
                try:
                    msg = read_json(self.rfile.read(n) or b"{}", "key event", max_depth=4)
                    if not isinstance(msg, dict):
                        raise ValueError("a key event is a JSON object")
                    kb._event(str(msg.get("type", "")), str(msg.get("key", "")))
                    code = 204
                except (ValueError, OSError):  # InputError is a ValueError
                    code = 400  # malformed, too deep or stalled: refused, the server lives on
                except Exception:  # a bug must still get an answer, not a closed socket
                    code = 500
                self._answer(code, origin)

            def do_GET(self) -> None:
                self._answer(405)

            def log_message(self, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def _origin_ok(self, origin: str) -> bool:
        """The studio page's origin (once known), else a page on this host."""
        if self.origins:
            return origin in self.origins
        host = urlsplit(origin).hostname or ""
        return host in (self.host, *_LOOPBACK) or f"[{host}]" in _LOOPBACK

    def _event(self, kind: str, key: str) -> None:
        with self._lock:
            self.events += 1
            if kind == "down":
                self.held.down(browser_key(key))
            elif kind == "up":
                self.held.up(browser_key(key))
            elif kind == "blur":
                self.focused = False
                self.held.clear()
            elif kind == "focus":
                self.focused = True
        for cb in list(self.listeners):
            try:
                cb()
            except Exception:  # a panel's problem must not break the key endpoint
                pass

    def install(self, gui: Any, page_port: int | None = None, bound: Iterable[str] = (),
                every: bool = True) -> Any:  # fmt: skip
        """Add the page script to a viser GUI (an invisible element); returns it.
        ``page_port``: the studio page's port; requests from any other origin are
        refused from then on. ``bound``: the key names the mapping uses (their browser
        default, such as Tab moving the focus, is prevented). ``every``: take every key
        from the camera (teleoperation); False takes only the ``bound`` keys, the
        others still fly the camera (the studio's live parameters)."""
        if page_port is not None:
            names = {self.host, "127.0.0.1", "localhost"}
            self.origins.update(f"http://{h}:{int(page_port)}" for h in names)
        keys = json.dumps(sorted({str(k) for k in bound}), allow_nan=False)
        js = _SCRIPT.format(port=self.port, token=self.token, bound=keys,
                            every="true" if every else "false")  # fmt: skip
        js = js.replace("&", "&amp;").replace('"', "&quot;")
        return gui.add_html(f'<img src="data:," alt="" style="display:none" onerror="{js}">')

    def poll(self) -> InputSnapshot:
        with self._lock:
            return self.held.snapshot()

    def status(self) -> str:
        with self._lock:
            held = self.held.peek()
        keys = ", ".join(key_label(k) for k in sorted(held)) or "none"
        focus = "page has keyboard focus" if self.focused else "click the page to give it focus"
        return f"keyboard (page): {focus}; held: {keys}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
