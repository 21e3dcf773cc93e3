"""Frames for the pages at the rate they draw; the simulation on the wall clock.

The studio advances simulated time on the wall clock (:class:`robotsim.studio.clock.SimClock`)
whatever the pages do. A page applies the scene updates when it draws its next frame; a
page that draws slowly (software WebGL, a busy machine) and is sent a state every tick
falls seconds behind (it shows ``t = 0.78 s`` while the simulation is at 5.9 s). Round 2
held the simulation to the slowest page instead, which slowed it for everyone (0.16-0.42x
real time with a software-WebGL page, issue 29 item 5). :class:`PagePacer` drops frames
instead: for every connected page a thread asks the page a question that it answers only
after applying every update sent before it (viser's ``local_storage.get_item`` request,
handled in order with the scene updates in the page's frame loop), so each answer says
"this page shows the state of time ``t``". The studio sends the next state only once
every responsive page has answered for the last one (:meth:`PagePacer.ready`); the
states in between are never sent (the robot views keep the latest poses until the next
send), so each page gets the latest state at the rate it draws and the simulation keeps
real time. :meth:`PagePacer.frame_rates` measures each page's rate; the Sim panel says
when frames are dropped for a page.

Pages are asked only while the studio plays (``active``): an idle studio sends them
nothing, so a page's own requests (thumbnail renders) never wait behind these.

A page that has not answered for :attr:`PagePacer.patience` seconds (a stuck or
frozen tab) no longer holds the frames of the others until it answers again; a page that
cannot answer at all (its storage is blocked, it left) is dropped.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PagePacer"]

_KEY = "robotsim-frame"  # read, never written: the answer itself is the signal
_RATE_WINDOW = 2.0  # s of wall time a page's frame rate is measured over


@dataclass
class _Page:
    shown: float = -math.inf  # simulated time (s) the page confirmed showing
    waiting: float | None = None  # wall time (perf_counter) of its oldest unanswered question
    answered: deque[float] = field(default_factory=lambda: deque(maxlen=512))


class PagePacer:
    """Args:
    server: the viser server (pages connect to it).
    pushed_time: the simulated time (s) of the state last sent to the pages.
    active: whether pacing is needed now (the studio plays); pages are asked only then.
    patience: wall seconds after which a silent page no longer holds the frames.
    """

    def __init__(
        self,
        server: Any,
        pushed_time: Callable[[], float],
        active: Callable[[], bool] = lambda: True,
        patience: float = 5.0,
    ) -> None:
        self.patience = float(patience)
        self._pushed_time = pushed_time
        self._active = active
        self._pages: dict[int, _Page] = {}
        self._lock = threading.Lock()
        self._sent = threading.Condition()
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

    def pushed(self) -> None:
        """A new state was sent to the pages: ask them when they show it."""
        with self._sent:
            self._sent.notify_all()

    def _watch(self, client: Any) -> None:
        last = math.nan
        while not self._stop.is_set():
            with self._lock:
                page = self._pages.get(client.client_id)
            if page is None:
                return
            if not self._active() or self._pushed_time() == last:
                with self._sent:  # until the next send (or a look at active() again)
                    self._sent.wait(0.05)
                continue
            t = self._pushed_time()
            with self._lock:
                if page.waiting is None:
                    page.waiting = time.perf_counter()
            try:
                client.local_storage.get_item(_KEY, timeout=self.patience)
            except TimeoutError:
                continue  # silent for a while: ignored by ready() until it answers
            except Exception:  # left, or its storage is blocked: it cannot pace
                self._disconnected(client)
                return
            with self._lock:
                page.shown = max(page.shown, t)
                page.waiting = None
                page.answered.append(time.perf_counter())
                self.answers += 1
            last = t

    def _responsive(self, now: float) -> list[_Page]:
        return [
            p for p in self._pages.values() if p.waiting is None or now - p.waiting < self.patience
        ]

    def shown(self) -> float | None:
        """The simulated time (s) every responsive page shows (the slowest one), or
        None without pages."""
        with self._lock:
            times = [p.shown for p in self._responsive(time.perf_counter())]
        return min(times) if times else None

    def ready(self) -> bool:
        """May the studio send the next state? Yes once every responsive page shows the
        last state sent (a page still drawing it would only queue the new one)."""
        shown = self.shown()
        return shown is None or shown >= self._pushed_time() - 1e-12

    def frame_rates(self) -> list[float]:
        """Frames per second each connected page confirmed showing over the last
        2 s of wall time (pages asked while the studio plays)."""
        now = time.perf_counter()
        with self._lock:
            return [
                sum(1 for a in p.answered if now - a <= _RATE_WINDOW) / _RATE_WINDOW
                for p in self._pages.values()
            ]

    def stop(self) -> None:
        self._stop.set()
        self.pushed()
