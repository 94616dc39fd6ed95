"""The wire protocol shared by the server, the client, the SSH gateway and the bots.

Frames are length-prefixed msgpack maps (``framing``); every message type is
declared once in ``messages``; sealed cartouches use ``commitment``.
"""

from aton import __version__

from .errors import ErrorCode, ProtocolError
from .framing import MAX_FRAME_BYTES, FrameBuffer, decode_payload, encode_frame, read_payload
from .messages import CATALOGUE, PROTOCOL_MAJOR, PROTOCOL_VERSION, Direction, Message, parse

#: What every command's ``--version`` prints after its name: the release and the protocol it speaks.
RELEASE = f"{__version__} (protocol {PROTOCOL_VERSION})"

__all__ = [
    "CATALOGUE",
    "MAX_FRAME_BYTES",
    "PROTOCOL_MAJOR",
    "PROTOCOL_VERSION",
    "RELEASE",
    "Direction",
    "ErrorCode",
    "FrameBuffer",
    "Message",
    "ProtocolError",
    "decode_payload",
    "encode_frame",
    "parse",
    "read_payload",
]
