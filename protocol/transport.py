"""Where a client's connection goes and how it is opened: plain TCP, or TLS.

A server's address is ``HOST[:PORT]`` for plain TCP (the loopback, a LAN) or
``tls://HOST[:PORT]`` for TLS, which a client over the internet uses so that it sends
nothing in clear text.  A TLS server's certificate is verified against the system's
store of certificate authorities by default; ``trust`` (a PEM file: a certificate
authority, or the server's own self-signed certificate) replaces the store, for a
server whose certificate no public authority signed.

Every client of the arbiter opens its connection here (``open_stream``): the protocol
client (``protocol.client.Client``, and so ``aton connect``, ``aton-bot`` and the SSH
gateway), so a gateway in a process of its own reaches the arbiter the same way.
A certificate that fails verification, or a TLS handshake that fails, raises
``TLSFailed`` with a sentence that says what to do: not an ``OSError``, so that the
callers that try again after a dropped connection do not keep trying what cannot work.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass

#: The scheme that asks for TLS in a server's address.
TLS_SCHEME = "tls://"
#: The default port of the arbiter's plain protocol (``aton-server --port``) ...
DEFAULT_PORT = 2866
#: ... and of its TLS listener (``aton-server --tls-port``).
DEFAULT_TLS_PORT = 2867


class TLSFailed(Exception):
    """The TLS handshake failed: the certificate was not verified, or the peer speaks no TLS."""


@dataclass(frozen=True)
class Endpoint:
    """A server's address: where to connect, and whether with TLS."""

    host: str
    port: int
    tls: bool = False

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{TLS_SCHEME if self.tls else ''}{host}:{self.port}"


def parse_endpoint(text: str, default_port: int = DEFAULT_PORT) -> Endpoint:
    """'example.org', 'example.org:2900', '[::1]:2900', 'tls://example.org' → an Endpoint (a TLS
    address's default port is ``DEFAULT_TLS_PORT``); ValueError saying what is wrong."""
    tls = text[:len(TLS_SCHEME)].lower() == TLS_SCHEME
    rest = text[len(TLS_SCHEME):] if tls else text
    if "://" in rest:
        raise ValueError(f"unknown scheme in {text!r}: write HOST:PORT, or tls://HOST:PORT for TLS")
    host, sep, port = rest.rpartition(":")
    if not sep or (host.count(":") and not host.endswith("]")):  # no port, or a bare IPv6 address
        host, port = rest, str(DEFAULT_TLS_PORT if tls else default_port)
    host = host.strip("[]")
    if not host:
        raise ValueError(f"no host in {text!r}: give a name or an address, e.g. 192.168.1.5:2866")
    try:
        number = int(port)
    except ValueError:
        raise ValueError(f"{port!r} is not a port number (1–65535)") from None
    if not 1 <= number <= 65535:
        raise ValueError(f"{number} is not a port number: ports go from 1 to 65535")
    return Endpoint(host, number, tls)


def client_tls_context(trust: str | None = None) -> ssl.SSLContext:
    """A context that verifies the server's certificate and name: against the system's
    authorities, or only against ``trust`` (a PEM file of authorities or of the server's own
    certificate, which is then trusted as it is).  OSError or ssl.SSLError if ``trust`` cannot
    be read."""
    context = ssl.create_default_context(cafile=trust)
    if trust is not None:
        # a certificate in the file is an anchor even if it is not an authority's (a pinned server certificate)
        context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


async def open_stream(host: str, port: int, tls: ssl.SSLContext | None = None, *, timeout: float,
                      local_addr: tuple[str, int] | None = None) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to ``host:port`` (from ``local_addr``, if given), through TLS if ``tls``, the
    handshake done within ``timeout`` seconds; TLSFailed when TLS fails, OSError or
    TimeoutError when the server cannot be reached."""
    try:
        return await asyncio.wait_for(
            asyncio.open_connection(host, port, local_addr=local_addr, ssl=tls,
                                    server_hostname=host if tls is not None else None,
                                    ssl_handshake_timeout=timeout if tls is not None else None),
            timeout)
    except ssl.SSLCertVerificationError as exc:
        raise TLSFailed(f"the certificate of {Endpoint(host, port, True)} could not be verified: "
                        f"{exc.verify_message or exc.reason}; if the server's operator gave you its certificate "
                        "or authority, trust it with --tls-ca FILE") from None
    except ssl.SSLError as exc:
        raise TLSFailed(f"the TLS handshake with {Endpoint(host, port, True)} failed ({exc.reason or exc}): "
                        "does that port serve TLS? (aton-server's TLS port is --tls-port, "
                        f"{DEFAULT_TLS_PORT} by default)") from None


def tls_for(address: Endpoint, trust: str | None = None) -> ssl.SSLContext | None:
    """The TLS context to reach ``address`` with (None: plain TCP), trusting ``trust`` (the
    command lines' ``--tls-ca FILE``) if given; ValueError saying what is wrong with it."""
    if not address.tls:
        if trust is not None:
            raise ValueError("--tls-ca is for a TLS address: tls://HOST[:PORT]")
        return None
    try:
        return client_tls_context(trust)
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(f"cannot read the certificates of --tls-ca {trust}: "
                         f"{getattr(exc, 'strerror', None) or exc}") from None
