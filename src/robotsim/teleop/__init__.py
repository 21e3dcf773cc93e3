"""Input devices and mappings for teleoperation (see ``docs/input.md``).

Devices produce :class:`InputSnapshot` s — :class:`GamepadManager` (pygame/SDL 2, several
pads, hot-plug) and :class:`TerminalKeyboard`; a :class:`Mapper` applies an
:class:`InputMapping` (YAML) to turn them into :class:`TeleopCommand` s: joint rates,
base velocity, grasp/release, speed step. :class:`VirtualGamepad` is a software pad.
"""

from robotsim.teleop.command import TeleopCommand as TeleopCommand
from robotsim.teleop.gamepad import GamepadInfo as GamepadInfo
from robotsim.teleop.gamepad import GamepadManager as GamepadManager
from robotsim.teleop.gamepad import InputSnapshot as InputSnapshot
from robotsim.teleop.keyboard import TerminalKeyboard as TerminalKeyboard
from robotsim.teleop.keyboard import decode_keys as decode_keys
from robotsim.teleop.keys import HeldKeys as HeldKeys
from robotsim.teleop.keys import browser_key as browser_key
from robotsim.teleop.mapper import Mapper as Mapper
from robotsim.teleop.mapping import ACTIONS as ACTIONS
from robotsim.teleop.mapping import Binding as Binding
from robotsim.teleop.mapping import InputMapping as InputMapping
from robotsim.teleop.mapping import builtin_mappings as builtin_mappings
from robotsim.teleop.mapping import load_mapping as load_mapping
from robotsim.teleop.mapping import parse_mapping as parse_mapping
from robotsim.teleop.params import LiveParameters as LiveParameters
from robotsim.teleop.sdl_virtual import VirtualGamepad as VirtualGamepad

__all__ = [
    "ACTIONS",
    "Binding",
    "GamepadInfo",
    "GamepadManager",
    "HeldKeys",
    "InputMapping",
    "InputSnapshot",
    "LiveParameters",
    "Mapper",
    "TeleopCommand",
    "TerminalKeyboard",
    "VirtualGamepad",
    "browser_key",
    "builtin_mappings",
    "decode_keys",
    "load_mapping",
    "parse_mapping",
]
