"""The footer of keys, fitted to the terminal's width: nothing in it is ever cut in half.

When the keys that work now do not all fit on the line, the screen's spare keys leave
the footer, least needed first, until the rest fits.  A screen names them in
``FOOTER_SPARE`` (actions, without their parameters); ``?`` still lists every key.
"""

from __future__ import annotations

from typing import NamedTuple

from textual.app import ComposeResult
from textual.events import Resize
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, KeyGroup


class ShownKey(NamedTuple):
    """A key in the footer, as the screen's bindings say it now."""

    key: str
    action: str
    description: str
    tooltip: str
    enabled: bool

    @property
    def same_key(self) -> tuple[str, str, str, str]:
        """All but its state: a key whose state alone changes is not built again."""
        return self[:4]


class FittedFooter(Footer):
    def __init__(self) -> None:
        super().__init__(compact=True, show_command_palette=False)
        self._shown: tuple[ShownKey, ...] = ()  # the keys it shows, each on or off (``_keys``)

    def compose(self) -> ComposeResult:
        """Textual's keys, each made compact as it is built: a key whose class changes once it is
        mounted is styled twice (a footer's keys were a tenth of the lobby's first frame)."""
        self._shown = self._keys()
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.add_class("-compact", update=False)
            yield widget

    def _keys(self) -> tuple[ShownKey, ...]:
        """What the footer shows: every key the screen shows now, with its state."""
        if not self._bindings_ready:
            return ()
        return tuple(ShownKey(binding.key, binding.action, binding.description, tooltip, enabled)
                     for _, binding, enabled, tooltip in self.screen.active_bindings.values() if binding.show)

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        keys = self._keys()
        if keys == self._shown:  # (the bindings changed, not the keys shown)
            return
        if [key.same_key for key in keys] == [key.same_key for key in self._shown]:
            self._shown = keys
            self._enable(keys)
            return
        async with self.batch():  # fitted before it is drawn: never a frame with keys cut off
            await super().recompose()
            self._fit()
        self.call_after_refresh(self._fit)  # and again once laid out (the keys' styles all applied)

    def _enable(self, keys: tuple[ShownKey, ...]) -> None:
        """The same keys, some of them now on or off: only those change (dimmed when off)."""
        enabled = {(key.key, key.action): key.enabled for key in keys}
        for widget in self.query(FooterKey):
            on = enabled[widget.key, widget.action]  # (the same keys: every one is there)
            widget._disabled = not on
            widget.set_class(not on, "-disabled")

    def on_resize(self, _: Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        """Leave out spare keys, in their order, until the keys are no wider than the line; show
        the others.  Only a key whose place changes is touched: each change lays the screen out again.

        Widths are measured from what each key draws, not from the layout: a screen under a
        dialog changes its keys without being laid out again."""
        if not self.is_attached:  # its screen was closed meanwhile
            return
        room = self.screen.size.width - self.styles.gutter.width
        keys = [key for key in self.query(FooterKey) if "-grouped" not in key.classes]  # (the keys it may leave out)
        width = sum(self._width(child) for child in self.children if child.display or child in keys)
        left_out: set[FooterKey] = set()
        for action in getattr(self.screen, "FOOTER_SPARE", ()):
            if width <= room:
                break
            for key in keys:
                if key.action.partition("(")[0] == action and key not in left_out:
                    width -= self._width(key)
                    left_out.add(key)
        for key in keys:
            if key.display != (shown := key not in left_out):
                key.display = shown

    def _width(self, widget: Widget) -> int:
        """The columns ``widget`` takes in the footer's row, margins included."""
        if isinstance(widget, KeyGroup):
            inner = sum(self._width(child) for child in widget.children if child.display)
        else:
            inner = widget.get_content_width(Size(0, 0), Size(0, 0))
        return inner + widget.styles.gutter.width + widget.styles.margin.width
