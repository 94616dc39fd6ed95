"""What this client saw of each unfinished game's deal, kept between runs: a game taken back
after starting ``aton`` again (``saved_sessions``) still has its decks checked at its end.

The check (``protocol.fairness.verify``) needs this client's own contribution to the deal, the
commitments it was shown before opening it, and every card it was dealt or shown; in memory
only, they would be lost with the process, and the game would end "Decks not verifiable".  One
small file, readable by this user only, keyed by server as the tokens are, then by game; a game's
entry goes once its deal is revealed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import platformdirs

from protocol.fairness import DealWitness

from .private_files import read_json_object, write_private_json
from .saved_sessions import MAX_SERVERS

#: The unfinished games kept for each server (the most recent): a game abandoned on a server
#: never reveals its deal, and must not stay for ever.
MAX_GAMES = 20


def deals_path() -> Path:
    return Path(platformdirs.user_data_dir("aton")) / "deals.json"


class SavedDeals:
    """The deals file, for one server (``server``: the key of ``saved_sessions``); every failure
    to read or write it is ignored, and a damaged entry is left out."""

    def __init__(self, path: Path, server: str) -> None:
        self.path = path
        self.server = server

    def load(self) -> dict[int, DealWitness]:
        entries = read_json_object(self.path).get(self.server)
        witnesses = {}
        for entry in entries.values() if isinstance(entries, dict) else ():
            try:
                witness = DealWitness.from_dict(entry)
            except ValueError:
                continue
            witnesses[witness.game] = witness
        return witnesses

    def keep(self, witnesses: Mapping[int, DealWitness]) -> None:
        """Replace this server's entry with ``witnesses`` (the last ``MAX_GAMES`` of them)."""
        servers = read_json_object(self.path)
        servers.pop(self.server, None)
        if witnesses:
            recent = sorted(witnesses)[-MAX_GAMES:]  # (a server numbers its games in order)
            servers[self.server] = {str(game): witnesses[game].to_dict() for game in recent}  # the most recent last
        write_private_json(self.path, dict(list(servers.items())[-MAX_SERVERS:]))
