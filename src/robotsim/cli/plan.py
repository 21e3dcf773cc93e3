"""``robotsim plan SCENARIO [--method M] [--margin M] --out DIR [--json]``: make a
clearance scenario collision-free (see ``docs/planning.md``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from robotsim.cli.common import echo_json
from robotsim.errors import InputError

__all__ = ["register"]


@click.command("plan")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Directory for scenario.yaml (the planned clearance scenario), "
    "distances_before.csv, distances_after.csv, distance_curves.png, summary.json "
    "and runs.sqlite (the planned study as a run: 'robotsim export last --db DIR "
    "--format html').",
)
@click.option(
    "--db",
    default=None,
    help="Record the planned study into this run store (SQLite path or SQLAlchemy URL) "
    "instead of OUT/runs.sqlite.",
)
@click.option(
    "--method",
    type=click.Choice(["delay", "scale", "replan", "auto"]),
    default="auto",
    show_default=True,
    help="delay: start one robot later; scale: slow one robot over a window; "
    "replan: a new path for one robot; auto: the one that adds the least time.",
)
@click.option(
    "--margin",
    type=float,
    default=0.02,
    show_default=True,
    help="Clearance (m) every pair must keep over the whole run (certified).",
)
@click.option("--robot", default=None, help="Change only this robot.")
@click.option(
    "--budget",
    "budget_s",
    type=float,
    default=30.0,
    show_default=True,
    help="Time budget (s) of the whole plan.",
)
@click.option("--dt", type=float, default=None, help="Sampling step (s; default the scenario's).")
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Seed of the replanner.",
)
@click.option("--json", "as_json", is_flag=True, help="Print summary.json.")
def plan_cmd(
    scenario: Path,
    out_dir: Path,
    method: str,
    margin: float,
    robot: str | None,
    budget_s: float,
    dt: float | None,
    seed: int,
    as_json: bool,
    db: str | None,
) -> None:
    """Make SCENARIO (a clearance file or a shipped name) collision-free: delay, slow
    down or replan one robot at a time, certified between samples; write the planned
    scenario (readable by 'robotsim clearance')."""
    from robotsim.scenario.commands import robot_arg, run_command

    args = {"scenario": robot_arg(str(scenario)), "method": method, "margin": margin,
            "robot": robot, "budget_s": budget_s, "dt": dt, "seed": seed}  # fmt: skip
    extras: dict[str, Any] = {"db": db, "plots": True}
    # the planned study's run carries its receipt: robotsim runs verify re-plans it
    summary = run_command("plan", args, out_dir, extras)
    paths = extras["paths"]
    if as_json:
        echo_json(summary)
    else:
        _echo_text(summary, paths)
        if summary.get("run_id") is not None:
            click.echo(f"recorded the planned study as run {summary['run_id']} "
                       f"({db or out_dir / 'runs.sqlite'})")  # fmt: skip
    if not summary["collision_free"]:
        raise InputError(_not_found(scenario, summary, paths))


def _not_found(scenario: Path, summary: dict, paths: dict) -> str:  # type: ignore[type-arg]
    """The one line of a plan that is not collision free: a spent budget, else the
    first reason (the rest and every number are in summary.json, written all the
    same)."""
    reasons = [" ".join(str(r).split()) for r in summary.get("reasons") or []]
    reasons.sort(key=lambda r: not r.startswith("time budget"))  # the budget first
    first = reasons[0] if reasons else "no method cleared every pair"
    more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
    where = paths.get("summary", "summary.json")
    return (
        f"{scenario}: no collision-free plan at margin {summary['margin_m']:g} m "
        f"(method {summary['method']}): {first}{more}; see {where}"
    )


def _echo_text(summary: dict, paths: dict) -> None:  # type: ignore[type-arg]
    verdict = "collision free (certified)" if summary["collision_free"] else "NOT collision free"
    click.echo(
        f"{verdict}: method {summary['method']}, added time {summary['added_time_s']:.3f} s, "
        f"min distance {summary['min_distance_m']:.4f} m (>= "
        f"{summary['min_distance_lower_bound_m']:.4f} m), margin {summary['margin_m']:g} m, "
        f"planned in {summary['plan_time_s']:.2f} s"
    )
    for c in summary["changes"]:  # type: ignore[attr-defined]
        timing = ""
        if c.get("timing") is not None:
            timing = (
                f" ({c['timing']} timing; rest to rest {c['rest_to_rest_added_time_s']:+.3f} s)"
            )
        click.echo(f"  {c['robot']}: {c['method']}, {c['added_time_s']:+.3f} s{timing}")
    if not summary["collision_free"]:
        for r in summary["reasons"]:  # type: ignore[attr-defined]
            click.echo(f"  {r}")
    click.echo(f"wrote {', '.join(str(p) for p in paths.values())}")


def register(group: click.Group) -> None:
    group.add_command(plan_cmd)
