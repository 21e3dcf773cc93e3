"""``kind: motion_check``: the physics check as a scenario; the profile's friction
reaches the floor."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.errors import ScenarioError
from robotsim.motion.physics_check import _scene
from robotsim.motion.profile import PhysicsSpec, load_profile
from robotsim.scenario import RunOptions
from robotsim.scenario_yaml import read_scenario_yaml
from robotsim.shipped import shipped_dir

REPO = Path(__file__).resolve().parents[2]
SCENARIO = shipped_dir("scenario") / "walk_forward_check.yaml"


def test_the_profile_friction_is_the_floor_friction() -> None:
    from robotsim import load_robot
    from robotsim.physics import World

    model = load_robot("humanoid17")
    profile = load_profile("humanoid17")
    profile = profile.model_copy(
        update={
            "physics": PhysicsSpec.model_validate(
                {**profile.physics.model_dump(), "friction": 0.23}
            )
        }
    )
    scene = _scene(model, profile, np.eye(4), np.zeros(model.nq))
    assert scene.default_surface.mu == 0.23
    world = World(scene)
    ground = world.model.geom("ground").id
    assert world.model.geom_friction[ground][0] == pytest.approx(0.23)


def test_bad_physics_override_names_the_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(SCENARIO), "--set", "physics.frction=0.3"]) == 2
    err = capsys.readouterr().err
    assert "physics: frction: unknown key 'frction'" in err and err.count("\n") == 1
    assert main(["run", str(SCENARIO), "--set", "physics.friction=-1"]) == 2
    assert "physics: friction: Input should be greater than 0" in capsys.readouterr().err


def test_motion_check_kind_rejects_unknown_keys() -> None:
    from robotsim.motion.check_kind import run_motion_check_kind

    data = {**read_scenario_yaml(SCENARIO), "programme": "x.yaml"}
    with pytest.raises(ScenarioError, match="unknown key 'programme'"):
        run_motion_check_kind(data, str(SCENARIO), RunOptions())
