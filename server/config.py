"""Server settings: the limits that protect the server from bad clients, and the time controls
(by default the protocol's own, ``protocol.clocks``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from protocol.clocks import TIME_CONTROLS, TimeControl
from protocol.framing import MAX_FRAME_BYTES, MAX_REQUEST_BYTES
from protocol.messages import CHAT_CHARS, MUTES
from protocol.transport import DEFAULT_TLS_PORT


@dataclass(frozen=True)
class Limits:
    """What the game server accepts from its clients; docs/hosting.md ("Game server limits")
    says what each one means to a client that meets it."""

    frame_bytes: int = MAX_FRAME_BYTES
    request_bytes: int = MAX_REQUEST_BYTES  # the largest frame a client may send
    messages_per_second: float = 20.0  # sustained, per connection
    message_burst: int = 60
    errors_before_disconnect: int = 10  # refusals in a row (rate-limited ones too); each spends one of the rate
    handshake_seconds: float = 10.0
    idle_seconds: float = 600.0  # no frame at all (pings count) for this long: closed
    #: A session that plays, watches and waits for nothing, and sends nothing but pings for
    #: this long, is closed: an empty-handed connection cannot hold its slot by pinging.
    lobby_idle_seconds: float = 300.0
    max_connections: int = 2000
    max_connections_per_address: int = 50  # a fortieth of the total: it takes 40 addresses to fill it
    #: Addresses whose connections and games count only toward the totals: the SSH gateway's
    #: own (``aton-server --ssh-port`` adds it), which limits its players by their addresses itself.
    exempt_addresses: tuple[str, ...] = ()
    outbox_bytes: int = 1024 * 1024  # bytes waiting for a client that does not read before it is dropped
    outbox_bytes_total: int = 64 * 1024 * 1024  # the same, summed over all clients: the largest are dropped
    #: Games going at once (an open table or a place in the quick-match queue counts as one)
    max_games_per_session: int = 10
    max_games_per_address: int = 40
    #: Joins that fail (a wrong invite code, a table that is not open) allowed at once ...
    failed_joins_per_session: int = 10
    failed_joins_per_address: int = 30
    #: ... and then one more every this many seconds (each session and each address apart)
    failed_join_refill_seconds: float = 30.0
    chat_chars: int = CHAT_CHARS  # at most the protocol's own bound
    chat_interval: float = 1.0  # seconds between two chat lines of one connection
    #: The most entries of one lobby section sent at once (a snapshot's first page, a lobby_page);
    #: fewer when they would not fit in a frame.
    lobby_page_entries: int = 50
    #: Seconds over which the lobby's changes are gathered: a subscriber gets the entries that
    #: changed meanwhile together, each once with its latest state, at most once an interval
    #: (0: every change at once).  Fifty players arriving at once cost each subscriber one
    #: batch, not fifty redraws.
    lobby_update_interval: float = 0.5
    #: A game against a bot the server hosts may stop its player's clock on request (``pause``,
    #: while they read the help or a dialog); its pauses add up to at most this many seconds.
    bot_pause_seconds: float = 600.0
    #: Each stage of a game's deal (the players' commitments, then their openings) waits this
    #: long for them; a player late in the first gets the server's part, late in the second
    #: its commitment as its part (docs/protocol.md, "Fair decks").
    deal_seconds: float = 10.0
    #: Requests that read finished games from the database (``get_record``, and over SSH
    #: ``record`` and ``games``): this many a second per session, sustained ...
    history_requests_per_second: float = 1.0
    #: ... and at most this many at once
    history_burst: int = 20
    #: The games of one page of a player's list (``profile``, ``games`` over SSH; at most the
    #: protocol's ``PROFILE_GAMES``)
    history_page_entries: int = 20
    #: Reports one player (their account, or else their address) may make in a day.
    reports_per_day: int = 10
    #: Players one player may mute for themselves (at most the protocol's own bound).
    mutes_per_player: int = MUTES
    #: Keys one account may hold (``add_key``; at most the protocol's ``ACCOUNT_KEYS``).
    account_keys: int = 8
    #: Changes to one account (renames, keys added or removed) allowed at once, and then one
    #: more every ``account_change_refill_seconds``.
    account_changes: int = 10
    account_change_refill_seconds: float = 360.0
    #: New accounts (a key never seen proved on hello) one address may make at once, and then one
    #: more every ``new_account_refill_seconds``; the SSH gateway's address (``exempt_addresses``)
    #: is not counted, as the gateway limits logins itself.
    new_accounts_per_address: int = 100
    new_account_refill_seconds: float = 60.0

    def public(self) -> dict:
        """The limits a client is told in ``welcome``."""
        return {
            "frame_bytes": self.frame_bytes,
            "messages_per_second": self.messages_per_second,
            "chat_chars": self.chat_chars,
            "handshake_seconds": self.handshake_seconds,
        }


@dataclass(frozen=True)
class HostedBotSettings:
    """How the server's searching bots share its processors (docs/hosting.md, "Hosted bots under load").

    Every game with a decision waiting has one place in a round: the games take turns, so
    no game's bot waits for more than one decision of each other game.
    """

    #: worker processes that run the searches; None: one per core but one (the event loop's), at least one
    workers: int | None = None
    #: the searches of one round share this time per worker: a game waits about this long at most
    round_seconds: float = 4.0
    #: a search takes at most this share of the time its seat has left (after the reserve)
    clock_share: float = 0.5
    #: a bot still undecided this long before its time runs out plays the light level at once
    reserve_seconds: float = 2.0
    #: a search that would get less time than this is not started: the light level plays instead
    min_search_ms: float = 50.0

    def worker_count(self) -> int:
        return self.workers if self.workers is not None else max(1, (os.cpu_count() or 1) - 1)


@dataclass(frozen=True)
class TLSSettings:
    """The arbiter's TLS listener (``aton-server --tls-cert/--tls-key``; docs/hosting.md, "TLS"):
    a port of its own beside the plain one, which stays for the loopback and the LAN."""

    cert_file: str  # the certificate chain (PEM), the server's first
    key_file: str  # its private key (PEM)
    host: str | None = None  # None: the plain port's address (``ServerConfig.host``)
    port: int = DEFAULT_TLS_PORT
    #: Seconds a client has to complete the TLS handshake; one that stalls or fails is closed,
    #: before it counts as a connection (the hello's own time, ``Limits.handshake_seconds``, follows).
    handshake_seconds: float = 10.0


@dataclass(frozen=True)
class GatewaySettings:
    """What a gateway (SSH, web; beside the arbiter or apart from it) vouches for its players with
    (``server.gateway_keys``; docs/hosting.md, "Gateways apart from the arbiter")."""

    #: Seconds an assertion proves its player for: a session's client that reconnects to the
    #: arbiter later than this after its login (the arbiter restarted) is refused and must log in again
    assertion_seconds: float = 12 * 3600.0


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 2866
    db_path: str = ":memory:"
    limits: Limits = field(default_factory=Limits)
    hosted_bots: HostedBotSettings = field(default_factory=HostedBotSettings)
    time_controls: dict[str, TimeControl] = field(default_factory=lambda: dict(TIME_CONTROLS))
    server_name: str = "aton-server"
    #: How long a finished game stays in memory (rematch, sync, get_record); then only in the database.
    finished_game_seconds: float = 600.0
    #: Fix the server's choices (game seeds, colours) for reproducible examples and tests;
    #: None, the default, draws them from the operating system.
    game_seed: int | None = None
    #: How often the server looks for the operator's changes (``aton-server admin``: bans, chat
    #: mutes) in the database: a new ban closes its sessions within this many seconds.  (Each
    #: login and chat line looks at once.)
    moderation_poll_seconds: float = 2.0
    #: Days the record of each login (``aton-server admin logins``) is kept.
    logins_kept_days: float = 90.0
    #: Also accept TLS connections (None: plain TCP only)
    tls: TLSSettings | None = None
    #: Admit players who prove no account (guests, whose names are marked "~ann"); False: a
    #: ``hello`` without a key proved is refused (``aton-server --no-guests``).
    guests: bool = True
    #: The gateways' keys this arbiter trusts besides its own in-process gateways' (an
    #: authorized_keys-style file of ssh-ed25519 lines, ``aton-server --trusted-gateways``; None: none)
    trusted_gateways: str | None = None
    #: What the in-process gateways sign (``--ssh-port``, ``--web-port``)
    gateway: GatewaySettings = field(default_factory=GatewaySettings)


@dataclass(frozen=True)
class SSHLimits:
    """What one SSH gateway accepts; see docs/hosting.md ("SSH limits")."""

    max_sessions: int = 200  # SSH connections at once (each runs at most one game client)
    max_per_address: int = 8  # SSH connections at once from one source address
    max_unauthenticated: int = 20  # connections still logging in, in all ...
    max_unauthenticated_per_address: int = 4  # ... and from one source address
    #: Logins in progress kept for addresses that have none: an address that already has one
    #: may start another only while fewer than ``max_unauthenticated - reserved_logins`` are.
    reserved_logins: int = 5
    banner_timeout: float = 5.0  # seconds to send the SSH version line (a client sends it at once)
    login_timeout: float = 30.0  # seconds to authenticate and start a session (a person may read a prompt)
    #: Seconds a banned login has to ask for the session that tells it so (a client asks at once);
    #: one that asks for none (``ssh -N``) is then disconnected with the ban's line.
    banned_session_wait: float = 1.0
    idle_timeout: float = 1800.0  # seconds without a key press before a session is closed
    input_rate: int = 8192  # bytes a second a client may type (mouse and paste included) ...
    input_burst: int = 65536  # ... and at most this many at once; more drops the connection
    channels_per_connection: int = 4  # session channels open at once on one connection
    env_variables: int = 32  # environment variables a session keeps (asyncssh stores each one sent) ...
    env_bytes: int = 4096  # ... and their names and values together, in bytes; more are refused
    #: Seconds one session's handler may hold its app host's event loop (``--ssh-sessions inprocess``)
    #: before the watchdog ends that session (and, at twice that, the host if it cannot)
    handler_block_limit: float = 2.0
    #: Bytes of screen output a player's connection may fall behind by, in an app host; more ends the session
    output_backlog: int = 1 << 20


#: The ways an SSH session's client can run (``SSHConfig.sessions``)
FORKED_SESSIONS, INPROCESS_SESSIONS = "fork", "inprocess"
SESSION_WAYS = (FORKED_SESSIONS, INPROCESS_SESSIONS)


@dataclass(frozen=True)
class SSHConfig:
    """The SSH gateway beside the game server (``aton-server --ssh-port``)."""

    host: str = "127.0.0.1"
    port: int = 2222
    host_key: str | None = None  # default: ssh_host_ed25519_key in the data directory
    data_dir: str | None = None  # host key and resume secret; default: beside the database
    guests: bool = True  # keyboard-interactive logins without a key
    #: How a session's client runs: "inprocess", one of many Textual apps in a few app host processes,
    #: or "fork", a process of its own (forked from a warm fork server); docs/hosting.md has both's figures
    sessions: str = INPROCESS_SESSIONS
    #: Fork each session's client from a warm fork server (False: a new interpreter each time)
    fork_server: bool = True
    app_hosts: int = 2  # app host processes with ``sessions="inprocess"`` (each uses up to one core)
    #: Networks of the TCP load balancers in front (``--ssh-proxy-from``): a connection from one begins
    #: with a PROXY protocol header (HAProxy's ``send-proxy-v2``) naming its player's address
    proxy_from: tuple[str, ...] = ()
    limits: SSHLimits = field(default_factory=SSHLimits)


@dataclass(frozen=True)
class WebLimits:
    """What the web gateway accepts; see docs/hosting.md ("Web limits")."""

    max_sessions: int = 100  # browser sessions at once (each runs one game client, a process of ~35 MB)
    max_per_address: int = 8  # browser sessions at once from one source address
    idle_timeout: float = 1800.0  # seconds without a key press or click before a session is closed
    input_rate: int = 8192  # bytes a second a browser may type (mouse included) ...
    input_burst: int = 65536  # ... and at most this many at once; more closes the session
    request_line_bytes: int = 4096  # the longest request line or header line; longer gets 400
    request_headers: int = 64  # headers one request may carry; more get 400
    request_body_bytes: int = 1024  # the game's page takes no body: a longer one gets 413
    message_bytes: int = 16384  # the longest WebSocket message a browser may send; longer closes the session
    #: Web sign-in codes (``ssh HOST web-login``, the client's Account screen): each is valid this long ...
    login_code_seconds: float = 300.0
    #: ... one account may have this many made at once, then one more every ``login_code_refill_seconds`` ...
    login_codes_per_account: int = 5
    login_code_refill_seconds: float = 60.0
    #: ... and one address may offer this many wrong or spent codes at once, then one more every
    #: ``failed_login_refill_seconds``
    failed_logins_per_address: int = 10
    failed_login_refill_seconds: float = 60.0


@dataclass(frozen=True)
class WebConfig:
    """The web gateway beside the game server (``aton-server --web-port``): the client in a browser."""

    host: str = "127.0.0.1"
    port: int = 8080
    #: The address players open (behind a reverse proxy with TLS: ``https://aton.example.org``);
    #: None: ``http://HOST:PORT`` of the gateway itself.
    public_url: str | None = None
    limits: WebLimits = field(default_factory=WebLimits)


@dataclass(frozen=True)
class MetricsSettings:
    """The operator's HTTP endpoint, ``/metrics`` and ``/healthz`` (docs/hosting.md, "Metrics and health")."""

    host: str = "127.0.0.1"  # the metrics say how busy the server is: not for everyone by default
    port: int | None = None  # None: no endpoint (the default); ``aton-server --metrics-port``
    request_bytes: int = 8192  # the most a request's line and headers may take; more gets 431
    request_seconds: float = 5.0  # time to send the request, and to read the answer
    max_connections: int = 16  # requests answered at once; more get 503 at once


@dataclass(frozen=True)
class LogFileSettings:
    """The log file of the server inside ``aton`` (``server.log`` in the data directory): when it
    reaches ``max_bytes`` it becomes ``server.log.1`` (and so on), and the oldest beyond
    ``backups`` is deleted, so that it never fills a disk."""

    max_bytes: int = 1024 * 1024
    backups: int = 3
