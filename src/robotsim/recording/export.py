"""Exporting a run to files: CSV or Parquet, one signals table per robot.

``export_run(store, run, "csv", out)`` writes into ``out``:

- ``run.json``: the run's row (scenario, parameters, seed, versions, times, status);
- ``signals_<robot>.csv|parquet``: column ``t`` (s) then one column per signal, one
  row per recorded time (empty/NaN where a signal was not recorded at that time);
- ``events.csv|parquet``: ``t, type, robot, data`` (``data`` as JSON text);
- ``sensor_<robot>_<name>.parquet``: one row per reading of each recorded sensor:
  ``t`` then one column per field, each a fixed-size list of the field's values in C
  order (its dtype and shape in the column's metadata: ``robotsim.dtype``,
  ``robotsim.shape``; the sensor's description in the file's ``robotsim.meta``). With
  CSV, sensors of at most :data:`CSV_SENSOR_VALUES` values a reading (IMU, odometry,
  joints, force) get ``sensor_<robot>_<name>.csv`` with one column per value
  (``accel[0]``...), larger ones (scans, images) only Parquet;
- ``sensors.json``: every recorded sensor (robot, name, type, readings, fields, rate)
  and the file it went to (``null``: ask for Parquet).

Each file is written atomically (an error or Ctrl-C leaves no half file, and an older
file of the same name whole); a run still being written is refused.
"""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from robotsim.atomic import atomic_path, write_text_atomic
from robotsim.errors import InputError
from robotsim.extras import require
from robotsim.jsonable import dumps as json_dumps

if TYPE_CHECKING:
    from robotsim.recording.store import RunInfo, RunStore

__all__ = ["FORMATS", "export_run"]

FORMATS = ("csv", "parquet")
#: The largest sensor reading (values) written to CSV.
CSV_SENSOR_VALUES = 64


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name) or "robot"


def export_run(
    store: RunStore, run: int | str, fmt: str, out: str | os.PathLike[str]
) -> list[Path]:
    """Write one run's files into folder ``out`` (created); returns the paths written."""
    import numpy as np

    if fmt not in FORMATS:
        raise InputError(f"--format: unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    if fmt == "parquet":
        require("pyarrow", "--format parquet")
    info = store.run(run)
    _refuse_running(info)
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--out {out}: not a folder (csv and parquet write run.json and "
                         "one file per robot into a folder)")  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / "run.json"]
    write_text_atomic(written[0], json_dumps(info.to_json(), indent=2) + "\n")
    for robot in store.robots(info.id):
        table = store.signals(info.id, robot)
        path = folder / f"signals_{_safe(robot)}.{fmt}"
        cols = ["t", *table.names]
        data = (
            np.column_stack([table.t, table.values]) if table.t.size else np.zeros((0, len(cols)))
        )
        if fmt == "csv":
            _write_csv(path, cols, data)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            with atomic_path(path) as tmp:
                pq.write_table(pa.table({c: data[:, j] for j, c in enumerate(cols)}), tmp)
        written.append(path)
    events = store.events(info.id)
    path = folder / f"events.{fmt}"
    rows = [(e["t"], e["type"], e["robot"], json_dumps(e["data"])) for e in events]
    if fmt == "csv":
        with atomic_path(path) as tmp, tmp.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["t", "type", "robot", "data"])
            w.writerows([(repr(t), ty, rb or "", d) for t, ty, rb, d in rows])
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        with atomic_path(path) as tmp:
            pq.write_table(
                pa.table(
                    {
                        "t": pa.array([r[0] for r in rows], pa.float64()),
                        "type": pa.array([r[1] for r in rows], pa.string()),
                        "robot": pa.array([r[2] for r in rows], pa.string()),
                        "data": pa.array([r[3] for r in rows], pa.string()),
                    }
                ),
                tmp,
            )
    written.append(path)
    written += _export_sensors(store, info.id, fmt, folder)
    return written


def _export_sensors(store: RunStore, run_id: int, fmt: str, folder: Path) -> list[Path]:
    import numpy as np

    infos = store.sensors(run_id)
    if not infos:
        return []
    listing = []
    written = []
    for info in infos:
        entry = info.to_json()
        path = folder / f"sensor_{_safe(info.robot)}_{_safe(info.name)}.{fmt}"
        size = sum(int(np.prod(f["shape"], dtype=np.int64)) for f in info.meta["fields"])
        if fmt == "csv" and size > CSV_SENSOR_VALUES:
            entry["file"] = None
            listing.append(entry)
            continue
        series = store.sensor(run_id, info.robot, info.name)
        if fmt == "csv":
            _sensor_csv(series, path)
        else:
            _sensor_parquet(series, path)
        entry["file"] = path.name
        listing.append(entry)
        written.append(path)
    index = folder / "sensors.json"
    write_text_atomic(index, json_dumps(listing, indent=2) + "\n")
    return [index, *written]


def _sensor_csv(series: object, path: Path) -> None:
    import numpy as np

    t = series.t  # type: ignore[attr-defined]
    cols = ["t"]
    blocks = [t.reshape(-1, 1).astype(np.float64)]
    for name, arr in series.data.items():  # type: ignore[attr-defined]
        flat = arr.reshape(len(t), -1)
        idx = list(np.ndindex(*arr.shape[1:])) or [()]
        cols += [name + "".join(f"[{i}]" for i in ix) for ix in idx]
        blocks.append(flat.astype(np.float64))
    data = np.hstack(blocks) if t.size else np.zeros((0, len(cols)))
    _write_csv(path, cols, data)


def _write_csv(path: Path, cols: list[str], data: object) -> None:
    """``cols`` then one row per row of ``data`` (empty cells for NaN), atomically."""
    with atomic_path(path) as tmp, tmp.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for row in data.tolist():  # type: ignore[attr-defined]
            w.writerow(["" if v != v else repr(v) for v in row])


def _refuse_running(info: RunInfo) -> None:
    """A run still being written exports once it has finished (a clear error now)."""
    import time

    from robotsim.recording.store import RunStatus

    if info.status is RunStatus.RUNNING:
        age = time.time() - info.heartbeat
        raise InputError(
            f"run {info.id} is still being written (status running, last commit "
            f"{age:.1f} s ago); export it once it has finished"
        )


def _sensor_parquet(series: object, path: Path) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = series.t  # type: ignore[attr-defined]
    fields = [pa.field("t", pa.float64())]
    arrays = [pa.array(t, pa.float64())]
    for name, arr in series.data.items():  # type: ignore[attr-defined]
        n = int(np.prod(arr.shape[1:], dtype=np.int64))
        values = np.ascontiguousarray(arr).reshape(-1)
        if values.dtype == np.bool_:
            values = values.astype(np.uint8)
        flat = pa.array(values)
        col = pa.FixedSizeListArray.from_arrays(flat, n)
        meta = {
            "robotsim.dtype": arr.dtype.str,
            "robotsim.shape": json.dumps(list(arr.shape[1:]), allow_nan=False),
        }
        fields.append(pa.field(name, col.type, metadata=meta))
        arrays.append(col)
    meta = json_dumps(dict(series.meta), default=str)  # type: ignore[attr-defined]
    schema = pa.schema(fields, metadata={"robotsim.meta": meta})
    with atomic_path(path) as tmp:
        pq.write_table(pa.Table.from_arrays(arrays, schema=schema), tmp)
