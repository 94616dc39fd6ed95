"""The player's settings, kept in the user's config directory between runs."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import platformdirs


def settings_path() -> Path:
    return Path(platformdirs.user_config_dir("aton")) / "settings.json"


@dataclass
class Settings:
    auto_forced: bool = True  # play a removal or placement with only one legal square by itself
    #: Seconds between two moments of the game's playback: a cartouche turned over, a stone placed
    #: or removed (0: all that the server sent is shown at once).
    reveal_delay: float = 0.35
    theme: str = "aton-dark"
    bell: bool = True  # ring the terminal's bell when it is your turn, your clock runs low, a chat line or an offer
    #: Whether ``aton`` has offered the lesson ("New to Aton?"), which it does once, to a player with
    #: no saved settings (``load`` finds none).  Settings saved before the lesson existed count as
    #: offered: theirs is no new player.
    lesson_offered: bool = True
    path: Path | None = None  # where to keep them (None: not kept)

    @classmethod
    def load(cls, path: Path) -> Settings:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        if not isinstance(data, dict):
            data = {}
        known = {f.name for f in fields(cls)} - {"path"}
        if not data:
            data = {"lesson_offered": False}
        return cls(**{k: v for k, v in data.items() if k in known}, path=path)

    def save(self) -> None:
        if self.path is None:
            return
        data = {k: v for k, v in asdict(self).items() if k != "path"}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(data, indent=2), encoding="utf-8")
        except OSError:
            pass  # settings are a convenience: never fail a game over them
