"""The leaderboard of one clock: the accounts whose rating for it is no longer provisional, best
first, a page at a time (the server's ``leaderboard``; docs/protocol.md, *Profiles and the
leaderboard*).  Tab (or ← →) turns to another clock, ``]``/``[`` turn the pages, Enter on a
player opens their profile, Esc goes back.  Names come from other players: no markup."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static

from protocol import messages as m

from ..widgets.fitted_footer import FittedFooter
from ..widgets.fitted_table import FittedTable
from ..widgets.notice import Notice
from .client_screen import ClientScreen

if TYPE_CHECKING:
    from ..app import AtonApp

COLUMNS = ("#", "player", "rating", "RD", "games")


def clocks_line(shown: str) -> str:
    """The clocks, the one shown in brackets: ``blitz  [normal]  relaxed``."""
    return "  ".join(f"[{clock}]" if clock == shown else clock for clock in m.CLOCKS)


class LeaderboardScreen(ClientScreen, Screen):
    """The leaderboard, from the clock ``clock``."""

    BINDINGS = [
        Binding("escape", "close", "Back", tooltip="back to where you were"),
        Binding("tab,right", "clock(1)", "Next clock", key_display="Tab", tooltip="the next clock's leaderboard"),
        Binding("shift+tab,left", "clock(-1)", "Previous clock", show=False,
                tooltip="the previous clock's leaderboard"),
        Binding("enter", "profile", "Profile", tooltip="the selected player's profile"),
        Binding("right_square_bracket", "next_page", "Next page", key_display="]", tooltip="the next places"),
        Binding("left_square_bracket", "previous_page", "Previous page", key_display="[",
                tooltip="the places before"),
        Binding("question_mark", "app.help", "Help", key_display="?", tooltip="the rules in short and every key"),
    ]
    FOOTER_SPARE = ("previous_page", "next_page", "app.help", "app.quit")

    def __init__(self, clock: str = "normal") -> None:
        super().__init__()
        self.clock = clock
        self.page = 0
        self.board: m.Leaderboard | None = None

    @property
    def aton(self) -> AtonApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Static(" ATON  ·  leaderboard", id="top-bar", markup=False)
        yield Notice(self.aton.banner_text, id="banner")
        with Vertical(id="leaderboard-body"):
            yield Static(clocks_line(self.clock), id="leaderboard-clocks", markup=False)
            yield Static("Asking the server…", id="leaderboard-pages", markup=False)
            yield FittedTable(id="leaderboard-places", cursor_type="row", zebra_stripes=True)
        yield FittedFooter()

    def on_mount(self) -> None:
        table = self.query_one("#leaderboard-places", DataTable)
        table.add_columns(*COLUMNS)
        table.focus()
        self._ask(0)

    def _ask(self, page: int) -> None:
        self.aton.ask_leaderboard(self, self.clock, page)

    def show(self, board: m.Leaderboard) -> None:
        """A page of a clock's leaderboard came (one of another clock, asked before a turn, is dropped)."""
        if board.clock != self.clock:
            return
        self.board, self.page = board, board.page
        places = self.query_one("#leaderboard-places", DataTable)
        places.clear()
        for entry in board.entries:
            cells = (str(entry.get("rank", "")), str(entry.get("name", "")), str(entry.get("rating", "")),
                     str(entry.get("rd", "")), str(entry.get("games", "")))
            places.add_row(*(Text(cell) for cell in cells), key=str(entry.get("name", "")))
        self.query_one("#leaderboard-pages", Static).update(pages_line(board))
        self.refresh_bindings()

    def refused(self, error: m.Error) -> None:
        self.query_one("#leaderboard-pages", Static).update(f"The server says: {error.message}")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_profile()

    def action_profile(self) -> None:
        places = self.query_one("#leaderboard-places", DataTable)
        if self.board is not None and places.row_count:
            name = self.board.entries[places.cursor_row].get("name")
            if isinstance(name, str):
                self.aton.action_profile(name)

    def action_clock(self, step: int) -> None:
        self.clock = m.CLOCKS[(m.CLOCKS.index(self.clock) + step) % len(m.CLOCKS)]
        self.query_one("#leaderboard-clocks", Static).update(clocks_line(self.clock))
        self.query_one("#leaderboard-pages", Static).update("Asking the server…")
        self.query_one("#leaderboard-places", DataTable).clear()
        self.board = None
        self._ask(0)

    def action_next_page(self) -> None:
        self._ask(self.page + 1)

    def action_previous_page(self) -> None:
        self._ask(max(0, self.page - 1))

    def action_close(self) -> None:
        self.dismiss()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        board = self.board
        if action == "next_page":
            return board is not None and board.more
        if action == "previous_page":
            return self.page > 0
        if action == "profile":
            return board is not None and bool(board.entries)
        return True


def pages_line(board: m.Leaderboard) -> str:
    """How many are ranked, and the keys: ``120 ranked · ] next · [ before · Enter: a profile``."""
    if board.total == 0:
        return f"Nobody is ranked at the {board.clock} clock yet: a rating counts once it is no longer provisional."
    keys = ("  ·  ] next" if board.more else "") + ("  ·  [ before" if board.page else "")
    return f"{board.total} ranked, best first{keys}  ·  Enter: a player's profile"
