"""DH tables (standard and modified) from Python and YAML, with their errors."""

from __future__ import annotations

import numpy as np
import pytest

import robotsim
from robotsim.errors import ModelFileError
from robotsim.model import DHJoint, from_dh
from robotsim.spatial import rot_x, rot_z

ROWS = [
    DHJoint(d=0.3, a=0.1, alpha=np.pi / 2, offset=0.2, qlim=(-2, 2)),
    DHJoint(d=0.0, a=0.4, alpha=0.0),
    DHJoint(theta=0.3, a=0.05, alpha=-np.pi / 2, prismatic=True, offset=0.1, qlim=(0, 0.5)),
    DHJoint(d=0.2, a=0.0, alpha=np.pi / 3, offset=-0.4),
]


def H(R=None, p=(0, 0, 0)):
    T = np.eye(4)
    if R is not None:
        T[:3, :3] = R
    T[:3, 3] = p
    return T


def std_ref(q, base, tool):
    T = base.copy()
    for qi, r in zip(q, ROWS):
        th, d = (r.theta, qi + r.offset) if r.prismatic else (qi + r.offset, r.d)
        T = T @ H(rot_z(th)) @ H(p=(0, 0, d)) @ H(p=(r.a, 0, 0)) @ H(rot_x(r.alpha))
    return T @ tool


def mdh_ref(q, base, tool):
    T = base.copy()
    for qi, r in zip(q, ROWS):
        th, d = (r.theta, qi + r.offset) if r.prismatic else (qi + r.offset, r.d)
        T = T @ H(rot_x(r.alpha)) @ H(p=(r.a, 0, 0)) @ H(rot_z(th)) @ H(p=(0, 0, d))
    return T @ tool


@pytest.mark.parametrize(("convention", "ref"), [("standard", std_ref), ("modified", mdh_ref)])
def test_dh_conventions_match_written_out_products(convention, ref) -> None:
    base = H(rot_z(0.3), (0.1, -0.2, 0.5))
    tool = H(rot_x(0.2), (0.0, 0.0, 0.12))
    m = from_dh(ROWS, convention, base=base, tool=tool)
    rng = np.random.default_rng(0)
    for _ in range(20):
        q = rng.uniform(-1, 1, 4)
        assert np.allclose(m.fk(q), ref(q, base, tool), atol=1e-12)
    # each link frame is the DH frame j
    q = rng.uniform(-1, 1, 4)
    T = base.copy()
    for j, (qi, r) in enumerate(zip(q, ROWS), start=1):
        th, d = (r.theta, qi + r.offset) if r.prismatic else (qi + r.offset, r.d)
        if convention == "standard":
            T = T @ H(rot_z(th)) @ H(p=(0, 0, d)) @ H(p=(r.a, 0, 0)) @ H(rot_x(r.alpha))
        else:
            T = T @ H(rot_x(r.alpha)) @ H(p=(r.a, 0, 0)) @ H(rot_z(th)) @ H(p=(0, 0, d))
        assert np.allclose(m.fk(q, f"link{j}"), T, atol=1e-12)


DH_YAML = """
format: robotsim-robot/1
name: two
units: {angle: deg}
dh:
  convention: modified
  joints:
    - {d: 0.1, a: 0, alpha: 0, qlim: [-90, 90]}
    - {d: 0, a: 0.5, alpha: 90, qlim: [-45, 45]}
poses:
  home: {joint1: 30, joint2: -20}
"""


def test_dh_yaml_degrees(tmp_path) -> None:
    p = tmp_path / "two.yaml"
    p.write_text(DH_YAML)
    m = robotsim.load_robot(p)
    assert np.allclose(m.upper, np.deg2rad([90, 45]))
    assert np.allclose(m.pose("home"), np.deg2rad([30, -20]))


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (DH_YAML.replace("alpha: 90", "alpha: .nan"), "dh.joints[1].alpha"),
        (DH_YAML.replace("convention: modified", "convention: craig"), "dh.convention"),
        (DH_YAML.replace("qlim: [-45, 45]", "qlim: [-45]"), "dh.joints[1].qlim"),
        (DH_YAML.replace("d: 0.1,", "dd: 0.1,"), "dh.joints[0].dd"),
        (DH_YAML.replace("joint2: -20", "joint7: -20"), "joint7"),
        ("name: [unclosed", "not valid YAML"),
    ],
)
def test_dh_yaml_errors_name_the_field(tmp_path, text, where) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(ModelFileError) as exc:
        robotsim.load_robot(p)
    assert str(p) in str(exc.value) and where in str(exc.value)
    assert "\n" not in str(exc.value)  # one line
