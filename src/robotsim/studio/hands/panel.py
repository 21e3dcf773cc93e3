"""The Teleop tab of the hands: the devices, per-finger touch flags, grasp state, the
speed step and the events, refreshed with the studio clock."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from robotsim.hands.teleop import HandsTeleop
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["HandsPanel", "hands_status_markdown", "key_bindings", "key_table_markdown"]


def key_bindings(teleop: HandsTeleop) -> list[tuple[str, str]]:
    """``(key, what it does)`` for every key of the teleop's keyboard mapping, in the
    mapping's order, keys that do the same thing joined (``"+ / ="``)."""
    from robotsim.studio.keyboard import key_label

    mapper = teleop.key_mapper
    if mapper is None:
        return []
    does: dict[str, list[str]] = {}
    for b in mapper.mapping.bindings:
        if b.source != "key" or b.key is None:
            continue
        if b.target == "joint":
            joint = mapper.mapping.resolve(b.name, mapper.variables)
            what = f"{joint} {'+' if b.rate > 0 else '−'}"
        elif b.target == "base":
            what = f"base {b.name} {'+' if b.rate > 0 else '−'}"
        else:
            what = b.name.replace("_", " ")
        does.setdefault(what, []).append(key_label(b.key))
    return [(" / ".join(keys), what) for what, keys in does.items()]


def key_table_markdown(teleop: HandsTeleop) -> str:
    """The key bindings as a markdown table ('' without a keyboard mapping)."""
    rows = key_bindings(teleop)
    if not rows:
        return ""
    return "| key | does |\n|---|---|\n" + "\n".join(f"| {k} | {w} |" for k, w in rows)


def hands_status_markdown(teleop: HandsTeleop) -> str:
    """The panel text: devices, per-hand flags, the ball, the last events."""
    st = teleop.sim.snapshot()
    lines = [f"**mode**: {teleop.sim.mode} · t = {st.t:.2f} s"]
    lines += [f"- {d}" for d in teleop.devices()]
    if getattr(teleop, "params", None) is not None:
        lines.append(f"**parameters**: {teleop.params.status()}")
    for side, h in st.hands.items():
        fingers = " ".join("●" if b else "○" for b in h.touching)
        cmd = teleop.last_commands.get(side)
        speed = f"{np.degrees(cmd.speed):.0f}°/s" if cmd is not None else "-"
        flags = ", ".join(
            f for f, on in (("grasped", h.grasped), ("locked", not h.can_move),
                            ("blocked", h.blocked)) if on
        ) or "free"  # fmt: skip
        lines.append(f"**{side}** touch {fingers} · {flags} · speed {speed}")
    p = st.ball_position
    held = "both hands" if st.held_by_both else (", ".join(st.grasped_by) or "nobody")
    where = f"resting on {st.ball_surface}" if st.ball_resting else "moving"
    obj = getattr(teleop.sim.scene, "obj", None)
    what = "ball" if obj is None else obj.name
    lines.append(f"**{what}** ({p[0]:.3f}, {p[1]:.3f}, {p[2]:.3f}) m · held by {held} · {where}")
    events = teleop.sim.observable.events[-6:]
    if events:
        lines.append("**events**: " + "; ".join(
            f"{e.t:.2f} {e.type}{'' if e.hand is None else ' ' + e.hand}"
            f"{' (' + e.detail + ')' if e.detail else ''}" for e in events
        ))  # fmt: skip
    return "\n\n".join(lines)


class HandsPanel:
    """The "Teleop" tab: what the hands are doing, refreshed with the studio clock."""

    def __init__(self, studio: Studio, teleop: HandsTeleop) -> None:
        self.studio = studio
        self.teleop = teleop
        gui = studio.gui
        self.held = gui.add_markdown("")
        self.text = gui.add_markdown("")
        from robotsim.studio.keyboard import BrowserKeyboard

        kb = teleop.keyboard_device
        self.keyboard = kb if isinstance(kb, BrowserKeyboard) else None
        if self.keyboard is not None:
            bound = () if teleop.key_mapper is None else [
                b.key for b in teleop.key_mapper.mapping.bindings if b.key is not None
            ]  # fmt: skip
            self.keyboard.install(gui, studio.port, bound)
        if self.keyboard is not None:
            self.keyboard.listeners.append(self.refresh_held)
        table = key_table_markdown(teleop)
        self.keys = gui.add_markdown(
            "**keys** (click the 3D view first; they drive the arm, not the camera)\n\n" + table
            if table else ""
        )  # fmt: skip
        self.reset = gui.add_button("Reset hands and ball", icon="refresh")  # type: ignore[arg-type]

        @self.reset.on_click
        @studio.guarded("reset hands")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            studio.reset()
            studio.play(True)

        studio.on("clock", self.refresh)
        studio.on("state", self.refresh)
        self.refresh()

    def refresh(self) -> None:
        self.text.content = hands_status_markdown(self.teleop)
        self.refresh_held()

    def refresh_held(self) -> None:
        """The held keys, at once on every key event of the page."""
        if self.keyboard is not None:
            self.held.content = self.keyboard.status()
