"""``aton-bot``: run bots.

    aton-bot tournament A B --games N [--game aton|atlas-zeus] [--seed S] [--budget-ms MS] [--cpu-time]
                            [--jobs J] [--json] [--sprt ELO0,ELO1 [--alpha A] [--beta B]] [--load MODULE_OR_FILE]
    aton-bot list

A and B are strategy names (``random``, ``greedy``, ``mcts``), level names
(``easy``, ``normal``, ``hard``) or specs with options, e.g.
``mcts:budget_ms=100`` or ``mcts:iterations=400``.  With ``--game atlas-zeus`` they are
Atlas & Zeus strategies (``random``, ``greedy``, e.g. ``greedy:samples=4``).  ``--budget-ms`` sets the
per-decision time budget of every strategy that has one; ``--cpu-time`` counts those budgets
(and the time per decision reported) in CPU time of the process, not wall time, so that a
loaded machine does not shorten the searches.

    aton-bot --server HOST:PORT --strategy NAME [--game aton|atlas-zeus] [--games N] [--name NAME]
             [--budget-ms MS] [--table T | --invite CODE] [--clock C] [--state DIR | --no-state]

The last form plays on a server: a quick match (or the given table) for each game,
reconnecting by itself after a dropped connection (and waiting for a server that is not up
yet) for as long as a seat is kept, one result line per game (``--games 0``: game after game
until stopped).  It keeps its session in a
directory of its own, so that a bot started again takes back its unfinished game.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import json
import logging
import os
import sys
from pathlib import Path

import platformdirs

from protocol import RELEASE
from protocol.account_keys import AccountKey, key_file_name, keys_directory
from protocol.client import ServerError
from protocol.messages import CLOCKS
from protocol.transport import Endpoint, TLSFailed, parse_endpoint, tls_for

from .atlas_zeus import STRATEGY_NAMES, strategy_named
from .atlas_zeus.strategy import Strategy as ZeusStrategy
from .match_statistics import Sprt, format_elo
from .network import NetworkBot
from .strategy import LEVELS, STRATEGIES, Strategy, accepts_option, available, make_strategy, parse_spec
from .tournament import GAMES, run_tournament


def _with_budget(spec: str, budget_ms: int | None, game: str = "aton") -> dict:
    name, _ = parse_spec(spec)
    if budget_ms is not None and game == "aton" and accepts_option(name, "budget_ms"):
        return {"budget_ms": budget_ms}
    return {}


def load_modules(specs: list[str]) -> None:
    """Import bot modules so that their ``@register``-ed strategies can be named:
    a dotted module name (``mybots.hoarder``) or a path to a ``.py`` file."""
    for spec in specs:
        if spec.endswith(".py") or os.sep in spec:
            path = os.path.abspath(spec)
            name = os.path.splitext(os.path.basename(path))[0]
            module_spec = importlib.util.spec_from_file_location(name, path)
            if module_spec is None or module_spec.loader is None:
                raise ValueError(f"cannot load {spec!r}")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module
            module_spec.loader.exec_module(module)
        else:
            importlib.import_module(spec)


def _sprt_bounds(text: str) -> tuple[float, float]:
    try:
        elo0, elo1 = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected ELO0,ELO1 such as 0,50, got {text!r}") from None
    return elo0, elo1


def _tournament(args: argparse.Namespace) -> int:
    if args.games < 2 or args.games % 2:
        print("aton-bot: --games must be even: games are played in pairs on the same decks", file=sys.stderr)
        return 2
    try:
        sprt = None if args.sprt is None else Sprt(args.sprt[0], args.sprt[1], alpha=args.alpha, beta=args.beta)
        load_modules(args.load)
        a_extra = _with_budget(args.a, args.budget_ms, args.game)
        b_extra = _with_budget(args.b, args.budget_ms, args.game)

        def progress(done: int, result) -> None:
            if args.progress:
                print(f"\r{done}/{args.games}  A {result.a_wins}  B {result.b_wins}  "
                      f"draws {result.draws}", end="", file=sys.stderr, flush=True)

        result = run_tournament(
            args.a, args.b, args.games, seed=args.seed,
            a_options=a_extra, b_options=b_extra, jobs=args.jobs, progress=progress, sprt=sprt,
            cpu_time=args.cpu_time, game=args.game,
        )
    except (ValueError, TypeError, ImportError, OSError) as exc:
        print(f"aton-bot: {exc}", file=sys.stderr)
        return 2
    if args.progress:
        print(file=sys.stderr)
    summary = result.summary()
    if args.json:
        print(json.dumps(summary))
        return 0
    low, high = summary["a_win_rate_ci95"]
    statistics = result.statistics
    score_low, score_high = statistics.score_interval()
    elo_low, elo_high = statistics.elo_interval()
    game = "" if args.game == "aton" else f" of {args.game}"
    print(f"{args.a} (A) vs {args.b} (B): {result.games} games{game}, seed {args.seed}")
    print(f"  A wins {result.a_wins}, B wins {result.b_wins}, draws {result.draws}")
    print(f"  A win rate {100 * summary['a_win_rate']:.1f}%  "
          f"(95% CI {100 * low:.1f}%–{100 * high:.1f}%)")
    print(f"  pairs on the same decks ({statistics.pairs}) where A scored 0/½/1/1½/2: "
          + " ".join(map(str, statistics.pentanomial)))
    print(f"  A's score {100 * statistics.score:.1f}% (95% CI {100 * score_low:.1f}%–{100 * score_high:.1f}%), "
          f"Elo {format_elo(statistics.elo)} (95% CI {format_elo(elo_low)} … {format_elo(elo_high)})")
    if "sprt" in summary:
        test = summary["sprt"]
        verdicts = {"H0": f"H0 accepted: A is not {test['elo1']:+g} Elo stronger",
                    "H1": f"H1 accepted: A is at least {test['elo1']:+g} Elo stronger",
                    "continue": f"undecided after {result.games} games"}
        print(f"  SPRT Elo {test['elo0']:+g} against {test['elo1']:+g} (α {test['alpha']:g}, β {test['beta']:g}): "
              f"LLR {test['llr']:.2f} in [{test['bounds'][0]:.2f}, {test['bounds'][1]:.2f}] — "
              f"{verdicts[test['verdict']]}")
    print(f"  {summary['avg_rounds']} rounds per game; endings: "
          + ", ".join(f"{k} {v}" for k, v in summary["reasons"].items()))
    print(f"  {summary['decisions_per_s']} decisions/s  "
          f"(A {summary['a_ms_per_decision']} ms, B {summary['b_ms_per_decision']} ms per decision"
          f"{' of CPU time' if args.cpu_time else ''}; {summary['wall_s']} s)")
    return 0


def _list(args: argparse.Namespace) -> int:
    try:
        load_modules(args.load)
    except (ValueError, ImportError, OSError) as exc:
        print(f"aton-bot: {exc}", file=sys.stderr)
        return 2
    available()  # load the built-ins
    print("strategies:")
    for name in sorted(STRATEGIES):
        doc = (STRATEGIES[name].__doc__ or "").strip().splitlines()
        print(f"  {name:10} {doc[0] if doc else ''}")
    print("levels (the server's \"play a bot\"):")
    for name, (base, options) in LEVELS.items():
        shown = ", ".join(f"{k}={v}" for k, v in options.items())
        print(f"  {name:10} {base}{' ' + shown if shown else ''}")
    print("Atlas & Zeus strategies (--game atlas-zeus):")
    for name in STRATEGY_NAMES:
        print(f"  {name}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aton-bot", description="Aton bots: tournaments in-process (and play over the network).")
    parser.add_argument("--version", action="version", version=f"%(prog)s {RELEASE}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    t = sub.add_parser("tournament", help="play strategy A against B in-process")
    t.add_argument("a", metavar="A", help="strategy, level or spec such as mcts:budget_ms=100")
    t.add_argument("b", metavar="B")
    t.add_argument("--games", type=int, default=100,
                   help="number of games, even (default 100); with --sprt the most to play")
    t.add_argument("--game", choices=GAMES, default="aton", help="the game to play (default aton)")
    t.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    t.add_argument("--budget-ms", type=int, default=None,
                   help="per-decision time budget for strategies that search")
    t.add_argument("--cpu-time", action="store_true",
                   help="count budgets and time per decision in CPU time of the process (for a shared machine)")
    t.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    t.add_argument("--sprt", type=_sprt_bounds, default=None, metavar="ELO0,ELO1",
                   help="stop once a sequential test decides between A being ELO0 or ELO1 stronger")
    t.add_argument("--alpha", type=float, default=0.05, help="the SPRT's false-positive rate (default 0.05)")
    t.add_argument("--beta", type=float, default=0.05, help="the SPRT's false-negative rate (default 0.05)")
    t.add_argument("--json", action="store_true", help="print one JSON object")
    t.add_argument("--progress", action="store_true", help="show progress on stderr")
    t.add_argument("--load", action="append", default=[], metavar="MODULE",
                   help="import a module or .py file that registers strategies (repeatable)")
    t.set_defaults(func=_tournament)

    ls = sub.add_parser("list", help="list the strategies and levels")
    ls.add_argument("--load", action="append", default=[], metavar="MODULE",
                    help="import a module or .py file that registers strategies (repeatable)")
    ls.set_defaults(func=_list)
    add_network_options(parser)
    return parser


def _address(text: str) -> Endpoint:
    try:
        return parse_endpoint(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_network_options(parser: argparse.ArgumentParser) -> None:
    net = parser.add_argument_group("playing on a server (aton-bot --server HOST:PORT --strategy NAME)")
    net.add_argument("--server", type=_address, metavar="[tls://]HOST:PORT",
                     help="play on this aton-server; tls:// for its TLS port (over the internet)")
    net.add_argument("--tls-ca", type=Path, default=None, metavar="FILE",
                     help="with tls://: trust this certificate authority or server certificate (PEM) instead of "
                          "the system's authorities, e.g. for a server with a self-signed certificate")
    net.add_argument("--strategy", default="greedy", help="strategy, level or spec (default greedy)")
    net.add_argument("--game", choices=GAMES, default="aton",
                     help="the game to play: quick matches of it, with its strategies (default aton)")
    net.add_argument("--games", type=int, default=1, help="games to play (default 1; 0: until stopped)")
    net.add_argument("--name", default=None, help="display name (default: the strategy's name + '-bot')")
    net.add_argument("--budget-ms", type=int, default=None, help="per-decision budget of a searching strategy")
    net.add_argument("--clock", choices=CLOCKS, default="normal", help="quick-match clock (default normal)")
    where = net.add_mutually_exclusive_group()
    where.add_argument("--table", type=int, default=None, help="join this open table for the first game")
    where.add_argument("--invite", default=None, help="join the private table with this invite code")
    net.add_argument("--seed", type=int, default=None, help="seed of the strategy's own randomness")
    net.add_argument("--key", type=Path, default=None, metavar="FILE",
                     help="the bot's account key (made there on first use, OpenSSH format; default: one per bot "
                     "name and server in the aton data directory)")
    net.add_argument("--guest", action="store_true", help="play as a guest, with no account key")
    kept = net.add_mutually_exclusive_group()
    kept.add_argument("--state", type=Path, default=None, metavar="DIR",
                      help="keep the session here, so that the bot started again takes back its unfinished game "
                      "(default: one directory per bot name and server in the aton data directory)")
    kept.add_argument("--no-state", action="store_true",
                      help="keep the session in memory only: a bot started again begins a new session")
    net.add_argument("--load", action="append", default=[], metavar="MODULE",
                     help="import a module or .py file that registers strategies (repeatable)")


def bots_directory(data_dir: Path) -> Path:
    """Where ``aton-bot`` keeps each bot's session by default: a directory per bot name and server."""
    return data_dir / "bots"


def _network(args: argparse.Namespace) -> int:
    """Play ``--games`` games on a server; one line per finished game; exit 0."""
    server = args.server
    host, port = server.host, server.port
    try:
        tls = tls_for(server, None if args.tls_ca is None else str(args.tls_ca))
    except ValueError as exc:
        print(f"aton-bot: {exc}", file=sys.stderr)
        return 2
    try:
        load_modules(args.load)
        name, options = parse_spec(args.strategy)
        strategy: Strategy | ZeusStrategy
        if args.game == "atlas-zeus":
            strategy = strategy_named(name, args.seed, **options)
        else:
            strategy = make_strategy(name, seed=args.seed, **{**options, **_with_budget(args.strategy, args.budget_ms)})
    except (ValueError, TypeError, ImportError, OSError) as exc:
        print(f"aton-bot: {exc}", file=sys.stderr)
        return 2
    bot_name = args.name or f"{name}-bot"
    data_dir = Path(platformdirs.user_data_dir("aton"))
    who = f"{'guest ' if args.guest else ''}bot {bot_name} at {host}:{port}"  # (a guest's session is not the key's)
    try:
        proof = None if args.guest else AccountKey.load_or_create(
            args.key or keys_directory(data_dir) / key_file_name(who))
    except (OSError, ValueError) as exc:
        print(f"aton-bot: the account key: {exc}", file=sys.stderr)
        return 2
    state = None if args.no_state else args.state or bots_directory(data_dir) / key_file_name(who)
    # what the bot does besides its result lines (a game taken back, its decks checked, the server
    # unreachable) on stderr, for the operator
    logging.basicConfig(level=logging.INFO, format="%(asctime)s aton-bot: %(message)s", datefmt="%H:%M:%S")
    bot = NetworkBot(strategy, host, port, name=bot_name, clock=args.clock,
                     table=args.table, invite=args.invite,
                     on_result=lambda result: print(result.line(), flush=True), proof=proof, tls=tls, state=state)
    try:
        asyncio.run(bot.play(args.games or None))
    except TLSFailed as exc:
        print(f"aton-bot: {exc}", file=sys.stderr)
        return 1
    except (ConnectionError, OSError) as exc:  # (SessionTaken too: another connection took the session)
        print(f"aton-bot: {server}: {exc}", file=sys.stderr)
        return 1
    except ServerError as exc:
        print(f"aton-bot: the server refused: {exc.error.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None and args.server is not None:
        if args.games < 0:
            parser.error("--games must be 1 or more, or 0 to play until stopped")
        return _network(args)
    if args.command is None:
        parser.print_help()
        return 2
    if getattr(args, "games", 1) < 1:
        parser.error("--games must be at least 1")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
