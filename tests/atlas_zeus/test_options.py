"""Options: every [choice] of the rules page is a named option with the page's default, and a
non-default value changes the game (others: flee_chooser, eruption_advances_flood and
end_check_at_any_point in test_volcano, the Transfer options and turtle_ends_when_moved in
test_transfer, reshuffle_keeps_rest_first in test_draw, max_rounds in test_end_of_game)."""

import pytest

from atlas_zeus import BLUE, DECK, RED, Card, Fog, Transfer, new_game
from atlas_zeus.events import PersonDied
from atlas_zeus.options import DEFAULT_OPTIONS, Options
from atlas_zeus.ring import ISLANDS, Island, Kind

from .helpers import of, position, resolve


def test_defaults_are_the_rules_page():
    o = DEFAULT_OPTIONS
    assert o.islands == ISLANDS and o.deck == DECK
    assert (o.hand_size, o.draw_per_round, o.transfer_points, o.weakened_strength) == (6, 3, 3, 10)
    assert o.fog_own_cards is False
    assert o.flee_chooser == "owner"
    assert o.no_target_returns_to_hand is False
    assert o.reshuffle_keeps_rest_first is True
    assert o.eruption_advances_flood is True
    assert (o.transfer_may_pass, o.nets_block_passing, o.room_checked_per_step) == (False, False, False)
    assert o.turtle_ends_when_moved is True
    assert o.end_check_at_any_point is False
    assert o.max_rounds == 16


def test_plain_form_round_trips():
    plain = DEFAULT_OPTIONS.to_dict()
    assert plain["deck"]["transfer"] == 6 and plain["islands"][0] == [1, "ordinary", False]
    assert Options.from_dict(plain) == DEFAULT_OPTIONS
    other = Options(fog_own_cards=True, max_rounds=20, deck=(*DECK, Card.CRAB))
    assert Options.from_dict(other.to_dict()) == other
    assert Options.from_dict({}) == DEFAULT_OPTIONS


def test_options_written_before_a_field_existed_take_its_default():
    """A record's options from before the Transfer, turtle and end-check options: the missing
    keys are the defaults."""
    old = {key: value for key, value in Options(flee_chooser="strongest").to_dict().items()
           if key not in ("transfer_may_pass", "nets_block_passing", "room_checked_per_step",
                          "turtle_ends_when_moved", "end_check_at_any_point")}
    assert Options.from_dict(old) == Options(flee_chooser="strongest")


@pytest.mark.parametrize(("data", "message"), [
    ({"max_rounds": 0}, "max_rounds must be at least 1"),
    ({"max_rounds": "16"}, "max_rounds must be int"),
    ({"flee_chooser": "dice"}, "flee_chooser must be one of"),
    ({"colour": "red"}, "unknown option"),
    ({"deck": {"joker": 1}}, "unknown card"),
    ({"islands": [[1, "ordinary", False]]}, "islands must number 1..16"),
])
def test_bad_options_are_named(data, message):
    with pytest.raises(ValueError, match=message):
        Options.from_dict(data)


def test_fog_own_cards():
    track = {1: (RED, Card.FOG), 2: (RED, Card.CRAB), 3: (BLUE, Card.CRAB)}
    state = position({"R1": 2, "B1": 3}, flood=16, track=track)
    resolve(state)
    assert state.legal_moves(RED) == [Fog(3)]
    state = position({"R1": 2, "B1": 3}, flood=16, track=track, options=Options(fog_own_cards=True))
    resolve(state)
    assert state.legal_moves(RED) == [Fog(2), Fog(3)]


def test_weakened_strength():
    """R5 (20) against a weakened B2 (30): killed at 10, not at 25."""
    track = {1: (RED, Card.WEAKNESS), 2: (RED, Card.CRAB)}
    state = position({"R5": 2, "B2": 2, "B1": 3}, flood=16, track=track)
    assert [e.person for e in of(resolve(state), PersonDied)] == ["B2"]
    state = position({"R5": 2, "B2": 2, "B1": 3}, flood=16, track=track, options=Options(weakened_strength=25))
    assert of(resolve(state), PersonDied) == []


def test_a_card_without_target_back_to_the_hand():
    track = {1: (RED, Card.HARPOON)}
    state = position({"R1": 2, "B1": 9}, flood=16, track=track, options=Options(no_target_returns_to_hand=True))
    resolve(state)
    assert Card.HARPOON in state.hands[RED] and Card.HARPOON not in state.discards[RED]


def test_transfer_points():
    state = position({"R1": 2, "B1": 9}, flood=16, track={1: (RED, Card.TRANSFER)},
                     options=Options(transfer_points=1))
    resolve(state)
    assert state.legal_moves(RED) == [Transfer((("R1", 1),)), Transfer((("R1", 3),))]


def test_hand_size_and_island_table():
    islands = tuple(Island(i.number, Kind.HOLY if i.number == 1 else i.kind, i.large) for i in ISLANDS)
    state = new_game(1, Options(hand_size=8, islands=islands))
    assert len(state.hands[RED]) == 8 and state.options.island(1).kind is Kind.HOLY
