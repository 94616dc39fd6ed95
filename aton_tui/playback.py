"""A game's updates told one moment at a time, so that the board, the table and the log agree.

The server sends all that happened since its last update at once: after both seal, one
update holds the reveals of both commitments and the start of the first turn, and a bot's
moves follow a few milliseconds later.  Shown as they come, the board would already hold
the opponent's stones while the cartouches that decided them are still face down.

``Playback`` cuts each update into moments (``moments``) and hands them out one at a time;
the screen shows one, waits a moment, shows the next.  A moment is:

- what came before the update's first reveal (the move that ended the previous turn);
- each cartouche turned over (both players' at once when both turn the same one), with
  what it decided (points after cartouche 1, the order after cartouche 2);
- what came after the last reveal (the turn that starts, a new round).

Each moment carries the view the board and the table draw while it is shown.  The last
moment of an update shows the view the server sent; the ones before it show the view
before the update, moved on by the events that change the drawing (``moved_on``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace

from aton.board import index_of
from aton.events import CardRevealed, PointsScored, StonePlaced, StoneRemoved
from aton.players import RED, Player
from aton.views import PlayerView, View
from protocol.game_frames import GameEvent


@dataclass(frozen=True)
class Moment:
    """Events told together, and what the board and the table show once they are told."""

    events: tuple[GameEvent, ...]
    view: View
    commitments: dict[Player, str]  # as in ``GameModel.commitments``


class Playback:
    """The moments not shown yet, oldest first."""

    def __init__(self, view: View, commitments: dict[Player, str]) -> None:
        self.queue: deque[Moment] = deque()
        self.latest = Moment((), view, commitments)  # the last moment queued (or shown)

    @property
    def behind(self) -> bool:
        """Whether there are moments still to show (the screen is not at the present yet)."""
        return bool(self.queue)

    def add(self, events: Sequence[GameEvent], view: View, commitments: dict[Player, str]) -> None:
        """An update: its events, and the view and commitments the server sent after them."""
        new = moments(self.latest, events, view, commitments)
        self.queue.extend(new)
        self.latest = new[-1]

    def next(self) -> Moment | None:
        """The next moment to show (None: the playback has reached the present)."""
        return self.queue.popleft() if self.queue else None

    def rest(self) -> list[Moment]:
        """Every moment still to show, taken all at once (to jump to the present)."""
        rest = list(self.queue)
        self.queue.clear()
        return rest


def moments(before: Moment, events: Sequence[GameEvent], view: View, commitments: dict[Player, str]) -> list[Moment]:
    """An update cut into moments; the last shows ``view``, the earlier ones ``before``'s view
    moved on by their events (with no decision in it: the player decides at the present)."""
    parts = cut(events)
    shown = replace(before.view, decision=None)
    result = []
    for part in parts[:-1]:
        for event in part:
            shown = moved_on(shown, event)
        result.append(Moment(part, shown, before.commitments))
    return [*result, Moment(parts[-1], view, commitments)]


def cut(events: Sequence[GameEvent]) -> list[tuple[GameEvent, ...]]:
    """The events of one update in the order told, cut where a cartouche is turned over:
    the events before the first reveal, each cartouche turned (with the events it caused,
    up to the next reveal), and the events after the last reveal.  Never empty: an update
    with no events is one moment of its own (its view may still differ)."""
    parts: list[list[GameEvent]] = [[]]
    for event in events:
        if isinstance(event, CardRevealed) and not _same_cartouche(parts[-1], event):
            parts.append([])
        parts[-1].append(event)
    last = parts[-1]
    turned = next((i for i, event in enumerate(last) if not isinstance(event, CardRevealed)), len(last))
    if len(parts) > 1 and 0 < turned < len(last):  # after the last reveal: a moment of its own
        parts[-1:] = [last[:turned], last[turned:]]
    kept = [tuple(part) for part in parts if part]
    return kept or [()]


def _same_cartouche(part: list[GameEvent], event: CardRevealed) -> bool:
    """Whether ``event`` turns the same cartouche as the reveal that ends ``part`` (the other player's)."""
    return bool(part) and isinstance(part[-1], CardRevealed) and part[-1].cartouche == event.cartouche


def moved_on(view: View, event: GameEvent) -> View:
    """``view`` with what ``event`` changes on the board and the player table: a cartouche
    turned over, points scored from cartouche 1, a stone placed or removed.  The rest (a turn
    that starts, a new round) waits for the view the server sent with the update."""
    match event:
        case CardRevealed(player, cartouche, value):
            seat = view.player(player)
            faces = (*seat.cartouches[:cartouche - 1], value, *seat.cartouches[cartouche:])
            return _with_player(view, player, replace(seat, cartouches=faces, revealed=max(seat.revealed, cartouche),
                                                      committed=True))
        case PointsScored(player=player, total=total):
            return _with_player(view, player, replace(view.player(player), score=total))
        case StonePlaced(player, temple, square):
            seat = view.player(player)
            moved = _with_stones(view, player, view.stones[player] | 1 << index_of(temple, square))
            return _with_player(moved, player, replace(seat, supply=seat.supply - 1, on_board=seat.on_board + 1))
        case StoneRemoved(owner=owner, temple=temple, square=square):
            seat = view.player(owner)
            moved = _with_stones(view, owner, view.stones[owner] & ~(1 << index_of(temple, square)))
            return _with_player(moved, owner, replace(seat, dead=seat.dead + 1, on_board=seat.on_board - 1))
    return view


def _with_player(view: View, player: Player, seat: PlayerView) -> View:
    return replace(view, red=seat) if player is RED else replace(view, blue=seat)


def _with_stones(view: View, player: Player, stones: int) -> View:
    red, blue = view.stones
    return replace(view, stones=(stones, blue) if player is RED else (red, stones))
