"""A clearance scenario names its robot files relative to its own folder (as mobile
scenarios do), whatever the working directory; ``robotsim plan`` writes them into the
planned file so that it loads from anywhere. Two two-link arms written here, 1.3 m apart,
sweep through the gap between them at the same time (a start delay parts them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from robotsim.clearance.scenario import load_scenario
from robotsim.cli import main
from robotsim.errors import ScenarioError

ARM = """<?xml version="1.0"?>
<robot name="two_link">
  <link name="base"/>
  <joint name="pan" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="10" velocity="2"/>
  </joint>
  <link name="upper">
    <inertial><mass value="1"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><origin xyz="0.2 0 0" rpy="0 1.5707963 0"/>
      <geometry><cylinder radius="0.03" length="0.4"/></geometry></collision>
  </link>
  <joint name="elbow" type="revolute">
    <parent link="upper"/><child link="fore"/>
    <origin xyz="0.4 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="10" velocity="2"/>
  </joint>
  <link name="fore">
    <inertial><mass value="0.5"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><origin xyz="0.15 0 0" rpy="0 1.5707963 0"/>
      <geometry><cylinder radius="0.03" length="0.3"/></geometry></collision>
  </link>
</robot>
"""


def _robot(name: str, x: float, yaw: float, start: float) -> dict:  # type: ignore[type-arg]
    return {
        "name": name,
        "model": "../robots/arm.urdf",
        "base": {"xyz": [x, 0, 0], "rpy": [0, 0, yaw]},
        "volumes": {"fit": "capsule"},
        "start": {"pan": start},
        "segments": [{"type": "quintic", "to": {"pan": -start}, "duration": 2}],
    }


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "robots").mkdir()
    (tmp_path / "robots" / "arm.urdf").write_text(ARM)
    (tmp_path / "scenarios").mkdir()
    doc = {
        "kind": "clearance",
        "units": {"length": "m", "angle": "deg"},
        "dt": 0.02,
        "robots": [_robot("A", 0.0, 0.0, 90.0), _robot("B", 1.3, 180.0, -90.0)],
    }
    path = tmp_path / "scenarios" / "arms.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    elsewhere = tmp_path / "work" / "here"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)  # '../robots/arm.urdf' from here names no file
    return path


def test_models_are_read_from_the_scenario_folder(layout: Path) -> None:
    sc = load_scenario(layout)
    assert [r.model.name for r in sc.scene.robots] == ["two_link", "two_link"]
    # the same file read as a document without a folder: the relative path means nothing
    doc = yaml.safe_load(layout.read_text())
    doc["robots"][0]["model"] = "no/such/arm.urdf"
    bad = layout.with_name("bad.yaml")
    bad.write_text(yaml.safe_dump(doc))
    with pytest.raises(ScenarioError, match=r"robots\[0\]\.model"):
        load_scenario(bad)


def test_planned_file_loads_from_anywhere(layout: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = layout.parent.parent / "plan"
    code = main(["plan", str(layout), "--method", "delay", "--out", str(out), "--json"])
    s = json.loads(capsys.readouterr().out)
    assert code == 0
    assert s["before"]["collision_free"] is False  # the arms do collide as planned before
    assert s["collision_free"] is True and s["certified"] is True
    planned = yaml.safe_load((out / "scenario.yaml").read_text())
    models = {r["model"] for r in planned["robots"]}
    assert models == {str((layout.parent.parent / "robots" / "arm.urdf").resolve())}
    assert load_scenario(out / "scenario.yaml").scene.robots[1].name == "B"
