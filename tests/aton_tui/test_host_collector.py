"""An app host's collector policy (``aton_tui.host_collector``): the apps running are frozen a
moment after they start, and everything is collected once enough sessions have ended — so a
dead session's cycles are returned though its app was frozen."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from aton_tui.host_collector import ENDED_SHARE, FULL_EVERY, NO_FULL_COLLECTIONS, HostCollector


class Node:
    """A reference cycle: freed by the cyclic collector only."""

    def __init__(self) -> None:
        self.itself = self


@pytest.fixture
def unfrozen():
    yield
    gc.unfreeze()  # (the test process's other tests expect nothing frozen)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_settling_freezes_the_running_apps_and_collects_what_they_dropped(unfrozen):
    collector = HostCollector(asyncio.get_running_loop(), lambda: 1)
    kept, dropped = Node(), Node()
    kept_ref, dropped_ref = weakref.ref(kept), weakref.ref(dropped)
    del dropped
    collector.settle()
    assert dropped_ref() is None  # collected before the freeze, not frozen with the rest
    assert id(kept) not in {id(o) for o in gc.get_objects()}  # no collection walks it any more
    assert kept_ref() is kept


async def test_an_app_frozen_then_dropped_is_collected_once_its_session_has_ended(unfrozen, monkeypatch):
    monkeypatch.setattr("aton_tui.host_collector.SETTLE_AFTER", 0.0)
    collector = HostCollector(asyncio.get_running_loop(), lambda: 0)
    app = Node()  # an ended session's app: frozen while it ran, in cycles when it ends
    ref = weakref.ref(app)
    collector.settle()
    del app
    gc.collect()
    assert ref() is not None  # frozen: an ordinary collection does not see it
    collector.session_ended()
    await asyncio.sleep(0.01)
    assert ref() is None


async def test_a_full_collection_waits_for_a_share_of_the_sessions_to_end(unfrozen):
    running = 8
    collector = HostCollector(asyncio.get_running_loop(), lambda: running)
    ends = int(ENDED_SHARE * running)
    for _ in range(ends - 1):
        collector.session_ended()
    assert not collector.full_wanted  # fewer than a quarter of the 8 sessions running
    collector.session_ended()
    assert collector.full_wanted
    collector.stop()


async def test_a_full_collection_comes_after_a_long_while_if_sessions_came_or_went(unfrozen, monkeypatch):
    monkeypatch.setattr("aton_tui.host_collector.SETTLE_EVERY", 0.01)
    clock = Clock()
    collector = HostCollector(asyncio.get_running_loop(), lambda: 100, clock=clock)
    full: list[float] = []
    collect_all = collector.collect_all

    def counted() -> None:
        full.append(clock.now)
        collect_all()

    monkeypatch.setattr(collector, "collect_all", counted)
    collector.start()
    try:
        clock.now += FULL_EVERY
        await asyncio.sleep(0.05)
        assert full == []  # nothing came or went: no need to walk the heap
        collector.session_ended()  # one of 100: not a quarter
        await asyncio.sleep(0.05)
        assert full == [FULL_EVERY]
    finally:
        collector.stop()


async def test_sessions_starting_or_ending_together_are_collected_once(unfrozen, monkeypatch):
    monkeypatch.setattr("aton_tui.host_collector.SETTLE_AFTER", 0.0)
    collector = HostCollector(asyncio.get_running_loop(), lambda: 0)
    done = []
    monkeypatch.setattr(collector, "settle", lambda: done.append("settle"))
    monkeypatch.setattr(collector, "collect_all", lambda: done.append("all"))
    for _ in range(3):
        collector.started()
    await asyncio.sleep(0.01)
    for _ in range(3):
        collector.session_ended()
    collector.started()
    await asyncio.sleep(0.01)
    assert done == ["settle", "all"]  # (a full collection settles the sessions started with it)
    collector.stop()


async def test_running_it_takes_over_the_full_collections_and_gives_them_back(unfrozen):
    before = gc.get_threshold()
    collector = HostCollector(asyncio.get_running_loop(), lambda: 0)
    collector.start()
    assert gc.get_threshold() == (*before[:2], NO_FULL_COLLECTIONS)  # CPython's own never come
    collector.stop()
    assert gc.get_threshold() == before


async def settles_after(collector: HostCollector, monkeypatch, act) -> int:
    """Run ``act`` and count the collector's settling until it has settled twice (or 5 s have gone)."""
    done: list[str] = []
    monkeypatch.setattr(collector, "settle", lambda: done.append("settle"))
    act()
    for _ in range(500):
        if len(done) >= 2:
            break
        await asyncio.sleep(0.01)
    return len(done)


async def test_while_apps_are_built_what_they_make_is_settled_again_and_again(unfrozen, monkeypatch):
    monkeypatch.setattr("aton_tui.host_collector.SETTLE_AFTER", 3600.0)
    monkeypatch.setattr("aton_tui.host_collector.SETTLE_EVERY", 3600.0)
    monkeypatch.setattr("aton_tui.host_collector.SETTLE_EVERY_BUSY", 0.01)
    collector = HostCollector(asyncio.get_running_loop(), lambda: 1)
    collector.start()
    try:
        assert await settles_after(collector, monkeypatch, collector.started) >= 2  # (not at the idle pace)
    finally:
        collector.stop()


async def test_idle_it_still_settles_every_so_often(unfrozen, monkeypatch):
    monkeypatch.setattr("aton_tui.host_collector.SETTLE_AFTER", 0.0)
    monkeypatch.setattr("aton_tui.host_collector.SETTLE_EVERY", 0.01)
    collector = HostCollector(asyncio.get_running_loop(), lambda: 1)
    try:
        assert await settles_after(collector, monkeypatch, collector.start) >= 2
    finally:
        collector.stop()
