"""Accounts: who a player is on this server, across connections, keys and renames.

An account has a name it owns and one or more keys that prove it (``account_keys``: a key's
``SHA256:…`` fingerprint, as ``ssh-keygen -l`` prints it, whether the key logs in over SSH or
signs a native client's ``hello``).  Names are unique by what they look like
(``protocol.names.name_key``: case, accents, spacing, punctuation and lookalike letters
aside), so no account can take a name that passes for another's.  Hosted bots have accounts
too (kind ``bot``, no keys), made when the server starts, so that their games count for them.

The accounts live in the game server's database (``server.store.Store``): they are written at
once, outside the store's group commit (each statement its own transaction), as an account must
exist (with its id) before anything refers to it.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol.errors import ProtocolError
from protocol.names import account_name, name_key, with_suffix

if TYPE_CHECKING:
    from .store import Store

#: The kinds of account: a person, or a bot (hosted by the server or a bot client's).
ACCOUNT_KINDS = ("human", "bot")


def bot_name(level: str) -> str:
    """The name (and account) a hosted bot of ``level`` plays under, e.g. ``Bot (easy)``."""
    return f"Bot ({level})"


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    kind: str  # one of ACCOUNT_KINDS


@dataclass(frozen=True)
class AccountKey:
    """One key of an account: when it was added, last used (None: never) and how many logins."""

    fingerprint: str
    added: float
    last_seen: float | None
    logins: int


class NameTaken(Exception):
    """The name (or one that looks like it) belongs to another account."""


class KeyTaken(Exception):
    """The key belongs to an account already."""


def create_tables(db: sqlite3.Connection) -> None:
    """The accounts' tables (a migration of ``server.store``), and every SSH key the gateway
    remembered before accounts (``ssh_identities``, if the database has it) made an account with
    its name; a name that looks like one taken before it gets a free variant (``alice-2``), and one
    that is not a valid name by today's rules (kept by an older server) becomes ``player``'s."""
    db.execute("""CREATE TABLE accounts (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('human', 'bot')),
        created REAL NOT NULL
    )""")
    db.execute("""CREATE TABLE account_keys (
        fingerprint TEXT PRIMARY KEY,
        account INTEGER NOT NULL REFERENCES accounts(id),
        added REAL NOT NULL,
        last_seen REAL,
        logins INTEGER NOT NULL DEFAULT 0
    )""")
    db.execute("CREATE INDEX account_keys_by_account ON account_keys (account)")
    if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ssh_identities'").fetchone():
        return
    remembered = db.execute("SELECT fingerprint, name, first_seen, last_seen, logins FROM ssh_identities "
                            "ORDER BY first_seen, fingerprint").fetchall()
    for fingerprint, name, first_seen, last_seen, logins in remembered:
        try:
            valid = account_name(name)
        except ProtocolError:
            valid = "player"
        account = _insert_account(db, free_variant(db, valid), "human", first_seen)
        db.execute("INSERT INTO account_keys (fingerprint, account, added, last_seen, logins) VALUES (?, ?, ?, ?, ?)",
                   (fingerprint, account, first_seen, last_seen, logins))


def _insert_account(db: sqlite3.Connection, name: str, kind: str, created: float) -> int:
    cursor = db.execute("INSERT INTO accounts (name, name_key, kind, created) VALUES (?, ?, ?, ?)",
                        (name, name_key(name), kind, created))
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def free_variant(db: sqlite3.Connection, name: str) -> str:
    """``name`` if no account has it (or one like it), else ``name-2``, ``name-3``…, the first free."""
    candidate, n = name, 1
    while db.execute("SELECT 1 FROM accounts WHERE name_key = ?", (name_key(candidate),)).fetchone():
        n += 1
        candidate = with_suffix(name, f"-{n}")
    return candidate


class Accounts:
    """The accounts of the server's database."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db

    def _account(self, where: str, value: object) -> Account | None:
        row = self.db.execute(f"SELECT id, name, kind FROM accounts WHERE {where} = ?", (value,)).fetchone()
        return None if row is None else Account(*row)

    def by_id(self, account_id: int) -> Account | None:
        return self._account("id", account_id)

    def by_name(self, name: str) -> Account | None:
        """The account whose name looks like ``name`` (``protocol.names.name_key``)."""
        return self._account("name_key", name_key(name))

    def by_fingerprint(self, fingerprint: str) -> Account | None:
        """The account a key (``SHA256:…``) belongs to."""
        row = self.db.execute("SELECT a.id, a.name, a.kind FROM account_keys k JOIN accounts a ON a.id = k.account "
                              "WHERE k.fingerprint = ?", (fingerprint,)).fetchone()
        return None if row is None else Account(*row)

    def names(self, account_ids: Iterable[int]) -> dict[int, str]:
        """The names now of the accounts ``account_ids`` (those that exist), by id."""
        wanted = sorted(set(account_ids))
        if not wanted:
            return {}
        marks = ", ".join("?" * len(wanted))
        return dict(self.db.execute(f"SELECT id, name FROM accounts WHERE id IN ({marks})", wanted).fetchall())

    def free_variant(self, name: str) -> str:
        """``name`` if it is free, else the first free ``name-2``, ``name-3``…"""
        return free_variant(self.db, name)

    def create(self, name: str, kind: str, fingerprint: str | None = None) -> Account:
        """A new account named ``name`` (NameTaken if it is not free), with its first key if given."""
        if kind not in ACCOUNT_KINDS:
            raise ValueError(f"an account is one of {ACCOUNT_KINDS}, not {kind!r}")
        now = time.time()
        self.db.execute("BEGIN IMMEDIATE")
        try:
            try:
                account = _insert_account(self.db, name, kind, now)
            except sqlite3.IntegrityError:
                raise NameTaken(name) from None
            if fingerprint is not None:
                self.db.execute("INSERT INTO account_keys (fingerprint, account, added) VALUES (?, ?, ?)",
                                (fingerprint, account, now))
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
        return Account(account, name, kind)

    def sign_in(self, fingerprint: str, kind: str, name: Callable[[], str]) -> tuple[Account, str | None]:
        """The account of a key that was just proved, and something to tell its player: a key
        never seen gets a new account (a ``bot``'s if ``kind`` says so) named ``name()``, or if
        that is taken its first free variant (and the notice says so).  The key's use is counted."""
        account = self.by_fingerprint(fingerprint)
        notice = None
        if account is None:
            wanted = name()
            free = self.free_variant(wanted)
            if free != wanted:
                notice = (f'The name "{wanted}" belongs to another player: you are "{free}" here. '
                          "You may choose another name in your account.")
            account = self.create(free, "bot" if kind == "bot" else "human", fingerprint)
        self.db.execute("UPDATE account_keys SET last_seen = ?, logins = logins + 1 WHERE fingerprint = ?",
                        (time.time(), fingerprint))
        return account, notice

    def keys(self, account: Account) -> list[AccountKey]:
        """The account's keys, oldest first."""
        rows = self.db.execute("SELECT fingerprint, added, last_seen, logins FROM account_keys WHERE account = ? "
                               "ORDER BY added, fingerprint", (account.id,)).fetchall()
        return [AccountKey(*row) for row in rows]

    def rename(self, account: Account, name: str) -> Account:
        """The account under its new name; NameTaken if another account has it (or one like it).
        A name that only looks like its own (another case, an accent) is its to take."""
        holder = self.by_name(name)
        if holder is not None and holder.id != account.id:
            raise NameTaken(name)
        self.db.execute("UPDATE accounts SET name = ?, name_key = ? WHERE id = ?", (name, name_key(name), account.id))
        return Account(account.id, name, account.kind)

    def add_key(self, account: Account, fingerprint: str) -> None:
        """Give the account one more key; KeyTaken if the key belongs to an account already."""
        try:
            self.db.execute("INSERT INTO account_keys (fingerprint, account, added) VALUES (?, ?, ?)",
                            (fingerprint, account.id, time.time()))
        except sqlite3.IntegrityError:
            raise KeyTaken(fingerprint) from None

    def remove_key(self, account: Account, fingerprint: str) -> bool:
        """Take a key from the account; False if it is not one of its keys."""
        return self.db.execute("DELETE FROM account_keys WHERE account = ? AND fingerprint = ?",
                               (account.id, fingerprint)).rowcount > 0

    def bot(self, name: str) -> Account:
        """The account of the hosted bot shown as ``name``, made if it has none yet."""
        return self.by_name(name) or self.create(name, "bot")
