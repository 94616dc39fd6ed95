"""Views and events: every field of the contract, plain forms that round-trip, hidden cards."""

import json

import pytest

from atlas_zeus import BLUE, PLAYERS, RED, Card, Fog, Harpoon, Program, new_game, view
from atlas_zeus.events import (
    EVENT_TYPES,
    CardsDrawn,
    CardTurned,
    CardWithoutEffect,
    FloodMoved,
    GameOver,
    InitiativePassed,
    IslandErupted,
    IslandSank,
    MarkerPlaced,
    MarkerReturned,
    OpenHandPlayed,
    PersonDied,
    PersonMoved,
    PileReshuffled,
    Programmed,
    RoundStarted,
    Weakened,
    event_from_dict,
)
from atlas_zeus.outcome import Termination
from atlas_zeus.views import View

from .helpers import play, position, resolve

VIEW_KEYS = {"round", "phase", "initiative", "pending", "viewer", "ring", "flood", "people", "track", "resolving",
             "players", "decision", "outcome"}


def test_view_fields_of_the_contract():
    plain = view(new_game(2), RED).to_dict()
    assert set(plain) == VIEW_KEYS
    assert set(plain["ring"][0]) == {"number", "kind", "large", "people", "net", "pilehouse"}
    assert len(plain["people"]) == 16
    assert set(plain["people"][0]) == {"person", "clan", "strength", "island", "turtle"}
    assert [s["slot"] for s in plain["track"]] == [1, 2, 3, 4, 5, 6]
    assert set(plain["track"][0]) == {"slot", "owner", "card", "face_up", "resolved", "fogged"}
    assert set(plain["players"]) == {"red", "blue"}
    assert set(plain["players"]["red"]) == {"hand", "hand_size", "deck", "discard", "set_aside", "open_hand",
                                            "weakened"}
    json.dumps(plain)


def test_the_programming_decision():
    state = new_game(2)
    player = state.initiative
    decision = view(state, player).to_dict()["decision"]
    assert decision["kind"] == "program" and decision["card"] is None and decision["options"] == []
    assert len(decision["slots"]) == 8 and len(decision["hand"]) == 6
    assert view(state, player.other).decision is None and view(state, None).decision is None


def test_a_card_decision_lists_its_options_as_move_dicts():
    state = position({"R5": 2, "B1": 3, "B2": 1}, ring=list(range(1, 9)), flood=7, track={1: (RED, Card.HARPOON)})
    resolve(state)
    decision = view(state, RED).to_dict()["decision"]
    assert decision["kind"] == "harpoon" and decision["card"] == "harpoon"
    assert decision["options"] == [{"kind": "harpoon", "person": "B1"}, {"kind": "harpoon", "person": "B2"}]
    assert decision["sentence"].startswith("Harpoon:")
    assert View.from_dict(view(state, RED).to_dict()).decision.options == (Harpoon("B1"), Harpoon("B2"))  # type: ignore[union-attr]


def test_hands_are_only_the_owners():
    state = new_game(3)
    for viewer in (None, *PLAYERS):
        plain = view(state, viewer).to_dict()
        for p in PLAYERS:
            shown = plain["players"][str(p)]["hand"]
            assert (shown is not None) == (viewer is p)
            assert plain["players"][str(p)]["hand_size"] == 6


def test_deck_order_and_seed_never_appear():
    state = new_game(3)
    text = json.dumps(view(state, RED).to_dict())
    assert "seed" not in text
    assert view(state, RED).to_dict()["players"]["red"]["deck"] == 19


def test_face_down_cards_only_for_their_owner_and_fogged_cards_public():
    state = position({"R1": 2, "B1": 3}, flood=16,
                     track={1: (RED, Card.FOG), 2: (BLUE, Card.CRAB), 3: (BLUE, Card.HARPOON), 4: (RED, Card.FISH)})
    resolve(state)
    for viewer in (None, BLUE):
        track = view(state, viewer).to_dict()["track"]
        assert track[3]["card"] is None and track[3]["owner"] == "red"
    assert view(state, RED).to_dict()["track"][3]["card"] == "fish"
    assert view(state, None).to_dict()["track"][0]["card"] == "fog", "turned"
    play(state, RED, Fog(2))
    slot = view(state, None).to_dict()["track"][1]
    assert slot == {"slot": 2, "owner": "blue", "card": "crab", "face_up": True, "resolved": False, "fogged": True}
    assert view(state, None).to_dict()["resolving"] == 3


def test_people_and_markers_in_the_view():
    state = position({"R1": 2, "R5": 2, "B1": 3}, flood=16, nets={BLUE: 2}, pilehouses={RED: 4}, turtles={RED: "R5"})
    plain = view(state, None).to_dict()
    two = next(i for i in plain["ring"] if i["number"] == 2)
    assert two == {"number": 2, "kind": "ordinary", "large": True, "people": ["R1", "R5"], "net": "blue",
                   "pilehouse": None}
    assert next(i for i in plain["ring"] if i["number"] == 4)["pilehouse"] == "red"
    r5 = next(p for p in plain["people"] if p["person"] == "R5")
    assert r5 == {"person": "R5", "clan": "red", "strength": 20, "island": 2, "turtle": True}
    assert next(p for p in plain["people"] if p["person"] == "B2")["island"] is None
    assert plain["players"]["red"]["set_aside"] == ["pilehouse", "turtle"]


def test_view_round_trip_over_a_game():
    state = new_game(9)
    while not state.is_over:
        for viewer in (None, *PLAYERS):
            plain = view(state, viewer).to_dict()
            assert View.from_dict(json.loads(json.dumps(plain))).to_dict() == plain
        (player,) = state.pending()
        state.play(player, state.legal_moves(player)[-1])
    assert view(state, None).to_dict()["outcome"] is not None


EXAMPLES = [
    RoundStarted(2, BLUE), Programmed(RED, (1, 3, 5), (Card.CRAB, Card.FOG, Card.NET), False),
    CardTurned(3, RED, Card.FOG), CardWithoutEffect(4, BLUE, Card.CRAB, "fogged"),
    PersonMoved("R1", 3, 5, "transfer"), PersonDied("B2", 6, "sinking"), IslandSank(6), IslandErupted(9, BLUE),
    FloodMoved(6, 7, "sinking"), MarkerPlaced(RED, "turtle", 4, "R5"), MarkerReturned(BLUE, "net", 3, None, "sank"),
    OpenHandPlayed(BLUE, 1), Weakened(RED), CardsDrawn(RED, 3, (Card.CRAB, Card.CRAB, Card.FOG)),
    PileReshuffled(BLUE, 12, "draw"), InitiativePassed(BLUE), GameOver(None, Termination.BOTH_ELIMINATED),
]


def test_every_event_type_has_an_example():
    assert {type(e) for e in EXAMPLES} == set(EVENT_TYPES.values())


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda e: e.kind)
def test_events_round_trip(event):
    plain = event.to_dict()
    assert plain["type"] == event.kind
    assert event_from_dict(json.loads(json.dumps(plain))) == event
    for viewer in (None, *PLAYERS):
        assert event_from_dict(event.for_viewer(viewer).to_dict()) == event.for_viewer(viewer)


def test_hidden_event_fields():
    drawn = CardsDrawn(RED, 3, (Card.CRAB, Card.CRAB, Card.FOG))
    assert drawn.for_viewer(BLUE).to_dict()["cards"] is None and drawn.for_viewer(RED).to_dict()["cards"] == [
        "crab", "crab", "fog"]
    programmed = Programmed(RED, (1, 3, 5), (Card.CRAB, Card.FOG, Card.NET), False)
    assert programmed.for_viewer(None).to_dict() == {"type": "programmed", "player": "red", "slots": [1, 3, 5],
                                                     "cards": None, "face_up": False}


def test_malformed_events_are_named():
    with pytest.raises(ValueError, match="unknown event type"):
        event_from_dict({"type": "nothing"})
    with pytest.raises(ValueError, match="person_moved: missing field 'by'"):
        event_from_dict({"type": "person_moved", "person": "R1", "from_island": 2, "to_island": 3})
    with pytest.raises(ValueError, match=r"card_turned\.card"):
        event_from_dict({"type": "card_turned", "slot": 1, "player": "red", "card": "joker"})


def test_events_of_a_programming_hide_cards_from_the_opponent():
    state = new_game(5)
    player = state.initiative
    hand = state.hands[player]
    events = play(state, player, Program(((1, hand[0]), (3, hand[1]), (5, hand[2]))))
    plain = [e.for_viewer(player.other).to_dict() for e in events]
    assert plain == [{"type": "programmed", "player": str(player), "slots": [1, 3, 5], "cards": None,
                      "face_up": False}]
