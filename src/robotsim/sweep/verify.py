"""``robotsim sweep verify DIR --sample K``: re-run K runs of a sweep from their
receipts on an executor (the local pool, Dask, or this process) and count those that
come out bit-identical (:mod:`robotsim.scenario.verify`).

The sample is drawn from the runs the folder's run log holds with a run-store id
(``numpy.random.default_rng(seed)``, without replacement; all of them when K is at
least their number). Each re-run is a task of its own, so a sample runs on another
executor, with another number of workers and in another order than the sweep did.
The verifications are appended to ``DIR/verify.jsonl``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.errors import InputError
from robotsim.jsonable import dumps as json_dumps
from robotsim.scenario.verify import VerifyTask, verify_task
from robotsim.sweep.executors import make_executor
from robotsim.sweep.results import read_meta, read_rows

__all__ = ["SweepVerification", "verify_sweep"]

VERIFY_LOG = "verify.jsonl"


@dataclass(frozen=True)
class SweepVerification:
    """``identical`` of ``sampled`` runs re-ran bit for bit; ``results`` each run's
    verification (JSON); ``executor``, ``workers``, ``elapsed_s``."""

    sweep_id: str
    sampled: int
    identical: int
    results: tuple[dict[str, Any], ...]
    executor: str
    workers: int
    elapsed_s: float

    def to_json(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["results"] = list(self.results)
        return d


def verify_sweep(
    sweep_dir: str | Path,
    sample: int | None = None,
    *,
    seed: int = 0,
    cluster: str | None = None,
    workers: int | None = None,
    db: str | None = None,
) -> SweepVerification:
    """Verify ``sample`` runs of the sweep folder (all when ``None``) on the executor
    ``cluster``/``workers`` (as ``robotsim sweep``'s)."""
    out = Path(sweep_dir)
    meta = read_meta(out)
    store = db or meta.get("db") or str((out / "runs.sqlite").resolve())
    rows = [r for r in read_rows(out).values() if isinstance(r.get("run_id"), int)]
    if not rows:
        raise InputError(f"{out}: no recorded runs to verify (the run log has no run ids)")
    if sample is not None and sample < 1:
        raise InputError(f"--sample must be >= 1, got {sample}")
    rows.sort(key=lambda r: str(r["run_key"]))
    if sample is not None and sample < len(rows):
        pick = np.random.default_rng(seed).choice(len(rows), size=sample, replace=False)
        rows = [rows[i] for i in sorted(pick)]
    tasks = [VerifyTask(str(r["run_key"]), int(r["run_id"])) for r in rows]
    t0 = time.perf_counter()
    executor = make_executor(cluster, workers)
    results: list[dict[str, Any]] = []
    try:
        for res in executor.map_unordered(verify_task, store, tasks):
            results.append(res)
        executor.close()
    except BaseException:
        executor.stop()
        raise
    by_id = {t.run_id: t.key for t in tasks}
    for r in results:
        r["run_key"] = by_id.get(r["run_id"])
    results.sort(key=lambda r: str(r["run_key"]))
    with (out / VERIFY_LOG).open("a", encoding="utf-8") as fh:
        for r in results:
            fh.write(json_dumps({"checked_at": time.time(), "executor": executor.address, **r},
                                default=str) + "\n")  # fmt: skip
    return SweepVerification(
        sweep_id=str(meta["id"]),
        sampled=len(tasks),
        identical=sum(r["verdict"] == "identical" for r in results),
        results=tuple(results),
        executor=executor.address,
        workers=int(getattr(executor, "workers", 1)),
        elapsed_s=time.perf_counter() - t0,
    )
