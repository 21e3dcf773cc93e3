"""A refresh asked for while another runs is served, never dropped (the clearance
cursor stayed at the older time when a step landed during the loop's refresh)."""

from __future__ import annotations

import threading

import pytest

from robotsim.studio.coalesce import Coalesced


def test_a_call_during_a_run_is_served_by_the_running_thread_after_it():
    state = {"value": 1}
    shown: list[tuple[int, bool]] = []
    entered, release = threading.Event(), threading.Event()

    def draw(force: bool) -> None:
        seen = state["value"]
        if not shown:  # hold the first run until the second caller has asked
            entered.set()
            assert release.wait(5)
        shown.append((seen, force))

    refresh = Coalesced(draw)
    first = threading.Thread(target=refresh)
    first.start()
    assert entered.wait(5)
    state["value"] = 2
    refresh(force=True)  # returns at once: the first thread owes a second pass
    assert refresh.running
    release.set()
    first.join(5)
    assert shown == [(1, False), (2, True)]  # the newer state is the one left shown
    assert not refresh.running


def test_many_requests_during_one_run_fold_into_one_more_run():
    runs: list[bool] = []
    entered, release = threading.Event(), threading.Event()

    def draw(force: bool) -> None:
        runs.append(force)
        if len(runs) == 1:
            entered.set()
            assert release.wait(5)

    refresh = Coalesced(draw)
    t = threading.Thread(target=refresh)
    t.start()
    assert entered.wait(5)
    for _ in range(10):
        refresh()
    release.set()
    t.join(5)
    assert runs == [False, False]


def test_an_error_in_a_run_does_not_leave_it_marked_running():
    calls = []

    def draw(force: bool) -> None:
        calls.append(force)
        if len(calls) == 1:
            raise RuntimeError("drawing failed")

    refresh = Coalesced(draw)
    with pytest.raises(RuntimeError, match="drawing failed"):
        refresh()
    assert not refresh.running
    refresh(force=True)
    assert calls == [False, True]
