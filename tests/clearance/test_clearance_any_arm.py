"""Any arm in a clearance scenario (issue 12.4): the Panda URDF from the shared fixtures
beside a PUMA 560, each with fitted volumes on every moving link (``volumes: {fit:
TYPE}``: no link names needed), collides when it swings into the PUMA."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robotsim.clearance.scenario import load_scenario, moving_links
from robotsim.cli import main
from robotsim.errors import ScenarioError
from robotsim.model import load_robot
from tests.paths import FIXTURES

PANDA = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"

SCENARIO = """kind: clearance
units: {{length: m, angle: deg}}
dt: 0.02
contact_threshold: 0.01
robots:
  - name: panda
    model: {panda}
    volumes: {{fit: {fit}}}
    start: {{panda_joint4: -90}}
    segments:
      - {{type: quintic, to: {{panda_joint1: 60, panda_joint2: 40, panda_joint4: -60}},
         duration: 2}}
  - name: puma
    model: puma560
    base: {{xyz: [1.0, 0.0, 0], rpy: [0, 0, 180]}}
    volumes: {{fit: capsule}}
    start: {{joint2: -30, joint3: -30}}
    segments:
      - {{type: quintic, to: {{joint1: -30}}, duration: 2}}
"""


def test_panda_urdf_beside_a_puma_with_fitted_volumes(tmp_path: Path, capsys) -> None:
    f = tmp_path / "panda_puma.yaml"
    f.write_text(SCENARIO.format(panda=PANDA, fit="capsule"))
    sc = load_scenario(f)
    panda = next(r for r in sc.scene.robots if r.name == "panda")
    links = {v.link for v in panda.volumes}
    assert links == set(moving_links(load_robot(str(PANDA))))
    assert {"panda_link1", "panda_link7", "panda_hand", "panda_leftfinger"} <= links
    assert "panda_link0" not in links  # the fixed base does not move
    assert main(["clearance", str(f), "--out", str(tmp_path / "out"), "--json"]) == 0
    pair = json.loads(capsys.readouterr().out)["pairs"]["panda-puma"]
    assert pair["collision_intervals"] and pair["min_distance"] < 0.01
    assert pair["closest"][0].startswith("panda_") and pair["closest"][1].startswith("link")


def test_fit_all_with_an_unknown_fit_names_the_field(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(SCENARIO.format(panda=PANDA, fit="cone"))
    with pytest.raises(ScenarioError, match=r"robots\[0\]\.volumes\.fit: .cone. is not allowed"):
        load_scenario(f)
