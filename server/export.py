"""Export stored games as record files (``aton-server export``): each game's own format
(``aton-record/1``, ``atlas-zeus-record/1``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from .fair_deal import DealSecrets
from .games import game_kind
from .ratings import record_entry
from .store import Store, StoredGame


def iso_utc(seconds: float) -> str:
    """A time (seconds since the epoch) as ISO 8601 in UTC, to the second: ``2026-12-03T18:24:18Z``."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def record_of(stored: StoredGame) -> dict:
    """The game's record: seed, every accepted move in order, and in meta the players, result,
    and when the game started and ended and each move was made."""
    deal = None if stored.deal is None or stored.status != "over" else DealSecrets.from_json(stored.deal)
    ratings = {seat: record_entry(*stored.rating_changes[info["account"]]) for seat, info in stored.seats.items()
               if info.get("account") in stored.rating_changes}
    meta = record_meta(stored.id, stored.seats, stored.options, stored.status, stored.result, ratings, deal)
    meta["started"] = iso_utc(stored.created)
    if stored.finished is not None:
        meta["ended"] = iso_utc(stored.finished)
    meta["move_times"] = [round(at - stored.created, 1) for at in stored.move_times]
    return game_kind(stored.game).record_of(stored.seed, stored.rules, stored.moves, meta)


def seat_meta(info: dict) -> dict:
    """One seat's player in a record's ``meta.players``: the name it played under, its kind, and
    whether it played as a guest (without an account; a hosted bot is the server's own)."""
    return {"name": info["name"], "kind": info["kind"],
            "guest": info["kind"] != "hosted" and info.get("account") is None}


def record_meta(game_id: int, seats: dict, options: dict, status: str, result: dict | None,
                ratings: dict[str, dict] | None = None, deal: DealSecrets | None = None) -> dict:
    """The ``meta`` of a server's record: the game, its players (with, by seat name, what a rated
    game did to their ratings: ``ratings``), options and result, and, once the game is over,
    what fixed its seed (``deal``, see docs/records.md)."""
    meta = {
        "game": game_id,
        "players": {seat: {**seat_meta(info), **(ratings or {}).get(seat, {})} for seat, info in seats.items()},
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
