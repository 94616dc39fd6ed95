"""The games the server hosts, by name: each game's ``HostedGame`` (``server.games.hosted``)
and its ``GameKind`` (``server.games.kind``), one module per game."""

from __future__ import annotations

from . import atlas_zeus, aton
from .aton import AtonGame
from .hosted import Forfeit, HostedGame, RefusedMove
from .kind import GameKind

__all__ = ["GAMES", "AtonGame", "Forfeit", "GameKind", "HostedGame", "RefusedMove", "game_kind"]

#: Every game the server hosts, by its name on the wire (``protocol.messages.GAMES``, in its order).
GAMES: dict[str, GameKind] = {kind.name: kind for kind in (aton.KIND, atlas_zeus.KIND)}


def game_kind(name: str) -> GameKind:
    """The kind of game ``name`` names; ValueError if the server hosts none of that name."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"no game is named {name!r}") from None
