"""Clearance (seed 004): the distance-versus-time curves of every robot pair with a
cursor at the scene time, and a readout per pair (distance now, minimum and when,
collision intervals). Active while a clearance scenario drives the studio.

The curves are drawn once with matplotlib when a scenario opens; the cursor is a
vertical line painted onto a copy of that picture, so moving it costs no replot.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from robotsim.studio.clearance.driver import ClearanceDriver
from robotsim.studio.clearance.plan_section import PlanSection
from robotsim.studio.coalesce import Coalesced

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["CURSOR_RGB", "ClearancePanel", "CurvePlot", "draw_curves"]

_IDLE = (
    "**No clearance scenario is open.** Open a clearance scenario (Open tab → Scenario → "
    "three_puma_clearance → Open scenario) to see its robots' distances here."
)
_PLACEHOLDER = np.full((8, 8, 3), 245, dtype=np.uint8)
CURSOR_RGB = (20, 20, 20)
_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf")


class CurvePlot:
    """A rendered plot ``image (H, W, 3)`` and where its time axis lies in pixels:
    column ``x0`` is time ``t0`` and ``x1`` is ``t1`` (s); rows ``y0..y1`` are the axes."""

    def __init__(self, image: np.ndarray, t0: float, t1: float,
                 x0: float, x1: float, y0: int, y1: int) -> None:  # fmt: skip
        self.image, self.t0, self.t1 = image, t0, t1
        self.x0, self.x1, self.y0, self.y1 = x0, x1, y0, y1

    def column(self, t: float) -> int:
        """The pixel column of time ``t`` (s, clamped to the axis)."""
        s = 0.0 if self.t1 <= self.t0 else (min(max(t, self.t0), self.t1) - self.t0)
        s = s / (self.t1 - self.t0) if self.t1 > self.t0 else 0.0
        return round(self.x0 + s * (self.x1 - self.x0))

    def with_cursor(self, t: float) -> np.ndarray:
        """A copy of the plot with a 2-pixel vertical line at time ``t``."""
        img = self.image.copy()
        c = self.column(t)
        img[self.y0 : self.y1, max(c - 1, 0) : c + 1] = CURSOR_RGB
        return img


def draw_curves(d: ClearanceDriver, width_px: int = 480, height_px: int = 300) -> CurvePlot:
    """The distance curves of every pair (``inf`` beyond the cutoff left out), the
    contact threshold and the collision intervals shaded, as a :class:`CurvePlot`."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    res = d.result
    t = np.asarray(res.times)
    fig = Figure(figsize=(width_px / 100, height_px / 100), dpi=100)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for k, (name, pair) in enumerate(res.pairs.items()):
        c = _COLOURS[k % len(_COLOURS)]
        y = np.where(np.isfinite(pair.distance), pair.distance, np.nan)
        ax.plot(t, y, color=c, lw=1.5, label=name)
        for a, b in pair.collision_intervals:
            ax.axvspan(a, b, color=c, alpha=0.15, lw=0)
        if math.isfinite(pair.min_distance):
            ax.plot([pair.t_min], [pair.min_distance], "o", color=c, ms=4)
    ax.axhline(d.threshold, color="#d02020", ls="--", lw=1, label="contact")
    ax.set_xlim(float(t[0]), float(t[-1]))
    ax.set_xlabel("t (s)")
    ax.set_ylabel("distance (m)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout(pad=0.4)
    canvas.draw()
    img = np.asarray(canvas.buffer_rgba())[..., :3].copy()
    h = img.shape[0]
    (x0, ya), (x1, yb) = ax.transData.transform([(t[0], ax.get_ylim()[0]),
                                                  (t[-1], ax.get_ylim()[1])])  # fmt: skip
    return CurvePlot(img, float(t[0]), float(t[-1]), float(x0), float(x1),
                     round(h - float(yb)), round(h - float(ya)))  # fmt: skip


def _interval_text(ivs: tuple[tuple[float, float], ...]) -> str:
    if not ivs:
        return "no collision"
    return "collisions " + ", ".join(f"{a:.2f}–{b:.2f} s" for a, b in ivs)


class ClearancePanel:
    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        gui = studio.gui
        self.status = gui.add_markdown(_IDLE)
        self.show_volumes = gui.add_checkbox("Show volumes", initial_value=True,
                                             hint="The bounding volumes, coloured by "
                                             "distance (red: in contact)")  # fmt: skip
        self.show_paths = gui.add_checkbox("Show paths", initial_value=True,
                                           hint="Every robot's end-link path over the "
                                           "run (the paper's Fig. 9)")  # fmt: skip
        self.plot_image = gui.add_image(_PLACEHOLDER, label="Distance vs time", format="png",
                                        visible=False)  # fmt: skip
        self.readout = gui.add_markdown("")
        self.plan = PlanSection(studio)
        self.plot: CurvePlot | None = None
        self.cursor_t: float | None = None  # the time the cursor shows (s)
        self._driver: ClearanceDriver | None = None
        self._refresh = Coalesced(lambda _force: self._draw())

        @self.show_volumes.on_update
        @studio.guarded("show volumes")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            d = self.driver
            if d is not None:
                d.set_volumes_visible(self.show_volumes.value)

        @self.show_paths.on_update
        @studio.guarded("show paths")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            d = self.driver
            if d is not None:
                d.set_paths_visible(self.show_paths.value)

        studio.on("driver", self.on_driver)
        studio.on("robots", self.on_driver)
        studio.on("clock", self.refresh)
        studio.on("state", self.refresh)

    @property
    def driver(self) -> ClearanceDriver | None:
        return self.studio.driver_as(ClearanceDriver)

    def on_driver(self) -> None:
        d = self.driver
        if d is not self._driver:
            self._driver = d
            self.plot = None if d is None else draw_curves(d)
            self.cursor_t = None
            if d is not None:
                d.set_volumes_visible(self.show_volumes.value)
                d.set_paths_visible(self.show_paths.value)
        self.refresh()

    def refresh(self) -> None:
        """The readout and the cursor at the driver's time (one thread at a time; a
        request made during a refresh is served by a second pass, never dropped)."""
        self._refresh()

    def _draw(self) -> None:
        d = self.driver
        if d is None or d is not self._driver or self.plot is None:
            if d is None:
                self.status.content = _IDLE
                self.readout.content = ""
                self.plot_image.image = _PLACEHOLDER
                self.plot_image.visible = False
            return
        self.plot_image.visible = True
        with self.studio.locked():
            t, now = d.t, dict(d.now)
        state = "finished" if d.finished else f"t = {t:.2f} s"
        self.status.content = (
            f"**{d.title}**: {state} of {d.end:g} s · contact at ≤ {d.threshold * 1000:g} mm"
        )
        lines = []
        for name, pair in d.result.pairs.items():
            cur = now.get(name, math.inf)
            flag = " · **IN CONTACT**" if cur <= d.threshold else ""
            mn = (f"min {pair.min_distance:.3f} m at {pair.t_min:.2f} s "
                  f"({pair.closest[0]} / {pair.closest[1]})"
                  if math.isfinite(pair.min_distance) else "beyond the cutoff")  # fmt: skip
            lines.append(
                f"**{name}** now {cur:.3f} m{flag}<br>{mn}<br>"
                f"{_interval_text(pair.collision_intervals)}"
            )
        self.readout.content = "<br><br>".join(lines)
        if self.cursor_t != t:
            self.plot_image.image = self.plot.with_cursor(t)
            self.cursor_t = t
