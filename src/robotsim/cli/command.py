"""``robotsim command RUN KIND [ARGS...] --db URL``: send a command to a running
simulation through its run store (docs/commands.md), or read its status.

    robotsim run soccer_obstacles --db postgresql://... --commands     # terminal 1
    robotsim command last goal 2 1 --db postgresql://...               # terminal 2
    robotsim command last status --db postgresql://...
"""

from __future__ import annotations

import click

from robotsim.cli.common import echo_json

__all__ = ["register"]

_DB_HELP = "The run's store: a SQLite file or folder, or an SQLAlchemy URL (postgresql://...)."


@click.command(
    "command",
    context_settings={"ignore_unknown_options": True},  # negative numbers are arguments
)
@click.argument("run")
@click.argument("kind")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--db", required=True, help=_DB_HELP)
@click.option("--robot", default=None, help="The robot (needed when the run has several).")
@click.option(
    "--wait",
    type=float,
    default=10.0,
    show_default=True,
    help="Seconds to wait for the run to handle the command (0: do not wait).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the command's row as JSON.")
def command_cmd(
    run: str,
    kind: str,
    args: tuple[str, ...],
    db: str,
    robot: str | None,
    wait: float,
    as_json: bool,
) -> None:
    """Send KIND (goal X Y [THETA_DEG], velocity VX VY [W_DEG_S], joints NAME=TARGET...,
    pause, resume, stop) to RUN (an id or 'last'), or print its status (KIND = status).
    Exits 1 when the run refuses the command (the reason is printed)."""
    from robotsim.cli.runs import open_store_for_reading
    from robotsim.errors import InputError
    from robotsim.recording.commands import cli_args, read_status, send_command, wait_command

    store = open_store_for_reading(db)
    run_id = store.resolve(run)
    if kind == "status":
        if args:
            raise InputError("status takes no arguments")
        rows = read_status(store.engine, run_id)
        if as_json:
            echo_json({"run": run_id, "robots": rows})
            return
        if not rows:
            click.echo(f"run {run_id}: no status (not run with --commands?)")
        for r in rows:
            click.echo(
                f"run {run_id} t={r['t']:.2f} s {r['state']} {r['robot']}: mode={r['mode']} "
                f"pose=({r['x']:.3f}, {r['y']:.3f}, {r['theta']:.1f} deg) goal=({r['goal_x']:g}, "
                f"{r['goal_y']:g}, {r['goal_theta']:g} deg) reached={bool(r['reached'])}"
            )
        return
    parsed = cli_args(kind, args)
    info = store.run(run_id)
    if info.status.value != "running":
        raise InputError(f"run {run_id} is {info.status.value}: it takes no commands")
    cid = send_command(store.engine, run_id, kind, parsed, robot)
    if wait <= 0:
        click.echo(f"command {cid} sent")
        return
    row = wait_command(store.engine, cid, wait)
    if as_json:
        echo_json(row)
    elif row["status"] == "done":
        click.echo(f"command {cid} {kind}: done at t={row['sim_time']:.2f} s")
    if row["status"] == "failed":
        reason = row["reason"]
        click.echo(f"error: command {cid} {kind} refused by run {run_id}: {reason}", err=True)
        raise click.exceptions.Exit(1)
    if row["status"] == "pending":
        click.echo(
            f"error: command {cid} not handled within {wait:g} s (is run {run_id} running "
            "with --commands?); it stays pending",
            err=True,
        )
        raise click.exceptions.Exit(1)


def register(group: click.Group) -> None:
    group.add_command(command_cmd)
