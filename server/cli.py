"""``aton-server``: run the arbiter, or export its games.

    aton-server [--host H] [--port P] [--db PATH] [--log-level LEVEL] [--log-format text|json]
                [--event-loop uvloop|asyncio]
                [--metrics-port P [--metrics-host H]] [game server limits] [--ssh-port P [SSH options]]
                [--tls-cert FILE --tls-key FILE [--tls-port P] [--tls-host H]]
                [--web-port P [web options] | --web-public-url URL]
    aton-server export --db PATH --out DIR
    aton-server gateway --arbiter HOST:PORT|tls://HOST:PORT [--tls-ca FILE] [--metrics-port P [--metrics-host H]]
                        [--ssh-port P [SSH options]] [--web-port P [web options]]
                 an SSH or web gateway apart from the arbiter (docs/hosting.md, "Gateways apart from the arbiter")
    aton-server admin ACTION …   bans, chat mutes, logins and reports (server.admin)
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import ipaddress
import logging
import signal
import sys
from pathlib import Path
from typing import Any

import platformdirs

from protocol import RELEASE
from protocol.transport import DEFAULT_PORT, DEFAULT_TLS_PORT, Endpoint, parse_endpoint, tls_for

from . import event_loop
from .admin import add_admin_parser, run_admin
from .app import ArbiterServer, TLSUnavailable
from .collector import settle_for_serving
from .config import (
    SESSION_WAYS,
    GatewaySettings,
    Limits,
    MetricsSettings,
    ServerConfig,
    SSHConfig,
    SSHLimits,
    TLSSettings,
    WebConfig,
    WebLimits,
)
from .export import export_games
from .gateway_keys import GATEWAY_KEY_FILE, BadTrustFile, GatewaySigner, load_or_create_gateway_key
from .kept_games import kept_games_in
from .logging_setup import LOG_FORMATS, LOG_LEVELS, configure
from .metrics import ServerMetrics
from .ops_http import OpsEndpoint
from .store import NewerSchema, StoreFailed
from .web_logins import WebLogins

LIMIT_DEFAULTS = Limits()
TLS_DEFAULTS = TLSSettings(cert_file="", key_file="")
SSH_DEFAULTS = SSHLimits()
WEB_DEFAULTS = WebLimits()


def default_db_path() -> Path:
    return Path(platformdirs.user_data_dir("aton")) / "aton.db"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aton-server", description="The Aton game server.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 for a LAN)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    parser.add_argument("--db", type=Path, default=None, help="SQLite database (default: in the user data dir)")
    parser.add_argument("--log-level", default="info", choices=LOG_LEVELS,
                        help="how much the log on standard error says: debug (also the libraries' detail, "
                             "asyncssh's included), info (default: logins, games started and ended, "
                             "refusals), warning or error (problems only)")
    parser.add_argument("--log-format", default="text", choices=LOG_FORMATS,
                        help="text lines (default), or one JSON object per line for a log collector")
    loops = event_loop.event_loops()
    parser.add_argument("--event-loop", default=loops[0], choices=loops,
                        help=f"the event loop to serve on (default {loops[0]}: uvloop, where it is installed, "
                             "spends less CPU a move than asyncio's own; docs/hosting.md)")
    add_metrics_arguments(parser)
    parser.add_argument("--version", action="version", version=f"%(prog)s {RELEASE}")
    add_limit_arguments(parser)
    add_tls_arguments(parser)
    add_ssh_arguments(parser)
    add_web_arguments(parser)
    parser.add_argument("--trusted-gateways", type=Path, default=None, metavar="FILE",
                        help="trust the SSH gateways apart from this server whose keys FILE lists, one "
                             "ssh-ed25519 line each, as authorized_keys does (aton-server gateway prints its key)")
    parser.add_argument("--gateway-address", action="append", default=[], metavar="ADDRESS",
                        help="an address gateways apart from this server connect from: its connections and games "
                             "count toward the totals only, as the gateway limits its players by their addresses "
                             "(repeat for each gateway machine)")
    commands = parser.add_subparsers(dest="command")
    export = commands.add_parser("export", help="write every stored game as an aton-record/1 file")
    export.add_argument("--db", type=Path, required=True, dest="export_db", metavar="PATH",
                        help="the server's database (aton-server --db; by default aton.db in the user data dir)")
    export.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="the directory to write game-<id>.json into, one file per game (made if missing)")
    add_admin_parser(commands, default_db_path())
    add_gateway_parser(commands)
    return parser


def add_metrics_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--metrics-port", type=int, default=None, metavar="P",
                        help="serve Prometheus metrics on http://HOST:P/metrics and a health check on "
                             "/healthz (default: off; 0: any free port)")
    parser.add_argument("--metrics-host", default=MetricsSettings.host, metavar="H",
                        help=f"address for the metrics (default {MetricsSettings.host})")


def add_gateway_parser(commands: Any) -> None:
    gateway = commands.add_parser(
        "gateway", help="an SSH or web gateway apart from the arbiter, in a process (or on a machine) of its own",
        description="Serve the game over SSH (--ssh-port), in a browser (--web-port) or both for the arbiter at "
                    "--arbiter. The gateway keeps no database: its players' accounts and games live with the "
                    "arbiter, which must trust its gateway key (aton-server --trusted-gateways; docs/hosting.md, "
                    "'Gateways apart from the arbiter').")
    gateway.add_argument("--arbiter", required=True, metavar="ADDRESS",
                         help="the arbiter's game protocol: HOST:PORT, or tls://HOST[:PORT] for TLS")
    gateway.add_argument("--tls-ca", type=Path, default=None, metavar="FILE",
                         help="with a tls:// arbiter: trust the authorities (or the certificate) of FILE "
                              "instead of the system's")
    gateway.add_argument("--data-dir", type=Path, default=None, metavar="DIR",
                         help="where the gateway keeps its keys: its gateway key (gateway_ed25519_key, and .pub) "
                              "and its SSH host key (default: the user data directory's aton-gateway)")
    gateway.add_argument("--assertion-seconds", type=float, default=GatewaySettings.assertion_seconds,
                         metavar="SECONDS", help="how long the gateway's word for a player's login holds "
                         f"(default {GatewaySettings.assertion_seconds:g})")
    add_metrics_arguments(gateway)
    add_ssh_arguments(gateway)
    add_web_arguments(gateway)


#: The game server limits that have a flag: (Limits field, what it bounds); the flag is the
#: field's name with dashes (--max-connections).
LIMIT_FLAGS = (
    ("max_connections", "protocol connections at once"),
    ("max_connections_per_address", "protocol connections at once from one address"),
    ("max_games_per_session", "games one session may have going at once"),
    ("max_games_per_address", "games going at once from one address"),
)


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    limits = parser.add_argument_group("game server limits (docs/hosting.md, 'Game server limits')")
    for setting, what in LIMIT_FLAGS:
        default = getattr(LIMIT_DEFAULTS, setting)
        limits.add_argument("--" + setting.replace("_", "-"), type=int, default=default, metavar="N",
                            help=f"{what} (default {default})")


def limits(args: argparse.Namespace) -> Limits:
    """The game server's limits; with the SSH or the web gateway, its own address (from which all
    its players connect) counts toward the totals only: the gateway limits them per address."""
    exempt: tuple[str, ...] = ()
    if args.ssh_port is not None or args.web_port is not None:
        from .ssh.gateway import local_address

        exempt = (local_address(args.host),)
    exempt += tuple(args.gateway_address)
    return Limits(**{setting: getattr(args, setting) for setting, _ in LIMIT_FLAGS}, exempt_addresses=exempt)


def add_tls_arguments(parser: argparse.ArgumentParser) -> None:
    tls = parser.add_argument_group("TLS (docs/hosting.md, 'TLS')")
    tls.add_argument("--tls-cert", type=Path, default=None, metavar="FILE",
                     help="also serve the game protocol over TLS, with this certificate chain (PEM)")
    tls.add_argument("--tls-key", type=Path, default=None, metavar="FILE", help="the certificate's private key (PEM)")
    tls.add_argument("--tls-port", type=int, default=DEFAULT_TLS_PORT, metavar="P",
                     help=f"the TLS port (default {DEFAULT_TLS_PORT}; 0: any free port)")
    tls.add_argument("--tls-host", default=None, metavar="H",
                     help="address for TLS (default: --host); e.g. --host 127.0.0.1 --tls-host 0.0.0.0 "
                          "serves plain TCP to this machine only and TLS to everyone")
    tls.add_argument("--tls-handshake-timeout", type=float, default=TLS_DEFAULTS.handshake_seconds,
                     metavar="SECONDS", help="a TLS handshake not done within this time is closed "
                     f"(default {TLS_DEFAULTS.handshake_seconds:g})")


def tls_settings(args: argparse.Namespace) -> TLSSettings | None:
    """The TLS listener asked for (None: none); ValueError if half of it is."""
    if args.tls_cert is None and args.tls_key is None:
        return None
    if args.tls_cert is None or args.tls_key is None:
        raise ValueError("TLS needs both --tls-cert and --tls-key")
    return TLSSettings(cert_file=str(args.tls_cert), key_file=str(args.tls_key), host=args.tls_host,
                       port=args.tls_port, handshake_seconds=args.tls_handshake_timeout)


def add_ssh_arguments(parser: argparse.ArgumentParser) -> None:
    d = SSH_DEFAULTS
    ssh = parser.add_argument_group("SSH gateway (docs/hosting.md)")
    ssh.add_argument("--ssh-port", type=int, default=None,
                     help="also serve the game over SSH on this port (e.g. 2222; 0: any free port)")
    ssh.add_argument("--ssh-host", default=None,
                     help=f"address for SSH (default: --host; a gateway's: {SSHConfig.host})")
    ssh.add_argument("--ssh-host-key", type=Path, default=None,
                     help="the SSH host key (default: ssh_host_ed25519_key beside the database, "
                          "created on first start)")
    ssh.add_argument("--no-guests", action="store_true",
                     help="admit players with a key only: an SSH key, or a native client's account key (no guests)")
    ssh.add_argument("--ssh-sessions", choices=SESSION_WAYS, default=SSHConfig.sessions,
                     help="how each SSH session's client runs: inprocess (one of many apps in a few app host "
                          "processes) or fork (a process of its own, forked from a warm one; docs/hosting.md) "
                          f"(default {SSHConfig.sessions})")
    ssh.add_argument("--ssh-app-hosts", type=int, default=SSHConfig.app_hosts, metavar="N",
                     help=f"app host processes with --ssh-sessions inprocess (default {SSHConfig.app_hosts})")
    ssh.add_argument("--ssh-no-fork-server", action="store_true",
                     help="start each SSH session's client as a new interpreter, not forked from a warm one")
    ssh.add_argument("--ssh-proxy-from", type=proxy_networks, default="", metavar="NETWORKS",
                     help="the TCP load balancers in front, as addresses or networks separated by commas "
                          "(e.g. 10.0.0.5,10.0.1.0/24): their connections begin with a PROXY protocol header "
                          "(HAProxy's send-proxy-v2) that names the player's address, which the limits and "
                          "bans then see (default: none)")
    ssh.add_argument("--ssh-max-sessions", type=int, default=d.max_sessions, metavar="N",
                     help=f"SSH connections at once (default {d.max_sessions})")
    ssh.add_argument("--ssh-max-per-address", type=int, default=d.max_per_address, metavar="N",
                     help=f"SSH connections at once from one address (default {d.max_per_address})")
    ssh.add_argument("--ssh-max-unauthenticated", type=int, default=d.max_unauthenticated, metavar="N",
                     help=f"SSH connections still logging in (default {d.max_unauthenticated})")
    ssh.add_argument("--ssh-max-unauthenticated-per-address", type=int, default=d.max_unauthenticated_per_address,
                     metavar="N", help="SSH connections still logging in from one address "
                     f"(default {d.max_unauthenticated_per_address})")
    ssh.add_argument("--ssh-reserved-logins", type=int, default=d.reserved_logins, metavar="N",
                     help="logins in progress kept for addresses that have none in progress "
                     f"(default {d.reserved_logins})")
    ssh.add_argument("--ssh-banner-timeout", type=float, default=d.banner_timeout, metavar="SECONDS",
                     help=f"time to send the SSH version line (default {d.banner_timeout:g})")
    ssh.add_argument("--ssh-login-timeout", type=float, default=d.login_timeout, metavar="SECONDS",
                     help=f"time to log in and start a session (default {d.login_timeout:g})")
    ssh.add_argument("--ssh-idle-timeout", type=float, default=d.idle_timeout, metavar="SECONDS",
                     help=f"a session without a key press for this long is closed (default {d.idle_timeout:g})")
    ssh.add_argument("--ssh-input-rate", type=int, default=d.input_rate, metavar="BYTES",
                     help=f"bytes a second one client may type, bursts up to 8x (default {d.input_rate})")


def ssh_config(args: argparse.Namespace, data_dir: Path) -> SSHConfig | None:
    if args.ssh_port is None:
        return None
    limits = SSHLimits(max_sessions=args.ssh_max_sessions, max_per_address=args.ssh_max_per_address,
                       max_unauthenticated=args.ssh_max_unauthenticated,
                       max_unauthenticated_per_address=args.ssh_max_unauthenticated_per_address,
                       reserved_logins=args.ssh_reserved_logins, banner_timeout=args.ssh_banner_timeout,
                       login_timeout=args.ssh_login_timeout, idle_timeout=args.ssh_idle_timeout,
                       input_rate=args.ssh_input_rate, input_burst=8 * args.ssh_input_rate)
    return SSHConfig(host=args.ssh_host or getattr(args, "host", SSHConfig.host), port=args.ssh_port,
                     host_key=str(args.ssh_host_key) if args.ssh_host_key else None,
                     data_dir=str(data_dir), guests=not args.no_guests,
                     sessions=args.ssh_sessions, app_hosts=max(1, args.ssh_app_hosts),
                     fork_server=not args.ssh_no_fork_server, proxy_from=args.ssh_proxy_from,
                     limits=limits)


def proxy_networks(text: str) -> tuple[str, ...]:
    """``--ssh-proxy-from``'s networks; an argparse error naming one that is not an address or a network."""
    networks = tuple(part.strip() for part in text.split(",") if part.strip())
    for network in networks:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            example = "10.0.0.5, 10.0.1.0/24"
            raise argparse.ArgumentTypeError(f"{network!r} is not an address or a network ({example})") from None
    return networks


#: The web gateway's limits that have a flag: (WebLimits field, what it bounds); the flag is
#: --web- and the field's name with dashes (--web-max-sessions).
WEB_FLAGS = (
    ("max_sessions", "browser sessions at once"),
    ("max_per_address", "browser sessions at once from one address"),
    ("idle_timeout", "seconds without a key press or click before a session is closed"),
    ("input_rate", "bytes a second one browser may type, bursts up to 8x"),
    ("message_bytes", "the longest WebSocket message a browser may send"),
    ("request_line_bytes", "the longest HTTP request line or header"),
    ("login_code_seconds", "seconds a web sign-in code (ssh HOST web-login) is good for"),
)


def add_web_arguments(parser: argparse.ArgumentParser) -> None:
    web = parser.add_argument_group("web gateway: the client in a browser (docs/hosting.md)")
    web.add_argument("--web-port", type=int, default=None, metavar="P",
                     help="also serve the game in a browser on http://HOST:P/ (e.g. 8080; 0: any free port)")
    web.add_argument("--web-host", default=None, metavar="H",
                     help=f"address for the web gateway (default: --host; a gateway's: {WebConfig.host})")
    web.add_argument("--web-public-url", default=None, metavar="URL",
                     help="the address players open, as a reverse proxy with TLS serves it "
                          "(e.g. https://aton.example.org; default: http://HOST:P); without --web-port, "
                          "the page this server's web gateways apart serve, which its sign-in links point to")
    for setting, what in WEB_FLAGS:
        default = getattr(WEB_DEFAULTS, setting)
        web.add_argument("--web-" + setting.replace("_", "-"), type=type(default), default=default,
                         metavar="N", help=f"{what} (default {default:g})")


def web_limits(args: argparse.Namespace) -> WebLimits:
    settings = {setting: getattr(args, "web_" + setting) for setting, _ in WEB_FLAGS}
    return WebLimits(**settings, input_burst=8 * args.web_input_rate)


def web_config(args: argparse.Namespace) -> WebConfig | None:
    if args.web_port is None:
        return None
    return WebConfig(host=args.web_host or getattr(args, "host", WebConfig.host), port=args.web_port,
                     public_url=args.web_public_url, limits=web_limits(args))


def web_page_elsewhere(args: argparse.Namespace) -> WebLogins | None:
    """The arbiter's sign-in codes for a web page its web gateways apart from it serve
    (``--web-public-url`` without ``--web-port``); None when there is none."""
    if args.web_port is not None or args.web_public_url is None:
        return None
    return WebLogins(web_limits(args), args.web_public_url)


class ListenError(Exception):
    """The SSH gateway or the metrics endpoint could not listen on its address."""


async def run_server(config: ServerConfig, ssh: SSHConfig | None = None,
                     metrics: MetricsSettings | None = None, web: WebConfig | None = None,
                     web_elsewhere: WebLogins | None = None) -> None:
    """Serve the game (with the SSH and web gateways beside it when ``ssh``, ``web``) until SIGTERM
    or SIGINT; ``web_elsewhere``: the sign-in codes for a web page served by gateways apart."""
    for gateway, module in ((web, ".web"), (ssh, ".ssh")):
        if gateway is not None:  # imported now, to be frozen with the rest: it lives as long as the process
            importlib.import_module(module, __package__)
    settle_for_serving()  # before any game is resumed: nothing frozen may ever become garbage
    server = ArbiterServer(config)
    server.web_logins = web_elsewhere
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    watch_failure = asyncio.ensure_future(server.failed.wait())
    watch_failure.add_done_callback(lambda _: stop.set())
    print(f"listening on {config.host}:{server.port}", flush=True)
    if config.tls is not None:
        print(f"tls listening on {config.tls.host or config.host}:{server.tls_port}", flush=True)
    endpoint = None
    if metrics is not None and metrics.port is not None:
        endpoint = OpsEndpoint(server.metrics, server.health, metrics)
        try:
            await endpoint.start()
        except OSError as exc:
            await server.stop()
            raise ListenError(f"cannot listen on {metrics.host}:{metrics.port}: {exc.strerror or exc}") from exc
        print(f"metrics on http://{metrics.host}:{endpoint.port}/metrics", flush=True)
    try:
        await serve(server, stop, config, ssh, web)
    finally:
        if endpoint is not None:
            await endpoint.stop()
    watch_failure.cancel()
    if server.failed.is_set():
        raise StoreFailed("the database refused a write; see the log")
    logging.getLogger("server.cli").info("stopped cleanly")


async def serve(server: ArbiterServer, stop: asyncio.Event, config: ServerConfig, ssh: SSHConfig | None,
                web: WebConfig | None = None) -> None:
    """Serve until ``stop`` is set, with the web gateway (``web``) and the SSH gateway (``ssh``)
    beside the game server when they are asked for."""
    gateways: list[Any] = []
    try:
        if web is not None:
            from .web import WebGateway  # only a web server pays for aiohttp and textual-serve

            web_gateway = WebGateway(web, config.host, server.port, server.tokens, server.gateway_signer,
                                     config.server_name, moderation=server.moderation, metrics=server.metrics,
                                     kept_games=kept_games_in(server.data_dir))
            await _start_gateway(web_gateway, web.host, web.port, gateways)
            server.web_logins = web_gateway.logins  # (the client's Account screen asks the game server for codes)
            print(f"web on {web_gateway.public_url}/", flush=True)
        if ssh is not None:
            from .ssh import SSHGateway  # only an SSH server pays for asyncssh

            gateway = SSHGateway(ssh, config.host, server.port, config.db_path, server.tokens, server.gateway_signer,
                                 config.server_name, history=server.history, moderation=server.moderation,
                                 metrics=server.metrics, web_logins=server.web_logins)
            await _start_gateway(gateway, ssh.host, ssh.port, gateways)
            print(f"ssh listening on {ssh.host}:{gateway.port}", flush=True)
    except ListenError:
        for started in reversed(gateways):
            await started.stop()
        await server.stop()
        raise
    await stop.wait()
    for started in reversed(gateways):
        await started.stop()
    await server.stop()


async def _start_gateway(gateway: Any, host: str, port: int, started: list[Any]) -> None:
    """Start a gateway, or the metrics' endpoint (and count it among ``started``); ListenError when
    it cannot listen."""
    try:
        await gateway.start()
    except OSError as exc:
        raise ListenError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    started.append(gateway)


def run_gateway_command(args: argparse.Namespace) -> int:
    """``aton-server gateway``: check what it was given, then serve until SIGTERM or SIGINT."""
    try:
        arbiter = parse_endpoint(args.arbiter)
        tls_for(arbiter, None if args.tls_ca is None else str(args.tls_ca))  # a CA file that cannot be used stops here
    except ValueError as exc:
        print(f"aton-server gateway: {exc}", file=sys.stderr)
        return 2
    if args.ssh_port is None and args.web_port is None:
        print("aton-server gateway: --ssh-port or --web-port is required (e.g. 2222 or 8080; 0: any free port)",
              file=sys.stderr)
        return 2
    data_dir = args.data_dir or Path(platformdirs.user_data_dir("aton-gateway"))
    try:
        event_loop.run(run_gateway(ssh_config(args, data_dir), web_config(args), data_dir, arbiter,
                                   None if args.tls_ca is None else str(args.tls_ca),
                                   GatewaySettings(assertion_seconds=args.assertion_seconds),
                                   MetricsSettings(host=args.metrics_host, port=args.metrics_port)), args.event_loop)
    except ListenError as exc:
        print(f"aton-server gateway: {exc}", file=sys.stderr)
        return 1
    return 0


async def run_gateway(ssh: SSHConfig | None, web: WebConfig | None, data_dir: Path, arbiter: Endpoint,
                      tls_ca: str | None, settings: GatewaySettings,
                      metrics_settings: MetricsSettings | None = None) -> None:
    """Serve SSH, the web page or both for the arbiter at ``arbiter`` until SIGTERM or SIGINT: the
    gateway signs its players' assertions with its own key (made in ``data_dir`` on first start),
    which the arbiter must trust; its sessions' clients connect to the arbiter themselves. With a
    port in ``metrics_settings``, its own sessions, logins and refusals are served as metrics."""
    key = load_or_create_gateway_key(data_dir / GATEWAY_KEY_FILE)  # (``data_dir`` made 0700 with it)
    signer = GatewaySigner(key, settings.assertion_seconds)
    metrics = ServerMetrics()
    gateways: list[Any] = []
    endpoint: OpsEndpoint | None = None
    try:
        if web is not None:
            from .web import WebGateway  # only a web gateway pays for aiohttp and textual-serve

            web_gateway = WebGateway(web, arbiter.host, arbiter.port, None, signer, metrics=metrics,
                                     arbiter_tls=arbiter.tls, tls_ca=tls_ca, kept_games=kept_games_in(data_dir))
            await _start_gateway(web_gateway, web.host, web.port, gateways)
            print(f"web on {web_gateway.public_url}/", flush=True)
        if ssh is not None:
            from .ssh import SSHGateway  # only an SSH gateway pays for asyncssh

            gateway = SSHGateway(ssh, arbiter.host, arbiter.port, ":memory:", None, signer, metrics=metrics,
                                 arbiter_tls=arbiter.tls, tls_ca=tls_ca)
            await _start_gateway(gateway, ssh.host, ssh.port, gateways)
            print(f"ssh listening on {ssh.host}:{gateway.port}", flush=True)
        if metrics_settings is not None and metrics_settings.port is not None:
            endpoint = OpsEndpoint(metrics, lambda: None, metrics_settings)  # healthy while it serves
            await _start_gateway(endpoint, metrics_settings.host, metrics_settings.port, [])
    except ListenError:
        for started in reversed(gateways):
            await started.stop()
        raise
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(f"gateway for {arbiter}, gateway key {signer.public_line} ({signer.fingerprint}): "
          "the arbiter must trust it (aton-server --trusted-gateways FILE)", flush=True)
    if endpoint is not None:
        print(f"metrics on http://{endpoint.settings.host}:{endpoint.port}/metrics", flush=True)
    serves = " and ".join(what for what, config in (("the web page", web), ("SSH", ssh)) if config is not None)
    logging.getLogger("server.cli").info("gateway %s serves %s for the arbiter at %s", signer.fingerprint, serves,
                                         arbiter)
    settle_for_serving()
    await stop.wait()
    if endpoint is not None:
        await endpoint.stop()
    for started in reversed(gateways):
        await started.stop("The gateway is restarting. Your games are kept: log in again in a minute.")
    logging.getLogger("server.cli").info("stopped cleanly")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "export":
        try:
            paths = export_games(args.export_db, args.out)
        except NewerSchema as exc:
            print(f"aton-server: {exc}", file=sys.stderr)
            return 1
        print(f"exported {len(paths)} game(s) to {args.out}")
        return 0
    if args.command == "admin":
        return run_admin(args)
    configure(args.log_level, args.log_format)
    if args.command == "gateway":
        return run_gateway_command(args)
    db = args.db or default_db_path()
    try:
        tls = tls_settings(args)
    except ValueError as exc:
        print(f"aton-server: {exc}", file=sys.stderr)
        return 2
    config = ServerConfig(host=args.host, port=args.port, db_path=str(db), limits=limits(args),
                          guests=not args.no_guests, tls=tls,
                          trusted_gateways=None if args.trusted_gateways is None else str(args.trusted_gateways))
    try:
        metrics = MetricsSettings(host=args.metrics_host, port=args.metrics_port)
        event_loop.run(run_server(config, ssh_config(args, db.parent), metrics, web_config(args),
                                  web_page_elsewhere(args)), args.event_loop)
    except (ListenError, TLSUnavailable, StoreFailed, NewerSchema, BadTrustFile) as exc:
        print(f"aton-server: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"aton-server: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
