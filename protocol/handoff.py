"""What the gateways and the client processes they start agree on: one definition each.

The SSH gateway (``server/ssh``) hands every SSH session to a game client in a process of
its own, forked by the client's fork server (``aton_tui/forkserver.py``) or spawned as
a new interpreter; the web gateway (``server/web``) spawns one for every browser session.
A gateway never imports the client: the two sides meet only here, through

- the programs the gateway runs (``FORKSERVER_MODULE``, ``CLIENT_MODULE``) and the
  names those processes take (``/proc/PID/comm``);
- the environment variables that hand a session over (``RESUME_VARIABLE``,
  ``ASSERTION_VARIABLE``, ``SESSION_KEY_VARIABLE``, ``HOSTED_VARIABLE``, ``KEPT_GAMES_VARIABLE``);
- the messages of the fork server and of the app hosts (``aton_tui/app_host.py``: many
  sessions' clients as Textual apps in one process): one JSON object a ``SOCK_SEQPACKET``
  packet, at most ``MAX_PACKET`` bytes with at most ``MAX_FDS`` descriptors (``SCM_RIGHTS``),
  each kind a class below with its ``encode`` and one ``decode`` for them all;
- ``prctl``, the Linux process controls both sides use.

Standard library only: the client imports it without the server, and the server
without the client.
"""

from __future__ import annotations

import ctypes
import json
import socket
from dataclasses import dataclass
from typing import Any

# ---------------------------------------------------------------------- programs and processes

FORKSERVER_MODULE = "aton_tui.forkserver"  # ``python -m FORKSERVER_MODULE FD``
CLIENT_MODULE = "aton_tui.cli"  # ``python -m CLIENT_MODULE connect …`` when there is no fork server
FORKSERVER_NAME = b"aton-forkserver"  # /proc/PID/comm of the fork server (ps -o comm, top)
CLIENT_NAME = b"aton-client"  # /proc/PID/comm of a forked client
APP_HOST_MODULE = "aton_tui.app_host"  # ``python -m APP_HOST_MODULE FD``: many sessions' clients in one process
APP_HOST_NAME = b"aton-apphost"  # /proc/PID/comm of an app host
#: An app host's exit status when its watchdog ended it: a session's handler held its event loop
#: and could not be interrupted (the gateway restarts it, and says so in its log)
APP_HOST_BLOCKED = 70

# ---------------------------------------------------------------------- the environment

RESUME_VARIABLE = "ATON_RESUME_TOKEN"  # the session the client takes back (the player's identity)
#: The gateway's signed assertion of the player (``protocol.gateway_assertions``, URL-safe base64) and
#: the private half of the session key it names (``gateway_assertions.encode_private``), with which
#: the client proves its player to the game server (docs/protocol.md, "Accounts").
ASSERTION_VARIABLE = "ATON_GATEWAY_ASSERTION"
SESSION_KEY_VARIABLE = "ATON_SESSION_KEY"
HOSTED_VARIABLE = "ATON_HOSTED"  # set: the client runs on the server's machine for a remote player
HOSTED_BY_SSH = "ssh"  # the value the SSH gateway gives it
HOSTED_BY_WEB = "web"  # the value the web gateway gives it
#: A directory on the server's machine, the same for each of a player's sessions, where their client
#: keeps what it must remember of their unfinished games (``protocol.saved_games``: the cartouches
#: sealed and not yet opened, what it saw of the deals): a client that comes back after a dropped
#: connection opens what the one before it sealed.
KEPT_GAMES_VARIABLE = "ATON_KEPT_GAMES"

# ---------------------------------------------------------------------- the fork server's messages

MAX_PACKET = 65536  # bytes of one message
MAX_FDS = 4  # descriptors a receiver accepts with one message (a request passes one, an answer one)


class BadMessage(ValueError):
    """A packet that is not one of the fork server's messages."""


@dataclass(frozen=True, slots=True)
class ForkRequest:
    """gateway → fork server: run ``aton_tui.cli.main(args)`` with exactly ``env`` on the
    PTY slave passed along with this message."""

    id: int
    args: list[str]
    env: dict[str, str]

    def encode(self) -> bytes:
        return _encode({"id": self.id, "args": self.args, "env": self.env})


@dataclass(frozen=True, slots=True)
class Ready:
    """fork server → gateway: the imports are done; requests are answered at once."""

    pid: int

    def encode(self) -> bytes:
        return _encode({"ready": self.pid})


@dataclass(frozen=True, slots=True)
class Forked:
    """fork server → gateway: request ``id`` runs as child ``pid``; a pidfd of it comes along
    (opened before the child can be reaped, so it cannot name another process) when one
    could be opened."""

    id: int
    pid: int

    def encode(self) -> bytes:
        return _encode({"id": self.id, "pid": self.pid})


@dataclass(frozen=True, slots=True)
class Refused:
    """fork server → gateway: request ``id`` (None: unreadable) was not run, and why."""

    id: int | None
    error: str

    def encode(self) -> bytes:
        return _encode({"id": self.id, "error": self.error})


@dataclass(frozen=True, slots=True)
class Exited:
    """fork server → gateway: child ``pid`` has ended with ``status``
    (``os.waitstatus_to_exitcode``: negative for a signal).  The gateway cannot wait for
    its grandchildren: the fork server reaps them and reports."""

    pid: int
    status: int

    def encode(self) -> bytes:
        return _encode({"exit": self.pid, "status": self.status})


@dataclass(frozen=True, slots=True)
class OpenSession:
    """gateway → app host: run ``aton_tui.cli``'s client with ``args`` and exactly ``env`` as
    one more app, on a terminal of ``columns`` × ``rows``, over the stream socket passed along
    with this message (the session's bytes both ways; its end of file ends the app)."""

    id: int
    args: list[str]
    env: dict[str, str]
    columns: int
    rows: int

    def encode(self) -> bytes:
        return _encode({"open": self.id, "args": self.args, "env": self.env, "size": [self.columns, self.rows]})


@dataclass(frozen=True, slots=True)
class Resize:
    """gateway → app host: session ``id``'s terminal is now ``columns`` × ``rows``."""

    id: int
    columns: int
    rows: int

    def encode(self) -> bytes:
        return _encode({"resize": self.id, "size": [self.columns, self.rows]})


@dataclass(frozen=True, slots=True)
class CloseSession:
    """gateway → app host: end session ``id``'s app (its terminal restored), now."""

    id: int

    def encode(self) -> bytes:
        return _encode({"close": self.id})


@dataclass(frozen=True, slots=True)
class SessionEnded:
    """app host → gateway: session ``id``'s app has ended with ``status`` (0: the player quit)
    and its socket is closed; ``why`` says what ended it when it was not the player."""

    id: int
    status: int
    why: str = ""

    def encode(self) -> bytes:
        return _encode({"ended": self.id, "status": self.status, "why": self.why})


HandoffMessage = ForkRequest | Ready | Forked | Refused | Exited | OpenSession | Resize | CloseSession | SessionEnded


def _encode(fields: dict[str, Any]) -> bytes:
    return json.dumps(fields).encode()


def decode(packet: bytes) -> HandoffMessage:
    """The message in a packet; ``BadMessage`` says what is wrong with it."""
    try:
        data = json.loads(packet)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadMessage(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BadMessage("not a JSON object")
    if "ready" in data:
        return Ready(_int(data, "ready"))
    if "open" in data:
        args, env = data.get("args"), data.get("env")
        if not isinstance(args, list) or not isinstance(env, dict):
            raise BadMessage("a session is opened with args (a list) and env (an object)")
        columns, rows = _size(data)
        return OpenSession(_int(data, "open"), [str(a) for a in args], {str(k): str(v) for k, v in env.items()},
                           columns, rows)
    if "resize" in data:
        return Resize(_int(data, "resize"), *_size(data))
    if "close" in data:
        return CloseSession(_int(data, "close"))
    if "ended" in data:
        return SessionEnded(_int(data, "ended"), _int(data, "status"), str(data.get("why", "")))
    if "exit" in data:
        return Exited(_int(data, "exit"), _int(data, "status"))
    if "pid" in data:
        return Forked(_int(data, "id"), _int(data, "pid"))
    if "error" in data:
        request_id = data.get("id")
        return Refused(None if request_id is None else _int(data, "id"), str(data["error"]))
    args, env = data.get("args"), data.get("env")
    if not isinstance(args, list) or not isinstance(env, dict):
        raise BadMessage("a request is id, args (a list) and env (an object)")
    return ForkRequest(_int(data, "id"), [str(a) for a in args], {str(k): str(v) for k, v in env.items()})


def receive(sock: socket.socket) -> tuple[bytes, list[int]] | None:
    """The next packet on the non-blocking socket ``sock`` and the descriptors that came with
    it; ``(b"", [])`` once the other side has closed it (or it failed); None while none waits."""
    try:
        data, fds, _flags, _addr = socket.recv_fds(sock, MAX_PACKET, MAX_FDS)
    except (BlockingIOError, InterruptedError):
        return None
    except OSError:
        return b"", []
    return data, fds


def _size(data: dict[str, Any]) -> tuple[int, int]:
    size = data.get("size")
    if not (isinstance(size, list) and len(size) == 2 and all(type(n) is int and 0 < n < 10_000 for n in size)):
        raise BadMessage(f"size: expected [columns, rows], got {size!r:.40}")
    return size[0], size[1]


def request_id(packet: bytes) -> int | None:
    """The id of a request that could not be decoded, if it has a readable one (to refuse it)."""
    try:
        data = json.loads(packet)
    except (ValueError, UnicodeDecodeError):
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value if type(value) is int else None


def _int(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    if type(value) is not int:
        raise BadMessage(f"{key}: expected an integer, got {value!r:.40}")
    return value


# ---------------------------------------------------------------------- Linux process controls

PR_SET_PDEATHSIG = 1  # a signal for this process when its parent dies
PR_SET_NAME = 15  # this thread's name, /proc/PID/comm (at most 15 bytes)
PR_SET_CHILD_SUBREAPER = 36  # orphans below this process become its children, not PID 1's


def prctl(option: int, value: int | bytes) -> bool:
    """``prctl(option, value)``; False where it failed or does not exist (not Linux)."""
    try:
        result: int = ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
        return result == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Orphans below this process become its children (not PID 1's), so it can reap them."""
    return prctl(PR_SET_CHILD_SUBREAPER, 1)
