"""Optional dependencies: which extra provides which module, and a clear error.

The base install (``pip install robotsim``) covers modelling, kinematics, physics,
scenarios, clearance, motion, the SQLite run store, the studio and the CLI. The
``io`` extra adds hardware and data exchange (serial link, Dynamixel servos, gamepads,
PostgreSQL, Parquet); ``browser`` adds Playwright for the studio's browser tests;
``export`` the MCAP, Rerun and video writers and the live Foxglove stream; ``gym``
Gymnasium.
:func:`require` imports a module of an extra or raises
:class:`~robotsim.errors.MissingExtraError` saying what to install.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from robotsim.errors import MissingExtraError

__all__ = ["EXTRA_OF", "missing_extra_message", "require"]

# top-level module name -> (extra, pip distribution)
EXTRA_OF: dict[str, tuple[str, str]] = {
    "serial": ("io", "pyserial"),
    "dynamixel_sdk": ("io", "dynamixel-sdk"),
    "pygame": ("io", "pygame"),
    "psycopg": ("io", "psycopg"),
    "pyarrow": ("io", "pyarrow"),
    "playwright": ("browser", "playwright"),
    "mcap": ("export", "mcap"),
    "mcap_protobuf": ("export", "mcap-protobuf-support"),
    "foxglove_schemas_protobuf": ("export", "foxglove-schemas-protobuf"),
    "rerun": ("export", "rerun-sdk"),
    "av": ("export", "av"),
    "websockets": ("export", "websockets"),
    "gymnasium": ("gym", "gymnasium"),
    "coacd": ("objects", "coacd"),
    "vhacdx": ("objects", "vhacdx"),
    "optuna": ("optimize", "optuna"),
    "cmaes": ("optimize", "cmaes"),
}


def missing_extra_message(module: str, needed_for: str) -> str:
    """``"<needed_for> needs the 'io' extra: pip install 'robotsim[io]' (...)"``."""
    top = module.split(".")[0]
    extra, dist = EXTRA_OF[top]
    return (
        f"{needed_for} needs the '{extra}' extra: pip install 'robotsim[{extra}]' "
        f"({dist} is not installed)"
    )


def require(module: str, needed_for: str) -> ModuleType:
    """Import ``module`` (listed in :data:`EXTRA_OF`); if it is not installed, raise
    :class:`MissingExtraError` naming ``needed_for`` and the extra to install."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != module.split(".")[0]:
            raise  # something inside the module is missing: not ours to explain
        raise MissingExtraError(missing_extra_message(module, needed_for)) from None
