"""The ``aton`` command: play (the default), ``connect``, ``host``, and ``replay``.

    aton [--name N] [--level L] [--clock C]       a game against a bot, at once
    aton connect HOST[:PORT] [--name N]           the lobby of a remote server
    aton host [--port P] [--bind A] [--name N] [--clock C]
                                                  serve a LAN game and wait for the opponent
    aton replay FILE [--as SIDE]                  step through a record (in a terminal)
    aton replay FILE --final | --json             check a record and print its final position

Only the play commands import Textual (and the server), so ``aton replay`` starts fast.
"""

from __future__ import annotations

import argparse
import getpass
import ipaddress
import json
import os
import sys

from aton.errors import RecordError
from aton.record import GameRecord, replay, summary
from aton.text import position_text
from protocol import RELEASE
from protocol.handoff import HOSTED_VARIABLE, RESUME_VARIABLE
from protocol.messages import BOT_LEVELS, CLOCKS

from .replay_model import Perspective

EXIT_BAD_RECORD = 2
DEFAULT_PORT = 2866  # the server's default (server.cli)
EVERY_ADDRESS = "0.0.0.0"  # where ``aton host`` serves by default


def replay_command(path: str, as_json: bool = False, final: bool = True, perspective: str = "red") -> int:
    """Replay a record: print its final position (``final``, or ``as_json``), or open it in the
    replay viewer.  A record that cannot be read is said on stderr with exit status 2; one that
    stops replaying too, after the viewer has shown it up to the bad move."""
    record = read_record(path)
    if record is None:
        return EXIT_BAD_RECORD
    if not (final or as_json):
        return view_record(record, perspective)
    try:
        state = replay(record)
    except RecordError as exc:
        print(f"aton replay: {exc}", file=sys.stderr)
        return EXIT_BAD_RECORD
    if as_json:
        print(json.dumps(summary(state)))
    else:
        print(position_text(state))
    return 0


def read_record(path: str) -> GameRecord | None:
    """The record in the file at ``path``, or None once stderr says why there is none."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        print(f"aton replay: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        print(f"aton replay: {path} is not valid JSON: {exc}", file=sys.stderr)
        return None
    try:
        return GameRecord.from_dict(data)
    except RecordError as exc:
        print(f"aton replay: {exc}", file=sys.stderr)
        return None


def view_record(record: GameRecord, perspective: str) -> int:
    """The replay viewer on ``record`` (imports Textual: only in a terminal)."""
    from .replay_app import ReplayApp
    from .replay_model import ReplayModel
    from .settings import Settings, settings_path

    model = ReplayModel(record)
    chosen = Perspective(perspective)
    if chosen not in model.perspectives:
        print("aton replay: --as everything shows a finished game only; this one is not over", file=sys.stderr)
        return EXIT_BAD_RECORD
    ReplayApp(model, chosen, Settings.load(settings_path())).run()
    if model.error is not None:
        print(f"aton replay: {model.error}", file=sys.stderr)
        return EXIT_BAD_RECORD
    return 0


def login_name() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = ""
    return (name.strip() or "player")[:24]


def port_number(text: str) -> int:
    """A TCP port, 1–65535 (argparse says what is wrong with anything else)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1–65535)") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number: ports go from 1 to 65535")
    return port


def ip_address(text: str) -> str:
    """An address to listen on: an IPv4 or IPv6 address (no name: a name can have several)."""
    try:
        return str(ipaddress.ip_address(text.strip("[]")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IP address (e.g. 127.0.0.1, 0.0.0.0, ::1)") from None


def host_and_port(text: str) -> tuple[str, int]:
    """'example.org', 'example.org:2900', '[::1]:2900' → (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or (host.count(":") and not host.endswith("]")):
        host, port = text, str(DEFAULT_PORT)
    host = host.strip("[]")
    if not host:
        raise argparse.ArgumentTypeError(f"no host in {text!r}: give a name or an address, e.g. 192.168.1.5:2866")
    return host, port_number(port)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aton", description="Aton in the terminal. With no command: "
                                     "play a bot at once, on a server inside this process.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {RELEASE}")
    name_help = "your name at the table (default: your login name)"
    parser.add_argument("--name", default=None, help=name_help)
    parser.add_argument("--level", choices=BOT_LEVELS, default="normal", help="the bot's strength (default normal)")
    parser.add_argument("--clock", choices=CLOCKS, default="relaxed", help="time per decision (default relaxed)")
    commands = parser.add_subparsers(dest="command")
    cp = commands.add_parser("connect", help="the lobby of a remote server")
    cp.add_argument("address", type=host_and_port, metavar="HOST[:PORT]")
    cp.add_argument("--name", default=argparse.SUPPRESS, help=name_help)
    hp = commands.add_parser("host", help="serve a game on your LAN and wait for the other player")
    hp.add_argument("--port", type=port_number, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    hp.add_argument("--bind", type=ip_address, default=EVERY_ADDRESS, metavar="ADDRESS",
                    help=f"the address to serve on (default {EVERY_ADDRESS}: every network of this machine); "
                         "127.0.0.1 serves this machine only, e.g. for an SSH tunnel")
    hp.add_argument("--name", default=argparse.SUPPRESS, help=name_help)
    hp.add_argument("--clock", choices=CLOCKS, default="normal", help="time per decision (default normal)")
    rp = commands.add_parser("replay", help="step through an aton-record/1 file (in a terminal), "
                                            "or print its final position")
    rp.add_argument("file")
    rp.add_argument("--final", action="store_true",
                    help="print the final position as text (the default when the output is not a terminal)")
    rp.add_argument("--json", action="store_true", help="print the final position as one JSON object")
    rp.add_argument("--as", dest="perspective", choices=[p.value for p in Perspective], default="red",
                    help="whose knowledge the viewer shows at first (default red; v switches; "
                         "everything: a finished game only)")
    return parser


def play(args: argparse.Namespace) -> int:
    from .app import AtonApp, Launch
    from .local_server import data_dir, lan_address, log_to_file
    from .saved_sessions import SavedSessions, sessions_path
    from .settings import Settings, settings_path

    name = (args.name or login_name())[:24]
    if args.command == "connect":
        host, port = args.address
        launch = Launch(name=name, host=host, port=port, resume=os.environ.get(RESUME_VARIABLE) or None,
                        hosted=bool(os.environ.get(HOSTED_VARIABLE)))
    elif args.command == "host":
        shown = lan_address() if ipaddress.ip_address(args.bind).is_unspecified else args.bind
        launch = Launch(name=name, port=args.port, serve=args.bind, start="table", clock=args.clock,
                        lan_address=shown)
    else:
        launch = Launch(name=name, serve="127.0.0.1", start="bot", level=args.level, clock=args.clock)
    if launch.serve:
        log_to_file(data_dir() / "server.log")
    # a hosted client (SSH) is handed its session and keeps no files on the server's machine
    sessions = None if launch.hosted else SavedSessions(sessions_path())
    app = AtonApp(launch, Settings.load(settings_path()), sessions=sessions)
    try:
        app.run()
    except OSError as exc:
        print(f"aton: {exc}", file=sys.stderr)
        return 1
    return app.return_code or 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "replay":
        try:
            final = args.final or not sys.stdout.isatty()
            return replay_command(args.file, args.json, final, args.perspective)
        except BrokenPipeError:  # the reader stopped early (`aton replay … | head`): it had what it wanted
            quiet_stdout()
            return 0
    return play(args)


def quiet_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush at exit, into a
    pipe nobody reads any more, raises nothing (the idiom of Python's ``signal`` documentation)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
