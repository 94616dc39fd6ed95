"""The lists and the footer of keys as the client fits them: rows never left cut short, keys
built once and switched on and off in place."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from aton_tui.widgets.fitted_footer import FittedFooter
from aton_tui.widgets.fitted_table import FittedTable


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


class Keys(App):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "account", "Account"), Binding("h", "help", "Help"), Binding("x", "extra", "Extra")]

    def __init__(self) -> None:
        super().__init__()
        self.connected = False
        self.extra = False

    def compose(self) -> ComposeResult:
        yield FittedFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "account":
            return self.connected or None  # shown dimmed until connected
        if action == "extra":
            return self.extra
        return True


def footer_keys(app: App) -> list[tuple[str, bool]]:
    return [(key.description, key.has_class("-disabled")) for key in app.query(FooterKey)]


async def test_a_key_switched_on_is_the_same_key_undimmed_and_a_new_key_rebuilds_the_footer():
    app = Keys()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        assert footer_keys(app) == [("Account", True), ("Help", False)]
        built = list(app.query(FooterKey))
        app.connected = True
        app.refresh_bindings()
        await pilot.pause()
        assert footer_keys(app) == [("Account", False), ("Help", False)]
        assert list(app.query(FooterKey)) == built
        assert not app.query(FooterKey).first()._disabled  # (a click on it acts)
        app.extra = True
        app.refresh_bindings()
        await pilot.pause()
        assert footer_keys(app) == [("Account", False), ("Help", False), ("Extra", False)]


class Spare(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "first", "A long first key"), Binding("b", "second", "A long second key"),
        Binding("c", "third", "A long third key"), Binding("d", "fourth", "A long fourth key")]
    FOOTER_SPARE = ("second", "fourth")  # (the screen's keys that may leave the footer, least needed first)

    def compose(self) -> ComposeResult:
        yield FittedFooter()


class SpareKeys(App):
    def on_mount(self) -> None:
        self.push_screen(Spare())


def shown_keys(app: App) -> list[str]:
    return [key.description for key in app.screen.query(FooterKey) if key.display]


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
