"""The lobby as the client knows it: a ``lobby`` snapshot kept current by ``lobby_update``."""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol import messages as m

#: the key of an entry in each section
KEYS = {"players": "name", "tables": "table", "games": "game"}


@dataclass
class LobbyModel:
    sections: dict[str, dict] = field(default_factory=lambda: {name: {} for name in KEYS})

    def load(self, snapshot: m.Lobby) -> None:
        for name, entries in (("players", snapshot.players), ("tables", snapshot.tables),
                              ("games", snapshot.games)):
            self.sections[name] = {entry[KEYS[name]]: dict(entry) for entry in entries}

    def apply(self, update: m.LobbyUpdate) -> None:
        section = self.sections[update.section]
        key = update.item.get(KEYS[update.section])
        if update.op == "remove":
            section.pop(key, None)
        else:
            section[key] = {**section.get(key, {}), **update.item}

    @property
    def players(self) -> list[dict]:
        return sorted(self.sections["players"].values(), key=lambda p: str(p.get("name", "")).lower())

    @property
    def tables(self) -> list[dict]:
        return sorted(self.sections["tables"].values(), key=lambda t: t.get("table", 0))

    @property
    def games(self) -> list[dict]:
        return sorted(self.sections["games"].values(), key=lambda g: g.get("game", 0))
