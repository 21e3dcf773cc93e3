"""Scenario validation (errors with exact field paths) and the clearance CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from robotsim.clearance.scenario import load_scenario
from robotsim.cli import main
from robotsim.errors import ScenarioError
from robotsim.shipped import shipped_dir

SCENARIO = shipped_dir("scenario") / "three_puma_clearance.yaml"


def edited(tmp_path: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    data = yaml.safe_load(SCENARIO.read_text())
    edit(data)
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


def _set(path: list, value):  # type: ignore[no-untyped-def]
    def edit(d):  # type: ignore[no-untyped-def]
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value

    return edit


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (
            ["robots", 1, "volumes", 0, "radii"],
            [0.1, -0.2, 0.3],
            r"robots\[1\]\.volumes\[0\]\.radii\[1\]: Input should be greater than 0",
        ),
        (
            ["robots", 0, "volumes", 0, "link"],
            "link9",
            r"robots\[0\]\.volumes\[0\]\.link: unknown link 'link9' of puma560; valid: base_link",
        ),
        (["robots", 2, "model"], "no_such_robot", r"robots\[2\]\.model: "),
        (
            ["robots", 2, "segments", 0, "to", "joint2"],
            200,
            r"robots\[2\]\.segments\[0\]\.to\.joint2: 200 deg is outside the joint limits "
            r"\[-110, 110\]",
        ),
        (
            ["robots", 2, "segments", 0, "to", "elbow"],
            20,
            r"robots\[2\]\.segments\[0\]\.to\.elbow: unknown joint of puma560",
        ),
        (
            ["robots", 0, "base", "xyz"],
            [0, float("nan"), 0],
            r"robots\[0\]\.base\.xyz\[1\]: Input should be a finite number",
        ),
        (
            ["robots", 0, "segments", 0, "to"],
            [3.0, 0, 0.8],
            r"robots\[0\]\.segments\[0\]: link4 of puma560 cannot follow the straight line "
            r"to \[3, 0, 0\.8\] \(world\)",
        ),
        (["dt"], 0, r"dt: Input should be greater than 0"),
        (
            ["robots", 0, "volumes", 0, "colour"],
            "red",
            r"robots\[0\]\.volumes\[0\]\.colour: unknown key 'colour'; valid: link, type, fit",
        ),
    ],
)
def test_bad_scenarios_name_the_field(tmp_path, path, value, message) -> None:  # type: ignore[no-untyped-def]
    p = edited(tmp_path, _set(path, value))
    with pytest.raises(ScenarioError, match=message):
        load_scenario(p)


def test_unreachable_line_is_told_in_world_coordinates(tmp_path: Path) -> None:
    """Robot B stands at x = 1.22 m turned 180 deg: a line it cannot finish is told in
    the file's world coordinates (it was told in B's base frame, so the end point in
    the message was not the one in the file: [-1.78, 0, 0.8] for [3, 0, 0.8])."""
    import re

    import numpy as np

    p = edited(tmp_path, _set(["robots", 1, "segments", 0, "to"], [-1.0, 0.35, 0.8]))
    with pytest.raises(ScenarioError) as info:
        load_scenario(p)
    msg = str(info.value)
    assert "robots[1].segments[0]: link4 of puma560 cannot follow the straight line to " in msg
    assert "to [-1, 0.35, 0.8] (world): " in msg
    m = re.search(r"(\d+)% of the way, at \[([^]]*)\]", msg)
    assert m is not None
    at = np.array([float(v) for v in m.group(2).split(",")])
    start, end = np.array([0.55, 0.35, 0.8]), np.array([-1.0, 0.35, 0.8])  # B's line
    s = int(m.group(1)) / 100
    assert np.allclose(at, start + s * (end - start), atol=0.02)  # on the file's line


def test_fit_model_on_a_mesh_robot_says_which_fits_to_use(tmp_path: Path) -> None:
    """``volumes: {fit: model}`` on the Panda (mesh collision shapes) tells what fit:
    model takes and which fits to use; it said "use 'fit'", which the file did."""
    from tests.paths import FIXTURES

    def edit(d):  # type: ignore[no-untyped-def]
        a = d["robots"][0]
        a["model"] = str(FIXTURES / "urdf" / "franka_panda" / "panda.urdf")
        a["volumes"] = {"fit": "model"}
        a["start"] = {}
        a["segments"] = [{"type": "quintic", "to": {"panda_joint1": 10}, "duration": 4}]

    with pytest.raises(ScenarioError) as info:
        load_scenario(edited(tmp_path, edit))
    msg = str(info.value)
    assert "robots[0].volumes.fit: panda: link 'panda_link1' collision shape is a Mesh" in msg
    assert msg.endswith("fit a volume to it instead: fit: capsule, ellipsoid, sphere or box")


def test_cli_text_gives_collision_intervals_in_seconds(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The intervals are times: the text says so ("[1.3198, 2.3569]" had no unit)."""
    out = tmp_path / "out"
    assert main(["clearance", str(SCENARIO), "--out", str(out), "--dt", "0.05"]) == 0
    lines = capsys.readouterr().out.splitlines()
    ab = next(x for x in lines if x.startswith("A-B: "))
    assert re.search(r"; collisions: t = \d+\.\d{4} \.\. \d+\.\d{4} s$", ab), ab
    assert next(x for x in lines if x.startswith("A-C: ")).endswith("; collisions: none")


def test_cli_writes_outputs_and_prints_json(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    assert main(["clearance", str(SCENARIO), "--out", str(out), "--json", "--dt", "0.05"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed["pairs"]) == {"A-B", "A-C", "B-C"}
    ab = printed["pairs"]["A-B"]
    assert ab["min_distance"] < 0 and len(ab["collision_intervals"]) == 1
    assert set(ab) >= {"min_distance", "t_min", "collision_intervals"}
    header = (out / "distances.csv").read_text().splitlines()[0]
    assert header == "t,A-B,A-C,B-C"
    assert len((out / "distances.csv").read_text().splitlines()) == 82  # 4 s at 0.05 s + header
    saved = json.loads((out / "intervals.json").read_text())
    assert saved["pairs"]["A-B"]["collision_intervals"] == ab["collision_intervals"]
    png = (out / "distance_curves.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000


def test_cli_bad_scenario_exits_2(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    p = edited(tmp_path, _set(["robots", 0, "volumes", 0, "radii"], [0, 0.1, 0.1]))
    assert main(["clearance", str(p), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "robots[0].volumes[0].radii[0]" in err and "Traceback" not in err
    assert main(["clearance", str(tmp_path / "missing.yaml"), "--out", str(tmp_path)]) == 2
