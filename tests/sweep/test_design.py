"""Designs expand to the right runs; random draws are fixed by the seed."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.errors import ScenarioError
from robotsim.sweep.design import design_digest, expand
from robotsim.sweep.schema import RangeSpec, parse_sweep


def _spec(**kw: object):  # type: ignore[no-untyped-def]
    data = {"kind": "sweep", "name": "t", "base": "x.yaml", **kw}
    return parse_sweep(data, "t.yaml")


def test_grid_is_every_combination_first_slowest() -> None:
    s = _spec(
        parameters={
            "a": {"path": "a", "values": [1, 2]},
            "b": {"path": "b.c", "values": ["x", "y", "z"]},
        }
    )
    tasks = expand(s)
    assert [(t.params["a"], t.params["b"]) for t in tasks] == [
        (1, "x"),
        (1, "y"),
        (1, "z"),
        (2, "x"),
        (2, "y"),
        (2, "z"),
    ]
    assert tasks[4].overrides == ("a=2", 'b.c="y"')
    assert [t.key for t in tasks[:2]] == ["p00000-r0", "p00001-r0"]


def test_zip_pairs_values_and_rejects_unequal_lengths() -> None:
    s = _spec(
        design="zip",
        parameters={
            "a": {"path": "a", "values": [1, 2]},
            "b": {"path": "b", "range": {"start": 0, "stop": 1, "num": 2}},
        },
    )
    assert [t.params for t in expand(s)] == [{"a": 1, "b": 0.0}, {"a": 2, "b": 1.0}]
    bad = _spec(
        design="zip",
        parameters={"a": {"path": "a", "values": [1, 2]}, "b": {"path": "b", "values": [1]}},
    )
    with pytest.raises(ScenarioError, match=r"design zip: .*a=2, b=1"):
        expand(bad, "t.yaml")


def test_range_by_num_and_by_step_include_the_end() -> None:
    assert RangeSpec(start=0, stop=1, num=5).values() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert RangeSpec(start=0, stop=1, step=0.25).values() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert RangeSpec(start=2, stop=2, num=1).values() == [2.0]


def test_random_design_is_fixed_by_the_seed_and_within_bounds() -> None:
    params = {
        "mu": {
            "path": "contact.mu",
            "random": {"distribution": "uniform", "low": 0.2, "high": 0.9},
        },
        "k": {"path": "k", "random": {"distribution": "integers", "low": 1, "high": 3}},
        "c": {"path": "c", "values": ["a", "b"]},
        "r": {"path": "r", "range": {"start": -1, "stop": 1, "num": 3}},
    }
    a = expand(_spec(design="random", samples=300, seed=5, parameters=params))
    b = expand(_spec(design="random", samples=300, seed=5, parameters=params))
    c = expand(_spec(design="random", samples=300, seed=6, parameters=params))
    assert [t.params for t in a] == [t.params for t in b]
    assert design_digest(a) == design_digest(b) != design_digest(c)
    mu = np.array([t.params["mu"] for t in a])
    assert mu.min() >= 0.2 and mu.max() < 0.9
    assert {t.params["k"] for t in a} == {1, 2, 3}
    assert {t.params["c"] for t in a} == {"a", "b"}
    r = np.array([t.params["r"] for t in a])
    assert r.min() >= -1 and r.max() <= 1 and len(set(r)) > 100  # uniform in the range
    # the uniform draws match numpy's generator seeded [seed, index]
    ref = np.random.default_rng([5, 0]).uniform(0.2, 0.9, 300)
    np.testing.assert_array_equal(mu, ref)


def test_repeats_get_their_own_seed() -> None:
    s = _spec(repeats=3, parameters={"a": {"path": "a", "values": [1]}})
    assert [(t.key, t.seed) for t in expand(s)] == [
        ("p00000-r0", 0),
        ("p00000-r1", 1),
        ("p00000-r2", 2),
    ]
    single = _spec(parameters={"a": {"path": "a", "values": [1]}})
    assert expand(single)[0].seed is None


@pytest.mark.parametrize(
    ("params", "extra", "match"),
    [
        (
            {"a": {"path": "a", "range": {"start": 1, "stop": 0, "step": 0.1}}},
            {},
            r"parameters\.a\.range: .*empty range",
        ),
        ({"a": {"path": "a", "values": []}}, {}, r"parameters\.a: .*values: empty list"),
        (
            {"a": {"path": "a", "random": {"low": 1, "high": 1}}},
            {"design": "random", "samples": 3},
            r"parameters\.a\.random: .*empty range",
        ),
        (
            {"a": {"path": "a", "values": [1], "range": {"start": 0, "stop": 1, "num": 2}}},
            {},
            r"exactly one of values, range or random",
        ),
        ({"a": {"path": "a", "random": {"low": 0, "high": 1}}}, {}, r"give count"),
        ({"a": {"path": "a..b", "values": [1]}}, {}, r"parameters\.a\.path"),
        ({"a": {"path": "a", "values": [1]}}, {"design": "random"}, r"samples"),
    ],
)
def test_bad_sweep_files_name_the_field(params: dict, extra: dict, match: str) -> None:
    with pytest.raises(ScenarioError, match=match) as info:
        _spec(parameters=params, **extra)
    assert str(info.value).startswith("t.yaml: ")
    assert "\n" not in str(info.value)
