"""The engine's error types."""


class IllegalMove(ValueError):
    """A move that the rules do not allow here; the message says why, in a player's words."""


class RecordError(ValueError):
    """A game record that is malformed, or whose moves cannot be replayed."""

    def __init__(self, message: str, move_index: int | None = None) -> None:
        self.move_index = move_index
        prefix = f"move {move_index}: " if move_index is not None else ""
        super().__init__(prefix + message)
