"""Interpolation profiles, velocity limits and the paper's two speed methods."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.motion.schema import program_from_dict, speed_seconds
from robotsim.motion.timeline import compile_program, profile
from tests.motion.biped import biped


def _program(interp: str, speeds: tuple[int, ...] = (4, 8, 1), knee: tuple = (30, 120, 10)):
    return program_from_dict(
        {
            "name": "knees",
            "units": "deg",
            "start": "stand",
            "interpolation": interp,
            "keyframes": [
                {
                    "name": f"k{i}",
                    "targets": {"l_knee": a, "r_knee": a / 2},
                    "speed": s,
                    "hold": 0.1 * i,
                }
                for i, (a, s) in enumerate(zip(knee, speeds))
            ],
        }
    )


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_profiles_hit_endpoints_and_are_monotone(kind: int) -> None:
    u = np.linspace(0, 1, 1001)
    s = profile(np.full_like(u, kind, dtype=np.int64), u)
    assert s[0] == 0.0 and s[-1] == 1.0
    assert np.all(np.diff(s) >= 0)
    peak = np.max(np.diff(s) / np.diff(u))
    assert peak == pytest.approx([1.0, 1.5, 1.875][kind], rel=1e-3)


@pytest.mark.parametrize("interp", ["linear", "cubic", "minjerk"])
def test_keyframes_are_reached_and_velocity_limits_hold(interp: str) -> None:
    model = biped()  # knee velocity limit 4 rad/s
    tl = compile_program(_program(interp), model)
    k = model.joint_index("l_knee")
    assert np.allclose(np.degrees(tl.knots[1:, k]), [30, 120, 10])
    # level 8 = 0.25 s for 90 deg would need 6.3 rad/s: stretched to respect 4 rad/s
    assert tl.stretched.tolist() == [False, True, False]
    for method in ("fixed_tick", "fixed_points"):
        s = tl.sample(method, tick=0.002, points=400)
        ends = np.flatnonzero(np.diff(s.seg) != 0)  # last sample of each segment
        assert np.allclose(s.q[ends], tl.knots[1:-1])
        assert np.allclose(s.q[-1], tl.knots[-1])
        vel = np.abs(np.diff(s.q, axis=0)) / s.dt[1:, None]
        assert np.max(vel[:, k]) <= 4.0 * 1.01
        assert np.max(vel[:, k]) >= 4.0 * 0.9  # the stretched segment runs at the limit


def test_unstretched_segment_lasts_its_speed_level() -> None:
    tl = compile_program(_program("linear"), biped())
    assert tl.duration[0] == speed_seconds(4) and tl.duration[2] == speed_seconds(1)
    assert tl.total_time == pytest.approx(tl.duration.sum() + 0.1 + 0.2)


def test_the_two_speed_methods() -> None:
    """fixed_tick: same tick, fewer points at higher levels; fixed_points: same points,
    longer ticks at lower levels. Both take the same time."""
    tl = compile_program(_program("linear", speeds=(8, 4, 1), knee=(20, 40, 60)), biped())
    a = tl.sample("fixed_tick", tick=0.01)
    b = tl.sample("fixed_points", points=25)
    assert np.all(a.dt[1:] == 0.01)
    moving = a.u > 0  # exclude sample 0
    counts_a = [int(np.sum((a.seg == k) & moving & (a.u <= 1) & ~_hold(a, k))) for k in range(3)]
    counts_b = [int(np.sum((b.seg == k) & ~_hold(b, k) & (b.u > 0))) for k in range(3)]
    assert counts_a == [25, 50, 200]
    assert counts_b == [25, 25, 25]
    assert sorted(set(np.round(b.dt[1:], 9))) == [0.01, 0.02, 0.08]
    assert a.t[-1] == pytest.approx(b.t[-1], abs=0.08)  # holds round up to whole ticks


def _hold(s, k: int) -> np.ndarray:
    """Hold samples of segment k: u == 1 repeated after the arrival sample."""
    first = np.flatnonzero((s.seg == k) & (s.u == 1.0))
    mask = np.zeros(len(s.u), bool)
    mask[first[1:]] = True
    return mask
