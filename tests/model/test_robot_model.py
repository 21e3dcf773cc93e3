"""RobotModel validation, immutability and name lookups."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import robotsim
from robotsim.errors import InputError, ModelError, UnknownNameError
from robotsim.model import RobotBuilder


def chain(extra=None) -> RobotBuilder:
    b = RobotBuilder("t")
    b.link("a").link("b").link("c")
    b.joint("j1", "revolute", "a", "b", lower=-1, upper=1)
    b.joint("j2", "prismatic", "b", "c", lower=0, upper=0.5)
    return b


def test_valid_model_and_lookups() -> None:
    m = chain().build()
    assert m.joint_names == ("j1", "j2") and m.root == "a" and m.nq == 2
    assert m.joint_index("j2") == 1
    assert np.array_equal(m.q_from({"j2": 0.2}), [0.0, 0.2])
    with pytest.raises(UnknownNameError, match=r"unknown joint 'j9'; valid: j1, j2"):
        m.joint_index("j9")


def test_model_is_immutable() -> None:
    m = chain().build()
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.name = "x"  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        m.joints[0].origin[0, 0] = 2.0
    with pytest.raises(ValueError, match="read-only"):
        m.lower[0] = 3.0


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda b: b.joint("j3", "fixed", "nowhere", "c"), "unknown parent link 'nowhere'"),
        (lambda b: b.link("a"), "link name 'a' is used twice"),
        (lambda b: b.joint("j1", "fixed", "a", "c"), "joint name 'j1' is used twice"),
        (lambda b: b.joint("j3", "fixed", "c", "a"), "cycle"),
        (
            lambda b: (
                b.link("d").link("e").joint("jd", "fixed", "e", "d").joint("je", "fixed", "d", "e")
            ),
            "cycle|root",
        ),
        (
            lambda b: b.link("d").joint("j3", "revolute", "c", "d", mimic=("zz", 1, 0)),
            "mimics 'zz'",
        ),
        (lambda b: b.link("d").joint("j3", "floating", "c", "d"), "floating"),
    ],
)
def test_bad_trees(edit, message) -> None:
    b = chain()
    edit(b)
    with pytest.raises(ModelError, match=message):
        b.build()


def test_bad_joint_values() -> None:
    b = chain()
    b.link("d")
    with pytest.raises(InputError, match="axis"):
        b.joint("j3", "revolute", "c", "d", axis=(0, 0, 0))
    with pytest.raises(InputError, match="NaN"):
        b.joint("j3", "revolute", "c", "d", lower=np.nan)
    with pytest.raises(InputError, match="unknown type 'ball'"):
        b.joint("j3", "ball", "c", "d")


def test_check_limits_names_joint() -> None:
    m = chain().build()
    with pytest.raises(InputError, match=r"joint 'j2' = 0.7 is outside its limits \[0, 0.5\]"):
        m.check_limits([0.0, 0.7])


def test_unknown_robot_lists_library() -> None:
    with pytest.raises(UnknownNameError, match="puma560"):
        robotsim.load_robot("puma561")


def test_builder_takes_bare_geometry_as_a_shape_and_names_a_wrong_item():
    from robotsim.errors import InputError
    from robotsim.model.geometry import Box, Shape

    m = RobotBuilder("b").link("base", [Box((0.1, 0.2, 0.3))]).build()
    (shape,) = m.link("base").visuals
    assert isinstance(shape, Shape) and shape.geometry == Box((0.1, 0.2, 0.3))
    assert m.link("base").collisions == (shape,)
    with pytest.raises(InputError, match=r"link 'base': collisions must be .* got str"):
        RobotBuilder("b").link("base", [], collisions=["box"])


def test_batched_inertia_check_flags_exactly_what_problem_refuses() -> None:
    """RobotModel checks every link's inertia with one batched eigvalsh; it must single
    out exactly the links whose ``Inertial.problem()`` (the per-link reference) refuses:
    random valid tensors, ones on and just past the triangle boundary, non-symmetric,
    indefinite, zero, NaN and massless ones."""
    from robotsim.model.robot import Inertial, Link, _links_with_bad_inertia
    from robotsim.spatial import quat_to_R

    rng = np.random.default_rng(5)
    tensors: list[tuple[float, np.ndarray]] = []
    for _ in range(400):
        a, b = rng.uniform(0.01, 1.0, 2)
        c = (a + b) * rng.choice([0.5, 1.0, 1.0 - 1e-12, 1.0 + 1e-10, 1.0 + 1e-6, 1.2])
        R = quat_to_R(rng.normal(size=4))
        I = (R * np.array([a, b, c])) @ R.T
        tensors.append((1.0, I))
    skew = np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 1.0]])
    tensors += [(1.0, np.diag([1.0, -1.0, 1.0])), (1.0, np.zeros((3, 3))),
                (0.0, np.zeros((3, 3))), (1.0, skew), (1.0, np.full((3, 3), np.nan)),
                (0.0, np.diag([1e-300, 1e-300, 1e-300]))]  # fmt: skip
    links = [Link(f"l{i}", inertial=Inertial(m, np.zeros(3), I)) for i, (m, I) in
             enumerate(tensors)]  # fmt: skip
    flagged = {lk.name for lk in _links_with_bad_inertia(links)}
    refused = {lk.name for lk in links if lk.inertial.problem() is not None}
    assert flagged == refused
    assert 0 < len(refused) < len(links)


def test_loading_a_file_leaves_the_garbage_collector_as_it_was(tmp_path) -> None:
    import gc

    from robotsim import load_robot
    from robotsim.errors import ModelFileError

    good, bad = tmp_path / "a.urdf", tmp_path / "b.urdf"
    good.write_text('<robot name="r"><link name="a"/></robot>')
    bad.write_text("<robot")
    assert gc.isenabled()
    load_robot(good)
    with pytest.raises(ModelFileError):
        load_robot(bad)
    assert gc.isenabled()
    gc.disable()
    try:
        load_robot(good)
        assert not gc.isenabled()
    finally:
        gc.enable()
