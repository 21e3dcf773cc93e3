"""The walk figures docs/walk.md quotes from ``robotsim bench walk`` hold to what the
bench's own code gives now (tests/doc_numbers.py): the physics walk of humanoid17."""

from __future__ import annotations

import pytest

from robotsim.bench.walk import _physics
from tests.doc_numbers import quoted

pytestmark = pytest.mark.slow


def test_the_physics_walk_docs_quote() -> None:
    dist, speed = quoted(
        "walk.md",
        r"humanoid17 asked 2 m at 0.55 leg lengths/s: walks (\d+\.\d+) m at (\d+\.\d+) leg "
        r"lengths/s, no fall",
    )
    got = _physics(quick=True)
    assert got["physics_walk_fell"] is False
    assert dist.holds(got["physics_walk_distance_m"]), got["physics_walk_distance_m"]
    assert speed.holds(got["physics_walk_speed_leg_lengths_s"]), got


def test_humanoid17_walks_on_the_floors_docs_list(h17, urdfbot) -> None:  # type: ignore[no-untyped-def]
    """docs/walk.md: humanoid17 walks on every floor friction of the sweep; 0.6 is the one
    it fell on while the IK retried steps without the torso task on its five-joint legs
    (the retry is for legs whose feet are wholly the primary task: six joints)."""
    from robotsim.walk.robustness import friction_sweep
    from robotsim.walk.wbik import WholeBodyIK

    (listed,) = quoted("walk.md", r"floor friction sweep ([\d., ]+) \| walks on all")
    assert "0.6" in listed.text.split(", ")
    assert WholeBodyIK(h17).retries == 0 and WholeBodyIK(urdfbot).retries == 3
    (r,) = friction_sweep(h17, (0.6,))
    assert r["fell"] is False and r["distance_m"] > 0.6, r
