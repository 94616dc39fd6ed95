"""Web sign-in codes (issue 16, point 1): made for a key's player, good once and for minutes,
kept only as a hash, rate-limited; and asked for over the protocol (``get_web_login``) by a
connection that proved a key, never by a guest."""

from __future__ import annotations

import hashlib

from protocol import messages as m
from protocol.account_keys import AccountKey
from protocol.errors import ErrorCode, ProtocolError
from server.config import WebLimits
from server.web_logins import Grant, WebLogins

from ..manual_clock import ManualClock
from .players import Recorder

FINGERPRINT = "SHA256:" + "A" * 43
URL = "http://aton.test:8080"


def code_of(link: str) -> str:
    return link.split("?code=", 1)[1]


def test_a_code_signs_in_once_within_its_minutes_and_is_kept_only_as_a_hash():
    clock = ManualClock()
    logins = WebLogins(WebLimits(login_code_seconds=300), URL + "/", clock.now)
    issued = logins.issue(FINGERPRINT, "ann")
    assert issued.link == f"{URL}/?code={issued.code}" and issued.seconds == 300
    assert len(issued.code.replace("-", "")) == 12
    stored = repr(logins._codes)
    assert issued.code not in stored and issued.code.replace("-", "") not in stored
    assert hashlib.sha256(issued.code.replace("-", "").encode()).digest() in logins._codes
    assert logins.redeem(issued.code.lower().replace("-", " "), "192.0.2.1") == Grant(FINGERPRINT, "ann")
    assert logins.redeem(issued.code, "192.0.2.1") is None  # once
    late = logins.issue(FINGERPRINT, "ann")
    clock.advance(300)
    assert logins.redeem(late.code, "192.0.2.1") is None  # expired
    logins.issue(FINGERPRINT, "ann")
    assert len(logins) == 1  # the expired one is forgotten


def test_making_codes_and_offering_wrong_ones_are_rate_limited():
    clock = ManualClock()
    logins = WebLogins(WebLimits(login_codes_per_account=2, login_code_refill_seconds=60,
                                 failed_logins_per_address=3, failed_login_refill_seconds=60), URL, clock.now)
    good = logins.issue(FINGERPRINT, "ann")
    logins.issue(FINGERPRINT, "ann")
    try:
        logins.issue(FINGERPRINT, "ann")
        raise AssertionError("a third code at once")
    except ProtocolError as exc:
        assert exc.code == ErrorCode.RATE_LIMITED
    logins.issue("SHA256:" + "B" * 43, "bob")  # another key has its own
    clock.advance(60)
    logins.issue(FINGERPRINT, "ann")  # one more a minute
    for _ in range(3):
        assert logins.redeem("AAAA-AAAA-AAAA", "192.0.2.9") is None
    assert logins.redeem(good.code, "192.0.2.9") is None  # the guesser's address is held back ...
    assert logins.redeem(good.code, "192.0.2.1") == Grant(FINGERPRINT, "ann")  # ... the code's owner is not


async def test_a_connection_that_proved_a_key_gets_a_link_a_guest_does_not(server):
    key = AccountKey.generate()
    ann = await Recorder.connect(server.port, "ann", proof=key, lobby=False)
    guest = await Recorder.connect(server.port, "bob", lobby=False, proof=None)
    await ann.send(m.GetWebLogin())
    refused = await ann.expect(m.Error)
    assert refused.code == ErrorCode.NOT_ALLOWED.value and "web browser" in refused.message  # no web gateway
    server.web_logins = WebLogins(WebLimits(), URL)
    await ann.send(m.GetWebLogin())
    login = await ann.expect(m.WebLogin)
    assert login.link.startswith(URL + "/?code=") and login.seconds == 300
    assert server.web_logins.redeem(code_of(login.link), "192.0.2.1") == Grant(key.fingerprint, "ann")
    await guest.send(m.GetWebLogin())
    refused = await guest.expect(m.Error)
    assert refused.code == ErrorCode.NOT_ALLOWED.value and "guest" in refused.message
