"""Exports from a run store on a real PostgreSQL server (started by the test): the same
run recorded into PostgreSQL and into SQLite exports the same MCAP messages and the
same HTML poses; a missing run and a run still being written are refused there too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcap.reader import make_reader

from robotsim.cli import main
from robotsim.recording import Recorder, RunStore


def _messages(path: Path) -> list[tuple[str, int, Any]]:
    """``(topic, log time from the first message (ns), content)``: the poses of ``/tf``,
    the joints of joint states, the JSON of signals (the stamps, which carry the run's
    wall start time, left out)."""
    from foxglove_schemas_protobuf.FrameTransforms_pb2 import FrameTransforms
    from foxglove_schemas_protobuf.JointStates_pb2 import JointStates

    out = []
    with path.open("rb") as fh:
        for _, channel, message in make_reader(fh).iter_messages():
            if channel.topic == "/tf":
                body: Any = [
                    (f.parent_frame_id, f.child_frame_id, str(f.translation), str(f.rotation))
                    for f in FrameTransforms.FromString(message.data).transforms
                ]
            elif channel.topic.endswith("/joint_states"):
                body = [(j.name, j.position) for j in JointStates.FromString(message.data).joints]
            elif channel.topic.startswith("/signals/"):
                body = json.loads(message.data)
            else:
                continue
            out.append((channel.topic, message.log_time, body))
    t0 = min(m[1] for m in out)
    return [(topic, t - t0, body) for topic, t, body in out]


def test_a_postgresql_run_exports_as_its_sqlite_twin(pg_url: str, tmp_path: Path, capsys) -> None:
    sqlite = tmp_path / "sqlite"
    run = ["run", "soccer_obstacles", "--duration", "0.5", "--seed", "3"]
    assert main([*run, "--db", pg_url]) == 0
    assert main([*run, "--db", str(sqlite)]) == 0
    with RunStore(pg_url) as store:
        rid = store.run("last").id
        assert store.run(rid).status.value == "completed"
    files = {}
    for name, db, which in (("pg", pg_url, str(rid)), ("sqlite", str(sqlite), "last")):
        for fmt in ("mcap", "html"):
            out = tmp_path / f"{name}.{fmt}"
            assert main(["export", which, "--db", db, "--format", fmt, "--out", str(out)]) == 0
            files[name, fmt] = out
    pg, lite = _messages(files["pg", "mcap"]), _messages(files["sqlite", "mcap"])
    topics = {t for t, _, _ in pg}
    assert {"/tf", "/robots/omni/joint_states", "/signals/omni"} <= topics
    assert len(pg) == len(lite) > 50
    # every pose, joint state and signal message the same, at the same times
    assert pg == lite
    # the HTML pages carry the same recorded poses (the run's id and times apart)
    pg_html = files["pg", "html"].read_text()
    assert "<script" in pg_html and len(pg_html) == pytest.approx(
        len(files["sqlite", "html"].read_text()), rel=0.01
    )

    # a missing run, a run still being written: one-line errors, no file
    capsys.readouterr()
    assert main(["export", "999999", "--db", pg_url, "--format", "mcap", "--out", str(tmp_path)])
    assert "unknown run" in capsys.readouterr().err
    rec = Recorder(pg_url)
    rec.start_run("open")
    rec.signal("bot", 0.0, ("x",), [1.0])
    rec.flush()
    try:
        out = tmp_path / "open.mcap"
        rc = main(["export", "last", "--db", pg_url, "--format", "mcap", "--out", str(out)])
        assert rc == 2 and "still being written" in capsys.readouterr().err
        assert not out.exists() and not list(tmp_path.glob(".*.tmp"))
    finally:
        rec.close()
