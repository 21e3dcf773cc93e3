"""``robotsim export RUN --format rerun``: read back with Rerun's own reader, every
link's pose over time is the run store's to float32 rounding (< 1e-6 m on the field)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from rerun.chunk import RrdReader

from robotsim.cli import main
from robotsim.export import load_replay
from robotsim.export.rerun_file import entity_path
from robotsim.recording import Recorder, RunStore
from robotsim.spatial import quat_to_R


def _columns(path) -> dict[str, dict[str, list]]:
    """entity -> component -> values, static and over time (rows in time order)."""
    out: dict[str, dict[str, list]] = {}
    for chunk in RrdReader(path).stream().to_chunks():
        batch = chunk.to_record_batch()
        ent = out.setdefault(str(chunk.entity_path), {})
        for name in batch.schema.names:
            col = batch.column(name)
            if pa.types.is_temporal(col.type):  # times as integer nanoseconds
                col = col.cast(pa.int64())
            ent.setdefault(name, []).extend(col.to_pylist())
    return out


def test_rerun_file_replays_the_store_to_float32(soccer_db, tmp_path) -> None:
    out = tmp_path / "soccer.rrd"
    assert (
        main(["export", "last", "--db", str(soccer_db), "--format", "rerun", "--out", str(out)])
        == 0
    )
    cols = _columns(out)
    with RunStore(soccer_db) as store:
        replay = load_replay(store, "last")
        table = store.signals("last", "omni")
    omni = replay.track("omni")
    worst_p = worst_r = 0.0
    for i, frame in enumerate(omni.frames):
        ent = cols["/" + entity_path(frame.name)]
        t = np.array(ent["sim_time"]) / 1e9
        assert np.allclose(t, omni.t, atol=1e-9)
        p = np.array([v[0] for v in ent["Transform3D:translation"]])
        q = np.array([v[0] for v in ent["Transform3D:quaternion"]])  # xyzw
        R = quat_to_R(np.column_stack([q[:, 3], q[:, :3]]))
        worst_p = max(worst_p, float(np.abs(p - omni.T_world[:, i, :3, 3]).max()))
        worst_r = max(worst_r, float(np.abs(R - omni.T_world[:, i, :3, :3]).max()))
    assert worst_p < 1e-6 and worst_r < 1e-6, (worst_p, worst_r)
    # the robot moved, and a frame's shapes are there
    assert np.ptp(omni.T_world[:, 0, 0, 3]) > 0.3
    shapes = [e for e in cols if e.startswith("/world/omni/wheel1_link/shapes/")]
    assert {
        "/world/omni/wheel1_link/shapes/cylinders",
        "/world/omni/wheel1_link/shapes/capsules",
    } <= set(shapes)
    assert "/world/obstacle3/shapes/cylinders" in cols and "/world/ground" in cols
    # signals as scalars, the same numbers
    x = cols["/signals/omni/x"]
    assert np.allclose(
        np.array(x["Scalars:scalars"]).ravel(), table.column("x")[~np.isnan(table.column("x"))]
    )


def test_events_are_text_logs(tmp_path) -> None:
    db = tmp_path / "db"
    with Recorder(db) as rec:
        rec.start_run("events")
        rec.signal("bot", 0.0, ("x",), [1.0])
        rec.event(0.5, "collision", "bot", {"with": "wall"})
    out = tmp_path / "e.rrd"
    assert main(["export", "last", "--db", str(db), "--format", "rerun", "--out", str(out)]) == 0
    cols = _columns(out)
    texts = [v[0] for v in cols["/events"]["TextLog:text"]]
    assert texts == ["bot: collision {'with': 'wall'}"]
    assert [v[0] for v in cols["/events"]["TextLog:level"]] == ["WARN"]
    assert not any(e.startswith("/world/") for e in cols)  # no scene recorded
