"""Screens that are not styled a second time when they are first shown.

Textual styles every widget as it mounts, then, when the new screen becomes the active one
(``ScreenResume``), styles the whole screen again: useful when a screen comes back after
others were shown over it (the theme or the size may have changed meanwhile), wasted the
first time, when nothing has happened since its widgets were styled.  A game client's first
frame over SSH pays it on every login: measured with ``python bench/app_start.py --apps 10``,
alternating, 0.111–0.125 CPU-s an app to the lobby with it and 0.102–0.107 without (a tenth
of a login's first frame).  Every snapshot looks the same without it.
"""

from __future__ import annotations

from textual import events


class StyledAtMount:
    """A screen (mixed in before Textual's ``Screen``) whose first resume keeps its widgets' styles."""

    _resumed_before = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed_before:
            self._resumed_before = True
            event.refresh_styles = False  # every widget was styled as it mounted, a moment ago
        super()._on_screen_resume(event)  # type: ignore[misc]  # (Textual's Screen, after this in the bases)
