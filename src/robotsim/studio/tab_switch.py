"""Bring a tab of the studio's panel to the front, in every page.

viser 1.1's tab group has no "active tab" property: a page starts on the first tab
and the user clicks the others. When the studio opens a scenario it should show that
scenario's tab (Mobile, Clearance, Sweep, Motion...), so :class:`TabSwitch` keeps one
invisible HTML element whose image fails to load and, in its ``onerror`` handler,
clicks the tab with that label (retrying for a few seconds while the page builds its
panel). Changing the label replaces the element, so every connected page switches,
and a page that connects later switches on load; a tab the user picks afterwards is
left alone.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["TabSwitch"]

_SCRIPT = (
    "(function(){{var n=0;function go(){{var t=Array.from(document.querySelectorAll("
    "'[role=tab]')).find(function(e){{return e.textContent.trim()==={label};}});"
    "if(t){{t.click();}}else if(n++<40){{setTimeout(go,100);}}}}go();}})()"
)


class TabSwitch:
    """One per studio: :meth:`show` brings the tab labelled ``label`` to the front."""

    def __init__(self, gui: Any) -> None:
        self.gui = gui
        self.label: str | None = None
        self._handle: Any = None
        self._serial = 0

    def show(self, label: str) -> None:
        if label == self.label:
            return
        self.label = label
        self._serial += 1
        js = _SCRIPT.format(label=json.dumps(label, allow_nan=False))
        js = js.replace("&", "&amp;").replace('"', "&quot;")
        # a new data URL each time: the page makes a new element, whose error fires
        html = f'<img src="data:,{self._serial}" alt="" style="display:none" onerror="{js}">'
        if self._handle is None:
            self._handle = self.gui.add_html(html)
        else:
            self._handle.content = html
