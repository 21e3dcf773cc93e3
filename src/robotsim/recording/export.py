"""Exporting a run to files: CSV or Parquet, one signals table per robot.

``export_run(store, run, "csv", out)`` writes into ``out``:

- ``run.json``: the run's row (scenario, parameters, seed, versions, times, status);
- ``signals_<robot>.csv|parquet``: column ``t`` (s) then one column per signal, one
  row per recorded time (empty/NaN where a signal was not recorded at that time);
- ``events.csv|parquet``: ``t, type, robot, data`` (``data`` as JSON text).
"""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from robotsim.errors import InputError
from robotsim.extras import require

if TYPE_CHECKING:
    from robotsim.recording.store import RunStore

__all__ = ["FORMATS", "export_run"]

FORMATS = ("csv", "parquet")


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
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / "run.json"]
    written[0].write_text(json.dumps(info.to_json(), indent=2) + "\n")
    for robot in store.robots(info.id):
        table = store.signals(info.id, robot)
        path = folder / f"signals_{_safe(robot)}.{fmt}"
        cols = ["t", *table.names]
        data = (
            np.column_stack([table.t, table.values]) if table.t.size else np.zeros((0, len(cols)))
        )
        if fmt == "csv":
            with path.open("w", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(cols)
                for row in data.tolist():
                    w.writerow(["" if v != v else repr(v) for v in row])
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.table({c: data[:, j] for j, c in enumerate(cols)}), path)
        written.append(path)
    events = store.events(info.id)
    path = folder / f"events.{fmt}"
    rows = [(e["t"], e["type"], e["robot"], json.dumps(e["data"])) for e in events]
    if fmt == "csv":
        with path.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["t", "type", "robot", "data"])
            w.writerows([(repr(t), ty, rb or "", d) for t, ty, rb, d in rows])
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(
            pa.table(
                {
                    "t": pa.array([r[0] for r in rows], pa.float64()),
                    "type": pa.array([r[1] for r in rows], pa.string()),
                    "robot": pa.array([r[2] for r in rows], pa.string()),
                    "data": pa.array([r[3] for r in rows], pa.string()),
                }
            ),
            path,
        )
    written.append(path)
    return written
