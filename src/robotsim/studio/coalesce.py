"""One refresh at a time, none lost.

A panel's refresh is asked for from several threads: the studio loop (four times a
second), a GUI callback, a test or a script calling ``studio.step()``. Running two at
once would draw the same widgets twice; dropping the second (a non-blocking lock) can
leave the panel showing the older of the two states until the next periodic refresh.
:class:`Coalesced` does neither: a call that arrives while another runs is folded into
one more run, made by the thread already running, once it finishes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["Coalesced"]


class Coalesced:
    """Wrap ``fn(force)`` so that at most one thread runs it and no request is lost.

    ``force`` flags asked for while a run is in progress are OR-ed into the next run.
    A caller that arrives during a run returns at once; the running thread runs ``fn``
    again afterwards, so the last state anyone asked to see is the state shown.
    """

    def __init__(self, fn: Callable[[bool], None]) -> None:
        self._fn = fn
        self._state = threading.Lock()  # guards the three flags below, never held in fn
        self._running = False
        self._again = False
        self._force = False

    @property
    def running(self) -> bool:
        """Whether a run is in progress (or another is owed)."""
        with self._state:
            return self._running

    def __call__(self, force: bool = False) -> None:
        with self._state:
            self._force = self._force or force
            if self._running:
                self._again = True
                return
            self._running = True
        try:
            while True:
                with self._state:
                    force, self._force, self._again = self._force, False, False
                self._fn(force)
                with self._state:
                    if not self._again:
                        self._running = False
                        return
        except BaseException:
            with self._state:
                self._running = self._again = self._force = False
            raise
