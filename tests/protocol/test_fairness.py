"""``aton-deal/1``'s derivations: the worked example of docs/protocol.md ("Fair decks"), and
properties — each is deterministic and changes with each of its inputs."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aton.cards import starting_deck
from aton.players import BLUE, RED
from protocol import fairness

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
GAME = 42
SECRET, RED_VALUE, BLUE_VALUE = bytes(range(32)), bytes(range(32, 64)), bytes(range(64, 96))


def section() -> str:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("### Fair decks")
    return text[start:text.index("\n## ", start)]


def test_the_worked_example_of_the_docs():
    doc = section()
    seed = fairness.derive_seed(SECRET, GAME, {"red": RED_VALUE, "blue": BLUE_VALUE})
    fill = fairness.server_fill(SECRET, GAME, "blue")
    numbers = {
        "server      = ": fairness.server_commitment(SECRET).hex(),
        "red digest  = ": fairness.contribution_commitment(GAME, "red", RED_VALUE).hex(),
        "blue digest = ": fairness.contribution_commitment(GAME, "blue", BLUE_VALUE).hex(),
        "seed        = ": str(seed),
    }
    for label, value in numbers.items():
        assert f"{label}{value}\n" in doc
    assert seed == 7302856296520557057
    assert starting_deck(seed, RED)[:4] == (3, 1, 1, 3) and starting_deck(seed, BLUE)[:4] == (1, 1, 4, 1)
    assert "begins 3, 1, 1, 3 (its opening hand), blue's 1, 1, 4, 1" in doc
    with_fill = fairness.derive_seed(SECRET, GAME, {"red": RED_VALUE, "blue": fill})
    assert f"`{fill.hex()}` and the seed\n{with_fill}." in doc


def test_the_docs_python_computes_the_same_numbers(capsys):
    doc = section()
    code = doc[doc.index("```python\n") + len("```python\n"):doc.index("```", doc.index("```python\n") + 3)]
    exec(compile(code, "docs/protocol.md", "exec"), {})  # our own docs' example
    printed = capsys.readouterr().out.split()
    assert printed == [fairness.server_commitment(SECRET).hex(),
                       fairness.contribution_commitment(GAME, "red", RED_VALUE).hex(),
                       str(fairness.derive_seed(SECRET, GAME, {"red": RED_VALUE, "blue": BLUE_VALUE})),
                       fairness.server_fill(SECRET, GAME, "blue").hex()]


def test_the_derivations_follow_the_documented_formulas():
    game = GAME.to_bytes(8, "big")
    assert fairness.server_commitment(SECRET) == hashlib.sha256(b"aton-deal/1 server\0" + SECRET).digest()
    mac = hmac.new(SECRET, b"aton-deal/1 seed\0" + game + RED_VALUE + BLUE_VALUE, hashlib.sha256).digest()
    assert fairness.derive_seed(SECRET, GAME, {"red": RED_VALUE, "blue": BLUE_VALUE}) == \
        int.from_bytes(mac[:8], "big") >> 1


values = st.binary(min_size=32, max_size=32)
games = st.integers(1, 2**53)


@given(values, values, values, games)
def test_the_seed_is_a_63_bit_function_of_its_inputs(secret, red, blue, game):
    seed = fairness.derive_seed(secret, game, {"red": red, "blue": blue})
    assert 0 <= seed < 2**63
    assert seed == fairness.derive_seed(secret, game, {"blue": blue, "red": red})


@given(values, values, values, games, st.sampled_from(["secret", "red", "blue", "game"]), values)
def test_the_seed_changes_with_each_input(secret, red, blue, game, which, other):
    inputs = {"secret": secret, "red": red, "blue": blue}
    changed = dict(inputs)
    if which == "game":
        changed_game = game % 2**53 + 1
    else:
        changed_game = game
        changed[which] = other if other != inputs[which] else bytes(b ^ 1 for b in other)

    def seed(i: dict[str, bytes], g: int) -> int:
        return fairness.derive_seed(i["secret"], g, {"red": i["red"], "blue": i["blue"]})

    assert seed(changed, changed_game) != seed(inputs, game)


@given(values, values, games)
def test_a_commitment_is_bound_to_its_game_and_seat(value, other, game):
    digest = fairness.contribution_commitment(game, "red", value)
    assert digest != fairness.contribution_commitment(game, "blue", value)
    assert digest != fairness.contribution_commitment(game % 2**53 + 1, "red", value)
    assert (digest == fairness.contribution_commitment(game, "red", other)) == (value == other)
    assert fairness.server_fill(value, game, "red") != fairness.server_fill(value, game, "blue")


def a_witness() -> fairness.DealWitness:
    witness = fairness.DealWitness(GAME, "red", fairness.server_commitment(SECRET), RED_VALUE,
                                   {"red": fairness.contribution_commitment(GAME, "red", RED_VALUE),
                                    "blue": fairness.contribution_commitment(GAME, "blue", BLUE_VALUE)}, True)
    witness.saw_opening({"red": {"hand": [4, 1, 3, 2]}})
    witness.saw({"type": "cards_drawn", "player": "red", "cards": [2, 2, 1, 4], "version": 9})
    witness.saw({"type": "card_revealed", "player": "blue", "cartouche": 3, "value": 4, "version": 12})
    return witness


def test_a_card_seen_first_stands_when_its_event_comes_again():
    """A log sent again (after a reconnect) cannot rewrite what the client saw."""
    witness = a_witness()
    witness.saw({"type": "cards_drawn", "player": "red", "cards": [1, 1, 1, 1], "version": 9})
    witness.saw_opening({"red": {"hand": [1, 1, 1, 1]}})
    assert witness.cards[9] == ("drawn", "red", (1, 2, 2, 4)) and witness.cards[0] == ("drawn", "red", (1, 2, 3, 4))


seats = st.sampled_from(fairness.SEAT_ORDER)
values = st.binary(min_size=fairness.VALUE_BYTES, max_size=fairness.VALUE_BYTES)
card_facts = st.one_of(
    st.tuples(st.just("drawn"), seats, st.lists(st.integers(1, 4), max_size=8).map(tuple)),
    st.tuples(st.just("revealed"), seats, st.integers(1, 4), st.integers(1, 4)))


@given(game=st.integers(1, 2**62), seat=seats, server=values, value=st.none() | values,
       commitments=st.dictionaries(seats, values),
       opened=st.booleans(), cards=st.dictionaries(st.integers(0, 10_000), card_facts, max_size=30))
def test_a_witness_written_as_json_reads_back_the_same(game, seat, server, value, commitments, opened, cards):
    witness = fairness.DealWitness(game, seat, server, value, commitments, opened, cards)
    assert fairness.DealWitness.from_dict(json.loads(json.dumps(witness.to_dict()))) == witness


@pytest.mark.parametrize("damage", [
    lambda d: d.pop("server"),
    lambda d: d.update(game="42"),
    lambda d: d.update(server="not hex"),
    lambda d: d.update(value=7),
    lambda d: d.update(commitments=[]),
    lambda d: d.update(cards=[[0, "drawn", "red"]]),
    lambda d: d.update(cards=[[0, "dealt", "red", [1]]]),
    lambda d: d.update(cards=[[0, "revealed", "blue", 3, "4"]]),
    lambda d: d.update(cards=[[0, "drawn", "red", [1, None]]]),
    lambda d: d.update(cards=None),
    lambda d: d.clear(),
])
def test_a_damaged_witness_is_refused(damage):
    data = json.loads(json.dumps(a_witness().to_dict()))
    damage(data)
    with pytest.raises(ValueError):
        fairness.DealWitness.from_dict(data)
