"""§4.2 resolution in slot order, §4.3 sinking, §4.5 end of round, §11.9 a game ending mid-round."""

from atlas_zeus import BLUE, RED, Card, Harpoon, Outcome, Termination
from atlas_zeus.events import (
    CardTurned,
    GameOver,
    InitiativePassed,
    IslandSank,
    MarkerReturned,
    PersonDied,
    RoundStarted,
)
from atlas_zeus.game import Phase

from .helpers import kinds, of, play, position, resolve


def test_slots_resolve_in_order_and_cards_go_to_their_owners_discard():
    state = position({"R1": 2, "B1": 3}, flood=16,
                     track={1: (BLUE, Card.OPEN_HAND), 2: (RED, Card.WEAKNESS), 3: (RED, Card.RESHUFFLE),
                            4: (BLUE, Card.CRAB), 5: (BLUE, Card.PRAYER), 6: (RED, Card.OPEN_HAND)})
    events = resolve(state)
    assert [(e.slot, e.player, e.card) for e in of(events, CardTurned)] == [
        (1, BLUE, Card.OPEN_HAND), (2, RED, Card.WEAKNESS), (3, RED, Card.RESHUFFLE), (4, BLUE, Card.CRAB),
        (5, BLUE, Card.PRAYER), (6, RED, Card.OPEN_HAND)]
    assert Card.OPEN_HAND in state.discards[BLUE] and Card.CRAB in state.discards[BLUE]
    assert Card.OPEN_HAND in state.discards[RED]


def test_a_decision_pauses_the_resolution_and_the_card_is_shown_face_up():
    state = position({"R1": 2, "B1": 3}, flood=16, track={2: (RED, Card.HARPOON), 4: (BLUE, Card.CRAB)})
    resolve(state)
    assert state.phase is Phase.RESOLVE and state.resolving == 2 and state.pending() == (RED,)
    assert state.track[1].face_up and not state.track[3].face_up
    events = play(state, RED, Harpoon("B1"))
    assert state.is_over, "blue has nobody left: the game ends after the Harpoon"
    assert not of(events, CardTurned), "slot 4 is never turned"


def test_a_game_that_ends_mid_round_leaves_the_track_and_draws_nothing():
    """§11.9."""
    state = position({"R1": 2, "B1": 3}, flood=16, track={1: (RED, Card.HARPOON), 4: (BLUE, Card.CRAB)})
    resolve(state)
    hands = [len(h) for h in state.hands]
    events = play(state, RED, Harpoon("B1"))
    assert state.track[3].card is Card.CRAB and state.track[3].holds_card
    assert [len(h) for h in state.hands] == hands
    assert kinds(events)[-1] == "game_over"
    assert state.outcome() == Outcome(Termination.ELIMINATED, RED)


def test_the_sinking_takes_everyone_on_the_island_and_its_markers():
    state = position({"R1": 5, "R5": 5, "B5": 5, "B1": 3}, flood=5, nets={BLUE: 5}, turtles={RED: "R5"},
                     track={1: (RED, Card.WEAKNESS)})
    events = resolve(state)
    assert of(events, IslandSank) == [IslandSank(5)]
    assert {e.person for e in of(events, PersonDied)} == {"R1", "R5", "B5"}
    assert all(e.by == "sinking" for e in of(events, PersonDied))
    assert MarkerReturned(BLUE, "net", 5, None, "sank") in events
    assert MarkerReturned(RED, "turtle", None, "R5", "died") in events
    assert state.outcome() == Outcome(Termination.ELIMINATED, BLUE)


def test_end_of_round_order_sinking_draw_initiative_round():
    state = position({"R1": 2, "B1": 3}, flood=16, track={1: (RED, Card.WEAKNESS)}, initiative=RED)
    events = resolve(state)
    order = [k for k in kinds(events) if k in ("island_sank", "flood_moved", "cards_drawn", "initiative_passed",
                                               "round_started")]
    assert order == ["island_sank", "flood_moved", "cards_drawn", "cards_drawn", "initiative_passed",
                     "round_started"]
    assert of(events, InitiativePassed) == [InitiativePassed(BLUE)]
    assert of(events, RoundStarted) == [RoundStarted(2, BLUE)]
    assert state.weakened == [False, False]
    assert all(slot.owner is None for slot in state.track)
    assert state.phase is Phase.PROGRAM and state.pending() == (BLUE,)


def test_an_empty_slot_is_skipped():
    state = position({"R1": 2, "B1": 3}, flood=16, track={3: (RED, Card.WEAKNESS)})
    events = resolve(state)
    assert [e.slot for e in of(events, CardTurned)] == [3]
    assert of(events, GameOver) == []
