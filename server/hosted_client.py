"""The game client a gateway (SSH, web) runs on the server's machine for one remote player.

Each gateway starts ``aton_tui.cli connect 127.0.0.1:PORT --name=NAME`` for its player: an
ordinary protocol client of the game server, so it can never hold more than that player's view.
What the gateway hands it is its environment and nothing else of the server's own: ``PATH``, a
private home, and the gateway's assertion of the player with its session key (``protocol.handoff``),
with which it proves the player to the game server (and a guest's session, where the gateway knows it).
"""

from __future__ import annotations

import base64
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from protocol import handoff
from protocol.transport import Endpoint

from .kept_games import player_directory

if TYPE_CHECKING:
    from .ssh.identity import Identity

PROJECT_ROOT = Path(__file__).resolve().parents[1]


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
