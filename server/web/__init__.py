"""The web gateway: ``aton-server --web-port 8080`` serves the game client in a browser; see docs/hosting.md."""

from .gateway import WebGateway

__all__ = ["WebGateway"]
