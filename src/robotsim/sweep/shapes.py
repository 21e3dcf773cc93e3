"""The shape of a base scenario's summary, known before anything runs.

A sweep's metrics, objectives and constraints are paths into the summary JSON a run
returns. So that a typo is a one-line error before the first run (not a failed run
after it), each scenario kind whose summary is known here declares its shape from the
scenario mapping alone (robot names, pairs): nested mappings of the keys it always or
possibly writes. ``LIST`` marks a list (any index, anything below it), ``OPEN`` a
mapping whose keys are not known in advance (anything below it passes here; the run
checks it). A kind without a declared shape is checked at run time only.

The shapes are held to the real summaries of the shipped scenarios by
``tests/sweep/test_shapes.py`` (every path a real summary has is accepted).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from robotsim.errors import ScenarioError

__all__ = ["LIST", "OPEN", "check_metric_paths", "path_problem", "summary_shape"]


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


LIST = _Marker("LIST")
OPEN = _Marker("OPEN")

_MOBILE_ROBOT = {
    "model": None, "reached_goal": None, "time_to_goal": None, "path_length": None,
    "overshoot": None, "overshoot_pct": {"x": None, "y": None, "theta": None},
    "min_obstacle_clearance": None, "collisions": None, "final_pose": LIST,
    "final_position_error": None, "start": LIST, "goal": LIST, "footprint_radius": None,
    "joints": OPEN,
}  # fmt: skip


def _mobile(data: Mapping[str, Any]) -> dict[str, Any]:
    names = []
    for r in data.get("robots") or []:
        if not isinstance(r, Mapping) or "name" not in r:
            return {"robots": OPEN}
        count = r.get("count")
        if isinstance(count, int) and count > 1:
            names += [f"{r['name']}{i}" for i in range(1, count + 1)]
        else:
            names.append(str(r["name"]))
    return {
        "scenario": None, "kind": None, "file": None, "seed": None, "duration": None,
        "sim_time": None, "wall_time_s": None, "real_time_factor": None, "timestep": None,
        "control_rate": None, "obstacles": LIST,
        "robots": {n: _MOBILE_ROBOT for n in names},
        "formation": OPEN, "robot_collisions": OPEN, "reference": OPEN, "outputs": OPEN,
    }  # fmt: skip


def _clearance(data: Mapping[str, Any]) -> dict[str, Any]:
    names = [r.get("name") for r in data.get("robots") or [] if isinstance(r, Mapping)]
    pairs = {f"{a}-{b}": OPEN for i, a in enumerate(names) for b in names[i + 1 :]}
    return {
        "scenario": None, "kind": None, "file": None, "pairs": pairs,
        "min_distance": None, "collision_time": None, "collides": None,
    }  # fmt: skip


def _hands(data: Mapping[str, Any]) -> dict[str, Any]:
    del data
    return {
        "scenario": None, "kind": None, "mode": None, "dt": None, "sim_time": None,
        "real_time_factor": None, "completed": None, "events": LIST, "steps": LIST,
        "missing_events": LIST, "options": OPEN,
        "ball": {"position": LIST, "resting": None, "surface": None, "grasped_by": LIST},
        "transfer": {
            "success": None, "giver": None, "receiver": None, "let_go_t": None,
            "handed_over_t": None, "held_alone_s": None, "slip_m": None, "lifted_m": None,
            "limits": {"hold_s": None, "max_slip_m": None, "lift_m": None}, "reason": None,
        },
        "outputs": OPEN,
    }  # fmt: skip


def _walk(data: Mapping[str, Any]) -> dict[str, Any]:
    del data
    return {
        "scenario": None, "kind": None, "file": None, "robot": None, "fell": None,
        "fell_at_s": None, "reason": None, "leg_length_m": None, "displacement_m": LIST,
        "path_length_m": None, "heading_change_deg": None, "max_tilt_deg": None,
        "max_zmp_error_m": None, "steps": None, "commands": LIST, "sim_time": None,
        "rtf": None, "cpu_rtf": None, "sensors": OPEN, "outputs": OPEN,
    }  # fmt: skip


_SHAPES = {
    "mobile": _mobile,
    "clearance": _clearance,
    "hand_ball_transfer": _hands,
    "walk": _walk,
}


def summary_shape(kind: str, data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The summary shape of a scenario of ``kind`` (``None``: not known here)."""
    fn = _SHAPES.get(kind)
    return None if fn is None else fn(data)


def path_problem(shape: Any, path: str) -> str | None:
    """Why ``path`` is not in a summary of ``shape`` (``None`` when it may be)."""
    node = shape
    done: list[str] = []
    for part in path.split("."):
        if node is OPEN or (node is LIST and part.lstrip("-").isdigit()):
            return None
        if node is LIST:
            return f"{'.'.join(done)} is a list: index it with a number, not {part!r}"
        if not isinstance(node, Mapping):
            where = ".".join(done)
            return f"{where} is a value, it has no {part!r}"
        if part not in node:
            where = ".".join(done) or "the summary"
            keys = ", ".join(map(str, node)) or "(none)"
            return f"no {part!r} in {where} (keys there: {keys})"
        node = node[part]
        done.append(part)
    return None


def check_metric_paths(spec: Any, base: Mapping[str, Any], src: str, base_src: str) -> None:
    """Every metrics, objective, constraint and success path of ``spec`` (a
    :class:`~robotsim.sweep.schema.SweepSpec`) against the base scenario's summary
    shape: :class:`ScenarioError` naming the field and the keys there otherwise."""
    from robotsim.scenario.kinds import kind_of
    from robotsim.sweep.goals import parse_constraint

    kind = kind_of(base, base_src)
    shape = summary_shape(kind.name, base)
    if shape is None:
        return
    fields: list[tuple[str, str]] = [(f"metrics.{k}", v) for k, v in spec.metrics.items()]
    if spec.success is not None:
        fields.append(("success", spec.success))
    cols = spec.metric_columns()
    for i, o in enumerate(spec.objectives):
        where = "objective" if not isinstance(spec.objective, list) else f"objective.{i}"
        if o.metric not in spec.metrics:
            fields.append((f"{where}.metric", cols[o.metric]))
    for i, text in enumerate(spec.constraints):
        name = parse_constraint(text)[0]
        if name not in spec.metrics:
            fields.append((f"constraints.{i}", cols[name]))
    for field, path in fields:
        problem = path_problem(shape, path)
        if problem is not None:
            raise ScenarioError(
                f"{src}: {field}: {path!r} is not in the summary of a {kind.name} run "
                f"({problem}; or name a metrics column)"
            )
