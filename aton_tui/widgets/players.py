"""Both players at a glance: cartouches, supply, deck, discard, exchange token and clock."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from aton.players import Player
from aton.views import PlayerView

from ..model import LOW_CLOCK_MS, countdown
from ..narrate import player_name
from .symbols import SEAT_SYMBOL

CARTOUCHES_HEADER = " pts ord rng plc "


@dataclass(frozen=True)
class Columns:
    """The table's columns for a width: the name's, then (title, width) of the counts, time last."""

    name: int
    counts: tuple[tuple[str, int], ...]

    @property
    def width(self) -> int:
        return self.name + len(CARTOUCHES_HEADER) + sum(width for _, width in self.counts)


#: every column, when the panel is 78 wide (an 80-column terminal); the time column holds "12:34 ⚠2"
FULL = Columns(23, (("supply", 7), ("deck", 5), ("discard", 8), ("exchange", 9), ("time", 9)))
#: narrower: the deck and the discard pile are left out
NARROW = Columns(22, (("supply", 7), ("⇄", 3), ("time", 9)))


def strikes_note(max_strikes: int) -> str:
    """What the ⚠ beside a clock means (the panel's tooltip, the legend and help say it)."""
    return (f"⚠n after a clock: that player's time ran out n times in a row and the server "
            f"played a default move each time; {max_strikes} time-outs in a row lose the game on time.")


@dataclass(frozen=True)
class Cartouche:
    state: str  # "empty" (nothing committed), "back" (face down), "up" (revealed), "mine" (sealed, ours)
    value: int | None = None


@dataclass(frozen=True)
class PlayerRow:
    seat: Player
    name: str
    you: bool
    connected: bool
    to_move: bool
    cartouches: tuple[Cartouche, ...]
    supply: int
    deck: int
    discard: int
    exchange_used: bool
    clock_ms: int | None  # time left when the clocks were read
    clock_at: float  # when they were read (the app's monotonic clock)
    strikes: int
    clock_paused: bool = False  # stopped while the player reads (a game against the server's bot)
    chat_muted: bool = False  # the receiver muted this player's chat (``mute``)
    rating: str | None = None  # "1500?", "1623" (None: a guest, or a server without ratings)


def cartouche_faces(player: PlayerView, sealed: bool,
                    draft: Sequence[int | None] | None = None) -> tuple[Cartouche, ...]:
    """How ``player``'s four cartouches look to the receiver of the view: face up once revealed,
    "mine" when the receiver knows the card (their own, or the ``draft`` they sealed and the
    view does not hold yet), face down when ``sealed``, else empty."""
    faces = []
    for i, value in enumerate(player.cartouches):
        if i < player.revealed:
            faces.append(Cartouche("up", value))
        elif value is not None:
            faces.append(Cartouche("mine", value))
        elif draft is not None:
            faces.append(Cartouche("mine", draft[i]))
        elif sealed:
            faces.append(Cartouche("back"))
        else:
            faces.append(Cartouche("empty"))
    return tuple(faces)


def format_clock(ms: int | None) -> str:
    if ms is None:
        return "—"
    seconds = (ms + 999) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


class PlayersPanel(Widget):
    COMPONENT_CLASSES = {
        "players--header", "players--red", "players--blue", "players--muted", "players--to-move",
        "players--card-up", "players--card-back", "players--card-mine", "players--card-empty",
        "players--clock", "players--clock-running", "players--clock-low",
    }

    rows: reactive[tuple[PlayerRow, ...]] = reactive(())

    def __init__(self, clock: Callable[[], float], **kwargs) -> None:
        super().__init__(**kwargs)
        self.clock = clock

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh)

    def columns(self) -> Columns:
        return FULL if self.size.width >= FULL.width else NARROW

    def render(self) -> Text:
        columns = self.columns()
        header_style = self.get_component_rich_style("players--header")
        header = Text(" " * columns.name + CARTOUCHES_HEADER, header_style)
        for title, width in columns.counts:
            header.append(title.rjust(width), header_style)
        return Text("\n").join([header, *(self._row(row, columns) for row in self.rows)])

    def _row(self, row: PlayerRow, columns: Columns) -> Text:
        own = self.get_component_rich_style(f"players--{row.seat}")
        muted = self.get_component_rich_style("players--muted")
        line = Text()
        line.append("▶ " if row.to_move else "  ", self.get_component_rich_style("players--to-move"))
        after = (" (you)" if row.you else "") + (" (muted)" if row.chat_muted else "") + \
            ("" if row.connected else " ✕")
        label = f"{SEAT_SYMBOL[row.seat]} {player_name(row.seat)}"
        if cell_len(row.name + after) > columns.name - len(label) - 3:
            label = SEAT_SYMBOL[row.seat]  # the seat's word goes before the name is cut: its symbol and colour stay
        room = columns.name - len(label) - 3
        rating = f" {row.rating}" if row.rating else ""
        if cell_len(row.name + rating + after) <= room:  # the rating only where the whole name fits beside it
            after = rating + after
        shortened = Text(row.name)  # first, so that "(you)" always shows
        shortened.truncate(max(1, room - len(after)), overflow="ellipsis")
        name = Text(shortened.plain + after, muted)
        name.truncate(room, overflow="ellipsis", pad=True)  # in cells: wide letters
        line.append(label, own)
        line.append(" ")
        line.append_text(name)
        line.append(" ")
        for cartouche in row.cartouches:
            line.append_text(self._card(cartouche))
            line.append(" ")
        values = {"supply": str(row.supply), "deck": str(row.deck), "discard": str(row.discard),
                  "exchange": "used" if row.exchange_used else "⇄ ready", "⇄": "–" if row.exchange_used else "⇄"}
        for title, width in columns.counts[:-1]:  # the last, time, is the clock
            line.append(values[title].rjust(width))
        line.append_text(self._clock(row, columns.counts[-1][1]))
        return line

    def _card(self, cartouche: Cartouche) -> Text:
        style = self.get_component_rich_style(f"players--card-{cartouche.state}")
        if cartouche.state in ("up", "mine"):
            return Text(f" {cartouche.value} ", style)
        return Text("░░░" if cartouche.state == "back" else " · ", style)

    def _clock(self, row: PlayerRow, width: int) -> Text:
        ms = row.clock_ms if row.clock_paused else countdown(row.clock_ms, row.clock_at, self.clock())
        text = format_clock(ms) + (f" ⚠{row.strikes}" if row.strikes else "")
        if ms is None:
            return Text(text.rjust(width), self.get_component_rich_style("players--clock"))
        name = "players--clock-low" if ms < LOW_CLOCK_MS else "players--clock-running"
        return Text(text.rjust(width), self.get_component_rich_style(name))
