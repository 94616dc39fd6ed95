"""The client's screens: Textual's ``Screen`` without three costs of a screen's first frame.

A game client's first frame over SSH is paid on every login, fifty at a time when a server is
shared widely (docs/hosting.md), so what Textual spends there in vain is not spent:

- **Styled once.** Textual styles every widget as it mounts, then, when the new screen becomes
  the active one (``ScreenResume``), styles the whole screen again: useful when a screen comes
  back after others were shown over it (the theme or the size may have changed meanwhile),
  wasted the first time, when nothing has happened since its widgets were styled.  Measured
  with ``python bench/app_start.py --apps 10``, alternating: 0.111–0.125 CPU-s an app to the
  lobby with it and 0.102–0.107 without.
- **Not drawn while the app's updates are batched.** Textual does not show a frame drawn while
  the app's updates are batched (``App.batch_update``: all of an app's start is one), but a
  screen laid out meanwhile draws one all the same and throws it away — the lobby's first frame,
  a full screen, at every login.  And what that frame held was lost: a change laid out during a
  batch that lasted a while (a widget recomposed) stayed undrawn until something else was.  Such
  a screen skips the drawing and draws the whole screen once the batch ends
  (``DrawnAfterBatches``, mixed into the app): 0.078–0.084 CPU-s an app to the lobby with the
  thrown-away frame, 0.067–0.079 without (the same command, alternating).
- **Drawn at once.** Textual draws what changed at the screen's update timer's next tick (60 a
  second), and so a first frame too: up to a tick with nothing to do, at every login.  In an
  app host that starts its apps one after another (``aton_tui.start_turns``) those ticks were a
  third of each start's time; a screen drawn for the first time draws when it is idle.

Textual calls a handler of each class along a screen's MRO (``Screen``'s after this mixin's): the
handlers here do not call ``super()``, which would run ``Screen``'s twice.
"""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.screen import Screen


class ClientScreen:
    """A screen (mixed in before Textual's ``Screen``) styled once when first shown, not drawn
    while its app's updates are batched, and first drawn as soon as it can be."""

    _resumed_before = False
    _drawn_before = False

    async def _on_idle(self, event: events.Idle) -> None:
        screen: Screen = self  # type: ignore[assignment]  # (this is mixed into screens only)
        if not self._drawn_before and screen.is_current and not screen.app._batch_count:
            screen._on_timer_update()  # the first frame now, not at the update timer's next tick

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed_before:
            self._resumed_before = True
            event.refresh_styles = False  # every widget was styled as it mounted, a moment ago

    def _compositor_refresh(self) -> None:
        screen: Screen = self  # type: ignore[assignment]  # (this is mixed into screens only)
        if screen.app._batch_count and screen is screen.app.screen:
            screen._repaint_required = True  # the whole screen, once the batch ends (``DrawnAfterBatches``)
            return
        super()._compositor_refresh()  # type: ignore[misc]
        self._drawn_before = self._drawn_before or screen is screen.app.screen


class DrawnAfterBatches:
    """An app (mixed in before Textual's ``App``) whose screen draws once a batch of updates ends
    what it skipped meanwhile (``ClientScreen``): Textual itself only tells the app."""

    def _end_batch(self) -> None:
        super()._end_batch()  # type: ignore[misc]  # (Textual's App, after this in the bases)
        app: App = self  # type: ignore[assignment]
        if not app._batch_count and app._screen_stack:
            app.screen.check_idle()  # its idle handler draws what waits to be drawn
