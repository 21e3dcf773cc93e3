"""Where the runs of a sweep execute: a local process pool or a Dask distributed cluster.

Both take the same picklable :func:`robotsim.sweep.worker.run_one` and yield result rows
as runs finish, in completion order (``map_unordered``), or take runs one at a time
(``submit``) and hand back the next finished one (``next_done``), which the optimiser
uses to keep every worker busy while it chooses the next runs. ``stop()`` cancels what
has not started (Ctrl-C).

- :class:`LocalPool`: ``concurrent.futures`` processes (spawned, SIGINT ignored so a
  Ctrl-C reaches only the driver, which then stops them).
- :class:`DaskCluster`: a running scheduler (``tcp://HOST:PORT``) or ``local:N`` (a
  ``distributed.LocalCluster`` of N one-thread worker processes on 127.0.0.1, without
  Dask's task profiler). Joining it prepares every worker once (the imports a run
  needs). The scheduler re-runs the tasks of a worker that dies on the other workers;
  each task's row comes back once, so no run is lost or counted twice.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from robotsim.errors import InputError, RobotsimError

__all__ = ["ClusterError", "DaskCluster", "InProcess", "LocalPool", "make_executor"]


class ClusterError(RobotsimError):
    """A Dask cluster cannot be reached or cannot run robotsim."""


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalPool:
    """``workers`` processes on this machine (default: one per core)."""

    def __init__(self, workers: int | None = None) -> None:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        self.workers = int(workers or os.cpu_count() or 1)
        if self.workers < 1:
            raise InputError(f"--workers must be >= 1, got {workers}")
        self.address = f"local pool of {self.workers}"
        self._pool = ProcessPoolExecutor(
            max_workers=self.workers, mp_context=mp.get_context("spawn"), initializer=_ignore_sigint
        )
        self._futures: list[Any] = []
        self._pending: set[Any] = set()
        self._done: list[Any] = []

    def map_unordered(
        self, fn: Callable[..., Any], job: Any, tasks: Sequence[Any]
    ) -> Iterator[Any]:
        from concurrent.futures import as_completed

        self._futures = [self._pool.submit(fn, job, t) for t in tasks]
        for fut in as_completed(self._futures):
            yield fut.result()

    def submit(self, fn: Callable[..., Any], job: Any, task: Any) -> None:
        """Queue one run (its row comes back through :meth:`next_done`)."""
        fut = self._pool.submit(fn, job, task)
        self._futures.append(fut)
        self._pending.add(fut)

    @property
    def in_flight(self) -> int:
        """Runs submitted whose rows :meth:`next_done` has not returned yet."""
        return len(self._pending) + len(self._done)

    def next_done(self) -> Any:
        """The row of the next run to finish (blocks until one has)."""
        from concurrent.futures import FIRST_COMPLETED, wait

        if not self._done:
            done, _ = wait(self._pending, return_when=FIRST_COMPLETED)
            self._pending -= done
            self._done.extend(done)
        fut = self._done.pop(0)
        self._futures.remove(fut)
        return fut.result()

    def stop(self) -> None:
        """Cancel queued runs and end the worker processes (their runs are lost)."""
        for f in self._futures:
            f.cancel()
        procs = list(getattr(self._pool, "_processes", {}).values())
        for p in procs:
            p.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class InProcess:
    """Runs in the calling process, one at a time, when :meth:`next_done` asks for
    the next row (benchmarks of the engine, tests of the optimiser's loop)."""

    workers = 1
    address = "this process"

    def __init__(self) -> None:
        from collections import deque

        self._queue: deque[tuple[Callable[..., Any], Any, Any]] = deque()

    def map_unordered(
        self, fn: Callable[..., Any], job: Any, tasks: Sequence[Any]
    ) -> Iterator[Any]:
        for t in tasks:
            yield fn(job, t)

    def submit(self, fn: Callable[..., Any], job: Any, task: Any) -> None:
        self._queue.append((fn, job, task))

    @property
    def in_flight(self) -> int:
        return len(self._queue)

    def next_done(self) -> Any:
        fn, job, task = self._queue.popleft()
        return fn(job, task)

    def stop(self) -> None:
        self._queue.clear()

    def close(self) -> None:
        self._queue.clear()


# Run on every worker when the cluster is joined: imports what a run needs (so no task
# pays for it) and fails on a worker without robotsim, which the error then names.
_PROBE = "__import__('robotsim.sweep.worker', fromlist=['prepare']).prepare()"

# A local cluster's workers run the sweep's tasks, nothing else: Dask's statistical
# profiler (a thread sampling every task's stack every 10 ms), its GIL sampling and a
# 10 Hz memory poll would take the cores from the runs on a small machine.
LOCAL_WORKER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
}


class DaskCluster:
    """A Dask distributed client on ``address`` (``tcp://HOST:PORT`` or ``local:N``)."""

    def __init__(self, address: str, connect_timeout: float = 5.0) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise InputError(
                "--cluster needs Dask distributed: pip install 'robotsim[cluster]'"
            ) from None
        self.address = address
        self._cluster = None
        self._futures: list[Any] = []
        self._stream: Any = None  # as_completed of submit()
        self._scattered: tuple[int, Any] | None = None  # (id(job), its future)
        if address.startswith("local:"):
            n = address.split(":", 1)[1]
            if not n.isdigit() or int(n) < 1:
                raise InputError(f"--cluster {address}: expected local:N with N >= 1 workers")
            import dask

            with dask.config.set(LOCAL_WORKER_CONFIG):  # the nannies pass it on
                self._cluster = LocalCluster(
                    n_workers=int(n),
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    silence_logs=40,
                )
            target: Any = self._cluster
        elif address.startswith("tcp://"):
            target = address
        else:
            raise InputError(
                f"--cluster {address!r}: expected tcp://HOST:PORT (a Dask scheduler) or local:N"
            )
        try:
            self.client = Client(target, timeout=connect_timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(
                f"--cluster {address}: no Dask scheduler reachable there "
                f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
            ) from None
        try:
            self._check_workers()
        except BaseException:
            self.close()
            raise

    def _check_workers(self) -> None:
        try:
            self.client.wait_for_workers(1, timeout=20)
        except (OSError, TimeoutError):
            raise ClusterError(f"--cluster {self.address}: the scheduler has no workers") from None
        answers = self.client.run(eval, _PROBE, on_error="return")
        bad = {w: a for w, a in answers.items() if isinstance(a, BaseException)}
        if bad:
            w, exc = next(iter(bad.items()))
            raise ClusterError(
                f"--cluster {self.address}: worker {w} cannot run robotsim "
                f"({type(exc).__name__}: {exc}); install robotsim on every worker"
                + (f" (+{len(bad) - 1} more workers)" if len(bad) > 1 else "")
            )
        self.workers = len(answers)

    def map_unordered(
        self, fn: Callable[..., Any], job: Any, tasks: Sequence[Any]
    ) -> Iterator[Any]:
        import uuid

        from distributed import as_completed

        nonce = uuid.uuid4().hex[:8]
        [job_f] = self.client.scatter([job], broadcast=True, hash=False)
        self._futures = [
            self.client.submit(fn, job_f, t, key=f"robotsim-sweep-{nonce}-{t.key}", pure=False)
            for t in tasks
        ]
        for fut in as_completed(self._futures, loop=self.client.loop):
            yield fut.result()
            fut.release()

    def submit(self, fn: Callable[..., Any], job: Any, task: Any) -> None:
        """Queue one run (its row comes back through :meth:`next_done`); the job is sent
        to every worker once."""
        import uuid

        from distributed import as_completed

        if self._scattered is None or self._scattered[0] != id(job):
            [job_f] = self.client.scatter([job], broadcast=True, hash=False)
            self._scattered = (id(job), job_f)
        if self._stream is None:
            self._stream = as_completed(loop=self.client.loop)
        key = f"robotsim-sweep-{uuid.uuid4().hex[:8]}-{task.key}"
        fut = self.client.submit(fn, self._scattered[1], task, key=key, pure=False)
        self._futures.append(fut)
        self._stream.add(fut)

    @property
    def in_flight(self) -> int:
        """Runs submitted whose rows :meth:`next_done` has not returned yet."""
        return 0 if self._stream is None else self._stream.count()

    def next_done(self) -> Any:
        """The row of the next run to finish (blocks until one has)."""
        fut = next(self._stream)
        row = fut.result()
        self._futures.remove(fut)
        fut.release()
        return row

    def stop(self) -> None:
        """Cancel the runs not yet finished (runs already on a worker thread complete)."""
        if self._futures:
            self.client.cancel(self._futures)
        self.close()

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self._cluster is not None:
                self._cluster.close()
                self._cluster = None


def make_executor(cluster: str | None, workers: int | None) -> LocalPool | DaskCluster | InProcess:
    """``None``: the local pool; ``inline``: this process (:class:`InProcess`);
    ``local:N`` or ``tcp://...``: Dask."""
    if cluster is None:
        return LocalPool(workers)
    if cluster == "inline":
        if workers not in (None, 1):
            raise InputError("--cluster inline runs in this process: --workers 1 at most")
        return InProcess()
    if workers is not None:
        raise InputError("--workers is for the local pool; a cluster has its own workers")
    return DaskCluster(cluster)
