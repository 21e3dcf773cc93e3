"""Numbers the documentation quotes, read from the page, so a test holds them to what a
run gives (docs that cannot drift: change the behaviour and the page must follow).

``quoted(page, pattern)`` finds ``pattern`` (a regular expression whose spaces match
any whitespace, a line break included) in ``docs/PAGE`` and returns its groups as
:class:`Quoted` numbers; ``Quoted.holds(value)`` says whether ``value`` rounds to the
quoted figure (half a unit of its last digit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tests.paths import REPO

__all__ = ["Quoted", "quoted"]


@dataclass(frozen=True)
class Quoted:
    text: str

    @property
    def value(self) -> float:
        return float(self.text)

    @property
    def half_unit(self) -> float:
        mantissa = self.text.lower().split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        exp = int(self.text.lower().split("e")[1]) if "e" in self.text.lower() else 0
        return 0.5 * 10.0 ** (exp - decimals)

    def holds(self, value: float) -> bool:
        return abs(value - self.value) <= self.half_unit * (1 + 1e-9)


def quoted(page: str, pattern: str) -> tuple[Quoted, ...]:
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    rx = re.sub(r"(\\ |\s)+", r"\\s+", pattern)
    m = re.search(rx, text)
    if m is None:
        raise AssertionError(f"docs/{page} no longer quotes {pattern!r}")
    return tuple(Quoted(g) for g in m.groups())
