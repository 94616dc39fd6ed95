"""The footer of keys, fitted to the terminal's width: nothing in it is ever cut in half.

When the keys that work now do not all fit on the line, the screen's spare keys leave
the footer, least needed first, until the rest fits.  A screen names them in
``FOOTER_SPARE`` (actions, without their parameters); ``?`` still lists every key.

It looks and acts as Textual's compact ``Footer`` — each key's letter and what it does, a key
that is off dimmed, keys of one group side by side before the group's name, a click on a key
pressing it, the key under the mouse lit and its tooltip shown — but it is one widget that
draws every key, where Textual's is a widget per key: those were a fifth of the CPU a client
took to its lobby's first frame (``python bench/app_start.py --apps 10``, alternating: 0.074–0.079
CPU-s an app with Textual's keys, 0.055–0.067 with this one), paid again at every change of the
keys shown, and at every login of an SSH server.  Every screenshot of the client's tests is the
same, cell by cell, with either.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from typing import NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget


class ShownKey(NamedTuple):
    """A key in the footer, as the screen's bindings say it now."""

    key: str
    display: str  # how it is written ("^q", "?")
    action: str
    description: str
    tooltip: str
    enabled: bool
    group: Binding.Group | None


class Item(NamedTuple):
    """What the footer draws side by side: a key and what it does, or a group's keys and its name."""

    keys: tuple[ShownKey, ...]
    label: str  # a group's name; empty for a lone key

    @property
    def spare_action(self) -> str | None:
        """The action a screen names in ``FOOTER_SPARE`` to leave this item out (groups stay)."""
        return None if self.label else self.keys[0].action.partition("(")[0]

    @property
    def width(self) -> int:
        """The columns it takes, the space after it included."""
        if self.label:
            return sum(cell_len(key.display) for key in self.keys) + 1 + cell_len(self.label) + 1
        key = self.keys[0]
        return cell_len(key.display) + (1 + cell_len(key.description) if key.description else 0) + 1


def items_of(keys: tuple[ShownKey, ...]) -> list[Item]:
    """The keys as Textual's footer shows them: the keys of a group in a row (more than one of them)."""
    items = []
    for group, run in groupby(keys, lambda key: key.group):
        grouped = tuple(run)
        if group is not None and len(grouped) > 1:
            items.append(Item(grouped, group.description))
        else:
            items.extend(Item((key,), "") for key in grouped)
    return items


class FittedFooter(Widget):
    """The keys that work now on the screen it is on, on one line (``FittedFooter`` in app.tcss)."""

    COMPONENT_CLASSES = {"footer-key--key", "footer-key--description", "footer-key--off", "footer-key--lit"}
    ALLOW_SELECT = False

    def __init__(self) -> None:
        super().__init__()
        self.keys: tuple[ShownKey, ...] | None = None  # (None: not asked yet; see ``render``)
        self.lit: ShownKey | None = None  # the key under the mouse
        self._spans: list[tuple[int, int, ShownKey]] = []  # where each key was drawn: from, to (columns)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if self.keys is None:  # not drawn yet: its first drawing asks (the screen may still be mounting)
            return
        if screen is self.screen and (keys := self._keys()) != self.keys:
            self.keys = keys
            self.refresh()

    def _keys(self) -> tuple[ShownKey, ...]:
        """Every key the screen shows now, with its state: one for each action, as Textual's footer."""
        shown: dict[str, ShownKey] = {}
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show and binding.action not in shown:
                shown[binding.action] = ShownKey(binding.key, self.app.get_key_display(binding), binding.action,
                                                 binding.description, tooltip, enabled, binding.group)
        return tuple(shown.values())

    def fitted(self) -> list[Item]:
        """The items that fit the line: spare ones left out, in the screen's order, until the rest fits."""
        if self.keys is None:  # first drawn: asked now, when the screen's widgets that decide them are all there
            self.keys = self._keys()
        items = items_of(self.keys)
        room = self.content_size.width
        width = sum(item.width for item in items) - 1  # (no space is needed after the last)
        for action in getattr(self.screen, "FOOTER_SPARE", ()):
            for item in [item for item in items if item.spare_action == action]:
                if width <= room:
                    return items
                items.remove(item)
                width -= item.width
        return items

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="crop", end="")
        self._spans = []
        for item in self.fitted():
            for key in item.keys:
                start = text.cell_len
                self._draw_key(text, key, alone=not item.label)
                self._spans.append((start, text.cell_len, key))
            if item.label:
                text.append(" ")
                text.append(item.label, self.get_component_rich_style("footer-key--description"))
            text.append(" ")
        return text

    def _draw_key(self, text: Text, key: ShownKey, alone: bool) -> None:
        """A key's letter and, alone, what it does; dimmed when off, lit under the mouse."""
        state = Style()
        if not key.enabled:
            state += self.get_component_rich_style("footer-key--off", partial=True)
        if self.lit is not None and key.action == self.lit.action:
            state += Style(bgcolor=self.get_component_rich_style("footer-key--lit").bgcolor)
        text.append(key.display, self.get_component_rich_style("footer-key--key") + state)
        if alone and key.description:
            text.append(" " + key.description, self.get_component_rich_style("footer-key--description") + state)

    def key_at(self, x: int) -> ShownKey | None:
        """The key drawn at column ``x`` of the widget (its padding counted), if any."""
        column = x - self.styles.padding.left
        return next((key for start, end, key in self._spans if start <= column < end), None)

    def _light(self, key: ShownKey | None) -> None:
        if (key and key.action) != (self.lit and self.lit.action):
            self.lit = key
            self.tooltip = None if key is None else key.tooltip or (key.description if key.group else None)
            self.refresh()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._light(self.key_at(event.x))

    def on_leave(self, _: events.Leave) -> None:
        self._light(None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = self.key_at(event.x)
        if key is None:
            return
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def shown(self) -> Iterator[ShownKey]:
        """The keys on the line now (the spare ones that did not fit left out)."""
        for item in self.fitted():
            yield from item.keys
