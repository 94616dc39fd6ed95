"""Atlas & Zeus hosted by the real server on loopback: whole games between real TCP clients,
the sealed programming, what each receiver may see in every frame, refused moves, the lobby,
the server's bots, clocks, and a SIGKILL of the server in the middle of a game."""

from __future__ import annotations

import asyncio
import json

from atlas_zeus.record import GameRecord, replay
from protocol import messages as m
from protocol.clocks import ATLAS_ZEUS_TIME_CONTROLS
from protocol.framing import encode_frame
from server.export import export_games

from .players import RawPeer, Recorder
from .test_crash_safety import ServerProcess
from .zeus_players import GAME, ZeusPlayer, play_until_dropped, zeus_pair

SEATS = ("red", "blue")


def leaks(viewer: str | None, frame: m.GameState | m.Update) -> list[str]:
    """What ``frame`` shows ``viewer`` (a seat, None: a spectator) that it may not see: another
    seat's hand, another seat's face-down card on the track, another seat's decision, the cards
    of another seat's face-down programming or draw in the events."""
    found = []
    view = frame.view
    for seat in SEATS:
        if seat != viewer and view["players"][seat]["hand"] is not None:
            found.append(f"{seat}'s hand")
    for slot in view["track"]:
        if slot["owner"] not in (None, viewer) and not slot["face_up"] and slot["card"] is not None:
            found.append(f"{slot['owner']}'s face-down card on slot {slot['slot']}")
    if view["decision"] is not None and view["viewer"] != viewer:
        found.append("another's decision")
    events = frame.log if isinstance(frame, m.GameState) else frame.events
    for event in events:
        if event["type"] == "programmed" and event["player"] != viewer and not event["face_up"] \
                and event["cards"] is not None:
            found.append(f"the cards of {event['player']}'s programming")
        if event["type"] == "cards_drawn" and event["player"] != viewer and event["cards"] is not None:
            found.append(f"the cards {event['player']} drew")
    return found


def game_frames(recorder: Recorder, game: int) -> list[m.GameState | m.Update]:
    return [f for f in recorder.frames if isinstance(f, (m.GameState, m.Update)) and f.game == game]


async def test_a_whole_game_between_two_clients_with_a_spectator_who_sees_no_secret(server):
    red, blue = await zeus_pair(server.port)
    game = red.game
    watcher = await ZeusPlayer.join(server.port, "argus", 0, kind="spectator", lobby=False)
    await watcher.send(m.Watch(game=game))
    state = await watcher.expect(m.GameState)
    assert state.options["game"] == GAME and state.view["phase"] == "program"
    await asyncio.gather(red.play(), blue.play(), watcher.play())  # a spectator has nothing to decide
    assert red.view["outcome"] == blue.view["outcome"] == watcher.view["outcome"] is not None
    assert not red.errors() and not blue.errors()
    for seat, recorder in (("red", red), ("blue", blue), (None, watcher)):
        for frame in game_frames(recorder, game):
            assert not leaks(seat, frame), (seat, frame.version, leaks(seat, frame))
    # every programming was sealed: the second player saw the first one's slots taken, face down
    sealed_seen = [f for f in game_frames(watcher, game)
                   if f.view["phase"] == "program" and "sealed" in m.commitments_of(f).values()
                   and any(slot["owner"] is not None and slot["card"] is None for slot in f.view["track"])]
    assert sealed_seen, "the spectator never saw a sealed programming's slots"
    events = [e["type"] for e in watcher.events()]
    assert events.count("open_requested") >= red.view["round"] - 1 and "game_over" in events
    # the record is the game's own, with every acknowledged move in order
    request = await red.send(m.GetRecord(game=game))
    record = (await red.until(lambda f: f.reply_to == request, kind=m.GameRecordReply)).record
    assert record["format"] == "atlas-zeus-record/1"
    assert [{k: v for k, v in mv.items() if k != "player"} for mv in record["moves"] if mv["player"] == "red"] \
        == red.accepted
    replayed = replay(GameRecord.from_dict(record)).outcome()
    assert replayed is not None and replayed.to_dict() == red.view["outcome"]
    await red.send(m.GetProfile())
    line = (await red.expect(m.Profile)).games[0]
    assert (line["game"], line["kind"], line["rounds"]) == (game, GAME, red.view["round"])


async def test_the_second_player_programs_on_the_free_slots_and_sees_the_first_face_down(server):
    red, blue = await zeus_pair(server.port)
    first = red if red.view["initiative"] == "red" else blue
    second = blue if first is red else red
    assert first.view["decision"]["kind"] == "program" and second.view["decision"] is None
    # the second player may not seal first
    request = await second.client.commit_program(second.game, [[2, "fog"], [4, "fog"], [6, "fog"]])
    refused = await second.until(lambda f: f.reply_to == request, kind=m.Error)
    assert refused.code == "illegal_move" and refused.message == "there is nothing to commit now"
    second.client.seals.clear()
    await first.act()
    claimed_frame = await second.until(lambda f: f.view["decision"] is not None, kind=m.Update)
    claimed = claimed_frame.view
    taken = [slot["slot"] for slot in claimed["track"] if slot["owner"] == first.seat]
    assert len(taken) == 3 and all(slot["card"] is None for slot in claimed["track"])
    free = tuple(s for s in range(1, 7) if s not in taken)
    assert [tuple(c) for c in claimed["decision"]["slots"]] == [free]
    assert m.commitments_of(claimed_frame) == {first.seat: "sealed", second.seat: "none"}
    # its own slots: a claim of a taken slot is refused, with the slots it has
    hand = claimed["decision"]["hand"]
    bad = await second.client.commit_program(second.game, [[taken[0], hand[0]], [free[1], hand[1]],
                                                            [free[2], hand[2]]])
    error = await second.until(lambda f: f.reply_to == bad, kind=m.Error)
    assert error.code == "illegal_move" and "/".join(map(str, free)) in error.message
    second.client.seals.clear()
    await second.act()
    resolving = [recorder.until(lambda f: f.view["phase"] != "program" or f.view["outcome"] is not None,
                                kind=m.Update) for recorder in (first, second)]  # each opens when asked
    _, opened = await asyncio.gather(*resolving)
    types = [e["type"] for e in second.events()]
    assert types.index("open_requested") < types.index("programmed")
    assert sum(slot["owner"] is not None for slot in opened.view["track"]) == 6


async def test_a_bad_act_gets_a_clear_error_and_the_game_goes_on(server):
    red, blue = await zeus_pair(server.port)
    first = red if red.view["initiative"] == "red" else blue
    game = first.game
    cases: list[tuple[dict, str, str | None]] = [
        ({"kind": "harpoon", "person": "R9"}, "invalid", "move: person must be one of R1..R8, B1..B8, got 'R9'"),
        ({"kind": "dance"}, "invalid", "move: unknown move kind 'dance'"),
        ({"kind": "surge", "direction": "cw"}, "illegal_move", None),
        ({"kind": "program", "cards": [[1, "fog"], [3, "fog"], [5, "fog"]]}, "illegal_move",
         "Your programming is face down: seal it with commit, and open it when asked."),
    ]
    for move, code, message in cases:
        request = await first.send(m.Act(game=game, move=move))
        error = await first.until(lambda f: f.reply_to == request, kind=m.Error)  # noqa: B023 (awaited at once)
        assert error.code == code, (move, error)
        assert message is None or error.message == message, error.message
    raw = {"type": "act", "game": game, "move": {"kind": "transfer", "steps": [["R1", 1]] * 9}}
    first.client.writer.write(encode_frame(raw))
    error = await first.expect(m.Error)
    assert error.code == "invalid" and error.field == "move.steps"
    await asyncio.gather(red.play(), blue.play())
    assert red.view["outcome"] is not None and red.view["outcome"] == blue.view["outcome"]


async def test_the_lobby_shows_each_table_and_game_with_its_game(server):
    watcher = await Recorder.connect(server.port, "argus", kind="human")
    await watcher.expect(m.Lobby)
    aton_host = await Recorder.connect(server.port, "ra", kind="bot", lobby=False)
    await aton_host.send(m.CreateTable())
    zeus = await ZeusPlayer.join(server.port, "athena", 1, kind="bot", lobby=False)
    await zeus.send(m.CreateTable(game=GAME))
    zeus_table = (await zeus.expect(m.TableCreated)).table
    tables: dict[str, str] = {}
    while len(tables) < 2:
        update = await watcher.expect(m.LobbyUpdate)
        if update.section == "tables" and update.op == "add":
            tables[update.item["host"]] = update.item["kind"]
            assert ("rating" in update.item) == (update.item["kind"] == "aton"), "ratings are Aton's"
    assert tables == {"ra": "aton", "athena": GAME}
    guest = await ZeusPlayer.join(server.port, "hermes", 2, kind="bot", lobby=False)
    await guest.send(m.JoinTable(table=zeus_table))
    state = await guest.expect(m.GameState)
    assert state.options["game"] == GAME and "rating" not in state.players["red"], "ratings are Aton's"
    entry = await watcher.until(lambda u: u.section == "games" and u.op == "add", kind=m.LobbyUpdate)
    assert entry.item["game"] == zeus_table and entry.item["kind"] == GAME
    assert entry.item["round"] == 1 and entry.item["people"] == {"red": 8, "blue": 8}


async def test_a_client_older_than_1_7_may_not_sit_down_at_atlas_zeus(server):
    host = await ZeusPlayer.join(server.port, "athena", 1, kind="bot", lobby=False)
    await host.send(m.CreateTable(game=GAME))
    table = (await host.expect(m.TableCreated)).table
    old = RawPeer(*await asyncio.open_connection("127.0.0.1", server.port))
    old.send({"type": "hello", "version": "1.6", "name": "oldie", "kind": "human", "lobby": False})
    assert (await old.read())["type"] == "welcome"
    old.send({"type": "join_table", "table": table, "id": 7})
    refused = await old.read()
    assert (refused["type"], refused["code"], refused["reply_to"]) == ("error", "not_allowed", 7)
    assert "update it (protocol 1.7 or later)" in refused["message"]
    old.close()


async def test_a_quick_match_pairs_players_of_the_same_game_only(server):
    aton = await Recorder.connect(server.port, "ra", kind="bot", lobby=False)
    zeus = await Recorder.connect(server.port, "athena", kind="bot", lobby=False)
    other = await Recorder.connect(server.port, "hermes", kind="bot", lobby=False)
    await aton.send(m.QuickMatch())
    await aton.expect(m.Queued)
    await zeus.send(m.QuickMatch(game=GAME))
    assert (await zeus.expect(m.Queued)).game == GAME
    await other.send(m.QuickMatch(game=GAME))
    first, second = await asyncio.gather(zeus.expect(m.GameState), other.expect(m.GameState))
    assert first.game == second.game and first.options["game"] == GAME
    assert not any(isinstance(f, m.GameState) for f in aton.frames)


async def test_a_game_against_the_servers_bot_and_a_rated_one_refused(server):
    player = await ZeusPlayer.join(server.port, "athena", 5, kind="bot", lobby=False)
    request = await player.send(m.PlayBot(game=GAME, rated=True))
    error = await player.until(lambda f: f.reply_to == request, kind=m.Error)
    assert error.code == "not_allowed" and "casual" in error.message
    await player.send(m.PlayBot(game=GAME, level="hard"))
    state = await player.expect(m.GameState)
    assert state.options["game"] == GAME and state.players[player.seat]["kind"] == "bot"
    assert state.players[{"red": "blue", "blue": "red"}[player.seat]]["name"] == "Bot (hard)"
    await player.play()
    assert player.view["outcome"] is not None and player.errors() == [error]
    for frame in game_frames(player, state.game):
        assert not leaks(player.seat, frame)


async def test_a_programming_that_times_out_is_sealed_by_the_server_face_down(server):
    red, blue = await zeus_pair(server.port)
    first = red if red.view["initiative"] == "red" else blue
    second = blue if first is red else red
    control = ATLAS_ZEUS_TIME_CONTROLS["normal"]
    assert first.clocks[first.seat]["for"] == "commit"
    assert first.clocks[first.seat]["remaining_ms"] == control.commit * 1000
    server.clock.advance(control.commit + 1)
    update = await second.until(lambda f: f.view["decision"] is not None, kind=m.Update)
    assert [e["type"] for e in update.events][:2] == ["timeout", "committed"]
    assert sum(slot["owner"] == first.seat and slot["card"] is None for slot in update.view["track"]) == 3
    assert update.clocks[first.seat]["strikes"] == 1 and update.clocks[second.seat]["for"] == "commit"
    own = await first.until(lambda f: any(e["type"] == "timeout" for e in f.events), kind=m.Update)
    mine = [slot for slot in own.view["track"] if slot["owner"] == first.seat]
    assert len(mine) == 3 and all(slot["card"] is not None and not slot["face_up"] for slot in mine), \
        "the player sees the programming the server sealed for them"
    assert not leaks(first.seat, own) and not leaks(second.seat, update)


async def test_the_game_survives_a_sigkill_of_the_server(tmp_path):
    db = str(tmp_path / "crash.db")
    first = ServerProcess(db)
    red, blue = await zeus_pair(first.port)
    game = red.game
    tasks = [asyncio.create_task(play_until_dropped(p)) for p in (red, blue)]
    while red.view["round"] < 3 and not all(t.done() for t in tasks):
        await asyncio.sleep(0.001)
    first.kill()  # in the middle of play
    await asyncio.gather(*tasks)
    assert red.view["outcome"] is None, "the game should still be running when the server dies"
    second = ServerProcess(db)
    try:
        for player in (red, blue):
            player.acted_on = -1
            player.sent.clear()
            await player.client.reconnect("127.0.0.1", second.port)
            state = await player.expect(m.GameState)
            assert (state.game, state.seat, state.options["game"]) == (game, player.seat, GAME)
        await asyncio.gather(red.play(), blue.play())
        assert red.view["outcome"] == blue.view["outcome"] is not None
    finally:
        assert second.terminate() == 0
    record = json.loads(export_games(db, tmp_path / "export")[0].read_text())
    assert record["format"] == "atlas-zeus-record/1"
    outcome = red.view["outcome"]
    assert outcome is not None and record["meta"]["result"]["winner"] == outcome["winner"]
    replayed = replay(GameRecord.from_dict(record)).outcome()
    assert replayed is not None and replayed.to_dict() == outcome


async def test_a_sealed_programming_survives_a_sigkill_and_is_opened_after_it(tmp_path):
    db = str(tmp_path / "crash.db")
    first_server = ServerProcess(db)
    red, blue = await zeus_pair(first_server.port)
    first = red if red.view["initiative"] == "red" else blue
    second = blue if first is red else red
    await first.act()
    claimed = await second.until(lambda f: f.view["decision"] is not None, kind=m.Update)
    taken = [slot["slot"] for slot in claimed.view["track"] if slot["owner"] == first.seat]
    first_server.kill()  # the initiative's programming is sealed and stored, not yet opened
    second_server = ServerProcess(db)
    try:
        for player in (red, blue):
            player.acted_on = -1
            await player.client.reconnect("127.0.0.1", second_server.port)
            state = await player.expect(m.GameState)
            assert state.commitments == {first.seat: "sealed", second.seat: "none"}
            assert [slot["slot"] for slot in state.view["track"] if slot["owner"] == first.seat] == taken
        assert second.view["decision"]["kind"] == "program" and first.view["decision"] is None
        assert first.client.has_sealed(first.game), "the client keeps its programming to open it"
        await asyncio.gather(red.play(), blue.play())
        assert red.view["outcome"] == blue.view["outcome"] is not None
        assert not red.errors() and not blue.errors()
    finally:
        assert second_server.terminate() == 0


async def test_a_resignation_ends_the_game_and_the_rematch_is_atlas_zeus_again(server):
    red, blue = await zeus_pair(server.port)
    await red.send(m.Act(game=red.game, move={"kind": "resign"}))
    over = await blue.until(lambda f: f.view["outcome"] is not None, kind=m.Update)
    assert over.view["outcome"] == {"winner": "blue", "reason": "resign"}
    await red.send(m.Rematch(game=red.game))
    await blue.until(lambda f: f.events and f.events[-1]["type"] == "rematch_offered", kind=m.Update)
    await blue.send(m.Rematch(game=blue.game, accept=True))
    again = await red.expect(m.GameState)
    assert again.game != over.game and again.options["game"] == GAME and again.view["round"] == 1


async def test_under_open_hand_the_programming_travels_in_the_clear_and_everyone_sees_it(server):
    red, blue = await zeus_pair(server.port)
    first = red if red.view["initiative"] == "red" else blue
    second = blue if first is red else red
    server.rooms[first.game].game.state.open_hand[0 if first.seat == "red" else 1] = 1  # an Open hand played on it
    await first.send(m.Sync(game=first.game))
    assert (await first.expect(m.GameState)).view["players"][first.seat]["open_hand"]
    await first.act()  # in the clear, with act: nothing sealed
    assert [move["kind"] for move in first.sent.values()] == ["program"] and not first.client.has_sealed(first.game)
    shown = await second.until(lambda f: f.view["decision"] is not None, kind=m.Update)
    face_up = {s["slot"]: s["card"] for s in shown.view["track"] if s["owner"] == first.seat}
    assert len(face_up) == 3 and None not in face_up.values()
    assert all(s["face_up"] for s in shown.view["track"] if s["owner"] == first.seat)
    assert m.commitments_of(shown) == {first.seat: "sealed", second.seat: "none"}
    await asyncio.gather(red.play(stop=lambda p: p.view["phase"] != "program"),
                         blue.play(stop=lambda p: p.view["phase"] != "program"))
    programmed = next(e for e in second.events() if e["type"] == "programmed" and e["player"] == first.seat)
    assert programmed["face_up"] and dict(zip(programmed["slots"], programmed["cards"], strict=True)) == face_up
