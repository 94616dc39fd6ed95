"""The lobby as the client knows it: a window on each section, kept current by ``lobby_update``.

A server of protocol 1.3 sends the first page of each section and how many entries each
has (``totals``); the client holds at most ``HELD`` entries of a section — the page it
shows, and what is added inside it — and asks for another page (``get_lobby_page``) when
the player scrolls there.  An older server sends every entry at once: then everything is
held, as it comes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol import messages as m

#: The most entries of one section the client holds.
HELD = 100


@dataclass
class SectionWindow:
    """The entries of one section from ``offset`` on, in the section's order (``m.lobby_order``),
    and ``total``, the number of entries the section has on the server (None: an older server,
    which sends them all)."""

    name: str
    entries: dict[Any, dict] = field(default_factory=dict)
    offset: int = 0
    total: int | None = None
    loaded: int = 0  # how many entries the last snapshot or page brought

    @property
    def key(self) -> str:
        return m.LOBBY_KEYS[self.name]

    def load(self, entries: tuple[dict, ...], offset: int, total: int | None) -> None:
        self.entries = {entry[self.key]: dict(entry) for entry in entries}
        self.offset, self.total = offset, total
        self.loaded = len(self.entries)

    def ordered(self) -> list[dict]:
        return sorted(self.entries.values(), key=lambda entry: m.lobby_order(self.name, entry[self.key]))

    @property
    def paged(self) -> bool:
        """Whether the section has more entries than this window holds."""
        return self.total is not None and (self.offset > 0 or self.offset + len(self.entries) < self.total)

    @property
    def short(self) -> bool:
        """Whether the window has lost half the entries it was loaded with while the section
        still has entries from its offset on: time to ask for its page again."""
        return self.total is not None and len(self.entries) < self.loaded / 2 and self.offset < self.total

    def apply(self, op: str, item: dict) -> None:
        key = item.get(self.key)
        held = key in self.entries
        if op == "update" or (op == "add" and held):
            if held or self.total is None:  # (an older server's window holds every entry)
                self.entries[key] = {**self.entries.get(key, {}), **item}
            return
        if self.total is None:
            if op == "add":
                self.entries[key] = dict(item)
            else:
                self.entries.pop(key, None)
            return
        # an entry came or went: the window keeps its place in the section, and the count follows
        place = 0 if held else self._place(key)
        if place < 0:
            self.offset = max(0, self.offset + (1 if op == "add" else -1))
        elif op == "remove":
            self.entries.pop(key, None)
        elif place == 0:
            self.entries[key] = dict(item)
            if len(self.entries) > HELD:
                del self.entries[self.ordered()[-1][self.key]]
        self.total = max(0, self.total + (1 if op == "add" else -1))

    def _place(self, key: Any) -> int:
        """-1 if ``key`` comes before the window, 0 if inside it (or just at its end, when the
        window reaches the end of the section), 1 after it."""
        order = m.lobby_order(self.name, key)
        places = [m.lobby_order(self.name, k) for k in self.entries]
        if self.offset > 0 and (not places or order < min(places)):
            return -1
        if not places or order <= max(places) or self.offset + len(self.entries) >= (self.total or 0):
            return 0
        return 1


@dataclass
class LobbyModel:
    sections: dict[str, SectionWindow] = field(
        default_factory=lambda: {name: SectionWindow(name) for name in m.LOBBY_SECTIONS})
    #: the server's bots' ratings (since 1.6): per level, per clock, {rating, provisional}
    bots: dict[str, Any] = field(default_factory=dict)

    def load(self, snapshot: m.Lobby) -> None:
        self.bots = snapshot.bots or {}
        totals = snapshot.totals or {}
        for name, entries in (("players", snapshot.players), ("tables", snapshot.tables),
                              ("games", snapshot.games)):
            self.sections[name].load(entries, 0, totals.get(name) if snapshot.totals is not None else None)

    def load_page(self, page: m.LobbyPage) -> None:
        self.sections[page.section].load(page.entries, page.offset, page.total)

    def apply(self, update: m.LobbyUpdate) -> None:
        self.sections[update.section].apply(update.op, update.item)

    def player(self, name: str) -> dict | None:
        """The entry of the player named ``name``, if this client holds it."""
        return self.sections["players"].entries.get(name)

    @property
    def players(self) -> list[dict]:
        return self.sections["players"].ordered()

    @property
    def tables(self) -> list[dict]:
        return self.sections["tables"].ordered()

    @property
    def games(self) -> list[dict]:
        return self.sections["games"].ordered()
