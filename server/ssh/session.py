"""One SSH session: the Textual client, as a child process on a pseudo-terminal or as an app.

The client is ``aton_tui.cli connect 127.0.0.1:PORT --name=NAME`` with
the player's resume token in its environment (``protocol.handoff``): an ordinary protocol client of the game
server for this one player, so it can never hold more than that player's view.
It is forked by the fork server (``forkserver.py``: a process that has imported
the client once), or, when there is none, started as a new interpreter; or, with
``SSHConfig.sessions == "inprocess"``, it is an app among many in an app host
(``app_hosts.HostedClient``), which the session drives the same way.

``PtyChild`` owns the process and the PTY master.  Either way the child runs in a
new session with the PTY as its controlling terminal and every signal as a fresh
process has it: ``posix_spawn`` with ``setsid`` opens the slave after
``setsid()``, which makes it the controlling terminal; the fork server's child
calls ``setsid()`` and ``TIOCSCTTY`` on the slave it was passed.  ``PtyChild``
forwards window sizes (``TIOCSWINSZ`` on the master: the kernel sends
SIGWINCH), moves bytes both ways with flow control, and on the way out kills the
child's process group; it reaps its own child through a pidfd, and learns a fork
server child's exit status from the fork server.  ``GameSession`` is the
asyncssh side of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import select
import shutil
import signal
import struct
import tempfile
import termios
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import asyncssh
from asyncssh.packet import PacketDecodeError, SSHPacket

from protocol import gateway_assertions, handoff
from protocol.client import Client, ServerError
from protocol.errors import ProtocolError
from protocol.transport import Endpoint, TLSFailed, tls_for

from ..clock import Timer
from ..config import SSHLimits
from ..history import Reader
from ..hosted_client import (
    InputBucket,
    base_environment,
    client_arguments,
    client_command,
    home_environment,
    identity_environment,
)
from ..room import token_hash
from . import commands
from .app_hosts import HostedClient
from .client_end import KILL_GRACE, ClientEnd
from .forkserver import ForkServerSupervisor, ForkServerUnavailable, spawn
from .identity import Identity

if TYPE_CHECKING:
    from .gateway import Link, SSHGateway

log = logging.getLogger(__name__)

#: Put a terminal back the way it was when a client is killed without restoring it:
#: leave the alternate screen, mouse reporting, bracketed paste, focus events,
#: synchronised output and the kitty keyboard mode; line wrap, plain attributes, cursor shown.
TERMINAL_RESET = (b"\x1b[?1049l\x1b[?7h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l"
                  b"\x1b[?2004l\x1b[?1004l\x1b[?2026l\x1b[<u\x1b[0m\x1b[?25h")


def forkserver_environment() -> dict[str, str]:
    """The fork server's: no terminal, no player; a home where nothing is (no user site-packages)."""
    return {**base_environment(), "HOME": "/nonexistent"}


def child_environment(term: str | None, client_env: dict[str, str], identity: Identity, home: str,
                      kept_games: Path | None = None) -> dict[str, str]:
    """A forked or spawned client's whole environment: nothing of the server's own leaks into it;
    a home of its own, and the session's variables (``session_environment``).

    A forked client gets it after the fork server's imports: a variable that a module reads
    at import time (Textual's ``TEXTUAL_*`` and ``TERM_PROGRAM``, say) would be ignored if
    added here; what is here is read when the app starts (see tests/ssh/test_forkserver.py)."""
    return {**base_environment(), **home_environment(home),
            **session_environment(term, client_env, identity, kept_games)}


def session_environment(term: str | None, client_env: dict[str, str], identity: Identity,
                        kept_games: Path | None = None) -> dict[str, str]:
    """What a session's client is told of its session, however it runs: the terminal, the
    gateway's assertion of the player with its session key (``protocol.handoff``), with which it
    proves the player to the game server, and where it keeps the player's unfinished games."""
    env = {"TERM": term or "xterm-256color", **identity_environment(identity, handoff.HOSTED_BY_SSH, kept_games)}
    # OpenSSH forwards TERM but not COLORTERM: pass it on only when the client sent it.
    colorterm = client_env.get("COLORTERM", "")
    if colorterm in ("truecolor", "24bit"):
        env["COLORTERM"] = colorterm
    return env


def winsize(columns: int, rows: int, xpixels: int = 0, ypixels: int = 0) -> bytes:
    return struct.pack("HHHH", max(rows, 1), max(columns, 1), xpixels, ypixels)


class PtyChild(ClientEnd):
    """A client process on a PTY (the PTY's master is the descriptor).

    Made with the PTY alone; then ``spawn`` (a new program, this process's child) or
    ``fork`` (a child of the fork server) starts the process on it.  Everything else —
    output, input, sizes, the end — is the same for both.
    """

    def __init__(self, size: tuple[int, int, int, int], on_output: Callable[[bytes], None],
                 on_input_blocked: Callable[[bool], None]) -> None:
        super().__init__(on_output, on_input_blocked)
        self.size = size
        self.pidfd = -1
        self.forked = False  # a child of the fork server, which reaps it and reports its status
        self.slave = -1
        self._open_pty()
        self.resume_output()

    @property
    def master(self) -> int:
        return self.fd

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        try:
            fcntl.ioctl(master, termios.TIOCSWINSZ, winsize(*self.size))
            os.set_blocking(master, False)
        except BaseException:
            os.close(master)
            os.close(slave)
            raise
        self._attach(master)
        self.slave = slave

    # ------------------------------------------------------------------ the start

    def spawn(self, argv: list[str], env: dict[str, str]) -> None:
        """Run the program ``argv`` on the PTY (``posix_spawn``: a new interpreter)."""
        # after setsid() the child opens the slave without O_NOCTTY: it becomes the
        # child's controlling terminal, so the child gets SIGWINCH and SIGHUP
        pid = spawn(argv, env, [(os.POSIX_SPAWN_OPEN, 0, os.ttyname(self.slave), os.O_RDWR, 0),
                                (os.POSIX_SPAWN_DUP2, 0, 1), (os.POSIX_SPAWN_DUP2, 0, 2)])
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:  # no pidfd (Linux < 5.3): look for the exit five times a second
            pidfd = -1
        self._started(pid, pidfd)
        self._watch()

    async def fork(self, forkserver: ForkServerSupervisor, args: list[str], env: dict[str, str]) -> None:
        """Have the fork server run ``aton_tui.cli.main(args)`` on the PTY.  Raises
        ``ForkServerUnavailable`` when it could not, leaving a fresh PTY to ``spawn`` on
        (whatever the fork server might still start on the old one is cut off from it)."""
        try:
            pid, pidfd, status = await forkserver.fork(args, env, self.slave)
        except ForkServerUnavailable:
            self.pause_output()
            self._close_pty()
            self._open_pty()
            self.resume_output()
            raise
        self.forked = True
        self._started(pid, pidfd)
        status.add_done_callback(self._reported)

    def _started(self, pid: int, pidfd: int) -> None:
        self.pid, self.pidfd = pid, pidfd
        os.close(self.slave)
        self.slave = -1
        self.started.set_result(None)

    def resize(self, columns: int, rows: int, xpixels: int = 0, ypixels: int = 0) -> None:
        self.size = (columns, rows, xpixels, ypixels)
        if self.fd >= 0:
            fcntl.ioctl(self.fd, termios.TIOCSWINSZ, winsize(columns, rows, xpixels, ypixels))

    # ------------------------------------------------------------------ the end

    def _reported(self, status: asyncio.Future[int]) -> None:
        """The fork server's word on its child's end.  If the fork server ended first, the
        child is this process's own now (a subreaper adopts orphans): watch it here."""
        if status.cancelled() or status.exception() is not None:
            self.forked = False  # ours to reap now, group leftovers included
            self._watch()
        else:
            self._finish(status.result())

    def _watch(self) -> None:
        if self.pidfd >= 0:
            self.loop.add_reader(self.pidfd, self._reap)
        else:
            self._poll()

    def _poll(self) -> None:
        if not self.exited.done():
            self._reap()
            self.loop.call_later(0.2, self._poll)

    def _reap(self) -> None:
        # While the exited leader is a zombie its process group id cannot be reused: kill
        # whatever else is left in the group now, then reap.
        if _state(self.pid) == "Z":
            self.kill_group(signal.SIGKILL)
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere: its status is lost
            pid, status = self.pid, 255 << 8
        if pid:
            self._finish(os.waitstatus_to_exitcode(status))

    def _finish(self, code: int) -> None:
        if self.pidfd >= 0:
            self.loop.remove_reader(self.pidfd)
            os.close(self.pidfd)
            self.pidfd = -1
        if not self.exited.done():
            self.exited.set_result(code)

    def kill_group(self, sig: int) -> None:
        if self.pidfd >= 0:  # the leader by its pidfd (it may not have called setsid yet)
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self.pidfd, sig)
            if self.forked and select.select([self.pidfd], [], [], 0)[0]:
                return  # it has ended: the fork server kills the group's leftovers as it reaps it
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)

    async def terminate(self, grace: float = KILL_GRACE) -> int:
        """SIGTERM the child's process group, SIGKILL it after ``grace``; the exit code."""
        if not self.started.done() and not self.exited.done():  # still starting
            starting: list[asyncio.Future[None] | asyncio.Future[int]] = [self.started, self.exited]
            await asyncio.wait(starting, return_when=asyncio.FIRST_COMPLETED)
        if not self.exited.done():
            self.kill_group(signal.SIGTERM)
            try:
                await asyncio.wait_for(asyncio.shield(self.exited), grace)
            except TimeoutError:
                self.kill_group(signal.SIGKILL)
        return await self.exited

    def _close_pty(self) -> None:
        self._close_fd()
        if self.slave >= 0:
            os.close(self.slave)
        self.slave = -1

    def close(self) -> None:
        """Release the PTY (the process must have been reaped: see ``terminate``)."""
        self.pause_output()
        self._close_pty()


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "?"


def duration(seconds: float) -> str:
    if seconds >= 120:
        return f"{seconds / 60:g} minutes"
    return f"{seconds:g} seconds"


def how_to_connect(username: str) -> str:
    user = f"{username}@" if username and username.isprintable() and len(username) <= 32 else ""
    return ("Aton is played in a terminal, and this session asked for none.\r\n"
            "Connect from a terminal, without a command:\r\n"
            f"    ssh -t {user}HOST        (with -p PORT if you used one)\r\n"
            "Your SSH user name is your name at the table; log in with a key to keep it\r\n"
            "and to take your seats back after a disconnection.\r\n")


def _bound_environment(chan: asyncssh.SSHServerChannel, limits: SSHLimits) -> None:
    """Refuse ``env`` requests past ``limits.env_variables`` variables or ``limits.env_bytes``
    bytes of names and values: asyncssh stores every one a client sends (each up to a packet,
    32 KiB), so a client could grow the gateway's memory without bound.  (asyncssh 2.24 has
    no option for it: this wraps the channel's handler, and does nothing if that changes.)"""
    handler = getattr(chan, "_process_env_request", None)
    env = getattr(chan, "_env", None)
    if handler is None or not isinstance(env, dict):
        return
    received = 0  # bytes of names and values accepted so far

    def bounded(packet: SSHPacket) -> bool:
        nonlocal received
        try:
            request = SSHPacket(packet.get_remaining_payload())
            size = len(request.get_string()) + len(request.get_string())
        except PacketDecodeError:
            return handler(packet)  # malformed: asyncssh's own handler says so
        if len(env) >= limits.env_variables or received + size > limits.env_bytes:
            return False
        received += size
        return handler(packet)

    chan._process_env_request = bounded  # type: ignore[method-assign]  # asyncssh's private handler, wrapped


class GameSession(asyncssh.SSHServerSession):
    """One SSH channel: a friendly text (no terminal, or a command), or the game client."""

    def __init__(self, gateway: SSHGateway, link: Link) -> None:
        self.gateway = gateway
        self.link = link
        self.chan: asyncssh.SSHServerChannel | None = None
        self.term: str | None = None
        self.size = (80, 24, 0, 0)
        self.command: str | None = None
        self.child: PtyChild | HostedClient | None = None
        self.home: str | None = None
        self.bucket = InputBucket(gateway.limits.input_rate, gateway.limits.input_burst)
        self.last_input = gateway.clock.now()
        self.idle_timer: Timer | None = None
        self.ending = False
        self.farewell: tuple[str, int] | None = None
        self.closed = asyncio.get_running_loop().create_future()

    # ------------------------------------------------------------------ requests

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self.chan = chan
        _bound_environment(chan, self.gateway.limits)

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes) -> bool:
        self.term = term_type
        self.size = term_size if term_size[0] and term_size[1] else (80, 24, 0, 0)
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.command = command  # ``record`` and ``games`` are answered, any other is refused
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        log.info("%s: subsystem %r refused", self.link.who, subsystem[:40])
        return False

    def break_received(self, msec: int) -> bool:
        return False

    def session_started(self) -> None:
        if self.link.banned is not None:
            self._finish_with_text(self.link.banned.line() + ("\r\n" if self.term is not None else "\n"), 1,
                                   stderr=True)
            return  # and the connection closes with the channel (``connection_lost``)
        if self.command is not None:
            self._answer(self.command)
            return
        if self.term is None:
            self._finish_with_text(how_to_connect(self.link.username), 1)
            return
        refusal = self.gateway.admit_game(self)
        if refusal:
            self._finish_with_text(refusal + "\r\n", 1)
            return
        try:
            self.child = child = self._client()
        except Exception:
            self._cannot_start()
            return
        self._arm_idle_timer()
        self.gateway.track(self._run(child), f"session of {self.link.who}")

    def _answer(self, command: str) -> None:
        """A command instead of a game: ``record``, ``games`` or ``web-login`` (``commands``), as the
        player this login is (the key's account, whichever of its keys logged in, and the key's own
        session); any other is refused in one line."""
        identity = self.link.identity
        if identity is None or not commands.is_command(command):
            log.info("%s: command %r refused", self.link.who, command[:40])
            self._answered(commands.Outcome(stderr=commands.REFUSED, status=1))
            return
        self.ending = True
        self.gateway.track(self._run_command(command, identity), f"command of {self.link.who}")

    async def _run_command(self, command: str, identity: Identity) -> None:
        gateway = self.gateway
        if gateway.history is not None and identity.resume_token is not None:  # beside the game server
            reader = Reader(session=token_hash(identity.resume_token), account=gateway.account_of(self.link))
            answers = commands.HistoryAnswers(identity, reader, gateway.history, gateway.web_logins)
            outcome = await commands.run(command, identity, answers)
        else:
            outcome = await self._run_at_the_game_server(command, identity)
        log.info("%s: %s %s", self.link.who, command.split()[0], "refused" if outcome.status else "answered")
        self._answered(outcome)

    async def _run_at_the_game_server(self, command: str, identity: Identity) -> commands.Outcome:
        """A gateway apart from the game server asks it, on a connection of its own that proves the
        player (a session of its own: the player's game client, if any, is left alone)."""
        gateway = self.gateway
        vouch = gateway.identities.signer.vouch(identity.fingerprint, identity.name, self.link.address,
                                                handoff.HOSTED_BY_SSH, seats=False)
        try:
            client = await Client.connect(
                gateway.game_host, gateway.game_port, name=identity.name, lobby=False,
                proof=gateway_assertions.proof(vouch.assertion, vouch.session_key), timeout=commands.ARBITER_SECONDS,
                tls=tls_for(Endpoint(gateway.game_host, gateway.game_port, gateway.arbiter_tls), gateway.tls_ca))
        except ServerError as exc:  # banned, say
            return commands.Outcome(stderr=f"aton: {exc.error.message}", status=1)
        except (OSError, TimeoutError, TLSFailed, ConnectionError):
            return commands.Outcome(stderr=commands.UNREACHABLE, status=1)
        try:
            return await commands.run(command, identity, commands.ArbiterAnswers(client))
        except (OSError, TimeoutError, asyncio.IncompleteReadError, ProtocolError):
            return commands.Outcome(stderr=commands.UNREACHABLE, status=1)
        finally:
            await client.close()

    def _answered(self, outcome: commands.Outcome) -> None:
        """Write a command's answer, and end the session with its status."""
        self.ending = True
        newline = "\r\n" if self.term is not None else "\n"  # a terminal's client is in raw mode
        if self.chan is not None and outcome.stderr:
            with contextlib.suppress(BrokenPipeError, OSError):
                self.chan.write_stderr((outcome.stderr + newline).encode())
        self._send(outcome.stdout.replace(b"\n", newline.encode()), outcome.status)
        if not self.closed.done():
            self.closed.set_result(None)

    def _cannot_start(self) -> None:
        log.exception("%s: cannot start the client", self.link.who)
        self._release()
        self._finish_with_text("The game client could not be started; please try again later.\r\n", 1)

    def _client(self) -> PtyChild | HostedClient:
        """The end of the session's client: an app in an app host, or a process on a PTY (with a
        home of its own)."""
        if self.gateway.app_hosts is not None:
            return HostedClient(self.size, self._output, self._input_blocked)
        self.home = tempfile.mkdtemp(prefix="aton-ssh-")
        return PtyChild(self.size, self._output, self._input_blocked)

    async def _run(self, child: PtyChild | HostedClient) -> None:
        try:
            identity = self.link.identity
            assert identity is not None, "a game session starts after the login"
            how = await self._start(child, identity)
        except BaseException as exc:
            child.abandon()
            if not isinstance(exc, Exception):  # cancelled: the gateway is stopping
                self._release()
                raise
            self._cannot_start()
            return
        log.info("%s: session started as %r (pid %d, %s, %s, %dx%d)", self.link.who, identity.name,
                 child.pid, how, self.term, self.size[0], self.size[1])
        await self._wait_for_child()

    async def _start(self, child: PtyChild | HostedClient, identity: Identity) -> str:
        """Start the client: in an app host; else forked by the fork server when there is one,
        else a new interpreter."""
        client_env = dict(self.chan.get_environment()) if self.chan else {}
        gateway = self.gateway
        args = client_arguments(gateway.game_host, gateway.game_port, identity.name, gateway.arbiter_tls,
                                gateway.tls_ca)
        if isinstance(child, HostedClient):
            assert self.gateway.app_hosts is not None
            child.open(self.gateway.app_hosts, args, {**base_environment(),
                                                      **session_environment(self.term, client_env, identity,
                                                                            gateway.kept_games)})
            return f"app {child.id} in an app host"
        assert self.home is not None
        env = child_environment(self.term, client_env, identity, self.home, gateway.kept_games)
        forkserver = self.gateway.forkserver
        if forkserver is not None and forkserver.available:
            try:
                await child.fork(forkserver, args, env)
                return "forked"
            except ForkServerUnavailable as exc:
                log.warning("%s: %s; starting the client as a new interpreter", self.link.who, exc)
        child.spawn(client_command(args), env)
        return "spawned"

    # ------------------------------------------------------------------ traffic

    def _output(self, data: bytes) -> None:
        if not self.ending:
            self._send(data)

    def _send(self, data: bytes, exit_status: int | None = None, stderr: bool = False) -> None:
        """Write to the channel (its standard error if ``stderr``; and end it with ``exit_status``)
        unless it is closing already."""
        if self.chan is None:
            return
        try:
            (self.chan.write_stderr if stderr else self.chan.write)(data)
            if exit_status is not None:
                self.chan.exit(exit_status)
        except (BrokenPipeError, OSError):
            pass  # the client went away meanwhile: connection_lost cleans up

    def _input_blocked(self, blocked: bool) -> None:
        if self.chan is not None:
            (self.chan.pause_reading if blocked else self.chan.resume_reading)()

    def data_received(self, data: bytes, datatype) -> None:
        self.last_input = self.gateway.clock.now()
        if not self.bucket.take(len(data)):
            log.warning("%s: input above %d bytes/s: dropped", self.link.who, self.gateway.limits.input_rate)
            self.link.drop("too much input")
            return
        if self.child is not None and not self.child.write(data):
            log.warning("%s: the client does not read its input: dropped", self.link.who)
            self.link.drop("input not consumed")

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self.size = (width, height, pixwidth, pixheight)
        if self.child is not None and width and height:
            self.child.resize(width, height, pixwidth, pixheight)

    def pause_writing(self) -> None:
        if self.child is not None:
            self.child.pause_output()

    def resume_writing(self) -> None:
        if self.child is not None:
            self.child.resume_output()

    def eof_received(self) -> bool:
        return True  # keep the session: the game ends when the client quits

    def signal_received(self, signal: str) -> None:
        pass

    # ------------------------------------------------------------------ the end

    def _arm_idle_timer(self) -> None:
        """Check for idleness when the last key press is ``idle_timeout`` old (a hundredth later, never early)."""
        clock = self.gateway.clock
        due = self.last_input + self.gateway.limits.idle_timeout
        self.idle_timer = clock.call_later(max(0.0, due - clock.now()) + 0.01, self._idle_check)

    def _idle_check(self) -> None:
        if self.ending:
            return
        if self.gateway.clock.now() - self.last_input >= self.gateway.limits.idle_timeout:
            self.end(f"Closed after {duration(self.gateway.limits.idle_timeout)} without a key press. "
                     "Your games are kept: log in again to play on.", 1)
        else:
            self._arm_idle_timer()

    def _finish_with_text(self, text: str, status: int, stderr: bool = False) -> None:
        self.ending = True
        self._send(text.encode(), status, stderr)
        if not self.closed.done():
            self.closed.set_result(None)

    def end(self, message: str, status: int = 1) -> None:
        """Stop the client from here (idle, takeover, shutdown): restore the terminal, say why."""
        if self.ending:
            return
        self.ending = True
        self.farewell = (message, status)
        if self.child is not None:
            self.gateway.track(self.child.terminate(), f"end of {self.link.who}")

    async def _wait_for_child(self) -> None:
        """The child's exit ends the SSH session with its exit status (or the gateway's
        farewell); then everything is released."""
        assert self.child is not None
        try:
            code = await self.child.exited
            self.child.drain()
            if self.farewell is not None:
                message, status = self.farewell
                self._send(TERMINAL_RESET + b"\r\n" + message.encode() + b"\r\n", status)
            elif not self.ending:
                self.ending = True
                why = self.child.why if isinstance(self.child, HostedClient) else ""
                self._send(TERMINAL_RESET + (f"\r\n{why}\r\n".encode() if why else b""),
                           code if 0 <= code < 256 else 128 + (-code))
            await self.child.terminate()  # the group's leftovers
        finally:
            self._release()

    def connection_lost(self, exc: Exception | None) -> None:
        """The channel is closed (by us, the client, or a broken connection)."""
        self.ending = True
        if self.child is not None and not self.child.exited.done():
            self.gateway.track(self.child.terminate(), f"stop of {self.link.who}")
        elif self.child is None and not self.closed.done():
            self.closed.set_result(None)
        self.chan = None
        self.link.session_closed(self)
        if self.link.banned is not None:
            self.link.close()

    def _release(self) -> None:
        if self.idle_timer is not None:
            self.idle_timer.cancel()
        if self.child is not None:
            self.child.close()
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)
            self.home = None
        self.gateway.release_game(self)
        if not self.closed.done():
            self.closed.set_result(None)
        log.info("%s: session ended", self.link.who)
