"""The clocks a table can be played with: seconds per decision and the grace period, defined once.

The server enforces them (``server.config`` takes them as its defaults), docs/protocol.md
shows them ("Clocks and forfeits"), and a bot that lost the server keeps trying to come
back for at least the longest grace period (``bots.network``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class TimeControl:
    """Seconds allowed per decision; a player who times out ``max_strikes`` times in a row,
    or stays disconnected longer than ``grace``, forfeits."""

    commit: float
    open: float
    move: float
    grace: float
    max_strikes: int = 3

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


TIME_CONTROLS: dict[str, TimeControl] = {
    "blitz": TimeControl(commit=30, open=10, move=10, grace=30),
    "normal": TimeControl(commit=90, open=15, move=30, grace=60),
    "relaxed": TimeControl(commit=300, open=30, move=120, grace=300),
}

#: Atlas & Zeus's clocks, by the same names: "commit" is a programming (three cards of six on
#: the track, face down, sealed; or face up under Open hand), "open" its opening, "move" a card's
#: decision during the resolution (a Transfer's steps, a target).  A programming asks more than
#: Aton's four cartouches (which cards, and where), a card's decision about as much as a stone.
ATLAS_ZEUS_TIME_CONTROLS: dict[str, TimeControl] = {
    "blitz": TimeControl(commit=45, open=10, move=20, grace=30),
    "normal": TimeControl(commit=120, open=15, move=45, grace=60),
    "relaxed": TimeControl(commit=300, open=30, move=120, grace=300),
}

#: The longest a seat waits for a player whose connection dropped (or whose server restarted).
LONGEST_GRACE: float = max(control.grace for controls in (TIME_CONTROLS, ATLAS_ZEUS_TIME_CONTROLS)
                           for control in controls.values())
