"""The lobby: who is online, open tables, games to watch, and the ways to start a game.

The lists follow the server's ``lobby``/``lobby_update`` messages live (the app
keeps the ``LobbyModel`` and calls ``refresh_lists``).  Enter on an open table
joins it; Enter on a game watches it.  A list longer than a page says which of its
entries it shows (``51–100 of 812``), and ``]``/``[`` turn its pages.

The games in progress name their players with their ratings; the list is fitted to its width
(``game_columns``): its round leaves a narrow one first, then the names are cut (never their
ratings), so that every column is seen whole.  So is the list of players (``player_rows``):
"in the lobby" becomes "lobby" first, then the names are cut.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal, Vertical
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import DataTable, Label, Static

from protocol import messages as m
from protocol.game_frames import ATLAS_ZEUS, rating_of

from ..lobby_model import LobbyModel, SectionWindow
from ..sizes import set_width_classes
from ..widgets.fitted_footer import FittedFooter
from ..widgets.fitted_table import FittedTable
from ..widgets.notice import Notice
from .client_screen import ClientScreen
from .profile import cut

if TYPE_CHECKING:
    from ..app import AtonApp

#: The end of the lobby's hint: the keys that work whether a game of ours goes on or not.
HINT_END = "p yours · l the leaderboard · ? help"
#: What the lobby says while no game of ours goes on: the ways to start one, to watch, to look people up.
HINT = ("b plays a bot · q finds a quick match · n opens a table · i joins by invite code · "
        f"Enter on a table joins it, on a game watches it, on a player shows their profile · {HINT_END}")
#: What becomes of our game when we go to the lobby during it (the app says it then, too).
GAME_GOES_ON = "Your game goes on without you: g takes you back before your time runs out"
#: What the lobby says while a game of ours goes on: the way back to it, and none of the keys that are
#: off meanwhile (one game at a time: ``AtonApp.our_game_runs``).
HINT_IN_GAME = f"{GAME_GOES_ON} · Enter on a player shows their profile · {HINT_END}"
#: The lists a game can be started from, by their ids: their titles, and what Enter does there
#: (said only while no game of ours goes on: one game at a time)
SECTION_TITLES = {"tables": ("Open tables", "Enter joins"), "games": ("Games in progress", "Enter watches")}
STATUS_WORDS = {"lobby": "in the lobby", "waiting": "waiting", "playing": "playing", "watching": "watching"}
#: The same in a word each, where the players' names would not fit beside ``STATUS_WORDS``.
SHORT_STATUS_WORDS = {**STATUS_WORDS, "lobby": "lobby"}
GAME_HEADER: tuple[str, ...] = ("game", "red", "blue", "round", "score", "clock")
ROUND = GAME_HEADER.index("round")
NAMES = (GAME_HEADER.index("red"), GAME_HEADER.index("blue"))
SHORTEST_CUT = 3  # a player's name in the games in progress is never cut shorter than this ("Bo…")
ACCOUNT_KEY = Binding("a", "app.account", "Account",
                      tooltip="your account: its name and keys (rename, add or remove a key)")


class LobbyScreen(ClientScreen, Screen):
    BINDINGS = [
        Binding("b", "app.play_bot", "Bot", tooltip="play a bot hosted by the server (strength, clock, colour)"),
        Binding("q", "app.quick_match", "Quick match", tooltip="play the next player who asks for one"),
        Binding("n", "app.new_table", "New table", tooltip="open a public or private table and wait"),
        Binding("i", "app.join_invite", "Invite", tooltip="sit down at a private table by its invite code"),
        Binding("j", "join", "Join", tooltip="sit down at the selected open table (or Enter on it)"),
        Binding("w", "watch", "Watch", tooltip="watch the selected game (or Enter on it)"),
        Binding("l", "app.leaderboard", "Leaderboard", tooltip="the best ratings of each clock"),
        Binding("p", "profile", "Profile",
                tooltip="the profile of the selected player (or Enter on them); yours when no player is selected"),
        Binding("g", "app.back_to_game", "Back to game", tooltip="return to your game in progress"),
        Binding("escape", "app.leave_queue", "Stop waiting", tooltip="close your table or leave the queue"),
        Binding("right_square_bracket", "next_page", "Next page", key_display="]",
                tooltip="the next page of the selected list, when it is longer than a page"),
        Binding("left_square_bracket", "previous_page", "Previous page", key_display="[",
                tooltip="the previous page of the selected list"),
        ACCOUNT_KEY,
        Binding("question_mark", "app.help", "Help", key_display="?", tooltip="the rules in short and every key"),
    ]
    #: keys that leave a narrow footer first (help lists them all)
    FOOTER_SPARE = ("previous_page", "next_page", "join", "watch", "app.leaderboard", "profile", "app.account",
                    "app.join_invite", "app.quit")
    #: From this width on, the three lists stand side by side (below it the games in progress, under
    #: the open tables, have room for every column with the players' ratings).
    WIDE = 200

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where
        self.footer_state: tuple[bool, ...] | None = None
        self.pages_shown: dict[str, int] = {}  # list -> the offset of the page it shows
        self.rows_shown: dict[str, Rows] = {}  # list -> the rows it shows
        self.our_game_shown: bool | None = None  # whether the hint and the keys are those of a game of ours
        # the classes of its width from the start: set on its first resize, they would style it all twice
        set_width_classes(self, self.app.size.width)
        self.set_class(self.app.size.width < self.WIDE, "-narrow", update=False)

    @property
    def aton(self) -> AtonApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Static(self.aton.lobby_heading or f" ATON  ·  lobby of {self.where}", id="top-bar", markup=False)
        yield Notice(self.aton.banner_text, id="banner")
        yield Static(id="lobby-hint", markup=False)  # (its words follow our game: follow_our_game)
        yield Notice(self.aton.lobby_notice, id="notice")
        with Horizontal(id="lobby-lists"):
            with Container(id="matches"):
                with Vertical(classes="lobby-section"):
                    yield Label(section_title("tables", False), id="tables-title", classes="section-title",
                                markup=False)
                    yield Label(id="tables-pages", classes="section-pages", markup=False)
                    yield FittedTable(id="tables", cursor_type="row", zebra_stripes=True)
                with Vertical(classes="lobby-section"):
                    yield Label(section_title("games", False), id="games-title", classes="section-title",
                                markup=False)
                    yield Label(id="games-pages", classes="section-pages", markup=False)
                    yield FittedTable(id="games", cursor_type="row", zebra_stripes=True)
            with Vertical(classes="lobby-section", id="players-section"):
                yield Label("Players online", classes="section-title", markup=False)
                yield Label(id="players-pages", classes="section-pages", markup=False)
                yield FittedTable(id="players", cursor_type="row", zebra_stripes=True)
        yield FittedFooter()

    def on_mount(self) -> None:
        self.query_one("#tables", DataTable).add_columns("", "host", "clock", "waiting")
        self.query_one("#players", DataTable).add_columns("name", "status")
        self.refresh_lists(self.aton.lobby)
        self.query_one("#tables", DataTable).focus()

    def on_screen_resume(self) -> None:
        self.follow_our_game()  # (a game of ours may have begun or ended while another screen was on top)

    def follow_our_game(self) -> None:
        """Show the hint and the keys of a game of ours going on, or the usual ones once it is over."""
        runs = self.aton.our_game_runs
        if runs == self.our_game_shown:
            return
        self.our_game_shown = runs
        hint = self.query_one("#lobby-hint", Static)
        hint.update(HINT_IN_GAME if runs else HINT)
        hint.set_class(runs, "-our-game")
        for name in SECTION_TITLES:
            self.query_one(f"#{name}-title", Label).update(section_title(name, runs))
        self.refresh_bindings()  # the keys that start a game are off while it goes on

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < self.WIDE, "-narrow")
        self.call_after_refresh(self._fill_games)  # once the lists have their new widths
        self.call_after_refresh(self._fill_players)

    def refresh_lists(self, lobby: LobbyModel) -> None:
        now = self.aton.wall_clock()
        self._fill("tables", [
            (t["table"], (f"#{t['table']}", _rated_name(t.get("host", ""), t.get("rating")),
                          game_tag(t) + t.get("clock", "") + (" rated" if t.get("rated") is True else ""),
                          _since(now - t.get("since", now))))
            for t in lobby.tables])
        self._fill_games()
        self._fill_players()
        for name, window in lobby.sections.items():
            pages = self.query_one(f"#{name}-pages", Label)
            if (shown := _shown(window)) != (was := str(pages.content)):
                # as wide as its list (lobby.tcss): a new count of the same length takes the same
                # lines and needs no layout, which would lay out and draw the whole screen again —
                # at every login, for every player in the lobby
                pages.update(shown, layout=len(shown) != len(was))
            pages.set_class(window.paged, "-shown")
        state = (bool(lobby.tables), bool(lobby.games), *(w.paged for w in lobby.sections.values()))
        if state != self.footer_state:
            self.footer_state = state
            self.refresh_bindings()

    def _fill_games(self) -> None:
        table = self.query_one("#games", DataTable)
        header, rows = game_columns(self.aton.lobby.games, _room(table, len(self.aton.lobby.games)),
                                    table.cell_padding)
        if tuple(str(column.label) for column in table.columns.values()) != header:
            table.clear(columns=True)
            table.add_columns(*header)
        self._fill("games", rows)

    def _fill_players(self) -> None:
        table = self.query_one("#players", DataTable)
        players = self.aton.lobby.players
        room = _room(table, len(players)) if table.size.width else None  # (None: not laid out yet, ``on_resize``)
        self._fill("players", player_rows(players, room, table.cell_padding))

    def _fill(self, table_id: str, rows: Rows) -> None:
        """Show ``rows`` in a list (nothing to do when it shows them already: most of the lobby's
        updates change one list of the three)."""
        table = self.query_one(f"#{table_id}", DataTable)
        keep = table.cursor_row
        if self.pages_shown.get(table_id) != (offset := self.aton.lobby.sections[table_id].offset):
            self.pages_shown[table_id] = offset
            keep = 0  # another page: from its top
        elif self.rows_shown.get(table_id) == rows and table.row_count == len(rows):
            return
        self.rows_shown[table_id] = rows
        table.clear()
        for column in table.columns.values():  # as wide as the new rows need (Textual only widens them)
            column.content_width = cell_len(str(column.label))
        for key, cells in rows:
            table.add_row(*(Text(cell) for cell in cells), key=str(key))
        if rows:
            table.move_cursor(row=min(keep, len(rows) - 1))

    def _selected(self, table_id: str) -> int | None:
        table = self.query_one(f"#{table_id}", DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return int(key) if key is not None else None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "tables":
            self.action_join()
        elif event.data_table.id == "games":
            self.action_watch()
        elif event.data_table.id == "players":
            self.action_profile()

    def action_join(self) -> None:
        table = self._selected("tables")
        if table is not None:
            self.aton.join_table(table)

    def action_watch(self) -> None:
        game = self._selected("games")
        if game is not None:
            self.aton.watch_game(game)

    def action_profile(self) -> None:
        """The profile of the player selected in the list of players (when it has the focus), else ours."""
        table = self.query_one("#players", DataTable)
        name = None
        if self.focused is table and table.row_count:
            name = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        self.aton.action_profile(None if name == self.aton.player_name else name)

    def _focused_window(self) -> tuple[str, SectionWindow] | None:
        """The lobby section whose list has the focus, and the client's window on it."""
        focused = self.focused
        if isinstance(focused, DataTable) and focused.id in self.aton.lobby.sections:
            return focused.id, self.aton.lobby.sections[focused.id]
        return None

    def action_next_page(self) -> None:
        if (focused := self._focused_window()) is not None:
            name, window = focused
            self.aton.lobby_page(name, window.offset + max(len(window.entries), 1))

    def action_previous_page(self) -> None:
        if (focused := self._focused_window()) is not None:
            name, window = focused
            self.aton.lobby_page(name, max(0, window.offset - max(window.loaded, 1)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("join", "watch") and self.aton.our_game_runs:
            return False  # one game at a time (Enter on a table or a game says so: AtonApp.join_table)
        if action == "join":
            return self.query_one("#tables", DataTable).row_count > 0
        if action == "watch":
            return self.query_one("#games", DataTable).row_count > 0
        if action in ("next_page", "previous_page"):
            focused = self._focused_window()
            if focused is None or not focused[1].paged:
                return False
            window = focused[1]
            if action == "next_page":
                return window.offset + len(window.entries) < (window.total or 0)
            return window.offset > 0
        return True

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()  # the page keys follow the list that has the focus


def section_title(name: str, our_game_runs: bool) -> str:
    """The title of the list ``name`` (a key of ``SECTION_TITLES``), with what Enter does there
    unless a game of ours goes on."""
    title, enter = SECTION_TITLES[name]
    return title if our_game_runs else f"{title} — {enter}"


def _shown(window: SectionWindow) -> str:
    """``51–100 of 812 · ] next, [ previous`` for a list longer than what it shows, else nothing."""
    if not window.paged:
        return ""
    first = window.offset + 1 if window.entries else window.offset
    return f"{first}–{window.offset + len(window.entries)} of {window.total} · ] next, [ previous"


def _map(value: object) -> dict:
    """``value`` if it is a map (an entry's field from the network may be anything), else {}."""
    return value if isinstance(value, dict) else {}


def _rated_name(name: str, rating: object, width: int | None = None) -> str:
    """A name with the rating an entry carries for it (``{rating, provisional}``): "Bea 1623";
    in at most ``width`` columns, the name cut (to no fewer than ``SHORTEST_CUT``), never the rating."""
    shown = rating_of(_map(rating))
    if width is not None:
        name = cut(name, max(width - (cell_len(shown) + 1 if shown else 0), SHORTEST_CUT))
    return f"{name} {shown}" if shown else name


Rows = list[tuple[object, tuple[str, ...]]]  # a list's rows: (key, cells)

#: How the lobby names a game other than Aton, before the clock of its table or game.
GAME_TAGS = {ATLAS_ZEUS: "A&Z "}


def game_tag(entry: dict) -> str:
    """"A&Z " for a table or a game of Atlas & Zeus, nothing for Aton's (or an older server's).
    A table's or a game's ``kind`` names its game (since protocol 1.7)."""
    return GAME_TAGS.get(str(entry.get("kind", m.DEFAULT_GAME)), "")


def game_columns(games: list[dict], width: int, padding: int) -> tuple[tuple[str, ...], Rows]:
    """The header and rows of the games in progress in ``width`` columns (each cell ``padding``
    wide on either side): every player with their rating, the clock with "rated" for a rated
    game.  If they do not fit, the round goes first; then the players' names are cut, the
    narrower column keeping what it needs (up to half the room left), the other the rest."""

    def cells(game: dict, name_widths: tuple[int | None, int | None] = (None, None)) -> tuple[str, ...]:
        ratings = _map(game.get("ratings"))
        red, blue = (_rated_name(str(game.get(seat, "")), ratings.get(seat), room)
                     for seat, room in zip(("red", "blue"), name_widths, strict=True))
        return (f"#{game['game']}", red, blue, str(game.get("round", "")), _scores(game),
                game_tag(game) + str(game.get("clock", "")) + (" rated" if game.get("rated") is True else ""))

    def needed(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[int]:
        return [max(cell_len(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    def without_round(row: tuple[str, ...]) -> tuple[str, ...]:
        return row[:ROUND] + row[ROUND + 1:]

    header, rows = GAME_HEADER, [cells(game) for game in games]
    if sum(needed(header, rows)) + 2 * padding * len(header) > width:
        header, rows = without_round(header), [without_round(row) for row in rows]
        widths = needed(header, rows)
        spare = width - 2 * padding * len(header) - sum(w for i, w in enumerate(widths) if i not in NAMES)
        red, blue = (widths[i] for i in NAMES)
        if red + blue > spare:
            narrower = min(red, blue, spare // 2)
            rooms = (narrower, spare - narrower) if red <= blue else (spare - narrower, narrower)
            rows = [without_round(cells(game, rooms)) for game in games]
    return header, [(game["game"], row) for game, row in zip(games, rows, strict=True)]


def _room(table: DataTable, rows: int) -> int:
    """The columns a list has for ``rows`` rows: its width, less a scroll bar if they need one."""
    scrolls = rows > table.size.height - 1  # (the header's line)
    return table.size.width - (table.styles.scrollbar_size_vertical if scrolls else 0)


def player_rows(players: list[dict], width: int | None, padding: int) -> Rows:
    """The rows of the players online in ``width`` columns (each cell ``padding`` wide on either
    side; None: as wide as they are): each name with its rating, and what the player does.  If
    they do not fit, what they do is said in a word ("lobby"); if they still do not, the names
    are cut, never the ratings."""
    def doing(words: dict[str, str]) -> list[str]:
        return [words.get(p.get("status", ""), str(p.get("status", ""))) for p in players]

    names = [p["name"] + (" (bot)" if p.get("kind") == "bot" else "") for p in players]
    ratings = [_usual_rating(p) for p in players]
    shown = [_rated_name(name, rating) for name, rating in zip(names, ratings, strict=True)]
    statuses = doing(STATUS_WORDS)
    if width is not None and players:
        widest = max(map(cell_len, shown))
        room = width - 4 * padding - max(map(cell_len, statuses))
        if widest > room:
            statuses = doing(SHORT_STATUS_WORDS)
            room = width - 4 * padding - max(map(cell_len, statuses))
        if widest > room:
            shown = [_rated_name(name, rating, room) for name, rating in zip(names, ratings, strict=True)]
    return [(p["name"], (name, status)) for p, name, status in zip(players, shown, statuses, strict=True)]


def _usual_rating(player: dict) -> dict | None:
    """The rating of the clock a player has played most rated games at (``normal`` when none
    yet): the one a glance at the lobby should give (None: a guest)."""
    ratings = {clock: _map(rating) for clock, rating in _map(player.get("ratings")).items()}
    if not ratings:
        return None
    return ratings[max(ratings, key=lambda clock: (_games(ratings[clock]), clock == "normal"))]


def _games(rating: dict) -> int:
    games = rating.get("games")
    return games if type(games) is int else 0


def _since(seconds: float) -> str:
    minutes = int(seconds // 60)
    return f"{minutes} min" if minutes else "just now"


def _scores(game: dict) -> str:
    scores = game.get("scores") or {}
    return f"{scores.get('red', 0)}–{scores.get('blue', 0)}"
