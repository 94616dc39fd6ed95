"""The position as a picture in plain text (used by ``aton replay`` and in logs)."""

from __future__ import annotations

from .board import LAYOUT, TEMPLES, SquareKind
from .game import KINGDOM_CAPACITY, GameState, decision_sentence
from .players import BLUE, PLAYERS, RED

_KIND_LETTER = {
    SquareKind.YELLOW: "y",
    SquareKind.GREEN: "g",
    SquareKind.BLACK: "k",
    SquareKind.BLUE: "b",
    SquareKind.BONUS1: "1",
    SquareKind.BONUS2: "2",
}
_STONE = {RED: "R", BLUE: "B"}


def _cell(state: GameState, temple: int, square: int) -> str:
    """Two characters: the square's kind, and R/B for a stone or '.' when empty."""
    owner = state.owner(temple, square)
    return _KIND_LETTER[LAYOUT[temple - 1][square]] + (_STONE[owner] if owner is not None else ".")


def board_picture(state: GameState) -> str:
    """The four temples side by side, each square as kind letter + stone."""
    header = "    ".join(f"Temple {t:<4}" for t in TEMPLES)
    lines = [header]
    for row in range(3):
        cells = []
        for t in TEMPLES:
            cells.append(" ".join(_cell(state, t, row * 4 + col) for col in range(4)))
        lines.append("    ".join(cells))
    lines.append("key: y yellow, g green, k black, b blue, 1/2 bonus; R red stone, B blue stone")
    return "\n".join(lines)


def position_text(state: GameState) -> str:
    """A readable summary of a position: board, scores, supplies, the Kingdom, whose move."""
    lines = [f"Round {state.round}, phase {state.phase.value}", "", board_picture(state), ""]
    for p in PLAYERS:
        lines.append(
            f"{p!s:<4}  score {state.scores[p]:>2}  supply {state.supply[p]:>2}  "
            f"on board {state.stones[p].bit_count():>2}  in the Kingdom {state.dead[p]}  "
            f"deck {len(state.decks[p]):>2}  exchange {'used' if state.exchange_used[p] else 'unused'}"
        )
    dead = state.dead[0] + state.dead[1]
    lines.append(f"Kingdom of the Dead: {dead}/{KINGDOM_CAPACITY}")
    outcome = state.outcome()
    if outcome is not None:
        result = "a draw" if outcome.winner is None else f"{outcome.winner} wins"
        lines.append(f"Game over: {result} ({outcome.termination})")
    else:
        for p in state.pending():
            lines.append(f"To move: {p} — {decision_sentence(state, p)}")
    return "\n".join(lines)

