"""Clearance studies replay in 3D: ``robotsim clearance`` and ``robotsim plan`` record
the study (scene with the bounding volumes, every robot's joints at the study's
samples, every pair's distance, collisions as events), and the exports show exactly
the study's poses beside its distance curves."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from mcap.reader import make_reader

from robotsim.clearance.record import ClearanceRecording
from robotsim.clearance.scenario import load_scenario
from robotsim.cli import main
from robotsim.export import load_replay
from robotsim.export.html_file import page_data
from robotsim.model.geometry import Ellipsoid
from robotsim.recording import RunStore
from robotsim.run_io import CsvRecorder

DT = "0.05"


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("clearance")
    rc = main(["clearance", "three_puma_clearance", "--out", str(out), "--dt", DT])
    assert rc == 0
    return out


def test_the_replay_is_the_study_exactly(study) -> None:
    sc = load_scenario("three_puma_clearance")
    with RunStore(study) as store:
        info = store.run("last")
        replay = load_replay(store, "last")
    assert info.parameters["kind"] == "clearance" and replay.scene["engine"] == "kinematic"
    worst = 0.0
    for r in sc.scene.robots:
        tr = replay.track(r.name)
        assert len(tr.t) == 81 and tr.t[-1] == pytest.approx(4.0)
        q = sc.trajectories[r.name].q(tr.t)
        assert np.array_equal(tr.q, q)
        links = r.T_world_base @ r.model.fk_all(q)
        worst = max(worst, float(np.abs(tr.T_world - links).max()))
        # the bounding volume is drawn with its link, where the study put it
        link3 = next(f for f in tr.frames if f.name == f"{r.name}/link3")
        vol = [v for v in link3.visuals if isinstance(v.geometry, Ellipsoid)]
        assert len(vol) == 1 and vol[0].geometry.radii == (0.12, 0.125, 0.25)
        assert np.allclose(vol[0].T_frame_shape, r.volumes[0].T_link_volume)
        assert vol[0].rgba[3] < 1
    assert worst < 1e-12, worst
    assert replay.ground is not None  # the PUMAs stand on the floor


def test_distances_and_collisions_are_the_studys(study) -> None:
    with (study / "distances.csv").open() as f:
        rows = list(csv.reader(f))
    header, values = rows[0], np.array(rows[1:], dtype=float)
    intervals = json.loads((study / "intervals.json").read_text())["pairs"]
    with RunStore(study) as store:
        for j, pair in enumerate(header[1:], start=1):
            tab = store.signals("last", pair)
            assert np.allclose(tab.t, values[:, 0]) and tab.names == ("distance",)
            assert np.allclose(tab.column("distance"), values[:, j], rtol=1e-8, atol=1e-9)
        events = store.events("last")
    starts = [(e["robot"], e["t"], e["data"]["end"]) for e in events if e["type"] == "collision"]
    want = [(p, a, b) for p, v in intervals.items() for a, b in v["collision_intervals"]]
    assert sorted(starts) == sorted(want) and want  # A-B collide in the paper's case
    ends = [(e["robot"], e["t"]) for e in events if e["type"] == "collision_end"]
    assert sorted(ends) == sorted((p, b) for p, _, b in want)
    closest = {e["robot"]: e["data"]["distance"] for e in events if e["type"] == "closest"}
    assert closest == pytest.approx({p: v["min_distance"] for p, v in intervals.items()})


def test_the_html_replay_plots_the_distances_with_the_collisions(study) -> None:
    with RunStore(study) as store:
        data = page_data(load_replay(store, "last"))
    shown = [(p["group"], p["name"]) for p in data["plots"] if p["on"]]
    assert shown == [("A-B", "distance"), ("A-C", "distance"), ("B-C", "distance")]
    assert [iv["robot"] for iv in data["intervals"]] == ["A-B"]
    iv = data["intervals"][0]
    assert 0 < iv["start"] < iv["end"] < 4.0
    assert any(s["type"] == "ellipsoid" for s in data["shapes"])


def test_mcap_carries_the_curves_and_the_collisions(study, tmp_path) -> None:
    out = tmp_path / "c.mcap"
    assert main(["export", "last", "--db", str(study), "--format", "mcap", "--out", str(out)]) == 0
    with out.open("rb") as f:
        reader = make_reader(f)
        topics = {c.topic for c in reader.get_summary().channels.values()}
        logs = [m for _, ch, m in reader.iter_messages(topics=["/signals/A-B"])]
    assert {"/tf", "/scene", "/robots/A/joint_states", "/signals/A-B", "/events"} <= topics
    assert len(logs) == 81 and "distance" in json.loads(logs[0].data)


def test_a_recorder_without_scenes_gets_nothing(tmp_path) -> None:
    sc = load_scenario("three_puma_clearance")
    rec = CsvRecorder(tmp_path)
    rec.start_run("csv")
    recording = ClearanceRecording(rec, sc.scene, sc.trajectories)
    assert not recording.active
    recording.chunk(np.zeros(1), {"A-B": np.zeros(1)})
    rec.finish()
    assert (tmp_path / "recording.csv").read_text() == ""


@pytest.mark.slow
def test_plan_records_the_planned_study(tmp_path, capsys) -> None:
    out = tmp_path / "plan"
    args = ["plan", "three_puma_clearance", "--out", str(out)]
    assert main([*args, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["collision_free"] is True
    planned = load_scenario(out / "scenario.yaml")
    with RunStore(out) as store:
        info = store.run(summary["run_id"])
        replay = load_replay(store, info.id)
        events = store.events(info.id)
    assert info.scenario == "plan three_puma_clearance"
    assert not [e for e in events if e["type"] == "collision"]  # planned: none left
    for r in planned.scene.robots:
        tr = replay.track(r.name)
        assert np.array_equal(tr.q, planned.trajectories[r.name].q(tr.t))


def test_a_sweeps_clearance_run_replays_too(tmp_path) -> None:
    from robotsim.run_io import RunOptions
    from robotsim.scenario.any_kind import run_clearance
    from robotsim.scenario_yaml import read_scenario_yaml

    data = {**read_scenario_yaml("three_puma_clearance"), "dt": 0.1}
    summary = run_clearance(data, "three_puma_clearance", RunOptions(db=str(tmp_path)))
    assert summary["collides"] is True
    with RunStore(tmp_path) as store:
        replay = load_replay(store, "last")
        kinds = {e["type"] for e in store.events("last")}
    assert {t.name for t in replay.robots} == {"A", "B", "C"} and len(replay.track("A").t) == 41
    assert {"collision", "collision_end", "closest"} <= kinds
