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
    "ParameterSpec",
    "RandomSpec",
    "RangeSpec",
    "SweepSpec",
    "load_sweep_data",
    "parse_sweep",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RangeSpec(_Strict):
    """Evenly spaced values from ``start`` to ``stop`` (inclusive): ``num`` of them, or
    every ``step``."""

    start: float
    stop: float
    num: int | None = Field(None, ge=1)
    step: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _one_way(self) -> RangeSpec:
        if (self.num is None) == (self.step is None):
            raise ValueError("give exactly one of num or step")
        if self.step is not None and self.stop < self.start:
            raise ValueError(f"empty range: stop {self.stop} < start {self.start}")
        return self

    def values(self) -> list[float]:
        if self.num is not None:
            if self.num == 1:
                return [self.start]
            return [
                self.start + (self.stop - self.start) * i / (self.num - 1) for i in range(self.num)
            ]
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
        return self

    @property
    def paths(self) -> list[str]:
        return [self.path] if isinstance(self.path, str) else list(self.path)


class SweepSpec(_Strict):
    format: str = "robotsim-sweep/1"
    kind: Literal["sweep"]
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = ""
    base: str
    set: dict[str, Any] = Field(default_factory=dict)
    mode: Literal["physics", "kinematic"] | None = None
    design: Literal["grid", "zip", "random"] = "grid"
    parameters: dict[str, ParameterSpec] = Field(min_length=1)
    samples: int | None = Field(None, ge=1)
    seed: int = 0
    repeats: int = Field(1, ge=1)
    metrics: dict[str, str] = Field(default_factory=dict)
    success: str | None = None
    plots: list[dict[str, Any]] = Field(default_factory=list)

    @model_validator(mode="after")
    def _design(self) -> SweepSpec:
        if self.design == "random" and self.samples is None:
            raise ValueError("design random needs samples: N")
        if self.design != "random" and self.samples is not None:
            raise ValueError(f"samples is for the random design, not {self.design}")
        if self.design != "random":
            for name, p in self.parameters.items():
                if p.random is not None and p.random.count is None:
                    raise ValueError(
                        f"parameters.{name}.random: give count (draws) in a {self.design} design"
                    )
        clash = set(self.parameters) & set(self.metrics)
        reserved = {"run_key", "point", "repeat", "status", "error", "run_id", "wall_time_s"}
        bad = (set(self.parameters) | set(self.metrics)) & reserved
        if clash or bad:
            raise ValueError(f"column names used twice or reserved: {sorted(clash | bad)}")
        return self


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
