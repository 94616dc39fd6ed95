"""Moderation: the operator's bans and chat mutes, the players' own mutes, reports and logins.

The operator works on the database with ``aton-server admin`` (``server.admin``), whether the
server runs or not.  A running server sees every change within
``ServerConfig.moderation_poll_seconds``: ``Moderation`` reloads the bans and chat mutes in force
when the database changed (``PRAGMA data_version``, one cheap query on the server's own
connection) at every poll, and before each login and each chat line, so those are always judged
on the latest bans; after a poll that found a change it tells its listeners (the game server
closes the sessions a new ban covers, the SSH gateway ends its own).

The tables (``create_tables``, a migration of ``server.store``):

- ``bans``: an account (by id: a rename does not lift it) or an address or network
  (CIDR: ``203.0.113.7/32``, ``2001:db8::/48``), with a reason and an expiry (NULL: never);
- ``chat_mutes``: accounts the operator muted in chat, with a reason and an expiry;
- ``player_mutes``: the accounts one player muted for themselves (a guest's mutes, and mutes of
  a guest, last as long as the session: they are kept by the connection only);
- ``reports``: a player's report of another, with the game and the reason;
- ``logins``: each ``hello`` and SSH login (time, name, account or guest, address, way in),
  kept ``ServerConfig.logins_kept_days``.
"""

from __future__ import annotations

import ipaddress
import sqlite3
import time
from collections.abc import Callable, Container
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from protocol import events as ev
from protocol import messages as m

from .clock import Clock, Timer

if TYPE_CHECKING:
    from .store import Store

#: An address or a network, as ``ipaddress`` reads them.
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
#: The ways into the server a login is recorded for.
VIA_NATIVE = "native"
VIA_SSH = "ssh"
SECONDS_PER_DAY = 86400.0


def create_tables(db: sqlite3.Connection) -> None:
    """The moderation tables (a migration of ``server.store``)."""
    db.execute("""CREATE TABLE bans (
        id INTEGER PRIMARY KEY,
        account INTEGER REFERENCES accounts(id),
        network TEXT,
        reason TEXT NOT NULL DEFAULT '',
        created REAL NOT NULL,
        expires REAL,
        CHECK ((account IS NULL) != (network IS NULL))
    )""")
    db.execute("""CREATE TABLE chat_mutes (
        account INTEGER PRIMARY KEY REFERENCES accounts(id),
        reason TEXT NOT NULL DEFAULT '',
        created REAL NOT NULL,
        expires REAL
    )""")
    db.execute("""CREATE TABLE player_mutes (
        account INTEGER NOT NULL REFERENCES accounts(id),
        muted INTEGER NOT NULL REFERENCES accounts(id),
        created REAL NOT NULL,
        PRIMARY KEY (account, muted)
    )""")
    db.execute("""CREATE TABLE reports (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,
        reporter TEXT NOT NULL,
        reporter_account INTEGER,
        reporter_address TEXT NOT NULL,
        reported TEXT NOT NULL,
        reported_account INTEGER,
        game INTEGER,
        reason TEXT NOT NULL
    )""")
    db.execute("""CREATE TABLE logins (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,
        name TEXT NOT NULL,
        account INTEGER,
        address TEXT NOT NULL,
        via TEXT NOT NULL CHECK (via IN ('native', 'ssh'))
    )""")
    db.execute("CREATE INDEX logins_by_time ON logins (at)")
    db.execute("CREATE INDEX reports_by_reporter ON reports (reporter_address, at)")


# --------------------------------------------------------------------------- addresses and times


def parse_network(text: str) -> Network:
    """An address (``203.0.113.7``, one host) or a network in CIDR form (``203.0.113.0/24``);
    ValueError if it is neither (or has host bits set)."""
    return ipaddress.ip_network(text.strip(), strict=True)


def parse_address(text: str) -> Address | None:
    """A peer's address as the sockets give it (an IPv4 address seen through IPv6 as IPv4);
    None if it is not an IP address."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def network_words(network: Network) -> str:
    """``address 203.0.113.7`` (one host) or ``network 203.0.113.0/24``."""
    return f"address {network.network_address}" if network.num_addresses == 1 else f"network {network}"


def in_network(address: Address | None, network: Network) -> bool:
    return address is not None and address.version == network.version and address in network


def utc(when: float) -> str:
    """A time for people: ``2026-12-10 18:00 UTC``."""
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d %H:%M UTC")


def iso(when: float | None) -> str | None:
    """A time for programs (``--json``): ISO 8601 in UTC, to the second."""
    return None if when is None else datetime.fromtimestamp(when, UTC).isoformat(timespec="seconds")


# --------------------------------------------------------------------------- what is in force


@dataclass(frozen=True)
class Sanction:
    """A ban or a chat mute: its reason (may be empty) and when it ends (None: never)."""

    reason: str
    created: float
    expires: float | None

    def in_force(self, now: float) -> bool:
        return self.expires is None or now < self.expires

    def terms(self) -> str:
        """`` (reason: spam) until 2026-12-10 18:00 UTC``: what a player is told after the verdict."""
        said = f" (reason: {self.reason})" if self.reason else ""
        return said + (f" until {utc(self.expires)}" if self.expires is not None else "")


@dataclass(frozen=True)
class Ban(Sanction):
    id: int
    account: int | None  # the account banned, or None: an address or network
    name: str | None  # that account's name as it is now
    network: Network | None

    def covers(self, account: int | None, address: Address | None) -> bool:
        if self.account is not None:
            return account == self.account
        return self.network is not None and in_network(address, self.network)

    def line(self) -> str:
        """The one line a banned player is told."""
        return f"You are banned from this server{self.terms()}."

    def target(self) -> str:
        """What is banned, in words: ``account alice``, ``address 203.0.113.7``, ``network 203.0.113.0/24``."""
        return f"account {self.name}" if self.network is None else network_words(self.network)


@dataclass(frozen=True)
class ChatMute(Sanction):
    account: int
    name: str

    def line(self) -> str:
        """What a muted player is told when they chat."""
        return f"The server's operator has muted you in chat{self.terms()}: nobody sees your lines."


def load_bans(db: sqlite3.Connection, now: float) -> list[Ban]:
    """The bans in force at ``now``, newest first (an account's name as it is now)."""
    rows = db.execute("SELECT b.id, b.account, a.name, b.network, b.reason, b.created, b.expires FROM bans b "
                      "LEFT JOIN accounts a ON a.id = b.account WHERE b.expires IS NULL OR b.expires > ? "
                      "ORDER BY b.created DESC, b.id DESC", (now,)).fetchall()
    return [Ban(id=ban_id, account=account, name=name, network=None if network is None else parse_network(network),
                reason=reason, created=created, expires=expires)
            for ban_id, account, name, network, reason, created, expires in rows]


def load_chat_mutes(db: sqlite3.Connection, now: float) -> list[ChatMute]:
    """The operator's chat mutes in force at ``now``, newest first."""
    rows = db.execute("SELECT c.account, a.name, c.reason, c.created, c.expires FROM chat_mutes c "
                      "JOIN accounts a ON a.id = c.account WHERE c.expires IS NULL OR c.expires > ? "
                      "ORDER BY c.created DESC", (now,)).fetchall()
    return [ChatMute(account=account, name=name, reason=reason, created=created, expires=expires)
            for account, name, reason, created, expires in rows]


@dataclass(frozen=True)
class Player:
    """A player as a report or a mute names them: the name shown, and the account (None: a guest)."""

    name: str
    account: int | None


class Moderation:
    """A running server's moderation: the bans and chat mutes in force, kept in step with the
    database, and what the server writes of it (logins, reports, players' own mutes), queued with
    the turn's other writes on ``store``.

    ``logins_kept_days``: how long a login is kept; ``wall``: the time of day bans expire by (a
    test's own, to expire one without waiting)."""

    def __init__(self, store: Store, logins_kept_days: float, wall: Callable[[], float] = time.time) -> None:
        self.store = store
        self.logins_kept_days = logins_kept_days
        self.wall = wall
        self.bans: list[Ban] = []
        self.chat_mutes: dict[int, ChatMute] = {}
        #: called after a poll that found the database changed: close what a new ban covers
        self.listeners: list[Callable[[], None]] = []
        #: the game server's: close the session of a resume token, and forfeit its games, for a
        #: ban (the SSH gateway's players share the gateway's address: it judges theirs itself)
        self.expel: Callable[[str, Ban], None] | None = None
        self._data_version: int | None = None
        self._unannounced = False  # a change the listeners have not been told of yet
        self._timer: Timer | None = None

    def refresh(self) -> bool:
        """Reload the bans and mutes if the database changed since the last look; True if it did."""
        db = self.store.db
        version = db.execute("PRAGMA data_version").fetchone()[0]
        if version == self._data_version:
            return False
        now = self.wall()
        self.bans = load_bans(db, now)
        self.chat_mutes = {mute.account: mute for mute in load_chat_mutes(db, now)}
        self._data_version = version
        self._unannounced = True
        return True

    def ban_of(self, account: int | None, address: str | None) -> Ban | None:
        """The ban in force over that account or that address (None: no address to judge), if any,
        as the database holds them now."""
        self.refresh()
        now = self.wall()
        ip = None if address is None else parse_address(address)
        return next((ban for ban in self.bans if ban.in_force(now) and ban.covers(account, ip)), None)

    def chat_mute_of(self, account: int | None) -> ChatMute | None:
        """The operator's chat mute in force over that account, as the database holds them now."""
        self.refresh()
        mute = None if account is None else self.chat_mutes.get(account)
        return mute if mute is not None and mute.in_force(self.wall()) else None

    # ------------------------------------------------------------------ polling

    def start(self, clock: Clock, seconds: float) -> None:
        """Look at the database every ``seconds`` on ``clock``; tell the listeners of a change."""
        self.refresh()
        self._unannounced = False  # (what the server starts with is no change)

        def poll() -> None:
            self._timer = clock.call_later(seconds, poll)
            self.refresh()
            if self._unannounced:  # (a change another caller's refresh found counts too)
                self._unannounced = False
                for listener in list(self.listeners):
                    listener()

        self._timer = clock.call_later(seconds, poll)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # ------------------------------------------------------------------ what the server writes

    def record_login(self, player: Player, address: str, via: str) -> None:
        """A login; the logins older than ``logins_kept_days`` go with it."""
        now = time.time()
        self.store.write("DELETE FROM logins WHERE at < ?", (now - self.logins_kept_days * SECONDS_PER_DAY,))
        self.store.write("INSERT INTO logins (at, name, account, address, via) VALUES (?, ?, ?, ?, ?)",
                         (now, player.name, player.account, address, via))

    def reports_today(self, account: int | None, address: str) -> int:
        """Reports made from that account, or from that address, in the last day."""
        self.store.commit()
        row = self.store.db.execute(
            "SELECT count(*) FROM reports WHERE at > ? AND (reporter_address = ? OR reporter_account = ?)",
            (time.time() - SECONDS_PER_DAY, address, account)).fetchone()
        return int(row[0])

    def record_report(self, reporter: Player, address: str, reported: Player, game: int | None, reason: str) -> None:
        self.store.write("INSERT INTO reports (at, reporter, reporter_account, reporter_address, reported, "
                         "reported_account, game, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (time.time(), reporter.name, reporter.account, address, reported.name, reported.account,
                          game, reason))

    def muted_by(self, account: int) -> dict[str, int | None]:
        """The players ``account`` muted for itself: each one's name as it is now -> its account."""
        self.store.commit()
        rows = self.store.db.execute("SELECT a.name, a.id FROM player_mutes p JOIN accounts a ON a.id = p.muted "
                                     "WHERE p.account = ?", (account,)).fetchall()
        return dict(rows)

    def keep_mute(self, account: int, muted: int, on: bool) -> None:
        """Keep (``on``) or forget an account's mute of another account."""
        if on:
            self.store.write("INSERT OR IGNORE INTO player_mutes (account, muted, created) VALUES (?, ?, ?)",
                             (account, muted, time.time()))
        else:
            self.store.write("DELETE FROM player_mutes WHERE account = ? AND muted = ?", (account, muted))


# --------------------------------------------------------------------------- a player's own mutes


def hide_muted(message: m.Message, muted: Container[str]) -> m.Message:
    """``message`` as a receiver who muted the players named in ``muted`` gets it: each of their
    chat lines in a game's update or state becomes ``chat_hidden`` (the event keeps its place
    and version, so the receiver's count of the game's events stays whole).  The same message
    when there is nothing to hide."""
    if not isinstance(message, (m.GameState, m.Update)):
        return message
    events = message.log if isinstance(message, m.GameState) else message.events
    if not any(e.get("type") == ev.ChatSaid.TYPE and e.get("name") in muted for e in events):
        return message
    hidden = tuple({**ev.ChatHidden(ev.player_of(e["player"])).to_wire(), "version": e["version"]}
                   if e.get("type") == ev.ChatSaid.TYPE and e.get("name") in muted else e for e in events)
    return replace(message, log=hidden) if isinstance(message, m.GameState) else replace(message, events=hidden)
