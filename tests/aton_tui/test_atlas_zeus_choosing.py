"""A decision of Atlas & Zeus being made (``aton_tui.atlas_zeus.choosing``): pure logic."""

from __future__ import annotations

from itertools import product

from aton_tui.atlas_zeus.choosing import CardChoice, ProgramDraft

RING = (3, 11, 7, 1, 15, 9)  # clockwise
WHERE = {"R1": 3, "R2": 7, "B1": 11, "B2": 1, "R3": 9}

INITIATIVE = tuple(product((1, 2), (3, 4), (5, 6)))


def test_the_initiative_player_puts_one_card_in_each_pair_and_a_second_card_replaces_the_first():
    draft = ProgramDraft(["crab", "transfer", "fog", "net"], INITIATIVE)
    assert draft.put(2) is None  # crab on 2
    assert draft.lit == 1  # the next free card is lit
    assert draft.put(1) is None  # transfer on 1: crab goes back to the hand
    assert draft.on_track == {1: "transfer"}
    assert draft.used(0) is None
    draft.lit = 0
    draft.put(3)
    draft.lit = 2
    draft.put(6)
    assert draft.complete
    assert draft.move() == {"kind": "program", "cards": [[1, "transfer"], [3, "crab"], [6, "fog"]]}


def test_the_other_player_may_fill_only_the_free_slots():
    draft = ProgramDraft(["crab", "transfer", "fog"], ((2, 3, 6),))
    assert draft.put(1) == "Slot 1 is not yours to fill this round (yours: 2, 3, 6)."
    assert not draft.placed


def test_a_lit_card_already_on_the_track_moves_and_backspace_takes_it_back():
    draft = ProgramDraft(["crab", "transfer"], INITIATIVE)
    draft.put(1)
    draft.lit = 0
    draft.put(4)
    assert draft.on_track == {4: "crab"}
    draft.take_back()
    assert draft.on_track == {} and draft.lit == 0


def test_a_suggestion_is_laid_on_the_track_with_copies_of_a_card_each_on_their_own_slot():
    draft = ProgramDraft(["transfer", "crab", "transfer"], INITIATIVE)
    draft.lay([(1, "transfer"), (4, "transfer"), (5, "crab")])
    assert draft.on_track == {1: "transfer", 4: "transfer", 5: "crab"}
    assert draft.complete


def choice(kind: str, options: list[dict], **more) -> CardChoice:
    return CardChoice(kind=kind, options=tuple(options), ring=RING, where=dict(WHERE), **more)


def test_people_and_islands_are_offered_in_the_rings_clockwise_order():
    harpoon = choice("harpoon", [{"kind": "harpoon", "person": "B2"}, {"kind": "harpoon", "person": "B1"}])
    assert harpoon.targets() == [("person", "B1"), ("person", "B2")]
    assert harpoon.pick(("person", "B2")) == {"kind": "harpoon", "person": "B2"}
    flood = choice("flood", [{"kind": "flood", "island": i} for i in (9, 3, 1)])
    assert flood.targets() == [("island", 3), ("island", 1), ("island", 9)]
    assert flood.pick(("island", 4)) is None  # not offered: nothing happens


def test_tidal_surge_is_chosen_by_the_island_the_flood_marker_would_reach():
    surge = choice("surge", [{"kind": "surge", "direction": "cw"}, {"kind": "surge", "direction": "ccw"}], flood=3)
    assert surge.targets() == [("island", 11), ("island", 9)]
    assert surge.pick(("island", 9)) == {"kind": "surge", "direction": "ccw"}


def test_fog_is_chosen_on_the_track():
    fog = choice("fog", [{"kind": "fog", "slot": 6}, {"kind": "fog", "slot": 4}])
    assert fog.targets() == [("slot", 4), ("slot", 6)]
    assert fog.pick(("slot", 6)) == {"kind": "fog", "slot": 6}


def test_flying_fish_takes_a_person_then_an_island_and_backspace_goes_back():
    fish = choice("fish", [{"kind": "fish", "person": "R1", "island": 15},
                           {"kind": "fish", "person": "R2", "island": 15},
                           {"kind": "fish", "person": "R2", "island": 1}])
    assert fish.targets() == [("person", "R1"), ("person", "R2")]
    assert fish.pick(("person", "R2")) is None
    assert fish.targets() == [("island", 1), ("island", 15)]
    assert fish.back() and fish.person is None
    fish.pick(("person", "R1"))
    assert fish.pick(("island", 15)) == {"kind": "fish", "person": "R1", "island": 15}


def test_a_transfer_is_chosen_step_by_step_within_its_points():
    transfer = choice("transfer", [], movable={"R1": (11, 7, 1, 9), "R2": (1, 15, 11)}, points=3)
    assert transfer.targets() == [("person", "R1"), ("person", "R2")]
    transfer.pick(("person", "R1"))
    assert transfer.targets() == [("island", 11), ("island", 7), ("island", 1), ("island", 9)]
    assert transfer.pick(("island", 7)) is None  # 2 points: one left
    assert transfer.left == 1
    assert transfer.targets() == [("person", "R2")]
    transfer.pick(("person", "R2"))
    assert transfer.targets() == [("island", 11), ("island", 1)]  # 15 is two away
    assert transfer.pick(("island", 1)) == {"kind": "transfer", "steps": [["R1", 7], ["R2", 1]]}


def test_a_transfer_may_end_early_but_not_before_its_first_step():
    transfer = choice("transfer", [], movable={"R3": (15, 1)}, points=3)
    assert transfer.transfer() is None
    transfer.pick(("person", "R3"))
    transfer.pick(("island", 15))
    assert transfer.transfer() == {"kind": "transfer", "steps": [["R3", 15]]}
    assert transfer.back() and transfer.steps == []
