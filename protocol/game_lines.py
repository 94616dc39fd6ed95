"""One game in a list of a player's games, from that player's side: what a ``profile`` carries
(docs/protocol.md, *Profiles and the leaderboard*), what ``ssh HOST games`` prints and what
the client's profile screen shows.  Nothing of it was hidden while the game was played: the
result, the rounds and the length appear only once it is over.

The opponent is named as they are named now (their account's name, which opens their profile),
and, if they were named otherwise in that game (renamed since), as they were then too
(``opponent_then``), as their game's record names them.  A guest has no account: their name is
the one they played under."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .messages import DEFAULT_GAME

#: A game's result from its player's side.
RESULTS = ("won", "lost", "drawn", "playing")


@dataclass(frozen=True)
class GameLine:
    game: int
    started: str  # ISO 8601, UTC
    clock: str
    seat: str  # the player's seat: "red" or "blue"
    opponent: str  # the opponent's name now
    result: str  # one of RESULTS
    reason: str | None = None  # how it ended (docs/records.md, ``meta.result.reason``)
    rounds: int | None = None
    seconds: int | None = None  # from its start to its end
    opponent_then: str | None = None  # the opponent's name in that game, if it was another
    opponent_guest: bool = False  # the opponent played as a guest: no profile to open
    kind: str = DEFAULT_GAME  # the game played (since 1.7)

    def to_wire(self) -> dict[str, Any]:
        return {"game": self.game, "started": self.started, "clock": self.clock, "seat": self.seat,
                "opponent": self.opponent, "result": self.result, "reason": self.reason,
                "rounds": self.rounds, "seconds": self.seconds, "opponent_then": self.opponent_then,
                "opponent_guest": self.opponent_guest, "kind": self.kind}

    @classmethod
    def from_wire(cls, item: dict[str, Any]) -> GameLine:
        """A line as a ``profile`` carries it; anything missing or of the wrong kind is left blank."""

        def text(key: str, default: str = "") -> str:
            value = item.get(key)
            return value if isinstance(value, str) else default

        def number(key: str) -> int | None:
            value = item.get(key)
            return value if type(value) is int else None

        return cls(game=number("game") or 0, started=text("started"), clock=text("clock"), seat=text("seat"),
                   opponent=text("opponent", "?"), result=text("result", "?"), reason=text("reason") or None,
                   rounds=number("rounds"), seconds=number("seconds"), opponent_then=text("opponent_then") or None,
                   opponent_guest=item.get("opponent_guest") is True, kind=text("kind", DEFAULT_GAME))

    @property
    def opponent_words(self) -> str:
        """``robert``, or ``robert (then: bob)`` when they played that game as ``bob``."""
        return self.opponent if self.opponent_then is None else f"{self.opponent} (then: {self.opponent_then})"

    @property
    def date(self) -> str:
        """``2026-12-03 18:24`` (UTC)."""
        return self.started[:16].replace("T", " ")

    @property
    def result_words(self) -> str:
        """``won (temple)``, ``lost (time)``, ``drawn``, ``playing``."""
        return self.result if self.reason is None or self.result == "drawn" else f"{self.result} ({self.reason})"

    @property
    def length_words(self) -> str:
        """``7 rounds, 12 min`` once the game is over; ``-`` while it is played."""
        if self.rounds is None or self.seconds is None:
            return "-"
        minutes = max(1, round(self.seconds / 60))
        return f"{self.rounds} round{'s' if self.rounds != 1 else ''}, {minutes} min"
