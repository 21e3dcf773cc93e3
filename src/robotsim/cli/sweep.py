"""``robotsim sweep FILE --out DIR [--cluster ADDR] [--resume]`` and
``robotsim sweep report DIR``: parameter sweeps (see ``docs/sweeps.md``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from robotsim.cli.common import echo_json

__all__ = ["register"]


class _SweepGroup(click.Group):
    """``robotsim sweep FILE ...`` runs FILE; ``robotsim sweep report DIR`` reports."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group("sweep", cls=_SweepGroup)
def sweep_group() -> None:
    """Run a sweep file (robotsim sweep FILE --out DIR) or draw its report."""


def _progress_bar(quiet: bool) -> tuple[Any, Any]:
    """(update, stop) of a rich progress bar on stderr: done/total, failed, ETA."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("failed {task.fields[failed]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=quiet,
    )
    state: dict[str, Any] = {}

    def update(done: int, failed: int, total: int, skipped: int) -> None:
        if "task" not in state:  # started at the first run, after the file was checked
            bar.start()
            desc = "runs" + (f" ({skipped} done before)" if skipped else "")
            state["task"] = bar.add_task(desc, total=total, failed=0)
        bar.update(state["task"], completed=done, failed=failed)

    def stop() -> None:
        if "task" in state:
            bar.stop()

    return update, stop


@sweep_group.command("run")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Sweep folder: results.csv/.parquet, runs.jsonl, runs.sqlite.",
)
@click.option(
    "--cluster",
    default=None,
    metavar="tcp://HOST:PORT|local:N|inline",
    help="Run on a Dask distributed scheduler, a local Dask cluster of N workers, or "
    "inline (in this process, one run at a time).",
)
@click.option("--workers", type=int, default=None, help="Local pool size (default: cores).")
@click.option("--resume", is_flag=True, help="Finish a sweep folder: skip finished runs.")
@click.option("--db", default=None, help="Run store (SQLite path or URL); default DIR/runs.sqlite.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
def run_cmd(
    file: Path,
    out_dir: Path,
    cluster: str | None,
    workers: int | None,
    resume: bool,
    db: str | None,
    quiet: bool,
    as_json: bool,
) -> None:
    """Run every point of a sweep file; one row per run in DIR/results.csv."""
    import signal

    from robotsim.sweep import run_sweep

    def _terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # SIGTERM stops as cleanly as Ctrl-C

    update, stop = _progress_bar(quiet or as_json)
    old = signal.signal(signal.SIGTERM, _terminate)
    try:
        outcome = run_sweep(
            file, out_dir, cluster=cluster, workers=workers, resume=resume, db=db, progress=update
        )
    finally:
        signal.signal(signal.SIGTERM, old)
        stop()
    if as_json:
        echo_json(outcome.to_json())
    else:
        ran = outcome.ok + outcome.failed
        rate = ran / outcome.elapsed_s if outcome.elapsed_s > 0 else 0.0
        skipped = f", {outcome.skipped} skipped (done before)" if outcome.skipped else ""
        click.echo(
            f"sweep {outcome.sweep_id}: {outcome.ok} ok, {outcome.failed} failed{skipped} of "
            f"{outcome.total} runs in {outcome.elapsed_s:.1f} s ({rate:.2f} runs/s on "
            f"{outcome.executor}) -> {out_dir / 'results.csv'}"
        )
        for best in outcome.best[:5]:
            shown = ", ".join(
                f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}"
                for k, v in best.items()
                if k not in ("run_key", "trial")
            )
            click.echo(f"best: {best['run_key']} ({shown})")
        if len(outcome.best) > 5:
            click.echo(f"... {len(outcome.best) - 5} more on the Pareto front (results.csv)")
    if outcome.interrupted:
        click.echo(
            f"interrupted: {outcome.ok + outcome.failed} runs kept; "
            f"finish with: robotsim sweep {file} --out {out_dir} --resume",
            err=True,
        )
        raise click.exceptions.Exit(130)
    if outcome.failed and not outcome.ok:
        _all_failed(out_dir, outcome.failed)


def _all_failed(out_dir: Path, failed: int) -> None:
    """Every run that ran failed: almost always the sweep file, not the points. Say the
    first error and exit 1 (the rows are kept, as for any failed run)."""
    from robotsim.sweep.results import read_rows

    errors = [str(r.get("error") or "") for r in read_rows(out_dir).values()
              if r.get("status") == "failed"]  # fmt: skip
    first = next((e for e in errors if e), "(no error recorded)").strip().splitlines()
    click.echo(
        f"error: all {failed} runs failed; the first: {first[-1] if first else ''} "
        f"(each run's error is in {out_dir / 'results.csv'})",
        err=True,
    )
    raise click.exceptions.Exit(1)


@sweep_group.command("report")
@click.argument("sweep_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the PNGs (default DIR/report).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures and numbers as JSON.")
def report_cmd(sweep_dir: Path, out_dir: Path | None, as_json: bool) -> None:
    """Metric-vs-parameter lines, 2-parameter heatmaps and success rates (PNG)."""
    from robotsim.sweep.report import write_report

    rep = write_report(sweep_dir, out_dir)
    if as_json:
        echo_json(rep)
    else:
        for p in rep["figures"]:
            click.echo(f"wrote {p}")


@sweep_group.command("verify")
@click.argument("sweep_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--sample", type=int, default=None, help="Verify K runs (default: all).")
@click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seeds the sample."
)
@click.option(
    "--cluster",
    default=None,
    metavar="tcp://HOST:PORT|local:N|inline",
    help="Re-run on a Dask scheduler, a local Dask cluster of N workers, or inline.",
)
@click.option("--workers", type=int, default=None, help="Local pool size (default: cores).")
@click.option("--db", default=None, help="Run store (default: the sweep's).")
@click.option("--json", "as_json", is_flag=True, help="Print every verification as JSON.")
def verify_cmd(
    sweep_dir: Path,
    sample: int | None,
    seed: int,
    cluster: str | None,
    workers: int | None,
    db: str | None,
    as_json: bool,
) -> None:
    """Re-run K runs of a sweep from their receipts and compare them bit for bit.
    Exit 0 when every one is identical, 1 otherwise."""
    from robotsim.scenario.verify import Verification
    from robotsim.sweep.verify import verify_sweep

    res = verify_sweep(sweep_dir, sample, seed=seed, cluster=cluster, workers=workers, db=db)
    if as_json:
        echo_json(res.to_json())
    else:
        click.echo(
            f"sweep {res.sweep_id}: {res.identical} of {res.sampled} runs identical "
            f"(re-run on {res.executor} in {res.elapsed_s:.1f} s)"
        )
        for r in res.results:
            if r["verdict"] != "identical":
                fields = {k: r[k] for k in Verification.__dataclass_fields__}
                click.echo(f"  {r['run_key']}: {Verification(**fields).line()}")
    if res.identical != res.sampled:
        raise click.exceptions.Exit(1)


def register(group: click.Group) -> None:
    group.add_command(sweep_group)
