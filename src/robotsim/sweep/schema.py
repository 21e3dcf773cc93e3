"""Sweep files (``kind: sweep``): a base scenario, parameters, a design, metrics.

::

    format: robotsim-sweep/1
    kind: sweep
    name: pid_gains
    base: pid_p_vs_pd              # a scenario file (relative to this file) or a name
    set: {duration: 20}            # fixed overrides, the same dotted paths as --set
    design: grid                   # grid | zip | random
    parameters:
      kp: {path: [robots.1.controller.gains.x.kp, robots.1.controller.gains.y.kp],
           values: [0.5, 1, 2, 4]}
      kd: {path: robots.1.controller.gains.x.kd, range: {start: 0, stop: 1, num: 5}}
      mu: {path: contact.mu, random: {distribution: uniform, low: 0.3, high: 1.2, count: 4}}
    samples: 200                   # random design: number of points
    seed: 0                        # seeds every random draw of the design
    repeats: 1                     # runs per point (repeat r runs with --seed r)
    metrics:                       # column -> path into the run's summary JSON
      time_to_goal: robots.PD.time_to_goal
    success: robots.PD.reached_goal   # optional: a metric path that is true on success

``design: optimize`` searches the parameters' box instead (``range: {start, stop}``,
``random: {distribution, low, high}``, ``values``) for ``objective: {metric, goal}``
(one or a list), under ``constraints: ["overshoot <= 0.05", ...]``, within ``budget:
{runs, time}``, with ``sampler: tpe|cmaes|random|grid-refine|nsga2``
(:mod:`robotsim.sweep.study`).

Errors name the sweep file and the field (``parameters.kd.range.num``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from robotsim.errors import ScenarioError
from robotsim.validation import read_yaml_file, validate_as

__all__ = [
    "MAX_SWEEP_RUNS",
    "SAMPLERS",
    "BudgetSpec",
    "ObjectiveSpec",
    "ParameterSpec",
    "RandomSpec",
    "RangeSpec",
    "SweepSpec",
    "load_sweep_data",
    "parse_sweep",
]


#: The most runs (points x repeats) one sweep file may expand to: a typo such as
#: ``count: 1000000000`` is refused before the list of runs is built.
MAX_SWEEP_RUNS = 1_000_000


def _finite_json(v: Any, where: str) -> None:
    """A value written into a scenario: no NaN or infinity anywhere inside it."""
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError(f"{where}: {v} is not a finite number")
    if isinstance(v, dict):
        for k, x in v.items():
            _finite_json(x, f"{where}.{k}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            _finite_json(x, f"{where}.{i}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class RangeSpec(_Strict):
    """Evenly spaced values from ``start`` to ``stop`` (inclusive): ``num`` of them, or
    every ``step``."""

    start: float
    stop: float
    num: int | None = Field(None, ge=1)
    step: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _one_way(self) -> RangeSpec:
        if self.num is not None and self.step is not None:
            raise ValueError("give exactly one of num or step")
        if self.step is not None and self.stop < self.start:
            raise ValueError(f"empty range: stop {self.stop} < start {self.start}")
        if not math.isfinite(self.stop - self.start):
            raise ValueError(f"stop - start overflows ({self.start:g} to {self.stop:g})")
        return self

    def count(self) -> float:
        """How many values :meth:`values` gives (a float: it may be astronomically many)."""
        if self.num is not None:
            return float(self.num)
        if self.step is None:
            return 0.0
        return math.floor((self.stop - self.start) / self.step + 1e-9) + 1.0

    def values(self) -> list[float]:
        if self.num is None and self.step is None:
            raise ValueError("give exactly one of num or step")
        if self.num is not None:
            if self.num == 1:
                return [self.start]
            span, last = self.stop - self.start, self.num - 1
            out = [self.start + span * i / last for i in range(self.num)]
            if not all(map(math.isfinite, out)):  # span * i overflowed: 1e308 to -1e308
                out = [self.start + span * (i / last) for i in range(self.num)]
            return out
        assert self.step is not None
        n = math.floor((self.stop - self.start) / self.step + 1e-9) + 1
        return [self.start + i * self.step for i in range(n)]


class RandomSpec(_Strict):
    """Random draws from the sweep's seed: ``uniform``/``loguniform`` in [low, high),
    ``normal`` (mean, std), ``integers`` in [low, high]. ``count`` draws in grid/zip
    designs; one draw per point in the random design."""

    distribution: Literal["uniform", "loguniform", "normal", "integers"] = "uniform"
    low: float | None = None
    high: float | None = None
    mean: float | None = None
    std: float | None = Field(None, ge=0)
    count: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _params(self) -> RandomSpec:
        if self.distribution == "normal":
            if self.mean is None or self.std is None:
                raise ValueError("normal needs mean and std")
        else:
            if self.low is None or self.high is None:
                raise ValueError(f"{self.distribution} needs low and high")
            if self.high < self.low or (self.high == self.low and self.distribution != "integers"):
                raise ValueError(f"empty range: high {self.high} <= low {self.low}")
            if not math.isfinite(self.high - self.low):
                raise ValueError(f"high - low overflows ({self.low:g} to {self.high:g})")
            if self.distribution == "loguniform" and self.low <= 0:
                raise ValueError("loguniform needs low > 0")
        return self


class ParameterSpec(_Strict):
    """One swept value, written to one or more dotted paths of the base scenario."""

    path: str | list[str]
    values: list[Any] | None = None
    range: RangeSpec | None = None
    random: RandomSpec | None = None

    @field_validator("path")
    @classmethod
    def _paths(cls, v: str | list[str]) -> str | list[str]:
        paths = [v] if isinstance(v, str) else v
        if not paths or any(not all(part.strip() for part in p.split(".")) for p in paths):
            raise ValueError("a dotted path like robots.0.controller.gains.x.kp")
        return v

    @model_validator(mode="after")
    def _one_source(self) -> ParameterSpec:
        given = [k for k in ("values", "range", "random") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of values, range or random")
        if self.values is not None and not self.values:
            raise ValueError("values: empty list")
        if self.values is not None:
            _finite_json(self.values, "values")
        return self

    def count(self) -> float:
        """How many values a grid or zip design takes from this parameter."""
        if self.values is not None:
            return float(len(self.values))
        if self.range is not None:
            return self.range.count()
        assert self.random is not None
        return float(self.random.count or 0)

    @property
    def paths(self) -> list[str]:
        return [self.path] if isinstance(self.path, str) else list(self.path)


class ObjectiveSpec(_Strict):
    """``{metric: NAME_OR_PATH, goal: minimize|maximize}``: a metrics column of the file
    or a dotted path into the run's summary."""

    metric: str = Field(min_length=1)
    goal: Literal["minimize", "maximize"] = "minimize"


class BudgetSpec(_Strict):
    """How much an optimiser may spend: ``runs`` (at most this many runs, repeats
    included) and/or ``time`` (wall seconds of the sweep command, resumes added up;
    runs under way when it runs out are finished)."""

    runs: int | None = Field(None, ge=1, le=1_000_000)
    time: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _some(self) -> BudgetSpec:
        if self.runs is None and self.time is None:
            raise ValueError("give runs: N and/or time: SECONDS (an optimiser needs a budget)")
        return self


#: Optimisers of ``design: optimize`` (docs/sweeps.md): Optuna's TPE, CMA-ES (through
#: the ``cmaes`` package), random search and NSGA-II, and our own grid refinement.
SAMPLERS = ("tpe", "cmaes", "random", "grid-refine", "nsga2")
_RESERVED = {
    "run_key", "point", "repeat", "status", "error", "run_id", "wall_time_s", "worker",
    "summary", "success", "trial", "best_so_far", "pareto", "feasible",
}  # fmt: skip


class SweepSpec(_Strict):
    format: Literal["robotsim-sweep/1"] = "robotsim-sweep/1"
    kind: Literal["sweep"]
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = ""
    base: str
    set: dict[str, Any] = Field(default_factory=dict)
    mode: Literal["physics", "kinematic"] | None = None
    design: Literal["grid", "zip", "random", "optimize"] = "grid"
    parameters: dict[str, ParameterSpec] = Field(min_length=1)
    samples: int | None = Field(None, ge=1)
    seed: int = Field(0, ge=0)
    repeats: int = Field(1, ge=1)
    metrics: dict[str, str] = Field(default_factory=dict)
    success: str | None = None
    objective: ObjectiveSpec | list[ObjectiveSpec] | None = None
    constraints: list[str] = Field(default_factory=list)
    budget: BudgetSpec | None = None
    sampler: Literal["tpe", "cmaes", "random", "grid-refine", "nsga2"] | None = None
    plots: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def objectives(self) -> list[ObjectiveSpec]:
        if self.objective is None:
            return []
        return list(self.objective) if isinstance(self.objective, list) else [self.objective]

    @model_validator(mode="after")
    def _design(self) -> SweepSpec:
        if self.design != "optimize":
            for key in ("budget", "sampler"):
                if getattr(self, key) is not None:
                    raise ValueError(f"{key}: for design: optimize, not {self.design}")
        from robotsim.sweep.goals import parse_constraint

        for i, text in enumerate(self.constraints):
            try:
                parse_constraint(text)
            except ValueError as exc:
                raise ValueError(f"constraints.{i}: {exc}") from None
        if self.design == "random" and self.samples is None:
            raise ValueError("samples: design random needs samples: N")
        if self.design != "random" and self.samples is not None:
            raise ValueError(f"samples: for the random design, not {self.design}")
        if self.design in ("grid", "zip"):
            for name, p in self.parameters.items():
                if p.random is not None and p.random.count is None:
                    raise ValueError(
                        f"parameters.{name}.random: give count (draws) in a {self.design} design"
                    )
                if p.range is not None and p.range.num is None and p.range.step is None:
                    raise ValueError(
                        f"parameters.{name}.range: give num or step (the values of a "
                        f"{self.design} design)"
                    )
        _finite_json(self.set, "set")
        self._check_size()
        clash = set(self.parameters) & set(self.metrics)
        bad = (set(self.parameters) | set(self.metrics)) & _RESERVED
        if clash or bad:
            raise ValueError(f"column names used twice or reserved: {sorted(clash | bad)}")
        if self.constraints and not self.objectives:
            raise ValueError("constraints: they need an objective: {metric: ..., goal: ...}")
        if self.design == "optimize":
            self._check_optimize()
        return self

    def _check_size(self) -> None:
        """Refuse a design of more than :data:`MAX_SWEEP_RUNS` runs before expanding it."""
        if self.design == "optimize":
            return
        counts = {name: p.count() for name, p in self.parameters.items()}
        if self.design == "random":
            points, what = float(self.samples or 0), "samples"
        elif self.design == "zip":
            points, what = max(counts.values()), "the longest parameter"
        else:
            points, what = math.prod(counts.values()), "the product of the parameters' values"
        runs = points * self.repeats
        if runs > MAX_SWEEP_RUNS:
            shown = ", ".join(f"{n}: {c:.3g}" for n, c in counts.items())
            raise ValueError(
                f"the design has {runs:.3g} runs ({what} x repeats {self.repeats}; values "
                f"per parameter {shown}), more than the {MAX_SWEEP_RUNS:,} a sweep may hold; "
                "give fewer values, a larger step, a smaller count, samples or repeats"
            )

    def _check_optimize(self) -> None:
        objs = self.objectives
        if not objs:
            raise ValueError("objective: design optimize needs one: {metric: M, goal: minimize}")
        if self.budget is None:
            raise ValueError("budget: design optimize needs one: {runs: N} and/or {time: S}")
        if len({o.metric for o in objs}) != len(objs):
            raise ValueError("objective: the same metric twice")
        sampler = self.sampler_name
        if len(objs) > 1 and sampler in ("cmaes", "grid-refine"):
            raise ValueError(
                f"sampler: {sampler} optimises one objective; with {len(objs)} use nsga2, "
                "tpe or random"
            )
        for name, p in self.parameters.items():
            where = f"parameters.{name}"
            if p.random is not None and p.random.distribution == "normal":
                raise ValueError(
                    f"{where}.random: an optimiser needs bounds; give uniform, loguniform "
                    "or integers (low, high), or a range"
                )
            if p.values is not None:
                if sampler == "cmaes":
                    raise ValueError(
                        f"{where}.values: sampler cmaes needs numbers in a range; give "
                        "range: {start, stop} (or use tpe, random, grid-refine)"
                    )
                bad = [v for v in p.values if not isinstance(v, (int, float, str, bool))]
                if bad:
                    raise ValueError(
                        f"{where}.values: an optimiser's choices are numbers, strings or "
                        f"true/false, not {bad[0]!r}"
                    )
            if p.range is not None and p.range.stop <= p.range.start:
                raise ValueError(
                    f"{where}.range: stop {p.range.stop} must be above start {p.range.start}"
                )
        budget = self.budget
        assert budget is not None
        if budget.runs is not None:
            if budget.runs < self.repeats:
                raise ValueError(
                    f"budget.runs: {budget.runs} runs cannot hold one trial of "
                    f"{self.repeats} repeats"
                )
            need, what = self.min_runs()
            if budget.runs < need:
                raise ValueError(f"budget.runs: {budget.runs} is too few for {what}")

    def metric_columns(self) -> dict[str, str]:
        """Every metrics column -> its summary path: the file's ``metrics``, then each
        objective or constraint metric that is not one of them (named by its path)."""
        from robotsim.sweep.goals import parse_constraint

        cols = dict(self.metrics)
        names = [o.metric for o in self.objectives]
        names += [parse_constraint(c)[0] for c in self.constraints]
        for name in names:
            if name not in cols:
                cols[name] = name
        return cols

    def goals(self) -> Any:
        """The objectives and constraints as :class:`robotsim.sweep.goals.Goals`."""
        from robotsim.sweep.goals import Constraint, Goals, Objective, parse_constraint

        cols = self.metric_columns()
        objs = tuple(Objective(o.metric, cols[o.metric], o.goal) for o in self.objectives)
        cons = []
        for text in self.constraints:
            name, op, bound = parse_constraint(text)
            cons.append(Constraint(name, cols[name], op, bound, text.strip()))
        return Goals(objs, tuple(cons))

    @property
    def sampler_name(self) -> str:
        """The optimiser: the file's ``sampler``, else tpe (nsga2 for several objectives)."""
        if self.sampler is not None:
            return self.sampler
        return "nsga2" if len(self.objectives) > 1 else "tpe"

    def min_runs(self) -> tuple[int, str]:
        """``(runs, what)``: the fewest runs the sampler can work with, and why."""
        sampler = self.sampler_name
        n = len(self.parameters)
        r = self.repeats
        if sampler == "cmaes":
            if n < 2:
                return 2**62, "sampler cmaes, which needs 2 or more parameters (use tpe)"
            pop = 4 + math.floor(3 * math.log(n))  # CMA-ES's default population
            return pop * r, f"one CMA-ES generation ({pop} trials x {r} run(s), {n} parameters)"
        if sampler == "grid-refine":
            from robotsim.sweep.refine import coarse_grid_size

            size = coarse_grid_size(self)
            return size * r, f"grid-refine's first grid ({size} points x {r} run(s))"
        return r, "one trial"


def load_sweep_data(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    if not p.is_file():
        raise ScenarioError(f"{p}: no such sweep file")
    data = read_yaml_file(p, ScenarioError)
    if not isinstance(data, dict):
        raise ScenarioError(f"{p}: a sweep file must be a mapping with 'kind: sweep'")
    return data


def parse_sweep(data: dict[str, Any], source: str) -> SweepSpec:
    """Validate a sweep mapping; ScenarioError ``FILE: field.path: problem`` otherwise."""
    return validate_as(SweepSpec, data, source, ScenarioError)
