"""Export stored games as ``aton-record/1`` files (``aton-server export``)."""

from __future__ import annotations

import json
from pathlib import Path

from aton.moves import move_from_dict
from aton.options import Rules
from aton.players import Player
from aton.record import GameRecord

from .fair_deal import DealSecrets
from .store import Store, StoredGame


def record_of(stored: StoredGame) -> dict:
    """The game's record: seed, every accepted move in order, and the players and result in meta."""
    record = GameRecord(seed=stored.seed, rules=Rules.from_dict(stored.rules))
    for seat, move in stored.moves:
        record.add(Player.parse(seat), move_from_dict(move))
    deal = None if stored.deal is None or stored.status != "over" else DealSecrets.from_json(stored.deal)
    record.meta = record_meta(stored.id, stored.seats, stored.options, stored.status, stored.result, deal)
    return record.to_dict()


def record_meta(game_id: int, seats: dict, options: dict, status: str, result: dict | None,
                deal: DealSecrets | None = None) -> dict:
    """The ``meta`` of a server's record: the game, its players, options and result, and, once the
    game is over, what fixed its seed (``deal``, see docs/records.md)."""
    meta = {
        "game": game_id,
        "players": {seat: {"name": info["name"], "kind": info["kind"]} for seat, info in seats.items()},
        "options": options,
        "status": status,
        "result": result,
    }
    if deal is not None:
        meta["deal"] = deal.meta()
    return meta


def export_games(db_path: str | Path, out_dir: str | Path) -> list[Path]:
    """Write one ``game-<id>.json`` per stored game, finished or not; return the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    store = Store(db_path)
    try:
        written = []
        for stored in store.load_games():
            path = out / f"game-{stored.id}.json"
            path.write_text(json.dumps(record_of(stored), indent=1) + "\n", encoding="utf-8")
            written.append(path)
        return written
    finally:
        store.close()
