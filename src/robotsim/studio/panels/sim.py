"""Simulation controls: play/pause, step (one tick), reset, a time slider that scrubs
the recorded run of the driver (mobile, hands, clearance, motion playback), what drives
the robots, and a readout of simulated time, real-time factor and scene updates per
second.

The number box beside the time slider sends a value on every keystroke, and viser runs
``on_update`` callbacks later, on a thread pool, reading the slider's value only then.
Between the two, the loop's readout refresh (every 0.25 s) or the seek of an earlier
keystroke could write the current time back into the slider, so the callback read that
value and the typed time reverted. The panel therefore writes the slider only when the
time moved and the slider still holds what the panel last wrote (a different value is
the page's, with its callback on the way), takes each value on viser's event loop, in
message order (:meth:`SimPanel.typed`), and seeks to the latest one on one worker
thread, leaving the slider alone until then."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["SimPanel", "short_title"]


def short_title(title: str, word: int = 36, total: int = 120) -> str:
    """``title`` fit for the panel: a path-like word longer than ``word`` characters
    keeps its file name (``…/name.yaml``), and the whole is cut at ``total``
    characters with an ellipsis (long paths would overflow the panel)."""
    words = []
    for w in title.split(" "):
        if len(w) > word and "/" in w:
            w = "…/" + w.rstrip("/").rsplit("/", 1)[-1]
        if len(w) > word:
            w = w[: word - 1] + "…"
        words.append(w)
    out = " ".join(words)
    return out if len(out) <= total else out[: total - 1] + "…"


class SimPanel:
    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        gui = studio.gui
        self.title = gui.add_markdown("**robotsim studio**")
        row = gui.add_button_group("Simulation", ("Play", "Pause", "Step", "Reset"))
        self.buttons = row
        self.slider = gui.add_slider(
            "Time (s)", min=0.0, max=1.0, step=0.01, initial_value=0.0, disabled=True,
            hint="Scrub the recorded run: the scene shows the state at that time",
        )  # fmt: skip
        self.driver = gui.add_dropdown(
            "Drive",
            tuple(dict.fromkeys((*studio.driver_names(), studio.driver_name))),
            initial_value=studio.driver_name,
        )
        self.readout = gui.add_markdown("")
        self._last = (time.perf_counter(), 0, 0)
        self._seek_lock = threading.Lock()
        self._wanted: float | None = None  # the latest typed time not yet sought (s)
        self._seeking = False  # a worker is seeking: the slider keeps the typed value
        self._written = self.slider.value  # the slider value this panel last wrote

        @row.on_click
        @studio.guarded("simulation")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            action = event.target.value
            if action == "Play":
                studio.play(True)
            elif action == "Pause":
                studio.play(False)
            elif action == "Step":
                studio.play(False)
                studio.step()
            elif action == "Reset":
                studio.reset()

        @self.slider.on_update
        async def _(event) -> None:  # type: ignore[no-untyped-def]
            # a coroutine: viser awaits it on its event loop right after applying the
            # message, so the value read here is this message's own
            if event.client is not None:
                self.typed(float(self.slider.value))

        @self.driver.on_update
        @studio.guarded("drive")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            if event.client is not None:
                studio.set_driver(self.driver.value)

        studio.on("clock", self.refresh)
        studio.on("robots", self.refresh)
        studio.on("driver", self.refresh)
        self.refresh()

    def refresh(self) -> None:
        st = self.studio
        now = time.perf_counter()
        t0, n0, d0 = self._last
        rate = (st.updates - n0) / (now - t0) if now > t0 else 0.0
        dropping = st.playing and st.dropped > d0
        self._last = (now, st.updates, st.dropped)
        state = "playing" if st.playing else "paused"
        self.title.content = f"**robotsim studio** — {short_title(st.title)}"
        name = st.driver_name
        if name not in self.driver.options:
            # unique values: the page's dropdown stops rendering on duplicates
            self.driver.options = tuple(dict.fromkeys((*st.driver_names(), name)))
        if self.driver.value != name:
            self.driver.value = name
        self.readout.content = (
            f"t = {st.time:.2f} s · {state} · real-time factor "
            f"{st.real_time_factor:.2f} · {rate:.0f} scene updates/s" + self.lag_note(dropping)
        )
        self.refresh_slider()

    def lag_note(self, dropping: bool) -> str:
        """What the readout says while a page draws slower than the simulation ticks:
        the slowest page's frame rate; the simulation keeps its pace, frames are
        dropped (:mod:`robotsim.studio.pacing`)."""
        if not dropping:
            return ""
        rates = self.studio.page_frame_rates()
        slowest = f"{min(rates):.2g} frames/s" if rates else "slowly"
        return (
            f" · a page lags: it draws {slowest}, frames are dropped"
            " (the simulation keeps its pace)"
        )

    def typed(self, value: float) -> None:
        """A time (s) the page's slider or number box sent: seek to it on a worker
        thread (the latest of several quick ones; never on the caller's thread, which
        is viser's event loop)."""
        with self._seek_lock:
            self._wanted = float(value)
            if self._seeking:
                return
            self._seeking = True
        threading.Thread(target=self._seek_typed, name="studio-seek", daemon=True).start()

    def _seek_typed(self) -> None:
        while True:
            with self._seek_lock:
                value, self._wanted = self._wanted, None
            if value is not None:
                try:
                    self.studio.seek(value)
                except Exception as exc:  # a notification, never a crash
                    self.studio.report_error("time slider", exc)
                continue
            self._written = self.slider.value  # the page's value was taken
            self._place_slider()
            with self._seek_lock:
                if self._wanted is None:  # else one more came meanwhile: seek it too
                    self._seeking = False
                    return

    @property
    def seeking(self) -> bool:
        """A typed time is still being sought."""
        with self._seek_lock:
            return self._seeking

    def refresh_slider(self) -> None:
        """The slider spans the driver's recorded run and sits at the current time
        (unless a typed time is being sought: the slider keeps it until then)."""
        st = self.studio
        end = st.recorded_end()
        slider = self.slider
        if end is None:
            slider.disabled = True
            slider.max = 1.0
            slider.value = self._written = 0.0
            return
        slider.disabled = False
        top = max(round(end, 2), 0.01)
        if slider.max != top:
            slider.max = top
        if self.seeking or slider.value != self._written:
            return  # a value from the page: its seek comes (and then this refresh)
        self._place_slider()

    def _place_slider(self) -> None:
        """Put the slider at the current time (within its range)."""
        slider = self.slider
        value = min(round(self.studio.time, 2), slider.max)
        if abs(slider.value - value) > 0.005:
            slider.value = self._written = value
