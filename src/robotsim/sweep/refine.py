"""``sampler: grid-refine``: successive grid refinement around the best point.

What it is, exactly (a deterministic pattern search, no model of the objective):

1. **Level 0**: a grid over the whole box, every combination of ``n0`` values per
   parameter (a ``range``'s ``num``, else 3, evenly spaced from start to stop; a
   ``loguniform`` parameter evenly in log space; ``integers`` rounded; ``values``: all
   of them).
2. **Level k >= 1**: around the best trial so far (the best feasible objective; with
   none feasible yet, the smallest total violation), every combination of
   ``{x - h_k, x, x + h_k}`` per numeric parameter with ``h_k = h_0 / 2^k`` (``h_0`` the
   level-0 spacing), clipped to the box and rounded to the parameter's ``step`` or to
   integers; choices stay at the best trial's value. Points already run are skipped.
3. It stops when the spacing of every numeric parameter is below its resolution (half
   a ``step``, half an integer, or 1e-6 of the range) or when the budget is spent.

Each level is chosen from the finished results of the one before, so the workers wait
at the end of a level (a synchronous method, unlike TPE and CMA-ES). It finds the best
basin of the level-0 grid and refines inside it: with a coarse first grid it can miss a
narrow optimum between grid points.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Axis", "GridRefine", "axes_of", "coarse_grid_size"]

DEFAULT_POINTS = 3


@dataclass(frozen=True)
class Axis:
    """One parameter as grid refinement sees it: ``kind`` is ``float``, ``log``, ``int``
    or ``choice``; ``lo``/``hi`` the box (log space for ``log``); ``step`` the
    quantum (0: none); ``n0`` the level-0 count; ``choices`` for ``choice``."""

    name: str
    kind: str
    lo: float = 0.0
    hi: float = 0.0
    step: float = 0.0
    n0: int = DEFAULT_POINTS
    choices: tuple[Any, ...] = ()

    def level0(self) -> list[Any]:
        if self.kind == "choice":
            return list(self.choices)
        if self.n0 == 1:
            return [self.value((self.lo + self.hi) / 2)]
        raw = [self.lo + (self.hi - self.lo) * i / (self.n0 - 1) for i in range(self.n0)]
        return _unique(self.value(x) for x in raw)

    @property
    def h0(self) -> float:
        return (self.hi - self.lo) / max(self.n0 - 1, 1)

    def internal(self, value: Any) -> float:
        return math.log(float(value)) if self.kind == "log" else float(value)

    def value(self, x: float) -> Any:
        """An internal coordinate -> the parameter value (clipped, rounded)."""
        x = min(max(x, self.lo), self.hi)
        if self.kind == "log":
            return math.exp(x)
        if self.kind == "int":
            return round(x)
        if self.step > 0:
            k = round((x - self.lo) / self.step)
            return min(self.lo + k * self.step, self.hi)
        return x

    def resolution(self) -> float:
        if self.kind == "int":
            return 0.5
        if self.step > 0:
            return self.step / 2
        return 1e-6 * (self.hi - self.lo)


def _unique(values: Any) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def _axis(name: str, p: Any) -> Axis:
    """A :class:`~robotsim.sweep.schema.ParameterSpec` as an axis."""
    if p.values is not None:
        return Axis(name, "choice", choices=tuple(p.values))
    if p.range is not None:
        n0 = p.range.num or DEFAULT_POINTS
        return Axis(name, "float", p.range.start, p.range.stop, p.range.step or 0.0, n0)
    r = p.random
    assert r is not None and r.low is not None and r.high is not None
    if r.distribution == "loguniform":
        return Axis(name, "log", math.log(r.low), math.log(r.high))
    if r.distribution == "integers":
        n0 = min(DEFAULT_POINTS, int(r.high) - int(r.low) + 1)
        return Axis(name, "int", float(int(r.low)), float(int(r.high)), n0=max(n0, 1))
    return Axis(name, "float", r.low, r.high)


def axes_of(spec: Any) -> list[Axis]:
    """The axes of a :class:`~robotsim.sweep.schema.SweepSpec` (which imports this
    module, so it is not named here)."""
    return [_axis(n, p) for n, p in spec.parameters.items()]


def coarse_grid_size(spec: Any) -> int:
    """The number of points of grid refinement's level 0."""
    return math.prod(len(a.level0()) for a in axes_of(spec))


def _key(params: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(round(v, 12) if isinstance(v, float) else v for v in params.values())


@dataclass
class GridRefine:
    """The point generator (module doc). :meth:`next_level` gives the next level's new
    points from the best trial so far; ``[]`` when it has converged."""

    spec: Any  # a SweepSpec
    level: int = -1
    seen: set[tuple[Any, ...]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.axes = axes_of(self.spec)

    def mark(self, params: dict[str, Any]) -> None:
        """A point already run (a resumed study): never proposed again."""
        self.seen.add(_key(params))

    def next_level(self, best: dict[str, Any] | None) -> list[dict[str, Any]]:
        """The new points of the next level (level 0 first; later levels around
        ``best``, the parameters of the best trial so far)."""
        while True:
            self.level += 1
            if self.level == 0:
                grid = [a.level0() for a in self.axes]
            else:
                if best is None:
                    return []
                numeric = [a for a in self.axes if a.kind != "choice"]
                scale = 2.0**-self.level
                if all(a.h0 * scale < a.resolution() for a in numeric):
                    return []  # converged: finer than every parameter's resolution
                grid = []
                for a in self.axes:
                    if a.kind == "choice":
                        grid.append([best[a.name]])
                        continue
                    x, h = a.internal(best[a.name]), a.h0 * scale
                    grid.append(_unique(a.value(x + d) for d in (-h, 0.0, h)))
            names = [a.name for a in self.axes]
            points = [dict(zip(names, combo)) for combo in itertools.product(*grid)]
            new = [p for p in points if _key(p) not in self.seen]
            for p in new:
                self.seen.add(_key(p))
            if new:
                return new
