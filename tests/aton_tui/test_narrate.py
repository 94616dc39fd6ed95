"""Every event told in plain language, with the reason for what happened.

The events are written as the wire carries them and decoded as a client decodes them
(``protocol.game_frames``), so each test reads like the frame it stands for.
"""

import dataclasses

import pytest

from aton import events as E
from aton.events import EVENT_TYPES
from aton.outcome import Outcome, Termination
from aton.players import BLUE, RED
from aton_tui.narrate import narrate, result_sentence
from protocol.events import ARBITER_EVENTS
from protocol.game_frames import UnknownEvent, numbered

from .scripted import ScriptedGame

#: One example of each arbiter event, as the wire carries it (every type of protocol.events).
ARBITER_EXAMPLES: list[dict[str, object]] = [
    {"type": "committed", "player": "blue"},
    {"type": "open_requested"},
    {"type": "timeout", "player": "red", "action": "move", "strikes": 1},
    {"type": "disconnected", "player": "blue", "grace_s": 60},
    {"type": "reconnected", "player": "blue"},
    {"type": "chat", "player": "red", "name": "Ada", "text": "good luck"},
    {"type": "rematch_offered", "player": "blue"},
    {"type": "rematch_declined", "player": "red"},
    {"type": "rematch_started", "game": 13},
    {"type": "clock_resumed", "player": "red", "pause_left_s": 0},  # told only when the pauses are used up
    {"type": "rating_changed", "player": "blue", "before": 1500, "after": 1491, "provisional": True},
]
#: Arbiter events that are not told, and why.
SILENT = {"opened": "the client opens by itself: open_requested said so, the reveals show it",
          "clock_paused": "the player stopped their clock by opening the help or a dialog: nothing to tell",
          "chat_hidden": "a line of a player the receiver muted: the point is to see nothing of it"}


def lines(*events, seat=RED):
    """The narration of wire events, decoded first."""
    return list(narrate([numbered({"version": 1, **e}).event for e in events], seat))


def test_both_reveals_of_a_cartouche_make_one_line_and_a_tie_says_nobody_scores():
    story = lines({"type": "card_revealed", "player": "red", "cartouche": 1, "value": 3},
                  {"type": "card_revealed", "player": "blue", "cartouche": 1, "value": 3},
                  {"type": "card_revealed", "player": "red", "cartouche": 2, "value": 1},
                  {"type": "card_revealed", "player": "blue", "cartouche": 2, "value": 4})
    assert story == ["Cartouche 1 (points): Red 3, Blue 3 — equal, nobody scores.",
                     "Cartouche 2 (order and removal): Red 1, Blue 4."]


@pytest.mark.parametrize("reason, words", [
    ("cartouche2", "Red plays first: lower cartouche 2 (Red 1, Blue 3)."),
    ("cartouche1", "Red plays first: cartouche 2 is a tie, lower cartouche 1 (Red 1, Blue 3)."),
    ("war", "Red plays first: lower war card (Red 1, Blue 3)."),
])
def test_the_turn_order_says_why(reason, words):
    event = {"type": "turn_order_decided", "first": "red", "reason": reason, "red": 1, "blue": 3}
    assert lines(event, seat=BLUE) == [words]
    assert lines(event, seat=None) == [words]
    assert lines(event, seat=RED) == [words.replace("Red plays", "You play")]


@pytest.mark.parametrize("event, theirs, yours", [
    ({"type": "turn_started", "player": "red", "range": 2, "removal": 2, "placement": 3},
     "Red's turn: range temples 1–2 (cartouche 3), removes 2 of Blue's stones, places 3 stones (cartouche 4).",
     "Your turn: range temples 1–2 (cartouche 3), remove 2 of Blue's stones, place 3 stones (cartouche 4)."),
    ({"type": "stone_removed", "player": "red", "owner": "blue", "temple": 2, "square": 0},
     "Red removes Blue's stone from temple 2, yellow square → Kingdom of the Dead.",
     "You remove Blue's stone from temple 2, yellow square → Kingdom of the Dead."),
    ({"type": "stone_removed", "player": "red", "owner": "red", "temple": 2, "square": 0},
     "Red removes their own stone from temple 2, yellow square → Kingdom of the Dead.",
     "You remove your own stone from temple 2, yellow square → Kingdom of the Dead."),
    ({"type": "stone_placed", "player": "red", "temple": 1, "square": 0},
     "Red places a stone on temple 1, yellow square.", "You place a stone on temple 1, yellow square."),
    ({"type": "points_scored", "player": "red", "points": 4, "higher": 3, "lower": 1, "total": 9},
     "Red scores 4: cartouche 1 shows 3 against 1 (2 × the difference), now 9.",
     "You score 4: cartouche 1 shows 3 against 1 (2 × the difference), now 9."),
    ({"type": "committed", "player": "red"},
     "Red has committed (the cards stay hidden).", "You have committed (the cards stay hidden)."),
    ({"type": "exchanged", "player": "red"},
     "Red spends the exchange token: 4 new cards.", "You spend the exchange token: 4 new cards."),
    ({"type": "stones_to_kingdom", "player": "red", "count": 2},
     "No empty square in range: Red's 2 stones go to the Kingdom of the Dead.",
     "No empty square in range: your 2 stones go to the Kingdom of the Dead."),
    ({"type": "placement_lapsed", "player": "red", "count": 1},
     "Red's supply is empty: 1 stone cannot be placed.", "Your supply is empty: 1 stone cannot be placed."),
    ({"type": "resigned", "player": "red"}, "Red resigns.", "You resign."),
    ({"type": "rematch_offered", "player": "red"}, "Red offers a rematch.", "You offer a rematch."),
], ids=lambda v: v["type"] if isinstance(v, dict) else "")
def test_the_receivers_own_moves_are_told_to_them_as_you(event, theirs, yours):
    assert lines(event, seat=None) == [theirs]
    assert lines(event, seat=RED) == [yours]


def test_a_removal_of_the_receivers_stone_says_yours():
    assert lines({"type": "stone_removed", "player": "blue", "owner": "red", "temple": 3, "square": 1}) == [
        "Blue removes your stone from temple 3, yellow square → Kingdom of the Dead."]
    assert lines({"type": "turn_started", "player": "blue", "range": 4, "removal": 1, "placement": 2}) == [
        "Blue's turn: range temples 1–4 (cartouche 3), removes 1 of your stones, places 2 stones (cartouche 4)."]


def test_points_and_a_turn_say_where_they_come_from():
    assert lines({"type": "points_scored", "player": "blue", "points": 4, "higher": 3, "lower": 1, "total": 9}) == [
        "Blue scores 4: cartouche 1 shows 3 against 1 (2 × the difference), now 9."]
    turn = lines({"type": "turn_started", "player": "red", "range": 3, "removal": -1, "placement": 2}, seat=BLUE)[0]
    assert "temples 1–3" in turn and "one of their own" in turn and "places 2 stones" in turn


def test_a_player_sees_their_own_cards_drawn_but_not_the_opponents():
    assert lines({"type": "cards_drawn", "player": "red", "cards": [4, 1, 2, 2]}) == ["You draw 1 2 2 4."]
    assert lines({"type": "cards_drawn", "player": "blue", "cards": None}) == ["Blue draws 4 cards."]


def sample(cls) -> dict:
    """An event of type ``cls`` with plausible values in every field."""
    values = {"player": RED, "owner": BLUE, "first": RED, "winner": BLUE, "cards": (1, 2, 3, 4),
              "reason": "cartouche2", "title": "temple 1", "to_supply": True, "red": 2, "blue": 3}
    if cls is E.GameOver:
        values["reason"] = Termination.TEMPLE
    if cls is E.WarCardsReturned:
        values.update(red=(2,), blue=(3,))
    fields = {f.name: values.get(f.name, 1) for f in dataclasses.fields(cls)}
    return cls(**fields).to_dict()


def test_the_examples_cover_every_arbiter_event():
    assert {e["type"] for e in ARBITER_EXAMPLES} | set(SILENT) == set(ARBITER_EVENTS)


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_every_engine_event_is_told(kind):
    assert lines(sample(EVENT_TYPES[kind]), seat=RED)


@pytest.mark.parametrize("event", ARBITER_EXAMPLES, ids=lambda e: e["type"])
def test_every_arbiter_event_is_told(event):
    assert lines(event)


def test_a_rating_change_is_told_with_its_sign():
    assert lines({"type": "rating_changed", "player": "red", "before": 1500, "after": 1662, "provisional": True},
                 {"type": "rating_changed", "player": "blue", "before": 1700, "after": 1691, "provisional": False}) == \
        ["Your rating: 1500 → 1662? (+162).", "Blue's rating: 1700 → 1691 (−9)."]
    assert lines({"type": "rating_changed", "player": "red", "before": 1500, "after": 1500, "provisional": True},
                 seat=None) == ["Red's rating: 1500 → 1500? (±0)."]


def test_an_event_of_a_newer_server_is_kept_but_not_told():
    event = numbered({"type": "comet_seen", "version": 4, "brightness": 3}).event
    assert event == UnknownEvent("comet_seen", {"type": "comet_seen", "version": 4, "brightness": 3})
    assert list(narrate([event], RED)) == []


def test_a_whole_game_is_told_line_by_line():
    script = ScriptedGame(seed=9)
    script.play_until(lambda s: False, limit=2000)
    events = [{**e} for update in script.updates for e in update.events]
    story = lines(*events)
    assert story[-1] == "Game over. Red wins: filled a whole temple. Final score: Red 39, Blue 34."
    assert sum(line.startswith("── Round") for line in story) == 8  # rounds 2-9 (round 1 began before)


def test_the_time_out_that_loses_the_game_says_so():
    forfeit = {"type": "timeout", "player": "red", "action": "open", "strikes": 1, "forfeit": True}
    assert lines(forfeit, seat=BLUE) == [
        "Red's time ran out while opening the commitment (strike 1): Red loses on time."]
    assert lines(forfeit, seat=RED) == [
        "Your time ran out while opening the commitment (strike 1): you lose on time."]
    assert lines({"type": "timeout", "player": "blue", "action": "move", "strikes": 2, "forfeit": False}) == [
        "Blue's time ran out while moving: a default move was played (strike 2)."]


def test_an_opening_is_not_told_again():
    """The client opens by itself; open_requested already said the cartouches are opened."""
    assert lines({"type": "opened", "player": "blue"}) == []


def test_results_name_the_winner_and_the_reason():
    assert result_sentence(Outcome(Termination.TEMPLE, BLUE)) == "Blue wins: filled a whole temple."
    assert result_sentence(Outcome(Termination.SCORING, None)) == "A draw: equal points."
    assert result_sentence(Outcome(Termination.ROUND_LIMIT, None)) == "A draw at the round limit."
    assert result_sentence(Outcome(Termination.TIME, RED)) == "Red wins: Blue ran out of time."
    assert result_sentence(Outcome(Termination.RESIGN, BLUE)) == "Blue wins: Red resigned."
    assert result_sentence(Outcome(Termination.ABANDONED, RED)) == "Red wins: Blue left the game."


@pytest.mark.parametrize("termination", list(Termination), ids=str)
def test_every_way_to_win_has_its_own_sentence(termination):
    sentence = result_sentence(Outcome(termination, RED))
    assert sentence.startswith("Red wins: ")
    others = {result_sentence(Outcome(t, RED)) for t in Termination if t is not termination}
    assert sentence not in others
