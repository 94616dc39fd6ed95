"""The narrow interface between the arbiter and a game (``HostedGame``), game-neutral.

The arbiter (``server.room``) knows seats, sealed moves, clocks and persistence; it never
knows a rule.  Everything it asks of a game goes through ``HostedGame``: who must decide, is
a move legal, play it, what may a receiver see, what happens on time-out, how the game
ended, and its record.  Seats and moves are the game's own values, opaque to the arbiter: a
move message is turned into the game's move once (``move_of``), checked and played once
(``play``), and a refusal is the game-neutral ``RefusedMove``.

Sealed moves.  While ``sealed`` holds, a pending seat seals its move (``commit``: a digest;
or a move the server knows: a hosted bot's, a time-out's, one placed face up) before any is
played, and all are opened and played together, in the order they were sealed.  A seal may
show something at once (its *claim*: Atlas & Zeus's slots of a face-down programming, to
everyone, and its cards to its owner when the server sealed it; or a face-up programming
whole, to everyone); the arbiter tells the game its seals
(``set_seals``), and the game's ``pending`` and views follow them: a sequential sealed turn
(Atlas & Zeus: the initiative player seals, then the other player, seeing which slots are
taken) is a turn whose pending seats grow as seals arrive.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any, ClassVar, Protocol, TypeVar

from protocol import messages as m

__all__ = ["Forfeit", "HostedGame", "Outcome", "RefusedMove", "events_by_receiver"]

S = TypeVar("S", bound=Hashable)  # a game's seat
M = TypeVar("M")  # a game's move


class RefusedMove(Exception):
    """The game refuses a move; the message says why, in a player's words."""


class EngineEvent(Protocol):
    """An engine's event: the copy a receiver may see, and its map."""

    def for_viewer(self, viewer: Any) -> EngineEvent: ...

    def to_dict(self) -> dict[str, Any]: ...


def events_by_receiver(shown: Sequence[EngineEvent], receivers: Iterable[S | None]) -> dict[S | None, list[dict]]:
    """``HostedGame.events_for`` for an engine whose events know what each viewer may see of
    them (``for_viewer``).  A receiver that sees every event as everyone does gets the public
    list itself, and only the events that differ for it (its own cards) are converted again."""
    public = [e.for_viewer(None) for e in shown]
    public_dicts = [e.to_dict() for e in public]
    by_receiver: dict[S | None, list[dict]] = {}
    for seat in receivers:
        if seat is None:
            by_receiver[None] = public_dicts
            continue
        mine = [e.for_viewer(seat) for e in shown]
        by_receiver[seat] = public_dicts if all(e is p for e, p in zip(mine, public, strict=True)) else [
            d if e is p or e == p else e.to_dict() for e, p, d in zip(mine, public, public_dicts, strict=True)]
    return by_receiver


class Forfeit(StrEnum):
    """How the arbiter ends a game against a seat: its time ran out, or it left for good.
    Every game's own terminations have these two values."""

    TIME = "time"
    ABANDONED = "abandoned"


class Outcome(Protocol):
    """How a game ended, as every game's engine says it."""

    @property
    def winner(self) -> Any:
        """The winning seat; None: a draw."""

    @property
    def termination(self) -> StrEnum: ...

    def to_dict(self) -> dict[str, str]:
        """``{"winner": seat name or "draw", "reason": ...}``."""


class HostedGame(Protocol[S, M]):
    """What the arbiter needs of a game.

    A seat's ``str()`` is its name on the wire and in the database (``seat_named`` reads
    it back).  The events a move causes are opaque until ``events_for`` turns them into
    the maps each receiver may see.
    """

    #: The game's name on the wire and in the database ("aton", "atlas-zeus").
    name: ClassVar[str]
    #: Every seat, in order.
    seats: tuple[S, ...]

    def seat_named(self, name: str) -> S:
        """The seat a name from the wire or the database stands for; ValueError if none."""

    def pending(self) -> tuple[S, ...]:
        """The seats that must decide now; in a sealed turn, those that have sealed too."""

    @property
    def sealed(self) -> bool:
        """Whether the pending seats seal their moves until all have."""

    def is_sealed(self, move: M) -> bool:
        """Whether ``move`` is one that is sealed in such a turn (not every move then is)."""

    def move_of(self, seat: S, msg: m.Message) -> M:
        """The game's move for a move message of ``seat``'s (``open``, ``act``, ``place``…);
        RefusedMove if the message is no move of this game (or not one ``seat`` may send
        now), ProtocolError ``invalid`` if its move is malformed."""

    def claim(self, seat: S, move: M | None, slots: tuple[int, ...] | None) -> object:
        """What the game shows of the move ``seat`` seals now, as a JSON value (None: nothing),
        its views deciding who sees what of it: of ``move`` when the server knows it, else of a
        ``commit`` that claims ``slots``; RefusedMove if it cannot be sealed so."""

    def opens(self, digest: bytes, move: M, nonce: bytes) -> bool:
        """Whether ``move`` with ``nonce`` is the opening of the commitment ``digest``
        (``protocol.commitment``)."""

    def set_seals(self, claims: Mapping[S, object]) -> None:
        """The seals the arbiter holds now, by seat, with their claims."""

    def check(self, seat: S, move: M) -> None:
        """RefusedMove if ``move`` is not legal for ``seat`` now; nothing changes (a sealed
        move is checked when it is opened and played once every seat's is)."""

    def play(self, seat: S, move: M) -> Sequence[object]:
        """Play ``move`` for ``seat``: the events it caused; RefusedMove (and nothing
        changed) if it is not legal now."""

    def events_for(self, events: Sequence[object], receivers: Iterable[S | None]) -> dict[S | None, list[dict]]:
        """The events as each receiver (a seat, or None: a spectator) may see them, as maps."""

    def view(self, seat: S | None) -> dict:
        """Everything the seat (None: a spectator) may see of the game, as a map."""

    def views(self, receivers: Iterable[S | None]) -> dict[S | None, dict]:
        """``view`` for each receiver, built together (what they share, once)."""

    def default_move(self, seat: S) -> M:
        """The move played (or sealed) for ``seat`` when its time runs out."""

    def forfeit(self, seat: S, termination: Forfeit) -> Sequence[object]:
        """End the game against ``seat`` (time or abandoning); return the events."""

    @property
    def is_over(self) -> bool: ...

    def outcome(self) -> Outcome | None:
        """How the game ended; None while it goes on."""

    def summary(self) -> dict:
        """Round and standing (Aton's scores, Atlas & Zeus's people alive), for the lobby's
        list of games and the stored result."""

    def progress(self) -> Hashable:
        """A cheap value that changes whenever ``summary`` does (the lobby compares it after
        every move, before it builds a game's entry)."""

    def encode_move(self, move: M) -> dict:
        """A move as a map: the form the database keeps (and a worker process returns)."""

    def decode_move(self, data: dict) -> M:
        """The move a map from ``encode_move`` stands for; ValueError if none."""

    def record(self, meta: dict) -> dict:
        """The game's record, with ``meta`` from the arbiter (players, result)."""
