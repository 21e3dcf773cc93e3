"""The studio's GUI panels: the always-visible simulation controls and one tab each.

A studio is given its tabs (``Studio(tabs=...)``, a list of :class:`Tab`);
:func:`default_tabs` is the usual set: Pose, Motion, then the panel of every scenario
kind the studio opens (their ``studio_panel`` in :mod:`robotsim.scenario.kinds`), then
Open and View. A panel class is called as ``Panel(studio)`` inside its tab and keeps
itself up to date through ``studio.on(event, ...)``, using only the studio's panel
interface (:class:`robotsim.studio.interface.StudioAPI`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from robotsim.studio.motion.panel import MotionPanel
from robotsim.studio.panels.files import FilesPanel
from robotsim.studio.panels.live import LivePanel
from robotsim.studio.panels.pose import PosePanel
from robotsim.studio.panels.sim import SimPanel
from robotsim.studio.panels.view import ViewPanel

if TYPE_CHECKING:
    from robotsim.scenario.kinds import ScenarioKind
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = [
    "FilesPanel",
    "LivePanel",
    "MotionPanel",
    "PosePanel",
    "SimPanel",
    "Tab",
    "ViewPanel",
    "build_panels",
    "default_tabs",
]


@dataclass(frozen=True)
class Tab:
    """A tab: its label (the panel's key in ``studio.panels`` is ``label.lower()``), an
    icon name, and ``make(studio) -> panel``."""

    label: str
    icon: str
    make: Callable[[Studio], Any]


def default_tabs(
    kinds: Mapping[str, ScenarioKind] | Iterable[ScenarioKind] | None = None,
) -> list[Tab]:
    """Pose, Motion, each kind's panel (in registry order; default: every kind of
    :data:`robotsim.scenario.kinds.KINDS`), Open, View."""
    if kinds is None:
        from robotsim.scenario.kinds import KINDS

        kinds = KINDS
    ks = kinds.values() if isinstance(kinds, Mapping) else kinds
    kind_tabs = [
        Tab(k.panel_tab[0], k.panel_tab[1], k.load_panel())
        for k in ks
        if k.studio_panel is not None and k.panel_tab is not None
    ]
    return [
        Tab("Pose", "hand-finger", PosePanel),
        Tab("Motion", "movie", MotionPanel),
        *kind_tabs,
        Tab("Open", "folder-open", FilesPanel),
        Tab("View", "eye", ViewPanel),
    ]


#: The tab bar on one row (it wrapped to two at 1920x1080 with nine tabs): tighter tabs
#: that keep their width, and a row that scrolls sideways in a narrow panel rather than
#: wrapping. A style element in the panel's HTML applies to the whole page.
ONE_ROW_TABS = (
    "<style>[role=tablist]{flex-wrap:nowrap!important;overflow-x:auto;"
    "scrollbar-width:thin}[role=tablist]>[role=tab]{flex:0 0 auto;"
    "padding-left:0.3em!important;padding-right:0.3em!important;font-size:12px}</style>"
)


def build_panels(studio: Studio, tabs: Iterable[Tab]) -> dict[str, Any]:
    """Create every panel; returns them by name (``sim``, ``live`` and each tab label,
    lower case)."""
    gui = studio.gui
    panels: dict[str, Any] = {"sim": SimPanel(studio), "live": LivePanel(studio)}
    gui.add_html(ONE_ROW_TABS)
    group = gui.add_tab_group()
    for tab in tabs:
        # Labels only: with icons, five tabs no longer fit on one row.
        with group.add_tab(tab.label):
            panels[tab.label.lower()] = tab.make(studio)
    return panels
