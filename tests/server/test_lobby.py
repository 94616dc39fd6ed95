"""The lobby: presence, tables, invite codes, quick match, bots and watching, live."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Callable

import pytest

from protocol import messages as m
from protocol.client import ServerError
from protocol.framing import encode_payload
from protocol.names import name_order
from server.accounts import bot_name
from server.app import ArbiterServer
from server.config import Limits, ServerConfig

from .players import Recorder, matched_pair, public_games


async def human(port: int, name: str, lobby: bool = True) -> Recorder:
    return await Recorder.connect(port, name, kind="human", lobby=lobby)


async def test_a_subscriber_gets_a_snapshot_then_live_updates(server):
    watcher = await human(server.port, "wanda")
    snapshot = await watcher.expect(m.Lobby)
    assert [p["name"] for p in snapshot.players] == ["wanda"]
    host = await human(server.port, "hana", lobby=False)
    joined = await watcher.expect(m.LobbyUpdate)
    assert (joined.section, joined.op, joined.item["name"]) == ("players", "add", "hana")
    await host.send(m.CreateTable(clock="blitz"))
    created = await host.expect(m.TableCreated)
    update = await watcher.until(lambda f: f.section == "tables", kind=m.LobbyUpdate)
    assert update.op == "add"
    assert update.item == {"table": created.table, "host": "hana", "kind": "aton", "clock": "blitz", "private": False,
                           "rated": False,
                           "since": update.item["since"],
                           "rating": {"rating": 1500, "provisional": True}}  # hana's account's, a newcomer's
    await host.close()
    gone = await watcher.until(lambda f: f.op == "remove" and f.section == "tables", kind=m.LobbyUpdate)
    assert gone.item == {"table": created.table}


async def test_names_are_unique_among_players_online(server):
    first = await human(server.port, "sam", lobby=False)
    second = await human(server.port, "sam", lobby=False)
    assert (first.client.name, second.client.name) == ("sam", "sam-2")


async def test_join_a_public_table(server):
    host = await human(server.port, "hana", lobby=False)
    guest = await human(server.port, "gus", lobby=False)
    await host.send(m.CreateTable(clock="relaxed"))
    table = (await host.expect(m.TableCreated)).table
    await guest.send(m.JoinTable(table=table))
    states = await asyncio.gather(host.expect(m.GameState), guest.expect(m.GameState))
    assert {s.seat for s in states} == {"red", "blue"}
    assert states[0].game == table
    assert states[0].options["clock"] == "relaxed"
    assert states[0].options["time_control"]["commit"] == 300
    host_seat = states[0].seat
    assert host_seat is not None
    assert states[0].players[host_seat]["name"] == "hana"


async def test_a_private_table_is_hidden_and_joined_by_invite_code(server):
    watcher = await human(server.port, "wanda")
    await watcher.expect(m.Lobby)
    host = await human(server.port, "hana", lobby=False)
    await host.send(m.CreateTable(private=True))
    created = await host.expect(m.TableCreated)
    assert created.private and created.invite is not None and len(created.invite) == 6
    guest = await human(server.port, "gus", lobby=False)
    await guest.send(m.JoinTable(table=created.table))
    assert (await guest.expect(m.Error)).code == "not_found"
    await guest.send(m.JoinInvite(code=created.invite.lower()))
    state = (await asyncio.gather(host.expect(m.GameState), guest.expect(m.GameState)))[0]
    assert state.options["private"] is True
    await watcher.send(m.Ping())
    await watcher.expect(m.Pong)  # every lobby update sent before the pong has arrived now
    sections = {f.section for f in watcher.frames if isinstance(f, m.LobbyUpdate)}
    assert "tables" not in sections  # the private table never showed up
    assert "games" not in sections  # nor its game


async def test_a_wrong_invite_code_is_not_found(server):
    guest = await human(server.port, "gus", lobby=False)
    await guest.send(m.JoinInvite(code="NOPE42"))
    error = await guest.expect(m.Error)
    assert error.code == "not_found"
    assert "NOPE42" in error.message


async def test_quick_match_pairs_the_next_two_players_with_the_same_clock(server):
    a = await human(server.port, "a", lobby=False)
    b = await human(server.port, "b", lobby=False)
    c = await human(server.port, "c", lobby=False)
    await a.send(m.QuickMatch(clock="blitz"))
    await a.expect(m.Queued)
    await b.send(m.QuickMatch(clock="normal"))
    await b.expect(m.Queued)
    await c.send(m.QuickMatch(clock="blitz"))
    state_a, state_c = await asyncio.gather(a.expect(m.GameState), c.expect(m.GameState))
    assert state_a.game == state_c.game
    assert state_a.options["clock"] == "blitz"


async def test_leave_takes_a_player_out_of_the_queue(server):
    a = await human(server.port, "a", lobby=False)
    await a.send(m.QuickMatch())
    await a.expect(m.Queued)
    await a.send(m.Leave())
    await a.expect(m.Left)
    b = await human(server.port, "b", lobby=False)
    await b.send(m.QuickMatch())
    assert isinstance(await b.expect(m.Queued), m.Queued)


async def test_play_a_bot_starts_at_once_and_the_bot_plays(server):
    player = await human(server.port, "pat", lobby=False)
    await player.send(m.PlayBot(level="random", seat="red"))
    state = await player.expect(m.GameState)
    assert state.seat == "red"
    assert state.players["blue"] == {"name": "Bot (random)", "kind": "bot", "connected": True,
                                     "rating": 700, "provisional": True}  # where the random level starts
    await player.client.commit(player.game, list(player.view["decision"]["hand"]))
    update = await player.until(lambda f: any(e["type"] == "card_revealed" for e in f.events), kind=m.Update)
    assert any(e["type"] == "committed" and e["player"] == "blue" for e in player.events())
    assert update.view["blue"]["cartouches"][0] is not None


async def test_a_spectator_watches_a_public_game_and_cannot_play_in_it(server):
    host = await human(server.port, "hana", lobby=False)
    guest = await human(server.port, "gus", lobby=False)
    await host.send(m.CreateTable())
    table = (await host.expect(m.TableCreated)).table
    await guest.send(m.JoinTable(table=table))
    await asyncio.gather(host.expect(m.GameState), guest.expect(m.GameState))
    fan = await Recorder.connect(server.port, "fan", kind="spectator")
    snapshot = await fan.expect(m.Lobby)
    assert [g["game"] for g in snapshot.games] == [table]
    await fan.send(m.Watch(game=table))
    state = await fan.expect(m.GameState)
    assert state.seat is None
    assert state.view["decision"] is None
    assert state.view["red"]["hand"] is None and state.view["blue"]["hand"] is None
    await fan.send(m.Resign(game=table))
    assert (await fan.expect(m.Error)).code == "not_allowed"
    await fan.send(m.CreateTable())
    assert (await fan.expect(m.Error)).message.startswith("spectators cannot take a seat")


async def test_a_bot_game_is_private_and_cannot_be_watched(server):
    player = await human(server.port, "pat", lobby=False)
    await player.send(m.PlayBot(level="random"))
    state = await player.expect(m.GameState)
    fan = await Recorder.connect(server.port, "fan", kind="spectator", lobby=False)
    await fan.send(m.Watch(game=state.game))
    assert (await fan.expect(m.Error)).code == "not_found"


async def test_a_refused_hello_raises_in_the_client(server):
    with pytest.raises(ServerError) as info:
        await Recorder.connect(server.port, "x" * 30)
    assert info.value.code == "invalid"


@pytest.mark.parametrize("proposed, problem", [
    ("\u200d" * 24, "U+200D (ZERO WIDTH JOINER) is an invisible formatting character"),
    (" ", "a name needs at least one visible character"),
    ("\u3164", "U+3164 (HANGUL FILLER) shows nothing"),
    ("\u115f\u1160\u3164", "U+115F (HANGUL CHOSEONG FILLER) shows nothing"),
    ("Bot (hard)", 'it looks like "Bot (hard)", a name this server keeps for itself'),
    ("bot hard", 'it looks like "Bot (hard)"'),
    ("aton-server", 'it looks like "aton-server"'),
    ("\u6f22" * 24, "48 columns wide (a wide character counts as two); at most 24"),
    ("p\u0430ypal", "it mixes Latin and Cyrillic letters, which look alike"),
], ids=["zero-width joiners", "a space", "a Hangul filler", "Hangul fillers", "a hosted bot",
        "a hosted bot, spelt loosely", "the server", "24 wide characters", "Latin and Cyrillic"])
async def test_a_name_that_hides_or_imitates_is_refused_saying_why(server, proposed, problem):
    with pytest.raises(ServerError) as info:
        await human(server.port, proposed)
    assert (info.value.code, info.value.error.field) == ("invalid", "name")
    assert problem in info.value.error.message
    assert not server.lobby.online  # nobody came in under it


async def test_the_names_of_a_servers_bots_and_its_own_name_are_kept_for_them(tmp_path):
    server = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db"), server_name="Nile Hall"))
    await server.start()
    try:
        for proposed in [bot_name(level) for level in m.BOT_LEVELS] + ["Nile Hall", "NILE-HALL 2"]:
            with pytest.raises(ServerError, match="a name this server keeps for itself"):
                await human(server.port, proposed, lobby=False)
        player = await human(server.port, "aton-server", lobby=False)  # another server's name is free here
        assert player.client.name == "aton-server"
    finally:
        await server.stop()


async def test_names_are_normalised_and_lookalikes_of_a_name_online_get_a_suffix(server):
    watcher = await human(server.port, "wanda")
    await watcher.expect(m.Lobby)
    lone = await human(server.port, "bob\u00a0", lobby=False)
    assert lone.client.name == "bob"
    online = [await human(server.port, proposed, lobby=False)  # all stay online
              for proposed in ("alice", "alice ", "alice\u00a0", "aIice", "Alice", "\uff41\uff4c\uff49\uff43\uff45")]
    names = [player.client.name for player in online[1:]]
    assert names == ["alice-2", "alice-3", "aIice-4", "Alice-5", "alice-6"]
    await watcher.send(m.Ping())
    await watcher.expect(m.Pong)  # every arrival has been announced
    arrived = [f.item["name"] for f in watcher.frames if isinstance(f, m.LobbyUpdate) and f.op == "add"]
    assert arrived == ["bob", "alice", *names]


async def test_a_private_game_is_answered_exactly_like_a_game_that_does_not_exist(server):
    """Nobody outside a private game can tell it from a missing one, whatever they ask."""
    host, guest = await human(server.port, "hana", lobby=False), await human(server.port, "gus", lobby=False)
    await host.send(m.CreateTable(private=True))
    invite = (await host.expect(m.TableCreated)).invite
    assert invite is not None
    await guest.send(m.JoinInvite(code=invite))
    private = (await guest.expect(m.GameState)).game
    missing = private + 1000
    prober = await Recorder.connect(server.port, "mallory", kind="human", lobby=False)

    async def answer(request: Callable[..., m.Message], game: int, **fields: object) -> tuple[str, str, str | None]:
        await prober.send(request(game=game, **fields))
        error = await prober.expect(m.Error)
        return error.code, error.message.replace(str(game), "N"), error.field

    requests: list[tuple[type[m.Message], dict[str, object]]] = [
        (m.Watch, {}), (m.Sync, {}), (m.GetRecord, {}), (m.Leave, {}), (m.Resign, {}),
        (m.Exchange, {}), (m.Place, {"temple": 1, "square": 0}), (m.Chat, {"text": "hi"}),
        (m.Rematch, {}), (m.Commit, {"digest": bytes(32)})]
    for request, fields in requests:
        assert await answer(request, private, **fields) == await answer(request, missing, **fields) == \
            ("not_found", "there is no game N", "game"), request.TYPE
        await prober.send(m.Ping())  # an accepted request: these refusals do not add up to a disconnect
        await prober.expect(m.Pong)


def old_italic(n: int) -> str:
    """A name of 24 Old Italic letters, the n-th of its kind: 96 bytes of UTF-8, 24 columns."""
    letters = [chr(0x10300 + (n // 30 ** k) % 30) for k in range(3)]
    return "\U00010300" * 21 + "".join(letters)


async def read_all_pages(client: Recorder, first: m.Lobby, section: str) -> list[dict]:
    """Every entry of a section, from the snapshot's first page on, one ``get_lobby_page`` at a time."""
    assert first.totals is not None  # a server of protocol 1.3 or later
    entries = list(getattr(first, section))
    while len(entries) < first.totals[section]:
        await client.send(m.GetLobbyPage(section=section, offset=len(entries)))
        page = await client.expect(m.LobbyPage)
        assert (page.section, page.offset, page.total) == (section, len(entries), first.totals[section])
        assert 0 < len(page.entries) <= Limits().lobby_page_entries
        entries += page.entries
    return entries


async def test_a_lobby_of_800_games_reaches_a_newcomer_page_by_page(server):
    players = await public_games(server.port, 800)
    newcomer = await Recorder.connect(server.port, "newcomer", kind="spectator")
    snapshot = await newcomer.expect(m.Lobby)
    assert snapshot.totals == {"players": 1601, "tables": 0, "games": 800}
    newest_first = sorted(server.rooms, reverse=True)
    assert [g["game"] for g in snapshot.games] == newest_first[:50]
    assert len(snapshot.players) == 50
    games = await read_all_pages(newcomer, snapshot, "games")
    assert [g["game"] for g in games] == newest_first  # every game once, in order
    names = [p["name"] for p in await read_all_pages(newcomer, snapshot, "players")]
    assert names == sorted(names, key=name_order) and len(set(names)) == 1601
    await newcomer.send(m.GetLobbyPage(section="games", offset=800))
    assert (await newcomer.expect(m.LobbyPage)).entries == ()  # past the end: an empty page
    older = await Recorder.connect(server.port, "older", kind="spectator", version="1.2")
    first = await older.expect(m.Lobby)  # a 1.2 client gets its lobby: the first pages
    assert [g["game"] for g in first.games] == newest_first[:50]
    for player in players[:4]:
        await player.close()


async def test_a_lobby_of_long_names_fits_every_frame(tmp_path):
    """300 players online under the longest names (96 bytes each) and their 150 games made a
    snapshot of more than 64 KiB, which never left the server; on a server whose frames hold
    only 4 KiB, every page is cut by size, as full as its frame allows."""
    for frame_bytes in (Limits().frame_bytes, 4096):
        server = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / f"{frame_bytes}.db"), game_seed=1,
                                            limits=Limits(frame_bytes=frame_bytes)))
        await server.start()
        try:
            players = await public_games(server.port, 150, name=old_italic)  # noqa: F841 (they stay online)
            newcomer = await Recorder.connect(server.port, "newcomer", kind="spectator")
            snapshot = await newcomer.expect(m.Lobby)
            assert len(encode_payload(snapshot.to_wire())) <= frame_bytes
            assert snapshot.totals == {"players": 301, "tables": 0, "games": 150}
            games = await read_all_pages(newcomer, snapshot, "games")
            assert [g["game"] for g in games] == sorted(server.rooms, reverse=True)
            pages = [f for f in newcomer.frames if isinstance(f, m.LobbyPage)]
            assert all(len(encode_payload(page.to_wire())) <= frame_bytes for page in pages)
            if frame_bytes == 4096:  # cut by size: one entry more would not have fitted
                for page, after in itertools.pairwise(pages):
                    fuller = m.LobbyPage(section=page.section, offset=page.offset, total=page.total,
                                         entries=page.entries + after.entries[:1], reply_to=page.reply_to)
                    assert len(encode_payload(fuller.to_wire())) > frame_bytes
                assert max(len(page.entries) for page in pages) < Limits().lobby_page_entries
        finally:
            await server.stop()


async def test_a_page_follows_its_section_while_games_start_and_end(server):
    fan = await human(server.port, "fan")
    await fan.expect(m.Lobby)
    players = await public_games(server.port, 3)
    red = next(p for p in players if p.seat == "red")
    await red.send(m.Resign(game=red.game))
    gone = await fan.until(lambda f: f.section == "games" and f.op == "remove", kind=m.LobbyUpdate)
    assert gone.item == {"game": red.game}
    await fan.send(m.GetLobbyPage(section="games"))
    page = await fan.expect(m.LobbyPage)
    assert page.total == 2 and red.game not in [g["game"] for g in page.entries]


def statuses(snapshot: m.Lobby) -> dict[str, str]:
    return {entry["name"]: entry["status"] for entry in snapshot.players}


async def test_players_are_back_in_the_lobby_once_their_game_has_ended(server):
    """Issue 13, defect 6: the lobby listed a player as "playing" after their game ended."""
    host = await human(server.port, "hana", lobby=False)
    guest = await human(server.port, "gus", lobby=False)
    loner = await human(server.port, "pat", lobby=False)
    await host.send(m.CreateTable())
    await guest.send(m.JoinTable(table=(await host.expect(m.TableCreated)).table))
    await asyncio.gather(host.expect(m.GameState), guest.expect(m.GameState))
    await loner.send(m.PlayBot(level="random"))
    await loner.expect(m.GameState)
    during = statuses(await (await human(server.port, "wanda")).expect(m.Lobby))
    assert (during["hana"], during["gus"], during["pat"]) == ("playing", "playing", "playing")

    for player in (host, loner):
        await player.send(m.Resign(game=player.game))
    for player in (guest, loner):
        await player.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    after = statuses(await (await human(server.port, "walt")).expect(m.Lobby))
    assert (after["hana"], after["gus"], after["pat"]) == ("lobby", "lobby", "lobby")


async def test_a_rematch_makes_its_players_playing_again(server):
    host = await human(server.port, "hana", lobby=False)
    guest = await human(server.port, "gus", lobby=False)
    await host.send(m.CreateTable())
    await guest.send(m.JoinTable(table=(await host.expect(m.TableCreated)).table))
    await asyncio.gather(host.expect(m.GameState), guest.expect(m.GameState))
    await host.send(m.Resign(game=host.game))
    await guest.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    for player in (host, guest):
        await player.send(m.Rematch(game=player.game, accept=True))
    await asyncio.gather(host.expect(m.GameState), guest.expect(m.GameState))
    now = statuses(await (await human(server.port, "wanda")).expect(m.Lobby))
    assert (now["hana"], now["gus"]) == ("playing", "playing")


async def test_a_game_entry_follows_its_rounds_scores_and_spectators_and_changes_only_with_them(server):
    """The lobby compares a cheap signature of a game after every move and builds the entry only
    when it changed: every change still reaches a subscriber, and nothing else does."""
    fan = await human(server.port, "fan")
    await fan.expect(m.Lobby)
    red, blue = await matched_pair(server.port)
    by_round = lambda n: lambda player: player.view["round"] >= n  # noqa: E731
    await asyncio.gather(red.play(random.Random(5), stop=by_round(3)), blue.play(random.Random(6), stop=by_round(3)))
    spectator = await Recorder.connect(server.port, "watcher", kind="spectator", lobby=False)
    await spectator.send(m.Watch(game=red.game))
    await spectator.expect(m.GameState)

    async def entry_shows(expected: dict) -> None:
        await fan.until(lambda f: f.section == "games" and f.item.get("game") == red.game
                        and all(f.item.get(k) == v for k, v in expected.items()), kind=m.LobbyUpdate)

    assert red.view["phase"] == "commit" and red.view["round"] == 3
    await red.act(random.Random(7))  # a commitment: the round and the scores stay, the spectator shows
    await entry_shows({**server.rooms[red.game].game.summary(), "spectators": 1})
    await asyncio.gather(red.play(random.Random(7), stop=by_round(4)), blue.play(random.Random(8), stop=by_round(4)))
    await entry_shows({**server.rooms[red.game].game.summary(), "spectators": 1})
    entries = [f.item for f in fan.frames
               if isinstance(f, m.LobbyUpdate) and f.section == "games" and f.item.get("game") == red.game]
    assert [e["round"] for e in entries] == sorted(e["round"] for e in entries)
    assert {1, 2, 3, 4} <= {e["round"] for e in entries}
    assert all(a != b for a, b in itertools.pairwise(entries)), "only changes are broadcast"
    assert [e["spectators"] for e in entries][-1] == 1 and entries[0]["spectators"] == 0
