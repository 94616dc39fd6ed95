"""Both clans at a glance, one line each: who plays it, the people still alive and their
strength, the cards (hand, draw pile, discard pile, set aside), Open hand and Weakness, the
initiative, and the clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ..model import LOW_CLOCK_MS, countdown
from ..widgets.players import format_clock
from .ring import CLAN_SYMBOL


@dataclass(frozen=True)
class ClanRow:
    clan: str  # "red" or "blue"
    name: str
    you: bool
    connected: bool
    to_move: bool
    initiative: bool
    people: int  # alive
    strength: int  # of those alive
    hand: int
    deck: int
    discard: int
    set_aside: tuple[str, ...] = ()  # names of the marker cards in play
    open_hand: bool = False  # programs face up next
    weakened: bool = False
    clock_ms: int | None = None
    clock_at: float = 0.0
    strikes: int = 0
    clock_paused: bool = False


class Clans(Widget):
    COMPONENT_CLASSES = {"clans--red", "clans--blue", "clans--muted", "clans--to-move", "clans--flag",
                         "clans--clock", "clans--clock-running", "clans--clock-low"}

    rows: reactive[tuple[ClanRow, ...]] = reactive(())

    def __init__(self, clock: Callable[[], float], **kwargs) -> None:
        super().__init__(**kwargs)
        self.clock = clock

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh)

    def render(self) -> Text:
        return Text("\n").join(self._row(row) for row in self.rows)

    def _style(self, name: str):
        return self.get_component_rich_style(f"clans--{name}")

    def _row(self, row: ClanRow) -> Text:
        width = self.size.width
        roomy = width >= 100
        line = Text()
        line.append("▶ " if row.to_move else "  ", self._style("to-move"))
        label = f"{CLAN_SYMBOL[row.clan]} {row.clan.capitalize()}"
        line.append(label, self._style(row.clan))
        line.append(" ")
        who = row.name + (" (you)" if row.you else "") + ("" if row.connected else " ✕")
        name = Text(who, self._style("muted"))
        name.truncate(21 if roomy else 15, overflow="ellipsis", pad=True)
        line.append_text(name)
        counts = (f"people {row.people} ({row.strength})  hand {row.hand}  deck {row.deck}  discard {row.discard}"
                  if roomy else f"{row.people} alive  hand {row.hand} deck {row.deck} disc {row.discard}")
        line.append(" " + counts)
        flags = [*(["★ initiative" if roomy else "★"] if row.initiative else []),
                 *(["open hand"] if row.open_hand else []), *(["weakened"] if row.weakened else []),
                 *([f"out: {', '.join(row.set_aside)}"] if row.set_aside and roomy else [])]
        if flags:
            line.append("  " + " · ".join(flags), self._style("flag"))
        clock = self._clock(row)
        room = width - line.cell_len - clock.cell_len
        if room < 1:
            line.truncate(max(0, width - clock.cell_len - 1), overflow="ellipsis")
            room = 1
        line.append(" " * room)
        line.append_text(clock)
        return line

    def _clock(self, row: ClanRow) -> Text:
        ms = row.clock_ms if row.clock_paused else countdown(row.clock_ms, row.clock_at, self.clock())
        text = format_clock(ms) + (f" ⚠{row.strikes}" if row.strikes else "")
        if ms is None:
            return Text(text, self._style("clock"))
        return Text(text, self._style("clock-low" if ms < LOW_CLOCK_MS else "clock-running"))
