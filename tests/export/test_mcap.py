"""``robotsim export RUN --format mcap``: read back with the ``mcap`` reader, every
link pose is the run store's to 1e-9 m, and the channels carry Foxglove's schemas."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from mcap.reader import make_reader
from mcap_protobuf.decoder import DecoderFactory

from robotsim.cli import main
from robotsim.export import load_replay
from robotsim.recording import Recorder, RunStore
from robotsim.spatial import make_T, quat_to_R


def _read(path: Path) -> tuple[dict, list]:
    with path.open("rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        summary = reader.get_summary()
        chans = {ch.topic: summary.schemas[ch.schema_id].name for ch in summary.channels.values()}
        msgs = []
        factory = DecoderFactory()
        for schema, channel, message in reader.iter_messages():
            if channel.message_encoding == "json":
                decoded = json.loads(message.data)
            else:
                decoded = factory.decoder_for(channel.message_encoding, schema)(message.data)
            msgs.append((channel.topic, message.log_time, decoded))
        meta = {m.name: m.metadata for m in reader.iter_metadata()}
    return chans, msgs, meta


def test_mcap_lists_foxglove_schemas_and_replays_the_store_exactly(soccer_db, tmp_path) -> None:
    out = tmp_path / "soccer.mcap"
    assert (
        main(["export", "last", "--db", str(soccer_db), "--format", "mcap", "--out", str(out)]) == 0
    )
    chans, msgs, meta = _read(out)
    assert chans["/tf"] == "foxglove.FrameTransforms"
    assert chans["/scene"] == "foxglove.SceneUpdate"
    assert chans["/robots/omni/joint_states"] == "foxglove.JointStates"
    assert chans["/robots/omni/base_pose"] == "foxglove.PoseInFrame"
    assert chans["/signals/omni"] == "robotsim.Signals"
    assert json.loads(meta["robotsim.run"]["parameters"])["duration"] == 2.0

    with RunStore(soccer_db) as store:
        replay = load_replay(store, "last")
        table = store.signals("last", "omni")
    omni = replay.track("omni")
    # compose the transform tree the way Foxglove does, sample by sample
    world: dict[str, list[np.ndarray]] = {}
    for topic, _, m in msgs:
        if topic != "/tf":
            continue
        local = {}
        for tf in m.transforms:
            r, p = tf.rotation, tf.translation
            T = make_T(quat_to_R([r.w, r.x, r.y, r.z]), [p.x, p.y, p.z])
            parent = np.eye(4) if tf.parent_frame_id == "world" else local[tf.parent_frame_id]
            local[tf.child_frame_id] = parent @ T
        for name, T in local.items():
            world.setdefault(name, []).append(T)
    assert len(world["omni/base"]) == len(omni.t) == 100  # 2 s at 50 Hz
    for i, frame in enumerate(omni.frames):
        got = np.stack(world[frame.name])
        assert np.abs(got[:, :3, 3] - omni.T_world[:, i, :3, 3]).max() < 1e-9
        assert np.abs(got[:, :3, :3] - omni.T_world[:, i, :3, :3]).max() < 1e-9
    # the root is the recorded base pose, the joints the recorded q
    rows = ~np.isnan(table.column("base.x"))
    assert np.abs(omni.T_world[:, 0, 0, 3] - table.column("base.x")[rows]).max() == 0.0
    js = [m for topic, _, m in msgs if topic == "/robots/omni/joint_states"]
    q = np.array([[j.position for j in m.joints] for m in js])
    assert np.array_equal(
        q, np.column_stack([table.column(f"q.{j}")[rows] for j in ("wheel1", "wheel2", "wheel3")])
    )
    assert np.ptp(q) > 1.0  # the wheels turned
    # the robot drove: a replay of a robot standing still would not pass this
    assert np.linalg.norm(omni.T_world[-1, 0, :2, 3] - omni.T_world[0, 0, :2, 3]) > 0.3
    # static obstacles are drawn where the scene put them
    obstacle = world["obstacle1"][0]
    assert np.allclose(obstacle[:3, 3], [-6.8, -3.4, 0.25])
    scene = next(m for topic, _, m in msgs if topic == "/scene")
    ids = {e.id for e in scene.entities}
    assert {"omni/base", "omni/wheel1_link", "obstacle1", "ground"} <= ids
    base = next(e for e in scene.entities if e.id == "omni/base")
    assert base.frame_locked and base.frame_id == "omni/base" and base.cylinders
    sig = [m for topic, _, m in msgs if topic == "/signals/omni"]
    assert sig[10]["base"]["x"] == table.column("base.x")[rows][10]
    assert "cmd_vx" in sig[10] and sig[10]["t"] == pytest.approx(table.t[rows][10])
    times = [t for _, t, _ in msgs]
    assert times == sorted(times)


def test_events_become_foxglove_logs(tmp_path) -> None:
    db = tmp_path / "db"
    with Recorder(db) as rec:
        rec.start_run("events")
        rec.signal("bot", 0.0, ("x",), [1.0])
        rec.event(0.5, "collision", "bot", {"with": "wall"})
        rec.event(0.7, "goal_reached", "bot")
    out = tmp_path / "e.mcap"
    assert main(["export", "last", "--db", str(db), "--format", "mcap", "--out", str(out)]) == 0
    chans, msgs, _ = _read(out)
    assert chans["/events"] == "foxglove.Log"
    logs = [m for topic, _, m in msgs if topic == "/events"]
    assert [lg.message.split()[0] for lg in logs] == ["collision", "goal_reached"]
    assert logs[0].level == 3 and logs[1].level == 2  # WARNING, INFO
    assert "/tf" not in chans  # no scene recorded: signals and events only


def test_a_run_still_being_written_is_refused(tmp_path, capsys) -> None:
    db = tmp_path / "db"
    rec = Recorder(db)
    rec.start_run("open")
    rec.signal("bot", 0.0, ("x",), [1.0])
    rec.flush()
    try:
        rc = main(["export", "last", "--db", str(db), "--format", "mcap", "--out", str(tmp_path)])
        assert rc == 2
        assert "still being written" in capsys.readouterr().err
        assert not list(tmp_path.glob("*.mcap")) and not list(tmp_path.glob(".*.tmp"))
    finally:
        rec.close()


def test_a_missing_run_is_a_one_line_error(soccer_db, tmp_path, capsys) -> None:
    rc = main(["export", "999", "--db", str(soccer_db), "--format", "mcap", "--out", str(tmp_path)])
    assert rc == 2
    err = capsys.readouterr().err
    assert "unknown run '999'" in err and "Traceback" not in err


def test_an_interrupted_export_leaves_no_half_file(soccer_db, tmp_path, monkeypatch) -> None:
    """Ctrl-C in the middle of writing: the old file stays whole, no temporary file."""
    import robotsim.export.mcap_file as mf

    out = tmp_path / "keep.mcap"
    out.write_bytes(b"old")
    calls = {"n": 0}
    real = mf.frame_transforms

    def interrupted(*a, **k):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 50:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(mf, "frame_transforms", interrupted)
    from robotsim.export import export_file

    with RunStore(soccer_db) as store, pytest.raises(KeyboardInterrupt):
        export_file(store, "last", "mcap", out)
    assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.mcap"]
