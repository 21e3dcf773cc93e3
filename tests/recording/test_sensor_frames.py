"""Sensor readings through the run store: blocks of readings, read back bit for bit
(SQLite and a real PostgreSQL), time windows, field choice, errors, Parquet/CSV."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from robotsim.errors import InputError, UnknownNameError
from robotsim.recording import Recorder, RunStore, export_run, open_run


def _readings(n: int, seed: int = 0) -> list[tuple[float, dict[str, np.ndarray]]]:
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        ranges = rng.uniform(0.1, 20, (2, 90)).astype(np.float32)
        ranges[0, :5] = np.inf
        ranges[1, 3] = np.nan
        image = rng.integers(0, 256, (12, 16, 3), dtype=np.uint8)
        out.append((k * 0.1, {"ranges": ranges, "image": image, "ok": ranges > 5}))
    return out


def _record(db: object, readings: list, meta: dict) -> int:
    with Recorder(db) as rec:
        rid = rec.start_run("sensors")
        for t, data in readings:
            rec.sensor("r0", "scan", t, data, meta)
            rec.sensor("r0", "imu", t, {"accel": np.array([0.0, 0.0, 9.81 + t])}, {"type": "imu"})
            rec.signal("r0", t, ("x",), [t])
    return rid


def _check_roundtrip(db: object) -> None:
    readings = _readings(25)
    meta = {"type": "lidar", "rate": 10.0, "azimuths": [0.1, 0.2]}
    rid = _record(db, readings, meta)
    run = open_run(db, rid)
    try:
        infos = {i.name: i for i in run.sensors()}
        assert infos["scan"].readings == 25 and infos["scan"].type == "lidar"
        from sqlalchemy import text

        with run.store.engine.connect() as conn:  # blocks of readings, not a row each
            blocks = conn.execute(text("SELECT count(*), sum(n) FROM sensor_blocks")).one()
        assert blocks[1] == 50 and blocks[0] < 50
        s = run.sensor("r0", "scan")
        np.testing.assert_array_equal(s.t, [t for t, _ in readings])
        for field in ("ranges", "image", "ok"):
            want = np.stack([d[field] for _, d in readings])
            np.testing.assert_array_equal(s[field], want)  # inf and NaN where they were
            assert s[field].dtype == want.dtype
        assert s.meta["azimuths"] == [0.1, 0.2] and s.meta["rate"] == 10.0
        part = run.sensor("r0", "scan", t0=0.5, t1=1.0, fields=["ranges"])
        np.testing.assert_allclose(part.t, [0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
        assert part.fields == ("ranges",)
        imu = run.sensor("r0", "imu")
        np.testing.assert_allclose(imu["accel"][:, 2], 9.81 + imu.t)
        with pytest.raises(UnknownNameError, match="valid: r0/scan, r0/imu"):
            run.sensor("r0", "lidar")
        with pytest.raises(UnknownNameError, match="unknown field of sensor r0/scan 'rgb'"):
            run.sensor("r0", "scan", fields=["rgb"])
    finally:
        run.store.close()


def test_readings_round_trip_on_sqlite(tmp_path: Path) -> None:
    _check_roundtrip(tmp_path / "runs.sqlite")


@pytest.mark.slow
def test_readings_round_trip_on_postgresql(pg_url: str) -> None:
    _check_roundtrip(pg_url)


def test_a_reading_must_keep_its_fields(tmp_path: Path) -> None:
    with Recorder(tmp_path) as rec:
        rec.start_run("x")
        rec.sensor("r", "imu", 0.0, {"accel": np.zeros(3)})
        with pytest.raises(InputError, match=r"sensor r/imu: fields \['gyro'\]"):
            rec.sensor("r", "imu", 0.1, {"gyro": np.zeros(3)})
        with pytest.raises(
            InputError, match=r"field 'accel' has shape \[4\], but it records \[3\]"
        ):
            rec.sensor("r", "imu", 0.2, {"accel": np.zeros(4)})
        rec.sensor("r", "imu", 0.3, {"accel": np.ones(3)})  # the run goes on
    with RunStore(tmp_path) as store:
        np.testing.assert_array_equal(store.sensor(1, "r", "imu").t, [0.0, 0.3])


def test_export_writes_sensors_to_parquet_and_small_ones_to_csv(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    readings = _readings(6)
    rid = _record(tmp_path / "runs.sqlite", readings, {"type": "lidar"})
    with RunStore(tmp_path / "runs.sqlite") as store:
        export_run(store, rid, "parquet", tmp_path / "pq")
        export_run(store, rid, "csv", tmp_path / "csv")
    table = pq.read_table(tmp_path / "pq" / "sensor_r0_scan.parquet")
    assert table.column_names == ["t", "ranges", "image", "ok"]
    field = table.schema.field("ranges")
    assert json.loads(field.metadata[b"robotsim.shape"]) == [2, 90]
    got = np.array(table.column("ranges").to_pylist(), dtype=np.float32).reshape(-1, 2, 90)
    np.testing.assert_array_equal(got, np.stack([d["ranges"] for _, d in readings]))
    listing = json.loads((tmp_path / "csv" / "sensors.json").read_text())
    files = {e["name"]: e["file"] for e in listing}
    assert files == {"scan": None, "imu": "sensor_r0_imu.csv"}
    head = (tmp_path / "csv" / "sensor_r0_imu.csv").read_text().splitlines()
    assert head[0] == "t,accel[0],accel[1],accel[2]" and len(head) == 7


def test_readings_given_in_chunks_make_the_same_blob() -> None:
    from robotsim.recording.frames import encode_block, encode_chunks

    readings = _readings(7)
    names = ("ranges", "image", "ok")
    dtypes = [np.dtype("<f4"), np.dtype("u1"), np.dtype("?")]
    ts = [t for t, _ in readings]
    want = encode_block(ts, [[d[k] for k in names] for _, d in readings], dtypes)
    cut = [slice(0, 3), slice(3, 7)]  # two chunks, and one
    for parts in (cut, [slice(0, 7)]):
        got, raw = encode_chunks(
            [np.asarray(ts)[s] for s in parts],
            [[np.stack([d[k] for _, d in readings])[s] for s in parts] for k in names],
            dtypes,
        )
        assert got == want and raw == 7 * (8 + 2 * 90 * 4 + 12 * 16 * 3 + 2 * 90)


def test_rows_cut_as_words_make_the_same_blob_as_field_by_field() -> None:
    """The recorder's path for one run of rows (the rows seen as words, every column
    gathered at once) gives the blob of the general path, whatever the word size the
    layout allows: 8 (float64 fields), 4 (float32 after a padded gap) or 1 (bytes)."""
    from robotsim.recording.frames import encode_chunks, encode_rows, row_spans

    rng = np.random.default_rng(2)
    layouts = [
        [("t", "<f8"), ("accel", "<f8", (3,)), ("q", "<f8", (4,))],
        [("t", "<f8"), ("ranges", "<f4", (3, 5)), ("pose", "<f8", (7,))],
        [("t", "<f8"), ("ok", "?", (3,)), ("img", "u1", (2, 2, 3))],
    ]
    words = []
    for layout in layouts:
        dt = np.dtype(layout, align=True)
        rows = np.zeros(9, dt)
        for k in dt.names:
            rows[k] = rng.uniform(0, 200, rows[k].shape).astype(dt.fields[k][0].base)
        names = dt.names[1:]
        dtypes = [dt.fields[k][0].base for k in names]
        spans = row_spans(dt, names, dtypes)
        assert spans is not None
        words.append(spans[0].itemsize)
        for a, b in ((0, 9), (2, 3), (4, 8)):
            want = encode_chunks([rows["t"][a:b]], [[rows[k][a:b]] for k in names], dtypes)
            assert encode_rows(rows, a, b, spans, True) == want
            assert encode_rows(rows, a, b, spans, False)[0][:1] == b"R"
    assert words == [8, 4, 1]
    # a field stored in another dtype than the rows': the general path
    dt = np.dtype(layouts[0])
    assert row_spans(dt, dt.names[1:], [np.dtype("<f4"), np.dtype("<f8")]) is None


def test_blocks_are_zstandard_and_zlib_blocks_of_earlier_runs_still_read() -> None:
    import zlib

    from robotsim.recording.frames import decode_block, encode_block

    readings = _readings(5)
    names = ("ranges", "image", "ok")
    dtypes = [np.dtype("<f4"), np.dtype("u1"), np.dtype("?")]
    layout = [{"dtype": dt.str, "shape": list(readings[0][1][k].shape)} for k, dt in
              zip(names, dtypes)]  # fmt: skip
    blob = encode_block([t for t, _ in readings], [[d[k] for k in names] for _, d in readings],
                        dtypes)  # fmt: skip
    assert blob[:1] == b"S"  # Zstandard
    raw = b"".join([np.asarray([t for t, _ in readings], "<f8").tobytes()]
                   + [np.stack([d[k] for _, d in readings]).astype(dt).tobytes()
                      for k, dt in zip(names, dtypes)])  # fmt: skip
    for stored in (blob, b"Z" + zlib.compress(raw, 1), b"R" + raw):
        t, fields = decode_block(stored, 5, layout)
        np.testing.assert_array_equal(t, [t for t, _ in readings])
        for k, got in zip(names, fields):
            np.testing.assert_array_equal(got, np.stack([d[k] for _, d in readings]))
    with pytest.raises(InputError, match=r"codec b'X'; known: b'R' \(raw\), b'S' \(Zstandard\)"):
        decode_block(b"X" + raw, 5, layout)


def test_stacked_rows_are_recorded_and_checked(tmp_path: Path) -> None:
    dt = np.dtype([("t", "<f8"), ("accel", "<f8", (3,))])
    rows = np.zeros(6, dt)
    rows["t"] = np.arange(6) * 0.01
    rows["accel"] = np.arange(18.0).reshape(6, 3)
    with Recorder(tmp_path) as rec:
        rec.start_run("x")
        rec.sensor_rows("r", "imu", rows, {"type": "imu"}, 0, 2)
        rec.sensor_rows("r", "imu", rows, None, 2, 5)  # joined with the range before
        rec.sensor("r", "imu", 0.05, {"accel": rows["accel"][5]})  # a single reading too
        bad = np.zeros(2, [("t", "<f8"), ("gyro", "<f8", (3,))])
        with pytest.raises(InputError, match=r"sensor r/imu: rows with fields \['t', 'gyro'\]"):
            rec.sensor_rows("r", "imu", bad)
        short = np.zeros(2, [("t", "<f8"), ("accel", "<f8", (2,))])
        with pytest.raises(InputError, match=r"field 'accel' is float64 \[2\]"):
            rec.sensor_rows("r", "imu", short)
        with pytest.raises(InputError, match=r"rows need the fields t, then"):
            rec.sensor_rows("r", "other", np.zeros(2, [("x", "<f8")]))
    with RunStore(tmp_path) as store:
        s = store.sensor(1, "r", "imu")
        np.testing.assert_array_equal(s.t, rows["t"])
        np.testing.assert_array_equal(s["accel"], rows["accel"])


def test_producers_hand_over_at_each_commit_asked_for_and_at_the_end(tmp_path: Path) -> None:
    """A producer registered with ``hand_over_at_checkpoints`` (the sensor rig) is
    asked for its held rows whenever the recorder asks its writer for a commit (every
    ``sim_flush_interval`` of signal time) and when the run finishes; released, never."""
    dt = np.dtype([("t", "<f8"), ("v", "<f8", (2,))])
    rows = np.zeros(100, dt)
    rows["t"] = np.arange(100) * 0.01
    rows["v"] = np.arange(200.0).reshape(100, 2)

    class Producer:  # holds rows [given, upto) until asked
        def __init__(self) -> None:
            self.given = self.upto = 0
            self.asked_at: list[int] = []

        def hand_over(self) -> None:
            self.asked_at.append(self.upto)
            rec.sensor_rows("r", "imu", rows, {"type": "imu"}, self.given, self.upto)
            self.given = self.upto

    p = Producer()
    with Recorder(tmp_path, sim_flush_interval=0.25) as rec:
        rec.start_run("x")
        rec.hand_over_at_checkpoints(p.hand_over)
        rec.hand_over_at_checkpoints(p.hand_over)  # once only
        for k in range(100):
            p.upto = k + 1  # the reading of t = k / 100 is held
            rec.signal("r", k * 0.01, ("x",), [float(k)])
        asks = list(p.asked_at)
        rec.finish()
        assert p.asked_at[-1] == 100 == p.given  # the end takes the rest
        rec.release_hand_over(p.hand_over)
        assert rec._holders == []
    # one ask per 0.25 s of signal time or a tick more (the first signal commits at once)
    assert len(asks) >= 3 and all(25 <= d <= 26 for d in np.diff(asks))
    with RunStore(tmp_path) as store:
        got = store.sensor(1, "r", "imu")
    np.testing.assert_array_equal(got.t, rows["t"])
    np.testing.assert_array_equal(got["v"], rows["v"])
