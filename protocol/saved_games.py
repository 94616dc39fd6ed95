"""What a client keeps of its unfinished games between runs, so that a game it takes back after
being started again (``saved_sessions``) goes on as if it had never left:

- ``deals.json``: what it saw of each game's deal — its own contribution, the commitments it
  was shown before opening it, every card it was dealt or shown (``protocol.fairness``) — so
  that the decks are still checked at the game's end (else: "Decks not verifiable");
- ``seals.json``: the cartouches it sealed and has not opened yet, cards and nonce
  (``protocol.client.Seal``), so that it opens them when the server asks; a player who cannot
  open loses the game when the open clock runs out.

Each is a small file, readable by this user only, keyed by server (as the tokens are), then by
game; a game's entry goes once its deal is revealed, or its seal opened.  The Textual client
keeps them beside its tokens; each bot that keeps its session, in its own directory
(``bots.network``); a client a gateway runs for a remote player, in the player's directory on the
server's machine (``protocol.handoff.KEPT_GAMES_VARIABLE``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from .client import Client, Seal
from .fairness import DealWitness
from .messages import WELCOME_GAMES
from .private_json import directory_lock, read_json_object, write_private_json
from .saved_sessions import MAX_SERVERS

#: The unfinished games kept for each server (the most recent): a game abandoned on a server
#: never reveals its deal, and must not stay for ever.
MAX_GAMES = 20


class Entry(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


E = TypeVar("E", bound=Entry)


class GameEntries(Generic[E]):
    """One of the files, for one server (``server``: the key of ``saved_sessions``): an entry per
    game, read with ``read`` (ValueError: a damaged entry, left out).  Every failure to read or
    write the file is ignored."""

    def __init__(self, path: Path, server: str, read: Callable[[Any], E]) -> None:
        self.path = path
        self.server = server
        self._read = read
        self._kept: dict[str, Any] = {}  # this server's entries as last read or written here

    def load(self) -> dict[int, E]:
        entries = read_json_object(self.path).get(self.server)
        loaded = {}
        for game, entry in entries.items() if isinstance(entries, dict) else ():
            try:
                loaded[int(game)] = self._read(entry)
            except ValueError:
                continue
        self._kept = self._as_json(loaded)
        return loaded

    def keep(self, entries: Mapping[int, E]) -> None:
        """Replace this server's entries with ``entries`` (the last ``MAX_GAMES`` games of them); a
        file with nothing left goes, and its directory with it if that is left empty (a hosted
        player's: ``protocol.handoff.KEPT_GAMES_VARIABLE``).  Other servers' entries stay as they are,
        even if another process changes them at this moment (``private_json.directory_lock``)."""
        kept = self._as_json(entries)
        with directory_lock(self.path.parent):
            servers = read_json_object(self.path)
            servers.pop(self.server, None)
            if kept:
                servers[self.server] = kept  # the most recent last
            if servers:
                write_private_json(self.path, dict(list(servers.items())[-MAX_SERVERS:]))
            else:
                with contextlib.suppress(OSError):  # (a directory that holds anything else stays)
                    self.path.unlink(missing_ok=True)
                    self.path.parent.rmdir()
        self._kept = kept

    def keep_changed(self, entries: Mapping[int, E]) -> None:
        """``keep`` them if they changed since the last ``load`` or ``keep``: called after every
        frame of a game, it writes only then."""
        if self._as_json(entries) != self._kept:
            self.keep(entries)

    @staticmethod
    def _as_json(entries: Mapping[int, E]) -> dict[str, Any]:
        recent = sorted(entries)[-MAX_GAMES:]  # (a server numbers its games in order)
        return {str(game): entries[game].to_dict() for game in recent}


class SavedGames:
    """Both files in ``directory``, for one server."""

    def __init__(self, directory: Path, server: str) -> None:
        self.deals = GameEntries(directory / "deals.json", server, DealWitness.from_dict)
        self.seals = GameEntries(directory / "seals.json", server, Seal.from_dict)

    def attach(self, client: Client) -> None:
        """Give a client, as it connects, what an earlier run kept of the games its session holds
        seats in (``welcome.games``: a session taken back), and keep what it must remember from then
        on (``Client.keep``).  The rest goes: games that ended or were lost while the client was away,
        and those of a session the server no longer has (a game numbered as one of them on a new
        database must not be checked against an old deal)."""
        seated = client.welcome.games if client.welcome is not None else ()
        if len(seated) < WELCOME_GAMES:  # (a welcome names at most that many: then keep them all)
            client.deals.update({game: w for game, w in self.deals.load().items() if game in seated})
            client.seals.update({game: seal for game, seal in self.seals.load().items() if game in seated})
        else:
            client.deals.update(self.deals.load())
            client.seals.update(self.seals.load())
        self.keep_changed(client)
        client.keep = self.keep_changed

    def keep_changed(self, client: Client) -> None:
        self.deals.keep_changed(client.deals)
        self.seals.keep_changed(client.seals)

