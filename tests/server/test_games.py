"""Whole games through a real server on loopback, and what each receiver may see."""

from __future__ import annotations

import ast
import asyncio
import inspect
import random
from collections.abc import Sequence

from aton.game import GameState
from aton.players import BLUE, RED
from aton.record import GameRecord, replay, summary
from aton.views import view
from protocol import messages as m
from server import room as room_module
from server.app import ArbiterServer
from server.config import Limits, ServerConfig
from server.games import AtonGame
from server.games import aton as aton_game

from .players import Recorder, matched_pair

SEATS = ("red", "blue")
COMMITMENT_STATES = {"none", "sealed", "awaiting_open", "opened"}


def walk(value):
    """Every scalar inside a decoded frame."""
    if isinstance(value, dict):
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from walk(item)
    else:
        yield value


def assert_nothing_hidden(frames: Sequence[m.Message], receiver: str | None, seed: int) -> int:
    """Check, frame by frame, that ``receiver`` (None: a spectator) saw nothing before its reveal.

    Returns the number of game frames checked.
    """
    revealed: set[tuple[str, int]] = set()
    checked = 0
    for frame in frames:
        if not isinstance(frame, (m.GameState, m.Update)):
            continue
        checked += 1
        wire = frame.to_wire()
        scalars = list(walk(wire))
        assert seed not in scalars, "the game's seed reached a client"
        assert not any(isinstance(v, bytes) for v in scalars), "binary data (a digest or nonce) reached a client"
        for event in (*getattr(frame, "log", ()), *getattr(frame, "events", ())):
            if event["type"] == "round_started":
                revealed.clear()
            elif event["type"] == "card_revealed":
                revealed.add((event["player"], event["cartouche"]))
            elif event["type"] == "cards_drawn" and event["player"] != receiver:
                assert event["cards"] is None, f"{receiver} saw {event['player']}'s drawn cards"
        view = frame.view
        commitments = frame.commitments
        assert commitments is not None and set(commitments) == set(SEATS), "each seat's commitment, in every frame"
        assert set(commitments.values()) <= COMMITMENT_STATES, "a commitment says its state and nothing more"
        assert view.get("commitments", commitments) == commitments, "a 1.2 client's copy in the view is the same"
        for seat in SEATS:
            if seat == receiver:
                continue
            assert view[seat]["hand"] is None, f"{receiver} saw {seat}'s hand"
            for index, value in enumerate(view[seat]["cartouches"]):
                if value is not None:
                    assert (seat, index + 1) in revealed, f"{receiver} saw {seat}'s cartouche {index + 1} early"
        if receiver is not None and view["phase"] == "commit" and view["winner"] is None:
            own = view[receiver]
            assert own["hand"] is not None or own["committed"], "a player must see their own hand"
    return checked


async def test_two_clients_play_a_whole_game_and_a_spectator_sees_nothing_hidden(server):
    red, blue = await matched_pair(server.port)
    game_id = red.game
    seed = server.rooms[game_id].game.seed
    spectator = await Recorder.connect(server.port, "watcher", kind="spectator", lobby=False)
    await spectator.send(m.Watch(game=game_id))
    await spectator.expect(m.GameState)

    async def watch():
        await spectator.until(lambda f: f.view["winner"] is not None, timeout=30, kind=m.Update)

    await asyncio.gather(red.play(random.Random(1)), blue.play(random.Random(2)), watch())

    final = server.rooms[game_id].game
    assert final.is_over
    for recorder in (red, blue, spectator):
        assert {k: recorder.view[k] for k in ("winner", "reason")} == final.outcome().to_dict()
        assert not recorder.errors(), recorder.errors()
    assert assert_nothing_hidden(red.frames, "red", seed) > 20
    assert assert_nothing_hidden(blue.frames, "blue", seed) > 20
    assert assert_nothing_hidden(spectator.frames, None, seed) > 20
    # every receiver got the same numbered stream of events, without gaps
    for recorder in (red, blue):
        versions = [e["version"] for e in recorder.events()]
        assert versions == list(range(1, len(versions) + 1))
    spectator_versions = [e["version"] for e in spectator.events()]
    assert spectator_versions == sorted(spectator_versions)
    assert [e["type"] for e in red.events()] == [e["type"] for e in blue.events()]


async def test_a_game_state_recounts_the_latest_events_as_its_receiver_may_see_them(server):
    red, blue = await matched_pair(server.port)
    seed = server.rooms[red.game].game.seed
    in_round_3 = lambda player: player.view["round"] >= 3  # noqa: E731
    await asyncio.gather(red.play(random.Random(5), stop=in_round_3), blue.play(random.Random(6), stop=in_round_3))
    spectator = await Recorder.connect(server.port, "watcher", kind="spectator", lobby=False)
    await spectator.send(m.Watch(game=red.game))
    watched = await spectator.expect(m.GameState)
    await red.send(m.Sync(game=red.game))
    synced = await red.expect(m.GameState)
    for state in (watched, synced):
        versions = [e["version"] for e in state.log]
        assert versions == list(range(state.version - len(versions) + 1, state.version + 1)), "the latest, in order"
        assert {"round_started", "card_revealed", "cards_drawn"} <= {e["type"] for e in state.log}
    assert list(synced.log) == red.events()[-len(synced.log):], "what red was told, as red was told it"
    own_draws = [e for e in synced.log if e["type"] == "cards_drawn" and e["player"] == "red"]
    assert own_draws and all(e["cards"] is not None for e in own_draws)
    assert all(e["cards"] is None for e in watched.log if e["type"] == "cards_drawn")
    assert assert_nothing_hidden([watched], None, seed) == 1
    assert assert_nothing_hidden([synced], "red", seed) == 1


async def test_the_opponent_only_learns_that_a_commitment_was_made(server):
    red, blue = await matched_pair(server.port)
    await red.client.commit(red.game, list(red.view["decision"]["hand"]))
    update = await blue.expect(m.Update)
    assert [e["type"] for e in update.events] == ["committed"]
    assert update.events[0]["player"] == "red"
    assert update.view["red"]["cartouches"] == [None, None, None, None]
    assert update.commitments == {"red": "sealed", "blue": "none"}


def revealed(frame: m.Message) -> bool:
    """An update that reveals cartouche 1 of the round."""
    return isinstance(frame, m.Update) and any(e["type"] == "card_revealed" for e in frame.events)


async def test_commit_order_does_not_matter(server):
    outcomes = []
    for first in ("red", "blue"):
        red, blue = await matched_pair(server.port)
        players = {"red": red, "blue": blue}
        order = [players[first], players["blue" if first == "red" else "red"]]
        for player in order:
            await player.client.commit(player.game, list(player.view["decision"]["hand"]))
            await player.expect(m.Ack)
        # both clients read on concurrently: each opens its commitment when asked
        await asyncio.gather(*(player.until(revealed) for player in order))
        outcomes.append(server.rooms[red.game].game.state.round)
        await red.close()
        await blue.close()
    assert outcomes == [1, 1]


async def test_a_second_commit_is_rejected(server):
    red, _blue = await matched_pair(server.port)
    hand = list(red.view["decision"]["hand"])
    await red.client.commit(red.game, hand)
    await red.expect(m.Ack)
    request = await red.client.commit(red.game, hand)
    error = await red.expect(m.Error)
    assert error.code == "illegal_move"
    assert error.message == "you have already committed this round"
    assert error.reply_to == request


async def test_moves_out_of_turn_are_rejected_and_change_nothing(server):
    red, blue = await matched_pair(server.port)
    request = await blue.send(m.Place(game=blue.game, temple=1, square=0))
    error = await blue.expect(m.Error)
    assert (error.code, error.reply_to) == ("illegal_move", request)
    assert error.message == "it is the commit phase: put your four cards on the cartouches first"
    rng = random.Random(5)
    # play on until someone has a placement decision, then let the other one try to place
    while True:
        mover = next((p for p in (red, blue) if (due := p.my_decision()) and due["kind"] != "commit"), None)
        if mover is not None:
            break
        for player in (red, blue):
            await player.act(rng)
        await asyncio.gather(red.recv(), blue.recv())
    other = blue if mover is red else red
    version = server.rooms[red.game].version
    await other.send(m.Place(game=other.game, temple=1, square=0))
    error = await other.expect(m.Error)
    assert error.message == f"it is {mover.seat}'s decision, not {other.seat}'s"
    assert server.rooms[red.game].version == version


async def test_an_opening_that_does_not_match_its_commitment_is_refused(server):
    red, blue = await matched_pair(server.port)
    hand = list(red.view["decision"]["hand"])
    await red.send(m.Commit(game=red.game, digest=bytes(32)))  # a digest of nothing
    await red.expect(m.Ack)
    await blue.client.commit(blue.game, list(blue.view["decision"]["hand"]))
    await red.until(lambda f: m.commitments_of(f)["red"] == "awaiting_open", kind=m.Update)
    await red.send(m.Open(game=red.game, cards=tuple(hand), nonce=bytes(16)))
    error = await red.expect(m.Error)
    assert error.code == "commitment_mismatch"


async def test_a_player_can_resign_and_both_are_told(server):
    red, blue = await matched_pair(server.port)
    await blue.send(m.Resign(game=blue.game))
    await blue.expect(m.Ack)
    update = await red.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    assert update.view["winner"] == "red"
    assert update.view["reason"] == "resign"
    assert [e["type"] for e in update.events][-2:] == ["resigned", "game_over"]


async def test_chat_reaches_both_players_and_is_rate_limited(server):
    red, blue = await matched_pair(server.port)
    await red.send(m.Chat(game=red.game, text="good luck"))
    update = await blue.expect(m.Update)
    assert update.events[-1]["type"] == "chat"
    said = update.events[-1]
    assert (said["name"], said["text"]) == ("alice" if red.client.name == "alice" else "bob", "good luck")
    await red.send(m.Chat(game=red.game, text="again"))
    error = await red.expect(m.Error)
    assert error.code == "rate_limited"


async def test_chat_lines_longer_than_the_servers_limit_are_refused(tmp_path):
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "chat.db"), limits=Limits(chat_chars=10)))
    await srv.start()
    try:
        red, blue = await matched_pair(srv.port)
        assert red.client.welcome is not None and red.client.welcome.limits["chat_chars"] == 10
        await red.send(m.Chat(game=red.game, text="far too long a line"))
        error = await red.expect(m.Error)
        assert (error.code, error.field) == ("invalid", "text") and "10 characters" in error.message
        await red.send(m.Chat(game=red.game, text="short one"))
        update = await blue.expect(m.Update)
        assert update.events[-1]["text"] == "short one"
    finally:
        await srv.stop()


async def test_a_rematch_starts_a_new_game_with_colours_swapped(server):
    red, blue = await matched_pair(server.port)
    first_game = red.game
    await red.send(m.Resign(game=red.game))
    await blue.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    await red.send(m.Rematch(game=first_game))
    offer = await blue.until(lambda f: f.events[-1]["type"] == "rematch_offered", kind=m.Update)
    assert offer.events[-1]["player"] == "red"
    await blue.send(m.Rematch(game=first_game, accept=True))
    new_state = await red.expect(m.GameState)
    assert new_state.game != first_game
    assert new_state.seat == "blue"
    assert (await blue.expect(m.GameState)).seat == "red"


async def test_a_finished_games_record_is_available_and_replays_to_its_end(server):
    red, blue = await matched_pair(server.port)
    request = await red.send(m.GetRecord(game=red.game))
    refused = await red.expect(m.Error)
    assert (refused.reply_to, refused.message) == (
        request, f"the record of game {red.game} is available once the game is over")
    await asyncio.gather(red.play(random.Random(21)), blue.play(random.Random(22)))
    await blue.send(m.GetRecord(game=blue.game))
    reply = await blue.expect(m.GameRecordReply)
    final = replay(GameRecord.from_dict(reply.record))
    assert summary(final)["winner"] == blue.view["winner"]
    assert reply.record["meta"]["players"][blue.seat]["name"] == blue.client.name


async def test_a_finished_game_leaves_memory_after_a_while_but_stays_in_the_database(server):
    red, blue = await matched_pair(server.port)
    await red.send(m.Resign(game=red.game))
    await blue.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    server.clock.advance(server.config.finished_game_seconds - 0.001)
    assert red.game in server.rooms
    server.clock.advance(0.001)
    assert red.game not in server.rooms
    assert [g.status for g in server.store.load_games()] == ["over"]


async def test_a_rematch_that_has_started_cannot_be_started_again_by_one_player(server):
    red, blue = await matched_pair(server.port)
    first_game = red.game
    await red.send(m.Resign(game=first_game))
    await blue.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    await red.send(m.Rematch(game=first_game))
    await blue.until(lambda f: f.events[-1]["type"] == "rematch_offered", kind=m.Update)
    await blue.send(m.Rematch(game=first_game, accept=True))
    second_game = (await red.expect(m.GameState)).game
    await blue.expect(m.GameState)
    games_before = set(server.rooms)
    # red repeats its rematch on the first game: blue has agreed to one rematch, not to more
    request = await red.send(m.Rematch(game=first_game))
    error = await red.until(lambda f: isinstance(f, (m.Error, m.GameState)))
    assert isinstance(error, m.Error), f"a third game started: {error}"
    assert (error.code, error.reply_to) == ("not_allowed", request)
    assert error.message == f"the rematch of this game has started already: game {second_game}"
    assert set(server.rooms) == games_before
    await red.send(m.Ping())
    await red.expect(m.Pong)
    assert not any(isinstance(f, m.GameState) and f.game not in (first_game, second_game)
                   for f in (*red.frames, *blue.frames))


async def test_every_move_is_played_once_and_no_move_is_parsed_from_a_map(server, monkeypatch):
    played = []
    play = GameState.play

    def counted(state, player, move, events=None):
        played.append((player, move))
        return play(state, player, move, events)

    def refused(data):
        raise AssertionError(f"a move was parsed from a map: {data}")

    monkeypatch.setattr(GameState, "play", counted)
    monkeypatch.setattr(aton_game, "move_from_dict", refused)
    red, blue = await matched_pair(server.port)
    await asyncio.gather(red.play(random.Random(31)), blue.play(random.Random(32)))
    assert red.view["winner"] is not None
    history = server.rooms[red.game].game.history.moves
    assert played == history and len(played) > 40, "each move played once, in the order it was accepted"


def test_the_room_imports_nothing_of_aton():
    tree = ast.parse(inspect.getsource(room_module))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not [name for name in imported if name == "aton" or name.startswith("aton.")], imported


async def test_the_view_is_the_engines_and_a_1_2_client_still_finds_the_commitments_in_it(server):
    old = await Recorder.connect(server.port, "old", kind="bot", lobby=False, version="1.2")
    new = await Recorder.connect(server.port, "new", kind="bot", lobby=False)
    for player in (old, new):
        await player.send(m.QuickMatch())
    await asyncio.gather(old.expect(m.GameState), new.expect(m.GameState))
    spectator = await Recorder.connect(server.port, "watcher", kind="spectator", lobby=False)
    await spectator.send(m.Watch(game=old.game))
    await spectator.expect(m.GameState)
    await asyncio.gather(old.play(random.Random(41)), new.play(random.Random(42)))
    await spectator.until(lambda f: isinstance(f, m.Update) and f.view["winner"] is not None)
    seed = server.rooms[old.game].game.seed
    engine_keys = set(AtonGame(seed).view(None))
    for player in (old, new, spectator):
        frames = [f for f in player.frames if isinstance(f, (m.GameState, m.Update))]
        assert assert_nothing_hidden(frames, None if player is spectator else player.seat, seed) > 20
        for frame in frames:
            extra = set(frame.view) - engine_keys
            assert extra == ({"commitments"} if player is old else set()), (player.client.name, extra)
            if player is old:
                assert frame.view["commitments"] == frame.commitments
    assert any(m.commitments_of(f)[old.seat] == "awaiting_open" for f in old.frames if isinstance(f, m.Update))


def test_events_as_each_receiver_sees_them_share_what_is_public_over_a_whole_game():
    """``events_for`` converts a receiver's copy only where it differs (its own drawn cards) and
    gives a seat that sees every event as everyone does the public list itself (numbered once
    by the room), over a whole seeded game."""
    game, rng = AtonGame(3), random.Random(3)
    own_draws = shared = 0
    while not game.is_over:
        for seat in game.pending():
            events = game.play(seat, rng.choice(game.state.legal_moves(seat, resign=False)))
            visible = game.events_for(events, [None, *game.seats])
            for player in game.seats:
                mine = visible[player]
                if mine is visible[None]:
                    shared += 1
                    assert not any(e["type"] == "cards_drawn" and e["player"] == str(player) for e in mine)
                    continue
                for own, public in zip(mine, visible[None], strict=True):
                    if own is not public:
                        assert own["type"] == "cards_drawn" and own["player"] == str(player)
                        assert public["cards"] is None and own["cards"] is not None
                        own_draws += 1
                    else:
                        assert own.get("cards") is None or own["type"] != "cards_drawn"
    assert own_draws > 3 and shared > 50


def test_a_hosted_games_views_are_each_receivers_own_after_every_move():
    """``AtonGame.views`` keeps the board of its latest views (most moves leave it as it was), and
    the views themselves until the game changes: after every move of whole seeded games each
    receiver's view is exactly ``view(...).to_dict()``, and asked again before the next move the
    same views come back."""
    for seed in range(3):
        game, rng = AtonGame(seed), random.Random(seed)
        while True:
            for receivers in ((None, RED, BLUE), (BLUE,), (None, RED, BLUE)):
                together = game.views(receivers)
                assert set(together) == set(receivers)
                for receiver in receivers:
                    assert together[receiver] == view(game.state, receiver).to_dict()
            assert game.views((BLUE, RED, None)) is together  # nothing has changed: not built again
            if game.is_over:
                break
            seat = rng.choice(game.pending())
            game.play(seat, rng.choice(game.state.legal_moves(seat, resign=False)))
