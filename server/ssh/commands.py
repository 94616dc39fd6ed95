"""The commands an SSH client may run instead of playing: ``record GAME``, ``games`` and ``web-login``.

``ssh HOST record 42 > game.json`` writes game 42's ``aton-record/1`` (JSON) on stdout;
``ssh HOST games`` lists the player's games as a table (``games --json``: as JSON lines, one
game each).  Both only read, as the player the key is (its account's games, played with any
of the account's keys or clients, and its own session's; a guest: its session's), under the
game server's rule and rate limit (``server.history``).  ``ssh HOST web-login`` prints a link
that signs a web browser in as the key's player, once, for a few minutes (``server.web_logins``).
An error is one line on stderr with a non-zero exit status: 1 when the request is refused, 2
when it is malformed.  Any other command is refused the same way (``REFUSED``); a session
without a command plays.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from protocol.errors import ProtocolError
from protocol.game_lines import GameLine

from ..history import GameHistory, Reader
from ..web_logins import WebLogins
from .identity import Identity

#: How a command that is not one of these is answered, on stderr (status 1).
REFUSED = ("aton: this server runs only `record GAME` (a game's record as JSON), `games` (your games) "
           "and `web-login` (a link that signs a web browser in as you); connect without a command to play")
#: How they are answered by a gateway apart from the game server (``aton-server gateway``), which
#: has no database to read them from (status 1).
NOT_SERVED_APART = ("aton: this gateway does not serve `record`, `games` or `web-login`: connect to the game "
                    "server's own gateway, or use the client's Profile and Account screens")
USAGE_RECORD = "aton: usage: record GAME, with the game's number (e.g. record 42)"
USAGE_GAMES = "aton: usage: games [--json] [PAGE], PAGE from 1 (the newest games)"
USAGE_WEB_LOGIN = "aton: usage: web-login (no arguments)"
#: The longest game number or page accepted (a game id is a 63-bit integer).
MAX_DIGITS = 18


@dataclass(frozen=True)
class Outcome:
    """What a command writes on stdout and stderr, and its exit status."""

    stdout: bytes = b""
    stderr: str = ""
    status: int = 0


def is_command(command: str) -> bool:
    """Whether ``command`` is one of this module's (else the session refuses it with ``REFUSED``)."""
    return command.split(maxsplit=1)[:1] in (["record"], ["games"], ["web-login"])


def web_login(command: str, identity: Identity, logins: WebLogins | None) -> Outcome:
    """``web-login``: a link that signs a browser in as the player of the key ``identity`` logged in with."""
    if command.split() != ["web-login"]:
        return Outcome(stderr=USAGE_WEB_LOGIN, status=2)
    if logins is None:
        return Outcome(stderr="aton: this server does not serve the game in a web browser", status=1)
    if identity.fingerprint is None:
        return Outcome(stderr="aton: a guest has no account to sign a browser in with: log in with an SSH key",
                       status=1)
    try:
        issued = logins.issue(identity.fingerprint, identity.name)
    except ProtocolError as exc:
        return Outcome(stderr=f"aton: {exc.message}", status=1)
    return Outcome(stdout=(f"Open this link in a web browser within {issued.seconds / 60:g} minutes to play there "
                           f"as you (it works once):\n\n    {issued.link}\n\n").encode())


def run(command: str, reader: Reader, history: GameHistory) -> Outcome:
    """Answer one of the commands (``is_command``) for ``reader``."""
    words = command.split()
    if words[0] == "record":
        if len(words) != 2 or not _number(words[1]):
            return Outcome(stderr=USAGE_RECORD, status=2)
        try:
            record = history.record(reader, int(words[1]))
        except ProtocolError as exc:
            return Outcome(stderr=f"aton: {exc.message}", status=1)
        return Outcome(stdout=(json.dumps(record, indent=1) + "\n").encode())
    options = words[1:]
    as_json = "--json" in options
    pages = [word for word in options if word != "--json"]
    if options.count("--json") > 1 or len(pages) > 1 or (pages and not (_number(pages[0]) and int(pages[0]) >= 1)):
        return Outcome(stderr=USAGE_GAMES, status=2)
    page = int(pages[0]) - 1 if pages else 0
    try:
        lines, _more = history.games(reader, page)
    except ProtocolError as exc:
        return Outcome(stderr=f"aton: {exc.message}", status=1)
    if as_json:
        return Outcome(stdout="".join(json.dumps(line.to_wire()) + "\n" for line in lines).encode())
    return Outcome(stdout=games_table(lines, page).encode())


def _number(word: str) -> bool:
    return word.isascii() and word.isdigit() and len(word) <= MAX_DIGITS


def games_table(lines: list[GameLine], page: int = 0) -> str:
    """The games as a table for a terminal: number, date, opponent (``robert (then: bob)`` if
    renamed since), result, length."""
    if not lines:
        return "No games here yet.\n" if page else "You have no games on this server yet.\n"
    rows = [("game", "date (UTC)", "opponent", "result", "length")]
    rows += [(str(line.game), line.date, line.opponent_words, line.result_words, line.length_words) for line in lines]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "".join("  ".join(cell.rjust(widths[0]) if i == 0 else cell.ljust(widths[i])
                             for i, cell in enumerate(row)).rstrip() + "\n" for row in rows)
