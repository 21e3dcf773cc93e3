"""Run one fuzz case and judge it: a result or a one-line RobotsimError, nothing else.

Every case runs in this process (fast: no interpreter start per case) with a limit of
60 s of this process's CPU time (wall time on a shared machine says more about the
neighbours than about the input) and a check that the process's peak memory did not
grow past the budget
(:func:`robotsim.budget.current_budget`). A failure keeps the input's label, so the seed
and index reproduce it.
"""

from __future__ import annotations

import resource
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from robotsim.budget import current_budget
from robotsim.errors import RobotsimError

MAX_SECONDS = 60.0


@dataclass
class Verdicts:
    ok: int = 0
    errors: int = 0
    failures: list[str] = field(default_factory=list)

    def check(self, label: str, fn: Callable[[], Any]) -> None:
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        t0 = time.process_time()
        try:
            fn()
            self.ok += 1
        except RobotsimError as exc:
            msg = str(exc)
            if "\n" in msg.strip() or not msg.strip():
                self.failures.append(f"{label}: error message is not one line: {msg!r}")
            self.errors += 1
        except Exception as exc:  # everything else is a bug the fuzz run found
            tb = traceback.format_exception(exc)[-3:]
            self.failures.append(f"{label}: {type(exc).__name__}: {exc} :: {''.join(tb)[-600:]}")
        took = time.process_time() - t0
        if took > MAX_SECONDS:
            self.failures.append(f"{label}: took {took:.0f} s (limit {MAX_SECONDS:.0f} s)")
        grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss0
        if grew > current_budget():
            self.failures.append(f"{label}: peak memory grew by {grew / 2**30:.1f} GB")

    def assert_clean(self) -> None:
        shown = "\n".join(self.failures[:10])
        assert not self.failures, f"{len(self.failures)} fuzz failures:\n{shown}"
        assert self.ok + self.errors > 0
