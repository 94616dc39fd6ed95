"""protocol.handoff: the fork server's and the app hosts' messages, one definition for the gateway and the client."""

from __future__ import annotations

import json
import re

import pytest

from protocol import handoff
from protocol.handoff import (
    BadMessage,
    CloseSession,
    Exited,
    Forked,
    ForkRequest,
    OpenSession,
    Ready,
    Refused,
    Resize,
    SessionEnded,
    decode,
)


@pytest.mark.parametrize("message", [
    ForkRequest(7, ["connect", "127.0.0.1:2866", "--name", "ann"], {"TERM": "xterm", "ATON_HOSTED": "ssh"}),
    Ready(1234),
    Forked(7, 4321),
    Refused(7, "OSError: no more processes"),
    Refused(None, "BadMessage: not JSON"),
    Exited(4321, -9),
    OpenSession(3, ["connect", "127.0.0.1:2866", "--name=ann"], {"TERM": "xterm", "ATON_HOSTED": "ssh"}, 100, 30),
    Resize(3, 120, 40),
    CloseSession(3),
    SessionEnded(3, 1, "Your session stopped responding and was closed."),
    SessionEnded(4, 0),
])
def test_every_message_decodes_to_itself(message):
    packet = message.encode()
    assert len(packet) <= handoff.MAX_PACKET
    assert decode(packet) == message


def test_the_wire_form_is_what_both_sides_always_spoke():
    """The keys are unchanged, so a fork server and a gateway of different checkouts agree."""
    assert json.loads(Ready(5).encode()) == {"ready": 5}
    assert json.loads(Forked(1, 5).encode()) == {"id": 1, "pid": 5}
    assert json.loads(Exited(5, 0).encode()) == {"exit": 5, "status": 0}
    assert json.loads(Refused(1, "no").encode()) == {"id": 1, "error": "no"}
    assert json.loads(ForkRequest(1, ["a"], {"K": "V"}).encode()) == {"id": 1, "args": ["a"], "env": {"K": "V"}}


@pytest.mark.parametrize("packet, problem", [
    (b"\xff", "not JSON"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"ready": "soon"}', "ready: expected an integer"),
    (b'{"exit": 5}', "status: expected an integer"),
    (b'{"id": 1, "pid": 2.5}', "pid: expected an integer"),
    (b'{"id": 1, "args": "connect", "env": {}}', "a request is id, args (a list) and env (an object)"),
    (b'{"args": [], "env": {}}', "id: expected an integer"),
    (b'{"open": 1, "args": [], "env": {}, "size": [80]}', "size: expected [columns, rows]"),
    (b'{"open": 1, "args": {}, "env": {}, "size": [80, 24]}', "a session is opened with args (a list) and env"),
    (b'{"resize": 1, "size": [0, 24]}', "size: expected [columns, rows]"),
    (b'{"resize": 1, "size": [80, true]}', "size: expected [columns, rows]"),
    (b'{"close": "1"}', "close: expected an integer"),
    (b'{"ended": 1}', "status: expected an integer"),
])
def test_a_bad_packet_says_what_is_wrong(packet, problem):
    with pytest.raises(BadMessage, match=re.escape(problem)):
        decode(packet)


def test_a_request_is_made_of_strings():
    request = decode(b'{"id": 3, "args": ["--name", 5], "env": {"N": 1}}')
    assert request == ForkRequest(3, ["--name", "5"], {"N": "1"})


def test_the_id_of_an_unreadable_request_is_found_to_refuse_it():
    assert handoff.request_id(b'{"id": 9, "args": "x"}') == 9
    assert handoff.request_id(b'{"id": "9"}') is None
    assert handoff.request_id(b"garbage") is None
