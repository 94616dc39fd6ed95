"""What an operator watches: the Prometheus metrics of one game server and its gateways.

Each ``ArbiterServer`` has its own ``ServerMetrics`` (a registry of its own, so that two servers
in one process, as in the tests, count apart). The counters and histograms move as things
happen (a move, a commit of the database, an SSH login); the gauges are read when the metrics
are asked for (``aton-server --metrics-port``, served by ``server.ops_http``). docs/hosting.md
("Metrics and health") lists them with what each one means.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

if TYPE_CHECKING:
    from .app import ArbiterServer

#: The sessions the game server counts as its own (native clients and bots over TCP); each
#: gateway adds its kind ("ssh", and "web" once there is a web gateway) with ``count_sessions``.
TCP_SESSIONS = "tcp"
#: The buckets of the wait for the players' openings (seconds): a round trip of the network and
#: of the client, from a few milliseconds on a LAN to seconds for a slow link.
REVEAL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: The buckets of a database commit (seconds): SQLite in WAL mode commits in well under a
#: millisecond on a quiet disk; tens of milliseconds mean a disk that struggles.
COMMIT_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)


class ServerMetrics:
    """The metrics of one game server (and its gateways): see docs/hosting.md for each one."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        registry = self.registry
        self.connections = Gauge("aton_connections", "Open connections to the game server (the protocol over TCP)",
                                 registry=registry)
        self.sessions = Gauge("aton_sessions", "Players' sessions open, by kind: tcp (native clients and bots), "
                              "ssh (the SSH gateway's game sessions), web", ["kind"], registry=registry)
        self.games_running = Gauge("aton_games_running", "Games going on (not over), including games whose "
                                   "players are away within their grace period", registry=registry)
        self.moves = Counter("aton_moves", "Moves played in every game (rate() of it: moves per second)",
                             registry=registry)
        self.reveal_wait = Histogram("aton_commit_reveal_seconds", "From the last commitment of a round to its "
                                     "reveal: the wait for the players' openings", buckets=REVEAL_BUCKETS,
                                     registry=registry)
        self.db_commit = Histogram("aton_db_commit_seconds", "Time of each commit of the database (one per turn "
                                   "of the event loop that wrote)", buckets=COMMIT_BUCKETS, registry=registry)
        self.ssh_logins = Counter("aton_ssh_logins", "SSH logins, by kind: key or guest", ["kind"],
                                  registry=registry)
        self.ssh_refusals = Counter("aton_ssh_refusals", "SSH connections refused or dropped, by reason",
                                    ["reason"], registry=registry)

    # ------------------------------------------------------------------ what is read when asked

    def track_arbiter(self, server: ArbiterServer) -> None:
        """Read ``server``'s connections, sessions and games whenever the metrics are asked for.

        The connections from a gateway's own address (``Limits.exempt_addresses``) are its
        players': they count under the gateway's kind, not as TCP sessions."""
        gateways = server.limits.exempt_addresses
        self.connections.set_function(lambda: len(server.connections))
        self.count_sessions(TCP_SESSIONS, lambda: sum(1 for conn in server.connections
                                                      if conn.greeted and conn.address not in gateways))
        self.games_running.set_function(lambda: sum(1 for room in server.rooms.values() if not room.game.is_over))

    def count_sessions(self, kind: str, count: Callable[[], int]) -> None:
        """The sessions of ``kind`` are ``count()`` (a gateway tells how many it serves)."""
        self.sessions.labels(kind).set_function(count)

    # ------------------------------------------------------------------ what happens

    def moves_played(self, count: int) -> None:
        self.moves.inc(count)

    def reveal_waited(self, seconds: float) -> None:
        self.reveal_wait.observe(seconds)

    def timed_commits(self, commit: Callable[[], None]) -> Callable[[], None]:
        """``commit``, each call of it timed into ``aton_db_commit_seconds``."""
        def timed() -> None:
            start = time.perf_counter()
            try:
                commit()
            finally:
                self.db_commit.observe(time.perf_counter() - start)

        return timed

    def ssh_login(self, guest: bool) -> None:
        self.ssh_logins.labels("guest" if guest else "key").inc()

    def ssh_refused(self, reason: str) -> None:
        """An SSH connection refused or dropped; ``reason`` is one of the gateway's fixed texts
        ("too many connections from your address; …"), labelled by its first clause."""
        self.ssh_refusals.labels(reason_label(reason)).inc()

    # ------------------------------------------------------------------ the exposition

    def exposition(self) -> bytes:
        """Every metric in Prometheus' text format."""
        return generate_latest(self.registry)


def reason_label(reason: str) -> str:
    """'too many logins in progress; try again in a moment' -> 'too_many_logins_in_progress'."""
    return re.sub(r"[^a-z0-9]+", "_", reason.split(";", 1)[0].lower()).strip("_") or "unknown"
