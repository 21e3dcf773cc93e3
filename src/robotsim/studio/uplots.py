"""Plots of signals against simulated time in the studio's panels (viser's uPlot).

uPlot reads x values as UNIX timestamps unless told otherwise, which labels an axis of
simulated seconds with calendar dates ("1970", "1/1/70 12:00am"). :func:`time_plot`
adds a plot whose x axis is plain seconds, both axes labelled, in fonts readable at
the panel's width, with room above the plot so the top value is not clipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["TIME_LABEL", "time_axes", "time_plot", "time_series"]

TIME_LABEL = "time (s)"
_FONT = "13px system-ui, sans-serif"
_LABEL_FONT = "bold 13px system-ui, sans-serif"


def time_axes(y_label: str) -> dict[str, Any]:
    """``add_uplot`` keyword arguments: x in seconds (not dates), both axes labelled."""
    axis = {
        "font": _FONT,
        "labelFont": _LABEL_FONT,
        "labelSize": 22,
        "stroke": "#333",
        "grid": {"stroke": "rgba(0, 0, 0, 0.12)", "width": 1},
        "ticks": {"show": True, "stroke": "#999", "size": 4},
    }
    return {
        "scales": {"x": {"time": False, "auto": True}, "y": {"auto": True}},
        "axes": (
            {**axis, "label": TIME_LABEL, "space": 50},
            {**axis, "label": y_label, "size": 54, "space": 30},
        ),
        "padding": (18, 18, 0, 0),  # top, right, bottom, left (px): the top value shows
    }


def time_series(names: Sequence[str], colors: Sequence[str]) -> tuple[dict[str, Any], ...]:
    """uPlot series: the time axis, then one line per name (value shown with 3 digits)."""
    return (
        {"label": TIME_LABEL},
        *({"label": n, "stroke": c, "width": 2} for n, c in zip(names, colors, strict=False)),
    )


def time_plot(gui: Any, title: str, y_label: str, names: Sequence[str] = ("value",),
              colors: Sequence[str] = ("#2060c0",), aspect: float = 1.6) -> Any:  # fmt: skip
    """A uPlot of ``len(names)`` signals against simulated time (s), empty at first."""
    t = np.zeros(2)
    return gui.add_uplot(
        (t, *(np.zeros(2) for _ in names)),
        time_series(names, colors),
        title=title,
        aspect=aspect,
        **time_axes(y_label),
    )
