"""Running a sweep: load and check the file, expand the design, skip finished runs
(``resume``), hand the rest to an executor, log each row as it comes back, write the
results table. ``design: optimize`` asks its runs of an optimiser as others finish
(:mod:`robotsim.sweep.optimize`). See ``docs/sweeps.md``."""

from __future__ import annotations

import datetime as _dt
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robotsim.errors import InputError, ScenarioError
from robotsim.file_scope import OutsideScopeError, check_readable
from robotsim.jsonable import dumps as json_dumps
from robotsim.scenario_yaml import apply_overrides, read_scenario_yaml
from robotsim.sweep.design import RunTask, design_digest, expand, first_point
from robotsim.sweep.executors import make_executor
from robotsim.sweep.optimize import Spent, drive
from robotsim.sweep.results import (
    META,
    ResultsLog,
    best_rows,
    read_meta,
    read_rows,
    write_meta,
    write_tables,
)
from robotsim.sweep.schema import SweepSpec, load_sweep_data, parse_sweep
from robotsim.sweep.shapes import check_metric_paths
from robotsim.sweep.targets import resolve_base, validate_base
from robotsim.sweep.worker import SweepJob, run_one

__all__ = ["LoadedSweep", "SweepOutcome", "known_tasks", "load_sweep", "run_sweep"]


@dataclass(frozen=True)
class LoadedSweep:
    """A checked sweep: its spec, the base scenario (path and mapping) and the runs."""

    spec: SweepSpec
    source: Path
    base_path: Path
    base_data: dict[str, Any]
    tasks: list[RunTask]


@dataclass(frozen=True)
class SweepOutcome:
    """What :func:`run_sweep` did. ``runs_time_s`` sums the runs' own wall times;
    ``interrupted`` is True after Ctrl-C (finished runs are kept)."""

    sweep_id: str
    out_dir: Path
    total: int
    skipped: int
    ok: int
    failed: int
    elapsed_s: float
    runs_time_s: float
    workers: int
    executor: str
    interrupted: bool
    tables: tuple[Path, ...]
    driver_s: float = 0.0
    best: tuple[dict[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["out_dir"] = str(self.out_dir)
        d["tables"] = [str(p) for p in self.tables]
        return d


def _check_paths(
    spec: SweepSpec, first: dict[str, Any], base: dict[str, Any], src: str, base_src: str
) -> None:
    """Each parameter's first value, alone, must give a valid base scenario: a typo in
    a path is reported against the sweep file, before anything runs."""
    from robotsim.sweep.design import overrides_for

    try:
        data = apply_overrides(base, list(overrides_for(spec, {})), base_src)
        validate_base(data, base_src)
    except ScenarioError as exc:
        raise ScenarioError(f"{src}: set: {exc}") from None
    for name in spec.parameters:
        try:
            data = apply_overrides(base, list(overrides_for(spec, {name: first[name]})), base_src)
            validate_base(data, base_src)
        except ScenarioError as exc:
            raise ScenarioError(
                f"{src}: parameters.{name}.path: {spec.parameters[name].path!r} does not fit "
                f"the base scenario ({exc})"
            ) from None


#: The shipped sweep files: package data (``robotsim/data/sweeps``, in a checkout a link
#: to the top-level ``sweeps/``), so a name works from any folder of any install.
SHIPPED_SWEEPS = Path(__file__).resolve().parents[1] / "data" / "sweeps"


def shipped_sweeps() -> list[str]:
    """The names of the shipped sweep files, sorted."""
    if not SHIPPED_SWEEPS.is_dir():
        return []
    return sorted(p.stem for p in SHIPPED_SWEEPS.glob("*.yaml"))


def resolve_sweep_file(path: str | Path) -> Path:
    """A sweep file, or the name of a shipped one (``pid_gains`` or ``pid_gains.yaml``
    -> ``robotsim/data/sweeps/pid_gains.yaml``); a path that exists wins. Neither:
    ScenarioError naming what was given and the shipped names."""
    p = Path(path)
    if p.is_file() or (len(p.parts) > 1 and p.parent.name != "sweeps"):
        return p  # (``sweeps/NAME.yaml`` of a checkout also works from any folder)
    stem = p.stem if p.suffix in (".yaml", ".yml") else p.name
    shipped = SHIPPED_SWEEPS / f"{stem}.yaml"
    if shipped.is_file():
        return shipped
    raise ScenarioError(
        f"{path}: no such sweep file, and not a shipped sweep name "
        f"(shipped: {', '.join(shipped_sweeps()) or 'none'})"
    )


def load_sweep(path: str | Path) -> LoadedSweep:
    """Read, validate and expand a sweep file (ScenarioError naming the field)."""
    source = resolve_sweep_file(path)
    spec = parse_sweep(load_sweep_data(source), str(source))
    base_path = resolve_base(spec.base, source)
    try:
        check_readable(base_path)
    except OutsideScopeError as exc:
        raise ScenarioError(f"{source}: base: {exc}") from None
    base_data = read_scenario_yaml(base_path)
    if spec.design == "optimize":
        tasks: list[RunTask] = []
        first = first_point(spec)
    else:
        tasks = expand(spec, str(source))
        first = tasks[0].params
    _check_paths(spec, first, base_data, str(source), base_path.name)
    check_metric_paths(spec, base_data, str(source), base_path.name)
    return LoadedSweep(spec, source, base_path, base_data, tasks)


def known_tasks(sw: LoadedSweep, rows: dict[str, dict[str, Any]]) -> list[RunTask]:
    """The runs of a sweep: its design's, or for an optimiser the runs its folder's
    log holds (in trial order)."""
    if sw.spec.design != "optimize":
        return sw.tasks
    from robotsim.sweep.optimize import trial_task

    out = []
    for key in sorted(rows):
        r = rows[key]
        params = {p: r.get(p) for p in sw.spec.parameters}
        out.append(trial_task(sw.spec, int(r["point"]), int(r["repeat"]), params))
    return out


def _budget_runs(spec: SweepSpec) -> int | None:
    return spec.budget.runs if spec.budget is not None else None


def _new_id(name: str) -> str:
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S")
    return f"{name}-{stamp}-{uuid.uuid4().hex[:4]}"


def _base_id(sw: LoadedSweep) -> str:
    """The base scenario as the digest knows it: its content (the parsed mapping), however
    the sweep file names it (``DIR/sweep.yaml`` by its absolute path, the original file
    relative to itself) and wherever the folder was moved; an edited base is another
    design."""
    import hashlib

    return hashlib.sha256(json_dumps(sw.base_data, sort_keys=True).encode()).hexdigest()


def _digests(sw: LoadedSweep) -> tuple[str, str]:
    """The design's digest (its runs, or for an optimiser its file without the budget: a
    resumed study may be given more) with the base scenario as :func:`_base_id` names
    it; then the digest earlier versions wrote (the base as spelled, or none for a list
    of runs), which ``--resume`` still accepts."""
    import hashlib

    def h(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    if sw.spec.design != "optimize":
        runs = design_digest(sw.tasks)
        return h(f"{runs}|{_base_id(sw)}"), runs
    doc = sw.spec.model_dump(mode="json", exclude={"budget", "description", "plots"})
    legacy = h(json_dumps(doc, sort_keys=True))
    return h(json_dumps({**doc, "base": _base_id(sw)}, sort_keys=True)), legacy


def _prepare_dir(sw: LoadedSweep, out_dir: Path, resume: bool, db: str | None) -> dict[str, Any]:
    digests = _digests(sw)
    digest = digests[0]
    if (out_dir / META).is_file():
        meta = read_meta(out_dir)
        if not resume:
            raise InputError(
                f"--out {out_dir}: already holds sweep {meta['id']}; pass --resume to finish "
                "it, or choose another folder"
            )
        if meta["digest"] not in digests:
            raise InputError(
                f"--resume {out_dir}: sweep {meta['id']} was made from another design "
                f"(file {meta['file']}); its runs do not match {sw.source}"
            )
        return meta
    out_dir.mkdir(parents=True, exist_ok=True)
    meta = {
        "id": _new_id(sw.spec.name),
        "name": sw.spec.name,
        "file": str(sw.source),
        "base": str(sw.base_path),
        "design": sw.spec.design,
        "runs": len(sw.tasks) if sw.spec.design != "optimize" else _budget_runs(sw.spec),
        "parameters": list(sw.spec.parameters),
        "metrics": list(sw.spec.metric_columns()),
        "success": sw.spec.success,
        "objectives": [o.model_dump() for o in sw.spec.objectives],
        "constraints": list(sw.spec.constraints),
        "sampler": sw.spec.sampler_name if sw.spec.design == "optimize" else None,
        "budget": sw.spec.budget.model_dump() if sw.spec.budget is not None else None,
        "repeats": sw.spec.repeats,
        "elapsed_s": 0.0,
        "db": db,
        "digest": digest,
        "created": time.time(),
    }
    _write_sweep_copy(sw, out_dir / "sweep.yaml")
    write_meta(out_dir, meta)
    return meta


def _write_sweep_copy(sw: LoadedSweep, dest: Path) -> None:
    """The sweep file as run, into the output folder, with a ``base:`` that still
    resolves from there: a shipped scenario's name stays a name, a file becomes its
    absolute path (the original is kept in a comment). The rest of the text, comments
    included, is copied as it is."""
    import re

    from robotsim.shipped import is_shipped

    text = sw.source.read_text(encoding="utf-8")
    shipped = is_shipped(sw.base_path) and sw.spec.base.strip() in (
        sw.base_path.stem,
        sw.base_path.name,
    )
    if not shipped:
        new = (
            f"base: {json.dumps(str(sw.base_path), allow_nan=False)}  # as written: {sw.spec.base}"
        )
        text, n = re.subn(r"(?m)^base:[^\n]*$", lambda _: new, text, count=1)
        if n != 1 or _mapping_of(text).get("base") != str(sw.base_path):
            import yaml

            data = load_sweep_data(sw.source)
            data["base"] = str(sw.base_path)
            text = yaml.safe_dump(data, sort_keys=False)
    dest.write_text(text, encoding="utf-8")


def _mapping_of(text: str) -> dict[str, Any]:
    from robotsim.validation import safe_load

    data = safe_load(text)
    return data if isinstance(data, dict) else {}


ProgressFn = Callable[[int, int, int, int], None]  # done, failed, total, skipped


def run_sweep(
    path: str | Path,
    out_dir: str | Path,
    *,
    cluster: str | None = None,
    workers: int | None = None,
    resume: bool = False,
    db: str | None = None,
    progress: ProgressFn | None = None,
) -> SweepOutcome:
    """Run the sweep file at ``path`` into ``out_dir`` (module doc). ``cluster``:
    ``tcp://HOST:PORT`` or ``local:N`` for Dask, ``None`` for the local pool of
    ``workers`` processes. ``db``: run store (default ``out_dir/runs.sqlite``)."""
    sw = load_sweep(path)
    out = Path(out_dir)
    meta = _prepare_dir(sw, out, resume, db)
    store = meta.get("db") or db or str((out / "runs.sqlite").resolve())
    if db is not None and meta.get("db") not in (None, db):
        raise InputError(f"--db {db}: sweep {meta['id']} records into {meta['db']}")
    done = read_rows(out)
    optimize = sw.spec.design == "optimize"
    todo = [t for t in sw.tasks if t.key not in done]
    job = SweepJob(
        sweep_id=meta["id"],
        base_data=sw.base_data,
        base_source=str(sw.base_path),
        metrics=sw.spec.metric_columns(),
        success=sw.spec.success,
        mode=sw.spec.mode,
        db=store,
    )
    t0 = time.perf_counter()
    spent = Spent()
    interrupted = False
    n_workers = 0
    label = cluster or "local"
    if optimize:
        runs_left = _runs_left(sw.spec, len(done))
        previous_s = float(meta.get("elapsed_s") or 0.0)
        budget_time = sw.spec.budget.time if sw.spec.budget is not None else None
        work = runs_left != 0 and (budget_time is None or previous_s < budget_time)
        total = _budget_runs(sw.spec) or 0
    else:
        work = bool(todo)
        total = len(sw.tasks)
    skipped = len(done) if optimize else len(sw.tasks) - len(todo)
    bar_total = (runs_left or 0) if optimize else len(todo)
    if work:
        from robotsim.recording import RunStore

        RunStore(store).close()  # tables made once here, not raced by the workers
        executor = make_executor(cluster, workers)
        n_workers = executor.workers
        label = executor.address
        log = ResultsLog(out)
        goals = sw.spec.goals()

        def on_row(row: dict[str, Any]) -> None:
            if goals.active:
                row.setdefault("trial", row["point"])
            log.append(row)
            if progress:
                progress(spent.ok + spent.failed, spent.failed, bar_total, skipped)

        try:
            if progress:
                progress(0, 0, bar_total, skipped)
            if optimize:
                _optimize(sw, out, resume, executor, job, done, on_row, spent, runs_left,
                          None if budget_time is None else budget_time - previous_s)  # fmt: skip
            else:
                for row in executor.map_unordered(run_one, job, todo):
                    spent.runs_time_s += float(row["wall_time_s"])
                    if row["status"] == "ok":
                        spent.ok += 1
                    else:
                        spent.failed += 1
                    on_row(row)
            executor.close()
        except KeyboardInterrupt:
            interrupted = True
            executor.stop()
        except BaseException:
            executor.stop()
            raise
        finally:
            log.close()
            _recover(store)
            if optimize:
                meta["elapsed_s"] = float(meta.get("elapsed_s") or 0.0) + (time.perf_counter() - t0)
                write_meta(out, meta)
    tables = write_tables(out, meta)
    return SweepOutcome(
        sweep_id=meta["id"],
        out_dir=out,
        total=total if not optimize else len(read_rows(out)),
        skipped=skipped,
        ok=spent.ok,
        failed=spent.failed,
        elapsed_s=time.perf_counter() - t0,
        runs_time_s=spent.runs_time_s,
        workers=n_workers,
        executor=label,
        interrupted=interrupted,
        tables=tuple(p for p in tables if p is not None),
        driver_s=spent.driver_s,
        best=tuple(_shown_best(r, meta) for r in best_rows(out, meta)),
    )


def _shown_best(row: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    keep = ["run_key", "trial", *meta["parameters"], *meta["metrics"], "run_id"]
    return {k: row.get(k) for k in keep}


def _runs_left(spec: SweepSpec, done: int) -> int | None:
    runs = _budget_runs(spec)
    return None if runs is None else max(0, runs - done)


def _optimize(
    sw: LoadedSweep,
    out: Path,
    resume: bool,
    executor: Any,
    job: SweepJob,
    done: dict[str, dict[str, Any]],
    on_row: Callable[[dict[str, Any]], None],
    spent: Spent,
    runs_left: int | None,
    time_left: float | None,
) -> None:
    """The optimiser's session: open (or resume) the study, bring it in line with the
    run log, and drive it until the budget is spent."""
    from robotsim.sweep.study import Optimizer, open_study

    study = open_study(out, sw.spec, resume=resume)
    opt = Optimizer(study, sw.spec, sw.spec.goals())
    by_trial: dict[int, list[dict[str, Any]]] = {}
    for row in done.values():
        by_trial.setdefault(int(row["point"]), []).append(row)
    opt.recover(by_trial)
    deadline = None if time_left is None else time.monotonic() + time_left
    drive(opt, executor, job, sw.spec, runs_left=runs_left, deadline=deadline,
          on_row=on_row, spent=spent)  # fmt: skip


def _recover(db: str) -> None:
    """Mark runs of killed workers ``interrupted`` in the run store."""
    try:
        from robotsim.recording import RunStore

        with RunStore(db) as s:
            s.recover_stale()
    except Exception:  # a remote store may be gone; the results table stands anyway
        pass
