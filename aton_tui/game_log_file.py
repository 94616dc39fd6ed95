"""Saving a game as the client saw it: the ``aton-log/1`` JSON file.

The protocol has no request for a game's ``aton-record/1`` yet, so the client
saves what it knows: every event it received (with versions), the players,
options and its final view.  It is a faithful account of the game from one seat,
not a replayable record (the seed and the hidden cards are the server's).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from .model import GameModel

FORMAT = "aton-log/1"


def game_log(model: GameModel) -> dict:
    return {
        "format": FORMAT,
        "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "game": model.game,
        "seat": model.seat,
        "players": model.players,
        "options": model.options,
        "version": model.version,
        "winner": model.view.winner,
        "reason": model.view.reason,
        "scores": {"red": model.view.red.score, "blue": model.view.blue.score},
        "events": model.events,
        "final_view": model.raw_view,
    }


def default_filename(model: GameModel) -> str:
    return f"aton-game-{model.game}.json"


def save_game_log(model: GameModel, path: Path) -> Path:
    path = path.expanduser()
    path.write_text(json.dumps(game_log(model), indent=1, ensure_ascii=False), encoding="utf-8")
    return path
