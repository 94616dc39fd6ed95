"""What docs/protocol.md says of the wire, checked against a real server on loopback.

Each test is one statement of the document that a client written from it alone relies
on: found where the document and the server once disagreed, or where it was silent.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest

from protocol import messages as m
from protocol.commitment import commitment_digest
from protocol.framing import decode_payload, encode_frame
from server.app import ArbiterServer
from server.config import ServerConfig, TimeControl

from ..manual_clock import ManualClock
from .players import Recorder, matched_pair


async def human(port: int, name: str, lobby: bool = False) -> Recorder:
    return await Recorder.connect(port, name, kind="human", lobby=lobby)


def has_event(kind: str, **fields: object) -> Callable[[m.Update], bool]:
    """A predicate: an update that carries an event of ``kind`` with these ``fields``."""
    def matching(update: m.Update) -> bool:
        return any(e["type"] == kind and all(e.get(k) == v for k, v in fields.items()) for e in update.events)
    return matching


# ---------------------------------------------------------------------- sealed commitments

async def test_every_accepted_opening_is_announced_to_everyone_by_an_opened_event(server):
    red, blue = await matched_pair(server.port)
    spectator = await Recorder.connect(server.port, "sue", kind="spectator", lobby=False)
    await spectator.send(m.Watch(game=red.game))
    await spectator.expect(m.GameState)
    await red.client.commit(red.game, list(red.view["decision"]["hand"]))
    await blue.client.commit(blue.game, list(blue.view["decision"]["hand"]))
    # both clients open by themselves when asked (while they read), until the cards are revealed
    players_read = asyncio.gather(*(p.until(has_event("card_revealed"), kind=m.Update) for p in (red, blue)))
    # the first opening is announced on its own...
    first = await spectator.until(has_event("opened"), kind=m.Update)
    assert [e["type"] for e in first.events] == ["opened"]
    opener = first.events[0]["player"]
    assert m.commitments_of(first)[opener] == "opened"
    # ...and the second one in the update that applies both and reveals the cards
    second = await spectator.until(has_event("opened"), kind=m.Update)
    assert second.events[0] == {"type": "opened", "player": "blue" if opener == "red" else "red",
                                "version": first.version + 1}
    assert any(e["type"] == "card_revealed" for e in second.events)
    await players_read
    for player in (red, blue):
        told = [e["player"] for e in player.events() if e["type"] == "opened"]
        assert told == [opener, second.events[0]["player"]]


# ---------------------------------------------------------------------- time-outs

@pytest.fixture
async def one_strike_server(tmp_path):
    """A server on a manual clock whose 'normal' games are lost at the first time-out."""
    control = TimeControl(commit=90, open=15, move=30, grace=60, max_strikes=1)
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "strike.db"), game_seed=5,
                                     time_controls={"normal": control}), clock=ManualClock())
    await srv.start()
    yield srv
    await srv.stop()


async def test_the_time_out_that_loses_the_game_is_announced_before_the_result(one_strike_server):
    _red, blue = await matched_pair(one_strike_server.port)
    await blue.client.commit(blue.game, list(blue.view["decision"]["hand"]))
    await blue.expect(m.Ack)
    one_strike_server.clock.advance(90)  # red does nothing: its first time-out is its last
    final = await blue.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    kinds = [e["type"] for e in final.events]
    assert kinds[0] == "timeout" and kinds[-1] == "game_over"
    timeout = final.events[0]
    assert (timeout["player"], timeout["action"], timeout["strikes"], timeout["forfeit"]) == ("red", "commit", 1, True)
    assert (final.events[-1]["winner"], final.events[-1]["reason"]) == ("blue", "time")
    assert final.view["red"]["committed"] is False  # no default move was played for red


async def test_a_commitment_left_unopened_loses_with_a_timeout_event(one_strike_server):
    red, blue = await matched_pair(one_strike_server.port)
    await blue.client.commit(blue.game, list(blue.view["decision"]["hand"]))
    await blue.expect(m.Ack)
    # red seals a digest its client does not hold, so it never opens; blue opens when asked
    await red.send(m.Commit(game=red.game, digest=commitment_digest([1, 2, 3, 4], bytes(16))))
    await red.expect(m.Ack)
    await blue.until(has_event("opened", player="blue"), kind=m.Update)
    one_strike_server.clock.advance(15)
    final = await blue.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    timeout = next(e for e in final.events if e["type"] == "timeout")
    assert (timeout["player"], timeout["action"], timeout["forfeit"]) == ("red", "open", True)
    assert final.view["reason"] == "time"


async def test_a_time_out_that_plays_the_default_move_says_it_is_no_forfeit(server):
    red, blue = await matched_pair(server.port)
    await blue.client.commit(blue.game, list(blue.view["decision"]["hand"]))
    await blue.expect(m.Ack)
    state = next(f for f in red.frames if isinstance(f, m.GameState))
    server.clock.advance(state.options["time_control"]["commit"])
    update = await blue.until(has_event("timeout"), kind=m.Update)
    timeout = next(e for e in update.events if e["type"] == "timeout")
    assert (timeout["action"], timeout["strikes"], timeout["forfeit"]) == ("commit", 1, False)
    assert update.view["winner"] is None


# ---------------------------------------------------------------------- what answers a request

async def test_requests_that_start_a_game_are_answered_by_its_game_state_without_reply_to(server):
    alone = await human(server.port, "ada")
    request = await alone.send(m.PlayBot(level="random"))
    state = await alone.expect(m.GameState)
    assert request is not None and state.reply_to is None

    host, guest = await human(server.port, "hana"), await human(server.port, "gus")
    await host.send(m.CreateTable())
    table = await host.expect(m.TableCreated)
    await guest.send(m.JoinTable(table=table.table))
    assert (await guest.expect(m.GameState)).reply_to is None
    assert (await host.expect(m.GameState)).reply_to is None

    await host.send(m.CreateTable(private=True))
    invite = (await host.expect(m.TableCreated)).invite
    assert invite is not None
    await guest.send(m.JoinInvite(code=invite))
    assert (await guest.until(lambda f: f.game != table.table, kind=m.GameState)).reply_to is None

    first, second = await human(server.port, "qa"), await human(server.port, "qb")
    await first.send(m.QuickMatch(clock="blitz"))
    assert (await first.expect(m.Queued)).reply_to is not None
    await second.send(m.QuickMatch(clock="blitz"))
    assert (await second.expect(m.GameState)).reply_to is None
    assert (await first.expect(m.GameState)).reply_to is None


async def test_omitted_clock_and_level_are_normal(server):
    host = await human(server.port, "hana")
    await host.send(m.CreateTable())
    created = await host.expect(m.TableCreated)
    assert (created.clock, created.private) == ("normal", False)
    # the frame on the wire carries no clock, level or seat at all
    player = await human(server.port, "ada")
    player.client.writer.write(encode_frame({"type": "play_bot", "id": 9}))
    state = await player.expect(m.GameState)
    bot_seat = "blue" if state.seat == "red" else "red"
    assert state.options["clock"] == "normal"
    assert state.players[bot_seat]["name"] == "Bot (normal)"


# ---------------------------------------------------------------------- the lobby

async def test_a_connection_waits_in_one_place_only(server):
    watcher = await human(server.port, "wanda", lobby=True)
    await watcher.expect(m.Lobby)
    waiting = await human(server.port, "wes")
    await waiting.send(m.CreateTable(clock="blitz"))
    table = await waiting.expect(m.TableCreated)
    # asking for a quick match closes the open table...
    await waiting.send(m.QuickMatch(clock="relaxed"))
    await waiting.expect(m.Queued)
    closed = await watcher.until(lambda f: f.section == "tables" and f.op == "remove", kind=m.LobbyUpdate)
    assert closed.item == {"table": table.table}
    # ...and opening a table leaves the queue: the next relaxed quick match waits instead of pairing
    await waiting.send(m.CreateTable(clock="blitz"))
    await waiting.expect(m.TableCreated)
    other = await human(server.port, "otto")
    await other.send(m.QuickMatch(clock="relaxed"))
    await other.expect(m.Queued)


async def test_a_tables_since_is_whole_seconds_of_unix_time(server):
    watcher = await human(server.port, "wanda", lobby=True)
    await watcher.expect(m.Lobby)
    host = await human(server.port, "hana")
    await host.send(m.CreateTable())
    added = await watcher.until(lambda f: f.section == "tables", kind=m.LobbyUpdate)
    late = await human(server.port, "lena", lobby=True)
    snapshot = await late.expect(m.Lobby)
    for since in (added.item["since"], snapshot.tables[0]["since"]):
        assert type(since) is int and since > 1_700_000_000


# ---------------------------------------------------------------------- records

async def _finished_bot_game_record(port: int) -> tuple[m.GameState, bytes]:
    """A resigned game against a hosted bot, its first game_state and its record frame's raw payload."""
    player = await human(port, "ada")
    await player.send(m.PlayBot(level="random"))
    state = await player.expect(m.GameState)
    await player.send(m.Resign(game=state.game))
    await player.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    player.client.writer.write(encode_frame({"type": "get_record", "game": state.game}))
    while True:  # read raw frames: the record's payload bytes are what is checked
        length = struct.unpack(">I", await asyncio.wait_for(player.client.reader.readexactly(4), 5))[0]
        payload = await player.client.reader.readexactly(length)
        if decode_payload(payload).get("type") == "record":
            return state, payload


async def test_a_records_seed_exceeds_2_to_the_53_and_is_sent_as_a_64_bit_integer(tmp_path):
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "s.db"), game_seed=1))
    await srv.start()
    try:
        _, payload = await _finished_bot_game_record(srv.port)
    finally:
        await srv.stop()
    seed = decode_payload(payload)["record"]["seed"]
    assert 2**53 < seed < 2**63  # beyond a JavaScript number's exact integers
    assert b"\xcf" + seed.to_bytes(8, "big") in payload  # msgpack uint 64: exact for a BigInt decoder


async def test_a_record_calls_a_hosted_bot_hosted_where_the_game_state_says_bot(server):
    state, payload = await _finished_bot_game_record(server.port)
    bot_seat = "blue" if state.seat == "red" else "red"
    assert state.players[bot_seat]["kind"] == "bot"
    record = decode_payload(payload)["record"]
    meta = record["meta"]
    assert set(meta) == {"game", "players", "options", "status", "result",  # as docs/records.md lists
                         "started", "ended", "move_times"}
    assert meta["status"] == "over" and set(meta["result"]) == {"winner", "reason", "round", "scores"}
    players = meta["players"]
    assert players[bot_seat] == {"name": "Bot (random)", "kind": "hosted", "guest": False}
    assert players[state.seat] == {"name": "ada", "kind": "human", "guest": False}  # ada proved her account
    for date in (meta["started"], meta["ended"]):  # ISO 8601 in UTC, to the second
        assert datetime.fromisoformat(date).utcoffset() == timedelta(0) and date.endswith("Z") and len(date) == 20
    assert meta["started"] <= meta["ended"]
    assert len(meta["move_times"]) == len(record["moves"]) and meta["move_times"] == sorted(meta["move_times"])
