"""``robotsim bench AREA [--json]``: speed figures (medians of repeats), with peer
libraries side by side when they are installed. Areas are modules of
:mod:`robotsim.bench` exposing ``run(quick: bool) -> dict``; list them in ``AREAS``."""

from __future__ import annotations

import importlib

import click

from robotsim.cli.common import echo_json

__all__ = ["AREAS", "register"]

AREAS: dict[str, str] = {
    "kinematics": "robotsim.bench.kinematics",
    "io": "robotsim.bench.io",
    "studio": "robotsim.bench.studio",
    "motion": "robotsim.bench.motion",
    "walk": "robotsim.bench.walk",
    "hands": "robotsim.bench.hands",
    "grasp": "robotsim.bench.grasp",
    "physics": "robotsim.bench.physics",
    "clearance": "robotsim.bench.clearance",
    "plan": "robotsim.bench.plan",
    "cli": "robotsim.bench.cli",
    "sweep": "robotsim.bench.sweep",
    "parsing": "robotsim.bench.parsing",
    "commands": "robotsim.bench.commands",
    "sensors": "robotsim.bench.sensors",
    "export": "robotsim.bench.export",
}


@click.command("bench")
@click.argument("area", type=click.Choice([*AREAS, "all"]))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--quick", is_flag=True, help="Fewer repeats and smaller sizes (smoke test).")
def bench_cmd(area: str, as_json: bool, quick: bool) -> None:
    """Measure speed: kinematics, ..., cli (start-up time) or all."""
    names = list(AREAS) if area == "all" else [area]
    result: dict[str, object] = {}
    for name in names:
        mod = importlib.import_module(AREAS[name])
        figures = mod.run(quick=quick)
        result.update(figures) if area != "all" else result.update({name: figures})
    if as_json:
        echo_json(result)
    else:
        for k, v in result.items():
            click.echo(f"{k}: {v}")


def register(group: click.Group) -> None:
    group.add_command(bench_cmd)
