"""Random multi-robot scenes: arms placed round a shared workspace, moving between
random configurations. What the certified check and the planner are tested and
benchmarked on (``robotsim bench plan``), and a quick way to stress a new arm.

The arms stand on a circle facing its centre, ``spacing`` times their reach apart
from it (so their workspaces overlap), and each follows one or two joint-space
segments (quintic or trapezoid) between random configurations within the joint limits
(clipped to +-``joint_range`` rad), after a random start delay. Sized from the arm's
reach (the largest distance of a volume centre from the base over random
configurations), never from its name.
"""

from __future__ import annotations

import math

import numpy as np

from robotsim.clearance.scene import PlacedRobot, Scene
from robotsim.clearance.trajectory import JointQuintic, JointTrapezoid, Segment, Trajectory
from robotsim.clearance.volumes import LinkVolume
from robotsim.errors import InputError
from robotsim.geometry.broadphase import bounding_radius
from robotsim.geometry.shapes import pack_shape
from robotsim.model.robot import RobotModel

__all__ = ["arm_reach", "random_scene"]


def arm_reach(model: RobotModel, volumes: tuple[LinkVolume, ...], samples: int = 256) -> float:
    """The largest distance (m) from the base of a volume's farthest point over random
    configurations (a robust size of the arm's workspace)."""
    rng = np.random.default_rng(0)
    lo = np.maximum(model.lower, -math.pi)
    hi = np.minimum(model.upper, math.pi)
    q = rng.uniform(lo, hi, (samples, model.nq))
    T_all = model.fk_all(q)
    best = 0.0
    for v in volumes:
        T = T_all[:, model.link_names.index(v.link)] @ np.asarray(v.T_link_volume)
        kind, size = pack_shape(v.shape)
        extent = float(bounding_radius(kind, size))
        best = max(best, float(np.max(np.linalg.norm(T[:, :3, 3], axis=1))) + extent)
    return best


def random_scene(
    seed: int,
    model: RobotModel,
    volumes: tuple[LinkVolume, ...],
    n_robots: int = 3,
    *,
    spacing: float = 0.45,
    joint_range: float = 2.0,
    duration: tuple[float, float] = (0.8, 2.0),
    max_delay: float = 0.5,
) -> tuple[Scene, dict[str, Trajectory]]:
    """``n_robots`` copies of ``model`` with ``volumes`` (names ``R0, R1, ...``) round a
    circle of radius ``spacing * reach``, each moving through one or two random
    joint-space segments of ``duration`` s after up to ``max_delay`` s."""
    if n_robots < 1:
        raise InputError(f"n_robots must be >= 1, got {n_robots}")
    rng = np.random.default_rng(seed)
    reach = arm_reach(model, volumes)
    lo = np.maximum(model.lower, -joint_range)
    hi = np.minimum(model.upper, joint_range)
    robots, trajs = [], {}
    a0 = rng.uniform(0, 2 * math.pi)
    for k in range(n_robots):
        a = a0 + 2 * math.pi * k / n_robots + rng.uniform(-0.3, 0.3)
        r = spacing * reach * rng.uniform(0.85, 1.15)
        yaw = a + math.pi + rng.uniform(-0.5, 0.5)
        T = np.eye(4)
        T[:2, 3] = r * math.cos(a), r * math.sin(a)
        T[:2, :2] = [[math.cos(yaw), -math.sin(yaw)], [math.sin(yaw), math.cos(yaw)]]
        name = f"R{k}"
        robots.append(PlacedRobot(name, model, volumes, T))
        q = rng.uniform(lo, hi)
        segs: list[Segment] = []
        for _ in range(int(rng.integers(1, 3))):
            q1 = rng.uniform(lo, hi)
            d = float(rng.uniform(*duration))
            if rng.random() < 0.5:
                segs.append(JointQuintic(q, q1, d))
            else:
                segs.append(JointTrapezoid(q, q1, d, float(rng.uniform(0.1, 0.5))))
            q = q1
        trajs[name] = Trajectory(tuple(segs), start=float(rng.uniform(0, max_delay)))
    return Scene(tuple(robots)), trajs
