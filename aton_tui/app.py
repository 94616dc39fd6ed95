"""The Textual application: one session with a server, the lobby, and the game on top of it.

The app owns the connection (``Session``), the lobby's and the current game's
models, and routes every server frame to them; the screens draw the models and
send requests back through ``send``/``commit``.  With ``Launch.serve`` set it
also runs the server itself (``aton`` and ``aton host``).
"""

from __future__ import annotations

import ipaddress
import random
import ssl
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.events import Resize
from textual.geometry import Size
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from atlas_zeus.errors import RecordError as ZeusRecordError
from atlas_zeus.record import FORMAT as ZEUS_RECORD
from atlas_zeus.record import GameRecord as ZeusRecord
from aton.errors import RecordError
from aton.players import Player
from aton.record import GameRecord
from bots.analysis import GameAnalysis, record_digest, save_beside
from protocol import messages as m
from protocol.account_keys import AccountKey, Proof, key_file_name
from protocol.errors import ErrorCode
from protocol.events import RematchOffered, RematchStarted
from protocol.fairness import Verdict
from protocol.game_frames import (
    AnyStateFrame,
    AnyUpdateFrame,
    GameStateFrame,
    UpdateFrame,
    ZeusStateFrame,
    ZeusUpdateFrame,
)
from protocol.names import name_key
from protocol.saved_games import SavedGames
from protocol.saved_sessions import SavedSessions, server_key
from protocol.transport import Endpoint
from server.clock import Clock, LoopClock

from .atlas_zeus.replay import ZeusReplayScreen
from .atlas_zeus.replay_model import ZeusReplayModel
from .atlas_zeus.screen import AtlasZeusScreen
from .commands import MACHINE_ACTIONS, AtonCommands
from .discovery import Advertiser, DiscoveryUnavailable, Finder
from .guided_game import GuidedGame
from .lesson import COME_BACK, LESSON_OVER
from .lobby_model import LobbyModel
from .local_server import LocalServer
from .model import GameModel, ZeusModel
from .rating_choices import GAME_TITLES, PLAY, bot_level_choice, guest_note, own_ratings, rated_choice, rated_game
from .record_file import record_filename, save_record
from .replay_model import Perspective, ReplayModel
from .screens.account import AccountScreen
from .screens.client_screen import DrawnAfterBatches
from .screens.dialogs import Choice, Choices, Confirm, Prompt
from .screens.end import FROM_THE_LOBBY, EndScreen, offer_sentence
from .screens.game import GameScreen
from .screens.help import ATLAS_ZEUS, ATON, AZ_RULES_PAGE, HELP_PAGE, RULES_PAGE, HelpScreen
from .screens.leaderboard import LeaderboardScreen
from .screens.learn import FINISHED, LearnScreen, LessonOffer
from .screens.lobby import ACCOUNT_KEY, GAME_GOES_ON, LobbyScreen
from .screens.profile import ProfileScreen
from .screens.replay import ReplayScreen
from .screens.servers import ServerSource, ServersScreen
from .screenshots import save_svg, screenshot_name, screenshots_dir
from .session import RETRY_DELAYS, NotConnected, Received, ServerConnection, Session, Status, reason_of
from .settings import Settings
from .sizes import ROOMY_WIDTH, too_small
from .themes import DARK_BOARD, STYLESHEETS, use_themes
from .widgets.game_log import GameLog
from .widgets.notice import Notice, NoticeText
from .widgets.too_small import TooSmall

if TYPE_CHECKING:
    from textual.screen import Screen

#: Textual's own key, listed on the help screen
PALETTE_KEY = Binding("ctrl+p", "command_palette", "Commands", tooltip="the command palette: every main action")
#: The key that tries again once the client gave up reaching its server.
RETRY_KEY = Binding("r", "retry", "Retry", show=False, tooltip="try again to reach the server, once it gave up")
#: xterm's title stack (tmux and most terminals know it): keep the terminal's title, give it back on leaving
SAVE_TITLE, RESTORE_TITLE = "\x1b[22;2t", "\x1b[23;2t"
#: Seconds between a lobby update and its drawing: the updates that come meanwhile (on a
#: busy server, every login and every game's new score) are drawn together.
LOBBY_REDRAW_DELAY = 0.2
#: Seconds more for each app drawn by the same process (an app host): a lobby's redraw takes an
#: app some 10–15 ms (``bench/lobby_churn.py``), and while hundreds of players log in or play,
#: every app idle in its lobby would redraw at every update — the process's whole core and more,
#: the players' keys waiting behind it. Spaced so (each app waits between half of it and all of it,
#: so that apps told the same update at once draw it at different moments), the lobbies take about
#: a third of a core however many apps share it. Open tables are drawn without this wait.
LOBBY_REDRAW_SHARE = 0.05


def lobby_redraw_delay(apps: int) -> float:
    """The longest wait before drawing the lobby's players and games in each of ``apps`` apps of one process."""
    return max(LOBBY_REDRAW_DELAY, apps * LOBBY_REDRAW_SHARE)


#: Seconds a notice about our account (a name taken, a key not taken) stays on the screen.
ACCOUNT_NOTICE_SECONDS = 60
#: The actions that lead away from the lesson (to another game, the lobby): off while it is open.
LEADS_ELSEWHERE = frozenset({"play_bot", "quick_match", "new_table", "join_invite", "lobby", "back_to_game",
                             "learn"})


@dataclass(frozen=True)
class Launch:
    """How this run starts: which server, whether we serve it, what to do once connected."""

    name: str
    host: str = "127.0.0.1"
    port: int = 0
    tls: ssl.SSLContext | None = None  # connect through TLS (``aton connect tls://…``) with this context
    serve: str | None = None  # run the server in-process on this address ("127.0.0.1", "0.0.0.0")
    db_path: str | None = None
    #: "bot": play a bot at once; "table": open a table; "lobby": just look; "learn": the lesson
    #: alone, with no server (``aton learn``: the app ends with it)
    start: str = "lobby"
    level: str = "normal"
    clock: str = "relaxed"
    game: str = m.DEFAULT_GAME  # the game of the bot's game or the table opened at start (or "atlas-zeus")
    lan_address: str | None = None  # shown to the other player in host mode
    resume: str | None = None  # a session token to take back (the SSH gateway hands one over)
    #: running on a server for a remote player (SSH, web): no settings, tokens or keys of theirs kept here
    #: (only their unfinished games, where the gateway says: ``protocol.handoff.KEPT_GAMES_VARIABLE``)
    hosted: bool = False
    #: ``aton connect`` with no address: first the servers found on the LAN, one to choose
    discover: bool = False
    #: where to look for servers on the LAN: an address of this machine (None: every network)
    discover_via: str | None = None
    #: the player gave ``name`` (``--name``): if the account of our key has another name, say why
    name_asked: bool = False

    @property
    def lan_interfaces(self) -> list[str] | None:
        """Where ``aton host`` advertises its server: the network it serves (None: every one)."""
        if self.serve is None or ipaddress.ip_address(self.serve).is_unspecified:
            return None
        return [self.serve]
    #: what proves the player: the gateway's assertion and its session key (None: our own
    #: key for the server, from ``AtonApp.keys``)
    proof: Proof | None = None

    @property
    def hosting(self) -> bool:
        """``aton host``: our own server, for another player to join."""
        return self.serve is not None and self.start == "table"

    @property
    def loopback_only(self) -> bool:
        """The server we run listens on a loopback address: only this machine reaches it."""
        return self.serve is not None and ipaddress.ip_address(self.serve).is_loopback

    @property
    def server_host(self) -> str:
        """Where our connection goes: ``host``, or the address of the server we run (through
        the loopback when it listens on every address)."""
        if self.serve is None:
            return self.host
        address = ipaddress.ip_address(self.serve)
        if address.is_unspecified:
            return "127.0.0.1" if address.version == 4 else "::1"
        return self.serve


class Frame(Message):
    """A frame from the server as the session decoded it, delivered on the app's message queue."""

    def __init__(self, frame: Received) -> None:
        super().__init__()
        self.frame = frame


class StatusChanged(Message):
    def __init__(self, status: Status) -> None:
        super().__init__()
        self.status = status


def table_notice(launch: Launch, frame: m.TableCreated) -> NoticeText:
    """What the lobby says of the table we opened: for ``aton host``, how the other player
    reaches it, in lines that an 80-column lobby shows unbroken (a command is never cut), and
    a short form in three lines that a 60-column lobby shows unbroken (``sizes.MINIMUM``), so
    that the lists below keep a row each at the smallest size (the footer names Esc)."""
    table = f"table #{frame.table}"
    if launch.hosting:
        address = f"{launch.lan_address}:{launch.port}"
        if launch.loopback_only:
            how = (f"You host {table} ({frame.clock} clock); only this machine reaches it.\n"
                   f"The other player first opens a tunnel to it:\n"
                   f"   ssh -L {launch.port}:{address} you@this-machine\n"
                   f"then runs   aton connect {address}   and joins {table}.\n")
            short = (f"You host {table} (this machine only). To join:\n"
                     f"  ssh -L {launch.port}:{address} you@this-machine\n"
                     f"  aton connect {address}")
        else:
            how = (f"You host {table} ({frame.clock} clock) on this machine.\n"
                   f"The other player runs   aton connect   and picks you from the list,\n"
                   f"or runs   aton connect {address}  , and joins {table}.\n")
            short = (f"You host {table} on this machine. To join:\n"
                     f"  aton connect  and pick you from the list, or\n"
                     f"  aton connect {address}")
        return NoticeText(how + "The game starts when they sit down.  Esc closes the table.", short)
    if frame.invite:
        return NoticeText(f"Your private {table} is open.  Invite code: {frame.invite}  "
                          f"(the other player presses i in the lobby).  Esc closes it.")
    return NoticeText(f"Your {table} ({frame.clock} clock) waits for an opponent.  Esc closes it.")


class AtonApp(DrawnAfterBatches, App):
    TITLE = "Aton"
    CSS_PATH = STYLESHEETS
    COMMANDS = App.COMMANDS | {AtonCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-slim"), (ROOMY_WIDTH, "-roomy")]  # every screen's class for its width
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True, tooltip="leave Aton"),
        Binding("f2", "toggle_theme", "Light/dark", show=False, tooltip="switch between the light and dark theme"),
        RETRY_KEY,
        Binding("ctrl+g", "toggle_bell", "Bell", show=False,
                tooltip="turn the bell on or off (your turn, a low clock, a chat line, a rematch offer)"),
    ]

    def __init__(self, launch: Launch, settings: Settings | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time,
                 sessions: SavedSessions | None = None, pacing: Clock | None = None,
                 retry_delays: tuple[float, ...] = RETRY_DELAYS, keys: Path | None = None,
                 kept_games: Path | None = None) -> None:
        super().__init__()
        self.launch = launch
        self.retry_delays = retry_delays  # the waits between attempts to reach the server
        self.settings = settings or Settings()
        self.sessions = sessions  # where session tokens are kept between runs (None: not kept)
        self.keys = keys  # where our account keys are kept, one per server (None: a new key for this run only)
        #: the directory of what we must remember of unfinished games (``protocol.saved_games``; None: memory only)
        self.kept_games = kept_games
        self.proof: Proof | None = None  # what proves our account to the server, once we connect
        self.account_info: m.AccountInfo | None = None  # what the server last said of our account
        self.clock = clock
        self.wall_clock = wall_clock
        self.pacing = pacing or LoopClock()  # the timers of the game's playback (tests drive them by hand)
        self.lobby = LobbyModel()
        self.model: GameModel | ZeusModel | None = None
        self.clock_was_low = False  # our clock was low at the last look (the bell rang for it)
        self.session: ServerConnection | None = None
        self.local = LocalServer(launch.serve, launch.port, launch.db_path) if launch.serve else None
        self.status = Status("connecting")
        self.started = False
        self.syncing = False  # a sync was asked for and its game_state has not come yet
        self.lobby_notice = NoticeText()  # what the lobby says we wait for
        #: get_record request id -> where to save the record (None: to review it in the replay viewer)
        self.record_paths: dict[int, Path | None] = {}
        self.review_seats: dict[int, str] = {}  # game -> the seat to review it from (a profile's game)
        self.profile_requests: dict[int, ProfileScreen] = {}  # get_profile request id -> its screen
        self.leaderboard_requests: dict[int, LeaderboardScreen] = {}  # get_leaderboard request id -> its screen
        #: the analyses made in the replay viewer this session, by their record's digest: a
        #: reviewed game has no file to keep one beside until its record is saved
        self.analyses: dict[str, GameAnalysis] = {}
        self.banner_text = ""  # connection trouble, shown on every screen
        self.server_closed = ""  # why the server said it closed (its bye), until we are connected again
        self.lobby_heading = ""  # the lobby's top bar, when it must not say whose lobby it is
        self._lobby_redraw: Timer | None = None  # lobby updates are drawn together, after a moment
        self._lobby_redraw_soon = False  # whether that moment is LOBBY_REDRAW_DELAY (else lobby_redraw_delay)
        #: the longest wait before the lobby's players and games are drawn (an app host lengthens it)
        self.lobby_redraw_delay = LOBBY_REDRAW_DELAY
        #: what to wait for before connecting (an app host: the other players' first frames, ``start_turns``)
        self.connect_after: Callable[[], Awaitable[object]] | None = None
        self.terminal_title = ""  # what the terminal's title bar says (show_title)
        self.pauses_asked: set[int] = set()  # the games whose clock we asked the server to stop
        self.muted: frozenset[str] = frozenset()  # the players whose chat lines the server hides from us
        self.reports: dict[int, str] = {}  # request id of a report not yet answered -> whom it reports
        self.advertiser: Advertiser | None = None  # ``aton host``'s server, said on the LAN

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(DARK_BOARD)

    # ------------------------------------------------------------------ life cycle

    def on_mount(self) -> None:
        use_themes(self, self.settings.theme)
        self.theme_changed_signal.subscribe(self, self._keep_theme)
        self.screen_change_signal.subscribe(self, self._guard_size)
        self.set_interval(1.0, self._watch_our_clock)
        if self.launch.discover:
            self.push_screen(ServersScreen(self.lan_finder()), self._server_chosen)
            return
        self._open_lobby()

    def lan_finder(self) -> ServerSource:
        """What looks for servers on the LAN (``Launch.discover_via``: on one network only)."""
        return Finder(interfaces=None if self.launch.discover_via is None else [self.launch.discover_via])

    def _server_chosen(self, chosen: tuple[str, int] | None) -> None:
        """``aton connect`` with no address: to the server chosen in the list (None: leave)."""
        if chosen is None:
            self.exit()
            return
        host, port = chosen
        self.launch = replace(self.launch, host=host, port=port, discover=False)
        self._open_lobby()

    def _open_lobby(self) -> None:
        self.push_screen(LobbyScreen(self._where()))
        self.show_title("Aton · lobby")
        if self.launch.start == "learn":
            self.action_learn()
            return
        self.run_worker(self._run(), name="session", exit_on_error=False)

    def on_resize(self, event: Resize) -> None:
        self._guard_size(self.screen, event.size)

    def _guard_size(self, screen: Screen, size: Size | None = None) -> None:
        """On a terminal smaller than the minimum, the screen on top gives way to a notice saying so."""
        size = size or self.size
        small = too_small(size)
        notices = screen.query_children(TooSmall)
        if notices:
            notices.first().show(size)
        elif small:
            screen.mount(TooSmall(size))
        screen.set_class(small, "-too-small")

    def _where(self) -> str:
        if self.launch.hosted:  # over SSH: the address is the gateway's own loopback, not the player's business
            return "this server"
        if self.launch.hosting:
            return f"this machine ({self._hosted_address()})"
        if self.launch.serve:
            return "this machine"
        return str(Endpoint(self.launch.host, self.launch.port, self.launch.tls is not None))

    def _hosted_address(self) -> str:
        """Where the other player finds the server we host."""
        address = f"{self.launch.lan_address}:{self.launch.port}"
        return f"{address}, this machine only" if self.launch.loopback_only else f"LAN {address}"

    async def _run(self) -> None:
        port = self.launch.port
        if self.local is not None:
            try:
                await self.local.start()
            except OSError as exc:
                self._not_serving(f"cannot serve on port {port}: {reason_of(exc)}")
                return
            port = self.local.port
        if self.connect_after is not None:
            await self.connect_after()
        resume = self.launch.resume
        if resume is None and self.sessions is not None:
            resume = self.sessions.token(self._server_key())
        self.proof = self._proof()
        self.session = Session(self.launch.server_host, port, self.launch.name, resume=resume, proof=self.proof,
                               tls=self.launch.tls,
                               kept=None if self.kept_games is None else SavedGames(self.kept_games,
                                                                                   self._server_key()),
                               on_frame=lambda frame: self.post_message(Frame(frame)),
                               on_status=lambda status: self.post_message(StatusChanged(status)),
                               retry_delays=self.retry_delays)
        await self.session.run()

    def _proof(self) -> Proof | None:
        """What proves our account to the server: over SSH the gateway's assertion (none: not handed one),
        else our key for this server, made on the first connection to it."""
        if self.launch.hosted:
            return self.launch.proof
        if self.keys is None:
            return AccountKey.generate()
        return AccountKey.load_or_create(self.keys / key_file_name(self._server_key()))

    def _not_serving(self, why: str) -> None:
        """Our own server could not start: say so, and take back the top bar's claim that we host."""
        self.lobby_heading = f" ATON  ·  not hosting: {why}"
        for screen in self.screen_stack:  # (one not composed yet takes the heading in its compose)
            if isinstance(screen, LobbyScreen):
                for bar in screen.query("#top-bar").results(Static):
                    bar.update(self.lobby_heading)
        self.on_status_changed(StatusChanged(Status("failed", why)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A fault in the connection's worker is said, not left as an empty lobby."""
        if event.worker.name == "session" and event.state is WorkerState.ERROR:
            self.on_status_changed(StatusChanged(Status("failed", f"the connection failed: {event.worker.error}")))

    def action_retry(self) -> None:
        """Try again to reach the server, after the session gave up (the same session: seats kept)."""
        if self.session is not None and self.status.retry:
            self.run_worker(self.session.run(), name="session", exit_on_error=False)

    def _server_key(self) -> str:
        """Which server this is, for the saved session tokens and deals: our own by its database."""
        if self.local is not None:
            return f"local:{self.local.config.db_path}"
        return server_key(self.launch.host, self.launch.port)

    async def action_quit(self) -> None:
        """Leave; when others are connected to the server we run, ask first: it closes for them."""
        welcome = self.session.welcome if self.session is not None else None
        others = self.local.others(welcome.resume if welcome else None) if self.local is not None else []
        if not others:
            await self._quit()
            return
        names = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")

        async def answered(yes: bool | None) -> None:
            if yes:
                await self._quit()

        self.push_screen(Confirm(f"Quit and close your server?\nConnected to it: {names}.\n"
                                 "They will be told that you closed it.", yes="Quit", no="Stay"), answered)

    async def _quit(self) -> None:
        await self._shut_down()
        self.exit()

    async def on_unmount(self) -> None:
        await self._shut_down()

    async def _shut_down(self) -> None:
        """Close the connection, then stop our own server (if any), telling whoever is still
        connected to it why; safe to call twice."""
        self._restore_title()
        if self.advertiser is not None:
            advertiser, self.advertiser = self.advertiser, None
            await advertiser.close()
        if self.session is not None:
            await self.session.close()
        if self.local is not None:
            await self.local.stop(f"{self.launch.name}, who hosted this server, quit Aton and closed it"
                                  if self.launch.hosting else None)

    # ------------------------------------------------------------------ the connection

    def on_status_changed(self, event: StatusChanged) -> None:
        status, was = event.status, self.status
        self.status = status
        if status.state != "connected":
            self.pauses_asked.clear()  # a dropped connection ends the server's pauses
        self.refresh_bindings()  # the retry key works only once the session gave up
        closed = f"The server closed: {self.server_closed}.  " if self.server_closed else ""
        if status.state == "connected":
            self.server_closed = ""
            self._banner("")
            if was.state == "lost":
                self.notify("Reconnected: the game goes on.", timeout=3)
            welcome = self.session.welcome if self.session is not None else None
            if welcome is not None and self.sessions is not None:
                self.sessions.remember(self._server_key(), welcome.resume)
            if welcome is not None and was.state != "lost":
                self._account_notice(welcome)
            if not self.started:
                self.started = True
                if welcome is None or not welcome.games:  # else: an unfinished game of ours goes on
                    self._start()
        elif status.state == "connecting":
            self._banner(f"Trying again to reach {status.detail}…" if was.retry else "")
        elif status.state == "lost" and closed:
            self._banner(f"✕ {closed}Reconnecting (attempt {status.attempt})…  {status.detail}")
        elif status.state == "lost":
            self._banner(f"⚠ Connection trouble — reconnecting (attempt {status.attempt})…  {status.detail}")
        elif status.state == "failed" and status.retry:
            self._banner(f"✕ {closed}Gave up after {status.attempt} attempts: {status.detail}.  "
                         f"{RETRY_KEY.key} tries again, Ctrl+Q quits.")
        elif status.state == "failed":
            self._banner(f"✕ {closed}Disconnected: {status.detail.rstrip('.')}.  Ctrl+Q quits.")

    def _account_notice(self, welcome: m.Welcome) -> None:
        """What the server said of our account as we arrived: the name we asked for belongs to
        someone else (and which one we got), our key's account has a name of its own, or our key
        was not taken and we play as a guest (a client hosted for a guest, over SSH or in a
        browser, offered none)."""
        if welcome.notice:
            self.notify(welcome.notice, title="Your account", severity="warning", timeout=ACCOUNT_NOTICE_SECONDS)
        elif self.launch.name_asked and not welcome.guest and name_key(welcome.name) != name_key(self.launch.name):
            self.notify(f'You play as "{welcome.name}", the name of your account on this server: --name names '
                        f'a new account only. Rename yours in the lobby with {ACCOUNT_KEY.key}.', title="Your account",
                        timeout=ACCOUNT_NOTICE_SECONDS)
        if welcome.guest and not (self.launch.hosted and self.launch.proof is None):  # (a hosted guest proves nothing)
            self.notify(f"This server did not take the proof of your account key: you play as a guest, "
                        f"{welcome.name}.", title="Your account", severity="warning", timeout=ACCOUNT_NOTICE_SECONDS)

    def _banner(self, text: str) -> None:
        self.banner_text = text
        for screen in self.screen_stack:
            for banner in screen.query("#banner").results(Notice):
                banner.show(text)

    def _start(self) -> None:
        """What this run was started for; a new player of ``aton`` is first offered the lesson
        (once: the answer is kept in the settings), of Aton only: ``--game atlas-zeus`` plays at once."""
        launch = self.launch
        if launch.start == "bot" and launch.game == m.DEFAULT_GAME and not launch.hosted \
                and not self.settings.lesson_offered:
            self.push_screen(LessonOffer(), self._offer_answered)
        else:
            self.run_worker(self._first_request())

    def _offer_answered(self, learn: bool | None) -> None:
        self.settings.lesson_offered = True
        self.settings.save()
        if learn:
            self._open_lesson(then=lambda: self.run_worker(self._first_request()))  # the bot's game after it
        else:
            self.run_worker(self._first_request())

    async def _first_request(self) -> None:
        launch = self.launch
        if launch.start == "bot":
            await self.send(m.PlayBot(level=launch.level, clock=launch.clock, game=launch.game))
        elif launch.start == "table":
            await self.send(m.CreateTable(clock=launch.clock, game=launch.game))

    def on_frame(self, event: Frame) -> None:
        frame = event.frame
        if isinstance(frame, m.Lobby):
            self.lobby.load(frame)
            self._refresh_lobby()
        elif isinstance(frame, m.LobbyPage):
            self.lobby.load_page(frame)
            self._refresh_lobby()
        elif isinstance(frame, m.LobbyUpdate):
            self.lobby.apply(frame)
            # a burst of updates (a busy server) is drawn once; an open table soon, whatever the wait
            soon = frame.section == "tables" or self.lobby_redraw_delay <= LOBBY_REDRAW_DELAY
            if self._lobby_redraw is None or (soon and not self._lobby_redraw_soon):
                if self._lobby_redraw is not None:
                    self._lobby_redraw.stop()
                self._lobby_redraw_soon = soon
                wait = LOBBY_REDRAW_DELAY if soon else max(LOBBY_REDRAW_DELAY,
                                                           self.lobby_redraw_delay * random.uniform(0.5, 1))
                self._lobby_redraw = self.set_timer(wait, self._refresh_lobby)
        elif isinstance(frame, GameStateFrame | ZeusStateFrame):
            self._game_state(frame)
        elif isinstance(frame, UpdateFrame | ZeusUpdateFrame):
            self._update(frame)
        elif isinstance(frame, m.Ack):
            self._reply(frame.reply_to, None)
        elif isinstance(frame, m.Error) and frame.reply_to in self.profile_requests:
            self.profile_requests.pop(frame.reply_to).refused(frame)
        elif isinstance(frame, m.Error) and frame.reply_to in self.leaderboard_requests:
            self.leaderboard_requests.pop(frame.reply_to).refused(frame)
        elif isinstance(frame, m.Error):
            if frame.code != ErrorCode.BANNED:  # a ban's line is the banner's once the bye has come
                self.notify(frame.message, title="The server says", severity="error", timeout=6)
            self.reports.pop(frame.reply_to or 0, None)
            self._reply(frame.reply_to, frame)
        elif isinstance(frame, m.Mutes):
            self._mutes_came(frame)
        elif isinstance(frame, m.Reported):
            reported = self.reports.pop(frame.reply_to or 0, "the player")
            self.notify(f"Your report of {reported} is with the server's operator. Thank you.", timeout=6)
        elif isinstance(frame, m.Profile):
            asked = self.profile_requests.pop(frame.reply_to, None) if frame.reply_to is not None else None
            if asked is not None and asked.is_attached:
                asked.show(frame)
        elif isinstance(frame, m.Leaderboard):
            board = self.leaderboard_requests.pop(frame.reply_to, None) if frame.reply_to is not None else None
            if board is not None and board.is_attached:
                board.show(frame)
        elif isinstance(frame, m.TableCreated):
            self._table_created(frame)
        elif isinstance(frame, m.GameRecordReply):
            self._record_came(frame)
        elif isinstance(frame, m.AccountInfo):
            self.account_info = frame
            for screen in self.screen_stack:
                if isinstance(screen, AccountScreen):
                    screen.show(frame)
        elif isinstance(frame, m.WebLogin):
            self._web_login_came(frame)
        elif isinstance(frame, Verdict):
            self._decks_checked(frame)
        elif isinstance(frame, m.Queued):
            self._set_notice(NoticeText(f"Waiting for an opponent (quick match, {frame.clock} clock).  "
                                        "Esc stops waiting."))
        elif isinstance(frame, m.Left):
            self._set_notice(NoticeText())
        elif isinstance(frame, m.Bye) and frame.code == "shutdown":
            self.server_closed = frame.reason  # the banner says it while we try to reconnect
        elif isinstance(frame, m.Bye) and frame.code != "banned":
            self.notify(frame.reason, title="The server closes the connection", severity="warning")

    def _mutes_came(self, frame: m.Mutes) -> None:
        """Whose chat lines the server hides from us now; an answer to our own mute or unmute says
        what changed."""
        before, self.muted = self.muted, frozenset(frame.names)
        if frame.reply_to is not None:
            for name in sorted(self.muted - before):
                self.notify(f"{name}'s chat lines are hidden from you now (nobody else is told). "
                            "M (Shift+m) shows them again.", timeout=6)
            for name in sorted(before - self.muted):
                self.notify(f"You see {name}'s chat lines again.", timeout=4)
        screen = self._game_screen()
        if screen is not None:
            screen.refresh_view()

    def _decks_checked(self, verdict: Verdict) -> None:
        """The check of a finished game's decks: a line in its log; a mismatch loudly too."""
        screen = self._game_screen()
        if screen is not None and self.model is not None and self.model.game == verdict.game:
            screen.query_one(GameLog).note(verdict.text)
        if verdict.verified is False:
            self.notify(verdict.text, title="Unfair decks", severity="error", timeout=60)

    def _table_created(self, frame: m.TableCreated) -> None:
        self._set_notice(table_notice(self.launch, frame))
        if self.launch.hosting:
            self.run_worker(self._advertise(frame.table), group="advertise")

    async def _advertise(self, table: int) -> None:
        """``aton host``: say on the LAN that this server has table ``table`` open (where mDNS
        cannot start, nothing is said: the address on the screen works as it always did)."""
        if self.local is None or self.launch.lan_address is None:
            return
        if self.advertiser is not None:
            await self.advertiser.close()
        self.advertiser = Advertiser(self.launch.name, self.launch.clock, self.launch.lan_address, self.local.port,
                                     interfaces=self.launch.lan_interfaces)
        try:
            await self.advertiser.start(table)
        except DiscoveryUnavailable:
            self.advertiser = None

    def _set_notice(self, said: NoticeText) -> None:
        self.lobby_notice = said
        for screen in self.screen_stack:  # (one not composed yet takes the notice in its compose)
            if isinstance(screen, LobbyScreen):
                for notice in screen.query("#notice").results(Notice):
                    notice.show(said)
                screen.refresh_bindings()

    def _lobby_screens(self) -> list[LobbyScreen]:
        """The lobby screens whose lists and hint to bring up to date: those mounted. One pushed a
        moment ago may not be composed yet, or its lists have no columns yet: it draws the lobby as
        it is then from its ``on_mount``, and the hint from its ``on_screen_resume``, which follows."""
        return [screen for screen in self.screen_stack if isinstance(screen, LobbyScreen) and screen.is_mounted]

    def _refresh_lobby(self) -> None:
        if self._lobby_redraw is not None:
            self._lobby_redraw.stop()
            self._lobby_redraw = None
        for screen in self._lobby_screens():
            screen.refresh_lists(self.lobby)
        for name, window in self.lobby.sections.items():
            if window.short:  # games ended, players left: fill the page again
                window.loaded = len(window.entries)  # asked once, until the page comes
                self.lobby_page(name, window.offset)

    def _game_screen(self) -> GameScreen | AtlasZeusScreen | None:
        """The screen of the game we play or watch (not the lesson's, which has its own game)."""
        for screen in reversed(self.screen_stack):
            if isinstance(screen, GameScreen | AtlasZeusScreen) and screen.model is self.model:
                return screen
        return None

    @staticmethod
    def _new_game_screen(model: GameModel | ZeusModel) -> GameScreen | AtlasZeusScreen:
        """The screen for ``model``'s game: Aton's, or Atlas & Zeus's."""
        return AtlasZeusScreen(model) if isinstance(model, ZeusModel) else GameScreen(model)

    @staticmethod
    def _game_of(model: GameModel | ZeusModel | None) -> str:
        """Which game ``model`` is: "aton" (also outside a game) or "atlas-zeus"."""
        return ATLAS_ZEUS if isinstance(model, ZeusModel) else ATON

    def _game_state(self, frame: AnyStateFrame) -> None:
        screen = self._game_screen()
        self.syncing = False
        model = self.model
        if model is not None and model.game == frame.game and screen is not None:
            if isinstance(model, ZeusModel) and isinstance(frame, ZeusStateFrame):
                screen.apply(model.resync(frame, self.clock()), fresh=True)
                return
            if isinstance(model, GameModel) and isinstance(frame, GameStateFrame):
                screen.apply(model.resync(frame, self.clock()), fresh=True)
                return
        self.model = ZeusModel.from_state(frame, self.clock()) if isinstance(frame, ZeusStateFrame) else \
            GameModel.from_state(frame, self.clock())
        self._set_notice(NoticeText())
        self._close_game_screens()
        self.push_screen(self._new_game_screen(self.model))

    def _close_game_screens(self) -> None:
        while not isinstance(self.screen, LobbyScreen):
            self.pop_screen()
        self.show_title("Aton · lobby")

    def _update(self, frame: AnyUpdateFrame) -> None:
        model, screen = self.model, self._game_screen()
        if model is None or frame.game != model.game:
            return
        # (a frame of another game than the model's is no news of it)
        if isinstance(model, ZeusModel):
            events = model.advance(frame, self.clock()) if isinstance(frame, ZeusUpdateFrame) else []
        else:
            events = model.advance(frame, self.clock()) if isinstance(frame, UpdateFrame) else []
        if events is None:
            if not self.syncing:  # frames were lost: ask for the whole state once
                self.syncing = True
                self.run_worker(self.send(m.Sync(game=frame.game)))
            return
        if screen is not None:
            screen.apply(events)
        else:
            for lobby in self._lobby_screens():  # the lobby says whether our game goes on: it may have ended now
                lobby.follow_our_game()
            if model.rematch_offered_to_us and any(isinstance(n.event, RematchOffered) for n in events):
                self.ring()  # back in the lobby: the offer comes where the player is, with what answers it
                self.notify(offer_sentence(model.opponent, FROM_THE_LOBBY), title="Rematch?", timeout=15)
        if any(isinstance(numbered.event, RematchStarted) for numbered in events):
            self.notify("The rematch begins.", timeout=3)

    def _reply(self, request: int | None, error: m.Error | None) -> None:
        screen = self._game_screen()
        if request is not None and screen is not None:
            screen.reply(request, error)

    # ------------------------------------------------------------------ requests

    @property
    def chat_chars(self) -> int:
        """The longest chat line this server takes (told in its welcome)."""
        welcome = self.session.welcome if self.session is not None else None
        return int(welcome.limits.get("chat_chars", m.CHAT_CHARS)) if welcome else m.CHAT_CHARS

    async def send(self, msg: m.Message) -> int | None:
        """Send a request; its id, or None (and a notice) when the connection is down."""
        try:
            if self.session is None:
                raise NotConnected("not connected yet")
            return await self.session.send(msg)
        except NotConnected as exc:
            self.notify(str(exc), severity="error")
            return None

    def sealed(self, game: int) -> tuple[Any, ...] | None:
        """What we sealed this round of ``game`` and have not opened yet (None: nothing, or not
        connected): a screen shows it, even when this client sealed it before it was started again."""
        return None if self.session is None else self.session.sealed(game)

    async def commit(self, game: int, cards: tuple[int, ...]) -> int | None:
        try:
            if self.session is None:
                raise NotConnected("not connected yet")
            if self.session.sealed(game) is not None:
                return None
            return await self.session.commit(game, cards)
        except NotConnected as exc:
            self.notify(str(exc), severity="error")
            return None

    async def act(self, game: int, move: dict) -> int | None:
        """Send a decision of Atlas & Zeus; its request id (None, and a notice: it could not be sent)."""
        try:
            if self.session is None:
                raise NotConnected("not connected yet")
            return await self.session.act(game, move)
        except NotConnected as exc:
            self.notify(str(exc), severity="error")
            return None

    async def program(self, game: int, move: dict) -> int | None:
        """Seal a programming of Atlas & Zeus (opened when the server asks); its request id."""
        try:
            if self.session is None:
                raise NotConnected("not connected yet")
            return await self.session.program(game, move)
        except NotConnected as exc:
            self.notify(str(exc), severity="error")
            return None

    def join_table(self, table: int) -> None:
        if self._free_for_another_game():
            self.run_worker(self.send(m.JoinTable(table=table)))

    def watch_game(self, game: int) -> None:
        """Ask to watch ``game`` (a name of its own: Textual's ``watch`` follows reactive attributes)."""
        if self._free_for_another_game():
            self.run_worker(self.send(m.Watch(game=game)))

    def _free_for_another_game(self) -> bool:
        """No game of ours goes on; if one does, say so: this client follows one game at a time (the
        other's frames would replace ours, and ours would go on unseen until our time runs out)."""
        if self.our_game_runs:
            self.notify(f"One game at a time. {GAME_GOES_ON}.", timeout=5)
            return False
        return True

    def lobby_page(self, section: str, offset: int) -> None:
        self.run_worker(self.send(m.GetLobbyPage(section=section, offset=offset)))

    # ------------------------------------------------------------------ actions (keys and palette)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Show a notification as plain text, whatever the caller asked: what it says may come from the
        network (a server's message, an opponent's name), and markup there could restyle the screen or
        run an action of this client when clicked."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's commands (theme, keys, screenshot …), except in a hosted client: there the
        palette offers the game's own commands only (``commands.py``)."""
        if not self.launch.hosted:
            yield from super().get_system_commands(screen)

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        """The palette's Screenshot: an SVG of the screen in Aton's data directory (``screenshots.py``),
        and a notice of the whole path; the path, or None when it could not be written."""
        name = filename or screenshot_name(self.wall_clock())
        try:
            saved = save_svg(self.export_screenshot(), Path(path) if path else screenshots_dir(), name)
        except OSError as exc:
            self.notify(f"Cannot save the screenshot: {exc.strerror}.", severity="error")
            return None
        self.notify(f"Screenshot saved to {saved}", timeout=10)
        return str(saved)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        model = self.model
        if action in MACHINE_ACTIONS:
            return not self.launch.hosted
        if action in LEADS_ELSEWHERE and self._in_lesson():
            return False  # the lesson first: Esc leaves it
        playing = model is not None and model.seat is not None
        over = model is not None and model.is_over
        if action == "rematch":
            return playing and over
        if action == "decline_rematch":
            return model is not None and model.rematch_offered_to_us
        if action == "resign":
            return playing and not over
        if action == "save_record":
            return model is not None and not self.launch.hosted
        if action == "back_to_game":
            return model is not None and not over and self._game_screen() is None
        if action in ("play_bot", "quick_match", "new_table", "join_invite"):
            if self.our_game_runs:
                return False  # one game at a time
            return self.status.state == "connected" or None  # dimmed until connected: the server starts them
        if action == "leave_queue":
            return bool(self.lobby_notice.text)
        if action == "retry":
            return self.status.retry
        if action == "learn":
            return not self.our_game_runs
        if action == "account":  # (shown while connecting: the footer's keys stay where they are)
            return False if self._in_lesson() else (self.status.state == "connected" or None)
        if action == "web_login":
            return self.status.state == "connected" and self.account_info is not None and not self.account_info.guest
        return True

    @property
    def our_game_runs(self) -> bool:
        """A game we play is not over: no other game starts meanwhile (one game at a time)."""
        model = self.model
        return model is not None and model.seat is not None and not model.is_over

    def _in_lesson(self) -> bool:
        return any(isinstance(screen, LearnScreen) for screen in self.screen_stack)

    def action_learn(self) -> None:
        """The lesson: a guided first game against a scripted bot, inside this client."""
        self._open_lesson()

    def _open_lesson(self, then: Callable[[], object] | None = None) -> None:
        """Open the lesson; once it is over (or left), ``then``."""
        def over(how: str | None) -> None:
            said = LESSON_OVER if how == FINISHED else COME_BACK
            if self.launch.start == "learn":  # ``aton learn`` ends with its lesson
                self.exit(message=said)
                return
            self.notify(said, timeout=8)
            self.show_title("Aton · lobby")
            if then is not None:
                then()

        self.push_screen(LearnScreen(GuidedGame(self.launch.name)), over)
        self.show_title("Aton · lesson")

    def action_help(self, page: str = HELP_PAGE) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        game = self._game_of(self.model)
        playing = ("Playing Atlas & Zeus", AtlasZeusScreen.BINDINGS) if game == ATLAS_ZEUS else \
            ("Playing", GameScreen.BINDINGS)
        reviewing = ZeusReplayScreen.BINDINGS if game == ATLAS_ZEUS else ReplayScreen.BINDINGS  # (no analysis)
        keymaps = [playing, ("The end of a game", EndScreen.BINDINGS),
                   ("The lobby", LobbyScreen.BINDINGS), ("A profile", ProfileScreen.BINDINGS),
                   ("The leaderboard", LeaderboardScreen.BINDINGS),
                   ("Reviewing a game", reviewing),
                   ("Everywhere", [*self.BINDINGS, PALETTE_KEY])]
        in_a_game = self._game_screen() is not None and self.screen is self._game_screen()
        rules = (game,) if in_a_game else (ATON, ATLAS_ZEUS)  # outside a game: the rules of every game
        self.push_screen(HelpScreen(keymaps, self.settings, pause_left=self._pause_left(), page=page, game=game,
                                    rules=rules))

    def action_account(self) -> None:
        """The Account screen: the name, the keys, rename, add and remove keys."""
        if any(isinstance(screen, AccountScreen) for screen in self.screen_stack):
            return
        own = self.proof.public_line if isinstance(self.proof, AccountKey) else None
        self.push_screen(AccountScreen(self._where(), own))

    def action_web_login(self) -> None:
        """Ask the server for a link that signs a web browser in as our account (shown when it comes)."""
        self.run_worker(self.send(m.GetWebLogin()))

    def _web_login_came(self, login: m.WebLogin) -> None:
        """The link: on the Account screen if it is open, else in a notice that lasts as long as the link."""
        text = (f"Open this link in a web browser within {login.seconds / 60:g} minutes to play there as you "
                f"(it works once):\n{login.link}")
        screens = [screen for screen in self.screen_stack if isinstance(screen, AccountScreen)]
        for screen in screens:
            screen.show_web_login(text)
        if not screens:
            self.notify(text, title="Sign a browser in", timeout=login.seconds)

    def action_rules(self) -> None:
        """The help, open at the Rules page of the game played (Aton's outside a game)."""
        self.action_help(AZ_RULES_PAGE if self._game_of(self.model) == ATLAS_ZEUS else RULES_PAGE)

    def _pause_left(self) -> float | None:
        """The seconds our clock may still stand still in this game (None: it never does)."""
        model = self.model
        return model.options["pause_s"] if model is not None and model.can_pause else None

    def action_toggle_theme(self) -> None:
        self.theme = "aton-light" if self.theme == "aton-dark" else "aton-dark"

    def _keep_theme(self, theme: Theme) -> None:
        """Whichever way the theme changed (F2, or Textual's theme picker in the palette), keep it."""
        if theme.name != self.settings.theme:
            self.settings.theme = theme.name
            self.settings.save()

    def action_toggle_forced(self) -> None:
        self.settings.auto_forced = not self.settings.auto_forced
        self.settings.save()
        state = "on" if self.settings.auto_forced else "off"
        self.notify(f"Forced moves are made automatically: {state}.", timeout=3)

    def pause_clock(self, model: GameModel, on: bool) -> None:
        """Stop (or start again) our clock in ``model``'s game, if the server lets it be paused
        (a game against its bot); asked once per change."""
        if on == (model.game in self.pauses_asked):
            return
        if on and not model.can_pause:
            return
        if self.status.state == "connected":
            self.pauses_asked.symmetric_difference_update({model.game})
            self.run_worker(self.send(m.Pause(game=model.game, on=on)))

    def action_toggle_bell(self) -> None:
        self.settings.bell = not self.settings.bell
        self.settings.save()
        self.notify(f"The bell is {'on' if self.settings.bell else 'off'}.", timeout=3)

    def ring(self) -> None:
        """The terminal's bell, unless the player turned it off (over SSH it reaches their terminal)."""
        if self.settings.bell:
            self.bell()

    def _watch_our_clock(self) -> None:
        """Ring once when the clock of a decision of ours runs low, in either game, wherever the
        player looks (the board, the lobby, help)."""
        low = self.model is not None and self.model.our_clock_is_low(self.clock())
        if low and not self.clock_was_low:
            self.ring()
        self.clock_was_low = low

    def show_title(self, text: str) -> None:
        """Put ``text`` in the terminal's title bar (OSC 2), once per change.  Names in it come
        from the network: control characters are dropped, so it cannot end the sequence."""
        text = "".join(c for c in text if c.isprintable())
        if text == self.terminal_title:
            return
        if not self.is_headless and self._driver is not None:
            if not self.terminal_title:
                self._driver.write(SAVE_TITLE)  # the terminal's own title comes back when we leave
            self._driver.write(f"\x1b]2;{text}\x07")
        self.terminal_title = text

    def _restore_title(self) -> None:
        if self.terminal_title and not self.is_headless and self._driver is not None:
            self._driver.write(RESTORE_TITLE)
            self.terminal_title = ""

    def _own_ratings(self) -> dict | None:
        """Our ratings per clock, as the lobby shows them (None: a guest)."""
        welcome = self.session.welcome if self.session is not None else None
        return own_ratings(self.lobby, welcome.name) if welcome is not None else None

    def action_play_bot(self) -> None:
        ratings = self._own_ratings()
        level, why = bot_level_choice(self.lobby, m.BOT_LEVELS, self.launch.clock, self.launch.level, ratings)
        choices = (level, Choice("clock", "Clock", m.CLOCKS, self.launch.clock),
                   Choice("seat", "Colour", ("random", "red", "blue"), "random"), *rated_choice(ratings),
                   self._game_choice())

        def chosen(result: dict | None) -> None:
            if result:
                seat = None if result["seat"] == "random" else result["seat"]
                self.run_worker(self.send(m.PlayBot(level=result["level"], clock=result["clock"], seat=seat,
                                                    rated=rated_game(result), game=result[PLAY])))

        self.push_screen(Choices("Play a bot", choices, note=why or guest_note(ratings)), chosen)

    def _game_choice(self) -> Choice:
        """The "Play" row of a dialog that starts a game: Aton or Atlas & Zeus (this run's game chosen);
        the last row, so that the keys of the rows before it are as they always were."""
        return Choice(PLAY, "Play", m.GAMES, self.launch.game, tuple(GAME_TITLES[game] for game in m.GAMES))

    def action_quick_match(self) -> None:
        ratings = self._own_ratings()

        def chosen(result: dict | None) -> None:
            if result:
                self.run_worker(self.send(m.QuickMatch(clock=result["clock"], rated=rated_game(result),
                                                       game=result[PLAY])))

        choices = (Choice("clock", "Clock", m.CLOCKS, "normal"), *rated_choice(ratings), self._game_choice())
        self.push_screen(Choices("Quick match", choices, accept="Find", note=guest_note(ratings)), chosen)

    def action_new_table(self) -> None:
        ratings = self._own_ratings()
        choices = (Choice("clock", "Clock", m.CLOCKS, "normal"),
                   Choice("access", "Table", ("public", "private (invite code)"), "public"), *rated_choice(ratings),
                   self._game_choice())

        def chosen(result: dict | None) -> None:
            if result:
                private = result["access"] != "public"
                self.run_worker(self.send(m.CreateTable(clock=result["clock"], private=private,
                                                        rated=rated_game(result), game=result[PLAY])))

        self.push_screen(Choices("Open a table", choices, accept="Open", note=guest_note(ratings)), chosen)

    def action_join_invite(self) -> None:
        def entered(code: str | None) -> None:
            if code:
                self.run_worker(self.send(m.JoinInvite(code=code.upper())))

        self.push_screen(Prompt("The invite code of a private table:", placeholder="e.g. K7QX2M"), entered)

    def action_leave_queue(self) -> None:
        self.run_worker(self.send(m.Leave()))

    def action_back_to_game(self) -> None:
        if self.model is not None and self._game_screen() is None:
            self.push_screen(self._new_game_screen(self.model))

    def action_lobby(self) -> None:
        model = self.model
        self._close_game_screens()
        if model is None or model.is_over:
            return
        if model.seat is None:
            self.run_worker(self.send(m.Leave(game=model.game)))
            self.model = None
        else:
            self.notify(f"{GAME_GOES_ON}.", timeout=5)

    def action_rematch(self) -> None:
        if self.model is not None:
            self.run_worker(self.send(m.Rematch(game=self.model.game, accept=True)))

    def action_decline_rematch(self) -> None:
        if self.model is not None:
            self.run_worker(self.send(m.Rematch(game=self.model.game, accept=False)))

    def action_resign(self) -> None:
        model = self.model

        def answered(yes: bool | None) -> None:
            if yes and model is not None:
                self.run_worker(self.send(m.Resign(game=model.game)))

        self.push_screen(Confirm("Resign this game? Your opponent wins.", yes="Resign", no="Play on"), answered)

    def action_save_record(self) -> None:
        model = self.model
        if model is None:
            return
        if not model.is_over:
            self.notify("The game's record can be saved once the game is over.", timeout=4)
            return

        def entered(name: str | None) -> None:
            if name:
                self.run_worker(self._ask_for_record(model.game, Path(name).expanduser()))

        self.push_screen(Prompt("Save the game record to the file:", value=record_filename(model.game)), entered)

    def action_review(self) -> None:
        """The game just finished, in the replay viewer (its record asked of the server)."""
        model = self.model
        if model is not None and model.is_over:
            self.run_worker(self._ask_for_record(model.game, None))

    async def _ask_for_record(self, game: int, path: Path | None) -> None:
        request = await self.send(m.GetRecord(game=game))
        if request is not None:
            self.record_paths[request] = path

    def _record_came(self, frame: m.GameRecordReply) -> None:
        """A record we asked for: saved to the file chosen, or shown in the replay viewer."""
        if frame.reply_to is None or frame.reply_to not in self.record_paths:
            return
        path = self.record_paths.pop(frame.reply_to)
        if path is None:
            self._review(frame)
        else:
            self._save_record(self._with_hints(frame.game, frame.record), path)

    def _with_hints(self, game: int, record: dict) -> dict:
        """The record with the hints our player used in it (``meta.hints``, docs/records.md)."""
        model = self.model
        if model is None or model.game != game or model.seat is None or not model.hints_used:
            return record
        return {**record, "meta": {**record.get("meta", {}), "hints": {str(model.seat): model.hints_used}}}

    def _review(self, frame: m.GameRecordReply) -> None:
        """A record of either game in its replay viewer, from our side (or the profile's seat)."""
        model = self.model
        seat = model.seat if model is not None and model.game == frame.game else None
        if frame.game in self.review_seats:
            seat = Player.parse(self.review_seats.pop(frame.game))
        try:
            if frame.record.get("format") == ZEUS_RECORD:
                zeus = ZeusReplayModel(ZeusRecord.from_dict(frame.record))
                self.push_screen(ZeusReplayScreen(zeus, Perspective.of(seat), at_end=True))
                return
            replayed = ReplayModel(GameRecord.from_dict(frame.record))
        except (RecordError, ZeusRecordError) as exc:
            self.notify(f"The server's record of game {frame.game} cannot be read: {exc}", severity="error")
            return
        analysis = self.analyses.get(record_digest(replayed.record))
        self.push_screen(ReplayScreen(replayed, Perspective.of(seat), at_end=True, analysis=analysis))

    def review_game(self, game: int, seat: str) -> None:
        """A finished game of a profile in the replay viewer, from ``seat``'s side (its record asked of the server)."""
        if seat in m.SEATS:
            self.review_seats[game] = seat
        self.run_worker(self._ask_for_record(game, None))

    def ask_profile(self, screen: ProfileScreen, name: str | None, page: int) -> None:
        """Ask for a page of a player's profile (``name``; None: ours) for ``screen`` to show."""

        async def ask() -> None:
            request = await self.send(m.GetProfile(name=name, page=page))
            if request is not None:
                self.profile_requests[request] = screen

        self.run_worker(ask())

    def ask_leaderboard(self, screen: LeaderboardScreen, clock: str, page: int) -> None:
        """Ask for a page of a clock's leaderboard for ``screen`` to show."""

        async def ask() -> None:
            request = await self.send(m.GetLeaderboard(clock=clock, page=page))
            if request is not None:
                self.leaderboard_requests[request] = screen

        self.run_worker(ask())

    def action_leaderboard(self) -> None:
        """The leaderboard, from the clock of the game we play or last played (else normal)."""
        clock = self.model.options.get("clock", "normal") if self.model is not None else "normal"
        self.push_screen(LeaderboardScreen(clock if clock in m.CLOCKS else "normal"))

    @property
    def player_name(self) -> str | None:
        """Our name on the server (its welcome's), once connected."""
        welcome = self.session.welcome if self.session is not None else None
        return welcome.name if welcome is not None else None

    def action_profile(self, name: str | None = None) -> None:
        """A player's profile (None: ours)."""
        self.push_screen(ProfileScreen(name))

    def on_replay_screen_analysed(self, message: ReplayScreen.Analysed) -> None:
        self.analyses[message.analysis.record] = message.analysis

    def _save_record(self, record: dict, path: Path) -> None:
        try:
            save_record(record, path)
        except OSError as exc:
            self.notify(f"Cannot save {path}: {exc.strerror}", severity="error")
            return
        also = " with its analysis" if self._save_analysis_beside(record, path) else ""
        self.notify(f"Saved the game record{also} to {path.resolve()} (aton replay shows it).", timeout=6)

    def _save_analysis_beside(self, record: dict, path: Path) -> bool:
        """The analysis made this session of the record just saved at ``path``, saved beside it
        (so ``aton replay`` shows it); False: there is none, or it cannot be written."""
        try:
            saved = GameRecord.from_dict(record)
            analysis = self.analyses.get(record_digest(saved))
            if analysis is not None:
                save_beside(path, analysis, saved)
        except (RecordError, OSError):
            return False
        return analysis is not None
