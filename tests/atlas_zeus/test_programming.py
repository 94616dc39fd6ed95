"""§4.1 programming: pairs for the initiative, free slots for the other, hidden cards, Open hand."""

import pytest

from atlas_zeus import BLUE, RED, Card, IllegalMove, Program, view
from atlas_zeus.events import Programmed
from atlas_zeus.game import Phase

from .helpers import of, play, position

T, C, H, F = Card.TRANSFER, Card.CRAB, Card.HARPOON, Card.FOG
HAND = [T, T, C, H, F, Card.PRAYER]


def start(**kw):
    return position({"R1": 1, "B1": 2}, hands={RED: HAND, BLUE: HAND}, **kw)


def test_initiative_takes_one_slot_of_each_pair():
    state = start()
    assert state.program_slots(RED) == ((1, 3, 5), (1, 3, 6), (1, 4, 5), (1, 4, 6),
                                        (2, 3, 5), (2, 3, 6), (2, 4, 5), (2, 4, 6))
    with pytest.raises(IllegalMove, match="one card in each pair"):
        state.check(RED, Program(((1, T), (2, T), (3, C))))


def test_the_other_player_takes_exactly_the_free_slots():
    state = start()
    play(state, RED, Program(((2, T), (3, C), (6, H))))
    assert state.pending() == (BLUE,)
    assert state.program_slots(BLUE) == ((1, 4, 5),)
    with pytest.raises(IllegalMove, match="free slots 1, 4, 5"):
        state.check(BLUE, Program(((1, T), (4, C), (6, H))))
    assert {m.slots for m in state.legal_moves(BLUE)} == {(1, 4, 5)}


def test_program_slots_with_a_sealed_programming():
    state = start()
    assert state.program_slots(BLUE, taken=(2, 3, 6)) == ((1, 4, 5),)
    state.check_program(BLUE, Program(((1, T), (4, C), (5, H))), taken=(2, 3, 6))


def test_cards_must_be_in_hand():
    state = start()
    with pytest.raises(IllegalMove, match="You have no Volcano in your hand"):
        state.check(RED, Program(((1, Card.VOLCANO), (3, C), (5, H))))
    with pytest.raises(IllegalMove, match="only 1 Crab"):
        state.check(RED, Program(((1, C), (3, C), (5, H))))


def test_only_the_pending_player_programs():
    state = start()
    with pytest.raises(IllegalMove, match="not your turn: red must choose a programming"):
        state.check(BLUE, Program(((1, T), (3, C), (5, H))))


def test_copies_are_interchangeable():
    """§11.13: the legal programmings list each decision once."""
    state = start()
    moves = state.legal_moves(RED)
    assert len(moves) == len(set(moves))
    # 6 cards with two Transfers: 5*4*3 distinct orders of distinct cards + those with both Transfers
    assert len(moves) == 8 * len({tuple(m.cards[i][1] for i in range(3)) for m in moves})
    assert Program(((3, T), (1, C), (5, T))) == Program(((1, C), (3, T), (5, T)))


def test_cards_leave_the_hand_and_lie_face_down():
    state = start()
    play(state, RED, Program(((2, T), (3, C), (6, H))))
    assert sorted(state.hands[RED]) == sorted([T, F, Card.PRAYER])
    for viewer, seen in ((RED, C), (BLUE, None), (None, None)):
        slot = view(state, viewer).track[2]
        assert slot.owner is RED and slot.card is seen and not slot.face_up
        assert view(state, viewer).to_dict()["track"][2]["card"] == (None if seen is None else "crab")


def test_programmed_event_hides_the_cards_from_others():
    state = start()
    (event,) = of(play(state, RED, Program(((2, T), (3, C), (6, H)))), Programmed)
    assert event.cards == (T, C, H) and not event.face_up
    assert event.for_viewer(BLUE).cards is None and event.for_viewer(None).cards is None
    assert event.for_viewer(RED).cards == (T, C, H)


def test_after_both_programmings_the_resolution_starts():
    state = start()
    play(state, RED, Program(((2, Card.PRAYER), (3, C), (6, F))))
    play(state, BLUE, Program(((1, H), (4, C), (5, Card.PRAYER))))
    assert state.phase is not Phase.PROGRAM


def test_open_hand_programs_face_up():
    state = start()
    state.open_hand[RED] = 1
    assert view(state, BLUE).player(RED).open_hand
    (event,) = of(play(state, RED, Program(((2, T), (3, C), (6, H)))), Programmed)
    assert event.face_up and event.for_viewer(BLUE).cards == (T, C, H)
    slot = view(state, None).track[1]
    assert slot.face_up and slot.card is T
    assert state.open_hand[RED] == 0, "Open hand ends once the programming is face up"
    assert view(state, BLUE).player(RED).hand is None, "the hand itself stays hidden"


def test_sealed_programming_shows_its_slots_face_down():
    state = start()
    seen = view(state, BLUE, sealed={RED: (2, 3, 6)})
    assert [s.owner for s in seen.track] == [None, RED, RED, None, None, RED]
    assert all(s.card is None for s in seen.track)
    assert seen.pending == (BLUE,)
    assert seen.decision is not None and seen.decision.slots == ((1, 4, 5),)
    assert view(state, RED, sealed={RED: (2, 3, 6)}).decision is None
    both = view(state, None, sealed={RED: (2, 3, 6), BLUE: (1, 4, 5)})
    assert both.pending == ()
    plain = both.to_dict()
    assert [(s["owner"], s["card"], s["face_up"]) for s in plain["track"]] == [
        ("blue", None, False), ("red", None, False), ("red", None, False), ("blue", None, False),
        ("blue", None, False), ("red", None, False)]
    assert plain["decision"] is None
