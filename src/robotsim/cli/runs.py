"""``robotsim runs list|show RUN`` and ``robotsim export RUN``: the run store."""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from robotsim.cli.common import echo_json, max_memory_option
from robotsim.errors import InputError
from robotsim.recording.export import FORMATS

if TYPE_CHECKING:
    from robotsim.recording import RunStore

__all__ = ["EXPORT_FORMATS", "FILE_FORMATS", "open_store_for_reading", "register"]

_DB_HELP = (
    "Run store: a SQLite file, a folder holding runs.sqlite, or an SQLAlchemy URL "
    "(postgresql://...). Default: $ROBOTSIM_DB or ./runs.sqlite."
)


def _default_db() -> str:
    return os.environ.get("ROBOTSIM_DB", "runs.sqlite")


def open_store_for_reading(db: str | None) -> RunStore:
    """Open an existing store (a missing SQLite file is an error, not a new store)."""
    from robotsim.recording import RunStore, normalize_db

    url = normalize_db(db or _default_db())
    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///") :])
        if not path.exists():
            raise InputError(
                f"--db: no run store at {path} (run `robotsim run ... --out DIR` "
                "first, or pass --db PATH|URL)"
            )
    return RunStore(url)


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return _dt.datetime.fromtimestamp(ts, _dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


@click.group("runs")
def runs_group() -> None:
    """List and inspect recorded runs."""


@runs_group.command("list")
@click.option("--db", default=None, help=_DB_HELP)
@click.option("--limit", type=int, default=None, help="Show only the newest N runs.")
@click.option("--sweep", "sweep_id", default=None, help="Only the runs of this sweep id.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def list_cmd(db: str | None, limit: int | None, sweep_id: str | None, as_json: bool) -> None:
    """List runs, newest first."""
    with open_store_for_reading(db) as store:
        infos = store.runs(limit=limit, tags={"sweep": sweep_id} if sweep_id else None)
    if as_json:
        echo_json({"runs": [i.to_json() for i in infos]})
        return
    if not infos:
        click.echo("no runs")
        return
    click.echo(f"{'id':>5}  {'status':<11}  {'started (UTC)':<19}  {'wall s':>8}  scenario")
    for i in infos:
        dur = "-" if i.ended_at is None else f"{i.ended_at - i.started_at:.1f}"
        click.echo(
            f"{i.id:>5}  {i.status.value:<11}  {_when(i.started_at):<19}  {dur:>8}  {i.scenario}"
        )


@runs_group.command("show")
@click.argument("run")
@click.option("--db", default=None, help=_DB_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def show_cmd(run: str, db: str | None, as_json: bool) -> None:
    """Details of one run (RUN: an id or 'last'): parameters, signals, sensors, events."""
    with open_store_for_reading(db) as store:
        info = store.run(run)
        chans = store.channels(info.id)
        t0, t1 = store.time_span(info.id)
        out: dict[str, Any] = info.to_json()
        signals: dict[str, list[str]] = {}
        for _, robot, name in chans:
            signals.setdefault(robot, []).append(name)
        out["signals"] = signals
        out["signal_rows"] = store.signal_count(info.id)
        out["t_first"], out["t_last"] = t0, t1
        out["events"] = store.events(info.id)
        out["sensors"] = [s.to_json() for s in store.sensors(info.id)]
    if as_json:
        echo_json(out)
        return
    click.echo(f"run {info.id}: {info.scenario}  [{info.status.value}]")
    if info.message:
        click.echo(f"  message: {info.message}")
    click.echo(
        f"  started {_when(info.started_at)}  ended {_when(info.ended_at)}  "
        f"seed {info.seed}  host {info.host} pid {info.pid}"
    )
    click.echo(f"  parameters: {info.parameters}")
    click.echo(f"  versions: {info.versions}")
    click.echo(f"  signal rows: {out['signal_rows']}  t: {t0} .. {t1}")
    for robot, names in signals.items():
        click.echo(f"  {robot}: {', '.join(names)}")
    for sn in out["sensors"]:  # docs/sensors.md
        fields = ", ".join(f"{k}{v['shape']}" for k, v in sn["fields"].items())
        click.echo(f"  sensor {sn['robot']}/{sn['name']} ({sn['type']}, {sn['rate']:g} Hz): "
                   f"{sn['readings']} readings of {fields}")  # fmt: skip
    ev = out["events"]
    click.echo(f"  events: {len(ev)}")
    for e in ev[:50]:
        click.echo(f"    t={e['t']:.3f}  {e['type']}  {e['robot'] or ''}  {e['data']}")
    if len(ev) > 50:
        click.echo(f"    ... {len(ev) - 50} more (use --json)")


@runs_group.command("verify")
@click.argument("run")
@click.option("--db", default=None, help=_DB_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the verification as JSON.")
def verify_cmd(run: str, db: str | None, as_json: bool) -> None:
    """Re-run RUN (an id or 'last') from its receipt and compare: 'identical', or the
    first checkpoint that differs (time, bodies, by how much). Exit 0 identical, 1
    differs."""
    from robotsim.scenario.verify import verify_run

    store_db = db or _default_db()
    open_store_for_reading(store_db).close()  # a missing store is an error, not a new one
    v = verify_run(store_db, run)
    if as_json:
        echo_json(v.to_json())
    else:
        click.echo(v.line())
        for f in v.files_changed:
            click.echo(f"  file changed since the run: {f['file']}")
        for k, d in v.versions_changed.items():
            click.echo(f"  {k}: {d['recorded']} then, {d['now']} now")
        if v.error and v.first_difference is not None:
            click.echo(f"  {v.error}")
    if not v.identical:
        raise click.exceptions.Exit(1)


@runs_group.command("plot")
@click.argument("run")
@click.option("--robot", default=None, help="Robot to plot (default: the first one).")
@click.option(
    "--signals",
    "signals",
    default=None,
    help="Comma-separated signal names (default: all of the robot's, up to 12).",
)
@click.option(
    "--out", "out", required=True, type=click.Path(dir_okay=False), help="PNG file to write."
)
@click.option("--db", default=None, help=_DB_HELP)
def plot_cmd(run: str, robot: str | None, signals: str | None, out: str, db: str | None) -> None:
    """Plot a robot's signals of one run against time (PNG), events as vertical lines."""
    from robotsim.plots import save_signals

    with open_store_for_reading(db) as store:
        info = store.run(run)
        robots = store.robots(info.id)
        if not robots:
            raise InputError(f"run {info.id} recorded no signals")
        name = robot or robots[0]
        names = None if signals is None else [n for n in signals.split(",") if n]
        table = store.signals(info.id, name, names)
        events = [e for e in store.events(info.id) if e["robot"] in (None, name)]
    title = f"run {info.id}: {info.scenario} — {name} [{info.status.value}]"
    save_signals(out, table, [e["t"] for e in events], title)
    click.echo(out)


#: ``--format`` of ``robotsim export``: the run store's tables (a folder of files) and
#: the file formats of :mod:`robotsim.export` (one file; kept equal to its
#: ``FILE_FORMATS`` by a test, named here so that ``--help`` imports nothing).
FILE_FORMATS = ("mcap", "rerun", "mp4", "gif", "html")
EXPORT_FORMATS = (*FORMATS, *FILE_FORMATS)


@click.command("export")
@click.argument("run")
@click.option(
    "--format", "fmt", type=click.Choice(EXPORT_FORMATS), default="csv", show_default=True
)
@click.option(
    "--out",
    "out",
    default=None,
    type=click.Path(),
    help="csv/parquet: the folder for run.json, signals_<robot>.* and events.* (required). "
    "mcap, rerun, mp4, gif, html: the file to write, or a folder to write run<ID>.<ext> "
    "in (default: the current folder).",
)
@click.option("--db", default=None, help=_DB_HELP)
@click.option("--width", type=click.IntRange(16, 4096), default=640, show_default=True,
              help="mp4/gif: frame width (px).")  # fmt: skip
@click.option("--height", type=click.IntRange(16, 4096), default=480, show_default=True,
              help="mp4/gif: frame height (px).")  # fmt: skip
@click.option("--fps", type=click.FloatRange(1, 240), default=30.0, show_default=True,
              help="mp4/gif: frames per second of the video.")  # fmt: skip
@click.option(
    "--camera",
    default="studio",
    show_default=True,
    help="mp4/gif: 'studio' (the studio's framing of the scene), 'follow:ROBOT' (behind "
    "and above a robot), or 'fixed:EX,EY,EZ,TX,TY,TZ' (eye and target, m).",
)
@click.option("--speed", type=click.FloatRange(0.01, 1000), default=1.0, show_default=True,
              help="mp4/gif: simulated seconds per second of video.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the written paths as JSON.")
@max_memory_option
def export_cmd(
    run: str,
    fmt: str,
    out: str | None,
    db: str | None,
    width: int,
    height: int,
    fps: float,
    camera: str,
    speed: float,
    as_json: bool,
) -> None:
    """Export one run (RUN: an id or 'last'): CSV or Parquet tables, an MCAP file for
    Foxglove, a Rerun .rrd, an MP4 or GIF video, or one self-contained HTML replay."""
    with open_store_for_reading(db) as store:
        if fmt in FORMATS:
            from robotsim.recording import export_run

            if out is None:
                raise InputError(f"--out: give the folder to write the {fmt} files in")
            paths = export_run(store, run, fmt, out)
        else:
            from robotsim.export import export_file

            paths = [
                export_file(
                    store,
                    run,
                    fmt,
                    out,
                    width=width,
                    height=height,
                    fps=fps,
                    camera=camera,
                    speed=speed,
                )
            ]
    if as_json:
        echo_json({"files": [str(p) for p in paths]})
    else:
        for p in paths:
            click.echo(str(p))


def register(group: click.Group) -> None:
    group.add_command(runs_group)
    group.add_command(export_cmd)
