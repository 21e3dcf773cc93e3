"""The summary shapes sweeps check paths against are those real runs write."""

from __future__ import annotations

from typing import Any

import pytest

from robotsim.run_io import RunOptions
from robotsim.scenario_yaml import apply_overrides, read_scenario_yaml
from robotsim.shipped import resolve
from robotsim.sweep.shapes import path_problem, summary_shape
from robotsim.sweep.targets import run_base


def _leaves(node: Any, prefix: str = "") -> list[str]:
    if isinstance(node, dict):
        out = [] if node else [prefix]
        for k, v in node.items():
            out += _leaves(v, f"{prefix}.{k}" if prefix else str(k))
        return out
    if isinstance(node, list):
        out = [prefix]
        for i, v in enumerate(node):
            out += _leaves(v, f"{prefix}.{i}")
        return out
    return [prefix]


CASES = [
    ("pid_p_vs_pd", ["duration=0.2"], None),
    ("three_puma_clearance", ["dt=0.1"], None),
    ("hand_ball_transfer", [], "kinematic"),
    ("walk_commands", ["duration=1.0"], None),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "overrides", "mode"), CASES)
def test_every_path_of_a_real_summary_is_in_its_shape(
    name: str, overrides: list[str], mode: str | None
) -> None:
    path = resolve(name, "scenario")
    data = apply_overrides(read_scenario_yaml(path), overrides, str(path))
    summary = run_base(data, str(path), RunOptions(mode=mode))
    kind = str(data.get("kind") or "clearance")
    shape = summary_shape(kind, data)
    assert shape is not None
    for leaf in _leaves(summary):
        assert path_problem(shape, leaf) is None, leaf
    assert path_problem(shape, "no_such_key") is not None


def test_shapes_refuse_typos_and_say_what_is_there() -> None:
    data = read_scenario_yaml(resolve("pid_p_vs_pd", "scenario"))
    shape = summary_shape("mobile", data)
    assert path_problem(shape, "robots.PD.time_to_goal") is None
    assert path_problem(shape, "robots.PD.final_pose.2") is None
    assert path_problem(shape, "robots.PD.final_pose.x") == (
        "robots.PD.final_pose is a list: index it with a number, not 'x'"
    )
    assert path_problem(shape, "robots.PD.time_to_goal.s") == (
        "robots.PD.time_to_goal is a value, it has no 's'"
    )
    msg = path_problem(shape, "robots.XY.overshoot")
    assert msg is not None and msg.startswith("no 'XY' in robots (keys there: P, PD)")
    assert summary_shape("no_such_kind", data) is None
