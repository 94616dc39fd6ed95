"""The arbiter's events (protocol.events): declared once, sent as declared, read back as declared."""

from __future__ import annotations

import pytest

from aton.players import BLUE, RED
from protocol import events as ev
from protocol.errors import ErrorCode, ProtocolError
from protocol.framing import decode_payload, encode_frame
from protocol.schema import declared_fields

from .spec_examples import example_value

EVENTS = list(ev.ARBITER_EVENTS.values())


def example(cls: type[ev.ArbiterEvent]) -> ev.ArbiterEvent:
    """An event of ``cls`` read from example values of its declared wire types."""
    return ev.parse({"type": cls.TYPE, **{name: example_value(spec) for name, spec, _ in declared_fields(cls)}})


@pytest.mark.parametrize("cls", EVENTS, ids=lambda c: c.TYPE)
def test_an_event_goes_over_the_wire_and_back_unchanged(cls):
    event = example(cls)
    wire = decode_payload(encode_frame({**event.to_wire(), "version": 12})[4:])
    assert wire["type"] == cls.TYPE
    assert ev.parse(wire) == event


@pytest.mark.parametrize("cls", EVENTS, ids=lambda c: c.TYPE)
def test_keys_of_a_newer_server_are_ignored(cls):
    assert ev.parse({**example(cls).to_wire(), "version": 3, "colour": "mauve"}) == example(cls)


def test_a_player_is_a_player_in_python_and_a_colour_on_the_wire():
    opened = ev.parse({"type": "opened", "player": "blue", "version": 9})
    assert opened == ev.Opened(BLUE) and opened.player is BLUE
    assert opened.to_wire() == {"type": "opened", "player": "blue"}


def test_a_timeout_of_a_server_before_1_3_is_no_forfeit():
    older = {"type": "timeout", "player": "red", "action": "move", "strikes": 2, "version": 40}
    assert ev.parse(older) == ev.TimedOut(RED, "move", 2, forfeit=False)


@pytest.mark.parametrize("data, field", [
    ({"type": "opened", "player": "green"}, "player"),
    ({"type": "timeout", "player": "red", "action": "nap", "strikes": 1}, "action"),
    ({"type": "disconnected", "player": "red", "grace_s": "soon"}, "grace_s"),
    ({"type": "rematch_started"}, "game"),
])
def test_a_wrong_field_is_named(data, field):
    with pytest.raises(ProtocolError) as info:
        ev.parse(data)
    assert (info.value.code, info.value.field) == (ErrorCode.INVALID, field)


def test_the_wire_names_are_the_documented_ones():
    assert list(ev.ARBITER_EVENTS) == ["committed", "open_requested", "opened", "timeout", "disconnected",
                                       "reconnected", "chat", "chat_hidden", "rematch_offered", "rematch_declined",
                                       "rematch_started", "clock_paused", "clock_resumed", "rating_changed"]
    assert ev.Disconnected(BLUE, 60).to_wire() == {"type": "disconnected", "player": "blue", "grace_s": 60}
    assert ev.OpenRequested().to_wire() == {"type": "open_requested"}
