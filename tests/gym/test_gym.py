"""Gymnasium environments from scenarios: Gymnasium's own checker passes on each task,
``reset(seed=...)`` is deterministic, the registration works, and each task's ending
carries its numbers and says no when it should."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from tests.paths import REPO

import robotsim.gym as rg
from robotsim.errors import InputError, ScenarioError

SHORT_MOBILE = """
format: robotsim-scenario/1
kind: mobile
name: short
duration: 4
timestep: 0.004
control_rate: 50
field: {size: [6, 6]}
obstacles: {layout: fixed, diameter: 0.4, height: 0.3, positions: [[1.5, 1.5]]}
robots:
  - {name: bot, model: omni3, start: [0, 0, 0], goal: [0.6, 0, 0],
     controller: {tolerance: {position: 0.05, heading: 10}}}
"""


@pytest.fixture(scope="module")
def short(tmp_path_factory):
    path = tmp_path_factory.mktemp("gym") / "short.yaml"
    path.write_text(SHORT_MOBILE)
    return path


@pytest.mark.parametrize(
    "scenario", ["soccer_obstacles", "three_puma_clearance", "walk_forward_check"]
)
def test_gymnasiums_checker_passes(scenario) -> None:
    env = rg.make(scenario)
    check_env(env, skip_render_check=True)
    a, _ = env.reset(seed=5)
    b, _ = env.reset(seed=5)
    assert np.array_equal(a, b)
    env.close()


def test_same_seed_same_episode(short) -> None:
    runs = []
    for _ in range(2):
        env = rg.make(short, start_noise=0.3)
        obs, _ = env.reset(seed=11)
        rng = np.random.default_rng(0)
        out = [obs]
        for _ in range(30):
            out.append(env.step(rng.uniform(-1, 1, 3))[0])
        runs.append(np.array(out))
    assert np.array_equal(runs[0], runs[1])
    other = rg.make(short, start_noise=0.3).reset(seed=12)[0]
    assert not np.array_equal(other, runs[0][0])  # the seed moved the start


def test_driving_to_the_goal_ends_the_episode_standing_still_does_not(short) -> None:
    env = rg.make(short)
    obs, info = env.reset(seed=0)
    assert info["goal_distance"] == pytest.approx(0.6, abs=0.02)
    total = 0.0
    for _ in range(200):  # a proportional driver toward the goal, in the robot's frame
        obs, r, terminated, truncated, info = env.step(np.clip(2.0 * obs[[0, 1, 2]], -1, 1))
        total += r
        if terminated or truncated:
            break
    assert terminated and not truncated
    assert info["metrics"]["reached"] == 1.0 and info["metrics"]["goal_distance"] <= 0.05
    assert total == pytest.approx(0.6 - info["metrics"]["goal_distance"], abs=0.03)  # progress
    env.reset(seed=0)
    steps = 0
    for _ in range(400):
        obs, r, terminated, truncated, info = env.step(np.zeros(3))
        steps += 1
        if terminated or truncated:
            break
    assert truncated and not terminated and steps == env.max_steps
    assert info["metrics"]["goal_distance"] == pytest.approx(0.6, abs=0.02)


def test_reach_ends_at_the_target(tmp_path) -> None:
    env = rg.make("three_puma_clearance", robot="B")
    env.reset(seed=0, options={"target": env._tool(env.q_start).tolist()})
    _, r, terminated, _, info = env.step(np.zeros(env.action_space.shape))
    assert terminated and info["metrics"]["distance"] < 1e-9 and r == pytest.approx(0.0)
    _, info = env.reset(seed=3)
    assert info["distance"] > 0.05
    _, r, terminated, _, info = env.step(np.zeros(env.action_space.shape))
    assert not terminated and r == pytest.approx(-info["metrics"]["distance"])


def test_balance_stands_still_and_falls_when_flailed() -> None:
    env = rg.make("walk_forward_check")
    env.reset(seed=0)
    for _ in range(100):  # 2 s holding the stand pose
        _, _, fell, _, info = env.step(np.zeros(env.action_space.shape))
        assert not fell
    assert info["fell"]["tilt_deg"] < 5 and info["fell"]["height_m"] > 0.9 * env.height0
    env.reset(seed=0)
    rng = np.random.default_rng(1)
    for _ in range(300):
        _, _, fell, _, info = env.step(rng.uniform(-1, 1, env.action_space.shape))
        if fell:
            break
    assert fell
    f = info["fell"]
    assert f["tilt_deg"] > 50 or f["height_m"] < 0.6 * f["standing_height_m"]


def test_rewards_are_metric_paths(short) -> None:
    env = rg.make(short, reward={"progress": 2.0, "collisions": -5.0})
    env.reset(seed=0)
    _, r, _, _, info = env.step(np.array([1.0, 0.0, 0.0]))
    m = info["metrics"]
    assert r == pytest.approx(2.0 * m["progress"] - 5.0 * m["collisions"])
    with pytest.raises(InputError, match="unknown metric 'speed_limit'; valid: goal_distance"):
        rg.make(short, reward="-speed_limit")
    with pytest.raises(ScenarioError, match="kind 'sweep' has no Gymnasium task; valid: mobile"):
        rg.make(REPO / "sweeps" / "soccer_random_layouts.yaml")
    with pytest.raises(ScenarioError, match="nope: no such scenario file or shipped scenario"):
        rg.make("nope")


@pytest.mark.slow
def test_registered_ids_and_a_light_import() -> None:
    env = gymnasium.make("robotsim/ArmReach-v0", robot="C")
    obs, _ = env.reset(seed=1)
    assert obs.shape == env.observation_space.shape
    probe = (
        "import sys, json, robotsim; light = 'gymnasium' not in sys.modules;"
        "import gymnasium; env = gymnasium.make('robotsim.gym:robotsim/three_puma_clearance-v0');"
        "print(json.dumps([light, list(env.action_space.shape)]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=300
    )
    assert json.loads(out.stdout.splitlines()[-1]) == [True, [6]]


@pytest.mark.slow
def test_vectorised_on_local_processes() -> None:
    vec = rg.make_vec("three_puma_clearance", num_envs=2)
    try:
        obs, _ = vec.reset(seed=[1, 2])
        assert obs.shape == (2, 25) and not np.array_equal(obs[0], obs[1])
        obs, r, *_ = vec.step(np.zeros((2, 6), np.float32))
        assert r.shape == (2,) and obs.shape == (2, 25)
    finally:
        vec.close()
