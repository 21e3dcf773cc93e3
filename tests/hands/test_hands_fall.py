"""Free fall of the released ball (kinematic mode): exact in closed form per tick."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.errors import InputError
from robotsim.hands.ball import fall_step

G = 9.81


def _fall(h: float, dt: float, bounce: float = 0.0, r: float = 0.0) -> tuple[int, list[float]]:
    """Ticks until the first impact, and all impact times (s from release)."""
    z, vz, tick, impacts, first = h + r, 0.0, 0, [], None
    for _ in range(100_000):
        res = fall_step(z, vz, dt, r, G, bounce)
        impacts += [tick * dt + tau for tau in res.impacts]
        tick += 1
        if res.impacts and first is None:
            first = tick
        z, vz = res.z, res.vz
        if res.resting:
            return first or tick, impacts
    raise AssertionError("never came to rest")


@pytest.mark.parametrize("h", [0.05, 0.5, 1.234, 2.0])
@pytest.mark.parametrize("dt", [1 / 60, 0.01, 0.002])
def test_fall_time_matches_sqrt_2h_over_g_to_the_tick(h: float, dt: float) -> None:
    ticks, impacts = _fall(h, dt)
    exact = np.sqrt(2 * h / G)
    assert impacts[0] == pytest.approx(exact, abs=1e-12)
    # The landing is noticed on the tick the impact falls in: within one tick after it.
    assert 0.0 <= ticks * dt - exact < dt


def test_height_follows_the_parabola_between_ticks() -> None:
    z, vz, dt = 1.0, 0.0, 0.01
    for k in range(1, 30):
        res = fall_step(z, vz, dt, 0.0, G)
        z, vz = res.z, res.vz
        assert z == pytest.approx(1.0 - 0.5 * G * (k * dt) ** 2, abs=1e-12)
        assert vz == pytest.approx(-G * k * dt, abs=1e-12)


def test_bounce_rebounds_with_restitution_and_settles() -> None:
    e, h = 0.6, 1.0
    _, impacts = _fall(h, 0.001, bounce=e)
    t1 = np.sqrt(2 * h / G)
    v1 = G * t1
    # Second impact after a flight of 2 e v1 / g.
    assert impacts[1] - impacts[0] == pytest.approx(2 * e * v1 / G, rel=1e-9)
    assert len(impacts) > 3
    gaps = np.diff(impacts)
    assert np.all(np.diff(gaps) < 0)  # each bounce shorter


def test_ball_resting_stays_put_and_bad_inputs_fail() -> None:
    res = fall_step(0.5, 0.0, 0.01, 0.5)
    assert res.resting and res.z == 0.5 and not res.impacts
    with pytest.raises(InputError, match="bounce"):
        fall_step(1.0, 0.0, 0.01, 0.0, bounce=1.0)
    with pytest.raises(InputError, match="gravity"):
        fall_step(1.0, 0.0, 0.01, 0.0, gravity=0.0)
