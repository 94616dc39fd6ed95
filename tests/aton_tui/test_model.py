"""The client's picture of a game: versions, gaps, presence, the decision at hand, clocks.

The model takes frames as the session hands them over: decoded (``typed``).
"""

import dataclasses
from collections.abc import Callable

from aton.players import BLUE, RED
from aton_tui.lobby_model import HELD, LobbyModel
from aton_tui.model import GameModel, countdown, has_committed
from protocol import messages as m
from protocol.game_frames import typed

from .scripted import ScriptedGame, red_to


def played(until: Callable[[ScriptedGame], bool] | None = None) -> ScriptedGame:
    """A scripted game played until ``until`` (by default: red to place in round 2 or later)."""
    script = ScriptedGame()
    script.play_until(until or red_to("place", round_at_least=2))
    return script


def test_updates_in_order_bring_the_model_to_the_last_view():
    script = played()
    model = GameModel.from_state(typed(script.first), now=0.0)
    for update in script.updates:
        assert model.advance(typed(update), now=1.0) is not None
    assert model.version == script.version
    assert model.view.round == 2 and model.decision is not None and model.decision.kind == "place"
    assert [e.version for e in model.events] == list(range(1, script.version + 1))


def test_a_missing_update_is_a_gap_and_a_repeated_one_is_ignored():
    script = played()
    model = GameModel.from_state(typed(script.first), now=0.0)
    first, second, third = (typed(update) for update in script.updates[:3])
    assert model.advance(first, 0.0) == list(first.events)
    assert model.advance(first, 0.0) == []  # already seen: nothing new
    assert model.advance(third, 0.0) is None  # the second was lost: ask for sync
    assert model.version == first.version
    assert model.advance(second, 0.0) == list(second.events)


def test_a_resync_takes_the_fresh_state_and_keeps_the_log():
    script = played()
    model = GameModel.from_state(typed(script.first), now=0.0)
    model.advance(typed(script.updates[0]), 0.0)
    fresh = dataclasses.replace(script.game_state(), version=script.version)
    model.resync(typed(fresh), now=5.0)
    assert model.version == script.version and model.view.round == 2
    assert len(model.events) == len(script.updates[0].events)


def test_a_resync_adds_the_events_of_its_log_that_were_missed_and_only_those():
    script = played()
    model = GameModel.from_state(typed(script.first), now=0.0)
    model.advance(typed(script.updates[0]), 0.0)
    seen = len(model.events)
    later = [e for update in script.updates[1:] for e in update.events]
    overlap = script.updates[0].events[-2:]
    log = (*overlap, *later)  # overlaps what we have, then goes on
    fresh = typed(dataclasses.replace(script.game_state(), version=script.version, log=log))
    assert model.resync(fresh, now=5.0) == list(fresh.log[len(overlap):])
    assert [e.version for e in model.events[seen:]] == [e["version"] for e in later]


def test_after_sealing_there_is_nothing_to_decide_until_the_next_round():
    script = ScriptedGame()
    model = GameModel.from_state(typed(script.first), 0.0)
    assert model.decision is not None and model.decision.kind == "commit"
    sealed = m.Update(game=12, version=1, events=({"type": "committed", "player": "red", "version": 1},),
                      view=script.first.view, clocks=script.first.clocks,
                      commitments={"red": "sealed", "blue": "none"})
    model.advance(typed(sealed), 0.0)
    assert model.decision is None and has_committed(model.view, model.commitments, RED)
    assert not has_committed(model.view, model.commitments, BLUE)


def test_presence_events_mark_a_player_away_and_back():
    script = ScriptedGame()
    model = GameModel.from_state(typed(script.first), 0.0)
    away = {"type": "disconnected", "player": "blue", "grace_s": 60, "version": 1}
    back = {"type": "reconnected", "player": "blue", "version": 2}
    for version, event in ((1, away), (2, back)):
        model.advance(typed(m.Update(game=12, version=version, events=(event,), view=script.first.view,
                                     clocks=script.first.clocks)), 0.0)
        assert model.players[BLUE].connected is (event is back)


def test_clocks_count_down_locally_and_stop_at_zero():
    assert countdown(90_000, since=10.0, now=12.5) == 87_500
    assert countdown(1_000, since=0.0, now=3.0) == 0
    assert countdown(None, since=0.0, now=3.0) is None


def test_the_lobby_follows_its_updates():
    lobby = LobbyModel()
    lobby.load(m.Lobby(players=({"name": "ada", "kind": "human", "status": "lobby"},), tables=(), games=()))
    lobby.apply(m.LobbyUpdate(section="tables", op="add", item={"table": 3, "host": "ada", "clock": "normal"}))
    lobby.apply(m.LobbyUpdate(section="players", op="update", item={"name": "ada", "status": "waiting"}))
    lobby.apply(m.LobbyUpdate(section="players", op="add", item={"name": "bea", "kind": "bot", "status": "lobby"}))
    assert [t["table"] for t in lobby.tables] == [3]
    assert [(p["name"], p["status"]) for p in lobby.players] == [("ada", "waiting"), ("bea", "lobby")]
    lobby.apply(m.LobbyUpdate(section="tables", op="remove", item={"table": 3}))
    assert lobby.tables == []


def game(n: int) -> dict:
    return {"game": n, "red": f"r{n}", "blue": f"b{n}", "round": 1}


def games_window(numbers, offset: int, total: int) -> LobbyModel:
    lobby = LobbyModel()
    lobby.load_page(m.LobbyPage(section="games", offset=offset, total=total, entries=tuple(map(game, numbers))))
    return lobby


def test_a_page_of_games_keeps_its_place_as_games_come_and_go():
    lobby = games_window(range(150, 100, -1), offset=50, total=200)  # games 150…101: the 51st to the 100th
    window = lobby.sections["games"]
    lobby.apply(m.LobbyUpdate(section="games", op="add", item=game(201)))  # newer: before the page
    assert (window.offset, window.total, len(window.entries)) == (51, 201, 50)
    lobby.apply(m.LobbyUpdate(section="games", op="remove", item={"game": 30}))  # older: after it
    lobby.apply(m.LobbyUpdate(section="games", op="remove", item={"game": 180}))  # newer again
    assert (window.offset, window.total) == (50, 199)
    lobby.apply(m.LobbyUpdate(section="games", op="remove", item={"game": 120}))  # on the page
    lobby.apply(m.LobbyUpdate(section="games", op="update", item={"game": 140, "round": 5}))
    lobby.apply(m.LobbyUpdate(section="games", op="update", item={"game": 20, "round": 5}))  # not held
    assert [g["game"] for g in lobby.games][:3] == [150, 149, 148] and 120 not in window.entries
    assert window.entries[140]["round"] == 5 and 20 not in window.entries
    assert (window.total, window.paged) == (198, True)


def test_a_client_holds_at_most_a_hundred_entries_of_a_section():
    lobby = games_window(range(50, 0, -1), offset=0, total=50)  # the whole section: 50 games
    for n in range(51, 400):  # 349 new games, each the newest: all at the top of the first page
        lobby.apply(m.LobbyUpdate(section="games", op="add", item=game(n)))
    window = lobby.sections["games"]
    assert len(window.entries) == HELD == 100 and window.total == 399
    assert [g["game"] for g in lobby.games] == list(range(399, 299, -1))  # the newest hundred


def test_a_window_that_lost_half_its_entries_asks_for_its_page_again():
    lobby = games_window(range(100, 50, -1), offset=0, total=300)
    window = lobby.sections["games"]
    for n in range(100, 74, -1):  # 26 of the 50 games end
        assert not window.short
        lobby.apply(m.LobbyUpdate(section="games", op="remove", item={"game": n}))
    assert window.short and window.total == 274


def test_an_older_server_sends_every_entry_and_they_are_all_held():
    lobby = LobbyModel()
    lobby.load(m.Lobby(players=(), tables=(), games=tuple(map(game, range(1, 301)))))
    lobby.apply(m.LobbyUpdate(section="games", op="update", item=game(301)))  # an update adds, as in 1.2
    window = lobby.sections["games"]
    assert len(window.entries) == 301 and window.total is None and not window.paged and not window.short
