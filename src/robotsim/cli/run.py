"""``robotsim run SCENARIO --out DIR [--duration S] [--seed N] [--set K=V] [--json]``.

Runs a scenario headless (any ``kind:``, see :mod:`robotsim.scenario.kinds`) and writes
``summary.json``, the plots and the recording into ``--out``.
"""

from __future__ import annotations

from pathlib import Path

import click

from robotsim.cli.common import echo_json, max_memory_option, max_work_option

__all__ = ["register"]


@click.command("run")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Output folder (summary.json, map.png, recording). Default: none written.",
)
@click.option(
    "--duration", type=float, default=None, help="Simulated seconds (overrides the file)."
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Seed (random layouts, noise); overrides the file.",
)
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY.PATH=VALUE",
    help="Override a field, e.g. --set obstacles.layout=random (repeatable).",
)
@click.option(
    "--mode",
    type=click.Choice(["physics", "kinematic"]),
    default=None,
    help="Engine, for scenario kinds that support both.",
)
@click.option(
    "--db",
    default=None,
    help="Record into a run store (SQLite path or SQLAlchemy URL) instead of CSV.",
)
@click.option(
    "--commands",
    is_flag=True,
    help="Take commands from the run store's commands table, in real time (mobile "
    "scenarios; docs/commands.md).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@max_memory_option
@max_work_option
def run_cmd(
    scenario: Path,
    out_dir: Path | None,
    duration: float | None,
    seed: int | None,
    overrides: tuple[str, ...],
    mode: str | None,
    db: str | None,
    commands: bool,
    as_json: bool,
) -> None:
    """Run SCENARIO (a file, or a shipped name: see 'robotsim scenarios') headless and
    write its results."""
    from robotsim.errors import InputError
    from robotsim.scenario import RunOptions, run_file

    if duration is not None and not duration > 0:
        raise InputError(f"--duration must be > 0 s, got {duration}")
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"--out {out_dir}: exists and is not a folder; give a folder")
    if commands and db is None and out_dir is None:
        raise InputError("--commands needs a run store: give --db PATH|URL (or --out DIR)")
    if commands:
        from robotsim.scenario_yaml import read_scenario_yaml
        from robotsim.shipped import resolve

        kind = read_scenario_yaml(resolve(scenario, "scenario")).get("kind")
        if kind != "mobile":
            raise InputError(f"--commands: only mobile scenarios take commands; {scenario} "
                             f"is kind {kind!r}")  # fmt: skip
    opts = RunOptions(out_dir=out_dir, duration=duration, seed=seed, mode=mode, db=db,
                      extra={"commands": True} if commands else {})  # fmt: skip
    summary = run_file(scenario, opts, list(overrides))
    if as_json:
        echo_json(summary)
    else:
        _print_summary(summary, scenario, out_dir)
    fault = summary.get("fault")
    if isinstance(fault, dict):  # the physics diverged: the results are not results
        click.echo(
            f"error: {summary.get('scenario', scenario)}: {fault.get('message')}; the run "
            "stopped there (its summary has the 'fault')",
            err=True,
        )
        raise click.exceptions.Exit(1)
    if summary.get("completed") is False and "missing_events" in summary:
        # a scripted run (hands) that did not do what it is for: say what is missing;
        # exit 3 unless the user cut it short on purpose with --duration
        missing = ", ".join(summary["missing_events"]) or "none"
        steps = [s["label"] for s in summary.get("steps", []) if not s.get("completed")]
        cut = duration is not None
        why = f"; stopped by --duration {duration:g} s" if cut else ""
        plan_why = f"; not planned: {summary['not_planned']}" if summary.get("not_planned") else ""
        click.echo(
            f"{'note' if cut else 'error'}: {summary.get('scenario', scenario)}: the run did "
            f"not complete (missing events: {missing}; unfinished steps: "
            f"{', '.join(steps) or 'none'}{plan_why}{why})",
            err=True,
        )
        if cut:
            return
        raise click.exceptions.Exit(3)


def _print_summary(summary: dict, scenario: Path, out_dir: Path | None) -> None:
    robots = summary.get("robots", {})
    click.echo(
        f"{summary.get('scenario', scenario)}: simulated {summary.get('sim_time', 0):.2f} s"
        + (
            f" at {summary['real_time_factor']:.3g}x real time"
            if summary.get("real_time_factor")
            else ""
        )
    )
    if "events" in summary and "completed" in summary:  # a scripted scenario (hands)
        _echo_outcome(summary)
    for name, r in robots.items():
        ttg = r.get("time_to_goal")
        click.echo(
            f"  {name}: reached={r.get('reached_goal')} time_to_goal="
            f"{'-' if ttg is None else f'{ttg:.2f} s'} path={r.get('path_length', 0):.2f} m "
            f"collisions={r.get('collisions')}"
        )
    if out_dir is not None:
        # every file the run lists (summary.json, map.png, response.png...), not one
        listed = summary.get("outputs") or {}
        files = [v for v in listed.values() if isinstance(v, str)] or ["summary.json"]
        if (out_dir / "runs.sqlite").is_file():
            files.append("runs.sqlite")
        click.echo(f"wrote {', '.join(f'{out_dir}/{f}' for f in dict.fromkeys(files))}")


def _echo_outcome(summary: dict) -> None:
    """The events of a scripted run and whether the script completed."""
    events = summary.get("events", [])
    said = ", ".join(
        f"{e['t']:.2f} s {e['type']}" + (f" ({e['hand']})" if e.get("hand") else "") for e in events
    )
    click.echo(f"  events ({len(events)}): {said or 'none'}")
    v = summary.get("transfer")
    if v is not None:  # the hand-to-hand transfer's verdict, with its numbers
        from robotsim.hands.transfer import verdict_line

        click.echo(f"  transfer: {verdict_line(v)}")
    if summary["completed"]:
        steps = summary.get("steps", [])
        click.echo(f"  completed: yes ({len(steps)} script steps, every expected event seen)")
        return
    why = []
    undone = [s["label"] or s["kind"] for s in summary.get("steps", []) if not s["completed"]]
    if undone:
        why.append(f"step {undone[0]!r} did not complete")
    if summary.get("missing_events"):
        why.append(f"missing events: {', '.join(summary['missing_events'])}")
    if summary.get("not_planned"):
        why.append(f"not planned: {summary['not_planned']}")
    click.echo(f"  completed: NO ({'; '.join(why) or 'stopped early'})")


def register(group: click.Group) -> None:
    group.add_command(run_cmd)
