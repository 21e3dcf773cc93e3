"""A pty pair with the robot emulator on its master side (a real serial line)."""

from __future__ import annotations

import os
import tty
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from robotsim import load_robot
from robotsim.motion.profile import load_profile
from robotsim.robotlink import FaultPlan, FdTransport, RobotEmulator


@contextmanager
def emulated_robot(
    faults: FaultPlan | None = None, store: Path | None = None
) -> Iterator[tuple[str, RobotEmulator]]:
    """Yield ``(device path, emulator)``; the host opens the device path."""
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    emu = RobotEmulator(
        FdTransport(master, "pty master"),
        load_robot("humanoid17"),
        load_profile("humanoid17"),
        store=store,
        faults=faults,
    ).start()
    try:
        yield path, emu
    finally:
        emu.stop()
        if not emu.t.closed:  # type: ignore[attr-defined]
            emu.t.close()
        os.close(slave)
