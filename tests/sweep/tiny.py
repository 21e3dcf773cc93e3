"""Tiny sweeps for the tests: the P vs PD scenario for a fraction of a second (a helper
module; the fixture is in conftest.py)."""

from __future__ import annotations

from pathlib import Path

import yaml

TINY = {
    "format": "robotsim-sweep/1",
    "kind": "sweep",
    "name": "tiny",
    "base": "pid_p_vs_pd",
    "set": {"duration": 0.4},
    "design": "grid",
    "parameters": {
        "kp": {
            "path": ["robots.1.controller.gains.x.kp", "robots.1.controller.gains.y.kp"],
            "values": [1.0, 3.0],
        },
        "kd": {"path": "robots.1.controller.gains.x.kd", "values": [0.0, 0.4]},
    },
    "metrics": {"path_length": "robots.PD.path_length", "x": "robots.PD.final_pose.0"},
    "success": "robots.PD.reached_goal",
}


def write_sweep(folder: Path, name: str = "tiny", **changes: object) -> Path:
    data = {**TINY, "name": name, **changes}
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path
