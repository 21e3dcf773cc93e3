"""The studio's GUI panels, one module each.

:func:`build_panels` adds the always-visible simulation controls and one tab per panel
in :data:`TABS`. A capability adds its panel by appending a class to ``TABS`` (before
the studio is created): the class is called as ``Panel(studio)`` inside its tab and
keeps itself up to date through ``studio.on(event, ...)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from robotsim.studio.mobile.panel import MobilePanel
from robotsim.studio.panels.clearance import ClearancePanel
from robotsim.studio.panels.files import FilesPanel
from robotsim.studio.panels.motion import MotionPanel
from robotsim.studio.panels.pose import PosePanel
from robotsim.studio.panels.sim import SimPanel
from robotsim.studio.panels.view import ViewPanel

if TYPE_CHECKING:
    from robotsim.studio.app import Studio

__all__ = [
    "TABS",
    "ClearancePanel",
    "FilesPanel",
    "MotionPanel",
    "PosePanel",
    "SimPanel",
    "ViewPanel",
    "build_panels",
]

# (tab label, icon name, panel class)
TABS: list[tuple[str, str, Any]] = [
    ("Pose", "hand-finger", PosePanel),
    ("Motion", "movie", MotionPanel),
    ("Mobile", "car", MobilePanel),
    ("Clearance", "ruler-measure", ClearancePanel),
    ("Open", "folder-open", FilesPanel),
    ("View", "eye", ViewPanel),
]


def build_panels(studio: Studio) -> dict[str, Any]:
    """Create every panel; returns them by name (``sim`` and each tab label)."""
    gui = studio.server.gui
    panels: dict[str, Any] = {"sim": SimPanel(studio)}
    tabs = gui.add_tab_group()
    for label, _icon, cls in TABS:
        # Labels only: with icons, five tabs no longer fit on one row.
        with tabs.add_tab(label):
            panels[label.lower()] = cls(studio)
    return panels
