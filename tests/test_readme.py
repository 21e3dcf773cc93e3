"""The README's Python snippets run as written (documentation is executed, not shown)."""

from __future__ import annotations

import re

from tests.paths import REPO


def test_readme_python_blocks_run() -> None:
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "the README shows Python usage"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_readme_commands_run_without_a_shell() -> None:
    """scripts/check_install.sh runs the README's commands as argument lists (no shell),
    so a redirection or a pipe there would be passed to robotsim as an argument."""
    import importlib.util
    import shlex

    spec = importlib.util.spec_from_file_location("rc", REPO / "scripts" / "readme_commands.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    commands = mod.readme_commands(REPO / "README.md")
    assert len(commands) > 10
    for cmd in commands:
        shell = {">", ">>", "<", "|", "&&", "||", ";", "&"} & set(shlex.split(cmd))
        assert not shell, f"README command {cmd!r} uses the shell ({', '.join(sorted(shell))})"
