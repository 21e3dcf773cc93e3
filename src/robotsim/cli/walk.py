"""``robotsim walk ROBOT``: a balanced walk in MuJoCo physics (docs/walk.md)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from robotsim.cli.common import echo_json, max_memory_option
from robotsim.errors import InputError

__all__ = ["register"]

os.environ.setdefault("MUJOCO_GL", "egl")


@click.command("walk")
@click.argument("robot")
@click.option("--distance", type=float, default=0.0, show_default=True, help="m forward.")
@click.option("--lateral", type=float, default=0.0, show_default=True, help="m to the left.")
@click.option("--turn", type=float, default=0.0, show_default=True, help="deg, left positive.")
@click.option(
    "--speed",
    type=float,
    help="Mean speed, m/s (default: the fastest the step limits allow, at most 0.62 of "
    "the steady fastest, less where the swing legs' ZMP excursion would leave the sole).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    required=True,
    help="Folder for summary.json, walk.yaml, side_view.png and runs.sqlite.",
)
@click.option(
    "--db",
    default=None,
    help="Record the walk into this run store (SQLite path or SQLAlchemy URL) instead of "
    "OUT/runs.sqlite.",
)
@click.option("--friction", type=float, help="Floor friction (default: the robot profile's).")
@click.option("--open-loop", is_flag=True, help="No balance feedback (the pattern alone).")
@click.option("--step-period", type=float, help="s per step (default sized from the legs).")
@click.option("--step-height", type=float, help="m of swing clearance.")
@click.option("--crouch", type=float, help="m the hips stay below standing tall.")
@click.option("--no-strip", is_flag=True, help="Skip the side-view picture.")
@click.option("--json", "as_json", is_flag=True, help="Print summary.json.")
@max_memory_option
def walk_cmd(
    robot: str,
    distance: float,
    lateral: float,
    turn: float,
    speed: float | None,
    out_dir: str,
    db: str | None,
    friction: float | None,
    open_loop: bool,
    step_period: float | None,
    step_height: float | None,
    crouch: float | None,
    no_strip: bool,
    as_json: bool,
) -> None:
    """Walk ROBOT (a library name or a robot file with two legs) DISTANCE forward,
    LATERAL to the left and TURN degrees in MuJoCo, balanced by feedback on its own
    position servos; write the results to OUT (the run, in OUT/runs.sqlite or --db,
    carries a receipt: `robotsim runs verify last --db OUT`). Exit status 0 walked, 1 fell."""
    from robotsim.scenario.commands import robot_arg, run_command
    from robotsim.walk.report import WalkRequest

    WalkRequest(distance, lateral, turn, speed, friction, open_loop)  # checked before the run
    for what, v, top in (("--step-period", step_period, 10.0), ("--step-height", step_height, 1.0),
                         ("--crouch", crouch, 1.0)):  # fmt: skip
        if v is not None and not (0 <= v <= top and (v > 0 or what == "--crouch")):
            raise InputError(
                f"{what}: {v!r}; must be a number in {'[' if what == '--crouch' else '('}0, "
                f"{top:g}] ({'s' if what == '--step-period' else 'm'})"
            )
    args = {"robot": robot_arg(robot), "distance": distance, "lateral": lateral, "turn": turn,
            "speed": speed, "friction": friction, "open_loop": open_loop,
            "step_period": step_period, "step_height": step_height, "crouch": crouch}  # fmt: skip
    # the run stored in OUT/runs.sqlite carries its receipt: robotsim runs verify re-runs it
    summary = run_command("walk", args, out_dir, {"strip": not no_strip, "db": db})
    if as_json:
        echo_json(summary)
    else:
        speed_txt = (
            f"{summary['mean_speed_m_s']:.3f} m/s ({summary['mean_speed_leg_lengths_s']:.2f} "
            "leg lengths/s)"
            if summary["mean_speed_m_s"] is not None
            else "no speed (it fell)"
        )
        verdict = (
            f"FELL at t={summary['fell_at_s']:.2f} s ({summary['reason']})"
            if summary["fell"]
            else "walked"
        )
        click.echo(
            f"{summary['robot']}: {verdict}; {summary['distance_m']:.3f} m of "
            f"{summary['goal_m']:.3f} m, {speed_txt}, heading "
            f"{summary['heading_change_deg']:+.1f} deg, max tilt "
            f"{summary['max_tilt_deg']:.1f} deg, RTF {summary['rtf']:.1f} -> "
            f"{Path(out_dir)}/summary.json"
        )
    if summary["fell"]:
        raise click.exceptions.Exit(1)


def register(group: click.Group) -> None:
    group.add_command(walk_cmd)
