"""A game's frames decoded once into the engine's types (protocol.game_frames), as a client reads them."""

from __future__ import annotations

import dataclasses
import random
from typing import Any, TypeVar

import pytest

from aton.events import Committed, Event, event_from_dict
from aton.game import GameState, new_game
from aton.players import BLUE, PLAYERS, RED
from aton.views import view
from protocol import events as ev
from protocol import messages as m
from protocol.errors import ErrorCode, ProtocolError
from protocol.framing import decode_payload, encode_frame
from protocol.game_frames import GameStateFrame, Numbered, SeatClock, Seated, UnknownEvent, UpdateFrame, typed

PLAYERS_MAP = {"red": {"name": "ann", "kind": "human", "connected": True},
               "blue": {"name": "Bot (easy)", "kind": "bot", "connected": False}}
M = TypeVar("M", bound=m.Message)
CLOCKS: dict[str, dict[str, Any]] = {"red": {"remaining_ms": 8000, "for": "move", "strikes": 1},
          "blue": {"remaining_ms": None, "for": None, "strikes": 0}}


def played(seed: int, moves: int) -> tuple[GameState, list[Event]]:
    """A random game ``moves`` decisions in, and every event it caused that the server sends
    (the engine's own ``Committed`` is not: the arbiter announces each seal itself)."""
    state, _ = new_game(seed)
    rng, events = random.Random(seed), list[Event]()
    for _ in range(moves):
        if state.is_over:
            break
        player = state.pending()[0]
        legal = state.legal_moves(player, resign=False)
        state.play(player, legal[rng.randrange(len(legal))], events)
    return state, [e for e in events if not isinstance(e, Committed)]


def over_the_wire(message: M) -> M:
    """The message as a client receives it: encoded, decoded, validated."""
    received = m.parse(decode_payload(encode_frame(message.to_wire())[4:]), m.Direction.SERVER)
    assert isinstance(received, type(message))
    return received


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_game_state_decodes_to_the_engines_own_view_and_events(seed):
    state, events = played(seed, 40)
    assert len(events) <= m.LOG_EVENTS
    log = tuple({**e.for_viewer(RED).to_dict(), "version": n} for n, e in enumerate(events, 1))
    wire = over_the_wire(m.GameState(
        game=4, version=len(events), seat="red", players=PLAYERS_MAP, options={"clock": "normal"},
        view=view(state, RED).to_dict(), clocks=CLOCKS, log=log, reply_to=7,
        commitments={"red": "sealed", "blue": "none"}))
    frame = typed(wire)
    assert isinstance(frame, GameStateFrame)
    assert frame.view == view(state, RED)
    assert [n.event for n in frame.log] == [e.for_viewer(RED) for e in events]
    assert [n.version for n in frame.log] == list(range(1, len(events) + 1))
    assert (frame.game, frame.version, frame.seat, frame.reply_to) == (4, len(events), RED, 7)
    assert frame.players == {RED: Seated("ann", "human", True), BLUE: Seated("Bot (easy)", "bot", False)}
    assert frame.commitments == {RED: "sealed", BLUE: "none"}
    assert frame.clocks == {RED: SeatClock(8000, "move", 1), BLUE: SeatClock(None, None, 0)}
    from_1_2_server = dataclasses.replace(wire, view={**wire.view, "commitments": wire.commitments}, commitments=None)
    assert typed(from_1_2_server) == frame, "a 1.2 server's commitments, in the view, read the same"


def test_every_engine_event_of_whole_games_reads_back_as_itself():
    for seed in range(6):
        state, events = played(seed, 10_000)
        assert state.is_over
        for event in events:
            for viewer in (None, *PLAYERS):
                seen = event.for_viewer(viewer)
                assert event_from_dict(seen.to_dict()) == seen


def test_an_update_decodes_its_events_with_their_versions_and_the_arbiters_own():
    state, events = played(5, 8)
    wire = over_the_wire(m.Update(
        game=4, version=12, view=view(state, BLUE).to_dict(), clocks=CLOCKS,
        events=({"type": "committed", "player": "red", "version": 10},
                {"type": "timeout", "player": "blue", "action": "commit", "strikes": 2, "forfeit": False,
                 "version": 11},
                {**events[-1].for_viewer(BLUE).to_dict(), "version": 12})))
    frame = typed(wire)
    assert isinstance(frame, UpdateFrame)
    assert frame.events == (Numbered(10, ev.Committed(RED)), Numbered(11, ev.TimedOut(BLUE, "commit", 2)),
                            Numbered(12, events[-1].for_viewer(BLUE)))
    assert frame.view == view(state, BLUE) and frame.commitments == {}


def test_what_a_newer_server_adds_is_ignored_and_an_unknown_event_keeps_its_place():
    state, events = played(8, 20)
    newer_view = view(state, RED).to_dict()
    newer_view["weather"] = "sandstorm"
    newer_view["red"] = {**newer_view["red"], "mood": "calm"}
    if newer_view["decision"] is not None:
        newer_view["decision"] = {**newer_view["decision"], "hint": "place high"}
    wire = over_the_wire(m.Update(
        game=4, version=3, view=newer_view, clocks={s: {**c, "pace": 1} for s, c in CLOCKS.items()},
        events=({**events[-1].for_viewer(RED).to_dict(), "version": 1, "colour": "mauve"},
                {"type": "opened", "player": "red", "version": 2, "proof": b"x"},
                {"type": "sandstorm", "strength": 9, "version": 3})))
    frame = typed(wire)
    assert frame.view == view(state, RED)
    assert [n.event for n in frame.events] == [events[-1].for_viewer(RED), ev.Opened(RED),
                                               UnknownEvent("sandstorm", {"type": "sandstorm", "strength": 9,
                                                                          "version": 3})]
    assert [n.version for n in frame.events] == [1, 2, 3]


@pytest.mark.parametrize("spoil, problem", [
    (lambda v: v.pop("pending"), "pending"),
    (lambda v: v.update(viewer="green"), "green"),
    (lambda v: v["red"].pop("score"), "score"),
])
def test_a_malformed_view_is_a_protocol_error(spoil, problem):
    state, _ = played(3, 4)
    bad = view(state, RED).to_dict()
    spoil(bad)
    with pytest.raises(ProtocolError) as info:
        typed(m.Update(game=1, version=1, events=(), view=bad, clocks=CLOCKS))
    assert info.value.code is ErrorCode.INVALID and problem in info.value.message


@pytest.mark.parametrize("event, problem", [
    ({"type": "stone_placed", "player": "green", "temple": 1, "square": 2}, "stone_placed: player: unexpected 'green'"),
    ({"type": "stone_placed", "player": "red", "temple": 1}, "stone_placed: square is missing"),
    ({"type": "game_over", "winner": None, "reason": "boredom", "red_score": 1, "blue_score": 2},
     "game_over: reason: unexpected 'boredom'"),
    ({"type": "cards_drawn", "player": "red", "cards": 4}, "cards_drawn: cards: unexpected 4"),
    ({"type": "opened", "player": "red", "version": "x"}, "version"),
])
def test_a_malformed_event_is_a_protocol_error(event, problem):
    state, _ = played(3, 4)
    with pytest.raises(ProtocolError) as info:
        typed(m.Update(game=1, version=1, events=({"version": 1, **event},), view=view(state, RED).to_dict(),
                       clocks=CLOCKS))
    assert info.value.code is ErrorCode.INVALID
    assert problem in info.value.message


def test_other_messages_pass_as_they_are():
    pong = m.Pong(reply_to=3)
    assert typed(pong) is pong
