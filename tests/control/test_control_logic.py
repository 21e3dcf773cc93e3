"""Controllers on their own (no physics): limits, PID anti-windup, avoidance, paths, and
the mobile controller on an ideal integrator."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robotsim.control import (
    PID,
    VFH,
    AxisLimit,
    MobileController,
    MobileControllerConfig,
    PathFollower,
    PIDGains,
    PotentialField,
    RateLimiter,
    wrap_angle,
)
from robotsim.control.avoidance import clearances
from robotsim.errors import InputError


def test_rate_limiter_accel_decel_and_max_speed() -> None:
    lim = RateLimiter([AxisLimit(max_speed=1.0, accel=2.0, decel=4.0)])
    out = [lim([5.0], 0.1)[0] for _ in range(8)]
    assert out[:5] == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0])  # accel 2, capped at 1
    assert out[-1] == 1.0
    down = [lim([0.0], 0.1)[0] for _ in range(3)]
    assert down == pytest.approx([0.6, 0.2, 0.0])  # decel 4
    rev = [lim([-1.0], 0.1)[0] for _ in range(2)]
    assert rev == pytest.approx([-0.2, -0.4])  # reversing from 0 speeds up: accel
    with pytest.raises(InputError, match="accel"):
        AxisLimit(accel=0.0)


def test_pid_anti_windup_recovers_without_overshoot_from_saturation() -> None:
    """First-order plant x' = u with |u| <= 1: with anti-windup the integral does not
    charge up during the long saturated approach, so the overshoot stays small."""

    def run(windup_guard: bool) -> float:
        gains = PIDGains(
            kp=2.0, ki=1.0, output_limit=1.0, integral_limit=0.3 if windup_guard else 1e9
        )
        pid = PID(gains)
        if not windup_guard:
            pid.__class__ = _NaivePID
        x, peak = 0.0, 0.0
        for _ in range(2000):
            x += pid(10.0 - x, 0.01) * 0.01
            peak = max(peak, x)
        if windup_guard:
            assert x == pytest.approx(10.0, abs=0.05)
        return peak - 10.0

    guarded, naive = run(True), run(False)
    assert guarded < 0.1 and naive > 10 * guarded


class _NaivePID(PID):
    """Reference without anti-windup (integrates always), to show the difference."""

    def __call__(self, error: float, dt: float, measurement: float | None = None) -> float:
        g = self.gains
        self.integral += error * dt
        return float(np.clip(g.kp * error + g.ki * self.integral, -g.output_limit, g.output_limit))


def test_pid_derivative_and_wrap() -> None:
    pid = PID(PIDGains(kp=0.0, kd=2.0))
    pid(1.0, 0.1)
    assert pid(1.5, 0.1) == pytest.approx(10.0)
    assert float(wrap_angle(3 * math.pi / 2)) == pytest.approx(-math.pi / 2)
    assert float(wrap_angle(math.pi)) == pytest.approx(math.pi)


def test_vfh_goes_around_an_obstacle_in_the_way() -> None:
    obstacles = np.array([[2.0, 0.0, 0.25]])
    direction, factor = VFH(robot_radius=0.3, safety=0.2)([0, 0, 0], [5, 0], obstacles)
    assert abs(direction[1]) > 0.2  # not straight into the obstacle
    assert 0 < factor <= 1
    # a clear line of sight goes straight
    direction, _ = VFH()([0, 0, 0], [5, 0], np.array([[2.0, 3.0, 0.25]]))
    assert direction == pytest.approx([1.0, 0.0])


def test_vfh_keeps_right_on_a_tie() -> None:
    """An obstacle dead ahead leaves the two sides equally good: the robot takes the
    one on its right (clockwise of the goal bearing), whichever way it travels, also
    when the obstacle sits a hair to the right (within the tie of one sector)."""
    vfh = VFH(robot_radius=0.3, safety=0.2)
    for goal_dir in (0.0, math.pi / 2, math.pi, -2.0):
        g = np.array([math.cos(goal_dir), math.sin(goal_dir)])
        right = np.array([g[1], -g[0]])
        for side_offset in (0.0, -0.01, 0.01):
            obstacle = 2.0 * g + side_offset * right
            for previous in (None, goal_dir):
                direction, _ = vfh([0, 0, 0], 5.0 * g, np.array([[*obstacle, 0.25]]), previous)
                assert direction @ right > 0.2, (goal_dir, side_offset, previous, direction)
    # a clearly better left side still wins (the obstacle well to the right)
    direction, _ = vfh([0, 0, 0], [5, 0], np.array([[2.0, -0.3, 0.25]]))
    assert direction[1] > 0.2


def test_potential_field_pushes_away_from_close_obstacles() -> None:
    pf = PotentialField(robot_radius=0.3, influence=1.0)
    direction, _ = pf([0, 0, 0], [5, 0], np.array([[0.9, 0.2, 0.25]]))
    assert direction[1] < -0.1  # repelled to the side away from the obstacle


def test_path_follower_progresses_and_never_goes_back() -> None:
    f = PathFollower(np.array([[0, 0], [4, 0], [4, 4]]), lookahead=1.0)
    assert f.length == pytest.approx(8.0)
    assert f.target([0.5, 0.1]) == pytest.approx([1.5, 0.0])
    assert f.target([3.9, 0.5]) == pytest.approx([4.0, 1.5], abs=0.15)
    assert f.target([0.0, 0.0])[1] > 0.5  # progress kept: no jump back to the start


def _simulate(
    ctrl: MobileController,
    start: tuple[float, float, float],
    holonomic: bool = True,
    seconds: float = 40.0,
) -> tuple[np.ndarray, float | None]:
    """Ideal base: the commanded body twist is what happens. Returns the path and the
    time the goal was first reached."""
    pose = np.array(start, dtype=float)
    dt, reached, path = 0.02, None, [pose.copy()]
    for k in range(int(seconds / dt)):
        v = ctrl.command(pose, dt)
        c, s = math.cos(pose[2]), math.sin(pose[2])
        pose += dt * np.array([c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]])
        path.append(pose.copy())
        if reached is None and ctrl.at_goal(pose):
            reached = (k + 1) * dt
    return np.array(path), reached


@pytest.mark.parametrize("method", ["vfh", "potential"])
def test_mobile_controller_reaches_goal_around_obstacles(method: str) -> None:
    obstacles = np.array([[-4, -2.5, 0.25], [-1, 0, 0.25], [1.5, 1.5, 0.25], [3, 4, 0.25]])
    cfg = MobileControllerConfig(avoidance=method, robot_radius=0.25, safety_margin=0.2)
    ctrl = MobileController(cfg, goal=[5.5, 5.0, 0.0], obstacles=obstacles)
    path, reached = _simulate(ctrl, (-9.0, -5.0, 0.0))
    assert reached is not None
    gaps = np.array([clearances(p, obstacles, 0.25).min() for p in path])
    assert gaps.min() > 0.0  # never touched an obstacle


def test_vfh_passes_an_obstacle_dead_ahead() -> None:
    obstacles = np.array([[0.0, 0.0, 0.25]])  # exactly on the straight line
    cfg = MobileControllerConfig(avoidance="vfh", robot_radius=0.25, safety_margin=0.2)
    path, reached = _simulate(MobileController(cfg, [4, 0, 0], obstacles=obstacles), (-4, 0, 0))
    assert reached is not None
    assert min(clearances(p, obstacles, 0.25).min() for p in path) > 0.1


def test_mobile_controller_path_following_and_diffdrive() -> None:
    cfg = MobileControllerConfig(lookahead=0.5)
    ctrl = MobileController(cfg, goal=[3.0, 3.0, 0.0], path=[[3.0, 0.0]])
    path, reached = _simulate(ctrl, (0.0, 0.0, 0.0))
    assert reached is not None
    first_leg = path[path[:, 0] < 2.4]
    assert np.abs(first_leg[:, 1]).max() < 0.3  # went along y = 0 first, then up
    cfg = MobileControllerConfig(holonomic=False, heading_tolerance=math.radians(5))
    ctrl = MobileController(cfg, goal=[2.0, 1.0, math.pi / 2])
    _, reached = _simulate(ctrl, (0.0, 0.0, 0.0), holonomic=False)
    assert reached is not None
