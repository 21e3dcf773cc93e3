"""Parameter sweeps: one base scenario, many runs, on the local cores or a Dask cluster.

See ``docs/sweeps.md``. The modules: :mod:`~robotsim.sweep.schema` (sweep files),
:mod:`~robotsim.sweep.design` (grid/zip/random -> runs), :mod:`~robotsim.sweep.targets`
(base scenarios), :mod:`~robotsim.sweep.worker` (one run -> one row),
:mod:`~robotsim.sweep.executors` (process pool, Dask), :mod:`~robotsim.sweep.results`
(run log, CSV/Parquet), :mod:`~robotsim.sweep.engine` (the loop),
:mod:`~robotsim.sweep.report` (figures).
"""

from robotsim.sweep.design import RunTask as RunTask
from robotsim.sweep.design import expand as expand
from robotsim.sweep.engine import LoadedSweep as LoadedSweep
from robotsim.sweep.engine import SweepOutcome as SweepOutcome
from robotsim.sweep.engine import load_sweep as load_sweep
from robotsim.sweep.engine import run_sweep as run_sweep
from robotsim.sweep.results import read_meta as read_meta
from robotsim.sweep.results import read_rows as read_rows
from robotsim.sweep.schema import SweepSpec as SweepSpec

__all__ = [
    "LoadedSweep",
    "RunTask",
    "SweepOutcome",
    "SweepSpec",
    "expand",
    "load_sweep",
    "read_meta",
    "read_rows",
    "run_sweep",
]
