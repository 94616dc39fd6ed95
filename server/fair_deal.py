"""A game's deal, fixed with its players before the game starts (``aton-deal/1``: the scheme is
``protocol.fairness``, its argument docs/protocol.md, "Fair decks").

``PendingDeal`` runs the two stages with the contributing players: each commits to a random
value (``deal_commit``), then, once every commitment is in, opens it (``deal_open``).  A stage
waits at most ``Limits.deal_seconds``; a seat late in the first stage gets the server's fill,
one late in the second its commitment.  A player gone for good (banned) is not waited for:
their part is fixed at once as if their stage had run out (``drop``), and the game that
follows is theirs to forfeit (``gone``).  When both stages are done, ``on_done`` gets the
``PendingDeal`` (its ``DealSecrets``: the seed follows from them), and the arbiter opens the game.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol import fairness
from protocol import messages as m
from protocol.errors import ErrorCode, ProtocolError

from .clock import Clock, Timer


@dataclass
class DealSecrets:
    """Everything that fixed a game's seed: the database keeps it, and the end of the game
    reveals it (``revealed``) and the record keeps it (``meta``)."""

    secret: bytes
    commitments: dict[str, bytes] = field(default_factory=dict)  # seat -> the commitment it sent
    opened: dict[str, bytes] = field(default_factory=dict)  # seat -> the value it opened
    fills: dict[str, str] = field(default_factory=dict)  # seat -> how the server fixed its value

    def seed(self, game: int) -> int:
        values = fairness.seat_values(self.secret, game, self.opened, self.commitments, self.fills)
        return fairness.derive_seed(self.secret, game, values)

    def to_json(self) -> str:
        return json.dumps(self.meta())

    @classmethod
    def from_json(cls, text: str) -> DealSecrets:
        data = json.loads(text)
        return cls(secret=bytes.fromhex(data["secret"]),
                   commitments={seat: bytes.fromhex(v) for seat, v in data["commitments"].items()},
                   opened={seat: bytes.fromhex(v) for seat, v in data["opened"].items()},
                   fills=dict(data["fills"]))

    def meta(self) -> dict[str, Any]:
        """The deal as a record's ``meta.deal`` (hex strings): what a reader needs to check it later."""
        return {"scheme": fairness.SCHEME, "commitment": fairness.server_commitment(self.secret).hex(),
                "secret": self.secret.hex(),
                "commitments": {seat: v.hex() for seat, v in self.commitments.items()},
                "opened": {seat: v.hex() for seat, v in self.opened.items()},
                "fills": dict(self.fills)}

    def revealed(self, game: int, record: dict) -> m.DealRevealed:
        return m.DealRevealed(game=game, secret=self.secret, opened=dict(self.opened), record=record,
                              fills=dict(self.fills) or None)


class PendingDeal:
    """One game's deal while its players contribute.  ``send(seat, message)`` reaches a seat's
    player; ``on_done`` is called once, with this deal, when it is fixed."""

    def __init__(self, game: int, secrets: DealSecrets, contributors: tuple[str, ...], holders: dict[str, str],
                 send: Callable[[str, m.Message], None], on_done: Callable[[PendingDeal], None],
                 clock: Clock, stage_seconds: float) -> None:
        self.game = game
        self.secrets = secrets
        self.contributors = contributors  # the seats whose players contribute
        self.holders = holders  # seat -> the hash of its player's session token
        self._send = send
        self._on_done = on_done
        self._clock = clock
        self._stage_seconds = stage_seconds
        self.stage = "commit"
        self._timer: Timer | None = None
        self.gone: set[str] = set()  # the seats whose players are gone for good (``drop``)
        for seat in fairness.SEAT_ORDER:
            if seat not in contributors:
                secrets.fills[seat] = fairness.FILLED_BY_SERVER

    @property
    def done(self) -> bool:
        return self.stage == "done"

    def start(self) -> None:
        if self.contributors:
            self._ask("commit", self.contributors)
        else:
            self._finish()

    def seat_held_by(self, token_digest: str) -> str | None:
        """The seat of the session whose token hashes to ``token_digest``, if it has one here."""
        return next((seat for seat, holder in self.holders.items() if holder == token_digest), None)

    def commit(self, seat: str, digest: bytes) -> None:
        """Take a contributor's commitment; ProtocolError if it is not the time for it.  The deal
        moves on at ``advance`` (the caller acknowledges the commitment first)."""
        self._expect("commit", seat)
        if seat in self.secrets.commitments:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "you have committed to this deal already")
        self.secrets.commitments[seat] = digest

    def open(self, seat: str, value: bytes) -> None:
        """Take a contributor's opening; ProtocolError if it is not the time for it or does not
        open its commitment.  The deal moves on at ``advance``."""
        self._expect("open", seat)
        if seat in self.secrets.opened:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "you have opened your contribution already")
        if fairness.contribution_commitment(self.game, seat, value) != self.secrets.commitments[seat]:
            raise ProtocolError(ErrorCode.INVALID, "value: it does not open your commitment", field="value")
        self.secrets.opened[seat] = value

    def advance(self) -> None:
        """To the next stage (or the end) once every contributor's part of this one is in."""
        if self.stage == "commit" and all(s in self.secrets.commitments for s in self.contributors):
            self._to_open()
        elif self.stage == "open" and all(s in self.secrets.opened for s in self._committed()):
            self._finish()

    def resend(self, seat: str) -> None:
        """Ask ``seat``'s player again (it came back on a new connection), if its part of the
        stage is still missing."""
        given = self.secrets.commitments if self.stage == "commit" else self.secrets.opened
        if seat in self.contributors and not self.done and seat not in given:
            self._ask(self.stage, (seat,), arm=False)

    def drop(self, seat: str) -> None:
        """``seat``'s player is gone for good (banned): their part is fixed now, as if their stage had
        timed out (the server's fill, or their commitment if they made one), the deal goes on
        without them, and they are in ``gone``."""
        self.gone.add(seat)
        if self.done or seat not in self.contributors:
            return
        if seat not in self.secrets.commitments:
            self.secrets.fills[seat] = fairness.FILLED_BY_SERVER
        elif seat not in self.secrets.opened:
            self.secrets.fills[seat] = fairness.FILLED_BY_COMMITMENT
        self.contributors = tuple(s for s in self.contributors if s != seat)
        self.advance()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _committed(self) -> tuple[str, ...]:
        return tuple(s for s in self.contributors if s in self.secrets.commitments)

    def _expect(self, stage: str, seat: str) -> None:
        if seat not in self.contributors:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "your part of this deal is the server's")
        if self.stage != stage:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, f"this deal is not at its {stage} stage")

    def _ask(self, stage: str, seats: tuple[str, ...], arm: bool = True) -> None:
        self.stage = stage
        commitments = dict(self.secrets.commitments) if stage == "open" else None
        for seat in seats:
            self._send(seat, m.Deal(game=self.game, seat=seat, stage=stage,
                                    server=fairness.server_commitment(self.secrets.secret),
                                    commitments=commitments, fills=dict(self.secrets.fills) or None))
        if arm:
            self.cancel()
            self._timer = self._clock.call_later(self._stage_seconds, self._timed_out)

    def _to_open(self) -> None:
        committed = self._committed()
        if committed:
            self._ask("open", committed)
        else:
            self._finish()

    def _timed_out(self) -> None:
        self._timer = None
        if self.stage == "commit":
            for seat in self.contributors:
                if seat not in self.secrets.commitments:
                    self.secrets.fills[seat] = fairness.FILLED_BY_SERVER
            self.contributors = self._committed()
            self._to_open()
        elif self.stage == "open":
            for seat in self._committed():
                if seat not in self.secrets.opened:
                    self.secrets.fills[seat] = fairness.FILLED_BY_COMMITMENT
            self._finish()

    def _finish(self) -> None:
        self.cancel()
        self.stage = "done"
        self._on_done(self)
