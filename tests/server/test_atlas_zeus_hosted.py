"""``AtlasZeusGame``, the arbiter's view of Atlas & Zeus, without a network: the sequential sealed
programming (who is pending as seals arrive, what each receiver sees), Open hand's face-up
programming, and the refusals of the moves the messages carry."""

from __future__ import annotations

import pytest

from atlas_zeus.moves import Program
from protocol import messages as m
from protocol.clocks import ATLAS_ZEUS_TIME_CONTROLS
from protocol.commitment import program_digest
from protocol.errors import ProtocolError
from server.config import Limits
from server.games import RefusedMove
from server.games.atlas_zeus import AtlasZeusGame
from server.lobby import Lobby
from server.room import GameSeat, Room, Seat
from server.store import Store

from ..manual_clock import ManualClock

SEED = 18


class _Nobody:
    """A participant that receives every frame and reads none."""

    name = "nobody"

    def deliver(self, message: m.Message) -> None:
        pass


def _room(tmp_path) -> tuple[Room, AtlasZeusGame]:
    """A room of an Atlas & Zeus game, outside a server: its store, its lobby and a manual clock."""
    store = Store(tmp_path / "room.db")
    game = AtlasZeusGame(SEED)
    seats: dict[GameSeat, Seat] = {seat: Seat(name=str(seat), kind="human") for seat in game.seats}
    store.create_game(1, SEED, {}, {"clock": "normal"}, {s: held.stored() for s, held in seats.items()},
                      game=game.name)
    clock = ManualClock()
    room = Room(game_id=1, game=game, options={"clock": "normal"}, seats=seats, store=store,
                time_control=ATLAS_ZEUS_TIME_CONTROLS["normal"],
                lobby=Lobby(lambda *args: None, Limits(), clock=clock), clock=clock)
    return room, game


def first_program(game: AtlasZeusGame, seat) -> Program:
    move = game.default_move(seat)
    assert isinstance(move, Program)
    return move


def test_the_initiative_seals_then_the_other_on_the_free_slots_then_both_play_in_order():
    game = AtlasZeusGame(SEED)
    first = game.state.initiative
    second = first.other
    assert game.sealed and game.pending() == (first,)
    program = first_program(game, first)
    claim = game.claim(first, None, program.slots)
    assert claim == {"slots": list(program.slots)}
    game.set_seals({first: claim})
    assert game.pending() == (first, second)
    seen = game.view(second)
    taken = [s["slot"] for s in seen["track"] if s["owner"] == str(first)]
    assert taken == list(program.slots) and all(s["card"] is None for s in seen["track"])
    assert seen["decision"]["kind"] == "program"
    assert seen["decision"]["slots"] == [[s for s in range(1, 7) if s not in program.slots]]
    assert game.view(first)["decision"] is None and game.view(None)["decision"] is None
    with pytest.raises(RefusedMove, match="You cannot program slots"):
        game.claim(second, None, program.slots)
    answer = first_program(game, second)
    assert set(answer.slots).isdisjoint(program.slots)
    made = game.claim(second, answer, None)  # sealed by the server (a time-out, a hosted bot)
    game.set_seals({first: claim, second: made})
    for viewer, cards in ((second, {slot: card.value for slot, card in answer.cards}), (first, {}), (None, {})):
        shown = {s["slot"]: s["card"] for s in game.view(viewer)["track"]
                 if s["owner"] == str(second) and s["card"] is not None}
        assert shown == cards, "the server's seal shows its cards to their owner only"
        assert not any(s["face_up"] for s in game.view(viewer)["track"])
    assert game.pending() == (first, second)
    with pytest.raises(RefusedMove, match="not on the slots you sealed"):
        game.check(first, Program(tuple(zip(answer.slots, (c for _, c in program.cards), strict=True))))
    game.check(first, program)
    game.check(second, answer)
    game.set_seals({})
    game.play(first, program)
    game.play(second, answer)
    assert not game.sealed or game.state.round == 2


def test_a_resignation_while_sealed_leaves_no_sealed_slot_on_the_track(tmp_path):
    room, game = _room(tmp_path)
    first = game.state.initiative
    program = first_program(game, first)
    room.handle(first, m.Commit(game=1, digest=program_digest(program.to_dict()["cards"], b"n" * 32),
                                slots=program.slots), _Nobody())
    assert any(s["owner"] == str(first) for s in game.view(None)["track"])
    room.handle(first, m.Resign(game=1), _Nobody())
    assert game.is_over and not room.seals and room.commitments() == {"red": "none", "blue": "none"}
    assert not any(s["owner"] for s in game.view(None)["track"])
    stored = room.store.load_game(1)
    assert stored is not None and stored.seals == {}


def test_under_open_hand_the_programming_is_sealed_face_up_and_everyone_sees_it():
    game = AtlasZeusGame(SEED)
    first = game.state.initiative
    game.state.open_hand[first] = 1
    program = first_program(game, first)
    act = m.Act(game=1, move=program.to_dict())
    assert game.move_of(first, act) == program
    with pytest.raises(RefusedMove, match="face up this round"):
        game.claim(first, None, program.slots)
    claim = game.claim(first, program, None)
    assert claim == program.to_dict()
    game.set_seals({first: claim})
    for viewer in (first.other, None):
        shown = {s["slot"]: s["card"] for s in game.view(viewer)["track"] if s["owner"] == str(first)}
        assert shown == {slot: card.value for slot, card in program.cards}
    # the other player, not under Open hand, must seal theirs
    answer = first_program(game, first.other)
    with pytest.raises(RefusedMove, match="seal it with commit"):
        game.move_of(first.other, m.Act(game=1, move=answer.to_dict()))


def test_an_opening_must_match_the_digest_and_a_move_must_be_well_formed():
    game = AtlasZeusGame(SEED)
    first = game.state.initiative
    program = first_program(game, first)
    cards = program.to_dict()["cards"]
    digest = program_digest(cards, b"n" * 32)
    opening = m.Open(game=1, cards=None, nonce=b"n" * 32, move=program.to_dict())
    assert game.opens(digest, game.move_of(first, opening), b"n" * 32)
    assert not game.opens(digest, program, b"m" * 32)
    assert program_digest(list(reversed(cards)), b"n" * 32) == digest, "the text is in slot order"
    with pytest.raises(ProtocolError, match="an opening is a programming"):
        game.move_of(first, m.Open(game=1, cards=None, nonce=b"n" * 32, move={"kind": "resign"}))
    with pytest.raises(ProtocolError, match=r"move: slot must be a number 1\.\.6"):
        game.move_of(first, m.Act(game=1, move={"kind": "fog", "slot": 9}))
    with pytest.raises(RefusedMove, match="not a move of Atlas & Zeus"):
        game.move_of(first, m.Place(game=1, temple=1, square=1))


def test_the_documented_digest():
    """docs/protocol.md's example of an Atlas & Zeus commitment."""
    cards: list[list[int | str]] = [[1, "transfer"], [3, "crab"], [6, "fog"]]
    assert program_digest(cards, bytes(range(32))).hex() == DOCUMENTED_DIGEST


DOCUMENTED_DIGEST = "7b9a6f831b7646b6c369e18a4e96940d54e24c212264844f3297a5d577987d1c"
