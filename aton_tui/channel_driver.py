"""A Textual driver for one SSH session in an app host: the terminal is a stream socket.

In an app host (``aton_tui.app_host``) many sessions' apps share one process and one
event loop, so a session cannot have the process's own terminal (what Textual's
``LinuxDriver`` drives, with threads and process-wide signal handlers).  This driver
drives a non-blocking socket instead, from the event loop, without threads: the SSH
gateway writes what the player types into the other end and sends on to the player
what the app writes.  The terminal's size comes from the gateway (``resize``), not
from ``SIGWINCH``.

What it writes to start and to stop is what ``LinuxDriver`` writes to a terminal
(the alternate screen, mouse reporting, bracketed paste, focus events, the kitty
keyboard protocol, and the synchronised-output query), so that a player sees the same
either way; and each newline goes out as CR LF, as a pseudo-terminal's line discipline
sends it.  Output a slow player has not taken yet waits here, up to
``pending_output_max`` bytes; more ends the session (``on_overflow``).

Keys are parsed by ``SessionParser``: Textual's ``XTermParser`` without its parse
cache, which is shared by every parser of the process and keeps the key events it
returned, with the app they were sent to, for up to 1,024 sequences: in an app host
it would hand one session's key event objects to another and keep dead apps alive.
"""

from __future__ import annotations

import asyncio
import os
from codecs import getincrementaldecoder
from collections.abc import Callable
from typing import Any

from textual import constants, events
from textual._xterm_parser import XTermParser
from textual.driver import Driver
from textual.geometry import Size
from textual.message import Message

from protocol.pending_writes import PendingWrites

READ_CHUNK = 4096
TICK = 0.1  # seconds: how soon a lone Escape in the input is taken for the Escape key

START_SEQUENCES = (
    "\x1b[?1049h"  # the alternate screen
    "\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h"  # mouse reporting (any event, SGR)
    "\x1b[?25l"  # the cursor hidden
    "\x1b[?1004h"  # focus events
)
KITTY_KEYBOARD = "\x1b[>25u"  # disambiguate escapes, report all keys and their text (as LinuxDriver)
AFTER_START = (
    "\x1b[?2026$p"  # does the terminal support synchronised output?
    "\x1b[?2004h"  # bracketed paste
    "\x1b[?7l"  # no line wrap
)
STOP_SEQUENCES = (
    "\x1b[?2004l"  # no bracketed paste
    "\x1b[?7h"  # line wrap
    "\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l"  # no mouse reporting
    "\x1b[<u"  # the kitty keyboard protocol off (before leaving the alternate screen)
    "\x1b[?1049l"  # the main screen
    "\x1b[?25h"  # the cursor shown
    "\x1b[?1004l"  # no focus events
)


class SessionParser(XTermParser):
    """Textual's key parser without its process-wide cache (see the module's docstring)."""

    #: the method itself, without its ``functools.lru_cache``
    _parse_extended_key = XTermParser._parse_extended_key.__wrapped__  # type: ignore[assignment]


class ChannelDriver(Driver):
    """Drives one app over the stream socket ``fd`` (owned by the caller, who closes it)."""

    def __init__(self, app: Any, *, debug: bool = False, mouse: bool = True, size: tuple[int, int] | None = None,
                 fd: int, terminal_size: Callable[[], tuple[int, int]], pending_output_max: int,
                 on_overflow: Callable[[], None], on_first_frame: Callable[[], None] | None = None) -> None:
        """``terminal_size``: the player's terminal's size as the gateway last said it; ``on_first_frame``:
        called once the app's first frame is written."""
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self.fd = fd
        self.terminal_size = terminal_size
        self.pending_output_max = pending_output_max
        self.on_overflow = on_overflow
        self.output = PendingWrites(fd)  # the screen, as the gateway takes it
        self.reading = False
        self.parser = SessionParser()
        self.decode = getincrementaldecoder("utf-8")(errors="replace").decode
        self.tick_timer: asyncio.TimerHandle | None = None
        self.on_first_frame = on_first_frame

    # ------------------------------------------------------------------ the terminal's size

    def _get_terminal_size(self) -> tuple[int, int]:
        return self._size or self.terminal_size()

    def resize(self, columns: int, rows: int) -> None:
        """The player's terminal has a new size (the gateway says so)."""
        self._size = (columns, rows)
        size = Size(columns, rows)
        self.send_message(events.Resize(size, size))

    def send_message(self, message: Message) -> None:
        """To the app, from the event loop's own thread (no thread-safe detour needed)."""
        self._app.post_message(message)

    # ------------------------------------------------------------------ application mode

    def start_application_mode(self) -> None:
        # The size, without a Resize event: Textual sends the app one of this size as it starts, and
        # one more, of the same size, would have every screen laid out and drawn again.
        self._size = self._get_terminal_size()
        self.write(START_SEQUENCES)
        if not constants.DISABLE_KITTY_KEY:
            self.write(KITTY_KEYBOARD)
        self.write(AFTER_START)
        self.reading = True
        self._loop.add_reader(self.fd, self._readable)

    def disable_input(self) -> None:
        if self.reading:
            self.reading = False
            self._loop.remove_reader(self.fd)
        if self.tick_timer is not None:
            self.tick_timer.cancel()
            self.tick_timer = None

    def stop_application_mode(self) -> None:
        self.disable_input()
        self.write(STOP_SEQUENCES)

    def close(self) -> None:
        """No more output: what is still pending is given up (the session is ending)."""
        self.disable_input()
        self.output.discard()

    # ------------------------------------------------------------------ output

    def write(self, data: str) -> None:
        # a terminal's line discipline would turn each newline into CR LF (ONLCR): Textual counts on it
        self.output.write(data.replace("\n", "\r\n").encode("utf-8", errors="replace"))
        if len(self.output.pending) > self.pending_output_max:
            self.close()
            self.on_overflow()

    def flush(self) -> None:
        """Textual calls it after writing each frame: the first one tells ``on_first_frame``."""
        if self.on_first_frame is not None:
            on_first_frame, self.on_first_frame = self.on_first_frame, None
            on_first_frame()

    @property
    def flushed(self) -> bool:
        return not self.output.pending

    # ------------------------------------------------------------------ input

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # the gateway closed the session's socket: the player is gone
            self.disable_input()
            self._app.exit()
            return
        for event in self.parser.feed(self.decode(data)):
            self.process_message(event)
        self._arm_tick()

    def _arm_tick(self) -> None:
        if self.tick_timer is None and self.reading:
            self.tick_timer = self._loop.call_later(TICK, self._tick)

    def _tick(self) -> None:
        """What the parser held back (a lone Escape) is a key once no more came in time."""
        self.tick_timer = None
        for event in self.parser.tick():
            self.process_message(event)
        if self.parser._timeout_time is not None:
            self._arm_tick()
