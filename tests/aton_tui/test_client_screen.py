"""The client's screens as a terminal sees them: a first frame drawn once, not drawn and thrown away,
and what changed during a batch of updates drawn when it ends.  The apps draw through the SSH
sessions' own driver on a socket pair, and the test reads the other end as the gateway does."""

from __future__ import annotations

import asyncio
import functools
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import textual.screen
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from aton_tui.channel_driver import ChannelDriver
from aton_tui.screens.client_screen import ClientScreen, DrawnAfterBatches

SIZE = (60, 12)


class Words(Screen):
    def compose(self) -> ComposeResult:
        yield Static("first words", id="words")


class ClientWords(ClientScreen, Words):
    """The same screen as the client's screens are."""


class Shows(App):
    """Pushes its screen as it mounts, as the client pushes its lobby; counts the frames it drew
    and threw away (drawn while its updates were batched)."""

    def __init__(self, screen: type[Screen]) -> None:
        super().__init__()
        self.first_screen = screen
        self.thrown_away = 0

    def on_mount(self) -> None:
        self.push_screen(self.first_screen())

    def _display(self, screen: Screen, renderable: object) -> None:
        if renderable is not None and self._batch_count:
            self.thrown_away += 1
        super()._display(screen, renderable)  # type: ignore[arg-type]


class ClientShows(DrawnAfterBatches, Shows):
    """The same app as the client's apps are."""


class Terminal:
    """The gateway's end of an app's socket: what the app has drawn so far."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.output = bytearray()

    async def shows(self, words: str, timeout: float = 5.0) -> bool:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while words.encode() not in self.output and loop.time() < end:
            try:
                self.output += self.sock.recv(1 << 16)
            except BlockingIOError:
                await asyncio.sleep(0.01)
        return words.encode() in self.output


@asynccontextmanager
async def drawn(app: App) -> AsyncIterator[Terminal]:
    app_end, ours = socket.socketpair()
    ours.setblocking(False)
    app.driver_class = functools.partial(  # type: ignore[assignment]  # (as the app host binds it)
        ChannelDriver, fd=app_end.fileno(), pending_output_max=1 << 20, terminal_size=lambda: SIZE,
        on_overflow=lambda: None)
    task = asyncio.create_task(app.run_async())
    try:
        yield Terminal(ours)
    finally:
        app.exit()
        await task
        ours.close()
        app_end.close()


async def test_textuals_own_screen_draws_a_first_frame_and_throws_it_away():
    """Why the client's screens differ (if Textual stops doing it, ``ClientScreen`` can stop too)."""
    app = Shows(Words)
    async with drawn(app) as terminal:
        assert await terminal.shows("first words")
    assert app.thrown_away >= 1


async def test_a_client_screen_is_first_drawn_once_and_shown():
    app = ClientShows(ClientWords)
    async with drawn(app) as terminal:
        assert await terminal.shows("first words")
    assert app.thrown_away == 0


async def test_what_changes_in_a_batch_of_updates_is_drawn_when_the_batch_ends():
    app = ClientShows(ClientWords)
    async with drawn(app) as terminal:
        assert await terminal.shows("first words")
        with app.batch_update():  # (as a widget recomposed in a batch awaits its new children's mounting)
            app.screen.query_one("#words", Static).update("the second words, longer than the first")
            await asyncio.sleep(0.2)  # the screen lays itself out meanwhile, and would draw
        assert await terminal.shows("the second words, longer than the first")
    assert app.thrown_away == 0


async def test_a_client_screen_draws_its_first_frame_at_once_not_at_its_update_timer_s_tick(monkeypatch):
    """Textual draws what changed at its screen's update timer's next tick (60 a second): a first
    frame drawn then waits up to a tick with nothing else to do, at every login.  With the tick an
    hour away, Textual's own screen shows nothing; the client's screen draws its first frame at once."""
    monkeypatch.setattr(textual.screen, "UPDATE_PERIOD", 3600.0)
    app = Shows(Words)
    async with drawn(app) as terminal:
        assert not await terminal.shows("first words", timeout=1.0)
    app = ClientShows(ClientWords)
    async with drawn(app) as terminal:
        assert await terminal.shows("first words")


async def test_a_client_screen_is_resumed_once_when_first_shown():
    """Textual calls each class's own handler along the MRO: ``ClientScreen``'s must not call
    ``Screen``'s again (it would count the screen resumed twice and refresh it twice)."""
    app = ClientShows(ClientWords)
    async with drawn(app) as terminal:
        assert await terminal.shows("first words")
        assert app.screen.stack_updates == 1
