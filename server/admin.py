"""``aton-server admin``: the operator's moderation, on the server's database.

    aton-server admin ban TARGET [--reason TEXT] [--for DURATION]   an account, an address or a network
    aton-server admin unban TARGET
    aton-server admin bans                                          the bans in force
    aton-server admin mute NAME [--reason TEXT] [--for DURATION]    an account, in chat
    aton-server admin unmute NAME
    aton-server admin mutes                                         the chat mutes in force
    aton-server admin logins [--name NAME] [--address ADDRESS] [--limit N]
    aton-server admin reports [--limit N]

Each takes ``--db PATH`` (default: the server's, in the user data directory) and the lists
``--json`` (one JSON array).  The database may be in use by a running server: each change is
one short transaction, waiting up to ``BUSY_SECONDS`` for the server's own to finish, and the
server applies it within ``ServerConfig.moderation_poll_seconds`` (docs/hosting.md, "Moderation").
A TARGET that reads as an IP address or a CIDR network is one (``--account`` says it is a name).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .accounts import Account, Accounts
from .moderation import (
    Network,
    in_network,
    iso,
    load_bans,
    load_chat_mutes,
    network_words,
    parse_address,
    parse_network,
    utc,
)
from .store import NewerSchema, Store

#: How long a change waits for a running server's transaction to finish before giving up.
BUSY_SECONDS = 10.0
#: How many logins or reports a list shows unless told (``--limit``).
LIST_LIMIT = 50
DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class AdminError(Exception):
    """What the operator is told when a command cannot be done (status 1)."""


def duration(text: str) -> float:
    """``30m``, ``12h``, ``7d``, ``2w`` (or ``90s``) in seconds."""
    match = DURATION.match(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration such as 30m, 12h, 7d or 2w")
    return float(match[1]) * UNIT_SECONDS[match[2]]


def add_admin_parser(commands: argparse._SubParsersAction, default_db: Path) -> None:
    """The ``admin`` subcommand group of ``aton-server``."""
    admin = commands.add_parser("admin", help="moderation: bans, chat mutes, logins and reports (on the database)",
                                description="Moderation on the server's database; a running server applies "
                                            "each change within seconds.")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", type=Path, default=default_db, dest="admin_db", metavar="PATH",
                        help=f"the server's database (default {default_db})")
    listing = argparse.ArgumentParser(add_help=False)
    listing.add_argument("--json", action="store_true", help="one JSON array, for programs")
    sanction = argparse.ArgumentParser(add_help=False)
    sanction.add_argument("--reason", default="", help="why, as the player is told it")
    sanction.add_argument("--for", type=duration, default=None, dest="seconds", metavar="DURATION",
                          help="how long: 30m, 12h, 7d, 2w (default: until lifted)")
    actions = admin.add_subparsers(dest="action", required=True, metavar="ACTION")
    ban = actions.add_parser("ban", parents=[common, sanction], help="ban an account, an address or a network")
    ban.add_argument("target", metavar="TARGET", help="an account's name, an IP address, or a network (CIDR)")
    ban.add_argument("--account", action="store_true", help="TARGET is an account's name even if it looks like "
                                                            "an address")
    unban = actions.add_parser("unban", parents=[common], help="lift the bans of an account, an address or a network")
    unban.add_argument("target", metavar="TARGET")
    unban.add_argument("--account", action="store_true", help="TARGET is an account's name")
    actions.add_parser("bans", parents=[common, listing], help="the bans in force")
    mute = actions.add_parser("mute", parents=[common, sanction], help="mute an account in chat")
    mute.add_argument("name", metavar="NAME", help="the account's name")
    unmute = actions.add_parser("unmute", parents=[common], help="let an account chat again")
    unmute.add_argument("name", metavar="NAME")
    actions.add_parser("mutes", parents=[common, listing], help="the chat mutes in force")
    logins = actions.add_parser("logins", parents=[common, listing], help="the latest logins, newest first")
    logins.add_argument("--name", default=None, help="only this name (a guest's or an account's)")
    logins.add_argument("--address", default=None, type=parse_network_argument, metavar="ADDRESS",
                        help="only from this address or network")
    logins.add_argument("--limit", type=int, default=LIST_LIMIT, metavar="N", help=f"at most N (default {LIST_LIMIT})")
    reports = actions.add_parser("reports", parents=[common, listing], help="the latest reports, newest first")
    reports.add_argument("--limit", type=int, default=LIST_LIMIT, metavar="N", help=f"at most N (default {LIST_LIMIT})")


def parse_network_argument(text: str) -> Network:
    try:
        return parse_network(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither an IP address nor a network such as "
                                         "203.0.113.0/24") from None


def run_admin(args: argparse.Namespace, out: Callable[[str], object] = print) -> int:
    """Do one admin command; its status (1, said on standard error, when it cannot be done)."""
    path: Path = args.admin_db
    try:
        if not path.exists():
            raise AdminError(f"there is no database at {path} (give the server's with --db)")
        store = Store(path)
    except (NewerSchema, AdminError) as exc:
        print(f"aton-server admin: {exc}", file=sys.stderr)
        return 1
    store.db.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
    try:
        COMMANDS[args.action](store, args, out)
    except AdminError as exc:
        print(f"aton-server admin: {exc}", file=sys.stderr)
        return 1
    finally:
        store.close()
    return 0


# --------------------------------------------------------------------------- changes


def _target(store: Store, text: str, account_only: bool) -> Account | Network:
    """An account (by its name), or an address or network."""
    if not account_only:
        try:
            return parse_network(text)
        except ValueError:
            loose = _network_with_host_bits(text)
            if loose is not None:
                raise AdminError(f"{text} is not where a network starts: did you mean {loose}?") from None
    account = Accounts(store).by_name(text)
    if account is None:
        raise AdminError(f"no account is named {text!r} (a guest has no account: ban their address)")
    return account


def _network_with_host_bits(text: str) -> Network | None:
    """The network ``text`` names if its address has bits past the prefix set (``10.0.0.1/24``)."""
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        return None


def _expiry(args: argparse.Namespace) -> tuple[float, float | None]:
    now = time.time()
    return now, None if args.seconds is None else now + args.seconds


def _terms(reason: str, expires: float | None) -> str:
    return (f" until {utc(expires)}" if expires is not None else " until lifted") + (f": {reason}" if reason else "")


APPLIED = "A running server applies it within seconds."


def ban(store: Store, args: argparse.Namespace, out: Callable[[str], object]) -> None:
    target = _target(store, args.target, args.account)
    now, expires = _expiry(args)
    if isinstance(target, Account):
        store.db.execute("INSERT INTO bans (account, reason, created, expires) VALUES (?, ?, ?, ?)",
                         (target.id, args.reason, now, expires))
        what = f"account {target.name}"
    else:
        store.db.execute("INSERT INTO bans (network, reason, created, expires) VALUES (?, ?, ?, ?)",
                         (str(target), args.reason, now, expires))
        what = network_words(target)
    out(f"Banned {what}{_terms(args.reason, expires)}. {APPLIED}")


def unban(store: Store, args: argparse.Namespace, out: Callable[[str], object]) -> None:
    target = _target(store, args.target, args.account)
    if isinstance(target, Account):
        lifted = store.db.execute("DELETE FROM bans WHERE account = ?", (target.id,)).rowcount
        what = f"account {target.name}"
    else:
        lifted = store.db.execute("DELETE FROM bans WHERE network = ?", (str(target),)).rowcount
        what = network_words(target)
    if not lifted:
        raise AdminError(f"{what} is not banned (aton-server admin bans lists the bans)")
    out(f"Lifted {lifted} ban{'s' if lifted > 1 else ''} of {what}. {APPLIED}")


def mute(store: Store, args: argparse.Namespace, out: Callable[[str], object]) -> None:
    account = _target(store, args.name, account_only=True)
    assert isinstance(account, Account)
    now, expires = _expiry(args)
    store.db.execute("INSERT OR REPLACE INTO chat_mutes (account, reason, created, expires) VALUES (?, ?, ?, ?)",
                     (account.id, args.reason, now, expires))
    out(f"Muted {account.name} in chat{_terms(args.reason, expires)}. {APPLIED}")


def unmute(store: Store, args: argparse.Namespace, out: Callable[[str], object]) -> None:
    account = _target(store, args.name, account_only=True)
    assert isinstance(account, Account)
    if not store.db.execute("DELETE FROM chat_mutes WHERE account = ?", (account.id,)).rowcount:
        raise AdminError(f"{account.name} is not muted (aton-server admin mutes lists the mutes)")
    out(f"{account.name} may chat again. {APPLIED}")


# --------------------------------------------------------------------------- lists


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Columns aligned under their headers (the last one left ragged)."""
    cells = [[str(c) for c in headers], *[["" if c is None else str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers) - 1)]
    return "\n".join("  ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[-1]]).rstrip()
                     for row in cells)


def _show(args: argparse.Namespace, out: Callable[[str], object], records: list[dict], headers: Sequence[str],
          rows: Sequence[Sequence[object]], nothing: str) -> None:
    if args.json:
        out(json.dumps(records, ensure_ascii=False, indent=1))
    elif not rows:
        out(nothing)
    else:
        out(table(headers, rows))


def _until(expires: float | None) -> str:
    return "until lifted" if expires is None else utc(expires)


def bans(store: Store, args: argparse.Namespace, out: Callable[[str], object]) -> None:
    found = load_bans(store.db, time.time())
    records = [{"id": b.id, "account": b.name, "account_id": b.account,
                "network": None if b.network is None else str(b.network), "reason": b.reason,
                "since": iso(b.created), "until": iso(b.expires)} for b in found]
    rows = [(b.id, b.target(), utc(b.created), _until(b.expires), b.reason) for b in found]
    _show(args, out, records, ("ID", "BANNED", "SINCE", "UNTIL", "REASON"), rows, "No bans in force.")


def mutes(store: Store, args: argparse.Namespace, out: Callable[[str], object]) -> None:
    found = load_chat_mutes(store.db, time.time())
    records = [{"account": c.name, "account_id": c.account, "reason": c.reason, "since": iso(c.created),
                "until": iso(c.expires)} for c in found]
    rows = [(c.name, utc(c.created), _until(c.expires), c.reason) for c in found]
    _show(args, out, records, ("MUTED", "SINCE", "UNTIL", "REASON"), rows, "No chat mutes in force.")


def logins(store: Store, args: argparse.Namespace, out: Callable[[str], object]) -> None:
    query = ("SELECT l.at, l.name, l.account, a.name, l.address, l.via FROM logins l "
             "LEFT JOIN accounts a ON a.id = l.account")
    found = store.db.execute(query + (" WHERE l.name = ?" if args.name else "") + " ORDER BY l.at DESC, l.id DESC",
                             (args.name,) if args.name else ()).fetchall()
    if args.address is not None:
        found = [row for row in found if in_network(parse_address(row[4]), args.address)]
    found = found[:max(0, args.limit)]
    records = [{"time": iso(at), "name": name, "account": account_name, "account_id": account, "address": address,
                "via": via} for at, name, account, account_name, address, via in found]
    rows = [(utc(at), name, "guest" if account is None else account_name, address, via)
            for at, name, account, account_name, address, via in found]
    _show(args, out, records, ("TIME", "NAME", "ACCOUNT", "ADDRESS", "VIA"), rows, "No logins recorded.")


def reports(store: Store, args: argparse.Namespace, out: Callable[[str], object]) -> None:
    found = store.db.execute("SELECT id, at, reporter, reporter_account, reporter_address, reported, reported_account, "
                             "game, reason FROM reports ORDER BY at DESC, id DESC LIMIT ?",
                             (max(0, args.limit),)).fetchall()
    records = [{"id": rid, "time": iso(at), "reporter": reporter, "reporter_account_id": reporter_account,
                "reporter_address": address, "reported": reported, "reported_account_id": reported_account,
                "game": game, "reason": reason}
               for rid, at, reporter, reporter_account, address, reported, reported_account, game, reason in found]
    rows = [(rid, utc(at), f"{reporter} ({address})", reported, "" if game is None else game, reason)
            for rid, at, reporter, _, address, reported, _, game, reason in found]
    _show(args, out, records, ("ID", "TIME", "BY", "REPORTED", "GAME", "REASON"), rows, "No reports.")


COMMANDS: dict[str, Callable[[Store, argparse.Namespace, Callable[[str], object]], None]] = {
    "ban": ban, "unban": unban, "bans": bans, "mute": mute, "unmute": unmute, "mutes": mutes,
    "logins": logins, "reports": reports,
}
