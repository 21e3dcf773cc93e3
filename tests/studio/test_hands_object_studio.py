"""The hand-transfer scenario with ``object:`` in the studio: the object drawn as its
mesh and moved by the script like the ball."""

from __future__ import annotations

import numpy as np
import yaml

from robotsim.errors import ScenarioError
from robotsim.shipped import shipped_dir
from robotsim.validation import read_yaml_file


def test_an_object_is_drawn_and_carried(studio, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ROBOTSIM_CACHE_DIR", str(tmp_path / "cache"))
    data = read_yaml_file(shipped_dir("scenario") / "hand_ball_transfer.yaml", ScenarioError)
    data.pop("ball")
    data["object"] = {"type": "box", "size": [0.045, 0.045, 0.045], "position": [0.5, 0.25, 0.4925]}
    f = tmp_path / "cube_transfer.yaml"
    f.write_text(yaml.safe_dump(data))
    studio.open(f)
    d = studio.driver
    assert d.sim.scene.obj is not None and d.sim.scene.obj.name == "box_0.045x0.045x0.045"
    start = np.array(d.ball.position)
    np.testing.assert_allclose(start, [0.5, 0.25, 0.4925])
    while d.sim.snapshot().grasped_by != ("L",) and studio.time < 8.0:
        studio.step()
    assert d.sim.snapshot().grasped_by == ("L",), studio.time
    t_grasp = studio.time
    while studio.time < t_grasp + 1.5:  # the lift
        studio.step()
    state = d.sim.snapshot()
    np.testing.assert_allclose(np.array(d.ball.position), state.ball_position, atol=1e-12)
    assert state.ball_position[2] > start[2] + 0.02
