"""Protocol errors: a stable code for programs and a message for people."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """The stable error codes of the protocol (docs/protocol.md lists their meaning)."""

    BAD_FRAME = "bad_frame"  # not a msgpack map, or undecodable bytes
    FRAME_TOO_LARGE = "frame_too_large"  # the length prefix exceeds the frame limit
    INVALID = "invalid"  # a field fails its declared type or bounds
    UNKNOWN_TYPE = "unknown_type"  # no such message type (for this direction)
    UNSUPPORTED_VERSION = "unsupported_version"  # the client's major version is not served
    NOT_ALLOWED = "not_allowed"  # a valid message at the wrong moment (e.g. before hello)
    NOT_FOUND = "not_found"  # no such table, invite code or game
    ILLEGAL_MOVE = "illegal_move"  # the rules forbid the move; the message says why
    COMMITMENT_MISMATCH = "commitment_mismatch"  # an opening does not match its commitment
    RATE_LIMITED = "rate_limited"  # too many messages, or chat too fast
    SERVER_FULL = "server_full"  # connection limits reached
    TIMEOUT = "timeout"  # handshake or idle timeout
    INTERNAL = "internal"  # a server fault; the game is unaffected
    TOO_MANY_GAMES = "too_many_games"  # the session or its address has as many games going as allowed
    TOO_MANY_FAILED_JOINS = "too_many_failed_joins"  # too many wrong invite codes or tables lately
    UNKNOWN_SESSION = "unknown_session"  # a resume token this server did not issue
    BANNED = "banned"  # the account or the address is banned (since 1.6)
    MUTED = "muted"  # the operator muted the account in chat (since 1.6)
    PROOF_FAILED = "proof_failed"  # the account key of a hello was not proved: a guest
    NAME_TAKEN = "name_taken"  # the name belongs to another account


class ProtocolError(Exception):
    """An error to report to the peer as an ``error`` frame."""

    def __init__(self, code: ErrorCode, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


#: What each code means, for people (docs/protocol.md's error table is generated from this).
ERROR_MEANINGS: dict[ErrorCode, str] = {
    ErrorCode.BAD_FRAME: "the payload is not one msgpack map, or its bytes do not decode",
    ErrorCode.FRAME_TOO_LARGE: "the length prefix exceeds the frame limit; the connection is closed",
    ErrorCode.INVALID: "a field fails its declared type or bounds; `field` names it",
    ErrorCode.UNKNOWN_TYPE: "no such message type (for this direction)",
    ErrorCode.UNSUPPORTED_VERSION: "the client's major protocol version is not served",
    ErrorCode.NOT_ALLOWED: "a valid message at the wrong moment (e.g. before `hello`)",
    ErrorCode.NOT_FOUND: "no such table, invite code or game",
    ErrorCode.ILLEGAL_MOVE: "the rules forbid the move; the message says why",
    ErrorCode.COMMITMENT_MISMATCH: "an opening does not match its commitment",
    ErrorCode.RATE_LIMITED: "too many messages, or chat too fast",
    ErrorCode.SERVER_FULL: "connection limits reached",
    ErrorCode.TIMEOUT: "handshake or idle timeout",
    ErrorCode.INTERNAL: "a server fault; the game is unaffected",
    ErrorCode.TOO_MANY_GAMES: "your session, or your address, has as many games going as the server "
                              "allows at once (an open table or a place in the queue counts): finish one first",
    ErrorCode.TOO_MANY_FAILED_JOINS: "too many joins failed lately (wrong invite codes, tables not open) for "
                                     "your session or your address: no join is tried until the limit refills",
    ErrorCode.UNKNOWN_SESSION: "`hello.resume` is not a token this server issued: `bye` follows; say `hello` "
                               "without `resume` for a new session (also: its games belong to another account)",
    ErrorCode.BANNED: "your account or your address is banned from this server; the message says why and until "
                      "when: `bye` follows (since 1.6; an older client is told `not_allowed`)",
    ErrorCode.MUTED: "the server's operator muted your account in chat; the message says why and until when "
                     "(since 1.6; an older client is told `not_allowed`)",
    ErrorCode.PROOF_FAILED: "the signature of `prove` does not prove the key of `hello`: `welcome` follows and "
                            "you play as a guest (on a server without guests, `bye` follows)",
    ErrorCode.NAME_TAKEN: "the name, or one that looks like it, belongs to another account; the message "
                          "offers a free variant",
}
