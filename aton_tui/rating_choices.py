"""What the dialogs that start a game offer about ratings: rated or casual, and a bot about your
strength.

A player with an account chooses a rated or a casual game (rated first); a guest is told that
guests play casual games.  The "Play a bot" dialog writes each level with its rating for the
clock (the server's lobby tells them, since protocol 1.6) and chooses the level whose rating
is nearest the player's own.  Everything comes from the lobby's entries: the player's own
entry carries its ratings (none: a guest).
"""

from __future__ import annotations

from typing import Any

from protocol.game_frames import ATLAS_ZEUS, rating_of
from protocol.messages import DEFAULT_GAME

from .lobby_model import LobbyModel
from .screens.dialogs import Choice

RATED, CASUAL = "rated", "casual"
GUEST_NOTE = "Guests play casual games: rated ones need an account (a key)."


def own_ratings(lobby: LobbyModel, name: str) -> dict[str, Any] | None:
    """The player's own ratings, per clock ({} when unknown: their entry is on another page;
    None: a guest, or a server without ratings)."""
    entry = lobby.player(name)
    if entry is None:
        return {}
    ratings = entry.get("ratings")
    return ratings if isinstance(ratings, dict) else None


def rated_choice(ratings: dict[str, Any] | None) -> tuple[Choice, ...]:
    """The "Game" row (rated or casual) for a player with an account; none for a guest."""
    return () if ratings is None else (Choice("game", "Game", (RATED, CASUAL), RATED),)


def guest_note(ratings: dict[str, Any] | None) -> str:
    return GUEST_NOTE if ratings is None else ""


def is_rated(result: dict[str, str]) -> bool | None:
    """What a dialog's answer asks for: rated (True), casual (None: said as older clients do)."""
    return True if result.get("game") == RATED else None


#: The row of a dialog that chooses the game played, and the games as players read them.
PLAY = "play"
GAME_TITLES = {DEFAULT_GAME: "Aton", ATLAS_ZEUS: "Atlas & Zeus"}
#: The games that may be rated (Atlas & Zeus is played casual only).
RATED_GAMES = frozenset({DEFAULT_GAME})


def rated_game(result: dict[str, str]) -> bool | None:
    """``is_rated`` for a dialog that also chooses the game: a game that is never rated is casual."""
    return is_rated(result) if result.get(PLAY, DEFAULT_GAME) in RATED_GAMES else None


def _rating(entry: Any) -> int | None:
    rating = entry.get("rating") if isinstance(entry, dict) else None
    return rating if type(rating) is int else None


def bot_level_choice(lobby: LobbyModel, levels: tuple[str, ...], clock: str, default: str,
                     ratings: dict[str, Any] | None) -> tuple[Choice, str]:
    """The "Strength" row: each level with its bot's rating for ``clock``, the one nearest the
    player's rating chosen (else ``default``); and a note that says why, or nothing."""
    bots = {level: lobby.bots.get(level, {}).get(clock) if isinstance(lobby.bots.get(level), dict) else None
            for level in levels}
    shown = tuple(f"{level} {text}" if (text := rating_of(bots[level] or {})) else level for level in levels)
    mine = _rating((ratings or {}).get(clock))
    rated_bots = {level: rating for level, entry in bots.items() if (rating := _rating(entry)) is not None}
    if mine is None or not rated_bots:
        return Choice("level", "Strength", levels, default, shown), ""
    nearest = min(rated_bots, key=lambda level: abs(rated_bots[level] - mine))
    own = rating_of((ratings or {}).get(clock) or {})
    note = f"Your {clock} rating is {own}: the {nearest} bot is about your strength."
    return Choice("level", "Strength", levels, nearest, shown), note
