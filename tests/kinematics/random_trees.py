"""Random kinematic trees for property tests (all joint kinds, post transforms, mimics)."""

from __future__ import annotations

import numpy as np

from robotsim.model import RobotBuilder, RobotModel
from robotsim.spatial import make_T, quat_to_R


def random_T(rng: np.random.Generator, scale: float = 0.3) -> np.ndarray:
    return make_T(quat_to_R(rng.normal(size=4)), rng.normal(scale=scale, size=3))


def random_tree(seed: int, n_links: int = 8, with_post: bool = True) -> RobotModel:
    """A random tree: links attach to random earlier links; revolute, continuous,
    prismatic and fixed joints with random axes, origins and (optionally) posts; the
    last movable joint may mimic an earlier one."""
    rng = np.random.default_rng(seed)
    b = RobotBuilder(f"random{seed}")
    b.link("l0")
    actuated: list[str] = []
    for i in range(1, n_links):
        parent = f"l{rng.integers(0, i)}"
        kinds = ["revolute", "continuous", "prismatic", "fixed"]
        kind = rng.choice(kinds, p=[0.45, 0.15, 0.2, 0.2])
        b.link(f"l{i}")
        mimic = None
        if kind != "fixed" and actuated and rng.random() < 0.2:
            mimic = (actuated[int(rng.integers(0, len(actuated)))], float(rng.normal()), 0.1)
        b.joint(
            f"j{i}",
            str(kind),
            parent,
            f"l{i}",
            origin=random_T(rng),
            axis=rng.normal(size=3),
            post=random_T(rng, 0.1) if with_post and rng.random() < 0.5 else None,
            lower=-2.5 if kind in ("revolute", "prismatic") else -np.inf,
            upper=2.5 if kind in ("revolute", "prismatic") else np.inf,
            mimic=mimic,
        )
        if kind != "fixed" and mimic is None:
            actuated.append(f"j{i}")
    b.frame("tip", f"l{n_links - 1}", random_T(rng, 0.05))
    b.default_frame = "tip"
    return b.build()


def reference_fk_all(model: RobotModel, q: np.ndarray) -> dict[str, np.ndarray]:
    """Slow, obvious FK: walk the joints in order composing origin @ M(q) @ post."""
    from robotsim.spatial import axis_angle_to_R, trans

    poses = {model.root: np.eye(4)}
    qmap = dict(zip(model.joint_names, q))
    for j in model.joints:
        if j.movable:
            x = (
                qmap[j.name]
                if j.mimic is None
                else (j.mimic.multiplier * qmap[j.mimic.joint] + j.mimic.offset)
            )
            if j.type.value == "prismatic":
                M = trans(np.asarray(j.axis) * x)
            else:
                M = make_T(axis_angle_to_R(j.axis, x))
        else:
            M = np.eye(4)
        poses[j.child] = poses[j.parent] @ j.origin @ M @ j.post
    return poses
