"""The footer of keys, fitted to the terminal's width: nothing in it is ever cut in half.

When the keys that work now do not all fit on the line, the screen's spare keys leave
the footer, least needed first, until the rest fits.  A screen names them in
``FOOTER_SPARE`` (actions, without their parameters); ``?`` still lists every key.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.events import Resize
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, KeyGroup


class FittedFooter(Footer):
    def __init__(self) -> None:
        super().__init__(compact=True, show_command_palette=False)
        self._shown: Hashable = None  # the keys it was last composed of (``_keys``)

    def compose(self) -> ComposeResult:
        """Textual's keys, each made compact as it is built: a key whose class changes once it is
        mounted is styled twice (a footer's keys were a tenth of the lobby's first frame)."""
        self._shown = self._keys()
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.add_class("-compact", update=False)
            yield widget

    def _keys(self) -> Hashable:
        """What the footer shows: every key the screen shows now, with its state."""
        if not self._bindings_ready:
            return None
        return tuple((binding.key, binding.action, binding.description, enabled, tooltip)
                     for _, binding, enabled, tooltip in self.screen.active_bindings.values() if binding.show)

    async def recompose(self) -> None:
        if not self.is_attached or self._keys() == self._shown:  # (the bindings changed, not the keys shown)
            return
        async with self.batch():  # fitted before it is drawn: never a frame with keys cut off
            await super().recompose()
            self._fit()
        self.call_after_refresh(self._fit)  # and again once laid out (the keys' styles all applied)

    def on_resize(self, _: Resize) -> None:
        for key in self.query(FooterKey):
            key.display = True
        self._fit()

    def _fit(self) -> None:
        """Leave out spare keys, in their order, until the keys are no wider than the line.

        Widths are measured from what each key draws, not from the layout: a screen under a
        dialog changes its keys without being laid out again."""
        if not self.is_attached:  # its screen was closed meanwhile
            return
        room = self.screen.size.width - self.styles.gutter.width
        width = sum(self._width(child) for child in self.children if child.display)
        shown = [key for key in self.query(FooterKey) if key.display and "-grouped" not in key.classes]
        for action in getattr(self.screen, "FOOTER_SPARE", ()):
            if width <= room:
                return
            for key in shown:
                if key.action.partition("(")[0] == action:
                    width -= self._width(key)
                    key.display = False

    def _width(self, widget: Widget) -> int:
        """The columns ``widget`` takes in the footer's row, margins included."""
        if isinstance(widget, KeyGroup):
            inner = sum(self._width(child) for child in widget.children if child.display)
        else:
            inner = widget.get_content_width(Size(0, 0), Size(0, 0))
        return inner + widget.styles.gutter.width + widget.styles.margin.width
