"""The message of the replay viewer's widgets that show the steps of a game: go to a step."""

from __future__ import annotations

from textual.message import Message


class StepPicked(Message):
    """A place that shows ``step`` was clicked: the viewer goes there."""

    def __init__(self, step: int) -> None:
        super().__init__()
        self.step = step
