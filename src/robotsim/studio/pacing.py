"""Keep the simulation in step with what the pages show.

The studio advances simulated time on the wall clock, and a page applies the scene
updates when it draws its next frame. A page that draws slowly (software WebGL, a busy
machine) falls seconds behind: it shows ``t = 0.78 s`` while the simulation is at
5.9 s, and a Pause clicked there stops at 5.9 s. :class:`PagePacer` closes that loop:
for every connected page a thread asks the page a question that it answers only
after applying every update sent before it (viser's ``local_storage.get_item``
request, handled in order with the scene updates in the page's frame loop), so each
answer says "this page shows the state of time ``t``". The studio loop then plays only
while the simulated time is at most :attr:`PagePacer.lead` ahead of the slowest page,
which makes the simulation slow down to what the pages can show instead of running
away from them (the real-time factor in the readout says so).

Pages are asked only while the studio plays (``active``): an idle studio sends them
nothing, so a page's own requests (thumbnail renders) never wait behind these.

A page that has not answered for :attr:`PagePacer.patience` seconds (a stuck or
frozen tab) no longer holds the clock until it answers again; a page that cannot
answer at all (its storage is blocked, it left) is dropped.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["PagePacer"]

_KEY = "robotsim-frame"  # read, never written: the answer itself is the signal


@dataclass
class _Page:
    shown: float = -math.inf  # simulated time (s) the page confirmed showing
    waiting: float | None = None  # wall time (perf_counter) of its oldest unanswered question


class PagePacer:
    """Args:
    server: the viser server (pages connect to it).
    pushed_time: the simulated time (s) of the state last sent to the pages.
    active: whether pacing is needed now (the studio plays); pages are asked only then.
    lead: how far (s of simulated time) the simulation may run ahead of the slowest
        page.
    patience: wall seconds after which a silent page no longer holds the clock.
    """

    def __init__(
        self,
        server: Any,
        pushed_time: Callable[[], float],
        active: Callable[[], bool] = lambda: True,
        lead: float = 0.25,
        patience: float = 10.0,
    ) -> None:
        self.lead = float(lead)
        self.patience = float(patience)
        self._pushed_time = pushed_time
        self._active = active
        self._pages: dict[int, _Page] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.answers = 0
        server.on_client_connect(self._connected)
        server.on_client_disconnect(self._disconnected)

    def _connected(self, client: Any) -> None:
        with self._lock:
            self._pages[client.client_id] = _Page()
        threading.Thread(
            target=self._watch, args=(client,), name=f"pacer-{client.client_id}", daemon=True
        ).start()

    def _disconnected(self, client: Any) -> None:
        with self._lock:
            self._pages.pop(client.client_id, None)

    def _watch(self, client: Any) -> None:
        last = math.nan
        while not self._stop.is_set():
            with self._lock:
                page = self._pages.get(client.client_id)
            if page is None:
                return
            if not self._active():
                self._stop.wait(0.05)
                continue
            t = self._pushed_time()
            if t == last:  # nothing new to confirm (paused): ask again a little later
                self._stop.wait(0.05)
                if self._pushed_time() == last:
                    continue
                t = self._pushed_time()
            if page.waiting is None:
                page.waiting = time.perf_counter()
            try:
                client.local_storage.get_item(_KEY, timeout=self.patience)
            except TimeoutError:
                continue  # silent for a while: ignored by allows() until it answers
            except Exception:  # left, or its storage is blocked: it cannot pace
                self._disconnected(client)
                return
            with self._lock:
                page.shown = t
                page.waiting = None
                self.answers += 1
            last = t

    def shown(self) -> float | None:
        """The simulated time (s) every responsive page shows (the slowest one), or
        None without pages."""
        now = time.perf_counter()
        with self._lock:
            times = [
                p.shown
                for p in self._pages.values()
                if p.waiting is None or now - p.waiting < self.patience
            ]
        return min(times) if times else None

    def allows(self, t: float) -> bool:
        """May the simulation advance to time ``t`` (s)? Yes unless a responsive page
        would then be more than :attr:`lead` behind."""
        shown = self.shown()
        return shown is None or t - shown <= self.lead + 1e-9

    def stop(self) -> None:
        self._stop.set()
