"""The operator's HTTP endpoint (``aton-server --metrics-port``): ``/metrics`` and ``/healthz``.

A small HTTP/1.1 responder on the server's own event loop, so that reading the metrics reads
the server's state between two of its turns, never during one (prometheus-client's own
``start_http_server`` would read it from a thread). It answers one GET per connection and
bounds what a client may send and how long it may take (``MetricsSettings``); anything but
``GET /metrics`` and ``GET /healthz`` gets 404 or 405.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from prometheus_client import CONTENT_TYPE_LATEST

from .config import MetricsSettings
from .metrics import ServerMetrics

log = logging.getLogger(__name__)

TEXT = "text/plain; charset=utf-8"


class OpsEndpoint:
    """``GET /metrics``: ``metrics`` in Prometheus' text format. ``GET /healthz``: 200 "ok" while
    ``health()`` says nothing is wrong, else 503 and what is (e.g. the database refused a write)."""

    def __init__(self, metrics: ServerMetrics, health: Callable[[], str | None], settings: MetricsSettings) -> None:
        self.metrics = metrics
        self.health = health
        self.settings = settings
        self.open = 0  # connections being answered
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        assert self.settings.port is not None
        self._server = await asyncio.start_server(self._answer, self.settings.host, self.settings.port,
                                                  limit=self.settings.request_bytes)

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open += 1
        try:
            if self.open > self.settings.max_connections:
                status, kind, body = "503 Service Unavailable", TEXT, b"too many requests at once\n"
            else:
                status, kind, body = await self._respond(reader)
            writer.write(f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
                         "Connection: close\r\n\r\n".encode() + body)
            with contextlib.suppress(OSError, TimeoutError):
                await asyncio.wait_for(writer.drain(), self.settings.request_seconds)
        finally:
            self.open -= 1
            writer.close()

    async def _respond(self, reader: asyncio.StreamReader) -> tuple[str, str, bytes]:
        """The status, content type and body for the request ``reader`` brings."""
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.settings.request_seconds)
        except (asyncio.LimitOverrunError, ValueError):
            return "431 Request Header Fields Too Large", TEXT, b"request too large\n"
        except (asyncio.IncompleteReadError, TimeoutError, OSError):
            return "408 Request Timeout", TEXT, b"no complete request\n"
        method, _, rest = head.decode("latin-1").partition(" ")
        path = rest.partition(" ")[0].partition("?")[0]
        if path not in ("/metrics", "/healthz"):
            return "404 Not Found", TEXT, b"not found: try /metrics or /healthz\n"
        if method != "GET":
            return "405 Method Not Allowed", TEXT, b"only GET\n"
        if path == "/metrics":
            return "200 OK", CONTENT_TYPE_LATEST, self.metrics.exposition()
        problem = self.health()
        if problem is None:
            return "200 OK", TEXT, b"ok\n"
        return "503 Service Unavailable", TEXT, f"failing: {problem}\n".encode()
