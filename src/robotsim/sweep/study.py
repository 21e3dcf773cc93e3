"""The optimiser of ``design: optimize``: an Optuna study stored beside the results.

The study lives in ``DIR/study.journal`` (Optuna's journal format: one JSON operation
per line, which Optuna's ``JournalFileBackend`` and ``optuna-dashboard`` open), so
``--resume`` continues it: the samplers see every trial told before. The sweep's
driver is its only writer: each operation is appended and flushed to the operating
system (as the run log is), without Optuna's file lock and ``fsync`` per operation
(8 per trial, 10 ms each here), so a killed driver loses nothing but a power cut may
lose the last operations (a torn last line is dropped when the study is reopened).
:class:`Optimizer` is the ask/tell side the engine drives as runs finish:

- ``ask()`` -> a new trial's number and parameters (``None`` when the sampler has
  nothing to propose now: grid refinement waiting for its level, or converged);
- ``tell(number, rows)`` -> the trial's verdict (:mod:`robotsim.sweep.goals`) told to
  the study.

Samplers (``sampler:``): ``tpe`` (Optuna's TPESampler, multivariate, constant liar for
the trials still running; startup trials ``clamp(trials / 4, 2, 10)``), ``cmaes``
(CmaEsSampler on the ``cmaes`` package), ``random``, ``nsga2`` (NSGAIISampler, the
default with several objectives; population ``clamp(trials / 5, 4, 50)``) and
``grid-refine`` (:mod:`robotsim.sweep.refine`, its points enqueued into the study).

Infeasible trials (a failed run, an objective without a value, a broken constraint)
are told as *complete* with Optuna constraint values (``trial.set_constraint``: > 0 is
violated; TPE and NSGA-II rank them behind every feasible trial), plus a ``runs_ok``
constraint that a failed run breaks. An objective without a value is told as the worst
value seen so far (the constraint keeps the trial out of the feasible ones). CMA-ES
does not use constraints: an infeasible trial is told ``FAIL`` there, so its generation
is filled by other samples (resampling).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from robotsim.extras import require
from robotsim.jsonable import dumps as json_dumps
from robotsim.sweep.goals import Goals, TrialVerdict
from robotsim.sweep.refine import GridRefine
from robotsim.sweep.schema import SweepSpec

__all__ = ["STUDY_FILE", "Optimizer", "distributions", "open_study"]

STUDY_FILE = "study.journal"
STUDY_NAME = "sweep"


def _optuna() -> Any:
    optuna = require("optuna", "a 'design: optimize' sweep")

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def distributions(spec: SweepSpec) -> dict[str, Any]:
    """Each parameter's Optuna distribution: ``range`` -> float (``step`` kept),
    ``random`` uniform/loguniform/integers -> float/log float/int, ``values`` ->
    categorical."""
    from optuna.distributions import (
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )

    out: dict[str, Any] = {}
    for name, p in spec.parameters.items():
        if p.values is not None:
            out[name] = CategoricalDistribution(tuple(p.values))
        elif p.range is not None:
            out[name] = FloatDistribution(p.range.start, p.range.stop, step=p.range.step)
        else:
            r = p.random
            assert r is not None and r.low is not None and r.high is not None
            if r.distribution == "integers":
                out[name] = IntDistribution(int(r.low), int(r.high))
            else:
                out[name] = FloatDistribution(r.low, r.high, log=r.distribution == "loguniform")
    return out


def _trials_budget(spec: SweepSpec) -> int | None:
    runs = spec.budget.runs if spec.budget is not None else None
    return None if runs is None else max(1, runs // spec.repeats)


def make_sampler(spec: SweepSpec, session: int = 0) -> Any:
    """The Optuna sampler of ``spec`` (module doc), seeded by the file's ``seed`` and
    ``session`` (the number of trials a resumed study holds: a resumed sampler does not
    replay the random draws of the first session)."""
    import numpy as np

    optuna = _optuna()
    name = spec.sampler_name
    trials = _trials_budget(spec)
    seed = spec.seed
    if session:
        seed = int(np.random.SeedSequence([spec.seed, session]).generate_state(1)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # experimental-feature notes
        if name == "tpe":
            startup = 10 if trials is None else min(10, max(2, trials // 4))
            return optuna.samplers.TPESampler(
                seed=seed,
                n_startup_trials=startup,
                multivariate=True,
                constant_liar=True,
                warn_independent_sampling=False,
            )
        if name == "cmaes":
            return optuna.samplers.CmaEsSampler(
                seed=seed, n_startup_trials=0, warn_independent_sampling=False
            )
        if name == "nsga2":
            pop = 20 if trials is None else min(50, max(4, trials // 5))
            return optuna.samplers.NSGAIISampler(population_size=pop, seed=seed)
        return optuna.samplers.RandomSampler(seed=seed)  # random, grid-refine (enqueued)


class SweepJournal:
    """Optuna's journal file, one writer (module doc). ``read_logs`` serves the
    operations from memory; ``append_logs`` appends and flushes."""

    def __init__(self, path: Path) -> None:
        import json

        self.path = Path(path)
        self._logs: list[dict[str, Any]] = []
        raw = self.path.read_bytes() if self.path.is_file() else b""
        end = raw.rfind(b"\n") + 1
        for line in raw[:end].splitlines():
            if line.strip():
                self._logs.append(json.loads(line))
        if end != len(raw):  # a torn last line: cut it off before appending
            with self.path.open("r+b") as fh:
                fh.truncate(end)
        self._fh = self.path.open("ab")

    def read_logs(self, log_number_from: int) -> list[dict[str, Any]]:
        return self._logs[log_number_from:]

    def append_logs(self, logs: list[dict[str, Any]]) -> None:

        text = "".join(json_dumps(log, separators=(",", ":")) + "\n" for log in logs)
        self._fh.write(text.encode("utf-8"))
        self._fh.flush()
        self._logs.extend(logs)

    def close(self) -> None:
        self._fh.close()


def open_study(out_dir: Path, spec: SweepSpec, resume: bool) -> Any:
    """The study of the sweep folder (created, or loaded with ``resume``)."""
    optuna = _optuna()
    from optuna.storages import JournalStorage
    from optuna.storages.journal import BaseJournalBackend

    BaseJournalBackend.register(SweepJournal)
    storage = JournalStorage(SweepJournal(Path(out_dir) / STUDY_FILE))
    directions = [o.goal for o in spec.objectives]
    study = optuna.create_study(
        storage=storage,
        study_name=STUDY_NAME,
        directions=directions,
        sampler=make_sampler(spec),
        load_if_exists=resume,
    )
    held = len(study.get_trials(deepcopy=False))
    if held:
        study.sampler = make_sampler(spec, session=held)
    return study


class Optimizer:
    """Ask/tell over the study (module doc)."""

    def __init__(self, study: Any, spec: SweepSpec, goals: Goals) -> None:
        self.study = study
        self.spec = spec
        self.goals = goals
        self.dists = distributions(spec)
        self.cmaes = spec.sampler_name == "cmaes"
        self._trials: dict[int, Any] = {}
        self._worst: list[float | None] = [None] * len(goals.objectives)
        self.refine = GridRefine(spec) if spec.sampler_name == "grid-refine" else None
        self._queue: list[dict[str, Any]] = []  # grid-refine points not asked yet
        self._level_open: set[int] = set()  # grid-refine trials of the level under way
        self._best: tuple[tuple[float, ...], dict[str, Any]] | None = None
        self.converged = False

    # -- resume -----------------------------------------------------------------------
    def recover(self, rows_by_trial: Mapping[int, Sequence[Mapping[str, Any]]]) -> None:
        """Bring the study in line with the run log of an earlier session: a trial the
        log holds all runs of is told from them; one cut off (the driver stopped) is
        marked failed and its point asked again first."""
        optuna = _optuna()
        from optuna.trial import TrialState

        for ft in self.study.get_trials(deepcopy=False):
            if ft.state == TrialState.COMPLETE:
                self._note(ft.params, self.goals.judge(rows_by_trial.get(ft.number, [])))
                if self.refine is not None:
                    self.refine.mark(ft.params)
            if ft.state != TrialState.RUNNING:
                continue
            rows = rows_by_trial.get(ft.number, [])
            trial = optuna.trial.Trial(self.study, ft._trial_id)
            if len(rows) >= self.spec.repeats:
                if self.refine is not None:
                    self.refine.mark(ft.params)
                self._trials[ft.number] = trial
                self.tell(ft.number, rows)
                continue
            trial.set_user_attr("interrupted", True)
            self.study.tell(trial, state=TrialState.FAIL)
            if self.refine is None:  # grid refinement proposes the point again itself
                self.study.enqueue_trial(dict(ft.params), skip_if_exists=False)

    # -- ask --------------------------------------------------------------------------
    def ask(self, running: int) -> tuple[int, dict[str, Any]] | None:
        """A new trial (number, parameters), or ``None`` when there is none to run now
        (``running``: trials under way; grid refinement waits for its level)."""
        if self.refine is not None:
            if not self._queue:
                if self._level_open or running:
                    return None
                best = self._best[1] if self._best is not None else None
                if self.converged:
                    return None
                self._queue = self.refine.next_level(best)
                if not self._queue:
                    self.converged = True
                    return None
            self.study.enqueue_trial(self._queue.pop(0), skip_if_exists=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            trial = self.study.ask(self.dists)
        self._trials[trial.number] = trial
        if self.refine is not None:
            self._level_open.add(trial.number)
        params = {name: trial.params[name] for name in self.spec.parameters}
        return trial.number, params

    # -- tell -------------------------------------------------------------------------
    def tell(self, number: int, rows: Sequence[Mapping[str, Any]]) -> TrialVerdict:
        """Tell trial ``number`` its runs' verdict; returns it."""
        from optuna.trial import TrialState

        verdict = self.goals.judge(rows)
        trial = self._trials.pop(number)
        self._level_open.discard(number)
        params = dict(trial.params)
        trial.set_user_attr("feasible", verdict.feasible)
        if verdict.reason:
            trial.set_user_attr("reason", verdict.reason[:500])
        self._note(params, verdict)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if self.cmaes and not verdict.feasible:
                self.study.tell(trial, state=TrialState.FAIL)
                return verdict
            failed = sum(r.get("status") != "ok" for r in rows)
            trial.set_constraint("runs_ok", float(failed))
            for c, v in zip(self.goals.constraints, verdict.constraint_violations):
                trial.set_constraint(c.text, v)
            values = [
                v if v is not None else self._placeholder(i) for i, v in enumerate(verdict.values)
            ]
            self.study.tell(trial, values)
        return verdict

    def _note(self, params: dict[str, Any], verdict: TrialVerdict) -> None:
        signs = [o.sign for o in self.goals.objectives]
        for i, v in enumerate(verdict.values):
            if v is not None and math.isfinite(v):
                w = self._worst[i]
                self._worst[i] = v if w is None or signs[i] * v > signs[i] * w else w
        # the centre of grid refinement: feasible first (objective), then least violation
        if verdict.feasible:
            score: tuple[float, ...] = (0.0, *(s * float(v) for s, v in zip(signs, verdict.values)))  # type: ignore[arg-type]
        else:
            score = (1.0, verdict.violation)
        if self._best is None or score < self._best[0]:
            self._best = (score, params)

    def _placeholder(self, i: int) -> float:
        w = self._worst[i]
        return 0.0 if w is None else float(w)
