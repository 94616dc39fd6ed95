"""A player's profile: their finished games counted, and their games, newest first, a page at
a time (the server's ``profile``; docs/protocol.md, *Profiles*).  Enter on a finished game opens
its record in the replay viewer (``get_record``); ``o`` opens the profile of that game's
opponent, under the name they have now (shown, when they played it under another, as
``robert (then: bob)``); ``]``/``[`` turn the pages; Esc goes back.

The screen asks the app for each page (``AtonApp.ask_profile``) and shows what comes back
(``show``), or why it did not (``refused``).  Names come from other players: every text
widget here is drawn without markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import DataTable, Static

from protocol import messages as m
from protocol.game_lines import GameLine

from ..sizes import ROOMY_WIDTH
from ..widgets.fitted_footer import FittedFooter
from ..widgets.fitted_table import FittedTable
from ..widgets.notice import Notice
from .client_screen import ClientScreen

if TYPE_CHECKING:
    from ..app import AtonApp

#: From this width on a game's date has its time of day; below ``sizes.ROOMY_WIDTH`` there
#: is no column for its length.  The opponent's name takes the room the other columns leave.
WITH_TIME_OF_DAY = 100
SHORTEST_NAME = 6  # an opponent's name is never cut shorter than this


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` columns, its end replaced by "…" when it is longer."""
    if cell_len(text) <= width:
        return text
    while cell_len(text) > width - 1:
        text = text[:-1]
    return text + "…"


def ratings_line(profile: m.Profile) -> str:
    """``Ratings: blitz 1500? · normal 1623 (12 rated games) · relaxed 1500?``; a guest has none."""
    if not profile.ratings:
        return "A guest: no ratings."
    shown = []
    for clock in m.CLOCKS:
        rating = profile.ratings.get(clock)
        if isinstance(rating, dict) and isinstance(rating.get("rating"), int):
            games = rating.get("games")
            played = f" ({games} rated game{'s' if games != 1 else ''})" if isinstance(games, int) and games else ""
            shown.append(f"{clock} {rating['rating']}{'?' if rating.get('provisional') else ''}{played}")
    return "Ratings: " + "  ·  ".join(shown)


def totals_line(profile: m.Profile) -> str:
    """``12 games: 7 won, 4 lost, 1 drawn`` (finished games only)."""
    if profile.played == 0:
        return "No finished games yet."
    games = "1 game" if profile.played == 1 else f"{profile.played} games"
    return f"{games}: {profile.won} won, {profile.lost} lost, {profile.drawn} drawn"


def pages_line(profile: m.Profile, any_games: bool) -> str:
    """Which games the page shows, and the keys to the others."""
    if not any_games:
        return "No games on this page." if profile.page else "No games yet."
    keys = ("  ·  ] older" if profile.more else "") + ("  ·  [ newer" if profile.page else "")
    page = f"page {profile.page + 1}, " if profile.page or profile.more else ""
    return f"Games, {page}newest first{keys}  ·  Enter replays a finished one"


class ProfileScreen(ClientScreen, Screen):
    """The profile of ``name`` (None: your own)."""

    BINDINGS = [
        Binding("escape", "close", "Back", tooltip="back to where you were"),
        Binding("enter", "review", "Replay", tooltip="the selected finished game in the replay viewer"),
        Binding("o", "opponent", "Opponent", tooltip="the profile of the selected game's opponent"),
        Binding("right_square_bracket", "next_page", "Older", key_display="]", tooltip="the next page of games"),
        Binding("left_square_bracket", "previous_page", "Newer", key_display="[",
                tooltip="the previous page of games"),
        Binding("question_mark", "app.help", "Help", key_display="?", tooltip="the rules in short and every key"),
    ]
    FOOTER_SPARE = ("previous_page", "next_page", "opponent", "app.help", "app.quit")

    def __init__(self, name: str | None) -> None:
        super().__init__()
        self.player = name
        self.page = 0
        self.profile: m.Profile | None = None
        self.lines: list[GameLine] = []

    @property
    def aton(self) -> AtonApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        whose = "your profile" if self.player is None else f"profile of {self.player}"
        yield Static(f" ATON  ·  {whose}", id="top-bar", markup=False)
        yield Notice(self.aton.banner_text, id="banner")
        with Vertical(id="profile-body"):
            yield Static("Asking the server…", id="profile-totals", markup=False)
            yield Static("", id="profile-ratings", markup=False)
            yield Static("", id="profile-pages", markup=False)
            yield FittedTable(id="profile-games", cursor_type="row", zebra_stripes=True)
        yield FittedFooter()

    def on_mount(self) -> None:
        self.query_one("#profile-games", DataTable).focus()
        self.aton.ask_profile(self, self.player, self.page)

    def on_resize(self, _: Resize) -> None:
        self._fill()

    def show(self, profile: m.Profile) -> None:
        """A page of the profile came."""
        self.profile, self.page = profile, profile.page
        self.lines = [GameLine.from_wire(item) for item in profile.games]
        guest = " (guest)" if profile.guest else ""
        self.query_one("#top-bar", Static).update(
            f" ATON  ·  {'your profile' if self.player is None else 'profile of ' + profile.name}{guest}")
        self.query_one("#profile-totals", Static).update(totals_line(profile))
        self.query_one("#profile-ratings", Static).update(ratings_line(profile))
        self.query_one("#profile-pages", Static).update(pages_line(profile, bool(self.lines)))
        self._fill()
        self.refresh_bindings()

    def _fill(self) -> None:
        """The games as the screen's width allows: every column whole, the opponents' names cut to fit."""
        table = self.query_one("#profile-games", DataTable)
        width = self.size.width
        wide, with_length = width >= WITH_TIME_OF_DAY, width >= ROOMY_WIDTH
        header = ["game", "date (UTC)" if wide else "date", "opponent", "result"] + (["length"] if with_length else [])
        rows = [[f"#{line.game}", line.date if wide else line.started[:10], line.opponent_words, line.result_words]
                + ([line.length_words] if with_length else []) for line in self.lines]
        others = sum(max(cell_len(cell) for cell in column) for i, column in enumerate(zip(header, *rows, strict=True))
                     if i != 2)
        room = width - self.query_one("#profile-body").styles.gutter.width - 2 * table.cell_padding * len(header) \
            - others - table.styles.scrollbar_size_vertical
        keep = table.cursor_row
        table.clear(columns=True)
        table.add_columns(*header)
        for line, cells in zip(self.lines, rows, strict=True):
            cells[2] = cut(cells[2], max(room, SHORTEST_NAME))
            table.add_row(*(Text(cell) for cell in cells), key=str(line.game))
        if rows:
            table.move_cursor(row=min(keep, len(rows) - 1))

    def refused(self, error: m.Error) -> None:
        """The server would not say (no such player online, too many requests)."""
        self.query_one("#profile-totals", Static).update(f"The server says: {error.message}")

    def _selected(self) -> GameLine | None:
        table = self.query_one("#profile-games", DataTable)
        if not self.lines or table.cursor_row >= len(self.lines):
            return None
        return self.lines[table.cursor_row]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_review()

    def action_review(self) -> None:
        line = self._selected()
        if line is None:
            return
        if line.result == "playing":
            self.notify(f"Game {line.game} is still being played: its record comes once it is over.", timeout=4)
            return
        self.aton.review_game(line.game, line.seat)

    def action_opponent(self) -> None:
        line = self._selected()
        if line is None:
            return
        if line.opponent_guest:
            self.notify(f"{line.opponent} played as a guest: a guest has no profile.", timeout=4)
            return
        self.aton.action_profile(line.opponent)

    def action_next_page(self) -> None:
        self.aton.ask_profile(self, self.player, self.page + 1)

    def action_previous_page(self) -> None:
        self.aton.ask_profile(self, self.player, max(0, self.page - 1))

    def action_close(self) -> None:
        self.dismiss()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_page":
            return self.profile is not None and self.profile.more
        if action == "previous_page":
            return self.page > 0
        if action in ("review", "opponent"):
            return bool(self.lines)
        return True
