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
