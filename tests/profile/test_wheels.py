"""Driven wheels told from passive rollers by structure (issue 22, item 3): an omni base
as onshape-to-robot exports it (rollers on shapeless hubs), the same with collision
shapes on the hubs, and what is not a set of rollers; implausible wheel inertias found
against mass and size."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.model import load_robot
from robotsim.profile.resolve import resolve_profile
from robotsim.profile.wheels import PLAUSIBLE_FACTOR, wheel_inertia_fixes
from tests.wheeled_urdf import (
    ONSHAPE_R,
    ONSHAPE_ROLLERS,
    ONSHAPE_WHEEL_R,
    write_onshape_omni_urdf,
    write_robotino_urdf,
)


def _load(path: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the onshape frames' degenerate-inertia line
        return load_robot(str(path))


def test_rollers_are_found_on_shapeless_hubs_and_never_taken_for_wheels(tmp_path) -> None:
    prof = resolve_profile(_load(write_onshape_omni_urdf(tmp_path / "omni.urdf")))
    assert prof.kind.value == "mobile-omni" and prof.drive is not None
    assert prof.drive.wheels == ("wheel_1_joint", "wheel_2_joint", "wheel_3_joint")
    for i, w in enumerate(prof.wheels, start=1):
        assert w.rollers == tuple(f"roller_{i}_{k}" for k in range(ONSHAPE_ROLLERS))
        assert w.radius == pytest.approx(ONSHAPE_WHEEL_R, abs=1e-9)
        assert np.hypot(*w.position[:2]) == pytest.approx(ONSHAPE_R, abs=1e-9)
        assert w.position[2] == pytest.approx(0.0, abs=1e-6)  # on the ground
    # the drive is the omniwheel decomposition: a pure turn needs equal rates
    M = prof.drive.M
    np.testing.assert_allclose(M[:, 2], M[0, 2], rtol=1e-8)  # 9 digits in the file
    assert abs(M[0, 2]) == pytest.approx(ONSHAPE_R / ONSHAPE_WHEEL_R, rel=1e-8)
    assert np.linalg.matrix_rank(M) == 3


def test_collision_shapes_on_the_hub_change_nothing(tmp_path) -> None:
    path = write_onshape_omni_urdf(tmp_path / "omni.urdf")
    text = path.read_text()
    hub = '<collision><origin rpy="0 1.5707963267948966 0"/><geometry><cylinder radius="0.03" length="0.01"/></geometry></collision>'  # noqa: E501
    text = re.sub(r'(<link name="wheel_\d">)', rf"\1{hub}", text)
    path.write_text(text)
    prof = resolve_profile(_load(path))
    assert prof.drive is not None and len(prof.drive.wheels) == 3
    assert all(len(w.rollers) == ONSHAPE_ROLLERS for w in prof.wheels)
    assert all(w.radius == pytest.approx(ONSHAPE_WHEEL_R) for w in prof.wheels)


def test_rollers_on_one_side_or_too_few_are_not_rollers(tmp_path) -> None:
    """Keep rollers 0..2 of each wheel only (three on one side of the axle): no
    rollers, so no wheels (the hub has nothing to roll on) and no drive; keep two
    opposite ones: too few."""
    path = write_onshape_omni_urdf(tmp_path / "omni.urdf")
    text = path.read_text()

    def drop(keep: set[int]) -> str:
        out = text
        for k in range(ONSHAPE_ROLLERS):
            if k not in keep:
                out = re.sub(rf'\s*<joint name="roller_\d_{k}".*?</joint>\s*<link name='
                             rf'"roller_\d_{k}">.*?</link>', "", out, flags=re.S)  # fmt: skip
        return out

    for keep in ({0, 1, 2}, {0, 4}):
        path.write_text(drop(keep))
        prof = resolve_profile(_load(path))
        assert all(not w.rollers for w in prof.wheels)
        assert not any(w.joint.startswith("wheel_") for w in prof.wheels)


def test_profile_json_shows_wheels_and_rollers(tmp_path, capsys) -> None:
    path = write_onshape_omni_urdf(tmp_path / "omni.urdf")
    assert main(["profile", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [w["joint"] for w in out["wheels"]] == ["wheel_1_joint", "wheel_2_joint",
                                                   "wheel_3_joint"]  # fmt: skip
    assert out["wheels"][0]["rollers"][:2] == ["roller_1_0", "roller_1_1"]


def test_implausible_wheel_inertia_is_found_and_replaced_by_its_geometrys(tmp_path) -> None:
    """Robotino's file: 10 mg wheels of 1 kg m^2. A solid disc of 10 mg, radius 0.04 m,
    0.03 m thick has moments m(3r^2 + h^2)/12 and m r^2/2 about its axle."""
    model = _load(write_robotino_urdf(tmp_path / "robotino.urdf"))
    prof = resolve_profile(model)
    assert prof.drive is not None and prof.drive.type == "omni"
    assert any("wheel0_link" in n and "1 kg m^2 > m d^2" in n for n in prof.notes)
    fixes = wheel_inertia_fixes(model, prof.wheels)
    assert sorted(fixes) == ["wheel0_link", "wheel1_link", "wheel2_link"]
    ine, _ = fixes["wheel0_link"]
    m, r, h = 1e-5, 0.04, 0.03
    ev = np.sort(np.linalg.eigvalsh(ine.inertia))
    # the hull of 64-gon rims: within 0.5 % of the disc's moments
    np.testing.assert_allclose(ev, sorted([m * (3 * r * r + h * h) / 12] * 2 + [m * r * r / 2]),
                               rtol=5e-3)  # fmt: skip
    assert ine.mass == m
    # a plausible wheel (the onshape hubs, the rollers) is left alone
    omni = _load(write_onshape_omni_urdf(tmp_path / "omni.urdf"))
    assert wheel_inertia_fixes(omni, resolve_profile(omni).wheels) == {}
    assert PLAUSIBLE_FACTOR >= 1.0


def test_profile_text_shows_the_rollers(tmp_path, capsys) -> None:
    assert main(["profile", str(write_onshape_omni_urdf(tmp_path / "omni.urdf"))]) == 0
    out = capsys.readouterr().out
    assert "wheel wheel_1_joint: radius 0.05 m" in out
    assert "8 passive rollers: roller_1_0, roller_1_1, roller_1_2, ... roller_1_7" in out
