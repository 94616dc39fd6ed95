"""What the server needs of a kind of game beyond one game of it: ``GameKind``, one per game."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from protocol.clocks import TimeControl

#: Stored moves: (seat name, move map), in order.
StoredMoves = list[tuple[str, dict]]


@dataclass(frozen=True)
class GameKind:
    """A game the server hosts, by its name on the wire ("aton", "atlas-zeus")."""

    name: str
    title: str  # its name in a player's words ("Atlas & Zeus")
    seats: tuple[Hashable, ...]
    #: The seat a name from the wire or the database stands for; ValueError if none.
    seat_named: Callable[[str], Hashable]
    #: A new game dealt from a seed with the default rules, and those rules as the database keeps them.
    new: Callable[[int], tuple[Any, dict]]
    #: A game rebuilt from its seed, rules and stored moves (a restart).
    restore: Callable[[int, dict, StoredMoves], Any]
    #: The record of a stored game: (seed, rules, moves, meta) -> the record document.
    record_of: Callable[[int, dict, StoredMoves, dict], dict]
    #: A hosted bot's decision: (level, seed, view map, search budget in ms or None) -> a move map.
    bot_move: Callable[[str, int, dict, float | None], dict]
    #: The bot levels that think in a worker process, with their budget (ms); the others answer
    #: at once, on the event loop.
    search_budget_ms: dict[str, float]
    #: The level whose move a searching bot plays when it has no time to search: the
    #: strongest that answers at once (``server.bot_scheduler``).
    light_level: str
    #: Whether its decks are fixed with the players (``deal``, see docs/protocol.md 'Fair decks').
    fair_decks: bool
    #: Whether its games may be rated.
    rated: bool
    #: Its clocks by name; None: the server's configured ones (``ServerConfig.time_controls``).
    time_controls: dict[str, TimeControl] | None

    def __post_init__(self) -> None:
        if self.light_level in self.search_budget_ms:
            raise ValueError(f"{self.name}: the light level must be a level that does not search, "
                             f"not {self.light_level!r}")
