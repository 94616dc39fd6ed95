"""The arbiter server: accepts connections, runs the handshake, and routes requests.

``ArbiterServer`` owns the lobby, the rooms (one per game), the store, the outbox
and the hosted bots.  It is the handler of every ``Connection``: frames arrive as
calls and are handled synchronously on the event loop; replies and broadcasts are
sent at the end of the loop turn, after the turn's writes are committed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import secrets
import ssl
import time
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol import gateway_assertions
from protocol import messages as m
from protocol.account_keys import (
    NATIVE_KEY_TYPE,
    NONCE_BYTES,
    BadKey,
    blob_fingerprint,
    key_fingerprint,
    parse_key_line,
    proof_message,
    verify_signature,
)
from protocol.errors import ErrorCode, ProtocolError
from protocol.gateway_assertions import Assertion, BadAssertion
from protocol.handoff import HOSTED_BY_WEB
from protocol.messages import PROTOCOL_MAJOR, PROTOCOL_VERSION, Direction
from protocol.names import account_name, guest_name, name_key, unmarked
from protocol.schema import invalid

from .accounts import Account, Accounts, KeyTaken, NameTaken, bot_name
from .bot_scheduler import BotScheduler, Thinker
from .clock import Clock, LoopClock
from .config import ServerConfig, TLSSettings
from .connection import Connection, Outbox
from .fair_deal import DealSecrets, PendingDeal
from .games import Forfeit, GameKind, HostedGame, game_kind
from .gateway_keys import GATEWAY_KEY_FILE, GatewaySigner, load_or_create_gateway_key, read_trusted_gateways
from .history import GameHistory, Reader
from .hosted_bots import HostedBot
from .lobby import Lobby, check_client_plays, check_may_play_rated, reserved_names
from .metrics import ServerMetrics
from .moderation import VIA_NATIVE, VIA_SSH, Ban, Moderation, Player
from .quotas import Quotas
from .rates import BucketsByKey
from .ratings import Ratings
from .resume_tokens import ResumeTokens
from .room import GameSeat, Participant, Room, Seal, Seat, token_hash
from .store import Pause, Store, StoredGame
from .web_logins import NO_WEB, WebLogins

log = logging.getLogger(__name__)

GAME_MESSAGES = (m.Commit, m.Open, m.Act, m.Exchange, m.Remove, m.Place, m.Resign, m.Rematch, m.Chat, m.Pause)
#: Moves are paced by the game itself (one decision at a time, and every refused one
#: counts towards a disconnect), so the message-rate limit does not apply to them.
PACED_BY_THE_GAME = (m.Commit, m.Open, m.Act, m.Exchange, m.Remove, m.Place, m.Resign)
#: What ``bye`` says when the server stops (unless ``stop`` is told another reason).
SHUTDOWN_REASON = "the server is shutting down; your games are kept"
ACCOUNT_CHANGES = (m.Rename, m.AddKey, m.RemoveKey)
HandshakeFrame = TypeVar("HandshakeFrame", m.Hello, m.Prove)


@dataclass(frozen=True)
class PendingProof:
    """A hello that claimed an account key, waiting for its ``prove``: the key's fingerprint ("" for
    a gateway's guest), the nonce it was challenged with, and the gateway's assertion (None: the
    client's own key)."""

    hello: m.Hello
    fingerprint: str
    nonce: bytes
    assertion: Assertion | None = None


class TLSUnavailable(Exception):
    """The TLS listener cannot start: its certificate or key cannot be used, or its port is taken."""


def server_tls_context(tls: TLSSettings) -> ssl.SSLContext:
    """The TLS context of the arbiter's TLS listener; OSError or ssl.SSLError if its files cannot
    be read or do not match."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(tls.cert_file, tls.key_file)
    return context


def account_id(conn: Connection) -> int | None:
    """The id of the account a connection proved (None: a guest)."""
    return None if conn.account is None else conn.account.id


class ArbiterServer:
    """The arbiter.  ``clock`` runs the games' clocks and the retirement of finished games
    (default: the event loop's); ``think`` runs the hosted bots' searches (default: worker
    processes; a test's own, to end each search when it says); ``rng`` makes the server's random
    choices: colours, bot seeds, the secrets of deals (default: the operating system's, or one
    seeded with ``config.game_seed``); ``wall`` is the wall clock the ratings count days away on
    (default: ``time.time``)."""

    def __init__(self, config: ServerConfig, clock: Clock | None = None, think: Thinker | None = None,
                 rng: random.Random | None = None, wall: Callable[[], float] = time.time) -> None:
        self.config = config
        self.clock = clock or LoopClock()
        self.limits = config.limits
        self.store = Store(config.db_path)
        self.history = GameHistory(self.store, self.limits)
        data_dir = None if config.db_path == ":memory:" else Path(config.db_path).parent
        self.data_dir = data_dir  # beside the database: its secrets (None: an in-memory database)
        self.tokens = ResumeTokens.in_directory(data_dir)
        self.wall = wall
        # what the in-process gateways (SSH, web) vouch for their players with; trusted, as are the
        # gateways apart from the arbiter whose keys the operator listed (server.gateway_keys)
        own_key = Ed25519PrivateKey.generate() if data_dir is None else \
            load_or_create_gateway_key(data_dir / GATEWAY_KEY_FILE)
        self.gateway_signer = GatewaySigner(own_key, config.gateway.assertion_seconds, wall)
        self.trusted_gateways = frozenset({self.gateway_signer.public}) | (
            read_trusted_gateways(Path(config.trusted_gateways)) if config.trusted_gateways else frozenset())
        self.web_logins: WebLogins | None = None  # the web gateway's sign-in codes, when there is one
        self.metrics = ServerMetrics()  # served by ``aton-server --metrics-port`` (server.ops_http)
        self.outbox = Outbox(before_sending=self.metrics.timed_commits(self.store.commit),
                             on_failure=self._store_failed, max_backlog=self.limits.outbox_bytes_total)
        self.store.on_write = self.outbox.wake  # a write is always followed by a commit in its turn
        self.accounts = Accounts(self.store)
        #: each hosted bot level's account, so that its games count for it
        self.bot_accounts: dict[str, Account] = {level: self.accounts.bot(bot_name(level)) for level in m.BOT_LEVELS}
        self.moderation = Moderation(self.store, config.logins_kept_days)
        self.moderation.listeners.append(self._apply_bans)
        self.moderation.expel = self.expel
        self.proofs: dict[Connection, PendingProof] = {}  # hellos waiting for their prove
        self.account_changes = BucketsByKey(1 / self.limits.account_change_refill_seconds, self.limits.account_changes)
        self.new_accounts = BucketsByKey(1 / self.limits.new_account_refill_seconds,
                                         self.limits.new_accounts_per_address)
        self.ratings = Ratings(self.store, wall, {account.id: level for level, account in self.bot_accounts.items()})
        self.lobby = Lobby(self._start_game_between, config.limits, reserved_names(config.server_name),
                           ratings_of=lambda conn: self.ratings.shown_per_clock(account_id(conn)),
                           bot_ratings=lambda: {level: self.ratings.shown_per_clock(account.id)
                                                for level, account in self.bot_accounts.items()},
                           clock=self.clock)
        self.rooms: dict[int, Room] = {}
        self.connections: set[Connection] = set()
        self.by_token: dict[str, Connection] = {}  # token hash -> live connection
        self.per_address: Counter[str] = Counter()
        self.quotas = Quotas(self.limits)
        self.bot_scheduler = BotScheduler(config.hosted_bots, self.clock, think)
        # game seeds, colours and bot seeds: unpredictable, unless a fixed seed is configured
        self.rng = rng or (random.SystemRandom() if config.game_seed is None else random.Random(config.game_seed))
        #: the challenges' nonces: unpredictable, unless a fixed seed is configured (for the documented
        #: example; apart from ``rng``, so that proofs do not change the games a seed makes)
        self.nonces = random.SystemRandom() if config.game_seed is None else random.Random(f"nonces {config.game_seed}")
        self.deals: dict[int, PendingDeal] = {}  # game -> its deal, while the players contribute
        self._next_id = self.store.next_game_id()
        self._server: asyncio.base_events.Server | None = None
        self._tls_server: asyncio.base_events.Server | None = None  # ``config.tls``'s listener
        self.failed = asyncio.Event()  # the database refused a write: the server must stop
        self.metrics.track_arbiter(self)

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        self._restore_games()
        self.moderation.start(self.clock, self.config.moderation_poll_seconds)
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self._connection, self.config.host, self.config.port)
        if self.config.tls is not None:
            try:
                self._tls_server = await self._listen_tls(self.config.tls)
            except BaseException:
                self._server.close()
                raise

    async def _listen_tls(self, tls: TLSSettings) -> asyncio.base_events.Server:
        """The TLS listener; TLSUnavailable saying why there can be none."""
        try:
            context = server_tls_context(tls)
        except (OSError, ssl.SSLError) as exc:
            raise TLSUnavailable(f"cannot load the TLS certificate {tls.cert_file} and key {tls.key_file}: "
                                 f"{getattr(exc, 'strerror', None) or exc}") from None
        host = tls.host or self.config.host
        try:
            return await asyncio.get_running_loop().create_server(
                self._connection, host, tls.port, ssl=context, ssl_handshake_timeout=tls.handshake_seconds)
        except OSError as exc:
            raise TLSUnavailable(f"cannot listen for TLS on {host}:{tls.port}: {exc.strerror or exc}") from None

    def _connection(self) -> Connection:
        return Connection(self, self.outbox, self.limits)

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.sockets[0].getsockname()[1]

    @property
    def tls_port(self) -> int | None:
        """The port of the TLS listener (None: there is none)."""
        return None if self._tls_server is None else self._tls_server.sockets[0].getsockname()[1]

    def health(self) -> str | None:
        """None while the server serves, or what is wrong (``/healthz``)."""
        if self.failed.is_set():
            return "the database refused a write"
        if self._server is None or not self._server.is_serving():
            return "not listening"
        if self._tls_server is not None and not self._tls_server.is_serving():
            return "not listening for TLS"
        return None

    async def serve_until(self, stop: asyncio.Event) -> None:
        await stop.wait()
        await self.stop()

    async def stop(self, reason: str | None = None) -> None:
        """Say bye to everyone (``reason``: why, in the players' words; ``SHUTDOWN_REASON`` if
        None), keep each unfinished game's log and clocks (``Pause``: a restart resumes them),
        stop the timers, commit the last writes and close the database."""
        for server in (self._server, self._tls_server):
            if server is not None:
                server.close()
        self.moderation.stop()
        self.lobby.stop()
        for conn in list(self.connections):
            conn.close("shutdown", reason or SHUTDOWN_REASON)
        self.outbox.flush()
        await self._until_sent(timeout=5)
        for room in self.rooms.values():  # as the players saw it last: before they are counted as gone
            if not room.game.is_over and self.store.failure is None:
                self.store.save_pause(room.game_id, room.pause())  # its log and clocks, for the restart
        for conn in list(self.connections):
            self._gone(conn)
            conn.abort()  # its bye is written: the peer's own close is not waited for
        for room in self.rooms.values():
            room.close()
        for deal in self.deals.values():
            deal.cancel()  # a deal not yet fixed is lost: its game never started
        self.bot_scheduler.close()
        self.store.close()

    async def _until_sent(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until every connection's frames are written."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline and any(c.unsent for c in self.connections):
            await asyncio.sleep(0.01)

    def _store_failed(self, exc: Exception) -> None:
        """A commit failed: nothing of that turn was sent; stop rather than go on unstored."""
        log.critical("the database refused a write (%s): stopping; restart the server to resume "
                     "every game from its last stored move", exc)
        self.failed.set()

    def _new_id(self) -> int:
        game_id = self._next_id
        self._next_id += 1
        return game_id

    # ------------------------------------------------------------------ connections

    def connection_opened(self, conn: Connection) -> None:
        if len(self.connections) >= self.limits.max_connections:
            full = "the server is full; try again later"
        elif self.per_address[conn.address] >= self.limits.max_connections_per_address and \
                self.quotas.limits_address(conn.address):
            full = "too many connections from your address; close one first"
        else:
            full = ""
        if full:
            conn.send_error(ProtocolError(ErrorCode.SERVER_FULL, full))
            conn.close("server_full", "too many connections")
            return
        self.connections.add(conn)
        self.per_address[conn.address] += 1

    def frame_received(self, conn: Connection, raw: Any) -> None:
        try:
            if conn.greeted:
                self._handle_raw(conn, raw)
            else:
                self._handshake(conn, raw)
        except Exception:
            log.exception("connection %s failed", conn.name or conn.address)
            conn.abort()

    def bad_frame(self, conn: Connection, error: ProtocolError) -> None:
        conn.send_error(error)
        if not conn.greeted:
            conn.close("misbehaving", "the handshake failed: " + error.message)
        elif error.code is ErrorCode.FRAME_TOO_LARGE:
            conn.close("misbehaving", error.message)  # the stream cannot be resynchronised
        elif conn.record_outcome(ok=False):
            conn.close("misbehaving", "too many malformed messages")

    def handshake_timed_out(self, conn: Connection) -> None:
        conn.send_error(ProtocolError(ErrorCode.TIMEOUT, "no hello within the handshake time"))
        conn.close("timeout", "handshake timeout")

    def idle_timed_out(self, conn: Connection, reason: str) -> None:
        conn.close("timeout", reason)

    def occupied(self, conn: Connection) -> bool:
        return conn in self._waiting() or any(room.seat_of(conn) is not None or conn in room.spectators
                                              for room in self.rooms.values())

    def connection_closed(self, conn: Connection) -> None:
        if conn in self.connections:
            self._gone(conn)

    def _handshake(self, conn: Connection, raw: Any) -> None:
        pending = self.proofs.pop(conn, None)
        if pending is not None:
            self._proved(conn, pending, raw)
            return
        hello = self._handshake_frame(conn, raw, m.Hello, "the first message must be hello")
        if hello is None:
            return
        major = hello.version.split(".", 1)[0]
        if major != str(PROTOCOL_MAJOR):
            conn.send_error(ProtocolError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"this server speaks protocol {PROTOCOL_VERSION} (major {PROTOCOL_MAJOR}); "
                f"your client speaks {hello.version}: please upgrade it"), hello.id)
            conn.close("unsupported_version", f"protocol {hello.version} is not supported")
            return
        conn.protocol_minor = m.minor_of(hello.version)  # what it is told from now on, a refusal too
        if (hello.key is None and hello.gateway is None) or conn.protocol_minor < m.ACCOUNTS:
            self._admit(conn, hello, None)  # a guest (a client older than accounts cannot answer a challenge)
            return
        try:
            fingerprint, assertion = self._claimed_key(hello)
        except ProtocolError as exc:
            self._refuse_hello(conn, exc, hello.id)
            return
        nonce = self.nonces.randbytes(NONCE_BYTES)
        self.proofs[conn] = PendingProof(hello, fingerprint, nonce, assertion)
        conn.deliver(m.Challenge(nonce=nonce, server=self.config.server_name, reply_to=hello.id))

    def _handshake_frame(self, conn: Connection, raw: Any, kind: type[HandshakeFrame],
                         why: str) -> HandshakeFrame | None:
        """``raw`` as the message the handshake waits for (``kind``); None once the handshake is
        refused (``why``: what was expected) because it is not that."""
        try:
            msg = m.parse(raw, Direction.CLIENT)
            if not isinstance(msg, kind):
                raise ProtocolError(ErrorCode.NOT_ALLOWED, why)
        except ProtocolError as exc:
            self._refuse_hello(conn, exc, m.request_id(raw))
            return None
        return msg

    def _claimed_key(self, hello: m.Hello) -> tuple[str, Assertion | None]:
        """The fingerprint of the key a hello claims (``key``, or a gateway's assertion: "" for its
        guest) and the assertion; ProtocolError if the assertion proves nothing (not one, signed by
        a gateway key this server does not trust, forged, expired)."""
        if hello.gateway is not None:
            if hello.key is not None:
                raise invalid("gateway", "a hello proves either key or gateway, not both")
            try:
                assertion = gateway_assertions.verify(hello.gateway, self.trusted_gateways, self.wall())
            except BadAssertion as exc:
                log.info("a gateway assertion refused: %s", exc)
                raise ProtocolError(ErrorCode.PROOF_FAILED, str(exc), field="gateway") from None
            return assertion.player or "", assertion
        assert hello.key is not None
        try:
            key_type, blob = parse_key_line(hello.key)
        except BadKey as exc:
            raise invalid("key", str(exc)) from None
        if key_type != NATIVE_KEY_TYPE:
            raise invalid("key", f"a hello proves an {NATIVE_KEY_TYPE} key")
        return blob_fingerprint(blob), None

    def _proved(self, conn: Connection, pending: PendingProof, raw: Any) -> None:
        """The answer to a challenge: the key's account if it proves the key, else a guest."""
        hello = pending.hello
        prove = self._handshake_frame(conn, raw, m.Prove, "answer the challenge with prove")
        if prove is None:
            return
        message = proof_message(pending.nonce, self.config.server_name, pending.fingerprint)
        fingerprint, assertion = pending.fingerprint, pending.assertion
        if assertion is not None:
            if not gateway_assertions.verify_session_signature(assertion, message, prove.signature):
                log.info("%s: a gateway client's proof failed (not its session key)", conn.address)
                self._refuse_hello(conn, ProtocolError(
                    ErrorCode.PROOF_FAILED, "the signature is not by the session key of the gateway's assertion"),
                    prove.id)
                return
            if assertion.code is not None:
                try:
                    assertion = self._redeemed(assertion)
                except ProtocolError as exc:
                    self._refuse_hello(conn, exc, prove.id)
                    return
                fingerprint = assertion.player or ""
            conn.assertion = assertion
            hello = self._as_asserted(hello, assertion)
            if assertion.player is None:
                self._admit(conn, hello, None)
                return
        elif not (hello.key is not None and verify_signature(hello.key, message, prove.signature)):
            log.info("%s: the proof of %s failed", conn.address, pending.fingerprint)
            conn.send_error(ProtocolError(
                ErrorCode.PROOF_FAILED, f"the signature does not prove the key {pending.fingerprint}"
                + (": you play as a guest" if self.config.guests else "")), prove.id)
            self._admit(conn, hello, None)
            return
        if self.accounts.by_fingerprint(fingerprint) is None and self.quotas.limits_address(conn.address):
            if self.new_accounts.empty(conn.address):
                self._refuse_hello(conn, ProtocolError(
                    ErrorCode.RATE_LIMITED, "too many new accounts from your address lately: try again later"),
                    prove.id)
                return
            self.new_accounts.take(conn.address)
        try:
            account, notice = self.accounts.sign_in(
                fingerprint, hello.kind, lambda: account_name(unmarked(hello.name), self.lobby.reserved))
        except ProtocolError as exc:
            self._refuse_hello(conn, exc, prove.id)
            return
        self._admit(conn, hello, account, notice, fingerprint)

    def _redeemed(self, assertion: Assertion) -> Assertion:
        """A web gateway's assertion of the player of a sign-in code (a gateway apart from this
        server cannot redeem it), as if it had named them: the code redeemed now, counted against
        the browser's address (``server.web_logins``); ProtocolError if it signs nobody in."""
        if assertion.via != HOSTED_BY_WEB or assertion.player is not None or assertion.code is None:
            raise invalid("gateway", "only a web gateway's assertion of no player carries a sign-in code")
        if self.web_logins is None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, NO_WEB)
        grant = self.web_logins.redeem(assertion.code, assertion.address)
        if grant is None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, self.web_logins.refusal())
        return dataclasses.replace(assertion, player=grant.fingerprint, name=grant.name, code=None)

    def _as_asserted(self, hello: m.Hello, assertion: Assertion) -> m.Hello:
        """The hello of a gateway's client as its gateway asserted it: the name the player asked the
        gateway for, and for a key's game client without a session of its own yet, the key's own
        session (``ResumeTokens.for_key``), so that the key takes back its seats from any login
        through any gateway; for a key's command (``ssh HOST games``, no seats), the key's session of
        commands, which its requests for games are counted in (``server.history``)."""
        resume = hello.resume
        if resume is None and assertion.player is not None:
            player = assertion.player
            resume = self.tokens.for_key(player) if assertion.seats else self.tokens.for_key_commands(player)
        return dataclasses.replace(hello, name=assertion.name, resume=resume)

    def _admit(self, conn: Connection, hello: m.Hello, account: Account | None, notice: str | None = None,
               fingerprint: str | None = None) -> None:
        """Open the session of a hello, as ``account`` (None: a guest), if it may be opened."""
        if account is None and not self.config.guests:
            self._refuse_hello(conn, ProtocolError(
                ErrorCode.NOT_ALLOWED, "this server admits players with an account key only: connect with the aton "
                "client (it makes a key) or with an SSH key"), hello.id)
            return
        seats = self._seats_of(token_hash(hello.resume)) if hello.resume else []
        if hello.resume and not seats and not self.tokens.recognises(hello.resume):
            # tokens are the server's to issue: one it did not issue would open a new session
            # under a name the client chose, which anyone who guesses it could take over
            self._refuse_hello(conn, ProtocolError(
                ErrorCode.UNKNOWN_SESSION, "this server did not issue that resume token: "
                "say hello without it to start a new session", field="resume"), hello.id)
            return
        holder = None if account is None else account.id
        live = self.by_token.get(token_hash(hello.resume)) if hello.resume else None
        owners = {room.seats[seat].account for room, seat in seats} | \
            ({live.account.id} if live is not None and live.account is not None else set())
        if owners - {None, holder}:
            # a session of an account is its account's: its token alone (stolen, say) takes nothing
            self._refuse_hello(conn, ProtocolError(
                ErrorCode.UNKNOWN_SESSION, "that session belongs to an account this hello does not prove: "
                "say hello without resume to start a new session", field="resume"), hello.id)
            return
        if seats and owners == {None}:
            account = None  # a guest's games (a guest's token is all it has): the session plays on as that guest
        try:  # a session that holds seats plays under the name it has there
            name = seats[0][0].seats[seats[0][1]].name if seats else \
                account.name if account is not None else self._guest_name(hello.name)
        except ProtocolError as exc:
            self._refuse_hello(conn, exc, hello.id)
            return
        self._open_session(conn, hello, name, seats, account, notice, fingerprint)

    def _guest_name(self, proposed: str) -> str:
        """A guest's name: marked, and never the name of an account (its first free variant then)."""
        return guest_name(self.accounts.free_variant(self.lobby.admit_name(unmarked(proposed))))

    def _refuse_hello(self, conn: Connection, error: ProtocolError, reply_to: int | None) -> None:
        conn.send_error(error, reply_to)
        conn.close("misbehaving", "the handshake failed: " + error.message)

    def _open_session(self, conn: Connection, hello: m.Hello, name: str, seats: list[tuple[Room, GameSeat]],
                      account: Account | None, notice: str | None, fingerprint: str | None) -> None:
        conn.account, conn.key = account, fingerprint  # (a ban may be the account's)
        ban = self._ban_of(conn)
        if ban is not None:
            conn.send_error(ProtocolError(ErrorCode.BANNED, ban.line()), hello.id)
            conn.close("banned", ban.line())
            log.info("%s (%s) refused: banned (%s)", name, conn.address, ban.target())
            return
        token = hello.resume or self.tokens.issue()
        digest = token_hash(token)
        previous = self.by_token.get(digest)
        if previous is not None and previous is not conn:
            self.lobby.depart(previous)
            previous.close("replaced", "this session was resumed from another connection")
        conn.name = name if account is not None else self.lobby.unique_name(name)  # an account's name is its own
        conn.kind = hello.kind
        conn.token = token
        conn.lobby_subscribed = hello.lobby if hello.lobby is not None else hello.kind != "bot"
        conn.mark_greeted()
        self.by_token[digest] = conn
        account_id = None if account is None else account.id
        log.info("%s logged in (%s) as a %s from %s", conn.name,
                 "a guest" if account_id is None else f"account {account_id}", conn.kind, conn.address,
                 extra={"event": "login", "player": conn.name, "account": account_id, "kind": conn.kind,
                        "address": conn.address})
        conn.deliver(m.Welcome(server=self.config.server_name, version=PROTOCOL_VERSION,
                               session=secrets.token_hex(8), resume=token, name=conn.name,
                               limits=self.limits.public(), reply_to=hello.id,
                               games=tuple(room.game_id for room, _ in seats[:m.WELCOME_GAMES]),
                               guest=account is None, notice=notice))
        self._record_login(conn)
        if conn.account is not None and conn.protocol_minor >= m.MODERATION:  # (chat_hidden is 1.6's)
            conn.muted = self.moderation.muted_by(conn.account.id)
            if conn.muted:
                conn.deliver(m.Mutes(names=tuple(sorted(conn.muted))))
        self.lobby.arrive(conn)
        for room, seat in seats:
            room.attach(seat, conn)
            self.lobby.set_status(conn.name, "playing")
        for deal in self.deals.values():
            held = deal.seat_held_by(digest)
            if held is not None:
                deal.resend(held)

    def _seats_of(self, digest: str) -> list[tuple[Room, GameSeat]]:
        return [(room, name) for room in self.rooms.values() if not room.game.is_over
                for name, seat in room.seats.items() if seat.token_hash == digest]

    def _gone(self, conn: Connection) -> None:
        self.connections.discard(conn)
        self.proofs.pop(conn, None)
        self.per_address[conn.address] -= 1
        if self.per_address[conn.address] <= 0:
            del self.per_address[conn.address]
        if conn.token and self.by_token.get(token_hash(conn.token)) is conn:
            del self.by_token[token_hash(conn.token)]
        self.lobby.depart(conn)
        for room in self._rooms_of(conn):
            room.detach(conn)

    def _entered(self, participant: Participant, room: Room) -> None:
        """A participant took a seat in ``room`` or watches it: a connection remembers the room
        (weakly: a retired room is forgotten), so that its end and its games' ends look at the
        rooms it entered, not at every room of the server."""
        if isinstance(participant, Connection):
            participant.rooms[room.game_id] = room

    def _rooms_of(self, conn: Connection) -> list[Room]:
        """The rooms still held here that ``conn`` entered (it may have left some since)."""
        return [room for room in conn.rooms.values() if self.rooms.get(room.game_id) is room]

    def _handle_raw(self, conn: Connection, raw: Any) -> None:
        reply_to = m.request_id(raw)
        admitted = False
        try:
            msg = m.parse(raw, Direction.CLIENT)
            if not isinstance(msg, PACED_BY_THE_GAME):
                conn.admit()
                admitted = True
            self._dispatch(conn, msg)
            if not isinstance(msg, m.Ping):
                conn.mark_request()
        except ProtocolError as exc:
            conn.send_error(exc, reply_to)
            if conn.record_outcome(ok=False, admitted=admitted):
                conn.close("misbehaving", "too many refused messages")
            return
        except Exception:
            log.exception("request from %s failed", conn.name)
            conn.send_error(ProtocolError(ErrorCode.INTERNAL, "the server failed on this request"), reply_to)
            return
        conn.record_outcome(ok=True)

    # ------------------------------------------------------------------ requests

    def _dispatch(self, conn: Connection, msg: m.Message) -> None:
        if isinstance(msg, GAME_MESSAGES):
            room, seat = self._room_and_seat(conn, msg.game)
            if isinstance(msg, m.Chat):
                self._refuse_muted(conn)
                conn.admit_chat(msg.text)
            room.handle(seat, msg, conn)
        elif isinstance(msg, m.Ping):
            conn.deliver(m.Pong(reply_to=msg.id))
        elif isinstance(msg, m.GetAccount):
            conn.deliver(self._account_info(conn, msg.id))
        elif isinstance(msg, ACCOUNT_CHANGES):
            self._change_account(conn, msg)
            conn.deliver(self._account_info(conn, msg.id))
        elif isinstance(msg, m.Hello):
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "hello is only the first message of a connection")
        elif isinstance(msg, m.CreateTable):
            self._require_player(conn)
            self._check_new_game(conn, replaces_waiting=True)
            rated = self._rated(conn, msg.rated, "a rated table", game_kind(msg.game))
            table = self.lobby.create_table(conn, self._new_id(), msg.clock, msg.private, rated,
                                            self._shown_rating(account_id(conn), msg.clock, game_kind(msg.game)),
                                            game=msg.game)
            conn.deliver(m.TableCreated(table=table.table, clock=table.clock, private=table.private,
                                        invite=table.invite, reply_to=msg.id, rated=rated, game=msg.game))
        elif isinstance(msg, (m.JoinTable, m.JoinInvite)):
            self._require_player(conn)
            self._join(conn, msg)
        elif isinstance(msg, m.QuickMatch):
            self._require_player(conn)
            self._check_new_game(conn, replaces_waiting=True)
            rated = self._rated(conn, msg.rated, "a rated quick match", game_kind(msg.game))
            if not self.lobby.quick_match(conn, msg.clock, rated, game=msg.game):
                conn.deliver(m.Queued(clock=msg.clock, reply_to=msg.id, rated=rated, game=msg.game))
        elif isinstance(msg, m.PlayBot):
            self._require_player(conn)
            self._check_new_game(conn, replaces_waiting=False)
            kind = game_kind(msg.game)
            self._start_bot_game(conn, kind, msg.level, msg.clock, msg.seat,
                                 self._rated(conn, msg.rated, "a rated game", kind))
        elif isinstance(msg, m.GetLobbyPage):
            conn.deliver(self.lobby.page(conn, msg))
        elif isinstance(msg, m.Leave):
            self._leave(conn, msg)
        elif isinstance(msg, m.Watch):
            room = self._room(conn, msg.game)
            check_client_plays(conn, room.game.name)
            room.watch(conn, msg.id)
            self.lobby.set_status(conn.name, "watching")
        elif isinstance(msg, m.Sync):
            room = self._room(conn, msg.game)
            playing = room.seat_of(conn)
            seat = room.seat_held_by(token_hash(conn.token)) if playing is None else playing
            if seat is not None and playing is None:
                room.attach(seat, conn, msg.id)  # e.g. a game that ended while this session was away
            elif seat is None and conn not in room.spectators:
                raise ProtocolError(ErrorCode.NOT_ALLOWED, f"you neither play nor watch game {msg.game}")
            else:
                conn.deliver(room.full_state(seat, msg.id))
        elif isinstance(msg, (m.DealCommit, m.DealOpen)):
            deal = self.deals.get(msg.game)
            seat = None if deal is None else deal.seat_held_by(token_hash(conn.token))
            if deal is None or seat is None:
                raise ProtocolError(ErrorCode.NOT_FOUND, f"there is no deal of game {msg.game} for you", field="game")
            if isinstance(msg, m.DealCommit):
                deal.commit(seat, msg.digest)
            else:
                deal.open(seat, msg.value)
            conn.deliver(m.Ack(game=msg.game, version=0, reply_to=msg.id))
            deal.advance()  # (after the ack: the game's first state may follow at once)
        elif isinstance(msg, (m.Mute, m.Unmute)):
            self._mute(conn, msg)
        elif isinstance(msg, m.Report):
            self._report(conn, msg)
        elif isinstance(msg, m.GetRecord):
            record = self.history.record(self._reader(conn), msg.game)
            conn.deliver(m.GameRecordReply(game=msg.game, record=record, reply_to=msg.id))
        elif isinstance(msg, m.GetProfile):
            self._profile(conn, msg)
        elif isinstance(msg, m.GetLeaderboard):
            self._leaderboard(conn, msg)
        elif isinstance(msg, m.GetWebLogin):
            self._web_login(conn, msg)
        else:
            raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"{msg.TYPE} is not handled by this server")

    def _reader(self, conn: Connection) -> Reader:
        """Who ``conn`` is to the games' history: its session, and its account (which sees all its games)."""
        return Reader(session=token_hash(conn.token), account=None if conn.account is None else conn.account.id)

    def _rated(self, conn: Connection, asked: bool | None, what: str, kind: GameKind) -> bool:
        """Whether the game ``conn`` asks for is rated (a guest may not ask, nor for a game of a
        kind that is never rated; not asking: casual)."""
        if asked:
            check_may_play_rated(conn, what)
            if not kind.rated:
                raise ProtocolError(ErrorCode.NOT_ALLOWED, f"{what}: {kind.title} games are casual on this server; "
                                    "ask without rated", field="rated")
        return bool(asked)

    def _shown_rating(self, account: int | None, clock: str, kind: GameKind) -> dict | None:
        """The rating an account shows beside its name in a game of ``kind`` (None: none, for a
        guest, or in a game that is never rated: ratings are Aton's)."""
        return self.ratings.shown_for(account, clock) if kind.rated else None

    def _account_info(self, conn: Connection, reply_to: int | None) -> m.AccountInfo:
        account = conn.account
        if account is None:
            return m.AccountInfo(name=conn.name, guest=True, kind="bot" if conn.kind == "bot" else "human",
                                 reply_to=reply_to)
        keys = tuple({"fingerprint": key.fingerprint, "added": int(key.added),
                      "last_seen": None if key.last_seen is None else int(key.last_seen), "logins": key.logins}
                     for key in self.accounts.keys(account))
        return m.AccountInfo(name=account.name, guest=False, kind=account.kind, keys=keys[:m.ACCOUNT_KEYS],
                             key=conn.key, reply_to=reply_to)

    def _change_account(self, conn: Connection, msg: m.Rename | m.AddKey | m.RemoveKey) -> None:
        """Rename the connection's account, or add or remove one of its keys; ProtocolError says why not."""
        account = conn.account
        if account is None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "a guest has no account: connect with the aton client, "
                                "which makes a key, or with an SSH key")
        if self.account_changes.empty(account.id):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many changes to your account lately: try again later")
        self.account_changes.take(account.id)
        if isinstance(msg, m.Rename):
            self._rename(account, msg.name)
        elif isinstance(msg, m.AddKey):
            try:
                fingerprint = key_fingerprint(msg.key)
            except BadKey as exc:
                raise invalid("key", str(exc)) from None
            if len(self.accounts.keys(account)) >= self.limits.account_keys:
                raise ProtocolError(ErrorCode.NOT_ALLOWED, f"an account holds at most {self.limits.account_keys} keys: "
                                    "remove one first")
            try:
                self.accounts.add_key(account, fingerprint)
            except KeyTaken:
                raise ProtocolError(ErrorCode.NOT_ALLOWED, f"the key {fingerprint} belongs to an account already",
                                    field="key") from None
        else:
            keys = [key.fingerprint for key in self.accounts.keys(account)]
            if msg.fingerprint not in keys:
                raise ProtocolError(ErrorCode.NOT_FOUND, f"{msg.fingerprint} is not a key of your account",
                                    field="fingerprint")
            if len(keys) == 1:
                raise ProtocolError(ErrorCode.NOT_ALLOWED, "that is your account's last key: add another one first",
                                    field="fingerprint")
            self.accounts.remove_key(account, msg.fingerprint)

    def _rename(self, account: Account, proposed: str) -> None:
        """Rename an account and every connection it has, if none of them plays or waits for a game."""
        name = account_name(proposed, self.lobby.reserved)
        sessions = [c for c in self.connections if c.account is not None and c.account.id == account.id]
        if any(self._occupied_elsewhere(c) for c in sessions):
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "finish your games (and close your table) before a rename")
        try:
            renamed = self.accounts.rename(account, name)
        except NameTaken:
            free = self.accounts.free_variant(name)
            raise ProtocolError(ErrorCode.NAME_TAKEN, f'the name "{name}" belongs to another player; '
                                f'"{free}" is free', field="name") from None
        for session in sessions:
            self.lobby.rename(session, renamed.name)
            session.account = renamed

    def _profile(self, conn: Connection, msg: m.GetProfile) -> None:
        """A player's profile: ``conn``'s own, that of the player online under ``msg.name``, or
        that of the account of that name."""
        online = conn if msg.name is None else self._online(msg.name)
        if online is not None:
            name, subject = online.name, self._reader(online)
        else:
            assert msg.name is not None
            account = self.accounts.by_name(msg.name)
            if account is None:
                raise ProtocolError(ErrorCode.NOT_FOUND, f"there is no player {msg.name}", field="name")
            name, subject = account.name, Reader(session=None, account=account.id)
        lines, more = self.history.games(subject, msg.page, viewer=self._reader(conn))
        totals = self.history.totals(subject)
        conn.deliver(m.Profile(name=name, guest=subject.account is None, played=totals.played, won=totals.won,
                               lost=totals.lost, drawn=totals.drawn, games=tuple(line.to_wire() for line in lines),
                               page=msg.page, more=more, ratings=self.ratings.shown_per_clock(subject.account),
                               reply_to=msg.id))

    def _web_login(self, conn: Connection, msg: m.GetWebLogin) -> None:
        """A link that signs a browser in as the key ``conn`` proved (``server.web_logins``)."""
        if self.web_logins is None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, NO_WEB)
        if conn.account is None or conn.key is None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "a guest has no account to sign a browser in with")
        issued = self.web_logins.issue(conn.key, conn.account.name)
        conn.deliver(m.WebLogin(link=issued.link, seconds=round(issued.seconds), reply_to=msg.id))

    def _leaderboard(self, conn: Connection, msg: m.GetLeaderboard) -> None:
        """A page of a clock's leaderboard (``server.ratings``), counted with the history's requests."""
        self.history.admit(self._reader(conn))
        size = min(self.limits.history_page_entries, m.PROFILE_GAMES)
        total, standings = self.ratings.leaderboard(msg.clock, msg.page * size, size)
        entries = tuple({"rank": s.rank, "name": s.name, "kind": s.kind, "rating": round(s.rating.rating),
                         "rd": round(s.rating.rd), "games": s.rating.games} for s in standings)
        conn.deliver(m.Leaderboard(clock=msg.clock, total=total, entries=entries, page=msg.page,
                                   more=(msg.page + 1) * size < total, reply_to=msg.id))

    def _online(self, name: str) -> Connection | None:
        """The connection of the player online under ``name`` (names are unique among them)."""
        return next((c for c in self.connections if c.greeted and c.name == name), None)

    def _require_player(self, conn: Connection) -> None:
        if conn.kind == "spectator":
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "spectators cannot take a seat; say hello as a human or bot")

    def _join(self, conn: Connection, msg: m.JoinTable | m.JoinInvite) -> None:
        """Sit down at a table; a join that finds no table counts against the session and the address."""
        session = token_hash(conn.token)
        self.quotas.check_join(session, conn.address)
        self._check_new_game(conn, replaces_waiting=True)
        try:
            if isinstance(msg, m.JoinTable):
                self.lobby.join_table(conn, msg.table)
            else:
                self.lobby.join_invite(conn, msg.code)
        except ProtocolError as exc:
            if exc.code is ErrorCode.NOT_FOUND:
                self.quotas.join_failed(session, conn.address)
            raise

    def _waiting(self) -> list[Connection]:
        """The connections that wait at an open table or in the quick-match queue."""
        return [table.host for table in self.lobby.tables.values()] + list(self.lobby.queue.values())

    def _check_new_game(self, conn: Connection, replaces_waiting: bool, whose: str = "your") -> None:
        """Refuse a request that would give ``conn``'s session or address a game too many.

        ``replaces_waiting``: the request withdraws the connection's own open table or queue place.
        """
        waiting = self._waiting()
        own = waiting.count(conn) if replaces_waiting else 0
        self.quotas.check_new_game(token_hash(conn.token), conn.address,
                                   waiting_of_session=waiting.count(conn) - own,
                                   waiting_of_address=sum(w.address == conn.address for w in waiting) - own,
                                   whose=whose)

    def _room(self, conn: Connection, game_id: int) -> Room:
        """The game ``game_id`` if ``conn`` may know that it exists: a public game, or a private one
        that its session plays or that it watches.  Any other id gets the answer of an id that
        no game has, so that nobody can find out which private games exist."""
        room = self.rooms.get(game_id)
        if room is None or (room.options.get("private") and room.seat_of(conn) is None
                            and conn not in room.spectators and room.seat_held_by(token_hash(conn.token)) is None):
            raise ProtocolError(ErrorCode.NOT_FOUND, f"there is no game {game_id}", field="game")
        return room

    def _room_and_seat(self, conn: Connection, game_id: int) -> tuple[Room, GameSeat]:
        room = self._room(conn, game_id)
        seat = room.seat_of(conn)
        if seat is None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, f"you do not play in game {game_id}")
        return room, seat

    def _leave(self, conn: Connection, msg: m.Leave) -> None:
        if msg.game is not None:
            self._room(conn, msg.game).spectators.discard(conn)
        self.lobby.leave(conn)
        conn.deliver(m.Left(reply_to=msg.id))

    # ------------------------------------------------------------------ moderation

    def _ban_of(self, conn: Connection) -> Ban | None:
        """The ban over the connection's account or address, if any: for a gateway's client the
        address its gateway asserted, the player's (an in-process gateway's own address is not
        judged otherwise: the gateway judges its players' addresses itself)."""
        if conn.assertion is not None:
            address: str | None = conn.assertion.address
        else:
            address = None if conn.address in self.limits.exempt_addresses else conn.address
        return self.moderation.ban_of(None if conn.account is None else conn.account.id, address)

    def _record_login(self, conn: Connection) -> None:
        """Keep the login for the operator.  An in-process gateway records its players' logins itself
        (with their addresses, at the SSH login); a gateway apart from the arbiter cannot, so its
        client's login is recorded here, with the address and the way its gateway asserted."""
        assertion = conn.assertion
        if assertion is not None:
            if assertion.gateway != self.gateway_signer.public and assertion.via == VIA_SSH:
                self.moderation.record_login(self._player(conn), assertion.address, VIA_SSH)
        elif conn.address not in self.limits.exempt_addresses:
            self.moderation.record_login(self._player(conn), conn.address, VIA_NATIVE)

    def _apply_bans(self) -> None:
        """The operator changed the bans: close every session a ban now covers."""
        for conn in list(self.connections):
            if conn.greeted and not conn.closing:
                ban = self._ban_of(conn)
                if ban is not None:
                    self.expel(conn.token, ban)

    def expel(self, token: str, ban: Ban) -> None:
        """A ban covers the session of ``token``: its connection is told why and closed, and
        each of its unfinished games ends as if its player had left for good, a game still being
        dealt too (its deal is finished without them: the game opens and ends at once)."""
        digest = token_hash(token)
        conn = self.by_token.get(digest)
        if conn is not None and not conn.closing:
            log.info("%s (%s) closed: banned (%s)", conn.name, conn.address, ban.target())
            conn.send_error(ProtocolError(ErrorCode.BANNED, ban.line()))
            self.lobby.depart(conn)
            conn.close("banned", ban.line())
        for deal in list(self.deals.values()):  # a game still being dealt opens and ends at once
            dealt_seat = deal.seat_held_by(digest)
            if dealt_seat is not None:
                deal.drop(dealt_seat)
        for room in list(self.rooms.values()):
            seat = room.seat_held_by(digest)
            if seat is not None and not room.game.is_over:
                room.forfeit(seat, Forfeit.ABANDONED)

    def _refuse_muted(self, conn: Connection) -> None:
        mute = self.moderation.chat_mute_of(None if conn.account is None else conn.account.id)
        if mute is not None:
            raise ProtocolError(ErrorCode.MUTED, mute.line())

    @staticmethod
    def _player(conn: Connection) -> Player:
        return Player(conn.name, None if conn.account is None else conn.account.id)

    def _player_named(self, conn: Connection, name: str, game: int | None = None) -> Player:
        """The player ``conn`` names: a player of ``game`` (which it must play or watch), or
        without a game one of its own games', one online, or an account."""
        if game is not None:
            rooms = [self._room(conn, game)]
            if rooms[0].seat_of(conn) is None and conn not in rooms[0].spectators and \
                    rooms[0].seat_held_by(token_hash(conn.token)) is None:
                raise ProtocolError(ErrorCode.NOT_ALLOWED, f"you neither play nor watch game {game}", field="game")
        else:
            rooms = [room for room in self.rooms.values() if room.seat_held_by(token_hash(conn.token)) is not None]
        wanted = name_key(name)
        for room in rooms:
            for held in room.seats.values():
                if name_key(held.name) == wanted:
                    return Player(held.name, held.account)
        if game is not None:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"nobody named {name} plays game {game}", field="name")
        online = next((c for c in self.lobby.online.values() if name_key(c.name) == wanted), None)
        if online is not None:
            return self._player(online)
        account = self.accounts.by_name(name)
        if account is not None:
            return Player(account.name, account.id)
        raise ProtocolError(ErrorCode.NOT_FOUND, f"there is no player named {name}", field="name")

    def _mute(self, conn: Connection, msg: m.Mute | m.Unmute) -> None:
        """Hide a player's chat lines from ``conn`` (or show them again); kept with its account."""
        if isinstance(msg, m.Mute):
            player = self._player_named(conn, msg.name)
            if player.name == conn.name or (player.account is not None and conn.account is not None
                                            and player.account == conn.account.id):
                raise ProtocolError(ErrorCode.NOT_ALLOWED, "you cannot mute yourself", field="name")
            if player.name not in conn.muted and len(conn.muted) >= self.limits.mutes_per_player:
                raise ProtocolError(ErrorCode.NOT_ALLOWED, f"you have muted {len(conn.muted)} players, as many as "
                                    "this server keeps: unmute one first")
            conn.muted[player.name] = player.account
        else:
            wanted = name_key(msg.name)
            name = next((muted for muted in conn.muted if name_key(muted) == wanted), None)
            if name is None:
                raise ProtocolError(ErrorCode.NOT_FOUND, f"you have not muted {msg.name}", field="name")
            player = Player(name, conn.muted.pop(name))
        if conn.account is not None and player.account is not None:
            self.moderation.keep_mute(conn.account.id, player.account, on=isinstance(msg, m.Mute))
        conn.deliver(m.Mutes(names=tuple(sorted(conn.muted)), reply_to=msg.id))

    def _report(self, conn: Connection, msg: m.Report) -> None:
        """Keep a player's report for the operator (a few a day from one account or address)."""
        self._require_player(conn)
        reported = self._player_named(conn, msg.name, msg.game)
        reporter = self._player(conn)
        if reported.name == conn.name:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "you cannot report yourself", field="name")
        if self.moderation.reports_today(reporter.account, conn.address) >= self.limits.reports_per_day:
            raise ProtocolError(ErrorCode.RATE_LIMITED, f"this server takes {self.limits.reports_per_day} reports "
                                "a day from one player: try again tomorrow")
        self.moderation.record_report(reporter, conn.address, reported, msg.game, msg.reason)
        log.info("%s reported %s%s", conn.name, reported.name, "" if msg.game is None else f" (game {msg.game})")
        conn.deliver(m.Reported(reply_to=msg.id))

    # ------------------------------------------------------------------ games

    def _start_game_between(self, host: Connection, guest: Connection, game: str, clock: str, table_id: int | None,
                            private: bool, rated: bool) -> None:
        kind = game_kind(game)
        players = [host, guest]
        self.rng.shuffle(players)
        seats = dict(zip(kind.seats, players, strict=True))
        self._start_game(table_id or self._new_id(), kind, clock, seats, private=private, rated=rated)

    def _start_bot_game(self, conn: Connection, kind: GameKind, level: str, clock: str, seat: str | None,
                        rated: bool) -> None:
        human_seat = self.rng.choice(kind.seats) if seat is None else kind.seat_named(seat)
        bot_seat = next(other for other in kind.seats if other != human_seat)
        bot = HostedBot(level, self.bot_scheduler, seed=self.rng.getrandbits(63))
        self._start_game(self._new_id(), kind, clock, {human_seat: conn, bot_seat: bot}, private=True, rated=rated)

    def _start_game(self, game_id: int, kind: GameKind, clock: str, participants: dict, private: bool,
                    rated: bool = False) -> None:
        """A new game of ``kind`` between ``participants`` (seat -> connection or hosted bot): it
        counts at once, and opens when its deal is fixed with the players (at once on a server
        with a fixed ``game_seed``, which deals from its own seeds: reproducible, so not fair;
        and at once for a game whose decks are not fixed with the players: from the server's seed)."""
        people = [p for p in participants.values() if isinstance(p, Connection)]
        self.quotas.game_started(game_id, (token_hash(p.token) for p in people), (p.address for p in people))
        for participant in people:
            self.lobby.set_status(participant.name, "playing")
        if self.config.game_seed is not None or not kind.fair_decks:
            self._open_room(game_id, kind, clock, participants, private, self.rng.getrandbits(63), None, rated=rated)
            return
        contributors = tuple(str(seat) for seat, p in participants.items()
                             if isinstance(p, Connection) and p.protocol_minor >= m.FAIR_DECKS)
        holders = {str(seat): token_hash(p.token) for seat, p in participants.items() if isinstance(p, Connection)}

        def dealt(deal: PendingDeal) -> None:
            del self.deals[game_id]
            self._open_room(game_id, kind, clock, participants, private, deal.secrets.seed(game_id), deal.secrets,
                            rated=rated, gone=deal.gone)

        deal = PendingDeal(game_id, DealSecrets(secret=self.rng.randbytes(32)), contributors, holders,
                           send=lambda seat, message: self._reach(holders[seat], message),
                           on_done=dealt, clock=self.clock, stage_seconds=self.limits.deal_seconds)
        self.deals[game_id] = deal
        deal.start()

    def _reach(self, holder: str, message: m.Message) -> None:
        """Deliver ``message`` to the session ``holder`` (a token's hash), on its live connection."""
        conn = self.by_token.get(holder)
        if conn is not None:
            conn.deliver(message)

    def _open_room(self, game_id: int, kind: GameKind, clock: str, participants: dict, private: bool, seed: int,
                   deal: DealSecrets | None, rated: bool = False, gone: Collection[str] = ()) -> Room:
        """The game, dealt from ``seed``: stored, and sent to its players (those who left since it
        was made have their grace period to come back; those ``gone`` for good, the seats of
        players banned meanwhile, forfeit it at once as having left).  It is rated if asked and
        between two different accounts."""
        seats = {seat: self._seat_for(p, clock, kind) for seat, p in participants.items()}
        accounts = [held.account for held in seats.values()]
        rated = rated and None not in accounts and len(set(accounts)) == len(accounts)
        game, rules = kind.new(seed)
        options = {"clock": clock, "private": private, "rated": rated}
        self.store.create_game(game_id, seed, rules, options, {s: held.stored() for s, held in seats.items()},
                               deal=None if deal is None else deal.to_json(), game=kind.name)
        room = self._make_room(game_id, game, options, seats, deal=deal)
        for seat, participant in participants.items():
            if isinstance(participant, HostedBot):
                participant.sit(room, seat)
        for seat, participant in participants.items():
            hosted = isinstance(participant, HostedBot)
            live = participant if hosted else self.by_token.get(token_hash(participant.token))
            if str(seat) in gone:
                room.seats[seat].participant = None
            elif live is None:
                room.seats[seat].participant = None
                room.start_grace(seat)
            else:
                room.attach(seat, live)
        log.info("game %s started: %s", game_id, " vs ".join(f"{held.name} ({seat})" for seat, held in seats.items()),
                 extra={"event": "game_start", "game": game_id, **self._seated(room)})
        for seat in participants:
            if str(seat) in gone:
                room.forfeit(seat, Forfeit.ABANDONED)
        return room

    def _seat_for(self, participant, clock: str, kind: GameKind) -> Seat:
        # seated at once, so that everyone's first frame shows both players present
        if isinstance(participant, HostedBot):
            bot = self.bot_accounts[participant.level].id
            return Seat(name=participant.name, kind="hosted", level=participant.level, account=bot,
                        rating=self._shown_rating(bot, clock, kind), participant=participant)
        account = account_id(participant)
        return Seat(name=participant.name, kind="bot" if participant.kind == "bot" else "human",
                    token_hash=token_hash(participant.token), account=account,
                    rating=self._shown_rating(account, clock, kind), participant=participant)

    def _make_room(self, game_id: int, game: HostedGame, options: dict, seats: dict[GameSeat, Seat],
                   pause: Pause | None = None, **state) -> Room:
        kind = game_kind(game.name)
        controls = self.config.time_controls if kind.time_controls is None else kind.time_controls
        room = Room(game_id=game_id, game=game, options=options, seats=seats, store=self.store,
                    time_control=controls[options["clock"]], lobby=self.lobby, clock=self.clock,
                    pause_seconds=self.config.limits.bot_pause_seconds, metrics=self.metrics, **state)
        room.on_rematch = self._rematch
        room.on_over = self._game_over
        room.on_enter = self._entered
        for held in seats.values():
            if held.participant is not None:
                self._entered(held.participant, room)
        if options.get("rated"):
            room.on_result = self.ratings.rate_room
        if pause is not None:
            room.resume_from(pause)
        room.start_clocks()
        self.rooms[game_id] = room
        return room

    def _game_over(self, room: Room) -> None:
        """A finished game counts no more, and stays in memory for rematches and records a while,
        then only in the database; its players are back in the lobby (issue 13, defect 6)."""
        self._log_game_end(room)
        self.quotas.game_over(room.game_id)
        self.clock.call_later(self.config.finished_game_seconds, self._retire, room)
        for held in room.seats.values():
            player = held.participant
            if isinstance(player, Connection) and room.options.get("rated"):
                self.lobby.ratings_changed(player)
            if isinstance(player, Connection) and not self._occupied_elsewhere(player):
                self.lobby.set_status(player.name, "lobby")

    def _log_game_end(self, room: Room) -> None:
        outcome = room.game.outcome()
        assert outcome is not None
        seated = self._seated(room)
        winner = None if outcome.winner is None else str(outcome.winner)
        said = "a draw" if winner is None else f"{seated['players'].get(winner, winner)} ({winner}) won"
        log.info("game %s ended: %s by %s", room.game_id, said, outcome.termination.value,
                 extra={"event": "game_end", "game": room.game_id, **seated, **outcome.to_dict()})

    @staticmethod
    def _seated(room: Room) -> dict[str, dict]:
        """Who plays ``room``, for its log lines: each seat's name and account (None: a guest)."""
        accounts = {str(seat): held.account for seat, held in room.seats.items()}
        return {"players": room.player_names(), "accounts": accounts}

    def _occupied_elsewhere(self, conn: Connection) -> bool:
        """Whether ``conn`` still plays a game that goes on, or waits for one to start."""
        return conn in self._waiting() or any(room.seat_of(conn) is not None and not room.game.is_over
                                              for room in self._rooms_of(conn))

    def _retire(self, room: Room) -> None:
        if self.rooms.get(room.game_id) is room:
            del self.rooms[room.game_id]
            room.close()

    def _rematch(self, old: Room) -> None:
        """Everyone accepted: a new game, each player in the next seat (two seats: colours swapped)."""
        order = old.game.seats
        participants = {}
        for index, seat in enumerate(order):
            participant = old.seats[seat].participant
            if participant is None:
                raise ProtocolError(ErrorCode.NOT_ALLOWED, "your opponent has left")
            if isinstance(participant, Connection):
                self._check_new_game(participant, replaces_waiting=False, whose=f"{participant.name}'s")
            participants[order[(index + 1) % len(order)]] = participant
        new_id = self._new_id()
        self._start_game(new_id, game_kind(old.game.name), old.options["clock"], participants,
                         private=bool(old.options.get("private")), rated=bool(old.options.get("rated")))
        old.announce_rematch(new_id)

    # ------------------------------------------------------------------ restart

    def _restore_games(self) -> None:
        """Resume every unfinished game of the database exactly where it stopped."""
        for stored in self.store.load_games(status="playing"):
            try:
                self._restore(stored)
            except Exception:
                log.exception("game %s could not be restored", stored.id)

    def _restore(self, stored: StoredGame) -> None:
        kind = game_kind(stored.game)
        game = kind.restore(stored.seed, stored.rules, stored.moves)
        seats: dict[GameSeat, Seat] = {game.seat_named(name): Seat(**info) for name, info in stored.seats.items()}
        for held in seats.values():
            held.rating = self._shown_rating(held.account, stored.options["clock"], kind)
        seals = {}
        for order, (name, info) in enumerate(stored.seals.items()):
            move = None if info["move"] is None else game.decode_move(info["move"])
            seals[game.seat_named(name)] = Seal(digest=info["digest"], move=move, nonce=info["nonce"], order=order,
                                                claim=info["claim"])
        pause = stored.pause
        deal = None if stored.deal is None else DealSecrets.from_json(stored.deal)
        room = self._make_room(stored.id, game, stored.options, seats, deal=deal,
                               version=stored.version if pause is None else max(stored.version, pause.version),
                               move_count=len(stored.moves), seals=seals, pause=pause)
        # the seals were told of after the last stored move (a clean stop's pause counted them already)
        room.version = max(room.version, stored.version + room.seal_events())
        if pause is not None:
            self.store.forget_pause(stored.id)
        self.quotas.game_started(stored.id, (s.token_hash for s in seats.values() if s.token_hash), ())
        for seat, held in seats.items():
            if held.kind == "hosted":
                if held.level is None:
                    raise ValueError(f"the hosted bot in seat {seat} has no level")
                bot = HostedBot(held.level, self.bot_scheduler, seed=self.rng.getrandbits(63))
                bot.sit(room, seat)
                room.attach(seat, bot)
            else:  # away since the restart; the log says so already if they had left before it
                room.start_grace(seat, announce=pause is None or pause.seats.get(str(seat), {}).get("connected", True))
        log.info("game %s restored at move %d", stored.id, len(stored.moves))
