"""The SSH gateway: ``aton-server --ssh-port 2222``; see docs/hosting.md."""

from .gateway import SSHGateway
from .identity import Identities, Identity, valid_name

__all__ = ["Identities", "Identity", "SSHGateway", "valid_name"]
