"""Every name in ``robotsim.motion.__all__`` and ``robotsim.robotlink.__all__`` imports."""

from __future__ import annotations

import robotsim.motion
import robotsim.robotlink


def test_all_names_import() -> None:
    for mod in (robotsim.motion, robotsim.robotlink):
        for name in mod.__all__:
            assert getattr(mod, name) is not None, f"{mod.__name__}.{name}"
