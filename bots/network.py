"""Playing a strategy against a server: the network half of the bot SDK.

``NetworkBot`` hides the protocol from a bot author: it connects as a ``bot``
client, finds games (a table or an invite code, then quick matches), decodes each
game frame where it reads it (``protocol.game_frames.typed_for``: the view an
``aton.views.View``, the events typed) for the strategy, sends its answer
(sealing and opening commitments by itself), reconnects with its resume token
after a dropped connection, and reports each finished game.  It waits for a server
that is not there yet, or not any more, for at least the longest grace period
(``Backoff``): a seat is kept that long after a drop or a server restart.

Given a ``state`` directory, it keeps its session there between runs — the resume token
(``protocol.saved_sessions``), what it saw of each unfinished game's deal and the cartouches it
sealed and has not opened yet (``protocol.saved_games``) — so that a bot process started again
takes back its game, opens what it sealed, and still checks that game's decks.  One process at a
time keeps a directory (a lock file in it): a second one started with the same directory plays
without it, and says so.

The same class plays Atlas & Zeus when its strategy is one of ``bots.atlas_zeus``: it asks
for quick matches of that game, hands the strategy the game's view
(``atlas_zeus.views.View``), seals each programming (``Client.commit_program``; under Open
hand it goes in the clear) and sends every other decision as an ``act``.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from atlas_zeus.moves import Program
from atlas_zeus.outcome import Outcome as ZeusOutcome
from atlas_zeus.players import PLAYERS as ZEUS_PLAYERS
from atlas_zeus.players import Player as ZeusPlayer
from atlas_zeus.views import View as ZeusView
from aton.moves import Commit, Exchange, Place, Remove
from aton.outcome import Outcome
from aton.players import Player
from aton.views import View as AtonView
from protocol import messages as m
from protocol.account_keys import Proof
from protocol.client import Client, ServerError
from protocol.clocks import LONGEST_GRACE
from protocol.errors import ErrorCode
from protocol.fairness import MISMATCH, Verdict
from protocol.game_frames import (
    ATLAS_ZEUS,
    GameStateFrame,
    Seated,
    UpdateFrame,
    ZeusStateFrame,
    ZeusUpdateFrame,
    typed_for,
)
from protocol.saved_games import SavedGames
from protocol.saved_sessions import SavedSessions, server_key

from .atlas_zeus.strategy import Strategy as ZeusStrategy
from .strategy import Strategy

#: A frame of one game, read: a ``game_state`` or an ``update`` of Aton or of Atlas & Zeus.
Frame = GameStateFrame | UpdateFrame | ZeusStateFrame | ZeusUpdateFrame
FRAMES = (GameStateFrame, UpdateFrame, ZeusStateFrame, ZeusUpdateFrame)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GameResult:
    game: int
    seat: Player | ZeusPlayer
    outcome: Outcome | ZeusOutcome
    scores: tuple[int, int]  # red's, blue's: Aton's points, Atlas & Zeus's people alive
    rounds: int
    opponent: str

    @property
    def verdict(self) -> str:
        """"won", "lost" or "draw", for the bot's seat."""
        winner = self.outcome.winner
        return "draw" if winner is None else ("won" if winner is self.seat else "lost")

    def line(self) -> str:
        """One line for the terminal, e.g. ``game 12: won as red against Bot (easy), 41–23 (points), 9 rounds``."""
        mine, theirs = self.scores[self.seat], self.scores[self.seat.other]
        return (f"game {self.game}: {self.verdict} as {self.seat} against {self.opponent}, "
                f"{mine}–{theirs} ({self.outcome.termination}), {self.rounds} round{'' if self.rounds == 1 else 's'}")


@dataclass(frozen=True)
class Backoff:
    """The waits between attempts to reach the server: ``first`` seconds, doubling up to ``cap``,
    until they add up to ``patience`` (by default the longest grace period, so that a bot
    outlasts every outage after which the server still keeps its seat)."""

    first: float = 1.0
    cap: float = 15.0
    patience: float = LONGEST_GRACE

    def delays(self) -> Iterator[float]:
        waited, delay = 0.0, self.first
        while waited < self.patience:
            yield delay
            waited += delay
            delay = min(delay * 2, self.cap)


#: Failures worth another attempt: the server is down, restarting, unreachable or full.
UNREACHABLE = (ConnectionError, OSError, asyncio.TimeoutError, asyncio.IncompleteReadError)
#: How long the bot waits, after its last game, for the server to reveal that game's deal.
REVEAL_WAIT_SECONDS = 10.0
#: The lock file in a bot's state directory, held while a process keeps its session there.
STATE_LOCK = "lock"
#: The results a bot that plays until stopped (``play(None)``) keeps: the latest games only.
RECENT_RESULTS = 100


class SessionTaken(ConnectionError):
    """Another connection resumed this bot's session (``bye`` "replaced"): this one stops rather
    than take it back, which would only start a tug of war."""


class NetworkBot:
    """Plays ``strategy`` on a server: Aton's strategies play Aton, those of ``bots.atlas_zeus``
    Atlas & Zeus."""

    def __init__(self, strategy: Strategy | ZeusStrategy, host: str, port: int, *, name: str, clock: str = "normal",
                 table: int | None = None, invite: str | None = None,
                 on_result: Callable[[GameResult], None] = lambda result: None,
                 backoff: Backoff = Backoff(),
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep, proof: Proof | None = None,
                 tls: ssl.SSLContext | None = None, state: Path | None = None) -> None:
        self.strategy = strategy
        self.game_name = ATLAS_ZEUS if isinstance(strategy, ZeusStrategy) else "aton"  # the game it plays
        self._game_names: dict[int, str] = {}  # game -> the game its game_state named (to read its updates)
        self.host, self.port = host, port
        self.tls = tls  # connect through TLS with this context (None: plain TCP)
        self.name = name
        self.proof = proof  # what proves the bot's account on every hello (None: it plays as a guest)
        self.clock = clock
        self.table, self.invite = table, invite
        self.on_result = on_result
        self.backoff = backoff
        self._sleep = sleep
        self.client: Client | None = None
        self.results: list[GameResult] = []
        self.verdicts: dict[int, Verdict] = {}  # game -> the check of its decks (protocol.fairness)
        self._game: int | None = None
        self._players: dict[Player, Seated] = {}
        # (game, version, decision) of the last view answered: a view is answered once, but a move
        # may bring another decision without a new version (a Volcano, then its fleeing)
        self._answered: tuple[int, int, object] | None = None
        self._awaiting: int | None = None  # the request id of a move not yet acknowledged
        self._last_frame: Frame | None = None  # of our game, last received
        self._syncing: int | None = None  # the request id of the sync sent for our game after reconnecting
        self.state = state  # the directory the session is kept in between runs (None: memory only)
        self._server_key = server_key(host, port)  # where the server is, for the files in ``state``
        self._tokens: SavedSessions | None = None  # while ``play`` keeps the session in ``state``
        self._kept: SavedGames | None = None
        self._resume: str | None = None  # the token the next new connection resumes (an earlier run's)

    @property
    def _session(self) -> Client:
        """The connection to the server, there once ``play`` has reached it."""
        assert self.client is not None, "play() reaches the server first"
        return self.client

    async def play(self, games: int | None) -> list[GameResult]:
        """Play ``games`` games to their end (a game taken back from an earlier run counts as one);
        returns their results.  None: play game after game until stopped (cancelled), keeping the
        results of the latest ``RECENT_RESULTS`` games."""
        with self._keeping_session():
            await self._reach_server(first_wait=False)
            try:
                await self._seek_game_unless_seated()
                while games is None or len(self.results) < games:
                    try:
                        frame = self._read(await self._session.recv())
                    except UNREACHABLE:
                        await self._reconnect()
                        continue
                    await self._handle(frame, more_wanted=games is None or len(self.results) + 1 < games)
                    if games is None and len(self.results) > RECENT_RESULTS:
                        self._forget_all_but_recent_games()
                await self._await_reveals()
            finally:
                await self._session.close()
        return self.results

    def _forget_all_but_recent_games(self) -> None:
        """A bot that plays until stopped keeps what it knows of its latest ``RECENT_RESULTS`` games
        only (their results, verdicts, and what its connection knows of them): it may run for months."""
        del self.results[:-RECENT_RESULTS]
        oldest = self.results[0].game
        for games in (self.verdicts, self._game_names):
            for game in [game for game in games if game < oldest]:
                del games[game]
        self._session.forget_games_before(oldest)

    @contextmanager
    def _keeping_session(self) -> Iterator[None]:
        """Keep the session in ``state`` meanwhile, unless another process keeps it there."""
        if self.state is None:
            yield
            return
        self.state.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock = FileLock(self.state / STATE_LOCK)
        try:
            lock.acquire(timeout=0)
        except Timeout:
            log.warning("another bot keeps its session in %s: this one plays without it, and will not take back "
                        "its game if started again", self.state)
            yield
            return
        try:
            self._tokens = SavedSessions(self.state / "sessions.json")
            self._kept = SavedGames(self.state, self._server_key)
            self._resume = self._tokens.token(self._server_key)
            yield
        finally:
            self._tokens = self._kept = None
            if self.client is not None:
                self.client.keep = lambda client: None  # (the directory is no longer ours)
            lock.release()

    # ------------------------------------------------------------------ connection

    async def _reach_server(self, first_wait: bool) -> bool:
        """Connect, or resume with the token after a drop, trying again after each of the
        ``backoff``'s waits; ConnectionError once they are spent. True if this is a new
        session: the first, or one that replaces a session the server no longer knows."""
        waits = self.backoff.delays()
        attempt = 0
        if first_wait:
            await self._sleep(next(waits, 0.0))
        while True:
            attempt += 1
            try:
                fresh = self.client is None
                if self.client is None:
                    self.client = await self._connect()
                else:
                    await self.client.reconnect(self.host, self.port)
                if attempt > 1:
                    log.info("reached %s:%s after %d attempts", self.host, self.port, attempt)
                return fresh
            except ServerError as exc:
                if exc.code == ErrorCode.UNKNOWN_SESSION.value:
                    # The server does not know our token (a new database): its games are not
                    # ours to resume; start a new session at once.
                    log.warning("%s:%s no longer knows this session; starting a new one", self.host, self.port)
                    self.client = self._resume = None
                    continue
                if exc.code != ErrorCode.SERVER_FULL.value:
                    raise
                problem = str(exc)
            except UNREACHABLE as exc:
                problem = str(exc) or type(exc).__name__
            wait = next(waits, None)
            if wait is None:
                raise ConnectionError(f"could not reach the server for {self.backoff.patience:.0f} s "
                                      f"({attempt} attempts; the last: {problem})")
            (log.warning if attempt == 1 else log.info)(
                "%s:%s unreachable (%s); trying again in %.0f s", self.host, self.port, problem, wait)
            await self._sleep(wait)

    async def _connect(self) -> Client:
        """A new session with the server (one attempt), or an earlier run's session taken back:
        its token and what it kept of its games come from ``state``."""
        client = await self._hello(self._resume)
        if self._tokens is not None and self._kept is not None and client.resume_token is not None:
            self._tokens.remember(self._server_key, client.resume_token)
            self._kept.attach(client)  # (a new session holds no seat: nothing kept is of use to it)
        welcome = client.welcome
        if welcome is not None:
            log.info("connected to %s:%s as %s%s", self.host, self.port, welcome.name,
                     " (a guest)" if welcome.guest else "")
            if welcome.games:
                log.info("took back game %s", ", ".join(map(str, welcome.games)))
        return client

    async def _hello(self, resume: str | None) -> Client:
        """A connection whose hello opens a new session, or resumes the session of ``resume``."""
        return await Client.connect(self.host, self.port, name=self.name, kind="bot", resume=resume, lobby=False,
                                    proof=self.proof, tls=self.tls)

    async def _reconnect(self) -> None:
        """Come back with the resume token: the server re-seats us and sends the game again."""
        if await self._reach_server(first_wait=True):
            self._game = None  # a new session holds no seat: the old game is lost to us
        self._answered = self._awaiting = None  # the fresh game_state is the truth now
        if self._game is None:
            await self._seek_game_unless_seated()
        else:  # a game that ended while we were away is not resumed: ask for it
            self._syncing = await self._session.send(m.Sync(game=self._game))

    async def _seek_game_unless_seated(self) -> None:
        """Seek a game unless the session holds a seat already: a game taken back from an earlier
        run, or one that started as the connection failed (its ``game_state`` comes now)."""
        welcome = self._session.welcome
        if not (welcome and welcome.games):
            await self._seek_game()

    async def _seek_game(self) -> None:
        if self.invite:
            log.info("joining the private table of invite %s", self.invite)
            await self._session.send(m.JoinInvite(code=self.invite))
        elif self.table:
            log.info("joining table %s", self.table)
            await self._session.send(m.JoinTable(table=self.table))
        else:
            log.info("waiting for a quick match of %s (%s clock)", self.game_name, self.clock)
            await self._session.send(m.QuickMatch(clock=self.clock, game=self.game_name))
        self.invite = self.table = None  # later games: rematches or quick matches

    async def _await_reveals(self) -> None:
        """The deal of a game is revealed just after its end: wait for those of the games played
        (the last one, usually); a server that keeps one back fails its check."""
        played = {result.game for result in self.results}
        while pending := played & set(self._session.deals):
            try:
                frame = await self._session.recv(REVEAL_WAIT_SECONDS)
            except UNREACHABLE:
                for game in pending:
                    self._checked(Verdict(game, False, f"{MISMATCH}: it did not reveal the deal after the game."))
                return
            if isinstance(frame, m.DealRevealed):
                self._checked(self._session.verdicts[frame.game])

    def _checked(self, verdict: Verdict) -> None:
        self.verdicts[verdict.game] = verdict
        (log.error if verdict.verified is False else log.info)("game %s: %s", verdict.game, verdict.text)

    # ------------------------------------------------------------------ frames

    def _read(self, message: m.Message) -> m.Message | Frame:
        """A message with its game frame read as its game's (the game its ``game_state`` named)."""
        if isinstance(message, m.GameState):
            self._game_names[message.game] = str(message.options.get("game", "aton"))
        game = self._game_names.get(message.game, "aton") if isinstance(message, m.Update) else "aton"
        return typed_for(message, game)

    async def _handle(self, frame: m.Message | Frame, more_wanted: bool) -> None:
        if isinstance(frame, m.Bye) and frame.code == "replaced":
            raise SessionTaken(f"another connection took over this bot's session ({frame.reason})")
        if isinstance(frame, m.DealRevealed):
            self._checked(self._session.verdicts[frame.game])
            return
        if isinstance(frame, (m.Ack, m.Error)) and frame.reply_to == self._awaiting:
            self._awaiting = None
            if isinstance(frame, m.Error) and self._last_frame is not None:
                self._answered = None  # refused: think again about the same position
                await self._answer(self._last_frame)
        if isinstance(frame, m.Error) and frame.reply_to is not None and frame.reply_to == self._syncing \
                and frame.code == "not_found":
            # It ended while we were away and the server no longer holds it (it restarted, or
            # the game left its memory): its result is lost to us; play on.
            log.warning("game %s ended while this bot was away; looking for the next one", self._game)
            self._game = self._syncing = None
            await self._seek_game()
            return
        if isinstance(frame, m.Error):
            log.warning("server refused a request: %s", frame.message)
            if frame.code == "not_found" and self._game is None:
                raise ServerError(frame)
            return
        if isinstance(frame, FRAMES) and any(r.game == frame.game for r in self.results):
            return  # a game already reported
        if isinstance(frame, (GameStateFrame, ZeusStateFrame)):
            if frame.game != self._game:
                self._game = frame.game
                self._start(frame)
            self._players = frame.players
        if isinstance(frame, UpdateFrame) and frame.game == self._game and isinstance(self.strategy, Strategy):
            self.strategy.on_events([numbered.event for numbered in frame.events])
        if isinstance(frame, FRAMES) and frame.game == self._game:
            if frame.view.outcome is not None:
                await self._finish(frame, more_wanted)
            else:
                self._last_frame = frame
                await self._answer(frame)

    def _start(self, frame: GameStateFrame | ZeusStateFrame) -> None:
        """A new game: it must be the strategy's game; an Aton strategy hears of its start."""
        played = self._game_names.get(frame.game, "aton")
        if played != self.game_name:
            raise ValueError(f"this bot plays {self.game_name}, and game {frame.game} is a game of {played}")
        seat = frame.view.viewer
        opponent = None if seat is None else frame.players.get(Player.parse(str(seat.other)))
        log.info("game %s: playing %s against %s", frame.game, seat, "?" if opponent is None else opponent.name)
        if isinstance(frame, GameStateFrame) and isinstance(self.strategy, Strategy):
            self.strategy.on_game_start(frame.view)

    def _sealed_already(self, game: int, seat: str, commitments: dict[Player, str]) -> bool:
        """Whether our programming (cartouches) of this round is committed already: the client
        opens it when the server asks."""
        return commitments.get(Player.parse(seat)) != "none" or self._session.has_sealed(game)

    async def _answer(self, frame: Frame) -> None:
        if isinstance(frame, (ZeusStateFrame, ZeusUpdateFrame)):
            await self._answer_zeus(frame)
            return
        strategy = self.strategy
        assert isinstance(strategy, Strategy)  # (``_start`` checked the game)
        game, view = frame.game, frame.view
        decision = view.decision
        if decision is None or self._answered == (game, frame.version, decision) or self._awaiting is not None:
            return  # (a view sent before the server had our last move may be stale)
        seat = view.viewer
        assert seat is not None  # a decision is a player's
        if decision.kind == "commit" and self._sealed_already(game, str(seat), frame.commitments):
            return  # committed already; the client opens it when the server asks
        self._answered = (game, frame.version, decision)
        move = strategy.choose(view)
        if isinstance(move, Commit):
            self._awaiting = await self._session.commit(game, move.cards)
        elif isinstance(move, Exchange):
            self._awaiting = await self._session.send(m.Exchange(game=game))
        elif isinstance(move, (Remove, Place)):
            kind = m.Remove if isinstance(move, Remove) else m.Place
            self._awaiting = await self._session.send(kind(game=game, temple=move.temple, square=move.square))

    async def _answer_zeus(self, frame: ZeusStateFrame | ZeusUpdateFrame) -> None:
        """Atlas & Zeus: a programming is sealed (in the clear under Open hand), any other
        decision is an ``act``."""
        strategy = self.strategy
        assert isinstance(strategy, ZeusStrategy)  # (``_start`` checked the game)
        game, view = frame.game, frame.view
        decision = view.decision
        if decision is None or self._answered == (game, frame.version, decision) or self._awaiting is not None:
            return
        seat = view.viewer
        assert seat is not None  # a decision is a player's
        face_up = view.player(seat).open_hand
        if decision.kind == "program" and not face_up and self._sealed_already(game, str(seat), frame.commitments):
            return
        self._answered = (game, frame.version, decision)
        move = strategy.choose(view)
        if isinstance(move, Program) and not face_up:
            self._awaiting = await self._session.commit_program(game, [(slot, card.value) for slot, card in move.cards])
        else:
            self._awaiting = await self._session.send(m.Act(game=game, move=move.to_dict()))

    async def _finish(self, frame: Frame, more_wanted: bool) -> None:
        view = frame.view
        seat, outcome = view.viewer, view.outcome
        assert seat is not None and outcome is not None
        opponent = self._players.get(Player.parse(str(seat.other)))
        if isinstance(frame.view, ZeusView):
            people = frame.view.people
            scores = tuple(sum(1 for p in people if p.clan is clan and p.island is not None) for clan in ZEUS_PLAYERS)
        else:
            scores = (frame.view.red.score, frame.view.blue.score)
        result = GameResult(
            game=frame.game, seat=seat, outcome=outcome, scores=(scores[0], scores[1]),
            rounds=view.round, opponent=opponent.name if opponent is not None else str(seat.other))
        self.results.append(result)
        if isinstance(self.strategy, Strategy) and isinstance(frame.view, AtonView):
            self.strategy.on_game_over(frame.view)
        self.on_result(result)
        self._game = None
        if more_wanted:
            await self._seek_game()
