"""``Player``: the one name of a player in Python, its opponent, and its plain form."""

import pickle

import pytest

from aton import BLUE, PLAYERS, RED, Player
from aton.players import name_of


def test_the_other_player_is_the_opponent_and_back():
    assert RED.other is BLUE and BLUE.other is RED
    assert all(p.other.other is p and p.other is not p for p in PLAYERS)
    assert PLAYERS == (RED, BLUE) == tuple(Player)


def test_a_player_indexes_the_per_player_lists_red_first():
    scores = [7, 11]
    assert (scores[RED], scores[BLUE], scores[RED.other]) == (7, 11, 11)


def test_every_player_is_true_as_a_name_is():
    assert all(bool(p) for p in PLAYERS)
    seat: Player | None = RED
    assert (seat or BLUE) is RED  # red is a player, not "nothing" (as its index 0 would be)


@pytest.mark.parametrize("player, name", [(RED, "red"), (BLUE, "blue")])
def test_the_plain_form_is_the_lowercase_name(player, name):
    assert str(player) == f"{player}" == name_of(player) == name
    assert Player.parse(name) is Player.parse(name.upper()) is player
    assert Player.parse_optional(name) is player and Player.parse_optional(None) is None
    assert name_of(None) is None
    assert pickle.loads(pickle.dumps(player)) is player
    assert pickle.loads(pickle.dumps(player)).other is player.other


@pytest.mark.parametrize("bad", ["green", "", None, 0, 1, ["red"]])
def test_anything_else_is_refused_with_what_was_expected(bad):
    with pytest.raises(ValueError, match="expected 'red' or 'blue'"):
        Player.parse(bad)
    if bad is not None:
        with pytest.raises(ValueError):
            Player.parse_optional(bad)
