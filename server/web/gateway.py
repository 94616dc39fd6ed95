"""The web gateway: ``aton-server --web-port 8080`` serves the game client in a browser (beside the
game server, in its process), and so does ``aton-server gateway --web-port 8080`` (apart from it).

It is textual-serve's ``Server`` (the Textual project's own: an aiohttp page whose terminal
talks to the app over a WebSocket), run inside the event loop of the game server or of the
gateway process, with what a public server needs on top:

- one page and its WebSocket, and textual-serve's own script, style sheet and font; every
  other path is refused (404), and so is a WebSocket opened from another site's page;
- bounded request lines, headers and bodies, and WebSocket messages (``WebLimits``);
- sessions at once in all and per address, an idle time-out, an input rate, and the
  operator's bans (by address, and by the account of a signed-in browser);
- each session's client (``ClientService``) runs ``aton connect`` against the game server
  for its one player, like the SSH gateway's (``server.hosted_client``), with an environment
  of its own: a browser player is a guest, or the player of a key when the page was opened
  with a sign-in code (``server.web_logins``), with the gateway's assertion of that key (``server.gateway_keys``);
  apart from the game server, which keeps the codes, the assertion carries the code for it to redeem.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import shutil
import socket
import tempfile
from collections import Counter
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import aiohttp_jinja2
import jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.server import Server

from protocol import handoff
from protocol.gateway_assertions import code_shaped

from .. import background
from ..accounts import Accounts
from ..clock import Clock, LoopClock, Timer
from ..config import ServerConfig, WebConfig
from ..gateway_keys import GatewaySigner
from ..hosted_client import InputBucket, client_arguments, client_command, player_environment
from ..kept_games import KeptGamesPruning
from ..lobby import reserved_names
from ..metrics import ServerMetrics
from ..moderation import Ban, Moderation
from ..resume_tokens import ResumeTokens
from ..ssh.gateway import local_address
from ..ssh.identity import Identities, Identity
from ..web_logins import CODE_PATTERN, WebLogins
from .client_service import ClientService

log = logging.getLogger(__name__)

TEMPLATES = Path(__file__).parent / "templates"
#: textual-serve's files the page loads (under its ``static`` directory): nothing else of it is served.
STATIC_FILES = ("js/textual.js", "css/xterm.css", "fonts/RobotoMono-VariableFont_wght.ttf")
MAX_TERMINAL = 1000  # columns or rows a browser may ask for (a larger size is cut to this)
HEARTBEAT = 30.0  # seconds between WebSocket pings (a browser that does not answer is closed)
CLOSE_REASON_BYTES = 123  # the most a WebSocket close frame's reason may take (RFC 6455, 5.5)


class Refused(Exception):
    """A session that may not start, and why (shown to the player)."""


class BrowserSession:
    """One browser's WebSocket and the client it drives."""

    def __init__(self, gateway: WebGateway, address: str, websocket: web.WebSocketResponse) -> None:
        self.gateway = gateway
        self.address = address
        self.websocket = websocket
        self.identity: Identity | None = None
        self.service: ClientService | None = None
        self.home: str | None = None
        self.bucket = InputBucket(gateway.limits.input_rate, gateway.limits.input_burst)
        self.last_input = gateway.clock.now()
        self.idle_timer: Timer | None = None
        self.why_closed: str | None = None

    @property
    def who(self) -> str:
        return f"{self.identity.name if self.identity else '?'}@{self.address} (web)"

    def close(self, why: str, code: int = WSCloseCode.POLICY_VIOLATION) -> None:
        """End the session: its WebSocket closes, and its client with it."""
        if self.why_closed is None:
            self.why_closed = why
            log.info("%s closed: %s", self.who, why)
            self.gateway.track(self.websocket.close(code=code, message=close_reason(why)), f"close of {self.who}")

    def arm_idle_timer(self) -> None:
        """Check for idleness when the last input is ``idle_timeout`` old (a hundredth later, never early)."""
        clock, timeout = self.gateway.clock, self.gateway.limits.idle_timeout
        self.idle_timer = clock.call_later(max(0.0, self.last_input + timeout - clock.now()) + 0.01, self._idle_check)

    def _idle_check(self) -> None:
        if self.gateway.clock.now() - self.last_input >= self.gateway.limits.idle_timeout:
            self.close("no key press or click for too long", WSCloseCode.GOING_AWAY)
        else:
            self.arm_idle_timer()

    async def read_browser(self) -> None:
        """Pass the browser's messages to the client until the WebSocket closes: keys and clicks
        (``stdin``), sizes, focus, pings; anything else of the right shape is ignored, and a
        message that is not the page's closes the session."""
        service = self.service
        assert service is not None
        async for message in self.websocket:
            if message.type != WSMsgType.TEXT:
                continue  # (an oversized message ends the iteration: aiohttp closes with 1009)
            try:
                envelope = json.loads(message.data)
                kind, data = [*envelope, None][:2] if isinstance(envelope, list) and 1 <= len(envelope) <= 2 \
                    else (None, None)
            except ValueError:
                kind = data = None
            if kind == "stdin" and isinstance(data, str):
                keys = data.encode("utf-8", "replace")
                self.last_input = self.gateway.clock.now()
                if not self.bucket.take(len(keys)):
                    self.close("too much input")
                    return
                await service.send_bytes(keys)
            elif kind == "resize" and isinstance(data, dict):
                width, height = _dimension(data.get("width")), _dimension(data.get("height"))
                if width and height:
                    await service.set_terminal_size(width, height)
            elif kind == "ping" and isinstance(data, str):
                await self.websocket.send_json(["pong", data])
            elif kind in ("blur", "focus"):
                await (service.blur() if kind == "blur" else service.focus())
            elif not isinstance(kind, str):
                self.close("not a message of the game's page", WSCloseCode.UNSUPPORTED_DATA)
                return


def close_reason(text: str) -> bytes:
    """``text`` as a WebSocket close frame's reason: at most 123 bytes of UTF-8, cut between characters."""
    return text.encode()[:CLOSE_REASON_BYTES].decode("utf-8", "ignore").encode()


def _dimension(value: Any) -> int:
    """A terminal width or height from the browser: 0 if it is not a positive integer."""
    return min(value, MAX_TERMINAL) if type(value) is int and value > 0 else 0


class WebGateway(Server):
    """textual-serve's server for the game client, limited for the public (see the module's docstring)."""

    def __init__(self, config: WebConfig, game_host: str, game_port: int, tokens: ResumeTokens | None,
                 signer: GatewaySigner, server_name: str = ServerConfig.server_name,
                 moderation: Moderation | None = None, metrics: ServerMetrics | None = None,
                 clock: Clock | None = None, arbiter_tls: bool = False, tls_ca: str | None = None,
                 kept_games: Path | None = None) -> None:
        """Beside the game server, ``tokens``, ``signer`` (``gateway_signer``), ``moderation`` and
        ``metrics`` are its own (``ArbiterServer``), as for the SSH gateway, and the gateway keeps the
        sign-in codes (``logins``) for it. Apart from it (``tokens`` None: ``aton-server gateway
        --web-port``), ``signer`` is the gateway's own key, the clients reach the game server through
        TLS if ``arbiter_tls`` (trusting the authorities of ``tls_ca`` if given), and a browser's code is
        passed on to the game server, which made it, in the gateway's assertion of the browser's
        player. ``clock`` runs the idle time-outs; ``kept_games``: where the players' clients keep
        their unfinished games (``hosted_client.player_directory``; None: nowhere)."""
        super().__init__(handoff.CLIENT_MODULE, host=config.host, port=config.port, title="Aton",
                         public_url=config.public_url, templates_path=TEMPLATES)
        self.config = config
        self.limits = config.limits
        self.game_host = local_address(game_host)
        self.game_port = game_port
        self.identities = Identities(signer, handoff.HOSTED_BY_WEB, tokens, reserved_names(server_name))
        self.moderation = moderation
        self.metrics = metrics or ServerMetrics()
        self.clock = clock or LoopClock()
        self.sessions: set[BrowserSession] = set()
        self.per_address: Counter[str] = Counter()
        self.tasks: set[asyncio.Future[Any]] = set()
        self.apart = tokens is None
        self.arbiter_tls = arbiter_tls
        self.tls_ca = tls_ca
        self.kept_games = kept_games
        self.pruning = KeptGamesPruning(kept_games, self.clock)
        self.logins: WebLogins | None = None  # beside the game server: made at the start (the page's address known)
        self._runner: web.AppRunner | None = None
        self._stopping = False
        self.metrics.count_sessions("web", lambda: len(self.sessions))
        if moderation is not None:
            moderation.listeners.append(self._apply_bans)

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        self.pruning.start()
        limits = self.limits
        self._runner = web.AppRunner(await self._make_app())
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.config.host, self.config.port)
        await site.start()
        # aiohttp's listening socket: the port bound (0: any); a uvloop server is not asyncio.Server's subclass
        server = cast(asyncio.Server, site._server)
        self.port = int(server.sockets[0].getsockname()[1])
        if self.config.public_url is None:
            host = self.config.host
            shown = socket.gethostname() if host in ("", "0.0.0.0", "::") else host
            self.public_url = f"http://[{shown}]:{self.port}" if ":" in shown else f"http://{shown}:{self.port}"
        if not self.apart:
            self.logins = WebLogins(limits, self.public_url)

    async def stop(self, message: str = "the server is restarting") -> None:
        """Close every session (its client with it, saying why) and the listening socket."""
        self._stopping = True
        self.pruning.stop()
        for session in list(self.sessions):
            session.close(message, WSCloseCode.SERVICE_RESTART)
        if self._runner is not None:
            await self._runner.cleanup()
        for task in list(self.tasks):
            task.cancel()

    def track(self, coro: Awaitable[Any], what: str) -> asyncio.Future[Any]:
        return background.track(self.tasks, coro, what, log)

    async def _make_app(self) -> web.Application:
        limits = self.limits
        app = web.Application(client_max_size=limits.request_body_bytes, handler_args={
            "max_line_size": limits.request_line_bytes, "max_field_size": limits.request_line_bytes,
            "max_headers": limits.request_headers,
            "access_log": None})  # (the gateway logs its sessions; a line per file fetched is noise)
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path), autoescape=True)
        app.add_routes([web.get("/", self.handle_index), web.get("/ws", self.handle_websocket),
                        web.get(f"/ws/{{code:{CODE_PATTERN}}}", self.handle_websocket)])
        for name in STATIC_FILES:
            app.router.add_get(f"/static/{name}", self._static_file(self.statics_path / name))
        return app

    @staticmethod
    def _static_file(path: Path) -> Any:
        async def handler(request: web.Request) -> web.FileResponse:
            return web.FileResponse(path)
        return handler

    # ------------------------------------------------------------------ the page

    async def handle_index(self, request: web.Request) -> web.Response:
        """The game's page; ``?code=CODE`` (a sign-in code) has its WebSocket sign the browser in."""
        code = request.query.get("code", "")
        websocket = "/ws/" + code if code_shaped(code) else "/ws"
        scheme = "wss" if (self.config.public_url or "").startswith("https") else "ws"
        context = {"title": "Aton", "static_url": "/static/", "font_size": _font_size(request.query.get("fontsize")),
                   "websocket_url": f"{scheme}://{request.host}{websocket}"}
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers["Referrer-Policy"] = "no-referrer"  # (a code in the address goes nowhere else)
        response.headers["X-Frame-Options"] = "DENY"
        return response

    # ------------------------------------------------------------------ a session

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One browser's session: admitted, signed in (a guest, or the player of a code), played, ended."""
        if not self._same_site(request):
            raise web.HTTPForbidden(text="the game's WebSocket is for its own page")
        address = request.remote or "?"
        websocket = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=self.limits.message_bytes)
        await websocket.prepare(request)
        session = BrowserSession(self, address, websocket)
        try:
            self._admit(session)
        except Refused as refusal:
            log.info("web session from %s refused: %s", address, refusal)
            await websocket.send_bytes(f"\r\n  {refusal}\r\n".encode())
            await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=close_reason(str(refusal)))
            return websocket
        try:
            session.identity = self._identity(session, request.match_info.get("code"))
            await self._play(session, request)
        except Refused as refusal:
            log.info("%s refused: %s", session.who, refusal)
            await websocket.send_bytes(f"\r\n  {refusal}\r\n".encode())
            await websocket.close(code=WSCloseCode.POLICY_VIOLATION, message=close_reason(str(refusal)))
        finally:
            await self._release(session)
        return websocket

    def _same_site(self, request: web.Request) -> bool:
        """Whether the WebSocket comes from the game's page (its ``Origin`` is the gateway's own)."""
        origin = request.headers.get("Origin")
        if origin is None:
            return True  # not a browser's page: it could send any Origin anyway
        ours = {request.host, urlsplit(self.public_url).netloc}
        return urlsplit(origin).netloc in ours

    def _admit(self, session: BrowserSession) -> None:
        limits, address = self.limits, session.address
        if self._stopping:
            raise Refused("The server is shutting down; try again in a minute.")
        if len(self.sessions) >= limits.max_sessions:
            raise Refused("The server is full; try again later.")
        if self.per_address[address] >= limits.max_per_address:
            raise Refused("Too many games open from your address: close one first.")
        self.sessions.add(session)
        self.per_address[address] += 1

    def _identity(self, session: BrowserSession, code: str | None) -> Identity:
        """A guest, or with a sign-in code the player of its key (if it is good and no ban covers them)."""
        fingerprint = None
        if code is None:
            identity = self.identities.guest(None, session.address)
        elif self.logins is None:  # apart from the game server: it redeems the code when the client says hello
            identity = self.identities.for_code(code, session.address)
        else:
            grant = self.logins.redeem(code, session.address)
            if grant is None:
                raise Refused(self.logins.refusal())
            fingerprint = grant.fingerprint
            identity = self.identities.for_key(fingerprint, grant.name, session.address)
        ban = self._ban_of(fingerprint, session.address)
        if ban is not None:
            raise Refused(ban.line())
        return identity

    def _apply_bans(self) -> None:
        """The operator changed the bans: close every session a ban now covers, saying why."""
        for session in list(self.sessions):
            identity = session.identity
            ban = None if identity is None else self._ban_of(identity.fingerprint, session.address)
            if ban is not None:
                session.close(ban.line())

    def _ban_of(self, fingerprint: str | None, address: str) -> Ban | None:
        if self.moderation is None:
            return None
        account = None if fingerprint is None else Accounts(self.moderation.store).by_fingerprint(fingerprint)
        return self.moderation.ban_of(None if account is None else account.id, address)

    async def _play(self, session: BrowserSession, request: web.Request) -> None:
        identity = session.identity
        assert identity is not None
        session.home = tempfile.mkdtemp(prefix="aton-web-")
        argv = client_command(client_arguments(self.game_host, self.game_port, identity.name, self.arbiter_tls,
                                               self.tls_ca))
        env = {**player_environment(identity, session.home, handoff.HOSTED_BY_WEB, self.kept_games),
               "TERM": "xterm-256color"}
        websocket = session.websocket
        session.service = service = ClientService(
            argv, env, session.home, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
            close=websocket.close, download_manager=self.download_manager)
        await service.start(_dimension(_int(request.query.get("width"))) or 80,
                            _dimension(_int(request.query.get("height"))) or 24)
        log.info("%s: session started as %r (pid %s, %s)", session.who, identity.name, service.pid,
                 identity.fingerprint or ("a sign-in code" if request.match_info.get("code") else "guest"))
        session.arm_idle_timer()
        await session.read_browser()

    async def _release(self, session: BrowserSession) -> None:
        if session.idle_timer is not None:
            session.idle_timer.cancel()
        if session.service is not None:
            await session.service.end()
        if session.home is not None:
            shutil.rmtree(session.home, ignore_errors=True)
        if session in self.sessions:
            self.sessions.discard(session)
            self.per_address[session.address] -= 1
            if self.per_address[session.address] <= 0:
                del self.per_address[session.address]
        with contextlib.suppress(Exception):
            await session.websocket.close()
        log.info("%s: session ended", session.who)


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None and len(text) <= 6 else None
    except ValueError:
        return None


def _font_size(text: str | None) -> int:
    size = _int(text)
    return size if size is not None and 6 <= size <= 48 else 16
