"""A position in plain text (``aton replay`` on an Atlas & Zeus record, and logs)."""

from __future__ import annotations

from .game import GameState
from .players import PLAYERS
from .ring import Kind

_KIND = {Kind.ORDINARY: "", Kind.VOLCANIC: " volcanic", Kind.HOLY: " holy"}


def position_text(state: GameState) -> str:
    """The ring clockwise (each island with its kind, size, people and markers), the flood
    marker, each clan's survivors and piles, and the result or whose decision it is."""
    lines = [f"Atlas & Zeus — round {state.round}, phase {state.phase.value}, initiative {state.initiative}", ""]
    for number in state.ring:
        island = state.options.island(number)
        marks = [f"{p} net" for p in PLAYERS if state.nets[p] == number]
        marks += [f"{p} pilehouse" for p in PLAYERS if state.pilehouses[p] == number]
        people = [f"{q}{'(turtle)' if q in state.turtles else ''}" for q in state.people_on(number)]
        flood = " <- flood" if state.flood == number else ""
        size = "large" if island.large else "small"
        extra = f" [{', '.join(marks)}]" if marks else ""
        lines.append(f"  {number:>2} {size}{_KIND[island.kind]}{extra}: {' '.join(people) or '-'}{flood}")
    lines.append("")
    for p in PLAYERS:
        alive = state.alive(p)
        lines.append(f"{p!s:<4}  alive {len(alive)} ({' '.join(alive) or 'nobody'})  hand {len(state.hands[p])}  "
                     f"deck {len(state.decks[p])}  discard {len(state.discards[p])}")
    outcome = state.outcome()
    if outcome is not None:
        result = "a draw" if outcome.winner is None else f"{outcome.winner} wins"
        lines.append(f"Game over: {result} ({outcome.termination})")
    else:
        for p in state.pending():
            decision = state.decision(p)
            lines.append(f"To decide: {p} — {decision.sentence if decision else ''}")
    return "\n".join(lines)
