"""§5.2 Volcano: lava islands, escapes, fleeing (§11.5), small rings (§11.11), markers (§11.12),
the flood marker (§11.16) and both clans dying in one eruption (§11.15)."""

import pytest

from atlas_zeus import BLUE, RED, Card, Flee, IllegalMove, Outcome, Termination, Volcano, view
from atlas_zeus.events import CardWithoutEffect, FloodMoved, IslandErupted, MarkerReturned, PersonDied, PersonMoved
from atlas_zeus.options import Options

from .helpers import of, play, position, resolve, total_cards

# On the ring 1..16, Volcano on 6: lava islands 5 (counter-clockwise) and 7; escapes 4 (small) and 8 (large).


def at_volcano(people, *, owner=RED, **kw):
    kw.setdefault("flood", 16)
    state = position(people, track={1: (owner, Card.VOLCANO)}, **kw)
    resolve(state)
    return state


def test_only_volcanic_islands_erupt():
    state = at_volcano({"R1": 2, "B1": 3})
    assert state.legal_moves(RED) == [Volcano(6), Volcano(9), Volcano(12), Volcano(15)]
    with pytest.raises(IllegalMove, match="Island 5 is not volcanic"):
        state.check(RED, Volcano(5))


def test_volcano_without_a_volcanic_island_has_no_effect():
    state = at_volcano({"R1": 2, "B1": 3}, ring=[1, 2, 3, 4, 5])
    assert state.round == 2
    assert Card.VOLCANO in state.discards[RED]


def test_everyone_escapes_to_a_large_island_and_the_crater_leaves_the_ring():
    state = at_volcano({"R1": 7, "B1": 7, "B2": 6, "R2": 2})
    events = play(state, RED, Volcano(6))
    assert {e.person for e in of(events, PersonMoved)} == {"R1", "B1"}
    assert all(e.to_island == 8 and e.by == "volcano" for e in of(events, PersonMoved))
    assert of(events, PersonDied) == [PersonDied("B2", 6, "volcano")]
    assert of(events, IslandErupted) == [IslandErupted(6, RED)]
    assert 6 not in state.ring


def test_one_person_flees_to_a_small_empty_island_chosen_by_the_owner_of_the_fleeing_clan():
    state = at_volcano({"R2": 5, "R5": 5, "B3": 5, "B1": 2})
    play(state, RED, Volcano(6))
    assert state.pending() == (RED,), "the erupting player's people flee first"
    assert state.legal_moves(RED) == [Flee("R2"), Flee("R5")]
    with pytest.raises(IllegalMove, match="B3 may not flee"):
        state.check(RED, Flee("B3"))
    decision = view(state, RED).decision
    assert decision is not None and decision.kind == "flee" and decision.card is Card.VOLCANO
    events = play(state, RED, Flee("R5"))
    assert of(events, PersonMoved) == [PersonMoved("R5", 5, 4, "volcano")]
    assert {e.person for e in of(events, PersonDied)} == {"R2", "B3"}


def test_the_opponent_flees_when_the_erupting_player_has_nobody_there_and_a_single_choice_is_asked():
    """§11.5: the owner of the fleeing clan decides, even with one person."""
    state = at_volcano({"B3": 5, "R1": 2, "B1": 2})
    play(state, RED, Volcano(6))
    assert state.pending() == (BLUE,)
    assert state.legal_moves(BLUE) == [Flee("B3")]
    play(state, BLUE, Flee("B3"))
    assert state.location["B3"] == 4


def test_no_escape_onto_an_occupied_small_island():
    state = at_volcano({"R2": 5, "B3": 4, "B1": 2})
    events = play(state, RED, Volcano(6))
    assert of(events, PersonDied) == [PersonDied("R2", 5, "volcano")]


def test_a_pilehouse_on_the_escape_island_takes_everyone():
    state = at_volcano({"R2": 5, "R5": 5, "B3": 4, "B1": 2}, pilehouses={BLUE: 4})
    events = play(state, RED, Volcano(6))
    assert {e.person for e in of(events, PersonMoved)} == {"R2", "R5"}
    assert not of(events, PersonDied)


@pytest.mark.parametrize("netted", [5, 4])
def test_a_net_on_the_lava_or_escape_island_stops_the_escape(netted):
    state = at_volcano({"R2": 5, "B1": 2}, nets={BLUE: netted})
    events = play(state, RED, Volcano(6))
    assert of(events, PersonDied) == [PersonDied("R2", 5, "volcano")]


def test_lava_kills_turtles_and_a_fleeing_turtle_stops_being_one():
    state = at_volcano({"R2": 7, "B5": 5, "B1": 2}, turtles={BLUE: "B5"}, nets={RED: 8})
    play(state, RED, Volcano(6))
    events = play(state, BLUE, Flee("B5"))
    assert MarkerReturned(BLUE, "turtle", 4, "B5", "moved") in events
    assert of(events, PersonDied) == [PersonDied("R2", 7, "volcano")]


def test_markers_on_the_erupting_island_return():
    """§6 and §11.12: a Net and a Pilehouse on the crater come back, their cards discarded."""
    state = at_volcano({"R1": 2, "B1": 3}, nets={BLUE: 6})
    events = play(state, RED, Volcano(6))
    assert MarkerReturned(BLUE, "net", 6, None, "erupted") in events
    assert state.nets[BLUE] is None and Card.NET in state.discards[BLUE]
    options = Options(islands=tuple(i if i.number != 6 else type(i)(6, i.kind, False) for i in Options().islands))
    state = at_volcano({"R1": 2, "B1": 3}, pilehouses={RED: 6}, options=options)
    events = play(state, RED, Volcano(6))
    assert MarkerReturned(RED, "pilehouse", 6, None, "erupted") in events


def test_the_flood_marker_on_the_crater_advances_at_once_and_the_sinking_still_happens():
    """§11.16: 6 erupts under the marker, which goes to 7; 7 sinks at the end of the round."""
    state = at_volcano({"R1": 2, "B1": 3}, flood=6)
    events = play(state, RED, Volcano(6))
    moves = of(events, FloodMoved)
    assert moves[0] == FloodMoved(6, 7, "volcano")
    assert 6 not in state.ring and 7 not in state.ring, "the eruption and the sinking: two islands"
    assert state.flood == 8


def test_a_flood_marker_left_waiting_by_the_option_sinks_nothing_that_round():
    options = Options(eruption_advances_flood=False)
    state = at_volcano({"R1": 2, "B1": 3}, flood=6, options=options)
    play(state, RED, Volcano(6))
    assert 7 in state.ring and state.flood == 7
    assert len(state.ring) == 15


def test_ring_of_two_the_lava_island_has_no_escape():
    state = at_volcano({"R1": 5, "B1": 6, "B2": 5}, ring=[6, 5], flood=5)
    events = play(state, RED, Volcano(6))
    assert {e.person for e in of(events, PersonDied)} == {"R1", "B1", "B2"}
    assert state.outcome() == Outcome(Termination.BOTH_ELIMINATED, None)


def test_ring_of_three_both_lava_islands_face_each_other():
    state = at_volcano({"R1": 5, "B1": 7}, ring=[5, 6, 7], flood=5)
    events = play(state, RED, Volcano(6))
    assert {e.person for e in of(events, PersonDied)} == {"R1", "B1"}
    assert state.ring == [5, 7]


def test_ring_of_four_both_lava_islands_share_one_escape():
    """5 and 7 both escape to 4: the first (counter-clockwise) fills it, the second cannot."""
    state = at_volcano({"R5": 5, "B5": 7, "B1": 7}, ring=[4, 5, 6, 7], flood=4)
    play(state, RED, Volcano(6))
    events = play(state, RED, Flee("R5"))
    assert of(events, PersonMoved) == [PersonMoved("R5", 5, 4, "volcano")]
    assert {e.person for e in of(events, PersonDied) if e.by == "volcano"} == {"B5", "B1"}
    assert state.outcome() == Outcome(Termination.ELIMINATED, RED), "ended after the card, before the sinking"
    assert state.location["R5"] == 4


def test_ring_of_one_the_crater_takes_everyone():
    state = at_volcano({"R1": 6, "B1": 6}, ring=[6], flood=6)
    events = play(state, RED, Volcano(6))
    assert state.ring == [] and state.outcome() == Outcome(Termination.BOTH_ELIMINATED, None)
    assert not of(events, FloodMoved)


def test_both_clans_dying_in_one_volcano_is_a_draw():
    """§11.15: the end check waits for the whole card (lava, then crater)."""
    state = at_volcano({"R1": 6, "B1": 5}, ring=[5, 6, 7, 16], flood=16, nets={RED: 16})
    events = play(state, RED, Volcano(6))
    assert state.outcome() == Outcome(Termination.BOTH_ELIMINATED, None)
    assert events[-1].kind == "game_over"


def test_a_clan_wiped_out_by_the_lava_loses_before_the_crater_by_option():
    """end_check_at_any_point: the same eruption ends at the lava; the crater stays, with R1 on it,
    and the Volcano stays on the track (§11.9)."""
    state = at_volcano({"R1": 6, "B1": 5}, ring=[5, 6, 7, 16], flood=16, nets={RED: 16},
                       options=Options(end_check_at_any_point=True))
    events = play(state, RED, Volcano(6))
    assert state.outcome() == Outcome(Termination.ELIMINATED, RED)
    assert of(events, PersonDied) == [PersonDied("B1", 5, "volcano")] and not of(events, IslandErupted)
    assert 6 in state.ring and state.location["R1"] == 6
    assert state.track[0].holds_card and total_cards(state, RED) == 25


def test_a_fleeing_turtle_stays_one_by_option():
    state = at_volcano({"R1": 7, "B1": 2}, turtles={RED: "R1"}, options=Options(turtle_ends_when_moved=False))
    events = play(state, RED, Volcano(6))
    assert of(events, PersonMoved) == [PersonMoved("R1", 7, 8, "volcano")] and not of(events, MarkerReturned)
    assert state.turtles[RED] == "R1"


def test_strongest_flees_by_option():
    state = at_volcano({"R2": 5, "R5": 5, "B1": 2}, options=Options(flee_chooser="strongest"))
    events = play(state, RED, Volcano(6))
    assert of(events, PersonMoved) == [PersonMoved("R2", 5, 4, "volcano")]


def test_erupting_player_chooses_by_option():
    state = at_volcano({"B3": 5, "R1": 2, "B1": 2}, options=Options(flee_chooser="erupting"))
    play(state, RED, Volcano(6))
    assert state.pending() == (RED,) and state.legal_moves(RED) == [Flee("B3")]


def test_no_effect_event_when_no_volcanic_island():
    state = position({"R1": 2, "B1": 3}, ring=[1, 2, 3], flood=1, track={1: (RED, Card.VOLCANO)})
    events = resolve(state)
    assert of(events, CardWithoutEffect)[0].why == "no_target"
