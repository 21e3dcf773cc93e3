"""Re-running a recorded run from its receipt and saying whether it came out the same.

:func:`verify_run` reads a run's receipt (:mod:`robotsim.scenario.receipt`), checks the
files it read against their digests, re-runs the scenario mapping it holds with the
same seed and options (nothing recorded), collecting checkpoints at the same interval,
and compares:

- the compiled models' digests;
- every checkpoint, in order: the first whose state digest differs is reported with its
  simulated time, the world, the parts of the state that differ and the bodies whose
  joints differ, with the largest position and velocity differences
  (:func:`robotsim.physics.checkpoint.state_difference`);
- the summaries, without the keys that measure wall-clock time or name where files went
  (:data:`robotsim.scenario.receipt.VOLATILE_KEYS`).

The verdict is ``identical`` when all of them match bit for bit (a run that failed is
identical when the re-run fails with the same error), else ``differs``. Changed files
and other software versions are reported beside the verdict: they explain a difference,
they do not make one.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robotsim.errors import InputError
from robotsim.run_io import RunOptions

__all__ = ["Verification", "VerifyTask", "compare_summaries", "verify_receipt", "verify_run",
           "verify_task"]  # fmt: skip


@dataclass(frozen=True)
class Verification:
    """What :func:`verify_run` found (module doc). ``first_difference``: ``None`` or
    ``{"seq", "t", "world", "max_abs", "parts", "bodies", ...}``."""

    run_id: int
    verdict: str  # "identical" | "differs"
    checkpoints: int
    compared: int
    first_difference: dict[str, Any] | None = None
    summary_differences: list[dict[str, Any]] = field(default_factory=list)
    models_differ: list[int] = field(default_factory=list)
    files_changed: list[dict[str, Any]] = field(default_factory=list)
    versions_changed: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    rerun_wall_s: float = 0.0
    worker: str | None = None

    @property
    def identical(self) -> bool:
        return self.verdict == "identical"

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def line(self) -> str:
        """One line for a terminal."""
        if self.identical and not self.checkpoints:  # a kinematic run: no physics state
            return (f"run {self.run_id}: identical (no physics state to checkpoint: its "
                    f"summary, value by value; re-run in {self.rerun_wall_s:.1f} s)")  # fmt: skip
        if self.identical:
            return (f"run {self.run_id}: identical ({self.compared} checkpoints and the "
                    f"summary, re-run in {self.rerun_wall_s:.1f} s)")  # fmt: skip
        d = self.first_difference
        if d is not None:
            bodies = (
                ", ".join(
                    f"{b['body']} (joint {b['joint']}: position {b['qpos_max_abs']:.3g}, "
                    f"velocity {b['qvel_max_abs']:.3g})"
                    for b in d.get("bodies", [])[:3]
                )
                or "no joint (" + ", ".join(d.get("parts", {})) + ")"
            )
            what = (f"checkpoint {d['seq']} at t={d['t']:.6g} s (world {d['world']}) differs "
                    f"by up to {d['max_abs']:.3g}: {bodies}")  # fmt: skip
        elif self.summary_differences:
            s = self.summary_differences[0]
            what = f"summary {s['path']}: {s['recorded']!r} then, {s['rerun']!r} now"
        else:
            what = self.error or "differs"
        return f"run {self.run_id}: differs: {what}"


def _flat(node: Any, prefix: str, out: dict[str, Any]) -> None:
    from robotsim.scenario.receipt import VOLATILE_KEYS

    if isinstance(node, dict):
        for k, v in node.items():
            if str(k) in VOLATILE_KEYS:
                continue
            _flat(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(node, (list, tuple)):
        for i, v in enumerate(node):
            _flat(v, f"{prefix}.{i}", out)
    else:
        out[prefix] = node


def compare_summaries(recorded: Any, rerun: Any, limit: int = 10) -> list[dict[str, Any]]:
    """The paths where two summaries differ (volatile keys left out), both as strict
    JSON values; numbers compared exactly (``null`` equals ``null``)."""
    from robotsim.jsonable import to_jsonable

    a: dict[str, Any] = {}
    b: dict[str, Any] = {}
    _flat(to_jsonable(recorded), "", a)
    _flat(to_jsonable(rerun), "", b)
    out = []
    for path in sorted(set(a) | set(b)):
        x, y = a.get(path, "(missing)"), b.get(path, "(missing)")
        same = x == y or (isinstance(x, float) and isinstance(y, float) and math.isnan(x)
                          and math.isnan(y))  # fmt: skip
        if not same:
            out.append({"path": path, "recorded": x, "rerun": y})
            if len(out) >= limit:
                break
    return out


def _files_changed(files: dict[str, str | None]) -> list[dict[str, Any]]:
    from robotsim.scenario.receipt import file_digest

    out = []
    for path, digest in files.items():
        now = file_digest(path)
        if now != digest:
            out.append({"file": path, "recorded": digest, "now": now})
    return out


def _versions_changed(doc: dict[str, Any]) -> dict[str, Any]:
    from robotsim.scenario.receipt import platform_info, versions

    out = {}
    for key, now in (("versions", versions()), ("platform", platform_info())):
        then = doc.get(key) or {}
        for k in sorted(set(then) | set(now)):
            if then.get(k) != now.get(k) and k != "store_schema":
                out[f"{key}.{k}"] = {"recorded": then.get(k), "now": now.get(k)}
    return out


def verify_receipt(stored: Any) -> Verification:
    """Re-run a :class:`~robotsim.recording.receipts.StoredReceipt` and compare."""
    import os
    import socket

    from robotsim.physics.checkpoint import state_difference
    from robotsim.scenario.any_kind import run_base
    from robotsim.scenario.commands import rerun_command
    from robotsim.scenario.receipt import Receipting

    doc = stored.receipt
    command = doc.get("command")
    if command is not None and command.get("replayable") is False:
        raise InputError(
            f"run {stored.run_id} was served live (robotsim {command.get('name')}): its "
            f"receipt records what ran ({len(stored.checkpoints)} checkpoints, the files, "
            "models and versions) but the commands that steered it came over the network "
            "and cannot be replayed; there is nothing to re-run"
        )
    o = doc.get("options") or {}
    source = str(doc.get("source_path") or doc.get("source"))
    opts = RunOptions(seed=o.get("seed"), mode=o.get("mode"), duration=o.get("duration"))
    files = _files_changed(doc.get("files") or {})
    vers = _versions_changed(doc)
    t0 = time.perf_counter()
    rc = Receipting(
        dict(doc["scenario"]), source, opts, doc.get("checkpoint_interval_s"), keep_models=True,
        command=command,
    )  # fmt: skip
    summary = None
    try:
        with rc:
            if command is not None:  # a command's run (robotsim walk, ...)
                summary = rerun_command(command)
            else:
                summary = run_base(dict(doc["scenario"]), source, opts)
    except Exception:  # the failure is compared below (rc.error)
        pass
    wall = time.perf_counter() - t0
    worker = f"{socket.gethostname()}:{os.getpid()}"
    old = stored.checkpoints
    new = rc.checkpoints
    first = None
    compared = 0
    for a, b in zip(old, new):
        compared += 1
        if a.digest != b.digest or a.world != b.world:
            model = rc.model_objects[b.world] if b.world < len(rc.model_objects) else None
            diff = state_difference(model, a.state, b.state) if model is not None else {}
            first = {"seq": a.seq, "t": a.t, "t_rerun": b.t, "world": a.world, **diff}
            break
    models = [i for i, (x, y) in enumerate(zip(doc.get("models") or [], rc.models)) if x != y]
    sums = compare_summaries(doc.get("summary"), summary) if doc.get("status") == "ok" else []
    error = None
    same_failure = doc.get("status") == rc.status and doc.get("error") == rc.error
    if not same_failure:
        then = "failed" if doc.get("status") != "ok" else "finished"
        now = "failed" if rc.status != "ok" else "finished"
        error = (
            f"the run {then} ({doc.get('error') or 'ok'}); the re-run {now} ({rc.error or 'ok'})"
        )
    counts = len(old) == len(new)
    if first is None and not counts:
        n = min(len(old), len(new))
        first = {"seq": n, "t": (old[n].t if n < len(old) else new[n].t), "world": None,
                 "max_abs": None, "parts": {}, "bodies": [],
                 "note": f"{len(old)} checkpoints recorded, {len(new)} in the re-run"}  # fmt: skip
    identical = first is None and not models and not sums and error is None
    return Verification(
        run_id=stored.run_id,
        verdict="identical" if identical else "differs",
        checkpoints=len(old),
        compared=compared,
        first_difference=first,
        summary_differences=sums,
        models_differ=models,
        files_changed=files,
        versions_changed=vers,
        error=error,
        rerun_wall_s=wall,
        worker=worker,
    )


def _read(db: str, run: int | str) -> Any:
    from robotsim.recording import RunStore
    from robotsim.recording.receipts import read_receipt

    with RunStore(db) as store:
        rid = store.run(run).id
        stored = read_receipt(store.engine, rid)
    if stored is None:
        raise InputError(
            f"run {rid} has no receipt (recorded before receipts existed, or by a command "
            "that writes none: robotsim run, sweep, walk, motion play|check, clearance and plan "
            "do)"
        )
    return stored


def verify_run(db: str | Path, run: int | str) -> Verification:
    """Re-run run ``run`` (an id or ``last``) of the store ``db`` and compare (module
    doc)."""
    return verify_receipt(_read(str(db), run))


@dataclass(frozen=True)
class VerifyTask:
    """One run to verify on an executor (``key`` names it there)."""

    key: str
    run_id: int


def verify_task(db: str, task: VerifyTask) -> dict[str, Any]:
    """An executor's function: verify one run; returns the verification as JSON (a
    run that cannot be re-run at all is a ``differs`` with its error)."""
    try:
        return verify_run(db, task.run_id).to_json()
    except Exception as exc:  # one bad run must not stop the others
        text = str(exc).strip().splitlines()
        error = f"{type(exc).__name__}: {text[0] if text else ''}"
        return Verification(task.run_id, "differs", 0, 0, error=error).to_json()
