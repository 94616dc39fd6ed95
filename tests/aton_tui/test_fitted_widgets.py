"""The lists and the footer of keys as the client fits them: rows never left cut short; keys
dimmed while off, pressed by a click, lit under the mouse, and the spare ones leaving a narrow
footer."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.style import Style
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Static

from aton_tui.widgets.fitted_footer import FittedFooter
from aton_tui.widgets.fitted_table import FittedTable

#: the client's stylesheet of what every screen has, the footer among them
APP_STYLES = Path(__file__).parents[2] / "aton_tui" / "styles" / "app.tcss"


class Listing(App):
    CSS = "#list { width: 60; height: 6; }"  # (its size its own, as the lobby's lists: not the rows')

    def compose(self) -> ComposeResult:
        yield FittedTable(id="list")
        yield Static(id="other")


async def test_a_row_drawn_before_its_table_has_measured_it_is_drawn_again_in_full():
    app = Listing()
    async with app.run_test(size=(80, 10)) as pilot:
        table = app.query_one(FittedTable)
        table.add_columns("name", "status")
        await pilot.pause()
        table.add_row("Ada 1340", "in the lobby")
        table.render_line(1)  # the screen drawn before the table was idle: the row at the headers' widths
        await pilot.pause()
        assert "Ada 1340  in the lobby" in table.render_line(1).text


CARD = Binding.Group("Card", compact=True)


class Keys(App):
    CSS_PATH = APP_STYLES
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "account", "Account", tooltip="your account"), Binding("h", "help", "Help"),
        Binding("x", "extra", "Extra"),
        *(Binding(str(n), f"card({n})", "Card", group=CARD, tooltip=f"card {n}") for n in (1, 2))]

    def __init__(self) -> None:
        super().__init__()
        self.connected = False
        self.extra = False
        self.done: list[str] = []

    def compose(self) -> ComposeResult:
        yield FittedFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "account":
            return self.connected or None  # shown dimmed until connected
        if action == "extra":
            return self.extra
        return True

    def action_account(self) -> None:
        self.done.append("account")

    def action_extra(self) -> None:
        self.done.append("extra")

    def action_card(self, n: int) -> None:
        self.done.append(f"card {n}")


def style_at(line: Strip, column: int) -> Style:
    style = line.crop(column, column + 1)._segments[0].style
    assert style is not None
    return style


def footer_keys(app: App) -> list[tuple[str, bool]]:
    """The keys on the footer's line, each with whether it is drawn dimmed."""
    footer = app.query_one(FittedFooter)
    line = footer.render_line(0)
    text = line.text
    keys = []
    for key in footer.shown():
        column = text.index(key.display if key.group is not None else f"{key.display} {key.description}")
        keys.append((key.description, bool(style_at(line, column).dim)))
    return keys


def column_of(app: App, words: str) -> int:
    """Where ``words`` begin in the footer's line (its content: the padding's column not counted)."""
    return app.query_one(FittedFooter).render_line(0).text.index(words)


def at(app: App, words: str) -> tuple[int, int]:
    """The offset of ``words`` in the footer widget, for the mouse (its padding's column counted)."""
    return column_of(app, words) + 1, 0


async def test_a_key_that_is_off_is_dimmed_and_a_click_on_a_key_presses_it():
    app = Keys()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        assert app.query_one(FittedFooter).render_line(0).text.startswith("a Account h Help 12 Card ")
        assert footer_keys(app) == [("Account", True), ("Help", False), ("Card", False), ("Card", False)]
        await pilot.click(FittedFooter, offset=at(app, "Account"))
        assert app.done == []  # (off: the terminal's bell instead)
        app.connected = True
        app.extra = True
        app.refresh_bindings()
        await pilot.pause()
        assert footer_keys(app) == [("Account", False), ("Help", False), ("Extra", False), ("Card", False),
                                    ("Card", False)]
        for words in ("Account", "Extra", "2"):
            await pilot.click(FittedFooter, offset=at(app, words))
        await pilot.pause()
        assert app.done == ["account", "extra", "card 2"]


async def test_the_key_under_the_mouse_is_lit_and_its_tooltip_shown():
    app = Keys()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        footer = app.query_one(FittedFooter)
        background = style_at(footer.render_line(0), 0).bgcolor
        for words, action, tooltip in (("Account", "account", "your account"), ("2", "card(2)", "card 2")):
            await pilot.hover(FittedFooter, offset=at(app, words))
            await pilot.pause()
            assert footer.lit is not None and footer.lit.action == action
            assert footer.tooltip == tooltip
            column = column_of(app, words)
            assert style_at(footer.render_line(0), column).bgcolor != background
        await pilot.hover(FittedFooter, offset=(70, 0))  # past the keys
        await pilot.pause()
        assert footer.lit is None and footer.tooltip is None


class Spare(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "first", "A long first key"), Binding("b", "second", "A long second key"),
        Binding("c", "third", "A long third key"), Binding("d", "fourth", "A long fourth key")]
    FOOTER_SPARE = ("second", "fourth")  # (the screen's keys that may leave the footer, least needed first)

    def compose(self) -> ComposeResult:
        yield FittedFooter()


class SpareKeys(App):
    CSS_PATH = APP_STYLES

    def on_mount(self) -> None:
        self.push_screen(Spare())


def shown_keys(app: App) -> list[str]:
    return [key.description for key in app.screen.query_one(FittedFooter).shown()]


async def test_spare_keys_leave_a_narrow_footer_in_their_order_and_come_back_when_it_widens():
    app = SpareKeys()
    async with app.run_test(size=(120, 10)) as pilot:
        await pilot.pause()
        every = ["A long first key", "A long second key", "A long third key", "A long fourth key"]
        assert shown_keys(app) == every
        for width, shown in ((60, every[:1] + every[2:]), (45, [every[0], every[2]]), (120, every)):
            await pilot.resize_terminal(width, 10)
            await pilot.pause()
            assert shown_keys(app) == shown, width
            line = app.screen.query_one(FittedFooter).render_line(0).text
            letters = dict(zip(every, "abcd", strict=True))
            assert line.rstrip() == " ".join(f"{letters[key]} {key}" for key in shown), width
