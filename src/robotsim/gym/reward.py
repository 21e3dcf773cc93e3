"""Rewards named by metric paths: every task computes a dict of metrics at each step
(``goal_distance``, ``progress``, ``upright``...; nested dicts allowed), and the reward
is one of them or a weighted sum.

- ``"progress"``: the metric ``progress``;
- ``"-goal_distance"``: minus it;
- ``"robot.height"``: a nested metric (a dotted path);
- ``{"progress": 1.0, "collisions": -5.0}``: a weighted sum.

An unknown path is refused when the environment is made, naming the metrics there are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from robotsim.errors import InputError

__all__ = ["RewardSpec", "metric_paths"]


def metric_paths(metrics: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Every leaf path of a metrics dict (``a.b`` for nested ones)."""
    out = []
    for k, v in metrics.items():
        path = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out += metric_paths(v, path + ".")
        else:
            out.append(path)
    return out


def _get(metrics: Mapping[str, Any], path: str) -> float:
    node: Any = metrics
    for part in path.split("."):
        node = node[part]
    return float(node)


@dataclass(frozen=True)
class RewardSpec:
    """``terms``: ``(path, weight)`` pairs; the reward is ``sum(weight * metric)``."""

    terms: tuple[tuple[str, float], ...]

    @classmethod
    def parse(cls, spec: str | Mapping[str, float]) -> RewardSpec:
        if isinstance(spec, str):
            s = spec.strip()
            sign = -1.0 if s.startswith("-") else 1.0
            path = s.lstrip("+-").strip()
            if not path:
                raise InputError(f"reward {spec!r}: name a metric, e.g. 'progress'")
            return cls(((path, sign),))
        if isinstance(spec, Mapping) and spec:
            terms = []
            for k, w in spec.items():
                try:
                    terms.append((str(k), float(w)))
                except (TypeError, ValueError):
                    raise InputError(f"reward {k!r}: weight must be a number, got {w!r}") from None
            return cls(tuple(terms))
        raise InputError(f"reward {spec!r}: a metric path or a {{metric: weight}} mapping")

    def check(self, metrics: Mapping[str, Any]) -> None:
        """Refuse paths the task does not compute (listing those it does)."""
        valid = metric_paths(metrics)
        for path, _ in self.terms:
            if path not in valid:
                raise InputError(f"reward: unknown metric {path!r}; valid: {', '.join(valid)}")

    def __call__(self, metrics: Mapping[str, Any]) -> float:
        return float(sum(w * _get(metrics, p) for p, w in self.terms))
