"""``robotsim grasp ROBOT --object OBJ [--hand NAME] [--trials N] [--seed S] --out DIR``:
grasp trials in MuJoCo (docs/grasp.md): the object dropped at random poses on a table
the arm reaches, a grasp planned for the hand, approached, closed, lifted and held."""

from __future__ import annotations

from pathlib import Path

import click

from robotsim.cli.common import echo_json, parse_floats
from robotsim.cli.objects import object_options, spec_from_options

__all__ = ["register"]


@click.command("grasp")
@click.argument("robot")
@click.option("--object", "obj", required=True,
              help="A mesh, URDF or MJCF file, or TYPE:SIZES (box:0.05,0.03,0.08, "
                   "cylinder:0.03,0.1, sphere:0.03, capsule:..., ellipsoid:...).")  # fmt: skip
@object_options
@click.option("--hand", default=None, help="The hand or gripper (a gripper name of the "
              "robot's profile; default: the first).")  # fmt: skip
@click.option("--trials", type=int, default=10, show_default=True, help="Number of trials.")
@click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the drops."
)
@click.option("--table", default=None, metavar="X,Y,Z,SX,SY,SZ",
              help="The table's centre and full size (m); default: placed from the arm's "
                   "reach.")  # fmt: skip
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Output folder: summary.json, grasps.png, runs.sqlite.")  # fmt: skip
@click.option("--db", default=None, help="Record into this run store (SQLite path or URL) "
              "instead of runs.sqlite in --out.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def grasp_cmd(robot: str, obj: str, scale: str | None, mass: float | None,
              density: float | None, friction: float | None, hand: str | None, trials: int,
              seed: int, table: str | None, out_dir: Path, db: str | None,
              as_json: bool) -> None:  # fmt: skip
    """Grasp OBJECT with ROBOT's hand in MuJoCo, TRIALS times: success = lifted >= 0.1 m
    and held 2 s with at most 1 cm of slip."""
    from robotsim.grasp.run import grasp_trials, prepare, write_outputs
    from robotsim.hands.contact import BoxObstacle
    from robotsim.run_io import RunOptions, recorded_run

    spec = spec_from_options(obj, scale, mass, density, friction)
    tab = None
    if table is not None:
        v = parse_floats(table, "--table", (6,))
        if min(v[3:]) <= 0:
            raise click.BadParameter("sizes must be > 0", param_hint="--table")
        if max(abs(v)) > 1.0e3:  # a table 1e308 m up sent the object through MuJoCo's range
            raise click.BadParameter("centre and sizes within 1000 m", param_hint="--table")
        tab = BoxObstacle("table", tuple(v[:3]), tuple(v[3:]))  # type: ignore[arg-type]
    if not 1 <= trials <= 10_000:
        raise click.BadParameter(f"must be 1 .. 10000, got {trials}", param_hint="--trials")
    run = prepare(robot, spec, hand=hand, table=tab)
    if not as_json:
        for w in run.obj.warnings:
            click.echo(f"warning: {w}", err=True)
    options = RunOptions(out_dir=out_dir, db=db, seed=seed)
    meta = {"kind": "grasp", "robot": run.hand.model.name, "hand": run.hand.name,
            "object": run.obj.name, "trials": trials}  # fmt: skip
    with recorded_run(options, "grasp", meta) as recorder:
        summary, results = grasp_trials(run, trials, seed, recorder)
    write_outputs(out_dir, summary, run, results)
    if as_json:
        echo_json(summary)
        return
    rate = 100 * summary["success_rate"]
    plan, speed = summary["mean_plan_s"], summary["trials_per_s"]
    click.echo(f"{summary['robot']} / {run.hand.name} / {run.obj.name}: {summary['successes']} "
               f"of {summary['trials']} held ({rate:.0f} %), mean plan {plan:.3f} s, "
               f"{speed:.2f} trials/s")  # fmt: skip
    for reason, n in summary["reasons"].items():
        click.echo(f"  {n} x {reason}")
    click.echo(f"  {out_dir / 'summary.json'}, {out_dir / 'grasps.png'}")


def register(group: click.Group) -> None:
    group.add_command(grasp_cmd)
