"""Grasp trials in MuJoCo (slow: seconds each): the Panda lifts and holds a box and a
cylinder, with the measured lift and slip behind each verdict; an object too heavy
for the fingers fails with its reason."""

from __future__ import annotations

import pytest

from robotsim.grasp.run import grasp_trials, prepare

pytestmark = pytest.mark.slow


def test_panda_holds_a_box_and_a_cylinder(panda_path) -> None:  # type: ignore[no-untyped-def]
    for obj in ("box:0.05,0.03,0.07", "cylinder:0.025,0.09"):
        run = prepare(str(panda_path), obj)
        summary, results = grasp_trials(run, trials=2, seed=1)
        assert summary["successes"] == 2, summary["results"]
        for r in results:
            assert r.success and r.lifted_m >= 0.1 and r.slip_m <= 0.01
            kinds = [e[1] for e in r.events]
            assert "touch" in kinds and "held" in kinds


def test_the_success_test_says_no(panda_path) -> None:  # type: ignore[no-untyped-def]
    run = prepare(str(panda_path), "box:0.05,0.03,0.07")
    # the same grasp judged by a lift it cannot reach in the plan's 0.15 m
    from dataclasses import replace

    run.world.o = replace(run.world.o, lift_success=0.5)
    summary, results = grasp_trials(run, trials=1, seed=1)
    assert summary["successes"] == 0
    assert results[0].lifted_m > 0.1 and results[0].reason.startswith("dropped: lifted 0.1")
