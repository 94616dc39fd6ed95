"""The commands an SSH client may run instead of playing: ``record GAME``, ``games`` and ``web-login``.

``ssh HOST record 42 > game.json`` writes game 42's ``aton-record/1`` (JSON) on stdout;
``ssh HOST games`` lists the player's games as a table (``games --json``: as JSON lines, one
game each).  Both only read, as the player the key is (its account's games, played with any
of the account's keys or clients, and its own session's; a guest: its session's), under the
game server's rule and rate limit (``server.history``).  ``ssh HOST web-login`` prints a link
that signs a web browser in as the key's player, once, for a few minutes (``server.web_logins``).
A gateway beside the game server reads its database (``HistoryAnswers``); a gateway apart from
it asks it over the game protocol, as the player (``ArbiterAnswers``): the same answers.
An error is one line on stderr with a non-zero exit status: 1 when the request is refused, 2
when it is malformed.  Any other command is refused the same way (``REFUSED``); a session
without a command plays.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from protocol import messages as m
from protocol.client import Client
from protocol.errors import ErrorCode, ProtocolError
from protocol.game_lines import GameLine

from ..history import GameHistory, Reader
from ..web_logins import NO_WEB, WebLogins
from .identity import Identity

#: How a command that is not one of these is answered, on stderr (status 1).
REFUSED = ("aton: this server runs only `record GAME` (a game's record as JSON), `games` (your games) "
           "and `web-login` (a link that signs a web browser in as you); connect without a command to play")
#: How they are answered when the game server cannot be reached (a gateway apart from it)
UNREACHABLE = "aton: the game server cannot be reached; try again in a minute"
USAGE_RECORD = "aton: usage: record GAME, with the game's number (e.g. record 42)"
USAGE_GAMES = "aton: usage: games [--json] [PAGE], PAGE from 1 (the newest games)"
USAGE_WEB_LOGIN = "aton: usage: web-login (no arguments)"
#: Seconds a gateway apart from the game server waits for one of its answers.
ARBITER_SECONDS = 10.0
Answered = TypeVar("Answered", bound=m.Message)
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


@dataclass(frozen=True)
class WebLink:
    """A web sign-in link, and for how many seconds it is good."""

    link: str
    seconds: float


class Answers(Protocol):
    """Where the commands' answers come from, as the player of one login: the game server's
    database beside it (``HistoryAnswers``), or the game server itself, asked over the game
    protocol by a gateway apart from it (``ArbiterAnswers``).  Each raises ProtocolError when
    the request is refused."""

    async def record(self, game: int) -> dict[str, Any]: ...

    async def games(self, page: int) -> list[GameLine]: ...

    async def web_login(self) -> WebLink: ...


class HistoryAnswers:
    """The answers of a gateway beside the game server: its history and its web sign-in codes, read
    as ``reader`` (``identity``'s session and account)."""

    def __init__(self, identity: Identity, reader: Reader, history: GameHistory, logins: WebLogins | None) -> None:
        self.identity, self.reader, self.history, self.logins = identity, reader, history, logins

    async def record(self, game: int) -> dict[str, Any]:
        return self.history.record(self.reader, game)

    async def games(self, page: int) -> list[GameLine]:
        return self.history.games(self.reader, page)[0]

    async def web_login(self) -> WebLink:
        if self.logins is None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, NO_WEB)
        assert self.identity.fingerprint is not None
        issued = self.logins.issue(self.identity.fingerprint, self.identity.name)
        return WebLink(issued.link, issued.seconds)


class ArbiterAnswers:
    """The answers of a gateway apart from the game server: asked on a connection of the game
    protocol that proves the player (``get_record``, ``get_profile``, ``get_web_login``)."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def _ask(self, request: m.Message, answer: type[Answered]) -> Answered:
        asked = await self.client.send(request)
        while True:
            reply = await self.client.recv(ARBITER_SECONDS)
            if getattr(reply, "reply_to", None) != asked:
                continue  # (something else the game server says meanwhile)
            if isinstance(reply, m.Error):
                raise ProtocolError(ErrorCode(reply.code), reply.message)
            if not isinstance(reply, answer):
                raise ProtocolError(ErrorCode.INTERNAL, f"the game server answered {reply.TYPE}")
            return reply

    async def record(self, game: int) -> dict[str, Any]:
        return (await self._ask(m.GetRecord(game=game), m.GameRecordReply)).record

    async def games(self, page: int) -> list[GameLine]:
        profile = await self._ask(m.GetProfile(page=page), m.Profile)
        return [GameLine.from_wire(item) for item in profile.games]

    async def web_login(self) -> WebLink:
        granted = await self._ask(m.GetWebLogin(), m.WebLogin)
        return WebLink(granted.link, granted.seconds)


async def run(command: str, identity: Identity, answers: Answers) -> Outcome:
    """Answer one of the commands (``is_command``) for the player of ``identity``."""
    words = command.split()
    try:
        if words[0] == "web-login":
            if words != ["web-login"]:
                return Outcome(stderr=USAGE_WEB_LOGIN, status=2)
            if identity.fingerprint is None:
                return Outcome(stderr="aton: a guest has no account to sign a browser in with: log in with an SSH key",
                               status=1)
            link = await answers.web_login()
            return Outcome(stdout=(f"Open this link in a web browser within {link.seconds / 60:g} minutes to play "
                                   f"there as you (it works once):\n\n    {link.link}\n\n").encode())
        if words[0] == "record":
            if len(words) != 2 or not _number(words[1]):
                return Outcome(stderr=USAGE_RECORD, status=2)
            record = await answers.record(int(words[1]))
            return Outcome(stdout=(json.dumps(record, indent=1) + "\n").encode())
        options = words[1:]
        as_json = "--json" in options
        pages = [word for word in options if word != "--json"]
        if options.count("--json") > 1 or len(pages) > 1 or (pages and not (_number(pages[0]) and int(pages[0]) >= 1)):
            return Outcome(stderr=USAGE_GAMES, status=2)
        page = int(pages[0]) - 1 if pages else 0
        lines = await answers.games(page)
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
