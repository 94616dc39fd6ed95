"""The suite's own checks catch what they look for (a check that never fires proves nothing)."""

from __future__ import annotations

import pytest

from aton.events import CardsDrawn
from aton.game import new_game
from aton.players import Player
from aton.record import GameRecord
from protocol import messages as m

from .witness import Inconsistent, ReplayedGame, Secrets, check_events, check_views

SEED = 987654321987654321
NONCE = bytes(range(32))


def replayed() -> ReplayedGame:
    """A game played until red has drawn cards, as ``aton-server export`` writes it."""
    state, _ = new_game(SEED)
    record = GameRecord(seed=SEED)
    caused: list = []
    while not any(isinstance(e, CardsDrawn) and e.player == Player.RED for e in caused):
        player = state.pending()[0]
        move = state.legal_moves(player, resign=False)[0]
        record.add(player, move)
        state.play(player, move, caused)
    data = record.to_dict()
    data["meta"] = {"game": 7, "status": "playing"}
    return ReplayedGame.of(data)


def update(game: ReplayedGame, view: dict, version: int = 1, events: tuple = ()) -> m.Update:
    return m.Update(game=game.game, version=version, events=events, view=view, clocks={}, commitments={})


@pytest.mark.parametrize("frame", [
    {"type": "update", "view": {"seed": SEED}},
    {"type": "error", "message": f"the seed is {SEED}"},
    {"type": "update", "blob": b"\x00" + SEED.to_bytes(8, "big")},
    {"type": "update", "events": [{"nonce": NONCE}]},
    {"type": "record", "game": 7, "record": {"seed": SEED, "meta": {"status": "playing"}}},
])
def test_a_seed_or_a_nonce_is_found_wherever_it_hides(frame):
    assert Secrets({7: SEED}, {NONCE}).found_in(frame)


def test_a_finished_games_record_may_hold_its_seed():
    record = {"type": "record", "game": 7, "record": {"seed": SEED, "meta": {"status": "over"}}}
    assert Secrets({7: SEED}, {NONCE}).found_in(record) == []
    assert Secrets({7: SEED, 8: SEED + 1}, set()).found_in({**record, "game": 8})


def test_a_spectator_shown_a_hand_or_a_view_out_of_order_is_caught():
    game = replayed()
    public = game.views[None]
    assert check_views(game, None, [update(game, public[0]), update(game, public[2])]) == 2
    with pytest.raises(Inconsistent):
        check_views(game, None, [update(game, game.views["red"][0])])  # red's hand, to a spectator
    with pytest.raises(Inconsistent):
        check_views(game, None, [update(game, public[2]), update(game, public[0])])


def test_events_must_be_the_receivers_own_and_complete_when_asked():
    game = replayed()
    for receiver in ("red", None):
        events = tuple({**e, "version": i} for i, e in enumerate(game.events[receiver], 1))
        assert check_events(game, receiver, [update(game, game.views[receiver][-1], events=events)], whole=True)
    drawn = next(e for e in game.events["red"] if e["type"] == "cards_drawn" and e["cards"])
    with pytest.raises(Inconsistent):  # red's drawn cards, to a spectator
        check_events(game, None, [update(game, game.views[None][-1], events=({**drawn, "version": 1},))],
                     whole=False)
    with pytest.raises(Inconsistent):
        check_events(game, "red", [update(game, game.views["red"][-1], events=({**drawn, "version": 1},))],
                     whole=True)
