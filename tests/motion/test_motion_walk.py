"""Playback with support switching: the stored humanoid17 walk's invariants, a walk
generated on a test biped, and the contact error of the paper's two speed methods."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from robotsim import load_robot
from robotsim.motion.gait import WalkParams, static_walk
from robotsim.motion.playback import PlaybackResult, compare_speed_methods, play
from robotsim.motion.profile import load_profile
from robotsim.motion.schema import load_program, program_from_dict
from robotsim.motion.support import ContactSettings
from robotsim.motion.timeline import compile_program
from robotsim.shipped import shipped_dir
from tests.doc_numbers import quoted
from tests.motion.biped import SOLES, biped

WALK = shipped_dir("motion") / "walk_forward.yaml"


@cache
def walk_result() -> PlaybackResult:
    model = load_robot("humanoid17")
    tl = compile_program(load_program(WALK), model)
    return play(model, tl, load_profile("humanoid17").soles)


def _check_walk(r: PlaybackResult, steps: int, distance: float) -> None:
    assert len(r.switches) >= steps
    assert [s.to_foot for s in r.switches] == [
        r.foot_names[(i + 1) % 2] for i in range(len(r.switches))
    ]
    assert r.max_stance_slip_m <= 1e-9
    assert r.max_penetration_m <= 1e-3
    assert r.distance_walked_m >= distance
    assert np.all(r.support_margin > 0.005)  # CoM over the support polygon: a static walk
    # the body pose is continuous: the root moves at a switch no more than around it
    d = np.linalg.norm(np.diff(r.T_world_root[:, :3, 3], axis=0), axis=1)
    for s in r.switches:
        around = max(d[s.tick - 2], d[min(s.tick, len(d) - 1)])
        assert d[s.tick - 1] <= 2 * around + 1e-6
    R = r.T_world_root[:, :3, :3]
    dR = np.linalg.norm(R[1:] - R[:-1], axis=(1, 2))
    assert np.max(dR) < 0.05


def test_docs_quote_the_walk_as_it_plays() -> None:
    r = walk_result()
    steps, switches, dist, dur = quoted(
        "motion.md",
        r"to the run\): (\d+) steps, (\d+) support switches, (\d\.\d+) m walked in "
        r"(\d+\.\d) s",
    )
    assert steps.holds(len(r.steps) - 1)  # stance phases, the first one not a step
    assert switches.holds(len(r.switches))
    assert dist.holds(r.distance_walked_m) and dur.holds(float(r.samples.t[-1]))
    touchdown, margin_mm = quoted(
        "motion.md", r"touchdown error ≤ ([\d.e-]+) m, CoM ≥ (\d+) mm inside the support polygon"
    )
    assert r.max_touchdown_error_m <= touchdown.value
    assert margin_mm.holds(1000 * float(np.min(r.support_margin)))


def test_humanoid17_walk_file_invariants() -> None:
    r = walk_result()
    _check_walk(r, steps=6, distance=0.3)
    assert r.max_touchdown_error_m < 1e-6
    phases = {p["support"] for p in r.phases}
    assert phases == {"double", "left_sole", "right_sole"}
    steps = r.steps
    strides = [s.stride_m for s in steps[3:-1]]
    assert np.allclose(strides, strides[0], atol=1e-6)  # a periodic gait
    assert min(s.clearance_m for s in steps[1:]) > 0.01  # swing foot really lifted
    summary = r.summary()
    for key in (
        "frames",
        "support_switches",
        "max_stance_slip_m",
        "max_penetration_m",
        "distance_walked_m",
    ):
        assert key in summary


def test_link_trajectories_follow_the_anchored_root() -> None:
    r = walk_result()
    P = r.link_poses()
    assert P.shape == (r.ticks + 1, len(r.model.links), 4, 4)
    i = r.switches[3].tick
    assert np.allclose(P[i], r.T_world_root[i] @ r.model.fk_all(r.samples.q[i]), atol=1e-12)
    sole = r.frame_poses(r.switches[3].to_foot)
    assert abs(sole[i, 2, 3]) < 1e-6


def test_walk_generated_on_a_test_biped() -> None:
    model = biped()
    params = WalkParams(
        left_sole="l_sole",
        right_sole="r_sole",
        body_height=0.40,
        step_length=0.06,
        clearance=0.03,
        cycles=1,
    )
    prog = static_walk(model, params)
    r = play(model, compile_program(prog, model), SOLES)
    _check_walk(r, steps=4, distance=0.17)


def _push_into_floor() -> dict:
    """A hand-taught step: the right foot is set down 6 mm below the floor, fast."""
    a, lift, land = 0.4, 0.8, 0.36
    bent = {
        "l_hip_pitch": -a,
        "l_knee": 2 * a,
        "l_ankle_pitch": -a,
        "r_hip_pitch": -a,
        "r_knee": 2 * a,
        "r_ankle_pitch": -a,
    }
    return {
        "name": "push",
        "units": "rad",
        "start": bent,
        "keyframes": [
            {
                "name": "lift",
                "targets": {"r_hip_pitch": -lift, "r_knee": 2 * lift, "r_ankle_pitch": -lift},
                "speed": 4,
            },
            {
                "name": "land",
                "targets": {"r_hip_pitch": -land, "r_knee": 2 * land, "r_ankle_pitch": -land},
                "speed": 8,
            },
        ],
    }


def test_speed_methods_contact_error() -> None:
    """Tick-time detection leaves the landing foot as deep as its last tick's travel:
    fewer points (fixed tick at a high level) sink it more; exact detection does not."""
    model = biped()
    tl = compile_program(program_from_dict(_push_into_floor()), model)
    cmp = compare_speed_methods(model, tl, SOLES, tick=0.01, points=90)
    tick, points = cmp["fixed_tick"], cmp["fixed_points"]
    assert tick["ticks"] < points["ticks"]
    assert tick["support_switches"] == points["support_switches"] == 1
    for name, res in cmp.items():
        r = play(
            model,
            tl,
            SOLES,
            name,
            tick=0.01,
            points=90,  # type: ignore[arg-type]
            settings=ContactSettings(detection="tick"),
        )
        z = r.frame_poses("r_sole")[:, 2, 3]
        travel = np.max(np.abs(np.diff(z)))
        assert 0 < res["max_touchdown_error_m"] <= travel + 1e-12
    assert tick["max_touchdown_error_m"] > points["max_touchdown_error_m"]
    exact = play(model, tl, SOLES, "fixed_tick", tick=0.01)
    assert len(exact.switches) == 1 and abs(exact.switches[0].error_m) < 1e-9
    assert exact.max_penetration_m < 1e-4


@pytest.mark.parametrize("method", ["fixed_tick", "fixed_points"])
def test_walk_under_both_speed_methods(method: str) -> None:
    model = load_robot("humanoid17")
    tl = compile_program(load_program(WALK), model)
    r = play(model, tl, load_profile("humanoid17").soles, method, points=30)  # type: ignore[arg-type]
    assert len(r.switches) == len(walk_result().switches)
    assert r.max_stance_slip_m <= 1e-9 and r.max_penetration_m <= 1e-3
    assert r.distance_walked_m == pytest.approx(walk_result().distance_walked_m, abs=1e-6)


def test_live_player_matches_play() -> None:
    from robotsim.motion.playback import Player

    model = biped()
    prog = program_from_dict(_push_into_floor())
    tl = compile_program(prog, model)
    res = play(model, tl, SOLES)
    player = Player(model, tl, SOLES)
    switches = []
    while not player.done:
        sw = player.step()
        if sw is not None:
            switches.append(sw)
        assert np.array_equal(player.state.T_world_root, res.T_world_root[player.i])
    assert tuple(switches) == res.switches and player.label[2] == "land"
    player.reset()
    assert player.i == 0 and np.array_equal(player.state.T_world_root, res.T_world_root[0])


def _random_program(seed: int) -> dict:
    """Ten random keyframes bending, lifting and rolling both legs of the test biped."""
    rng = np.random.default_rng(seed)
    kfs = []
    for i in range(10):
        t: dict[str, float] = {}
        for side in "lr":
            a, b, r = rng.uniform(0.0, 0.6), rng.uniform(0.0, 0.3), rng.uniform(-0.1, 0.1)
            t |= {
                f"{side}_hip_pitch": -a - b,
                f"{side}_knee": 2 * a,
                f"{side}_ankle_pitch": -a + b,
                f"{side}_hip_roll": r,
                f"{side}_ankle_roll": -r,
            }
        kfs.append({"name": f"k{i}", "targets": t, "speed": int(rng.integers(3, 9))})
    return {"name": "random", "units": "rad", "start": "stand", "keyframes": kfs}


@pytest.mark.parametrize("seed", range(4))
def test_switching_invariants_on_random_motions(seed: int) -> None:
    """Whatever the motion: the support never slides, the body never jumps, exact
    detection keeps every sole within ~sink_tol of the floor, tick detection sinks more."""
    model = biped()
    tl = compile_program(program_from_dict(_random_program(seed)), model)
    exact = play(model, tl, SOLES)
    tick = play(model, tl, SOLES, settings=ContactSettings(detection="tick"))
    for r in (exact, tick):
        assert len(r.switches) >= 2
        assert r.max_stance_slip_m <= 1e-9
        assert r.max_body_step_m < 0.01  # 10 ms ticks, joints below 4 rad/s
    assert exact.max_penetration_m <= 2 * exact.settings.sink_tol
    assert tick.max_penetration_m > exact.max_penetration_m


@pytest.mark.parametrize("detection", ["exact", "tick"])
def test_compiled_runs_equal_tick_by_tick_playback(detection: str) -> None:
    """play() moves through the samples between switches in compiled runs
    (SupportTracker.advance); the live player steps tick by tick in Python: the
    root poses, sole heights, supports and switches agree bit for bit."""
    from robotsim.motion.playback import Player

    model = biped()
    tl = compile_program(program_from_dict(_random_program(1)), model)
    settings = ContactSettings(detection=detection)  # type: ignore[arg-type]
    res = play(model, tl, SOLES, settings=settings)
    player = Player(model, tl, SOLES, settings=settings)
    switches = []
    while not player.done:
        sw = player.step()
        if sw is not None:
            switches.append(sw)
        i = player.i
        assert np.array_equal(player.state.T_world_root, res.T_world_root[i])
        assert np.array_equal(player.tracker.heights, res.heights[i])
        assert player.tracker.support == res.support[i]
    assert len(switches) >= 2 and tuple(switches) == res.switches
    # the state play() leaves behind is the last sample's, all link poses included
    last = Player(model, tl, SOLES, settings=settings)
    last.run()
    assert np.array_equal(last.state.q, res.samples.q[-1])
    assert np.array_equal(last.state.link_poses(), player.state.link_poses())


def test_advance_refuses_arrays_it_cannot_use_in_place() -> None:
    from robotsim.errors import InputError
    from robotsim.motion.playback import Player

    model = biped()
    tl = compile_program(program_from_dict(_random_program(2)), model)
    player = Player(model, tl, SOLES)
    qs = np.ascontiguousarray(player.samples.q)
    n = len(qs)
    root, heights = np.empty((n, 4, 4)), np.empty((n, len(SOLES)))
    tracker = player.tracker
    for args, match in (
        ((np.asfortranarray(qs), 1, n, root, heights), "qs must be a C-contiguous float64"),
        ((qs, 1, n, root[:-1], heights), "root_out must be"),
        ((qs, 1, n, root, heights.astype(np.float32)), "heights_out must be"),
        ((qs.tolist(), 1, n, root, heights), "qs must be"),
        ((qs, 1, n + 1, root, heights), "start <= stop"),
    ):
        with pytest.raises(InputError, match=match):
            tracker.advance(*args)
    assert 1 < tracker.advance(qs, 1, n, root, heights) <= n
