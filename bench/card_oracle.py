"""What the hidden cards are worth to the search: a search that sees them all, against bots that see their views.

    python bench/card_oracle.py A B [aton-bot tournament's options: --games N --seed S --cpu-time --jobs J
                                       --sprt ELO0,ELO1 --json ...]

A and B are the names ``aton-bot tournament`` takes, and one more: ``oracle``, the ``mcts`` bot
(same options: ``oracle:budget_ms=1000,plan=2``) whose every determinization is the game's true
state.  It knows the opponent's hand, the order of both decks and every shuffle to come — all the
luck of the game — and not the opponent's choices: at a commit the opponent's cards are in its
hand, never on its cartouches, even when the opponent has committed first (the tournament asks
both players on views of the same moment; only after an exchange does one of them move first).

What knowing the cards is worth to the search: if ``oracle`` beats ``mcts`` at the same budget,
the hidden cards are what the search misses and more samples of them would help; if it does not,
the search is limited by what it does with a state — its heuristic and its play-out policy — and
more time, which only draws more samples, cannot make it much stronger (issue 19, point 3; the
figures are in docs/bots.md, *What limits the search*).  The oracle is this benchmark's instrument
only: it is registered by this script alone, so no server, client or ``aton-bot`` run can play it.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bots.tournament
from aton.game import COMMIT, GameState, new_game
from aton.moves import Move
from aton.options import DEFAULT_RULES, Rules
from aton.players import Player
from aton.sampling import Sampler
from aton.views import View
from bots import cli
from bots.game_result import GameResult
from bots.strategies import mcts
from bots.strategy import STRATEGIES, Strategy

#: The state of the game being played in this process, as the engine holds it.
_truth: list[GameState] = []
#: Whether the oracle is deciding (its searches draw the true state, everyone else's samples).
_oracle_deciding = [False]
_real_play_game = bots.tournament.play_game


class _TrueState:
    """A sampler that returns the game's true state, the opponent's commit (if made) back in its hand."""

    def __init__(self, viewer: Player) -> None:
        self.viewer = viewer

    def sample(self, rng: random.Random) -> GameState:
        state = _truth[-1].copy()
        opponent = self.viewer.other
        theirs = state.cartouches[opponent]
        if state.phase is COMMIT and state.cartouches[self.viewer] is None and theirs is not None:
            state.hands[opponent] = tuple(sorted(theirs))  # their choice stays theirs
            state.cartouches[opponent] = None
        return state


def _sampler(view: View, rules: Rules = DEFAULT_RULES) -> Sampler | _TrueState:
    if _oracle_deciding[0]:
        assert view.viewer is not None
        return _TrueState(view.viewer)
    return Sampler(view, rules)


def _play_game_in_the_open(
    red: Strategy, blue: Strategy, seed: int, rules: Rules = DEFAULT_RULES,
    on_move: Callable[[GameState, Player, Move], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> GameResult:
    """``bots.tournament.play_game``, keeping the live state where the oracle's sampler finds it."""
    _truth[:] = [new_game(seed, rules=rules)[0]]  # the state before the first move, as the game deals it

    def track(state: GameState, player: Player, move: Move) -> None:
        _truth[:] = [state]
        if on_move is not None:
            on_move(state, player, move)

    return _real_play_game(red, blue, seed, rules, track, clock)


class Oracle(mcts.MCTSStrategy):
    """``mcts`` searching the true state: every determinization is the game as it is."""

    def choose(self, view: View) -> Move:
        _oracle_deciding[0] = True
        try:
            return super().choose(view)
        finally:
            _oracle_deciding[0] = False


@contextmanager
def oracle_playing() -> Iterator[None]:
    """``oracle`` a strategy's name, and tournaments played in the open for it, until the block ends
    (processes forked inside it, as the tournament's workers are, keep both)."""
    Oracle.name = "oracle"
    STRATEGIES["oracle"] = Oracle
    mcts.Sampler = _sampler  # type: ignore[assignment,misc]
    bots.tournament.play_game = _play_game_in_the_open
    try:
        yield
    finally:
        bots.tournament.play_game = _real_play_game
        mcts.Sampler = Sampler  # type: ignore[misc]
        del STRATEGIES["oracle"]


def main() -> int:
    print("$ python bench/card_oracle.py " + " ".join(f'"{a}"' if ":" in a else a for a in sys.argv[1:]))
    with oracle_playing():
        return cli.main(["tournament", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
