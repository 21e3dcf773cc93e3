"""A sweep's output folder: the run log (one JSON line per finished run, appended as
runs finish, so nothing finished is lost to a crash or Ctrl-C) and the results table
written from it (``results.csv`` and ``results.parquet``).

Folder layout::

    DIR/sweep.yaml      the sweep file as run
    DIR/sweep.json      id, name, base scenario, number of runs, design digest
    DIR/runs.jsonl      one line per finished run: the table row plus the run's summary
    DIR/results.csv     parameters, metrics, status, error, run id, wall time, worker
    DIR/results.parquet the same table (pyarrow)
    DIR/runs.sqlite     the run store (unless --db names another)
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from robotsim.errors import InputError
from robotsim.file_scope import check_readable
from robotsim.jsonable import dumps as json_dumps
from robotsim.jsonable import read_json

__all__ = [
    "ResultsLog",
    "best_rows",
    "read_meta",
    "read_rows",
    "table_columns",
    "table_rows",
    "write_meta",
    "write_tables",
]

LOG = "runs.jsonl"
META = "sweep.json"
FIXED_HEAD = ["run_key", "point", "repeat"]
FIXED_TAIL = ["status", "error", "run_id", "wall_time_s", "worker"]


def _jsonable(v: Any) -> Any:
    from robotsim.jsonable import to_jsonable

    return to_jsonable(v)


class ResultsLog:
    """Append-only ``runs.jsonl``; the last line of a key wins when read back."""

    def __init__(self, out_dir: Path) -> None:
        self.path = out_dir / LOG
        self._fh = self.path.open("a", encoding="utf-8")

    def append(self, row: dict[str, Any]) -> None:
        self._fh.write(json_dumps(row) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


def read_rows(out_dir: Path) -> dict[str, dict[str, Any]]:
    """The finished runs of a sweep folder by run key (a torn last line is skipped)."""
    path = Path(out_dir) / LOG
    check_readable(path)
    rows: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return rows
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = read_json(line, str(path))
        except InputError:
            continue  # the line being written when the driver was killed
        if isinstance(row, dict) and isinstance(row.get("run_key"), str):
            rows[row["run_key"]] = row
    return rows


def read_meta(out_dir: Path) -> dict[str, Any]:
    path = Path(out_dir) / META
    check_readable(path)
    if not path.is_file():
        raise InputError(f"{out_dir}: not a sweep folder (no {META}); run `robotsim sweep` first")
    meta = read_json(path.read_bytes(), str(path))
    if not isinstance(meta, dict):
        raise InputError(f"{path}: not a sweep's meta file (a JSON object)")
    return meta


def write_meta(out_dir: Path, meta: dict[str, Any]) -> None:
    """``sweep.json``, replaced whole (a reader never sees half of it)."""
    from robotsim.atomic import write_text_atomic

    write_text_atomic(Path(out_dir) / META, json_dumps(meta, indent=2))


GOAL_HEAD = ["trial"]
GOAL_TAIL = ["feasible", "best_so_far", "pareto"]


def table_columns(meta: dict[str, Any]) -> list[str]:
    extra = ["success"] if meta.get("success") else []
    goals = bool(meta.get("objectives"))
    head = [*FIXED_HEAD, *(GOAL_HEAD if goals else [])]
    tail = [*(GOAL_TAIL if goals else []), *FIXED_TAIL]
    return [*head, *meta["parameters"], *meta["metrics"], *extra, *tail]


def table_rows(out_dir: Path, meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of the run log in the order the runs finished, with the goal columns
    (``trial``, ``feasible``, ``best_so_far``, ``pareto``) of a sweep with an
    objective (:func:`robotsim.sweep.goals.annotate`)."""
    from robotsim.sweep.goals import annotate, goals_from_meta

    rows = list(read_rows(out_dir).values())
    return annotate(rows, goals_from_meta(meta), int(meta.get("repeats") or 1))


def _cell(v: Any) -> Any:
    if isinstance(v, (list, dict)):
        return json.dumps(v, allow_nan=False)
    return v


def write_tables(out_dir: Path, meta: dict[str, Any]) -> tuple[Path, Path | None]:
    """``results.csv`` and ``results.parquet`` from the run log, rows in run-key order.
    Returns the paths (parquet ``None`` without pyarrow)."""
    cols = table_columns(meta)
    rows = sorted(table_rows(out_dir, meta), key=lambda r: str(r["run_key"]))
    table = [{c: _cell(r.get(c)) for c in cols} for r in rows]
    csv_path = Path(out_dir) / "results.csv"
    with csv_path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for r in table:
            w.writerow({c: "" if v is None else v for c, v in r.items()})
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return csv_path, None
    pq_path = Path(out_dir) / "results.parquet"
    arrays = {}
    for c in cols:
        vals = [r[c] for r in table]
        kinds = {type(v) for v in vals if v is not None}
        if kinds and kinds <= {int, float} and kinds != {int}:
            vals = [None if v is None else float(v) for v in vals]
        elif len(kinds) > 1:
            vals = [None if v is None else str(v) for v in vals]
        arrays[c] = pa.array(vals)
    pq.write_table(pa.table(arrays), pq_path)
    return csv_path, pq_path


def best_rows(out_dir: Path, meta: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The rows of the best feasible trials of a sweep with an objective (one
    objective: the best, ties kept; several: the Pareto front), in run-key order;
    ``[]`` without an objective or a feasible trial."""
    meta = read_meta(out_dir) if meta is None else meta
    if not meta.get("objectives"):
        return []
    rows = table_rows(out_dir, meta)
    return sorted((r for r in rows if r.get("pareto")), key=lambda r: str(r["run_key"]))
