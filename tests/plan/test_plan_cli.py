"""``robotsim plan``: the three-PUMA scene made collision-free (certified), the planned
scenario read back by ``robotsim clearance``, a method that cannot help says why, bad
input exits 2; a Panda (URDF, fitted capsules) beside a PUMA."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from robotsim.clearance.scenario import load_scenario
from robotsim.cli import main
from tests.paths import FIXTURES

PANDA = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"


def _run(args: list[str], capsys) -> tuple[int, dict]:  # type: ignore[no-untyped-def,type-arg]
    code = main(args)
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip().startswith("{") else {}


def test_plan_three_puma_replan(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, s = _run(
        ["plan", "three_puma_clearance", "--method", "replan", "--out", str(tmp_path), "--json"],
        capsys,
    )
    assert code == 0
    assert s["collision_free"] is True and s["certified"] is True and s["method"] == "replan"
    assert s["margin_m"] == 0.02 and s["min_distance_lower_bound_m"] > 0.02
    assert s["min_distance_m"] >= s["min_distance_lower_bound_m"]
    assert s["added_time_s"] > 0 and s["plan_time_s"] > 0
    assert s["before"]["collision_free"] is False  # the same check, before: NO
    for f in (
        "scenario.yaml",
        "summary.json",
        "distance_curves.png",
        "distances_before.csv",
        "distances_after.csv",
    ):
        assert (tmp_path / f).is_file()
    # the planned file is a clearance scenario: robotsim clearance certifies it too
    code, c = _run(
        [
            "clearance",
            str(tmp_path / "scenario.yaml"),
            "--certified",
            "--json",
            "--out",
            str(tmp_path / "check"),
        ],
        capsys,
    )
    assert code == 0 and c["certified"] and c["collision_free"]
    assert all(not p["collision_intervals"] for p in c["pairs"].values())


def _one_line_error(capsys) -> tuple[dict, str]:  # type: ignore[no-untyped-def,type-arg]
    cap = capsys.readouterr()
    err = cap.err.strip()
    assert err.startswith("error: ") and "\n" not in err and "Traceback" not in err
    return json.loads(cap.out), err


def test_plan_delay_that_cannot_help_says_why(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """No plan found is a bad request: exit 2 with the reason on one line, the files and
    the summary (printed with --json) written all the same."""
    args = ["plan", "three_puma_clearance", "--method", "delay", "--out", str(tmp_path)]
    code = main([*args, "--json", "--budget", "20"])
    s, err = _one_line_error(capsys)
    assert code == 2 and s["collision_free"] is False and s["changes"] == []
    assert any("no start delay of A" in r for r in s["reasons"])
    assert "no start delay of" in err and "summary.json" in err
    assert s["after"]["pairs"]["A-B"]["min_distance_lower_bound_m"] < 0
    assert json.loads((tmp_path / "summary.json").read_text())["collision_free"] is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # the start configurations are within 5 m of each other: said at once
        (["--margin", "5"], "start configurations of A and B are 0.4212 m apart"),
        (["--budget", "1e-6"], "time budget of 1e-06 s spent"),
    ],
)
def test_plan_that_cannot_be_found_exits_2(tmp_path: Path, capsys, args, message) -> None:  # type: ignore[no-untyped-def]
    code = main(["plan", "three_puma_clearance", "--out", str(tmp_path), "--json", *args])
    s, err = _one_line_error(capsys)
    assert code == 2 and s["collision_free"] is False
    assert message in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--margin", "-1"], "margin"),
        (["--robot", "Z"], "robot"),
        (["--budget", "0"], "budget"),
    ],
)
def test_plan_bad_input_exits_2(tmp_path: Path, capsys, args, message) -> None:  # type: ignore[no-untyped-def]
    code = main(["plan", "three_puma_clearance", "--out", str(tmp_path), *args])
    assert code == 2
    assert message in capsys.readouterr().err


def test_plan_refuses_other_kinds(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(["plan", "soccer_obstacles", "--out", str(tmp_path)])
    assert code == 2 and "clearance" in capsys.readouterr().err


def test_plan_panda_beside_puma(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Any arm: the Panda's moving links get fitted capsules ({fit: capsule}); it swings
    through the PUMA's forearm. A delay of the Panda makes the pair clear."""
    doc = {
        "kind": "clearance",
        "dt": 0.02,
        "robots": [
            {
                "name": "panda",
                "model": str(PANDA),
                "base": {"xyz": [0, 0, 0]},
                "volumes": {"fit": "capsule"},
                "start": {"panda_joint1": -90, "panda_joint2": 30, "panda_joint4": -100},
                "segments": [{"type": "quintic", "to": {"panda_joint1": 60}, "duration": 1.5}],
            },
            {
                "name": "puma",
                "model": "puma560",
                "base": {"xyz": [0.9, 0.0, 0], "rpy": [0, 0, 180]},
                "volumes": [
                    {
                        "link": "link3",
                        "type": "ellipsoid",
                        "radii": [0.12, 0.125, 0.25],
                        "xyz": [0, 0, 0.2159],
                    }
                ],
                "start": {"joint1": 10, "joint2": -20, "joint3": -40},
                "segments": [{"type": "quintic", "to": {"joint1": -40}, "duration": 1.5}],
            },
        ],
    }
    path = tmp_path / "panda_puma.yaml"
    path.write_text(yaml.safe_dump(doc))
    code, s = _run(
        [
            "plan",
            str(path),
            "--method",
            "delay",
            "--robot",
            "panda",
            "--out",
            str(tmp_path / "out"),
            "--json",
        ],
        capsys,
    )
    assert code == 0
    assert s["before"]["collision_free"] is False
    assert s["collision_free"] is True and s["changes"][0]["robot"] == "panda"
    planned = load_scenario(tmp_path / "out" / "scenario.yaml")
    assert planned.trajectories["panda"].start == pytest.approx(s["changes"][0]["delay_s"])
