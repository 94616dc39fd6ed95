"""§5.1 Transfer: points, steps, nets, capacity after all steps, compulsory, turtles; and the
options that change them (passing, nets on the way, room per step, a turtle on the move)."""

import pytest

from atlas_zeus import BLUE, RED, Card, IllegalMove, Transfer, view
from atlas_zeus.events import CardWithoutEffect, MarkerReturned, PersonMoved
from atlas_zeus.moves import move_from_dict
from atlas_zeus.options import Options

from .helpers import of, play, position, resolve

RING = list(range(1, 17))


def at_transfer(people, **kw):
    kw.setdefault("flood", 16)
    state = position(people, track={1: (RED, Card.TRANSFER)}, **kw)
    resolve(state)
    return state


def test_a_step_costs_the_ring_distance_up_to_three_points():
    state = at_transfer({"R1": 5, "B1": 12})
    moves = state.legal_moves(RED)
    assert {m.steps for m in moves} == {(("R1", i),) for i in (2, 3, 4, 6, 7, 8)}
    with pytest.raises(IllegalMove, match="cost 4 movement points; a Transfer has 3"):
        state.check(RED, Transfer((("R1", 9),)))
    events = play(state, RED, Transfer((("R1", 8),)))
    assert of(events, PersonMoved) == [PersonMoved("R1", 5, 8, "transfer")]


def test_points_are_shared_among_up_to_three_people():
    state = at_transfer({"R1": 2, "R2": 5, "R3": 8, "R4": 11, "B1": 14})
    moves = set(state.legal_moves(RED))
    assert Transfer((("R1", 3), ("R2", 6), ("R3", 9))) in moves
    assert Transfer((("R1", 4), ("R2", 6))) in moves
    assert Transfer((("R1", 4), ("R2", 7))) not in moves
    with pytest.raises(IllegalMove, match="1 to 3 different people"):
        state.check(RED, Transfer((("R1", 3), ("R2", 6), ("R3", 9), ("R4", 12))))
    with pytest.raises(IllegalMove, match="cost 4"):
        state.check(RED, Transfer((("R1", 4), ("R2", 7))))


def test_a_step_to_ones_own_island_is_not_a_step():
    """§11.7."""
    state = at_transfer({"R1": 2, "B1": 14})
    with pytest.raises(IllegalMove, match="R1 is already on island 2"):
        state.check(RED, Transfer((("R1", 2),)))


def test_only_your_living_people_move():
    state = at_transfer({"R1": 2, "B1": 14})
    with pytest.raises(IllegalMove, match="B1 is not one of your people"):
        state.check(RED, Transfer((("B1", 13),)))
    with pytest.raises(IllegalMove, match="R2 is dead"):
        state.check(RED, Transfer((("R2", 3),)))


def test_a_person_may_pass_a_full_island_but_not_stop_on_it():
    # 4 is small and held by B1: R1 goes past it from 3 to 5, not onto it
    state = at_transfer({"R1": 3, "B1": 4})
    moves = set(state.legal_moves(RED))
    assert Transfer((("R1", 5),)) in moves
    assert Transfer((("R1", 4),)) not in moves
    with pytest.raises(IllegalMove, match="Island 4 is small: it cannot hold R1 and B1"):
        state.check(RED, Transfer((("R1", 4),)))


def test_a_step_may_pass_a_netted_island_but_not_start_or_end_there():
    state = at_transfer({"R1": 3, "R2": 6, "B1": 12}, nets={BLUE: 4})
    moves = set(state.legal_moves(RED))
    assert Transfer((("R1", 5),)) in moves, "passing the net on 4"
    assert Transfer((("R1", 4),)) not in moves
    with pytest.raises(IllegalMove, match="Island 4 holds a Net"):
        state.check(RED, Transfer((("R1", 4),)))


def test_nets_block_their_owner_too():
    """§11.8: red's own Net holds red's people."""
    state = at_transfer({"R1": 3, "R2": 8, "B1": 12}, nets={RED: 3})
    assert all(person != "R1" for m in state.legal_moves(RED) for person, _ in m.steps)
    with pytest.raises(IllegalMove, match="R1 stands on island 3, which holds a Net"):
        state.check(RED, Transfer((("R1", 5),)))


def test_nets_block_passing_by_option():
    """Ring 2 3 4 5 6 with a Net on 4: from 3 to 5 the short way passes it (2 points); with
    nets_block_passing the step goes the other way round, 3 2 6 5 (3 points)."""
    people, ring = {"R1": 3, "R2": 2, "B1": 6}, [2, 3, 4, 5, 6]
    state = at_transfer(people, ring=ring, flood=6, nets={BLUE: 4})
    assert Transfer((("R1", 5), ("R2", 6))) in state.legal_moves(RED)
    state = at_transfer(people, ring=ring, flood=6, nets={BLUE: 4}, options=Options(nets_block_passing=True))
    moves = state.legal_moves(RED)
    assert Transfer((("R1", 5),)) in moves and Transfer((("R1", 5), ("R2", 6))) not in moves
    with pytest.raises(IllegalMove, match="cost 4 movement points"):
        state.check(RED, Transfer((("R1", 5), ("R2", 6))))


def test_a_step_with_a_net_both_ways_round_by_option():
    state = at_transfer({"R1": 3, "R2": 5, "B1": 6}, ring=[2, 3, 4, 5, 6], flood=6, nets={RED: 2, BLUE: 4},
                        options=Options(nets_block_passing=True))
    assert all(person != "R1" for m in state.legal_moves(RED) for person, _ in m.steps)
    with pytest.raises(IllegalMove, match="Both ways from island 3 to island 5 pass a Net"):
        state.check(RED, Transfer((("R1", 5),)))


def test_two_people_may_swap_small_islands():
    """16 and 1 are small neighbours: a swap costs 2 points."""
    state = at_transfer({"R5": 16, "R6": 1, "B1": 12}, flood=8)
    assert Transfer((("R5", 1), ("R6", 16))) in state.legal_moves(RED)
    assert Transfer((("R5", 1),)) not in state.legal_moves(RED)
    play(state, RED, Transfer((("R5", 1), ("R6", 16))))
    assert state.location["R5"] == 1 and state.location["R6"] == 16


def test_room_checked_per_step_by_option():
    """room_checked_per_step: people move one after another, so 16 and 1 cannot swap; a chain
    works when its front moves first (R6 leaves 1 for 2, then R5 steps onto 1)."""
    state = at_transfer({"R5": 16, "R6": 1, "B1": 12}, flood=8, options=Options(room_checked_per_step=True))
    assert Transfer((("R5", 1), ("R6", 16))) not in state.legal_moves(RED)
    with pytest.raises(IllegalMove, match="two people cannot swap small islands"):
        state.check(RED, Transfer((("R5", 1), ("R6", 16))))
    events = play(state, RED, Transfer((("R5", 1), ("R6", 2))))
    assert of(events, PersonMoved) == [PersonMoved("R6", 1, 2, "transfer"), PersonMoved("R5", 16, 1, "transfer")]


def test_a_swap_with_an_opponent_is_not_possible():
    state = at_transfer({"R5": 16, "B6": 1, "B1": 12}, flood=8)
    assert Transfer((("R5", 1),)) not in state.legal_moves(RED)


def test_a_move_into_an_island_just_left_counts_capacity_after_all_steps():
    state = at_transfer({"R5": 4, "R6": 5, "B1": 12})
    assert Transfer((("R5", 3), ("R6", 4))) in state.legal_moves(RED)
    assert Transfer((("R6", 4),)) not in state.legal_moves(RED)


def test_a_pilehouse_lets_a_small_island_hold_more():
    state = at_transfer({"R1": 3, "B1": 4}, pilehouses={BLUE: 4})
    assert Transfer((("R1", 4),)) in state.legal_moves(RED)


def test_transfer_is_compulsory_when_a_step_exists():
    state = at_transfer({"R1": 3, "B1": 12})
    assert state.pending() == (RED,)
    assert view(state, RED).decision is not None
    assert Transfer(()) not in state.legal_moves(RED)
    with pytest.raises(IllegalMove, match="compulsory: move at least one person"):
        state.check(RED, Transfer(()))


def test_passing_a_transfer_by_option():
    """transfer_may_pass: no step moves nobody and discards the card; the pass is offered last,
    and only when a step is legal too."""
    passing = Options(transfer_may_pass=True)
    state = at_transfer({"R1": 3, "B1": 12}, options=passing)
    moves = state.legal_moves(RED)
    assert moves[-1] == Transfer(()) and len(moves) > 1
    decision = view(state, RED).decision
    assert decision is not None and "pass" in decision.sentence
    events = play(state, RED, Transfer(()))
    assert of(events, PersonMoved) == [] and state.location["R1"] == 3
    assert Card.TRANSFER in state.discards[RED]
    state = position({"R1": 3, "B1": 12}, nets={RED: 3}, flood=16, track={1: (RED, Card.TRANSFER)}, options=passing)
    assert [e.why for e in of(resolve(state), CardWithoutEffect)] == ["no_target"]


def test_the_plain_form_of_a_pass():
    assert Transfer(()).to_dict() == {"kind": "transfer", "steps": []}
    assert move_from_dict({"kind": "transfer", "steps": []}) == Transfer(())
    with pytest.raises(ValueError, match="up to 3"):
        move_from_dict({"kind": "transfer", "steps": [["R1", 2], ["R2", 3], ["R3", 4], ["R4", 5]]})


def test_transfer_without_a_legal_step_has_no_effect():
    state = position({"R1": 3, "B1": 12}, nets={RED: 3}, flood=16, track={1: (RED, Card.TRANSFER)})
    events = resolve(state)
    assert [(e.card, e.why) for e in of(events, CardWithoutEffect)] == [(Card.TRANSFER, "no_target")]
    assert Card.TRANSFER in state.discards[RED]


def test_a_turtle_that_moves_stops_being_a_turtle():
    state = at_transfer({"R1": 3, "B1": 12}, turtles={RED: "R1"})
    events = play(state, RED, Transfer((("R1", 5),)))
    assert of(events, MarkerReturned) == [MarkerReturned(RED, "turtle", 5, "R1", "moved")]
    assert state.turtles[RED] is None and Card.TURTLE in state.discards[RED]


def test_a_turtle_keeps_its_shell_on_the_move_by_option():
    state = at_transfer({"R1": 3, "B1": 12}, turtles={RED: "R1"}, options=Options(turtle_ends_when_moved=False))
    events = play(state, RED, Transfer((("R1", 5),)))
    assert of(events, MarkerReturned) == []
    assert state.turtles[RED] == "R1" and state.set_aside[RED] == [Card.TURTLE]
    assert view(state, BLUE).people[0].turtle


def test_the_decision_describes_points_and_reachable_islands():
    state = at_transfer({"R5": 16, "R6": 1, "B1": 12}, flood=8)
    decision = view(state, RED).decision
    assert decision is not None and decision.kind == "transfer" and decision.points == 3
    assert decision.options == ()
    # 1 and 16 only by swapping; 4 is small and empty
    assert decision.movable == {"R5": (1, 2, 3, 13, 14, 15), "R6": (2, 3, 4, 14, 15, 16)}
    assert view(state, BLUE).decision is None


def every_step_set(state, player):
    """Every set of 1..3 steps of ``player``'s people to islands within reach of the points,
    legal or not: the brute force that ``legal_moves`` must agree with."""
    from itertools import combinations, product

    from atlas_zeus.ring import distance
    points = state.options.transfer_points
    near = {p: [i for i in state.ring if 0 < distance(state.ring, state.location[p], i) <= points]
            for p in state.alive(player)}
    for count in (1, 2, 3):
        for group in combinations(near, count):
            for islands in product(*(near[p] for p in group)):
                yield Transfer(tuple(zip(group, islands, strict=True)))


@pytest.mark.parametrize("options", [
    Options(),
    Options(transfer_may_pass=True, nets_block_passing=True, room_checked_per_step=True),
], ids=["defaults", "pass-nets-per-step"])
def test_the_legal_transfers_are_exactly_those_check_accepts(options):
    """On the Transfers met in seeded random games: the generator agrees with ``check``."""
    import random

    from atlas_zeus import new_game
    met = 0
    for seed in range(6):
        state, chooser = new_game(seed, options), random.Random(seed)
        while not state.is_over and met < 4 * (seed + 1):
            (player,) = state.pending()
            moves = state.legal_moves(player)
            if state.decision_kind(player) == "transfer":
                met += 1
                accepted = set()
                for move in (Transfer(()), *every_step_set(state, player)):
                    try:
                        state.check(player, move)
                    except IllegalMove:
                        continue
                    accepted.add(move)
                assert set(moves) == accepted and len(moves) == len(accepted)
            state.play(player, chooser.choice(moves))
    assert met >= 10


@pytest.mark.parametrize("passing", [False, True])
@pytest.mark.parametrize("nets_block", [False, True])
@pytest.mark.parametrize("per_step", [False, True])
def test_the_legal_transfers_agree_with_check_on_a_crowded_netted_ring(passing, nets_block, per_step):
    """Every combination of the Transfer options on one position with Nets, small islands held
    by both clans and a Pilehouse: the generator lists exactly the step sets ``check`` accepts."""
    options = Options(transfer_may_pass=passing, nets_block_passing=nets_block, room_checked_per_step=per_step)
    people = {"R1": 1, "R5": 16, "R6": 4, "R7": 5, "R2": 10, "B1": 2, "B5": 7, "B6": 13}
    state = at_transfer(people, flood=8, nets={BLUE: 3, RED: 11}, pilehouses={BLUE: 13}, options=options)
    accepted = set()
    for move in (Transfer(()), *every_step_set(state, RED)):
        try:
            state.check(RED, move)
        except IllegalMove:
            continue
        accepted.add(move)
    moves = state.legal_moves(RED)
    assert set(moves) == accepted and len(moves) == len(accepted)
    assert (Transfer(()) in accepted) is passing

