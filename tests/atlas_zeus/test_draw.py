"""§4.4 draw: 3 each, red first, the discard pile reshuffled only when needed (§11.1, §11.18)."""

from atlas_zeus import BLUE, RED, Card
from atlas_zeus.events import CardsDrawn, PileReshuffled
from atlas_zeus.options import Options

from .helpers import of, position, resolve, total_cards


def test_each_player_draws_three_red_first():
    state = position({"R1": 2, "B1": 3}, flood=16, track={1: (RED, Card.WEAKNESS)},
                     decks={RED: [Card.CRAB, Card.FOG, Card.NET]})
    events = resolve(state)
    drawn = of(events, CardsDrawn)
    assert [(e.player, e.count) for e in drawn] == [(RED, 3), (BLUE, 3)]
    assert drawn[0].cards == (Card.CRAB, Card.FOG, Card.NET), "from the top of the pile"
    assert drawn[0].for_viewer(BLUE).cards is None and drawn[0].for_viewer(None).cards is None


def drain(state, player, keep):
    """Move all but ``keep`` cards of the draw pile (the top ones stay) to the discard pile."""
    pile = state.decks[player]
    state.discards[player].extend(pile[:len(pile) - keep])
    del pile[:len(pile) - keep]


def test_the_rest_of_the_pile_is_drawn_before_the_reshuffled_discard_pile():
    state = position({"R1": 2, "B1": 3}, flood=16, track={1: (RED, Card.WEAKNESS)},
                     decks={RED: [Card.CRAB, Card.FOG]})
    drain(state, RED, 2)
    events = resolve(state)
    red_draw = of(events, CardsDrawn)[0]
    assert red_draw.cards is not None and red_draw.cards[:2] == (Card.CRAB, Card.FOG)
    assert [e.player for e in of(events, PileReshuffled)] == [RED]
    assert total_cards(state, RED) == 25


def test_no_reshuffle_while_the_pile_still_has_the_cards_needed():
    """§11.1: taking the last card does not reshuffle."""
    state = position({"R1": 2, "B1": 3}, flood=16, track={1: (RED, Card.WEAKNESS)})
    drain(state, RED, 3)
    events = resolve(state)
    assert not of(events, PileReshuffled)
    assert state.decks[RED] == []


def test_both_piles_empty_stops_the_draw():
    state = position({"R1": 2, "B1": 3}, flood=16, track={1: (RED, Card.WEAKNESS)})
    state.hands[RED].extend(state.decks[RED][1:])
    del state.decks[RED][1:]
    events = resolve(state)
    assert of(events, CardsDrawn)[0].count == 2, "the last card of the pile, then the Weakness reshuffled"
    assert state.decks[RED] == [] and state.discards[RED] == []
    assert total_cards(state, RED) == 25


def first_draw(seed, options):
    state = position({"R1": 2, "B1": 3}, flood=16, track={1: (RED, Card.WEAKNESS)}, options=options, seed=seed,
                     decks={RED: [Card.VOLCANO, Card.FLOOD]})
    drain(state, RED, 2)
    events = resolve(state)
    assert total_cards(state, RED) == 25
    return of(events, CardsDrawn)[0].cards[:2]


def test_option_rest_shuffled_in_with_the_discard_pile():
    rest = (Card.VOLCANO, Card.FLOOD)
    assert all(first_draw(seed, Options()) == rest for seed in range(10))
    shuffled = Options(reshuffle_keeps_rest_first=False)
    assert any(first_draw(seed, shuffled) != rest for seed in range(10))


def test_reshuffles_follow_the_games_generator_red_first():
    """§11.18: the same position gives the same draws."""
    def run():
        state = position({"R1": 2, "B1": 3}, flood=16, track={1: (RED, Card.WEAKNESS)}, seed=5)
        drain(state, RED, 1)
        drain(state, BLUE, 1)
        return [e for e in resolve(state) if isinstance(e, CardsDrawn | PileReshuffled)]
    first = run()
    assert first == run()
    assert [e.player for e in first if isinstance(e, PileReshuffled)] == [RED, BLUE]
