"""One player's connection to a server, kept alive: it reconnects and resumes by itself.

``Session.run`` connects, hands every frame to ``on_frame`` — a game's frames
decoded into the engine's types (``protocol.game_frames.typed``), here where they
are read — and, when the connection breaks, reports it through ``on_status`` and
reconnects with the resume token (``Client.reconnect``), so the server gives the
seats back and sends each game's state again.  A sealed commitment that was not yet opened
survives the reconnection; one the server never received is dropped, so the
player can commit again.  After ``CONNECT_ATTEMPTS`` (never connected) or
``RECONNECT_ATTEMPTS`` (after a break) failed attempts in a row it stops trying and
says so (a ``failed`` status that offers a retry); ``run`` again tries anew, with
the same session.
"""

from __future__ import annotations

import asyncio
import os
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from protocol import messages as m
from protocol.account_keys import Proof
from protocol.client import Client, ServerError
from protocol.errors import ErrorCode, ProtocolError
from protocol.fairness import Verdict
from protocol.game_frames import AnyStateFrame, AnyUpdateFrame, typed_for
from protocol.saved_games import SavedGames
from protocol.transport import Endpoint, TLSFailed

#: ``bye`` codes after which reconnecting is pointless
FINAL_BYES = frozenset({"replaced", "unsupported_version", "banned"})
#: Failed attempts in a row to reach a server never reached yet, before giving up: a wrong
#: address or a server that is not up is said within a few seconds (the waits between
#: attempts are ``Session.retry_delays``).
CONNECT_ATTEMPTS = 4
#: Failed attempts in a row to reach the server again after the connection broke, before
#: giving up: about a minute of trying (the normal clock's grace period), so that a game
#: outlives a short outage or a server's restart.
RECONNECT_ATTEMPTS = 12
#: Seconds to wait after the first, second … failed attempt (the last one from then on).
RETRY_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
LOST = (OSError, ConnectionError, asyncio.IncompleteReadError, TimeoutError, ProtocolError)
#: What ``on_frame`` gets: a message as it came, a game's frame decoded, or the check of a
#: game's decks (after its ``deal_revealed``).
Received = m.Message | AnyStateFrame | AnyUpdateFrame | Verdict


@dataclass(frozen=True)
class Status:
    state: str  # "connecting", "connected", "lost", "failed" or "closed"
    detail: str = ""
    attempt: int = 0
    retry: bool = False  # (failed) trying again may help: the server could not be reached


class NotConnected(Exception):
    """A request was made while the connection is down."""


class ServerConnection(Protocol):
    """What the app asks of its connection to a server: a ``Session`` (or a test's stand-in)."""

    @property
    def welcome(self) -> m.Welcome | None: ...

    async def send(self, msg: m.Message) -> int | None: ...

    async def commit(self, game: int, cards: tuple[int, ...]) -> int | None: ...

    def sealed(self, game: int) -> tuple[Any, ...] | None: ...

    async def act(self, game: int, move: dict) -> int | None: ...

    async def program(self, game: int, move: dict) -> int | None: ...

    async def run(self) -> None: ...

    async def close(self) -> None: ...


class Session:
    def __init__(self, host: str, port: int, name: str, *,
                 on_frame: Callable[[Received], object], on_status: Callable[[Status], object],
                 resume: str | None = None, proof: Proof | None = None, tls: ssl.SSLContext | None = None,
                 retry_delays: tuple[float, ...] = RETRY_DELAYS, kept: SavedGames | None = None,
                 ping_interval: float = 20.0, silence_limit: float = 65.0) -> None:
        self.host, self.port, self.name = host, port, name
        self.tls = tls  # connect through TLS with this context (None: plain TCP)
        self.on_frame = on_frame
        self.on_status = on_status
        self.retry_delays = retry_delays
        self.ping_interval = ping_interval
        self.silence_limit = silence_limit
        self.client: Client | None = None  # the connection, while it is up
        self.resume = resume
        self.proof = proof  # what proves our account on every hello (None: we play as a guest)
        self._session: Client | None = None  # one protocol session, reconnected as often as needed
        self._closing = False
        self._games: dict[int, str] = {}  # each game's game ("aton", "atlas-zeus"), from its game_state
        self.kept = kept  # where what we must remember of unfinished games outlives this process (None: nowhere)

    @property
    def connected(self) -> bool:
        return self.client is not None

    @property
    def welcome(self) -> m.Welcome | None:
        """The server's welcome on the current connection (None while not connected)."""
        return self.client.welcome if self.client is not None else None

    async def run(self) -> None:
        """Stay connected until ``close`` or until too many attempts in a row fail; report every
        change of state."""
        attempt = 0
        while not self._closing:
            self.on_status(Status("connecting" if attempt == 0 else "lost", self._where(), attempt))
            session = self._session
            try:
                if session is None:
                    session = await Client.connect(self.host, self.port, name=self.name, resume=self.resume,
                                                   lobby=True, proof=self.proof, tls=self.tls)
                    self._session = session
                    if self.kept is not None:  # what an earlier run kept of the games it resumes
                        self.kept.attach(session)
                else:
                    await session.reconnect(self.host, self.port)  # keeps seats and sealed commitments
            except ServerError as exc:
                if exc.code == ErrorCode.UNKNOWN_SESSION and (session is not None or self.resume is not None):
                    self._session, self.resume = None, None  # a session this server does not know: start a new one
                    continue
                self.on_status(Status("failed", exc.error.message))  # written for the player: no code
                return
            except TLSFailed as exc:  # trying again would fail again: say why at once
                self.on_status(Status("failed", str(exc)))
                return
            except LOST as exc:
                attempt += 1
                unreachable = f"cannot reach {self._where()}: {reason_of(exc)}"
                if attempt >= (CONNECT_ATTEMPTS if session is None else RECONNECT_ATTEMPTS):
                    self.on_status(Status("failed", unreachable, attempt, retry=True))
                    return
                self.on_status(Status("lost", unreachable, attempt))
                await asyncio.sleep(self.retry_delays[min(attempt, len(self.retry_delays)) - 1])
                continue
            self.client, self.resume, attempt = session, session.resume_token, 0
            self.on_status(Status("connected", self._where()))
            final = await self._serve(session)
            self.client = None
            await session.close()
            if final:
                self.on_status(Status("failed", final))
                return
            if not self._closing:
                attempt = 1
                self.on_status(Status("lost", "the connection broke", attempt))
                await asyncio.sleep(self.retry_delays[0])
        self.on_status(Status("closed"))

    async def _serve(self, client: Client) -> str | None:
        """Read frames until the connection ends; a reason when it must not be reopened."""
        pinger = asyncio.create_task(self._ping(client))
        try:
            while True:
                msg = await client.recv(self.silence_limit)
                if isinstance(msg, m.GameState):
                    self._games[msg.game] = str(msg.options.get("game", m.DEFAULT_GAME))
                game = getattr(msg, "game", None)
                self.on_frame(typed_for(msg, self._games.get(game, m.DEFAULT_GAME) if isinstance(game, int)
                                        else m.DEFAULT_GAME))
                if isinstance(msg, m.DealRevealed):
                    self.on_frame(client.verdicts[msg.game])
                if isinstance(msg, m.Bye):
                    return msg.reason if msg.code in FINAL_BYES else None
        except LOST:
            return None
        finally:
            pinger.cancel()

    async def _ping(self, client: Client) -> None:
        try:
            while True:
                await asyncio.sleep(self.ping_interval)
                await client.send(m.Ping())
        except LOST:
            pass

    def _where(self) -> str:
        return str(Endpoint(self.host, self.port, self.tls is not None))

    async def send(self, msg: m.Message) -> int | None:
        if self.client is None:
            raise NotConnected("not connected: the client is reconnecting")
        try:
            return await self.client.send(msg)
        except LOST as exc:
            raise NotConnected(f"the connection broke: {reason_of(exc)}") from exc

    async def commit(self, game: int, cards: tuple[int, ...]) -> int | None:
        """Seal the cards (the request id is returned); the client opens them when the server asks."""
        if self.client is None:
            raise NotConnected("not connected: the client is reconnecting")
        try:
            return await self.client.commit(game, cards)
        except LOST as exc:
            raise NotConnected(f"the connection broke: {reason_of(exc)}") from exc

    def sealed(self, game: int) -> tuple[Any, ...] | None:
        """What we sealed this round of ``game`` and have not opened yet (``Seal.cards``; sealed by
        an earlier run too, ``protocol.saved_games``), or None."""
        if self.client is None or not self.client.has_sealed(game):
            return None
        return self.client.seals[game].cards

    async def act(self, game: int, move: dict) -> int | None:
        """A decision of Atlas & Zeus (the request id)."""
        return await self.send(m.Act(game=game, move=move))

    async def program(self, game: int, move: dict) -> int | None:
        """Seal a programming of Atlas & Zeus, claiming its slots; the client opens it when the
        server asks (the request id)."""
        if self.client is None:
            raise NotConnected("not connected: the client is reconnecting")
        try:
            return await self.client.commit_program(game, move["cards"])
        except LOST as exc:
            raise NotConnected(f"the connection broke: {reason_of(exc)}") from exc

    async def close(self) -> None:
        self._closing = True
        if self.client is not None:
            await self.client.close()


def reason_of(exc: BaseException) -> str:
    """Why a network call failed, in words a player can act on: "Connection refused", "Address
    already in use" (asyncio's own messages are sentences about the call: "Connect call failed
    ('127.0.0.1', 9)"); a name lookup's failure as the resolver says it."""
    number = getattr(exc, "errno", None)
    if isinstance(number, int) and number > 0:  # a name lookup's numbers are negative, not the system's
        return os.strerror(number)
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
