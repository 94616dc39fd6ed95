"""The SSH gateway: ``ssh -p 2222 host`` drops a player straight into the game.

``SSHGateway`` listens with asyncssh beside the game server (same process, same
event loop), or apart from it (``aton-server gateway``: a process or a machine of its own,
with no database), authenticates (any public key is an identity; guests log in with
keyboard-interactive and no prompt unless turned off), enforces the limits, and
gives each session with a terminal its own game client (``session.GameSession``):
a process forked by the fork server it keeps running (``forkserver.ForkServerSupervisor``),
or, with ``SSHConfig.sessions == "inprocess"``, an app in one of the app hosts it keeps
running (``app_hosts.AppHosts``); a
session may instead run one of two read-only commands (``commands``: ``record GAME``
and ``games``).
``Link`` is asyncssh's per-connection ``SSHServer``: the auth callbacks, and the
refusal of everything that is not a session (port forwarding of every kind;
agent and X11 forwarding are off in the server options, SFTP and other
subsystems are refused by the session).

asyncssh logs exceptions raised in its callbacks only at DEBUG, so every task
started here goes through ``SSHGateway.track``, which logs failures itself.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import time
from collections import Counter
from collections.abc import Awaitable
from pathlib import Path

import asyncssh

from protocol import handoff

from .. import background
from ..accounts import Accounts
from ..clock import Clock, LoopClock, Timer
from ..config import INPROCESS_SESSIONS, ServerConfig, SSHConfig
from ..gateway_keys import GatewaySigner
from ..history import GameHistory
from ..kept_games import KeptGamesPruning, kept_games_in
from ..lobby import reserved_names
from ..metrics import ServerMetrics
from ..moderation import VIA_SSH, Ban, Moderation, Player
from ..resume_tokens import ResumeTokens
from ..web_logins import WebLogins
from . import forkserver
from .app_hosts import AppHosts
from .identity import HOST_KEY_FILE, Identities, Identity, fingerprint, load_or_create_host_key
from .lingering import LingeringCloses
from .proxy_header import NoProxyHeader, read_source
from .session import GameSession, forkserver_environment

log = logging.getLogger(__name__)

NO_GUESTS_BANNER = ("This Aton server admits players with an SSH key only.\r\n"
                    "Make one with `ssh-keygen -t ed25519` and connect again.\r\n")


def local_address(host: str) -> str:
    """Where the gateway's children reach the game server listening on ``host``."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "::1"
    return host


class Link(asyncssh.SSHServer):
    """One SSH connection: its address, its login, its sessions."""

    def __init__(self, gateway: SSHGateway, source: str | None = None) -> None:
        """``source``: the player's address as a load balancer's PROXY header gave it (None: the peer's)."""
        self.gateway = gateway
        self.conn: asyncssh.SSHServerConnection | None = None
        self.source = source
        self.address = "?"
        self.username = ""
        self.key: asyncssh.SSHKey | None = None
        self.identity: Identity | None = None
        self.banned: Ban | None = None  # the ban over its key's account or its address: no game starts
        self.authenticated = False
        self.admitted = False
        self.channels = 0
        self.banner_timer: Timer | None = None
        self.session_timer: Timer | None = None
        self.closed = False

    @property
    def who(self) -> str:
        name = self.identity.name if self.identity else self.username or "?"
        return f"{name}@{self.address}"

    # ------------------------------------------------------------------ connection

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.address = self.source or (peer[0] if peer else "?")
        refusal = self.gateway.admit_connection(self)
        loop = asyncio.get_running_loop()
        if refusal:
            log.info("connection from %s refused: %s", self.address, refusal)
            self.gateway.metrics.ssh_refused(refusal)
            loop.call_soon(self._refuse, refusal)
        else:
            self.admitted = True
            self.banner_timer = self.gateway.clock.call_later(self.gateway.limits.banner_timeout, self._banner_due)

    def _refuse(self, reason: str) -> None:
        self._disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, reason)

    def _disconnect(self, code: int, reason: str) -> None:
        """Close this connection at once, telling its client why; the socket lingers until the
        client has read it (``server.ssh.lingering``)."""
        if self.conn is not None:
            self.gateway.lingering.keep(self.conn.get_extra_info("socket"))
            self.conn.disconnect(code, reason)

    def _banner_due(self) -> None:
        """A client sends its version line at once: one that has not by now only holds a slot."""
        self.banner_timer = None
        if self.conn is not None and not self.closed and self.conn.get_extra_info("client_version") is None:
            log.info("connection from %s closed: no SSH version line", self.address)
            self.gateway.metrics.ssh_refused("no SSH version line")
            self.conn.disconnect(asyncssh.DISC_PROTOCOL_ERROR, "no SSH version line in "
                                 f"{self.gateway.limits.banner_timeout:g} seconds")

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        for timer in (self.banner_timer, self.session_timer):
            if timer is not None:
                timer.cancel()
        self.gateway.forget_connection(self)
        self.conn = None

    def close(self) -> None:
        """Close this connection once what was written to it is sent."""
        if self.conn is not None and not self.closed:
            self.conn.close()

    def drop(self, reason: str) -> None:
        """Close this connection at once (a misbehaving client); nobody else notices."""
        if self.conn is not None and not self.closed:
            log.warning("%s dropped: %s", self.who, reason)
            self.gateway.metrics.ssh_refused(reason)
            self._disconnect(asyncssh.DISC_BY_APPLICATION, reason)

    # ------------------------------------------------------------------ authentication

    def begin_auth(self, username: str) -> bool:
        self.username = username
        if not self.gateway.config.guests and self.conn is not None:
            self.conn.send_auth_banner(NO_GUESTS_BANNER)
        return True

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # any key is welcome: it is an identity, not a permission.  asyncssh checks the
        # signature after this; the last key validated before success is the one used.
        self.key = key
        return True

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return self.gateway.config.guests

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        self.key = None  # a guest: whatever key was tried before did not log in
        return self.gateway.config.guests

    def validate_kbdint_response(self, username: str, responses) -> bool:
        return self.gateway.config.guests

    def auth_completed(self) -> None:
        self.authenticated = True
        self.identity = self.gateway.identify(self.username, self.key, self.address)
        self.gateway.authenticated(self)
        self.banned = self.gateway.ban_of(self)
        if self.banned is not None:
            log.info("%s refused: banned (%s)", self.who, self.banned.target())
            self.gateway.metrics.ssh_refused("banned")
        else:
            log.info("%s logged in (%s)", self.who, "guest" if self.identity.guest else self.identity.fingerprint,
                     extra={"event": "login", "player": self.identity.name, "fingerprint": self.identity.fingerprint,
                            "address": self.address})
            self.gateway.metrics.ssh_login(self.identity.guest)
            self.gateway.record_login(self)
        self._arm_session_timer()

    # ------------------------------------------------------------------ channels

    def session_requested(self) -> GameSession | bool:
        if self.channels >= self.gateway.limits.channels_per_connection:
            return False
        self.channels += 1
        if self.session_timer is not None:
            self.session_timer.cancel()
            self.session_timer = None
        return GameSession(self.gateway, self)

    def session_closed(self, session: GameSession) -> None:
        self.channels -= 1
        if self.channels == 0 and not self.closed:
            self._arm_session_timer()

    def _arm_session_timer(self) -> None:
        """A connection with no session for the login time is closed (it holds a slot); a banned
        one is not kept waiting (``SSHLimits.banned_session_wait``): its session only says so."""
        limits = self.gateway.limits
        if self.session_timer is None and self.channels == 0:
            wait = limits.login_timeout if self.banned is None else limits.banned_session_wait
            self.session_timer = self.gateway.clock.call_later(wait, self._no_session)

    def _no_session(self) -> None:
        self.session_timer = None
        if self.channels != 0 or self.conn is None or self.closed:
            return
        if self.banned is not None:  # it asked for no session to be told in (``ssh -N``): told here
            log.info("%s closed: banned, and asked for no session", self.who)
            self._disconnect(asyncssh.DISC_BY_APPLICATION, self.banned.line())
        else:
            self.drop("no session started")

    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int) -> bool:
        log.info("%s: direct TCP forwarding to %s:%s refused", self.who, dest_host, dest_port)
        return False

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        log.info("%s: remote TCP forwarding from %s:%s refused", self.who, listen_host, listen_port)
        return False

    def unix_connection_requested(self, dest_path: str) -> bool:
        return False

    def unix_server_requested(self, listen_path: str) -> bool:
        return False

    def tun_requested(self, unit) -> bool:
        return False

    def tap_requested(self, unit) -> bool:
        return False


class SSHGateway:
    """asyncssh server whose sessions run the Textual client against the game server."""

    def __init__(self, config: SSHConfig, game_host: str, game_port: int, db_path: str, tokens: ResumeTokens | None,
                 signer: GatewaySigner, server_name: str = ServerConfig.server_name, clock: Clock | None = None,
                 history: GameHistory | None = None, moderation: Moderation | None = None,
                 metrics: ServerMetrics | None = None, web_logins: WebLogins | None = None,
                 arbiter_tls: bool = False, tls_ca: str | None = None) -> None:
        """``game_host``, ``game_port``: the game server's address, which the clients reach through TLS
        if ``arbiter_tls`` (trusting the authorities of ``tls_ca`` if given).
        ``tokens``: the game server's resume tokens (``ArbiterServer.tokens``) beside it (None: a gateway
        apart from it, ``aton-server gateway``), which the ``record`` and ``games`` commands read as.
        ``signer``: the gateway's key (beside the game server ``ArbiterServer.gateway_signer``), with
        which it vouches for its players (``server.gateway_keys``).
        ``history``: the game server's games (``ArbiterServer.history``), which the ``record`` and
        ``games`` commands read (``commands``); without it (a gateway apart) they ask the game server.
        ``moderation``: the game server's (``ArbiterServer.moderation``): its bans keep players out
        here too, and logins over SSH are recorded (None: neither).
        ``clock`` runs the gateway's own time-outs (the version line, a session to start, idleness;
        the login's is asyncssh's): the event loop's by default, a test's own to move it by hand.
        ``metrics``: the game server's (``ArbiterServer.metrics``), which count its logins, refusals
        and sessions too (by default the gateway's own, which nobody reads).
        ``web_logins``: the web gateway's sign-in codes, which ``web-login`` makes (None: no web gateway)."""
        self.config = config
        self.metrics = metrics or ServerMetrics()
        self.clock = clock or LoopClock()
        self.history = history
        self.web_logins = web_logins
        self.limits = config.limits
        self.game_host = local_address(game_host)
        self.game_port = game_port
        self.arbiter_tls = arbiter_tls
        self.tls_ca = tls_ca
        data_dir = Path(config.data_dir) if config.data_dir else \
            (Path(db_path).parent if db_path != ":memory:" else None)
        self.data_dir = data_dir
        #: where its players' clients keep their unfinished games (``protocol.handoff.KEPT_GAMES_VARIABLE``)
        self.kept_games = kept_games_in(data_dir)
        self.pruning = KeptGamesPruning(self.kept_games, self.clock)
        if config.host_key:
            self.host_key_path = Path(config.host_key)
        elif data_dir is not None:
            self.host_key_path = data_dir / HOST_KEY_FILE
        else:
            raise ValueError("the SSH gateway needs a data directory (or a host key) with an in-memory database")
        self.host_key = load_or_create_host_key(self.host_key_path)
        # a name the game server would refuse would lock the key out: it becomes a stand-in name
        self.identities = Identities(signer, handoff.HOSTED_BY_SSH, tokens, reserved_names(server_name))
        self.links: set[Link] = set()
        self.per_address: Counter[str] = Counter()  # connections from each address
        self.unauthenticated: Counter[str] = Counter()  # of which still logging in
        self.games: set[GameSession] = set()
        self.by_fingerprint: dict[str, GameSession] = {}
        self.tasks: set[asyncio.Future] = set()
        self.forkserver: forkserver.ForkServerSupervisor | None = None
        self.app_hosts: AppHosts | None = None  # with ``sessions="inprocess"``
        self.moderation = moderation
        if moderation is not None:
            moderation.listeners.append(self._apply_bans)
        self._server: asyncssh.SSHAcceptor | None = None
        self._listener: socket.socket | None = None  # behind load balancers (``config.proxy_from``)
        self._accepting: asyncio.Future | None = None
        self.balancers = [ipaddress.ip_network(network, strict=False) for network in config.proxy_from]
        self._stopping = False
        self.lingering = LingeringCloses()  # refused connections, closed gently
        self.metrics.count_sessions("ssh", lambda: self.session_count)

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        self.pruning.start()
        if self.balancers:
            self._listen_behind_balancers()
        else:
            self._server = await asyncssh.create_server(lambda: Link(self), self.config.host, self.config.port,
                                                        **self._ssh_options())
        if self.config.sessions == INPROCESS_SESSIONS:
            self.app_hosts = AppHosts(self.config.app_hosts, forkserver_environment(),
                                      self.limits.handler_block_limit, self.limits.output_backlog)
            self.app_hosts.start()
        elif self.config.fork_server and forkserver.supported():
            self.forkserver = forkserver.ForkServerSupervisor(forkserver_environment())
            self.forkserver.start()

    def _ssh_options(self) -> dict[str, object]:
        """asyncssh's options for every connection."""
        return dict(
            server_host_keys=[self.host_key],
            encoding=None, line_editor=False,  # raw bytes both ways: the client draws the screen
            agent_forwarding=False, x11_forwarding=False, allow_scp=False, allow_pty=True,
            password_auth=False, kbdint_auth=self.config.guests, public_key_auth=True,
            login_timeout=self.limits.login_timeout,
            keepalive_interval=30, keepalive_count_max=4,
            server_version="AtonGateway")

    def _listen_behind_balancers(self) -> None:
        """Listen on a socket of our own: a connection from a load balancer (``config.proxy_from``)
        first gives its player's address in a PROXY header, then speaks SSH (``asyncssh.run_server``
        on the socket); any other connection speaks SSH at once, as without balancers."""
        host = self.config.host
        self._listener = listener = socket.create_server(
            (host, self.config.port), family=socket.AF_INET6 if ":" in host else socket.AF_INET, backlog=100)
        listener.setblocking(False)
        self._accepting = asyncio.ensure_future(self._accept(listener))

    async def _accept(self, listener: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            sock, peer = await loop.sock_accept(listener)
            self.track(self._serve_socket(sock, str(peer[0])), "a connection")

    def from_balancer(self, address: str) -> bool:
        """Whether a connection from ``address`` comes through one of the load balancers."""
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.balancers)

    async def _serve_socket(self, sock: socket.socket, peer: str) -> None:
        source = None
        if self.from_balancer(peer):
            try:  # the balancer sends it at once, before the client's version line: the same time-out
                source = await asyncio.wait_for(read_source(sock), self.limits.banner_timeout)
            except (TimeoutError, NoProxyHeader, OSError) as exc:
                reason = str(exc) or "no header in time"
                log.info("connection from the load balancer %s closed: no PROXY protocol header (%s)", peer, reason)
                self.metrics.ssh_refused("no PROXY protocol header")
                sock.close()
                return
        try:
            await asyncssh.run_server(sock, server_factory=lambda: Link(self, source), **self._ssh_options())
        except (TimeoutError, asyncssh.Error, OSError) as exc:  # (the link logged a refusal itself)
            log.debug("connection from %s ended before its login: %s", source or peer, exc)
            sock.close()  # (asyncssh has closed it, unless it failed before it took it)

    @property
    def port(self) -> int:
        if self._listener is not None:
            return self._listener.getsockname()[1]
        assert self._server is not None
        return self._server.sockets[0].getsockname()[1]

    @property
    def host_fingerprint(self) -> str:
        return self.host_key.get_fingerprint("sha256")

    async def stop(self,
                   message: str = "The server is restarting. Your games are kept: log in again in a minute.") -> None:
        """End every session (saying why), close every connection, reap every child."""
        self._stopping = True
        self.pruning.stop()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self._accepting is not None:
            self._accepting.cancel()
        if self._listener is not None:
            self._listener.close()
        for game in list(self.games):
            game.end(message, 1)
        if self.games:
            await asyncio.wait([g.closed for g in self.games], timeout=5)
        for link in list(self.links):
            if link.conn is not None:
                link.conn.close()
        deadline = time.monotonic() + 5
        while (self.links or self.tasks) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        for task in list(self.tasks):
            task.cancel()
        if self.forkserver is not None:
            await self.forkserver.stop()
        if self.app_hosts is not None:
            await self.app_hosts.stop()
        await self.lingering.close()

    def track(self, coro: Awaitable, what: str) -> asyncio.Future:
        return background.track(self.tasks, coro, what, log)

    # ------------------------------------------------------------------ admission

    def admit_connection(self, link: Link) -> str | None:
        """None to admit a new connection, or why it is refused.

        Logins in progress are shared out: each address gets a few, and the last
        ``reserved_logins`` go only to addresses that have none, so that a handful of
        addresses holding idle connections cannot keep everybody else out."""
        limits = self.limits
        address = link.address
        if self._stopping:
            return "the server is shutting down"
        if len(self.links) >= limits.max_sessions:
            return "the server is full; try again later"
        if self.per_address[address] >= limits.max_per_address:
            return "too many connections from your address"
        logging_in = self.unauthenticated[address]
        if logging_in >= limits.max_unauthenticated_per_address:
            return "too many logins in progress from your address; try again in a moment"
        room = limits.max_unauthenticated - (limits.reserved_logins if logging_in else 0)
        if self.unauthenticated.total() >= room:
            return "too many logins in progress; try again in a moment"
        self.links.add(link)
        self.per_address[address] += 1
        self.unauthenticated[address] += 1
        return None

    def authenticated(self, link: Link) -> None:
        if link.admitted:
            _decrement(self.unauthenticated, link.address)

    def forget_connection(self, link: Link) -> None:
        if not link.admitted:
            return
        link.admitted = False
        self.links.discard(link)
        _decrement(self.per_address, link.address)
        if not link.authenticated:
            _decrement(self.unauthenticated, link.address)

    def identify(self, username: str, key: asyncssh.SSHKey | None, address: str) -> Identity:
        if key is None:
            return self.identities.guest(username, address)
        return self.identities.for_key(fingerprint(key), username, address)

    # ------------------------------------------------------------------ moderation

    def account_of(self, link: Link) -> int | None:
        """The account of the key ``link`` logged in with (None: a guest, or a key of no account yet)."""
        identity = link.identity
        holder = self.history or self.moderation  # either holds the game server's store
        if holder is None or identity is None or identity.fingerprint is None:
            return None
        account = Accounts(holder.store).by_fingerprint(identity.fingerprint)
        return None if account is None else account.id

    def ban_of(self, link: Link) -> Ban | None:
        """The ban over the account of ``link``'s key or over its address, if any."""
        return None if self.moderation is None else self.moderation.ban_of(self.account_of(link), link.address)

    def record_login(self, link: Link) -> None:
        if self.moderation is not None and link.identity is not None:
            self.moderation.record_login(Player(link.identity.name, self.account_of(link)), link.address, VIA_SSH)

    def _apply_bans(self) -> None:
        """The operator changed the bans: end the session of every logged-in connection a ban
        now covers, saying why, and its games with it."""
        for link in list(self.links):
            if not link.authenticated or link.closed or link.banned is not None:
                continue
            link.banned = self.ban_of(link)
            if link.banned is None:
                continue
            log.info("%s closed: banned (%s)", link.who, link.banned.target())
            assert self.moderation is not None and link.identity is not None
            sessions = [game for game in self.games if game.link is link]
            for game in sessions:
                game.end(link.banned.line(), 1)
            if self.moderation.expel is not None and link.identity.resume_token is not None:
                self.moderation.expel(link.identity.resume_token, link.banned)
            if not sessions:
                link.drop(link.banned.line())

    def admit_game(self, session: GameSession) -> str | None:
        """Register a game session; None, or why it cannot start."""
        link = session.link
        if self._stopping:
            return "The server is shutting down; try again in a minute."
        if any(game.link is link for game in self.games):
            return "One game client per connection: open another connection for another one."
        identity = link.identity
        assert identity is not None
        if identity.fingerprint is not None:
            previous = self.by_fingerprint.get(identity.fingerprint)
            if previous is not None:
                previous.end("You logged in again from another connection: the game continues there.", 1)
            self.by_fingerprint[identity.fingerprint] = session
        self.games.add(session)
        return None

    def release_game(self, session: GameSession) -> None:
        self.games.discard(session)
        fp = session.link.identity.fingerprint if session.link.identity else None
        if fp is not None and self.by_fingerprint.get(fp) is session:
            del self.by_fingerprint[fp]

    @property
    def session_count(self) -> int:
        return len(self.games)

    def child_pids(self) -> list[int]:
        return [g.child.pid for g in self.games if g.child is not None and g.child.pid]


def _decrement(counter: Counter[str], address: str) -> None:
    """One less for ``address``; an address with none left is forgotten."""
    counter[address] -= 1
    if counter[address] <= 0:
        del counter[address]
