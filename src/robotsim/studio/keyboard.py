"""The studio page's keyboard as an input device.

viser sends no key events to Python, so the page gets a few lines of JavaScript (in an
HTML element of the GUI) that post every key-down, key-up, focus and blur of the page
to a tiny HTTP endpoint served here, on the studio's host and the next free port.
:class:`BrowserKeyboard` keeps the held keys (:class:`robotsim.teleop.keys.HeldKeys`)
and answers ``poll()`` like the terminal keyboard, so the same mappings drive the arms
from the page. Keys typed into the GUI's own text fields are ignored; losing focus
releases every key (key-ups are lost then).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from robotsim.teleop.gamepad import InputSnapshot
from robotsim.teleop.keys import HeldKeys, browser_key

__all__ = ["BrowserKeyboard"]

_SCRIPT = (
    "if(!window.__robotsimKeys){{window.__robotsimKeys=1;"
    "const u='http://'+location.hostname+':{port}/keys';"
    "const s=(t,k)=>fetch(u,{{method:'POST',body:JSON.stringify({{type:t,key:k}})}})"
    ".catch(()=>{{}});"
    "const f=e=>e.target&&['INPUT','TEXTAREA'].includes(e.target.tagName);"
    "document.addEventListener('keydown',e=>{{if(!f(e)&&!e.repeat)s('down',e.key)}});"
    "document.addEventListener('keyup',e=>{{if(!f(e))s('up',e.key)}});"
    "window.addEventListener('blur',()=>s('blur',''));"
    "window.addEventListener('focus',()=>s('focus',''));"
    "s(document.hasFocus()?'focus':'blur','')}}"
)


class BrowserKeyboard:
    """Held keys of the studio page. ``host`` is where the page reaches this machine
    (the studio's host); ``port`` 0 picks a free one."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.held = HeldKeys()
        self.focused = False
        self.events = 0
        self._lock = threading.Lock()
        kb = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                try:
                    n = min(int(self.headers.get("Content-Length", 0)), 1024)
                    msg = json.loads(self.rfile.read(n) or b"{}")
                    kb._event(str(msg.get("type", "")), str(msg.get("key", "")))
                    code = 204
                except (ValueError, AttributeError):
                    code = 400  # malformed: ignored, counted nowhere, the server lives on
                self.send_response(code)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

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

    def install(self, gui: Any) -> Any:
        """Add the page script to a viser GUI (an invisible element); returns it."""
        js = _SCRIPT.format(port=self.port).replace('"', "&quot;")
        return gui.add_html(f'<img src="data:," alt="" style="display:none" onerror="{js}">')

    def poll(self) -> InputSnapshot:
        with self._lock:
            return self.held.snapshot()

    def status(self) -> str:
        keys = ", ".join(sorted(self.poll().keys)) or "none"
        focus = "page has keyboard focus" if self.focused else "click the page to give it focus"
        return f"keyboard (page): {focus}; held: {keys}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
