"""Sweep designs: parameters -> the list of runs (:class:`RunTask`).

- ``grid``: every combination (the first parameter varies slowest);
- ``zip``: the i-th value of every parameter together (equal lengths);
- ``random``: ``samples`` points, each parameter drawn independently: ``random:`` from its
  distribution, ``range:`` uniformly between start and stop, ``values:`` one of them.

Every random draw comes from ``numpy.random.default_rng([seed, i])`` with ``i`` the
parameter's position in the file, so the runs of a sweep file are the same on every
machine and executor. Each point runs ``repeats`` times; repeat ``r`` runs with
``--seed r`` when ``repeats > 1``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robotsim.errors import ScenarioError
from robotsim.sweep.schema import ParameterSpec, RandomSpec, SweepSpec

__all__ = ["RunTask", "design_digest", "expand", "first_point"]


@dataclass(frozen=True)
class RunTask:
    """One run of a sweep: its key (``p00012-r0``), the parameter values by column
    name, the ``--set`` overrides they become and the run seed (``None``: the file's)."""

    key: str
    point: int
    repeat: int
    params: dict[str, Any]
    overrides: tuple[str, ...]
    seed: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _py(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _draw(spec: RandomSpec, rng: np.random.Generator, n: int) -> list[Any]:
    if spec.distribution == "uniform":
        out = rng.uniform(spec.low, spec.high, n)
    elif spec.distribution == "loguniform":
        out = np.exp(rng.uniform(np.log(spec.low), np.log(spec.high), n))
    elif spec.distribution == "normal":
        out = rng.normal(spec.mean, spec.std, n)
    else:
        out = rng.integers(int(spec.low), int(spec.high), n, endpoint=True)  # type: ignore[arg-type]
    return [_py(x) for x in out]


def _values(p: ParameterSpec, rng: np.random.Generator) -> list[Any]:
    if p.values is not None:
        return list(p.values)
    if p.range is not None:
        return p.range.values()
    assert p.random is not None and p.random.count is not None
    return _draw(p.random, rng, p.random.count)


def _sample(p: ParameterSpec, rng: np.random.Generator, n: int) -> list[Any]:
    if p.random is not None:
        return _draw(p.random, rng, n)
    if p.range is not None:
        return [_py(x) for x in rng.uniform(p.range.start, p.range.stop, n)]
    assert p.values is not None
    return [p.values[int(i)] for i in rng.integers(0, len(p.values), n)]


def _points(spec: SweepSpec, source: str) -> list[dict[str, Any]]:
    names = list(spec.parameters)
    rngs = [np.random.default_rng([spec.seed, i]) for i in range(len(names))]
    if spec.design == "random":
        assert spec.samples is not None
        cols = [_sample(spec.parameters[n], r, spec.samples) for n, r in zip(names, rngs)]
        return [dict(zip(names, row)) for row in zip(*cols)]
    cols = [_values(spec.parameters[n], r) for n, r in zip(names, rngs)]
    for n, c in zip(names, cols):
        if not c:
            raise ScenarioError(f"{source}: parameters.{n}: no values (empty range)")
    if spec.design == "zip":
        lengths = {n: len(c) for n, c in zip(names, cols)}
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"{n}={k}" for n, k in lengths.items())
            raise ScenarioError(
                f"{source}: design zip: every parameter needs as many values ({shown})"
            )
        return [dict(zip(names, row)) for row in zip(*cols)]
    return [dict(zip(names, row)) for row in itertools.product(*cols)]


def overrides_for(spec: SweepSpec, params: dict[str, Any]) -> tuple[str, ...]:
    """``--set`` strings (values as JSON, which YAML reads back exactly)."""
    out = [f"{k}={json.dumps(v, allow_nan=False)}" for k, v in spec.set.items()]
    for name, value in params.items():
        out += [
            f"{path}={json.dumps(value, allow_nan=False)}" for path in spec.parameters[name].paths
        ]
    return tuple(out)


def expand(spec: SweepSpec, source: str = "<sweep>") -> list[RunTask]:
    """Every run of the sweep, in order (points x repeats)."""
    tasks = []
    for i, params in enumerate(_points(spec, source)):
        ov = overrides_for(spec, params)
        for r in range(spec.repeats):
            seed = r if spec.repeats > 1 else None
            tasks.append(RunTask(f"p{i:05d}-r{r}", i, r, params, ov, seed))
    return tasks


def design_digest(tasks: list[RunTask]) -> str:
    """A short hash of the runs (keys and overrides): ``--resume`` refuses another file."""
    h = hashlib.sha256()
    for t in tasks:
        h.update(f"{t.key}|{'|'.join(t.overrides)}|{t.seed}\n".encode())
    return h.hexdigest()[:16]


def first_point(spec: SweepSpec) -> dict[str, Any]:
    """A point of the design without expanding it (an optimiser's, which has no list):
    each parameter's first value, range start or lower bound; checked against the base
    scenario before anything runs."""
    out: dict[str, Any] = {}
    for name, p in spec.parameters.items():
        if p.values is not None:
            out[name] = p.values[0]
        elif p.range is not None:
            out[name] = p.range.start
        else:
            assert p.random is not None
            r = p.random
            low = r.mean if r.low is None else r.low
            out[name] = int(low) if r.distribution == "integers" else low  # type: ignore[arg-type]
    return out
