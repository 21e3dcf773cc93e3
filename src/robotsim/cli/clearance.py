"""``robotsim clearance SCENARIO --out DIR [--json]``: distance curves and
collision intervals of every robot pair (see ``docs/clearance.md``)."""

from __future__ import annotations

from pathlib import Path

import click

from robotsim.cli.common import echo_json, max_memory_option
from robotsim.jsonable import dumps as json_dumps

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
    from robotsim.clearance.report import stream_outputs
    from robotsim.clearance.scenario import load_scenario
    from robotsim.errors import InputError
    from robotsim.run_io import RunOptions, recorded_run
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
    sc = load_scenario(scenario)
    step = sc.dt if dt is None else dt
    # chunk by chunk into the files and the run store: memory does not grow with the
    # run's length
    meta = {"kind": "clearance", "file": str(scenario), "dt": step, "method": method}
    out_dir.mkdir(parents=True, exist_ok=True)
    with recorded_run(RunOptions(out_dir=out_dir, db=db), scenario.stem, meta) as recorder:
        summary, paths = stream_outputs(
            sc.scene,
            sc.trajectories,
            step,
            out_dir,
            t_end=sc.t_end,
            cutoff=sc.cutoff,
            link_pairs=link_pairs,
            method=method,
            recorder=recorder,
        )
        run_id = getattr(recorder, "run_id", None)
    payload = summary.to_json()
    cert = None
    if certified:
        from robotsim.clearance.certified import certified_run

        cert = certified_run(sc.scene, sc.trajectories, step, t_end=sc.t_end)
        payload = merge_certified(payload, cert.to_json())
        paths["certified"] = out_dir / "certified.json"
        paths["certified"].write_text(json_dumps(cert.to_json(), indent=2) + "\n")
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


def merge_certified(payload: dict, cert: dict) -> dict:  # type: ignore[type-arg]
    """The sampled summary with the certified results: ``certified`` at the top and,
    per pair, ``min_distance_lower_bound_m`` and the collision intervals the certified
    check found (every collision, of any duration)."""
    pairs = {k: dict(v) for k, v in payload["pairs"].items()}
    for k, c in cert["pairs"].items():
        row = pairs.setdefault(k, {})
        row["min_distance_lower_bound_m"] = c["min_distance_lower_bound_m"]
        row["collision_intervals"] = c["collision_intervals"]
        row["unresolved_intervals"] = c["unresolved_intervals"]
        row["certified_clear"] = c["clear"]
    return {
        "certified": cert["certified"],
        "collision_free": cert["collision_free"],
        **payload,
        "pairs": pairs,
    }


def register(group: click.Group) -> None:
    group.add_command(clearance_cmd)
