"""The log of Atlas & Zeus: each event in a player's words, the receiver as "you"."""

from __future__ import annotations

from atlas_zeus import events as Z
from atlas_zeus.cards import Card
from atlas_zeus.game import new_game
from atlas_zeus.outcome import Outcome, Termination
from atlas_zeus.players import BLUE, RED
from aton.players import BLUE as ATON_BLUE
from aton_tui.atlas_zeus.words import narrate, result_sentence
from protocol.events import ChatSaid, Committed


def told(*events, seat=RED) -> list[str]:
    return list(narrate(events, seat))


def test_a_resolution_reads_as_a_story_told_to_its_receiver():
    assert told(Z.RoundStarted(3, BLUE), Z.CardTurned(2, BLUE, Card.HARPOON),
                Z.PersonDied("R3", 7, "harpoon"), Z.PersonMoved("B6", 4, 9, "transfer"),
                Z.CardWithoutEffect(5, RED, Card.CRAB, "fogged"), Z.IslandSank(9),
                Z.PersonDied("B6", 9, "sinking"), Z.FloodMoved(9, 13, "sinking")) == [
        "── Round 3: Blue has the initiative ──",
        "Slot 2: Blue's Harpoon.",
        "Your lord R3 dies on island 7 to a Harpoon.",
        "Blue's soldier B6 moves (Transfer) from island 4 to island 9.",
        "Your Crab on slot 5 is discarded: it is fogged.",
        "Island 9 sinks.",
        "Blue's soldier B6 dies on island 9 as the island sinks.",
        "The flood marker moves from island 9 to island 13.",
    ]


def test_hidden_cards_stay_hidden_and_ones_own_are_named():
    programmed = Z.Programmed(BLUE, (2, 3, 6), (Card.FOG, Card.CRAB, Card.NET), False)
    assert told(programmed.for_viewer(RED)) == ["Blue programs slots 2, 3, 6, face down."]
    assert told(programmed, seat=BLUE) == ["You program: Fog on 2, Crab on 3, Net on 6."]
    assert told(Z.Programmed(BLUE, (1, 4, 5), (Card.FOG, Card.CRAB, Card.NET), True)) == [
        "Blue programs face up (Open hand): Fog on 1, Crab on 4, Net on 5."]
    drawn = Z.CardsDrawn(RED, 3, (Card.TRANSFER, Card.FOG, Card.PRAYER))
    assert told(drawn) == ["You draw Transfer, Fog, Prayer."]
    assert told(drawn.for_viewer(BLUE), seat=BLUE) == ["Red draws 3 cards."]


def test_markers_eruptions_and_the_cards_without_a_decision_are_told():
    assert told(Z.MarkerPlaced(RED, "net", 4, None), Z.MarkerPlaced(BLUE, "turtle", None, "B2"),
                Z.MarkerReturned(RED, "net", 4, None, "sank"), Z.IslandErupted(12, BLUE),
                Z.OpenHandPlayed(BLUE, 1), Z.Weakened(RED), Z.PileReshuffled(BLUE, 17, "reshuffle"),
                Z.InitiativePassed(BLUE)) == [
        "You put a net on island 4.",
        "Blue's lord B2 becomes a turtle.",
        "Your net comes back (island 4 sank).",
        "Blue erupts volcanic island 12: it leaves the ring.",
        "Blue programs face up next time (Open hand).",
        "Your people count as strength 10 for Crab until the round ends (Weakness).",
        "Blue shuffles both piles together (Reshuffle): 17 cards.",
        "The initiative passes to Blue.",
    ]


def test_the_arbiters_events_are_told_as_for_every_game():
    assert told(Committed(ATON_BLUE), ChatSaid(ATON_BLUE, "Bea", "good luck")) == [
        "Blue has programmed (the cards stay face down).", "Bea: good luck"]


def test_the_result_says_why():
    assert result_sentence(Outcome(Termination.ELIMINATED, RED)) == "Red wins: the last clan with a survivor."
    assert result_sentence(Outcome(Termination.BOTH_ELIMINATED, None)) == "A draw: both clans died at once."
    assert result_sentence(Outcome(Termination.TIME, BLUE)) == "Blue wins: Red ran out of time."
    assert told(Z.GameOver(None, Termination.BOTH_ELIMINATED)) == ["Game over. A draw: both clans died at once."]


def test_every_event_of_a_whole_game_is_told_in_words():
    """A seeded random game: no event the engine emits is left untold (none gives None)."""
    import random
    events: list = []
    state = new_game(5, events=events)
    rng = random.Random(1)
    while not state.is_over:
        player = state.pending()[0]
        state.play(player, rng.choice(state.legal_moves(player)), events)
    for event in events:
        assert list(narrate([event], RED)), event
