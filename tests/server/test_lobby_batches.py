"""The lobby's updates in batches: at most one a ``lobby_update_interval``, the latest state of
each entry, nothing lost (issue 17, point 1: n logins cost n² lobby updates).

A real server on a loopback port with a manual clock: the interval ends only when the test
says so, and real protocol clients see what it sent."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from protocol import messages as m
from server.app import ArbiterServer
from server.config import Limits, ServerConfig
from server.room import Room

from ..conftest import GAME_SEED
from ..manual_clock import ManualClock
from .players import Recorder, matched_pair

INTERVAL = Limits().lobby_update_interval
ARRIVALS = 50


class Mirror:
    """A lobby client's copy of the lobby, strict about what it is told: an ``add`` only of an
    entry it has not got, an ``update`` or a ``remove`` only of one it has."""

    def __init__(self, snapshot: m.Lobby) -> None:
        self.sections: dict[str, dict[Any, dict]] = {
            name: {entry[m.LOBBY_KEYS[name]]: entry for entry in entries}
            for name, entries in (("players", snapshot.players), ("tables", snapshot.tables),
                                  ("games", snapshot.games))}

    def apply(self, update: m.LobbyUpdate) -> None:
        entries, key = self.sections[update.section], update.item[m.LOBBY_KEYS[update.section]]
        assert (key in entries) == (update.op != "add"), f"{update.op} of {key!r}, held: {key in entries}"
        if update.op == "remove":
            del entries[key]
        else:
            entries[key] = update.item


async def received_since(client: Recorder, mark: int) -> list[m.LobbyUpdate]:
    """The lobby updates ``client`` has received since ``mark`` (a length of its frames): a
    ping's pong comes after every frame the server sent before it."""
    await client.send(m.Ping())
    await client.expect(m.Pong)
    return [f for f in client.frames[mark:] if isinstance(f, m.LobbyUpdate)]


async def lobby_client(port: int, name: str) -> tuple[Recorder, Mirror]:
    client = await Recorder.connect(port, name, kind="human")
    return client, Mirror(await client.expect(m.Lobby))


@pytest.fixture
async def batched(tmp_path):
    """A server whose lobby batches its updates (at the default interval) on a manual clock."""
    clock = ManualClock()
    # all from 127.0.0.1; every player on the snapshot's first page, so that a copy holds the whole lobby
    limits = Limits(max_connections_per_address=2 * ARRIVALS, lobby_page_entries=2 * ARRIVALS)
    assert limits.lobby_update_interval == INTERVAL > 0
    server = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db"),
                                        game_seed=GAME_SEED, limits=limits), clock=clock)
    await server.start()
    yield server, clock
    await server.stop()


def live(server: ArbiterServer) -> dict[str, dict[Any, dict]]:
    return {name: dict(section.entries) for name, section in server.lobby.sections.items()}


async def test_fifty_arrivals_within_an_interval_cost_each_lobby_client_one_batch(batched):
    server, clock = batched
    watchers = [await lobby_client(server.port, f"watcher{i}") for i in range(5)]
    clock.advance(INTERVAL)  # the watchers' own arrivals go out
    for client, mirror in watchers:
        for update in await received_since(client, 0):
            mirror.apply(update)
    marks = [len(client.frames) for client, _ in watchers]

    arrivals = [await lobby_client(server.port, f"newcomer{i:02}") for i in range(ARRIVALS)]
    assert clock.pending().count(2 * INTERVAL) == 1  # one batch waits, for the end of this interval
    for (client, _), mark in zip(watchers, marks, strict=True):
        assert await received_since(client, mark) == []  # nothing before the interval ends
    clock.advance(INTERVAL)
    for (client, mirror), mark in zip(watchers, marks, strict=True):
        updates = await received_since(client, mark)
        assert [(u.section, u.op) for u in updates] == [("players", "add")] * ARRIVALS  # each once
        assert [u.item["name"] for u in updates] == [f"newcomer{i:02}" for i in range(ARRIVALS)]
        for update in updates:
            mirror.apply(update)
        assert mirror.sections == live(server)
    # a newcomer's snapshot was the lobby as it was then: the batch brings only who came after it
    for i, (client, mirror) in enumerate(arrivals):
        updates = await received_since(client, 0)
        assert [u.item["name"] for u in updates] == [f"newcomer{j:02}" for j in range(i + 1, ARRIVALS)]
        for update in updates:
            mirror.apply(update)
        assert mirror.sections == live(server)
    assert server.lobby.changed == {} and 3 * INTERVAL not in clock.pending()  # nothing more to send


async def test_a_batch_carries_each_entry_once_in_its_latest_state(batched):
    server, clock = batched
    watcher, mirror = await lobby_client(server.port, "wanda")
    host = await Recorder.connect(server.port, "hana", kind="human", lobby=False)
    passing = await Recorder.connect(server.port, "pat", kind="human", lobby=False)
    clock.advance(INTERVAL)
    for update in await received_since(watcher, 0):
        mirror.apply(update)
    mark = len(watcher.frames)

    # within one interval: hana opens a table, closes it and opens another; pat leaves
    await host.send(m.CreateTable(clock="blitz"))
    first = (await host.expect(m.TableCreated)).table
    await host.send(m.Leave())
    await host.expect(m.Left)
    await host.send(m.CreateTable(clock="relaxed"))
    second = (await host.expect(m.TableCreated)).table
    await passing.close()
    await received_since(host, 0)
    assert await received_since(watcher, mark) == []
    clock.advance(INTERVAL)
    updates = await received_since(watcher, mark)
    said = [(u.section, u.op, u.item.get("name", u.item.get("table"))) for u in updates]
    assert sorted(said, key=str) == sorted([("players", "update", "hana"), ("tables", "add", second),
                                            ("players", "remove", "pat")], key=str)
    assert first not in [u.item.get("table") for u in updates]  # it came and went within the interval
    status = next(u.item["status"] for u in updates if u.item.get("name") == "hana")
    assert status == "waiting"  # its latest state, once
    for update in updates:
        mirror.apply(update)
    assert mirror.sections == live(server)

    # the last change alone (no other to wait for) comes too, at the end of its interval
    await host.send(m.Leave())
    await host.expect(m.Left)
    clock.advance(INTERVAL)
    for update in await received_since(watcher, len(watcher.frames)):
        mirror.apply(update)
    assert mirror.sections == live(server)
    assert mirror.sections["players"]["hana"]["status"] == "lobby" and mirror.sections["tables"] == {}


async def test_a_page_asked_for_within_an_interval_is_not_told_again(batched):
    server, clock = batched
    watcher, mirror = await lobby_client(server.port, "wanda")
    clock.advance(INTERVAL)
    for update in await received_since(watcher, 0):
        mirror.apply(update)
    arrived = [await Recorder.connect(server.port, f"p{i}", kind="human", lobby=False) for i in range(3)]
    await watcher.send(m.GetLobbyPage(section="players"))
    page = await watcher.expect(m.LobbyPage)
    assert {p["name"] for p in page.entries} == {"wanda", "p0", "p1", "p2"}
    mirror.sections["players"] = {p["name"]: p for p in page.entries}
    mark = len(watcher.frames)
    await arrived[0].close()
    await received_since(arrived[1], 0)
    clock.advance(INTERVAL)
    updates = await received_since(watcher, mark)
    assert [(u.op, u.item["name"]) for u in updates] == [("remove", "p0")]  # not p1 and p2 again
    mirror.apply(updates[0])
    assert mirror.sections == live(server)


async def test_a_game_played_within_an_interval_is_looked_at_once_and_told_once(batched, monkeypatch):
    """A game's lobby entry is brought up to date once a batch, not at every move: the moves of
    two rounds within one interval reach a lobby client as one update of the game as it stands
    at the end, and a newcomer within the interval is shown it as it stands then."""
    server, clock = batched
    watcher, mirror = await lobby_client(server.port, "wanda")
    red, blue = await matched_pair(server.port)
    clock.advance(INTERVAL)
    for update in await received_since(watcher, 0):
        mirror.apply(update)
    assert mirror.sections["games"][red.game]["round"] == 1
    mark = len(watcher.frames)
    looks = 0
    signature = Room.lobby_signature

    def counted(room: Room) -> tuple:
        nonlocal looks
        looks += 1
        return signature(room)

    monkeypatch.setattr(Room, "lobby_signature", counted)
    by_round = lambda n: lambda player: player.view["round"] >= n  # noqa: E731
    await asyncio.gather(red.play(random.Random(5), stop=by_round(3)), blue.play(random.Random(6), stop=by_round(3)))
    assert looks == 0 and await received_since(watcher, mark) == []  # moves enough, nothing looked at yet
    newcomer, shown = await lobby_client(server.port, "nell")
    assert shown.sections["games"][red.game]["round"] == 3 and looks == 1  # shown as it stands
    clock.advance(INTERVAL)
    updates = [u for u in await received_since(watcher, mark) if u.section == "games"]
    assert [(u.op, u.item["game"], u.item["round"]) for u in updates] == [("update", red.game, 3)]
    assert looks == 1  # the game has not changed since the newcomer was shown it
    for update in updates:
        mirror.apply(update)
    assert mirror.sections["games"] == live(server)["games"]
    await newcomer.close()
