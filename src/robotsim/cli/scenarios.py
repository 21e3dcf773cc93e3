"""``robotsim scenarios [--json]``: the scenarios and motion programs shipped with
robotsim, each usable by name from any directory (``robotsim run soccer_obstacles``)."""

from __future__ import annotations

import click

from robotsim.cli.common import echo_json

__all__ = ["register"]


def _run_with(runs_as: str) -> str:
    """The command that runs a shipped file: the scenario kind's, or motion play."""
    from robotsim.scenario.kinds import KINDS

    if runs_as in ("program", "motion"):
        return "robotsim motion play"
    kind = KINDS.get(runs_as)
    return f"robotsim {kind.command if kind is not None else 'run'}"


@click.command("scenarios")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def scenarios_cmd(name: str | None, as_json: bool) -> None:
    """List the shipped scenarios and motion programs (give a NAME wherever a scenario
    or motion file is expected; a path to a file of your own works too). With NAME:
    print that file, to start your own from it (``robotsim scenarios NAME > my.yaml``)."""
    from robotsim.shipped import DATA, catalogue

    entries = catalogue()
    if name is not None:
        from robotsim.errors import UnknownNameError

        found = next((e for e in entries if e.name == name), None)
        if found is None:
            raise UnknownNameError("shipped scenario or motion", name, [e.name for e in entries])
        if as_json:
            echo_json({"name": found.name, "path": str(found.path),
                       "text": found.path.read_text(encoding="utf-8")})  # fmt: skip
        else:
            click.echo(found.path.read_text(encoding="utf-8"), nl=False)
        return
    if as_json:
        echo_json(
            [
                {
                    "name": e.name,
                    "kind": e.kind,
                    "runs_as": e.runs_as,
                    "description": e.description,
                    "run_with": _run_with(e.runs_as),
                    "path": str(e.path),
                }
                for e in entries
            ]
        )
        return
    width = max((len(e.name) for e in entries), default=0) + 2
    for kind, title in (("scenario", "scenarios"), ("motion", "motion programs")):
        click.echo(f"{title:<{width + 2}}{'run with':<22}description")
        for e in (e for e in entries if e.kind == kind):
            click.echo(f"  {e.name:<{width}}{_run_with(e.runs_as):<22}{e.description}")
    click.echo(
        "Give the NAME where a file is expected, e.g. 'robotsim run soccer_obstacles --out "
        "out/soccer'; 'robotsim studio NAME' shows a scenario."
    )
    click.echo(f"Files: {DATA} ('robotsim scenarios NAME > my.yaml' copies one to start your own)")


def register(group: click.Group) -> None:
    group.add_command(scenarios_cmd)
