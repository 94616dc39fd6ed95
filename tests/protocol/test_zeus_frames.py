"""A client reads each game's frames as that game's: ``typed_for`` (Atlas & Zeus beside Aton)."""

from __future__ import annotations

import random

import pytest

from atlas_zeus import events as Z
from atlas_zeus.game import new_game
from atlas_zeus.players import RED
from atlas_zeus.views import View, view
from protocol import events as ev
from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.game_frames import GameStateFrame, UnknownEvent, UpdateFrame, ZeusStateFrame, ZeusUpdateFrame, typed_for

CLOCKS = {"red": {"remaining_ms": 1000, "for": "move", "strikes": 0},
          "blue": {"remaining_ms": None, "for": None, "strikes": 0}}
PLAYERS = {"red": {"name": "Ada", "kind": "human", "connected": True},
           "blue": {"name": "Bot", "kind": "bot", "connected": True}}


def zeus_frames() -> tuple[m.GameState, m.Update]:
    events: list[Z.Event] = []
    state = new_game(4, events=events)
    first = m.GameState(game=5, version=len(events), seat="red", players=PLAYERS,
                        options={"game": "atlas-zeus", "clock": "normal"}, view=view(state, RED).to_dict(),
                        clocks=CLOCKS, commitments={"red": "none", "blue": "none"},
                        log=tuple({**e.for_viewer(RED).to_dict(), "version": i + 1} for i, e in enumerate(events)))
    played: list[Z.Event] = []
    player = state.pending()[0]
    state.play(player, random.Random(1).choice(state.legal_moves(player)), played)
    wire = [{**e.for_viewer(RED).to_dict(), "version": first.version + 1 + i} for i, e in enumerate(played)]
    wire.append({"type": "committed", "player": "blue", "version": first.version + len(played) + 1})
    wire.append({"type": "something_new", "version": first.version + len(played) + 2})
    update = m.Update(game=5, version=first.version + len(wire), events=tuple(wire), view=view(state, RED).to_dict(),
                      clocks=CLOCKS, commitments={"red": "none", "blue": "sealed"})
    return first, update


def test_a_game_state_of_atlas_zeus_is_read_as_its_games_whatever_the_caller_thinks():
    first, _ = zeus_frames()
    frame = typed_for(first, "aton")
    assert isinstance(frame, ZeusStateFrame) and isinstance(frame.view, View)
    assert all(isinstance(n.event, Z.Event) for n in frame.log)
    assert isinstance(frame.log[0].event, Z.RoundStarted)  # not Aton's round_started


def test_an_update_is_read_as_the_game_of_its_game_state():
    _, update = zeus_frames()
    frame = typed_for(update, "atlas-zeus")
    assert isinstance(frame, ZeusUpdateFrame)
    kinds = [type(n.event) for n in frame.events]
    assert kinds[-2:] == [ev.Committed, UnknownEvent]  # the arbiter's, and one this client does not know
    assert all(issubclass(kind, Z.Event) for kind in kinds[:-2])
    with pytest.raises(ProtocolError):
        typed_for(update, "aton")  # an Atlas & Zeus view is no view of Aton


def test_aton_frames_are_read_as_before():
    from tests.aton_tui.scripted import ScriptedGame
    script = ScriptedGame()
    script.play_until(lambda s: len(s.updates) >= 2)
    assert isinstance(typed_for(script.first, "aton"), GameStateFrame)
    assert isinstance(typed_for(script.updates[0], "aton"), UpdateFrame)
    assert typed_for(m.Ping(), "atlas-zeus") == m.Ping()
