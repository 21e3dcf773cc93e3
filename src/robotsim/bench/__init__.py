"""Benchmarks behind ``robotsim bench``: each module's ``run(quick)`` returns a dict of
figures (medians of several repeats) plus peer figures where peers are installed."""

__all__: list[str] = []  # the areas are modules, run by name (robotsim.cli.bench.AREAS)
