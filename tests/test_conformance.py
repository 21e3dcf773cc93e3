"""One walk over everything robotsim ships (after dm_control's ``suite_test.py``).

- every module of every package imports, and every name in an ``__all__`` exists;
- every built-in robot loads, its named poses naming its joints;
- every shipped scenario validates with its kind's schema and builds its robots;
- every shipped motion program validates and compiles against its robot.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

import robotsim
from robotsim.model import library_names, load_robot

REPO = Path(__file__).resolve().parents[1]


def _modules() -> list[str]:
    names = ["robotsim"]
    for info in pkgutil.walk_packages(robotsim.__path__, "robotsim."):
        if info.name.rsplit(".", 1)[-1] != "__main__":  # running it starts the CLI
            names.append(info.name)
    return sorted(names)


MODULES = _modules()


def test_the_walk_finds_every_package() -> None:
    for pkg in ("robotsim.model", "robotsim.cli", "robotsim.studio", "robotsim.bench"):
        assert pkg in MODULES
    assert len(MODULES) > 100


@pytest.mark.parametrize("name", MODULES)
def test_module_imports_and_all_names_exist(name: str) -> None:
    mod = importlib.import_module(name)
    exported = getattr(mod, "__all__", None)
    if exported is None:
        return
    assert len(exported) == len(set(exported)), f"{name}.__all__ lists a name twice"
    missing = [attr for attr in exported if not hasattr(mod, attr)]
    assert not missing, f"{name}.__all__ names missing attributes: {missing}"


@pytest.mark.parametrize("name", library_names())
def test_builtin_robot_loads(name: str) -> None:
    model = load_robot(name)
    assert model.nq > 0 or model.floating
    assert len(model.links) >= 1
    for pose, values in model.poses.items():
        assert set(values) <= set(model.joint_names), f"{name} pose {pose}"
        assert model.pose(pose).shape == (model.nq,)


def _shipped(kind: str) -> list[Path]:
    """The shipped ``scenarios``/``motions`` files (package data or the checkout's)."""
    folders = [REPO / "src" / "robotsim" / "data" / kind, REPO / kind]
    return sorted({p.name: p for d in folders for p in d.glob("*.yaml")}.values())


def validate_scenario(path: Path) -> Any:
    """Validate ``path`` with its kind's schema from the registry, then build it the
    way its runner does (robots loaded, names checked) where the kind has a loader."""
    from robotsim.scenario.kinds import kind_of

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    kind = kind_of(data, str(path))
    kind.load_schema().model_validate(data)
    if kind.name == "clearance":
        from robotsim.clearance.scenario import load_scenario

        return load_scenario(path)
    if kind.name == "mobile":
        from robotsim.mobile.load import load_mobile

        return load_mobile(data, str(path))
    if kind.name == "hand_ball_transfer":
        from robotsim.hands.scenario_spec import hand_scenario_from_data

        return hand_scenario_from_data(data, str(path))
    return kind


@pytest.mark.parametrize("path", _shipped("scenarios"), ids=lambda p: p.stem)
def test_shipped_scenario_validates(path: Path) -> None:
    assert validate_scenario(path) is not None


@pytest.mark.parametrize("path", _shipped("motions"), ids=lambda p: p.stem)
def test_shipped_motion_validates_and_compiles(path: Path) -> None:
    from robotsim.motion.schema import load_program
    from robotsim.motion.timeline import compile_program

    program = load_program(path)
    assert program.robot is not None, f"{path}: shipped programs name their robot"
    tl = compile_program(program, load_robot(program.robot), path)
    assert np.all(np.isfinite(tl.sample("fixed_tick").q))


def test_something_is_shipped() -> None:
    assert _shipped("scenarios") and _shipped("motions")
