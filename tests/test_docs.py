"""Documentation that cannot drift: every Python and shell example in docs/ and the
README runs here, page by page, from a folder that is not the checkout
(``tests/docs_blocks.py`` says how; STYLE.md: "documentation snippets are executed,
not just shown")."""

from __future__ import annotations

import os

import pytest

from tests.docs_blocks import RUN_TAGS, docs_blocks, run_block, untested_commands
from tests.paths import REPO

PAGES = docs_blocks()
RUNNABLE = {
    page: [b for b in blocks if b.tag in RUN_TAGS and not b.not_run]
    for page, blocks in PAGES.items()
}


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(p for p, bl in RUNNABLE.items() if bl))
def test_page_examples_run(page: str, tmp_path) -> None:
    for folder in ("examples", "sweeps"):  # what the docs use "from a checkout"
        os.symlink(REPO / folder, tmp_path / folder)
    for block in RUNNABLE[page]:
        run_block(block, tmp_path)


def test_no_example_hides_in_a_block_that_does_not_run() -> None:
    hidden = [line for blocks in PAGES.values() for line in untested_commands(blocks)]
    assert not hidden, "tag these ```bash (they run) or make them synopses:\n" + "\n".join(hidden)


def test_the_documents_are_listed_in_the_readme() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    pages = sorted((REPO / "docs").glob("*.md"))
    missing = [p.name for p in pages if f"docs/{p.name}" not in readme]
    assert not missing, f"README.md does not list: {', '.join(missing)}"


def test_blocks_not_run_say_why_and_are_few() -> None:
    skipped = [b for blocks in PAGES.values() for b in blocks if b.not_run]
    for b in skipped:
        assert len(b.not_run) >= 15, f"{b.where}: say why it does not run"
    assert len(skipped) <= 5, "examples that do not run: " + ", ".join(b.where for b in skipped)
