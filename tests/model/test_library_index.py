"""The cached one-line summaries of the built-in robots (``robotsim robots``)."""

from __future__ import annotations

import json
import os

import pytest

from robotsim.model import library_index as li
from robotsim.model import library_names, load_robot


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(li.CACHE_ENV, str(tmp_path))
    return tmp_path


def test_summaries_match_the_models_and_are_cached(cache) -> None:
    rows = li.library_index()
    assert [r["name"] for r in rows] == library_names()
    for r in rows:
        m = load_robot(r["name"])
        assert (r["dof"], r["kind"], r["links"]) == (m.nq, m.kind, len(m.links))
    files = list(cache.glob("library-*.json"))
    assert len(files) == 1
    assert json.loads(files[0].read_text())["robots"] == rows
    assert li.library_index() == rows  # read back from the file


def test_a_stale_or_broken_cache_is_rebuilt(cache) -> None:
    rows = li.library_index()
    (f,) = cache.glob("library-*.json")
    data = json.loads(f.read_text())
    data["robots"][0]["dof"] = -1
    f.write_text(json.dumps(data))
    assert li.library_index()[0]["dof"] == -1  # same key: the file is trusted
    data["key"][1][2] += 1  # a library file changed since
    f.write_text(json.dumps(data))
    assert li.library_index() == rows
    f.write_text("{not json")
    assert li.library_index() == rows


def test_an_unwritable_cache_still_lists(tmp_path, monkeypatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(li.CACHE_ENV, str(blocker / "cache"))  # a folder inside a file
    assert [r["name"] for r in li.library_index()] == library_names()


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv(li.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert li.cache_dir() == tmp_path / "robotsim"
    monkeypatch.setenv(li.CACHE_ENV, os.fspath(tmp_path / "x"))
    assert li.cache_dir() == tmp_path / "x"
