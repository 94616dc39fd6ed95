"""Player names: what ``player_name`` accepts is what it looks like, and nothing else passes."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from protocol.errors import ProtocolError
from protocol.messages import lobby_order
from protocol.names import NAME_CHARS, NAME_COLUMNS, columns, name_order, player_name, skeleton, with_suffix

RESERVED = ("Bot (easy)", "Bot (hard)", "aton-server", "server")


def refusal(proposed: str, reserved=RESERVED) -> str:
    with pytest.raises(ProtocolError) as info:
        player_name(proposed, reserved)
    assert (info.value.code.value, info.value.field) == ("invalid", "name")
    return info.value.message


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=NAME_CHARS + 8))
def test_an_accepted_name_is_normalised_visible_and_bounded(proposed):
    try:
        name = player_name(proposed, RESERVED)
    except ProtocolError as refused:
        assert refused.field == "name" and refused.message.startswith("name: ")
        return
    assert player_name(name, RESERVED) == name  # a normalised name passes unchanged
    assert unicodedata.is_normalized("NFKC", name)
    assert name == name.strip() and "  " not in name
    assert 1 <= len(name) <= NAME_CHARS
    assert cell_len(name) <= columns(name) <= NAME_COLUMNS  # never wider than the client draws it
    assert any(unicodedata.category(c)[0] in "LNPS" for c in name)
    assert not any(unicodedata.category(c) in ("Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp") for c in name)
    assert player_name(with_suffix(name, "-12"), ()) == with_suffix(name, "-12")  # alice-12 is a name too


@given(st.sampled_from(RESERVED), st.sampled_from(["", "1", " 2", "-3", "!"]),
       st.sampled_from([str.upper, str.lower, str.title, lambda s: s.replace(" ", "")]),
       st.sampled_from([lambda s: s, lambda s: s.replace("o", "0"), lambda s: s.replace("o", "\u043e"),
                        lambda s: s.replace("e", "\u0435"), lambda s: "\uff08".join(s.split("("))]))
def test_no_spelling_of_a_reserved_name_gets_through(reserved, suffix, case, lookalike):
    refusal(lookalike(case(reserved)) + suffix)


@pytest.mark.parametrize("proposed, problem", [
    ("\u200d" * 24, "U+200D (ZERO WIDTH JOINER) is an invisible formatting character"),
    (" ", "a name needs at least one visible character"),
    ("\u3164", "U+3164 (HANGUL FILLER) shows nothing"),
    ("\u115f\u1160ann", "U+115F (HANGUL CHOSEONG FILLER) shows nothing"),
    ("\uffa0", "U+FFA0 (HALFWIDTH HANGUL FILLER) shows nothing"),
    ("a\u2800b", "U+2800 (BRAILLE PATTERN BLANK) shows nothing"),
    ("ann\u202egro", "U+202E (RIGHT-TO-LEFT OVERRIDE) is an invisible formatting character"),
    ("z" + "\u0301" * 4, "more than 3 combining marks on one character"),
    ("Bot (hard)", 'it looks like "Bot (hard)", a name this server keeps for itself'),
    ("B0T  (HARD) 2", 'it looks like "Bot (hard)"'),
    ("BOT(EASY)", 'it looks like "Bot (easy)"'),
    ("aton server", 'it looks like "aton-server"'),
    ("\u6f22" * 24, "48 columns wide (a wide character counts as two); at most 24"),
    ("p\u0430ypal", "it mixes Latin and Cyrillic letters, which look alike"),
    ("\u03a9mega", "it mixes Greek and Latin letters"),
    ("\ufdfa\ufdfa", "36 characters once normalised; at most 24"),  # each ligature is 18 in NFKC
])
def test_names_that_hide_or_imitate_are_refused_saying_why(proposed, problem):
    assert problem in refusal(proposed)


@pytest.mark.parametrize("proposed, name", [
    ("alice ", "alice"),
    ("alice\u00a0", "alice"),
    ("  ann   lee ", "ann lee"),
    ("\uff21\uff4c\uff49\uff43\uff45", "Alice"),  # fullwidth letters
    ("\u2764\ufe0f", "\u2764"),  # the emoji presentation selector is dropped
    ("\u6f22" * 12, "\u6f22" * 12),  # 24 columns
    ("\u041e\u043b\u044c\u0433\u0430", "\u041e\u043b\u044c\u0433\u0430"),  # all Cyrillic
    ("\u03a9\u03bc\u03ad\u03b3\u03b1", "\u03a9\u03bc\u03ad\u03b3\u03b1"),  # all Greek
    ("Taro \u592a\u90ce", "Taro \u592a\u90ce"),  # Latin beside Han: nothing alike
    ("Bottle", "Bottle"),
    ("bot-1", "bot-1"),
    ("Serverus", "Serverus"),
])
def test_ordinary_names_pass_normalised(proposed, name):
    assert player_name(proposed, RESERVED) == name


def test_lookalikes_share_a_skeleton():
    assert skeleton("alice") == skeleton("aIice") == skeleton("\u0430lice") == skeleton("Alice")
    assert skeleton("bob") != skeleton("rob")


def test_a_suffix_shortens_a_name_to_keep_it_within_bounds():
    assert with_suffix("sam", "-2") == "sam-2"
    assert with_suffix("x" * 24, "-2") == "x" * 22 + "-2"
    assert with_suffix("\u6f22" * 12, "-2") == "\u6f22" * 11 + "-2"
    assert with_suffix("a" * 20 + " bc", "-10") == "a" * 20 + "-10"


def test_names_are_listed_as_a_reader_orders_them():
    """The lobby's players (``lobby_order``): case aside, numbers by value."""
    names = ["look10", "Look2", "look2", "abc", "a1b", "a10", "a9b", "a", "007", "7", "b", "A"]
    listed = sorted(names, key=lambda name: lobby_order("players", name))
    assert listed == ["007", "7", "A", "a", "a1b", "a9b", "a10", "abc", "b", "Look2", "look2", "look10"]


@given(st.lists(st.text(min_size=1, max_size=12), max_size=30))
def test_any_names_have_one_order(names):
    """Text and numbers never meet in a comparison, and the order is total: the same list
    whatever order the names came in."""
    listed = sorted(names, key=name_order)
    assert sorted(reversed(names), key=name_order) == listed
