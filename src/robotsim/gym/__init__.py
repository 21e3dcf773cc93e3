"""Gymnasium environments built from scenarios (``docs/gym.md``).

``robotsim.gym.make(SCENARIO, robot=None, reward=None, **options)`` reads a scenario
(a file, or a shipped scenario's name) and makes the task its kind fits:

- ``mobile``: drive a robot to its goal among obstacles (MuJoCo):
  :class:`~robotsim.gym.mobile_env.MobileGoalEnv`;
- ``clearance``: bring an arm's tool to a target (our kinematics):
  :class:`~robotsim.gym.reach_env.ArmReachEnv`;
- ``motion_check``: keep a humanoid standing on its servos (MuJoCo):
  :class:`~robotsim.gym.balance_env.HumanoidBalanceEnv`.

Spaces come from the robot's profile (its drive, arm or legs); the reward is a metric
path (:mod:`robotsim.gym.reward`); ``reset(seed=...)`` is deterministic.

Importing this module registers the ids with Gymnasium (``import robotsim`` does not
import Gymnasium): ``gymnasium.make("robotsim/soccer_obstacles-v0")`` after ``import
robotsim.gym``, or ``gymnasium.make("robotsim.gym:robotsim/soccer_obstacles-v0")``
without. :func:`make_vec` runs copies in parallel processes on local cores.

This package sits on the "runs from files" layer beside ``scenario/`` and ``sweep/``:
an environment is a run of a scenario file, stepped by the learner.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from robotsim.errors import ScenarioError
from robotsim.extras import require

require("gymnasium", "robotsim.gym")

import gymnasium  # noqa: E402  (after the clear error when it is missing)

__all__ = ["ENV_IDS", "TASKS", "make", "make_vec", "register_envs"]

#: scenario kind -> (task name, environment class as "module:Class", default reward)
TASKS: dict[str, tuple[str, str, str]] = {
    "mobile": ("mobile goal", "robotsim.gym.mobile_env:MobileGoalEnv", "progress"),
    "clearance": ("arm reach", "robotsim.gym.reach_env:ArmReachEnv", "-distance"),
    "motion_check": ("humanoid balance", "robotsim.gym.balance_env:HumanoidBalanceEnv", "upright"),
}

#: Gymnasium ids registered on import -> the shipped scenario each one makes.
ENV_IDS: dict[str, str] = {
    "robotsim/soccer_obstacles-v0": "soccer_obstacles",
    "robotsim/pid_p_vs_pd-v0": "pid_p_vs_pd",
    "robotsim/mixed_fleet-v0": "mixed_fleet",
    "robotsim/three_puma_clearance-v0": "three_puma_clearance",
    "robotsim/walk_forward_check-v0": "walk_forward_check",
    "robotsim/MobileGoal-v0": "soccer_obstacles",
    "robotsim/ArmReach-v0": "three_puma_clearance",
    "robotsim/HumanoidBalance-v0": "walk_forward_check",
}


def _read(scenario: str | Path) -> tuple[dict[str, Any], str]:
    from robotsim.scenario_yaml import read_scenario_yaml
    from robotsim.shipped import find_shipped

    path = Path(scenario)
    if not path.exists():
        path = find_shipped(str(scenario), "scenario") or path
    if not path.is_file():
        raise ScenarioError(f"{scenario}: no such scenario file or shipped scenario")
    return read_scenario_yaml(path), str(path)


def make(
    scenario: str | Path,
    robot: str | None = None,
    reward: Any = None,
    **options: Any,
) -> gymnasium.Env:  # type: ignore[type-arg]
    """The environment of ``scenario`` (file or shipped name) for ``robot`` (default:
    its first), rewarded by ``reward`` (a metric path or ``{path: weight}``; default:
    the task's). ``options`` go to the task (``start_noise``)."""
    import importlib

    data, source = _read(scenario)
    kind = data.get("kind") or (
        "clearance" if data.get("format") == "robotsim-clearance/1" else None
    )
    if kind not in TASKS:
        raise ScenarioError(
            f"{source}: kind {kind!r} has no Gymnasium task; valid: {', '.join(TASKS)}"
        )
    _, ref, default_reward = TASKS[kind]
    module, _, cls = ref.partition(":")
    env_cls = getattr(importlib.import_module(module), cls)
    env = env_cls(
        data, source, robot=robot, reward=default_reward if reward is None else reward, **options
    )
    env.spec = None
    return env  # type: ignore[no-any-return]


def _maker(
    scenario: str, robot: str | None, reward: Any, options: dict[str, Any]
) -> Callable[[], Any]:
    return lambda: make(scenario, robot, reward, **options)


def make_vec(
    scenario: str | Path,
    num_envs: int = 2,
    robot: str | None = None,
    reward: Any = None,
    asynchronous: bool = True,
    **options: Any,
) -> gymnasium.vector.VectorEnv:
    """``num_envs`` copies of :func:`make`'s environment, stepped together: in worker
    processes on local cores (``asynchronous``; Gymnasium's ``AsyncVectorEnv``) or in
    this process (``SyncVectorEnv``)."""
    if not (isinstance(num_envs, int) and num_envs >= 1):
        raise ScenarioError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
    fns = [_maker(str(scenario), robot, reward, dict(options)) for _ in range(num_envs)]
    if asynchronous:
        return gymnasium.vector.AsyncVectorEnv(fns, context="spawn")
    return gymnasium.vector.SyncVectorEnv(fns)


def _entry(scenario: str, robot: str | None = None, reward: Any = None, **options: Any) -> Any:
    return make(scenario, robot, reward, **options)


def register_envs() -> None:
    """Register :data:`ENV_IDS` with Gymnasium (done on import; idempotent)."""
    for env_id, scenario in ENV_IDS.items():
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            env_id,
            entry_point="robotsim.gym:_entry",
            kwargs={"scenario": scenario},
            disable_env_checker=True,
        )


register_envs()
