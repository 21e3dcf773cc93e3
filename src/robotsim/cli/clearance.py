"""``robotsim clearance SCENARIO --out DIR [--json]``: distance curves and
collision intervals of every robot pair (see ``docs/clearance.md``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from robotsim.cli.common import echo_json, max_memory_option

__all__ = ["register"]


@click.command("clearance")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Directory for distances.csv, contact_distances.csv, intervals.json, "
    "volumes.json, distance_curves.png, paths.png and runs.sqlite (the study as a "
    "run: 'robotsim export last --db DIR --format html').",
)
@click.option(
    "--db",
    default=None,
    help="Record the study into this run store (SQLite path or SQLAlchemy URL) instead "
    "of OUT/runs.sqlite.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the per-pair summary as JSON.")
@click.option("--dt", type=float, default=None, help="Override the scenario's step (s).")
@click.option("--link-pairs", is_flag=True, help="Also write per link-pair curves.")
@click.option(
    "--method",
    type=click.Choice(["exact", "paper"]),
    default="exact",
    help="Distance between ellipsoids: exact, or the seed paper's approximation.",
)
@click.option(
    "--certified",
    is_flag=True,
    help="Also bound every pair's distance between the samples (a proof: "
    "min_distance_lower_bound_m per pair, collisions of any duration found); "
    "writes certified.json.",
)
@max_memory_option
def clearance_cmd(
    scenario: Path,
    out_dir: Path,
    as_json: bool,
    dt: float | None,
    link_pairs: bool,
    method: str,
    certified: bool,
    db: str | None,
) -> None:
    """Sample SCENARIO's trajectories (a clearance file, or a shipped name: see 'robotsim
    scenarios'), write distances and collision intervals."""
    from robotsim.errors import InputError
    from robotsim.scenario.commands import robot_arg, run_command
    from robotsim.scenario.kinds import kind_of
    from robotsim.scenario_yaml import read_scenario_yaml

    kind = kind_of(read_scenario_yaml(scenario), str(scenario))
    if kind.command != "clearance":
        raise InputError(
            f"{scenario}: kind: {kind.name} is not a clearance study; "
            f"use 'robotsim {kind.command} {scenario}'"
        )
    if certified and method == "paper":
        raise InputError("--certified bounds the exact distance; it cannot use --method paper")
    args = {"scenario": robot_arg(str(scenario)), "dt": dt, "link_pairs": link_pairs,
            "method": method, "certified": certified}  # fmt: skip
    extras: dict[str, Any] = {"db": db, "plots": True}
    # the run recorded carries its receipt: robotsim runs verify re-runs the study
    payload = run_command("clearance", args, out_dir, extras)
    summary, paths, cert, run_id = (extras[k] for k in ("summary", "paths", "cert", "run_id"))
    if as_json:
        echo_json(payload)
    else:
        for name, p in summary.pairs.items():
            iv = ", ".join(f"t = {a:.4f} .. {b:.4f} s" for a, b in p.collision_intervals)
            click.echo(
                f"{name}: min {p.min_distance:.4f} m at t = {p.t_min:.4f} s; "
                f"collisions: {iv or 'none'}"
            )
            for pair, (d, _) in (p.link_minima or {}).items():
                click.echo(f"  {pair}: min {d:.4f} m (sampled)")
        if cert is not None:
            for name, c in cert.pairs.items():
                iv = ", ".join(f"t = {a:.4f} .. {b:.4f} s" for a, b in c.collision_intervals)
                click.echo(
                    f"{name} (certified): distance >= {c.min_distance_lower_bound:.4f} m over "
                    f"the whole run; collisions: {iv or 'none'}"
                )
            click.echo(f"certified: {str(cert.certified).lower()}, collision free: "
                       f"{str(cert.collision_free).lower()}")  # fmt: skip
        click.echo(f"wrote {', '.join(str(p) for p in paths.values())}")
        if run_id is not None:
            click.echo(f"recorded run {run_id} ({db or out_dir / 'runs.sqlite'})")


def register(group: click.Group) -> None:
    group.add_command(clearance_cmd)
