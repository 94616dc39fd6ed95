"""Where the clients a gateway runs for its players keep their unfinished games, and the pruning
of what players who never came back left there.

A key's player has a directory of their own in the gateway's data directory
(``protocol.handoff.KEPT_GAMES_VARIABLE``; ``protocol.saved_games`` writes it): the client of their
next login opens what the one before sealed.  A guest's every login is a new session, with no
seat to take back, and no directory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from protocol.account_keys import key_file_name
from protocol.private_json import directory_lock

if TYPE_CHECKING:
    from .clock import Clock, Timer
    from .ssh.identity import Identity

log = logging.getLogger(__name__)

#: The directory, in a gateway's data directory, of its players' unfinished games (``player_directory``).
KEPT_GAMES_DIRECTORY = "hosted-games"
#: A player's directory there that nothing has changed for this long is pruned (``prune_kept_games``).
KEPT_GAMES_MAX_AGE = 30 * 24 * 3600.0
#: How often a gateway prunes them (``KeptGamesPruning``).
PRUNING_INTERVAL = 24 * 3600.0


def kept_games_in(data_dir: Path | None) -> Path | None:
    """Where a gateway with the data directory ``data_dir`` has its players' clients keep their
    unfinished games (None: nowhere, without a data directory)."""
    return None if data_dir is None else data_dir / KEPT_GAMES_DIRECTORY


def player_directory(kept_games: Path, identity: Identity) -> Path | None:
    """Where the clients of ``identity`` keep their unfinished games (``protocol.handoff.KEPT_GAMES_VARIABLE``):
    one directory per key, named after its fingerprint (``key_file_name``); None for a guest, whose
    every login is a new session with no seat to take back."""
    if identity.fingerprint is None:
        return None
    return kept_games / key_file_name(f"key {identity.fingerprint}")


def prune_kept_games(kept_games: Path, now: float, max_age: float = KEPT_GAMES_MAX_AGE) -> int:
    """Remove each player's directory in ``kept_games`` in which no file has changed for ``max_age``
    seconds before ``now`` (seconds since the epoch, as a file's times are); the number removed.

    A directory stays only while its player's games may go on: the client drops what it kept of
    a game once the game ends, and a game waits at most ``protocol.clocks.LONGEST_GRACE`` for a
    player who left.  What is left is a player who dropped between sealing and opening and never
    came back.  Each directory is emptied under the lock its clients write under
    (``protocol.private_json.directory_lock``), so a login at that moment finds it whole or gone;
    one that cannot be read or removed stays."""
    try:
        players = [entry for entry in kept_games.iterdir() if entry.is_dir()]
    except OSError:
        return 0
    removed = 0
    for directory in players:
        with contextlib.suppress(OSError), directory_lock(directory):
            files = list(directory.iterdir())
            if any(file.stat().st_mtime > now - max_age for file in files):
                continue
            for file in files:
                file.unlink()
            directory.rmdir()
            removed += 1
    return removed


class KeptGamesPruning:
    """A gateway's pruning of its players' kept games (``prune_kept_games``): when it starts, then
    every ``PRUNING_INTERVAL`` on the gateway's ``clock``, each time in a worker thread (a public
    server's directory can hold many players)."""

    def __init__(self, kept_games: Path | None, clock: Clock, wall: Callable[[], float] = time.time) -> None:
        self.kept_games = kept_games
        self.clock = clock
        self.wall = wall
        self.pruned: asyncio.Future[int] | None = None  # the latest pruning (its directories removed)
        self._timer: Timer | None = None

    def start(self) -> None:
        if self.kept_games is not None:
            self._prune(self.kept_games)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _prune(self, kept_games: Path) -> None:
        self.pruned = asyncio.get_running_loop().run_in_executor(None, prune_kept_games, kept_games, self.wall())
        self.pruned.add_done_callback(self._report)
        self._timer = self.clock.call_later(PRUNING_INTERVAL, self._prune, kept_games)

    @staticmethod
    def _report(pruned: asyncio.Future[int]) -> None:
        if not pruned.cancelled() and pruned.exception() is None and pruned.result():
            log.info("pruned %d players' kept games, unchanged for %d days", pruned.result(),
                     KEPT_GAMES_MAX_AGE // 86400)
