"""``aton-server``: run the arbiter, or export its games.

    aton-server [--host H] [--port P] [--db PATH] [--log-level LEVEL]
    aton-server export --db PATH --out DIR
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from pathlib import Path

import platformdirs

from .app import ArbiterServer
from .config import ServerConfig
from .export import export_games

DEFAULT_PORT = 2866


def default_db_path() -> Path:
    return Path(platformdirs.user_data_dir("aton")) / "aton.db"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aton-server", description="The Aton game server.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 for a LAN)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    parser.add_argument("--db", type=Path, default=None, help="SQLite database (default: in the user data dir)")
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    commands = parser.add_subparsers(dest="command")
    export = commands.add_parser("export", help="write every stored game as an aton-record/1 file")
    export.add_argument("--db", type=Path, required=True, dest="export_db")
    export.add_argument("--out", type=Path, required=True)
    return parser


async def run_server(config: ServerConfig) -> None:
    server = ArbiterServer(config)
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(f"listening on {config.host}:{server.port}", flush=True)
    await server.serve_until(stop)
    logging.getLogger("server.cli").info("stopped cleanly")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "export":
        paths = export_games(args.export_db, args.out)
        print(f"exported {len(paths)} game(s) to {args.out}")
        return 0
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s")
    db = args.db or default_db_path()
    config = ServerConfig(host=args.host, port=args.port, db_path=str(db))
    try:
        asyncio.run(run_server(config))
    except OSError as exc:
        print(f"aton-server: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
