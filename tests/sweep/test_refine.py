"""Grid refinement (sampler: grid-refine): its levels, bounds and end."""

from __future__ import annotations

import math

from robotsim.sweep.refine import GridRefine, coarse_grid_size
from robotsim.sweep.schema import parse_sweep


def _spec(parameters: dict, runs: int = 100) -> object:
    return parse_sweep(
        {"kind": "sweep", "name": "r", "base": "b", "design": "optimize",
         "parameters": parameters, "objective": {"metric": "m"},
         "budget": {"runs": runs}, "sampler": "grid-refine"},
        "r.yaml",
    )  # fmt: skip


def test_level0_is_the_full_grid_then_halved_grids_around_the_best() -> None:
    spec = _spec({"a": {"path": "a", "range": {"start": 0, "stop": 4, "num": 5}},
                  "b": {"path": "b", "values": ["x", "y"]}})  # fmt: skip
    assert coarse_grid_size(spec) == 10
    g = GridRefine(spec)
    level0 = g.next_level(None)
    assert sorted((p["a"], p["b"]) for p in level0) == [
        (a, b) for a in (0.0, 1.0, 2.0, 3.0, 4.0) for b in ("x", "y")
    ]
    level1 = g.next_level({"a": 3.0, "b": "y"})  # spacing 1 -> 0.5, choice kept
    assert sorted((p["a"], p["b"]) for p in level1) == [(2.5, "y"), (3.5, "y")]
    level2 = g.next_level({"a": 2.5, "b": "y"})
    assert sorted(p["a"] for p in level2) == [2.25, 2.75]


def test_points_stay_in_the_box_on_the_step_and_integers() -> None:
    spec = _spec({"a": {"path": "a", "range": {"start": 0, "stop": 1, "step": 0.25}},
                  "n": {"path": "n", "random": {"distribution": "integers", "low": 1, "high": 9}},
                  "s": {"path": "s", "random": {"distribution": "loguniform",
                                                "low": 0.01, "high": 100}}})  # fmt: skip
    g = GridRefine(spec)
    seen = g.next_level(None)
    best = {"a": 0.0, "n": 1, "s": 0.01}
    for _ in range(40):
        new = g.next_level(best)
        if not new:
            break
        seen += new
    else:
        raise AssertionError("grid refinement did not end")
    for p in seen:
        assert 0 <= p["a"] <= 1 and (p["a"] / 0.25).is_integer()
        assert isinstance(p["n"], int) and 1 <= p["n"] <= 9
        assert 0.01 - 1e-12 <= p["s"] <= 100 + 1e-9
    level0_s = sorted({p["s"] for p in seen[:27]})
    assert [round(math.log10(s), 9) for s in level0_s] == [-2, 0, 2]  # log spaced


def test_a_resumed_refinement_skips_points_already_run() -> None:
    spec = _spec({"a": {"path": "a", "range": {"start": 0, "stop": 2, "num": 3}}})
    g = GridRefine(spec)
    g.mark({"a": 0.0})
    g.mark({"a": 1.0})
    assert g.next_level(None) == [{"a": 2.0}]
