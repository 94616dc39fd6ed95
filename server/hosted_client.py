"""The game client a gateway (SSH, web) runs on the server's machine for one remote player.

Each gateway starts ``aton_tui.cli connect 127.0.0.1:PORT --name=NAME`` for its player: an
ordinary protocol client of the game server, so it can never hold more than that player's view.
What the gateway hands it is its environment and nothing else of the server's own: ``PATH``, a
private home, and the gateway's assertion of the player with its session key (``protocol.handoff``),
with which it proves the player to the game server (and a guest's session, where the gateway knows it).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from protocol import handoff
from protocol.account_keys import key_file_name
from protocol.private_json import directory_lock
from protocol.transport import Endpoint

if TYPE_CHECKING:
    from .clock import Clock, Timer
    from .ssh.identity import Identity

log = logging.getLogger(__name__)

PROJECT_ROOT = Path(__file__).resolve().parents[1]
#: The directory, in a gateway's data directory, of its players' unfinished games (``player_directory``).
KEPT_GAMES_DIRECTORY = "hosted-games"
#: A player's directory there that nothing has changed for this long is pruned (``prune_kept_games``).
KEPT_GAMES_MAX_AGE = 30 * 24 * 3600.0
#: How often a gateway prunes them (``KeptGamesPruning``).
PRUNING_INTERVAL = 24 * 3600.0


def client_arguments(game_host: str, game_port: int, name: str, tls: bool = False,
                     tls_ca: str | None = None) -> list[str]:
    """``aton_tui.cli``'s arguments for one player's client of the game server (through TLS if
    ``tls``, trusting the authorities of ``tls_ca`` if given).  The name is the player's own
    choice: it is glued to its option, so that no name (``-x``, ``--help``) can be read as an
    option of its own."""
    args = ["connect", str(Endpoint(game_host, game_port, tls)), f"--name={name}"]
    return [*args, "--tls-ca", tls_ca] if tls_ca else args


def client_command(args: list[str]) -> list[str]:
    """The client as a program of its own (a new interpreter)."""
    return [sys.executable, "-m", handoff.CLIENT_MODULE, *args]


def base_environment() -> dict[str, str]:
    """What every process a gateway starts gets: nothing of the server's own environment
    but ``PATH`` (and, in a source checkout, the checkout on ``PYTHONPATH``)."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
    }
    if (PROJECT_ROOT / "aton_tui").is_dir():  # a source checkout: make it importable from anywhere
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if p)
    return env


def home_environment(home: str) -> dict[str, str]:
    """A private ``home`` for the client: its settings, data and temporary files all there."""
    return {
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, "config"),
        "XDG_DATA_HOME": os.path.join(home, "data"),
        "XDG_CACHE_HOME": os.path.join(home, "cache"),
        "TMPDIR": home,
    }


def identity_environment(identity: Identity, hosted_by: str, kept_games: Path | None = None) -> dict[str, str]:
    """Who the client plays for: the gateway's assertion of the player and its session key, and
    for a guest of a gateway beside the game server the session the gateway made for it (a key's
    session is the game server's to derive); ``hosted_by``: the gateway (``protocol.handoff.HOSTED_BY_*``).
    With ``kept_games``, the player's own directory in it (``player_directory``)."""
    env = {handoff.ASSERTION_VARIABLE: base64.urlsafe_b64encode(identity.vouch.assertion).decode(),
           handoff.SESSION_KEY_VARIABLE: identity.vouch.session_key, handoff.HOSTED_VARIABLE: hosted_by}
    if identity.guest and identity.resume_token is not None:
        env[handoff.RESUME_VARIABLE] = identity.resume_token
    directory = None if kept_games is None else player_directory(kept_games, identity)
    if directory is not None:
        env[handoff.KEPT_GAMES_VARIABLE] = str(directory)
    return env


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


def player_environment(identity: Identity, home: str, hosted_by: str, kept_games: Path | None = None
                       ) -> dict[str, str]:
    """A player's client's whole environment: the base, a private home, who it plays for (and
    where it keeps their unfinished games)."""
    return {**base_environment(), **home_environment(home), **identity_environment(identity, hosted_by, kept_games)}


class InputBucket:
    """Bytes a second a remote player may send, with a burst; False once they send more."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self, n: int) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        self.tokens -= n
        return self.tokens >= 0
