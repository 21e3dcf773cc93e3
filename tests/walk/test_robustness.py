"""What the walk withstands: the push search brackets the largest impulse survived
(each verdict from a physics walk), slopes are walked on a planned slope, the bench
reports the figures."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.walk.biped import Biped
from robotsim.walk.robustness import largest_push, slope_walk

pytestmark = pytest.mark.slow


def test_push_search_brackets_the_largest_push(h17: Biped) -> None:
    r = largest_push(h17, "lateral", iterations=3, top=2.0)
    survived = [i for i, fell in r.trials if not fell]
    fell = [i for i, fell in r.trials if fell]
    assert fell, "2 N s (0.9 m/s on 2.19 kg) sideways fells it"
    assert r.fell_ns == min(fell) and r.survived_ns == max(survived, default=0.0)
    assert r.survived_ns < r.fell_ns
    assert r.direction in ((0.0, 1.0), (0.0, -1.0))


def test_a_slope_is_walked_where_it_lies(h17: Biped) -> None:
    s = slope_walk(h17, 5.0, distance=0.4)
    assert s["fell"] is False and s["distance_m"] > 0.3
    from robotsim.walk.engine import WalkEngine
    from robotsim.walk.swing import Ground

    k = math.tan(math.radians(5))
    normal = np.array([-k, 0.0, 1.0]) / math.hypot(k, 1.0)
    eng = WalkEngine(h17, ground=Ground(slope_x=k))
    eng.set_goal(0.3)
    for _ in range(300):
        ref = eng.tick()
        for f in range(2):  # the standing soles lie on the slope, tilted onto it
            if ref.support in (1 - f, 2) or ref.support == f:
                p = ref.feet[f, :3, 3]
                if ref.support == 2 or ref.support == f:
                    assert p[2] == pytest.approx(k * p[0], abs=1e-9)
                    np.testing.assert_allclose(ref.feet[f, :3, 2], normal, atol=1e-12)


def test_bench_walk_reports_the_figures(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["bench", "walk", "--quick", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["pattern_rtf"] > 0 and out["physics_walk_rtf"] > 0
    assert out["physics_walk_fell"] is False
    assert out["targets"] == {"pattern_rtf": 100, "physics_walk_rtf": 5}
