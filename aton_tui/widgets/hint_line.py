"""The hint's line below the decision: it says when its height changed (shown, hidden, wrapped),
so that the screen can fit what stands below it (the reminder of the rules)."""

from __future__ import annotations

from textual.events import Resize
from textual.message import Message
from textual.widgets import Static


class HintLine(Static):
    class Resized(Message):
        """The line took (or gave back) rows."""

    def on_resize(self, event: Resize) -> None:
        self.post_message(self.Resized())
