"""Big and odd model files: 20,000-link URDF and MJCF trees load (parsing is linear in
links: the bench ``robotsim bench parsing`` times it), cycles are still named, and xacro
markup gives an error instead of being ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from robotsim import load_robot
from robotsim.bench.parsing import mjcf_wide, urdf_chain
from robotsim.errors import ModelFileError


@pytest.mark.slow
def test_20000_link_urdf_chain_loads(tmp_path: Path) -> None:
    f = tmp_path / "chain.urdf"
    f.write_text(urdf_chain(20_000, inertial=False))
    model = load_robot(f)
    assert len(model.links) == 20_000 and model.nq == 19_999


@pytest.mark.slow
def test_20000_body_mjcf_loads(tmp_path: Path) -> None:
    f = tmp_path / "wide.xml"
    f.write_text(mjcf_wide(20_000))
    model = load_robot(f)
    assert model.nq == 20_000


def test_long_cycle_is_named(tmp_path: Path) -> None:
    n = 500
    links = "".join(f'<link name="l{i}"/>' for i in range(n))
    joints = "".join(
        f'<joint name="j{i}" type="fixed"><parent link="l{i}"/><child link="l{(i + 1) % n}"/>'
        "</joint>"
        for i in range(n)
    )
    f = tmp_path / "loop.urdf"
    f.write_text(f'<robot name="loop">{links}{joints}</robot>')
    with pytest.raises(ModelFileError, match="form a cycle"):
        load_robot(f)


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (
            '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
            '<xacro:property name="l" value="0.5"/><link name="a"/></robot>',
            "<xacro:property>: xacro is not expanded",
        ),
        ('<robot name="r"><xacro:include filename="x.xacro"/><link name="a"/></robot>', "xacro"),
        (
            '<robot name="r"><link name="a"><visual><geometry><box size="${l} 1 1"/>'
            "</geometry></visual></link></robot>",
            "xacro expression",
        ),
    ],
)
def test_xacro_markup_is_an_error(body: str, needle: str, tmp_path: Path) -> None:
    f = tmp_path / "robot.urdf"
    f.write_text(body)
    with pytest.raises(ModelFileError, match="xacro") as exc:
        load_robot(f)
    assert needle in str(exc.value)
