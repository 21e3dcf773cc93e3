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
