"""The ``aton`` command: play (the default), ``connect``, ``host``, and ``replay``.

    aton [--name N] [--level L] [--clock C] [--game G]
                                                  a game against a bot, at once (G: aton or
                                                  atlas-zeus)
    aton connect [HOST[:PORT]] [--name N]         the lobby of a remote server (no address: the
                                                  servers found on the LAN, one to choose)
    aton host [--port P] [--bind A] [--name N] [--clock C]
                                                  serve a LAN game and wait for the opponent
    aton learn                                    the lesson: a guided first game against the bot
    aton replay FILE [--as SIDE]                  step through a record of either game (in a terminal)
    aton replay FILE --final | --json             check a record and print its final position
    aton analyse FILE [--iterations N | --budget-ms N] [--seed N] [--json] [--no-save]
                                                  the search bot's verdict on every decision

Only the play commands import Textual (and the server), so ``aton replay`` and
``aton analyse`` start fast.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import getpass
import ipaddress
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas_zeus import record as atlas_zeus_record
from atlas_zeus.errors import RecordError as AtlasZeusRecordError
from atlas_zeus.text import position_text as atlas_zeus_position_text
from aton.errors import RecordError
from aton.record import GameRecord, replay, summary
from aton.text import position_text
from bots.analysis import (
    DEFAULT_ITERATIONS,
    SIDE_SUFFIX,
    AnalysisSettings,
    GameAnalysis,
    analyse,
    load_beside,
    save_beside,
    side_path,
)
from protocol import RELEASE, gateway_assertions
from protocol.account_keys import GatewayProof, keys_directory
from protocol.handoff import (
    ASSERTION_VARIABLE,
    HOSTED_VARIABLE,
    KEPT_GAMES_VARIABLE,
    RESUME_VARIABLE,
    SESSION_KEY_VARIABLE,
)
from protocol.messages import BOT_LEVELS, CLOCKS, DEFAULT_GAME, GAMES
from protocol.transport import DEFAULT_PORT, Endpoint, parse_endpoint, tls_for

from .narrate import move_words, player_name
from .replay_model import Perspective, SteppedRecord, seat_name

if TYPE_CHECKING:
    from .app import AtonApp
    from .replay_app import ViewerApp

EXIT_BAD_RECORD = 2
EVERY_ADDRESS = "0.0.0.0"  # where ``aton host`` serves by default


def replay_command(path: str, as_json: bool = False, final: bool = True, perspective: str = "red") -> int:
    """Replay a record: print its final position (``final``, or ``as_json``), or open it in the
    replay viewer.  A record that cannot be read is said on stderr with exit status 2; one that
    stops replaying too, after the viewer has shown it up to the bad move.  An Atlas & Zeus
    record is left to ``replay_atlas_zeus``."""
    data = read_json(path)
    if data is None:
        return EXIT_BAD_RECORD
    if isinstance(data, dict) and data.get("format") == atlas_zeus_record.FORMAT:
        return replay_atlas_zeus(data, as_json, final, perspective)
    record = parse_record(data)
    if record is None:
        return EXIT_BAD_RECORD
    if not (final or as_json):
        return view_record(record, perspective, path)
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


def replay_atlas_zeus(data: object, as_json: bool, final: bool, perspective: str = "red") -> int:
    """Check and replay an ``atlas-zeus-record/1``: print its final position, as text (``final``)
    or its summary (``as_json``), or open it in its replay viewer, as ``replay_command`` does."""
    try:
        record = atlas_zeus_record.GameRecord.from_dict(data)
        if not (final or as_json):
            return view_atlas_zeus_record(record, perspective)
        state = atlas_zeus_record.replay(record)
    except AtlasZeusRecordError as exc:
        print(f"aton replay: {exc}", file=sys.stderr)
        return EXIT_BAD_RECORD
    if as_json:
        print(json.dumps(atlas_zeus_record.summary(state)))
    else:
        print(atlas_zeus_position_text(state))
    return 0


def read_json(path: str, command: str = "replay") -> object | None:
    """The JSON document in the file at ``path``, or None once stderr says why there is none."""
    try:
        with open(path, encoding="utf-8") as handle:
            data: object = json.load(handle)
    except OSError as exc:
        print(f"aton {command}: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        print(f"aton {command}: {path} is not valid JSON: {exc}", file=sys.stderr)
        return None
    return data


def parse_record(data: object, command: str = "replay") -> GameRecord | None:
    """The Aton record of a JSON document, or None once stderr says why it is not one."""
    try:
        return GameRecord.from_dict(data)
    except RecordError as exc:
        print(f"aton {command}: {exc}", file=sys.stderr)
        return None


def read_record(path: str, command: str = "replay") -> GameRecord | None:
    """The Aton record in the file at ``path``, or None once stderr says why there is none (as
    ``aton COMMAND: …``)."""
    data = read_json(path, command)
    return None if data is None else parse_record(data, command)


def view_record(record: GameRecord, perspective: str, path: str) -> int:
    """The replay viewer on ``record``, read from ``path`` (imports Textual: only in a terminal);
    its analysis is kept beside that file."""
    from .replay_app import ReplayApp
    from .replay_model import ReplayModel
    from .settings import Settings, settings_path

    model = ReplayModel(record)
    return run_viewer(model, perspective,
                      lambda chosen: ReplayApp(model, chosen, Settings.load(settings_path()), record_path=Path(path)))


def view_atlas_zeus_record(record: atlas_zeus_record.GameRecord, perspective: str) -> int:
    """The replay viewer of Atlas & Zeus on ``record`` (imports Textual: only in a terminal)."""
    from .atlas_zeus.replay_model import ZeusReplayModel
    from .replay_app import ZeusReplayApp
    from .settings import Settings, settings_path

    model = ZeusReplayModel(record)
    return run_viewer(model, perspective, lambda chosen: ZeusReplayApp(model, chosen, Settings.load(settings_path())))


def run_viewer(model: SteppedRecord[Any], perspective: str, app: Callable[[Perspective], ViewerApp]) -> int:
    """Run the viewer ``app`` makes for ``model`` from ``perspective``; status 2 (said on stderr)
    when that perspective may not be shown or the record stops replaying."""
    chosen = Perspective(perspective)
    if chosen not in model.perspectives:
        print("aton replay: --as everything shows a finished game only; this one is not over", file=sys.stderr)
        return EXIT_BAD_RECORD
    app(chosen).run()
    if model.error is not None:
        print(f"aton replay: {model.error}", file=sys.stderr)
        return EXIT_BAD_RECORD
    return 0


def analyse_command(path: str, settings: AnalysisSettings, as_json: bool = False, save: bool = True) -> int:
    """Analyse a record (or read its analysis from beside it, when one was made with the same
    settings) and print the table or, ``as_json``, one JSON object.  A record that cannot be
    read or replayed is said on stderr with exit status 2, as ``aton replay`` does."""
    record = read_record(path, "analyse")
    if record is None:
        return EXIT_BAD_RECORD
    analysis = load_beside(path, record)
    if analysis is not None and analysis.settings == settings:
        print(f"aton analyse: read from {side_path(path)}", file=sys.stderr)
    else:
        try:
            analysis = analyse(record, iterations=settings.iterations, budget_ms=settings.budget_ms,
                               seed=settings.seed, progress=_progress_line() if sys.stderr.isatty() else None)
        except RecordError as exc:
            print(f"aton analyse: {exc}", file=sys.stderr)
            return EXIT_BAD_RECORD
        if save:
            try:
                print(f"aton analyse: saved to {save_beside(path, analysis, record)}", file=sys.stderr)
            except OSError as exc:
                print(f"aton analyse: not saved beside the record: {exc}", file=sys.stderr)
    if as_json:
        summary = {str(p): s.to_dict() for p, s in analysis.summary().items()}
        print(json.dumps({**analysis.to_dict(), "summary": summary}))
    else:
        print(analysis_text(analysis, record, path))
    return 0


def _progress_line() -> Callable[[int, int], None]:
    """``progress(done, total)`` that redraws one line on stderr (a terminal), and clears it at the end."""
    def progress(done: int, total: int) -> None:
        line = f"aton analyse: {done}/{total} decisions"
        sys.stderr.write("\r" + line if done < total else "\r" + " " * len(line) + "\r")
        sys.stderr.flush()

    return progress


def analysis_text(analysis: GameAnalysis, record: GameRecord, path: str) -> str:
    """The analysis as a table of the judged decisions and a summary per player."""
    header = ("move", "round", "player", "decision", "played", "best", "before", "after", "loss", "judgement")
    rows = [header] + [
        (str(d.move_index + 1), str(d.round), player_name(d.player), d.kind, move_words(d.played),
         "same" if d.best == d.played else move_words(d.best), f"{d.chance_before:.1%}", f"{d.chance_played:.1%}",
         f"{100 * d.loss:.1f}", str(d.judgement or ""))
        for d in analysis.decisions
    ]
    widths = [max(len(row[c]) for row in rows) for c in range(len(header))]
    numeric = {0, 1, 6, 7, 8}
    lines = [f"Analysis of {path}: {analysis.settings.describe()}.", ""]
    lines += ["  ".join(cell.rjust(w) if c in numeric else cell.ljust(w)
                        for c, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip() for row in rows]
    lines.append("")
    for seat, tally in analysis.summary().items():
        judged = ", ".join(_count(n, one, many) for n, one, many in (
            (tally.inaccuracies, "inaccuracy", "inaccuracies"), (tally.mistakes, "mistake", "mistakes"),
            (tally.blunders, "blunder", "blunders")))
        colour, name = player_name(seat), seat_name(record, seat)
        who = colour if name == colour else f"{colour} ({name})"
        average = 100 * tally.average_loss
        lines.append(f"{who}: {tally.decisions} decisions judged, {judged}, average loss {average:.1f}")
    lines += ["Before and after: the player's chance to win, from what they knew, with the best move found",
              "and with the move played; the loss in percentage points (docs/analysis.md)."]
    return "\n".join(lines)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


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


def server_address(text: str) -> Endpoint:
    """'example.org', 'example.org:2900', '[::1]:2900', 'tls://example.org:2867' → an Endpoint."""
    try:
        return parse_endpoint(text, DEFAULT_PORT)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def host_and_port(text: str) -> tuple[str, int]:
    """'example.org', 'example.org:2900', '[::1]:2900' → (host, port): a plain TCP address."""
    address = server_address(text)
    if address.tls:
        raise argparse.ArgumentTypeError(f"a TLS address is for the command line: aton connect {text}")
    return address.host, address.port


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aton", description="Aton in the terminal. With no command: "
                                     "play a bot at once, on a server inside this process.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {RELEASE}")
    name_help = "your name at the table (default: your login name)"
    parser.add_argument("--name", default=None, help=name_help)
    parser.add_argument("--level", choices=BOT_LEVELS, default="normal", help="the bot's strength (default normal)")
    parser.add_argument("--clock", choices=CLOCKS, default="relaxed", help="time per decision (default relaxed)")
    parser.add_argument("--game", choices=GAMES, default=DEFAULT_GAME, help="the game to play (default aton)")
    commands = parser.add_subparsers(dest="command")
    cp = commands.add_parser("connect", help="the lobby of a remote server; with no address, the servers "
                                             "found on your network (aton host), one to choose")
    cp.add_argument("address", type=server_address, metavar="[tls://]HOST[:PORT]", nargs="?", default=None,
                    help="the server; tls:// for a server on the internet (its TLS port, by default 2867)")
    cp.add_argument("--tls-ca", type=Path, default=None, metavar="FILE",
                    help="with tls://: trust this certificate authority or server certificate (PEM) instead of "
                         "the system's authorities, e.g. for a server with a self-signed certificate")
    cp.add_argument("--via", type=ip_address, default=None, metavar="ADDRESS",
                    help="with no address: look for servers only on the network of this address of "
                         "this machine (default: every network)")
    cp.add_argument("--name", default=argparse.SUPPRESS, help=name_help)
    hp = commands.add_parser("host", help="serve a game on your LAN and wait for the other player")
    hp.add_argument("--port", type=port_number, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    hp.add_argument("--bind", type=ip_address, default=EVERY_ADDRESS, metavar="ADDRESS",
                    help=f"the address to serve on (default {EVERY_ADDRESS}: every network of this machine); "
                         "127.0.0.1 serves this machine only, e.g. for an SSH tunnel")
    hp.add_argument("--name", default=argparse.SUPPRESS, help=name_help)
    hp.add_argument("--clock", choices=CLOCKS, default="normal", help="time per decision (default normal)")
    hp.add_argument("--game", choices=GAMES, default=argparse.SUPPRESS, help="the game of the table (default aton)")
    commands.add_parser("learn", help="the lesson: a guided first game against the bot, every rule in five "
                                      "rounds (no clock; Esc leaves it)")
    rp = commands.add_parser("replay", help="step through an aton-record/1 or atlas-zeus-record/1 file "
                                            "(in a terminal), or print its final position")
    rp.add_argument("file")
    rp.add_argument("--final", action="store_true",
                    help="print the final position as text (the default when the output is not a terminal)")
    rp.add_argument("--json", action="store_true", help="print the final position as one JSON object")
    rp.add_argument("--as", dest="perspective", choices=[p.value for p in Perspective], default="red",
                    help="whose knowledge the viewer shows at first (default red; v switches; "
                         "everything: a finished game only)")
    ap = commands.add_parser("analyse", aliases=["analyze"],
                             help="the search bot's verdict on every decision of a game, as a table or JSON")
    ap.add_argument("file", help="an aton-record/1 file, e.g. a saved game")
    budget = ap.add_mutually_exclusive_group()
    budget.add_argument("--iterations", type=positive(int), default=None, metavar="N",
                        help=f"play-outs per decision (default {DEFAULT_ITERATIONS:,}): the same result on any machine")
    budget.add_argument("--budget-ms", type=positive(float), default=None, metavar="MS",
                        help="milliseconds per decision instead: depends on the machine, not reproducible")
    ap.add_argument("--seed", type=int, default=0, help="the search's seed (default 0)")
    ap.add_argument("--json", action="store_true", help="print one JSON object (docs/analysis.md)")
    ap.add_argument("--no-save", dest="save", action="store_false",
                    help=f"do not keep the analysis beside the record (game.json: game{SIDE_SUFFIX})")
    return parser


def positive(kind: Callable[[str], float]) -> Callable[[str], float]:
    """An argparse type: a number of ``kind`` above 0."""
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"{text} is not above 0")
        return value

    return parse


def vouched(environ: Mapping[str, str]) -> GatewayProof | None:
    """The gateway's assertion of the player and its session key, if it handed them over
    (``protocol.handoff``)."""
    assertion, session_key = environ.get(ASSERTION_VARIABLE), environ.get(SESSION_KEY_VARIABLE)
    if not assertion or not session_key:
        return None
    try:
        return gateway_assertions.proof(base64.urlsafe_b64decode(assertion.encode("ascii")), session_key)
    except ValueError:  # (BadAssertion too) not what a gateway hands over: no proof
        return None


def play(args: argparse.Namespace) -> int:
    from .local_server import CannotServe

    try:
        # (this opens the database of the server it runs, if it runs one)
        app = build_app(args, os.environ)
    except CannotServe as exc:
        print(f"aton: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # (--tls-ca)
        print(f"aton: {exc}", file=sys.stderr)
        return 2
    try:
        app.run()
    except OSError as exc:
        print(f"aton: {exc}", file=sys.stderr)
        return 1
    return app.return_code or 0


def build_app(args: argparse.Namespace, environ: Mapping[str, str]) -> AtonApp:
    """The app of a play command, not yet running.  ``environ`` hands over an SSH session
    (``protocol.handoff``): the process's own for ``aton``, a session's own in an app host
    (``aton_tui.app_host``), where many sessions share one process.  Raises ``CannotServe``
    when the server it should run cannot listen, ValueError when ``--tls-ca`` cannot be used."""
    from protocol.saved_sessions import SavedSessions, sessions_path

    from .app import AtonApp, Launch
    from .local_server import data_dir, lan_address, log_to_file
    from .settings import Settings, settings_path

    name = (args.name or login_name())[:24]
    if args.command == "connect" and args.address is None:
        launch = Launch(name=name, discover=True, discover_via=args.via)
    elif args.command == "connect":
        address = args.address
        launch = Launch(name=name, host=address.host, port=address.port,
                        tls=tls_for(address, None if args.tls_ca is None else str(args.tls_ca)),
                        resume=environ.get(RESUME_VARIABLE) or None,
                        hosted=bool(environ.get(HOSTED_VARIABLE)), proof=vouched(environ))
    elif args.command == "learn":
        launch = Launch(name=name, start="learn")
    elif args.command == "host":
        shown = lan_address() if ipaddress.ip_address(args.bind).is_unspecified else args.bind
        launch = Launch(name=name, port=args.port, serve=args.bind, start="table", clock=args.clock,
                        lan_address=shown, game=args.game)
    else:
        launch = Launch(name=name, serve="127.0.0.1", start="bot", level=args.level, clock=args.clock,
                        game=args.game)
    if args.name is not None and not launch.hosted:  # (a hosted player's name is the gateway's to give)
        launch = dataclasses.replace(launch, name_asked=True)
    if launch.serve:
        log_to_file(data_dir() / "server.log")
    if launch.hosted:  # a hosted client (SSH) is handed its session, its proof and where it keeps its games
        kept = environ.get(KEPT_GAMES_VARIABLE)
        return AtonApp(launch, Settings(), kept_games=Path(kept) if kept else None)
    return AtonApp(launch, Settings.load(settings_path()), sessions=SavedSessions(sessions_path()),
                   keys=keys_directory(data_dir()), kept_games=data_dir())


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "replay":
            final = args.final or not sys.stdout.isatty()
            return replay_command(args.file, args.json, final, args.perspective)
        if args.command in ("analyse", "analyze"):
            iterations = None if args.budget_ms else args.iterations or DEFAULT_ITERATIONS
            return analyse_command(args.file, AnalysisSettings(iterations, args.budget_ms, args.seed),
                                   args.json, args.save)
    except BrokenPipeError:  # the reader stopped early (`aton replay … | head`): it had what it wanted
        quiet_stdout()
        return 0
    except KeyboardInterrupt:  # Ctrl-C during an analysis: nothing half-done is printed or saved
        print(f"\naton {args.command}: interrupted", file=sys.stderr)
        return 130
    return play(args)


def quiet_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush at exit, into a
    pipe nobody reads any more, raises nothing (the idiom of Python's ``signal`` documentation)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
