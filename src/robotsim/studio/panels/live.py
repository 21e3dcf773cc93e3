"""The Live parameters section under the simulation controls: the time scale, gains,
maximum speed and motion speed level in effect (:mod:`robotsim.teleop.params`), the
devices that change them (:mod:`robotsim.studio.live`), and a tick that lets the page
keyboard change them (the ``keyboard_studio`` keys; only those keys leave the camera).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["LivePanel", "key_hints"]

KEYBOARD = "keyboard (page)"
_WHAT = MappingProxyType(
    {
        "level_up": "speed level +1",
        "level_down": "speed level −1",
        "time_faster": "time ×2",
        "time_slower": "time ÷2",
        "gain_up": "gains ×1.25",
        "gain_down": "gains ÷1.25",
        "max_speed_up": "max speed ×1.25",
        "max_speed_down": "max speed ÷1.25",
    }
)


def key_hints(mapping: Any) -> str:
    """``M speed level +1 · N speed level −1 · ...`` for a keyboard mapping."""
    from robotsim.studio.keyboard import key_label

    return " · ".join(
        f"{key_label(b.key)} {_WHAT.get(b.name, b.name)}"
        for b in mapping.bindings
        if b.key is not None and b.target == "action"
    )


class LivePanel:
    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        self.keyboard: Any = None
        gui = studio.gui
        self.folder = gui.add_folder("Live parameters", expand_by_default=False)
        with self.folder:
            self.readout = gui.add_markdown("")
            self.use_keys = gui.add_checkbox(
                "Keyboard", initial_value=False,
                hint="Let the page's keys change the live parameters (N/M motion speed "
                "level, ]/[ time scale, ./, gains, >/< max speed, K/J mass, P/O "
                "friction); the other keys still move the camera",
            )  # fmt: skip
            self.hints = gui.add_markdown("")

        @self.use_keys.on_update
        @studio.guarded("live keyboard")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            if event.client is not None:
                self.set_keyboard(self.use_keys.value)

        studio.on("clock", self.refresh)
        studio.on("params", self.refresh)
        self.refresh()

    def set_keyboard(self, on: bool) -> None:
        """Read (or stop reading) the page keyboard through ``keyboard_studio``."""
        from robotsim.studio.keyboard import BrowserKeyboard
        from robotsim.studio.live import DEFAULT_KEYBOARD_MAPPING

        live = self.studio.live
        if not on:
            live.remove(KEYBOARD)
            self.hints.content = ""
        elif KEYBOARD not in live.names():
            mapper = live.add(KEYBOARD, self._poll_keys, DEFAULT_KEYBOARD_MAPPING)
            if self.keyboard is None:  # the endpoint and the page script, once
                self.keyboard = BrowserKeyboard(getattr(self.studio, "host", "127.0.0.1"))
                live.add_closer(self.keyboard.close)
                keys = [b.key for b in mapper.mapping.bindings if b.key is not None]
                with self.folder:
                    self.keyboard.install(self.studio.gui, self.studio.port, keys, every=False)
            self.hints.content = "keys: " + key_hints(mapper.mapping)
        if self.use_keys.value != on:
            self.use_keys.value = on
        self.refresh()

    def _poll_keys(self) -> Any:
        return None if self.keyboard is None else self.keyboard.poll()

    def refresh(self) -> None:
        st = self.studio
        devices = ", ".join(st.live.names()) or "none (tick Keyboard, or --gamepad SLOT)"
        self.readout.content = f"{st.params.status()}\n\ndevices: {devices}"
