"""The physics check: the stored walk stands, an obviously bad motion falls."""

from __future__ import annotations

from robotsim import load_robot
from robotsim.motion.physics_check import check_physics
from robotsim.motion.playback import play
from robotsim.motion.profile import load_profile
from robotsim.motion.schema import load_program, program_from_dict
from robotsim.motion.timeline import compile_program
from robotsim.shipped import shipped_dir
from tests.doc_numbers import quoted
from tests.motion.programs import LIFT_WITHOUT_SHIFT

WALK = shipped_dir("motion") / "walk_forward.yaml"


def test_walk_stands_and_follows_the_kinematic_playback() -> None:
    model, prof = load_robot("humanoid17"), load_profile("humanoid17")
    res = play(model, compile_program(load_program(WALK), model), prof.soles)
    chk = check_physics(res, prof)
    s = chk.summary()
    assert chk.verdict == "stands" and chk.fell_at_s is None
    assert s["min_support_margin_m"] > 0.005  # CoM over the support polygon throughout
    assert s["max_divergence_m"] < 0.03 and chk.diverges_at_s is None
    assert abs(s["distance_walked_m"] - s["distance_walked_ref_m"]) < 0.02
    assert s["distance_walked_m"] > 0.3
    assert s["max_tilt_deg"] < 10
    assert s["floating_base"] is True
    # the numbers docs/motion.md quotes are this run's
    tilt, margin_mm, div_mm, walked, ref = quoted(
        "motion.md",
        r"Measured on the walk: stands; tilt ≤ ([\d.]+)°; CoM ≥ ([\d.]+) mm inside the "
        r"support polygon; body within (\d+) mm of the kinematic playback; ([\d.]+) m walked "
        r"\(([\d.]+) m kinematic\)",
    )
    assert s["max_tilt_deg"] <= tilt.value + tilt.half_unit
    assert margin_mm.holds(1000 * s["min_support_margin_m"])
    assert div_mm.holds(1000 * s["max_divergence_m"])
    assert walked.holds(s["distance_walked_m"]) and ref.holds(s["distance_walked_ref_m"])


def test_lifting_a_foot_without_shifting_weight_falls() -> None:
    model, prof = load_robot("humanoid17"), load_profile("humanoid17")
    prog = program_from_dict(LIFT_WITHOUT_SHIFT)
    res = play(model, compile_program(prog, model), prof.soles)
    assert res.support_margin.min() < 0  # kinematically the CoM leaves the support foot
    chk = check_physics(res, prof)
    assert chk.verdict == "falls"
    assert "tilt" in chk.reason or "height" in chk.reason
    assert chk.fell_at_s is not None and chk.fell_at_s < 2.0
    assert chk.diverges_at_s is not None and chk.diverges_at_s <= chk.fell_at_s
    assert (
        chk.fell_during == "motion 'lift_left_without_shifting_weight' (repeat 1) keyframe 'lift'"
    )
