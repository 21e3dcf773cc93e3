"""Input mappings: which axis, button, D-pad direction or key drives which command.

A mapping is a small YAML file (``format: robotsim-input/1``; see ``docs/input.md``)::

    format: robotsim-input/1
    name: my_pad
    units: deg                       # of speed_levels (deg/s) — or rad
    speed_levels: [10, 20, 45, 90]   # joint speed steps (the arm paper's m_speed)
    speed_start: 2                   # index of the starting level
    base_max: {vx: 0.5, vy: 0.5, omega: 1.0}   # m/s, m/s, rad/s at rate 1
    bindings:
      - {hat: 0, direction: up, joint: "{side}_shoulder_x", rate: 1}
      - {axis: 1, deadzone: 0.15, base: vx, rate: -1}
      - {button: 1, action: grasp}
      - {key: "+", action: speed_up}

Each binding has one *source* — ``hat`` + ``direction`` (up/down/left/right),
``axis`` (+ ``deadzone``), ``button`` (0-based SDL index) or ``key`` — and one
*target* — ``joint`` (+ ``rate``), ``base`` (vx/vy/omega, + ``rate``) or ``action``
(grasp, release, speed_up, speed_down, switch — what ``switch`` switches is up to the
consumer: teleoperation uses it to move the keyboard to the other arm; and the live
parameters of :mod:`robotsim.teleop.params`: time_faster/slower, gain_up/down,
max_speed_up/down, level_up/down, mass_up/down, friction_up/down). Joint names may
hold ``{placeholders}`` filled in when the mapping is bound (``{side}`` -> ``L`` or
``R`` for two arms).

Built-in mappings (``load_mapping(NAME)``): ``arm_paper``, ``mobile_base``,
``keyboard_arm``, ``keyboard_base``, and the studio's live-parameter mappings
``keyboard_studio`` and ``gamepad_studio``.
"""

from __future__ import annotations

import math
import os
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from robotsim.errors import InputError, UnknownNameError
from robotsim.file_scope import check_readable
from robotsim.validation import safe_load

__all__ = [
    "ACTIONS",
    "BASE_AXES",
    "Binding",
    "InputMapping",
    "builtin_mappings",
    "load_mapping",
    "parse_mapping",
]

FORMAT = "robotsim-input/1"
ACTIONS = (
    "grasp",
    "release",
    "speed_up",
    "speed_down",
    "switch",
    # live parameters (robotsim.teleop.params): simulation time scale, gains, max speed,
    # the speed level of a playing motion
    "time_faster",
    "time_slower",
    "gain_up",
    "gain_down",
    "max_speed_up",
    "max_speed_down",
    "level_up",
    "level_down",
    # model parameters of a running simulation (seed 002): the robots' masses, friction
    "mass_up",
    "mass_down",
    "friction_up",
    "friction_down",
)
BASE_AXES = ("vx", "vy", "omega")
DIRECTIONS = {"up": (1, 1), "down": (1, -1), "right": (0, 1), "left": (0, -1)}
_LIBRARY = Path(__file__).with_name("mappings")
_SOURCES = ("hat", "axis", "button", "key")
_TARGETS = ("joint", "base", "action")
_TOP_KEYS = (
    "format",
    "name",
    "description",
    "units",
    "speed_levels",
    "speed_start",
    "base_max",
    "bindings",
)
_BINDING_KEYS = (*_SOURCES, "direction", "deadzone", *_TARGETS, "rate")


@dataclass(frozen=True)
class Binding:
    """One source -> one target (see the module doc). ``rate`` in [-1, 1]."""

    source: str  # hat | axis | button | key
    index: int | None  # hat/axis/button number
    key: str | None
    direction: str | None
    deadzone: float
    target: str  # joint | base | action
    name: str  # joint name (may hold placeholders), base axis or action
    rate: float

    def value(
        self,
        axes: tuple[float, ...],
        buttons: tuple[bool, ...],
        hats: tuple[tuple[int, int], ...],
        keys: frozenset[str],
    ) -> float:
        """The source's current value in [-1, 1] (0 if the device lacks it)."""
        if self.source == "button":
            return (
                1.0
                if self.index is not None and self.index < len(buttons) and buttons[self.index]
                else 0.0
            )
        if self.source == "key":
            return 1.0 if self.key in keys else 0.0
        if self.source == "hat":
            if self.index is None or self.index >= len(hats):
                return 0.0
            comp, sign = DIRECTIONS[self.direction or "up"]
            return 1.0 if hats[self.index][comp] == sign else 0.0
        if self.index is None or self.index >= len(axes):
            return 0.0
        v = float(axes[self.index])
        if abs(v) <= self.deadzone:
            return 0.0
        return math.copysign((abs(v) - self.deadzone) / (1.0 - self.deadzone), v)


@dataclass(frozen=True)
class InputMapping:
    """A parsed mapping file. ``speed_levels`` in rad/s; ``base_max`` m/s, m/s, rad/s."""

    name: str
    description: str
    speed_levels: tuple[float, ...]
    speed_start: int
    base_max: tuple[float, float, float]
    bindings: tuple[Binding, ...]
    source: str = "<memory>"

    def placeholders(self) -> set[str]:
        out: set[str] = set()
        for b in self.bindings:
            if b.target == "joint":
                out |= {f for _, f, _, _ in string.Formatter().parse(b.name) if f}
        return out

    def joint_names(self, variables: Mapping[str, str] | None = None) -> list[str]:
        """The joints this mapping drives, placeholders filled from ``variables``."""
        names: dict[str, None] = {}
        for b in self.bindings:
            if b.target == "joint":
                names.setdefault(self.resolve(b.name, variables))
        return list(names)

    def resolve(self, name: str, variables: Mapping[str, str] | None = None) -> str:
        try:
            return name.format_map(dict(variables or {}))
        except KeyError as exc:
            raise InputError(
                f"{self.source}: joint {name!r} needs a value for "
                f"{{{exc.args[0]}}} (pass variables={{'{exc.args[0]}': ...}})"
            ) from None

    def check_joints(
        self, valid: Iterable[str], variables: Mapping[str, str] | None = None
    ) -> None:
        """Raise :class:`UnknownNameError` for a mapped joint not in ``valid``."""
        valid = tuple(valid)
        for n in self.joint_names(variables):
            if n not in valid:
                raise UnknownNameError(f"joint (in input mapping {self.source})", n, valid)


def _err(src: str, where: str, msg: str) -> InputError:
    return InputError(f"{src}: {where}: {msg}")


def _number(src: str, where: str, v: Any, lo: float = -math.inf, hi: float = math.inf) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise _err(src, where, f"expected a number, got {v!r}")
    if not lo <= v <= hi:
        raise _err(src, where, f"{v} is outside [{lo:g}, {hi:g}]")
    return float(v)


def _index(src: str, where: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise _err(src, where, f"expected a 0-based index (integer >= 0), got {v!r}")
    return v


def _binding(src: str, i: int, raw: Any) -> Binding:
    where = f"bindings[{i}]"
    if not isinstance(raw, dict):
        raise _err(src, where, f"expected a mapping like {{button: 1, action: grasp}}, got {raw!r}")
    for k in raw:
        if k not in _BINDING_KEYS:
            raise _err(src, f"{where}.{k}", f"unknown key; valid: {', '.join(_BINDING_KEYS)}")
    sources = [k for k in _SOURCES if k in raw]
    targets = [k for k in _TARGETS if k in raw]
    if len(sources) != 1:
        raise _err(
            src,
            where,
            f"needs exactly one source of {', '.join(_SOURCES)}; "
            f"got {', '.join(sources) or 'none'}",
        )
    if len(targets) != 1:
        raise _err(
            src,
            where,
            f"needs exactly one target of {', '.join(_TARGETS)}; "
            f"got {', '.join(targets) or 'none'}",
        )
    source, target = sources[0], targets[0]
    index = key = direction = None
    if source == "key":
        key = raw["key"]
        if not isinstance(key, str | int) or str(key) == "":
            raise _err(src, f"{where}.key", f"expected a key name, got {key!r}")
        key = str(key).lower() if len(str(key)) == 1 else str(key)
    else:
        index = _index(src, f"{where}.{source}", raw[source])
    if source == "hat":
        direction = raw.get("direction")
        if direction not in DIRECTIONS:
            raise _err(
                src, f"{where}.direction", f"{direction!r} is not one of {', '.join(DIRECTIONS)}"
            )
    elif "direction" in raw:
        raise _err(src, f"{where}.direction", "only hat bindings have a direction")
    deadzone = 0.0
    if "deadzone" in raw:
        if source != "axis":
            raise _err(src, f"{where}.deadzone", "only axis bindings have a deadzone")
        deadzone = _number(src, f"{where}.deadzone", raw["deadzone"], 0.0, 0.95)
    name = raw[target]
    if target == "joint":
        if not isinstance(name, str) or not name:
            raise _err(src, f"{where}.joint", f"expected a joint name, got {name!r}")
    elif target == "base":
        if name not in BASE_AXES:
            raise _err(src, f"{where}.base", f"{name!r} is not one of {', '.join(BASE_AXES)}")
    elif name not in ACTIONS:
        raise _err(src, f"{where}.action", f"{name!r} is not one of {', '.join(ACTIONS)}")
    if target == "action":
        if "rate" in raw:
            raise _err(src, f"{where}.rate", "actions have no rate")
        rate = 1.0
    else:
        rate = _number(src, f"{where}.rate", raw.get("rate", 1.0), -1.0, 1.0)
    return Binding(source, index, key, direction, deadzone, target, name, rate)


def parse_mapping(data: Any, source: str = "<memory>") -> InputMapping:
    """A mapping from parsed YAML (a dict); errors name ``source`` and the field."""
    if not isinstance(data, dict):
        raise InputError(
            f"{source}: an input mapping must be a YAML mapping, got {type(data).__name__}"
        )
    for k in data:
        if k not in _TOP_KEYS:
            raise _err(source, str(k), f"unknown key; valid: {', '.join(_TOP_KEYS)}")
    if data.get("format") != FORMAT:
        raise _err(source, "format", f"expected {FORMAT!r}, got {data.get('format')!r}")
    units = data.get("units", "rad")
    if units not in ("rad", "deg"):
        raise _err(source, "units", f"{units!r} is not one of rad, deg")
    scale = math.pi / 180.0 if units == "deg" else 1.0
    levels_raw = data.get("speed_levels", [0.2, 0.5, 1.0] if units == "rad" else [10, 30, 60])
    if not isinstance(levels_raw, list) or not levels_raw:
        raise _err(source, "speed_levels", f"expected a non-empty list, got {levels_raw!r}")
    levels = tuple(
        _number(source, f"speed_levels[{i}]", v, 1e-9) * scale for i, v in enumerate(levels_raw)
    )
    start_raw = data.get("speed_start", len(levels) // 2)
    start = _index(source, "speed_start", start_raw)
    if start >= len(levels):
        raise _err(source, "speed_start", f"{start} is outside 0..{len(levels) - 1}")
    bm = data.get("base_max", {})
    if not isinstance(bm, dict):
        raise _err(source, "base_max", f"expected {{vx: .., vy: .., omega: ..}}, got {bm!r}")
    for k in bm:
        if k not in BASE_AXES:
            raise _err(source, f"base_max.{k}", f"unknown key; valid: {', '.join(BASE_AXES)}")
    defaults = {"vx": 0.5, "vy": 0.5, "omega": 1.0}
    base_max = tuple(
        _number(source, f"base_max.{k}", bm.get(k, defaults[k]), 0.0) for k in BASE_AXES
    )
    raw_b = data.get("bindings")
    if not isinstance(raw_b, list) or not raw_b:
        raise _err(source, "bindings", "expected a non-empty list of bindings")
    bindings = tuple(_binding(source, i, b) for i, b in enumerate(raw_b))
    name = data.get("name", Path(source).stem)
    bx, by, bw = base_max
    return InputMapping(
        str(name), str(data.get("description", "")), levels, start, (bx, by, bw), bindings, source
    )


def builtin_mappings() -> list[str]:
    return sorted(p.stem for p in _LIBRARY.glob("*.yaml"))


def load_mapping(name_or_path: str | os.PathLike[str]) -> InputMapping:
    """A built-in mapping by name (see :func:`builtin_mappings`) or a YAML file."""
    text = os.fspath(name_or_path)
    path = Path(text)
    if not path.exists() and (_LIBRARY / f"{text}.yaml").exists():
        path = _LIBRARY / f"{text}.yaml"
    elif not path.exists():
        if text.endswith((".yaml", ".yml")) or os.sep in text:
            raise InputError(f"{text}: input mapping file not found")
        raise UnknownNameError("input mapping", text, builtin_mappings())
    check_readable(path)
    from robotsim.validation import MAX_YAML_BYTES, read_input_bytes

    text = read_input_bytes(path, lambda m: InputError(f"{path}: {m}"), MAX_YAML_BYTES)
    try:
        data = safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "?"
        raise InputError(
            f"{path}: {where}: not valid YAML: {getattr(exc, 'problem', exc)}"
        ) from None
    return parse_mapping(data, str(path))
