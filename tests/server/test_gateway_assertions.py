"""Gateways apart from the arbiter (issue 17, point 2): a gateway vouches for its player with an
assertion signed by its gateway key; the arbiter checks it against the keys it trusts, its
expiry, and the session key's signature over the challenge.  On a real arbiter: a trusted
gateway's key player is an account whose seats the arbiter finds by the key alone (whichever
gateway vouches), its guest a guest judged by its own address; a forged, altered, expired or
untrusted assertion, and one replayed without its session key, are refused with a clear error."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol import gateway_assertions
from protocol.account_keys import AccountKey, GatewayProof
from protocol.client import Client, ServerError
from protocol.errors import ErrorCode
from server.app import ArbiterServer
from server.cli import main as server_main
from server.config import GatewaySettings, ServerConfig, WebLimits
from server.gateway_keys import BadTrustFile, GatewaySigner, Vouch, read_trusted_gateways
from server.web_logins import NO_WEB, WebLogins

from ..conftest import GAME_SEED
from ..manual_clock import ManualClock
from .players import RawPeer

PLAYER = AccountKey.from_seed(b"ann").fingerprint


def gateway() -> GatewaySigner:
    return GatewaySigner(Ed25519PrivateKey.generate(), GatewaySettings.assertion_seconds)


def trust_file(path: Path, *signers: GatewaySigner) -> Path:
    path.write_text("# the gateways of this arbiter\n\n" + "".join(f"{s.public_line} gw{n}\n"
                                                                   for n, s in enumerate(signers)))
    return path


@pytest.fixture
async def arbiter_and_gateways(tmp_path):
    """An arbiter that trusts two gateways (gateway_a, gateway_b) of a trust file."""
    gateway_a, gateway_b = gateway(), gateway()
    srv = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db"), game_seed=GAME_SEED,
                                     trusted_gateways=str(trust_file(tmp_path / "gateways", gateway_a, gateway_b))),
                        clock=ManualClock())
    await srv.start()
    yield srv, gateway_a, gateway_b
    await srv.stop()


def with_assertion(proof: GatewayProof, assertion: bytes, fingerprint: str | None = None) -> GatewayProof:
    """``proof`` sending another assertion (and binding another fingerprint, if given)."""
    return GatewayProof(assertion, proof.session_key, proof.fingerprint if fingerprint is None else fingerprint)


def proof_of(vouch: Vouch) -> GatewayProof:
    """What the client a gateway starts proves its player with (as ``aton_tui.cli.vouched`` reads it)."""
    return gateway_assertions.proof(vouch.assertion, vouch.session_key)


async def connect(srv: ArbiterServer, proof: GatewayProof, name: str = "whoever") -> Client:
    return await Client.connect("127.0.0.1", srv.port, name=name, lobby=False, proof=proof)


async def refused(srv: ArbiterServer, proof: GatewayProof) -> str:
    """The error with which the arbiter refuses a gateway client's hello (``proof_failed``, then ``bye``)."""
    with pytest.raises(ServerError) as caught:
        await connect(srv, proof)
    assert caught.value.error.code == ErrorCode.PROOF_FAILED
    return caught.value.error.message


async def test_a_trusted_gateways_key_player_is_the_account_and_its_session_whichever_gateway(arbiter_and_gateways):
    srv, gateway_a, gateway_b = arbiter_and_gateways
    through_a = await connect(srv, proof_of(gateway_a.vouch(PLAYER, "ann", "198.51.100.7", "ssh")))
    assert through_a.welcome is not None and not through_a.welcome.guest and through_a.name == "ann"
    # the arbiter derives the key's session itself: a gateway apart from it knows no token
    assert through_a.resume_token == srv.tokens.for_key(PLAYER)
    await through_a.close()
    through_b = await connect(srv, proof_of(gateway_b.vouch(PLAYER, "mallory", "203.0.113.9", "ssh")))
    assert through_b.name == "ann" and through_b.resume_token == srv.tokens.for_key(PLAYER)  # the account's name
    # a command's client (``seats`` False) has a session of its own: it takes nothing over
    command = await connect(srv, proof_of(gateway_b.vouch(PLAYER, "ann", "203.0.113.9", "ssh", seats=False)))
    assert command.name == "ann" and command.resume_token != srv.tokens.for_key(PLAYER)
    for client in (through_b, command):
        await client.close()


async def test_a_gateways_guest_is_a_guest_judged_by_its_own_address_and_recorded(arbiter_and_gateways, tmp_path):
    srv, gateway_a, _ = arbiter_and_gateways
    guest = await connect(srv, proof_of(gateway_a.vouch(None, "carol", "198.51.100.7", "ssh")))
    assert guest.welcome is not None and guest.welcome.guest and guest.name == "~carol"
    await guest.close()
    logins = srv.store.db.execute("SELECT name, address, via FROM logins ORDER BY at").fetchall()
    assert [tuple(row) for row in logins] == [("~carol", "198.51.100.7", "ssh")]  # the player's address, not ours
    assert server_main(["admin", "ban", "198.51.100.0/24", "--db", srv.config.db_path]) == 0
    srv.moderation.refresh()
    with pytest.raises(ServerError) as caught:
        await connect(srv, proof_of(gateway_a.vouch(None, "carol", "198.51.100.8", "ssh")))
    assert caught.value.error.code == ErrorCode.BANNED
    other = await connect(srv, proof_of(gateway_a.vouch(None, "dave", "192.0.2.1", "ssh")))  # from elsewhere
    assert other.name == "~dave"
    await other.close()


async def test_an_untrusted_gateways_assertion_is_refused(arbiter_and_gateways):
    srv, _, _ = arbiter_and_gateways
    stranger = gateway()
    message = await refused(srv, proof_of(stranger.vouch(PLAYER, "ann", "192.0.2.1", "ssh")))
    assert message == f"the gateway key {stranger.fingerprint} is not one this server trusts"


async def test_a_forged_or_altered_assertion_is_refused(arbiter_and_gateways):
    srv, gateway_a, _ = arbiter_and_gateways
    vouch = gateway_a.vouch(None, "mallory", "192.0.2.1", "ssh")
    said, body, signature = gateway_assertions.parse(vouch.assertion)
    # the same assertion, made to say another player: the gateway's signature no longer fits
    altered = dataclasses.replace(said, player=PLAYER).body() + signature
    message = await refused(srv, with_assertion(proof_of(vouch), altered, PLAYER))
    assert message == "the gateway assertion's signature is not its gateway's (forged or altered)"
    # naming a trusted gateway's key, signed by another
    forged = said.body() + Ed25519PrivateKey.generate().sign(gateway_assertions.TAG + b"\0" + body)
    message = await refused(srv, with_assertion(proof_of(vouch), forged))
    assert message == "the gateway assertion's signature is not its gateway's (forged or altered)"
    # not an assertion at all
    message = await refused(srv, with_assertion(proof_of(vouch), b"\x80" * 100))
    assert message.startswith("the gateway assertion is not one")


async def test_an_expired_assertion_is_refused(arbiter_and_gateways):
    srv, gateway_a, _ = arbiter_and_gateways
    past = GatewaySigner(gateway_a.key, GatewaySettings.assertion_seconds, wall=lambda: time.time() - 2 * 86400)
    message = await refused(srv, proof_of(past.vouch(PLAYER, "ann", "192.0.2.1", "ssh")))
    assert message == "the gateway assertion has expired: log in to the gateway again"


async def test_an_assertion_without_its_session_key_proves_nothing(arbiter_and_gateways):
    srv, gateway_a, _ = arbiter_and_gateways
    stolen = proof_of(gateway_a.vouch(PLAYER, "ann", "192.0.2.1", "ssh"))  # seen in a log, say
    thief = GatewayProof(stolen.assertion, Ed25519PrivateKey.generate(), stolen.fingerprint)
    message = await refused(srv, thief)
    assert message == "the signature is not by the session key of the gateway's assertion"
    assert srv.accounts.by_fingerprint(PLAYER) is None  # nothing was signed in


async def test_a_hello_proves_a_key_or_a_gateways_assertion_not_both(arbiter_and_gateways):
    srv, gateway_a, _ = arbiter_and_gateways
    peer = await RawPeer.open(srv.port, hello=False)
    peer.send({"type": "hello", "version": "1.6", "name": "mallory", "kind": "human", "lobby": False,
               "key": AccountKey.generate().public_line,
               "gateway": gateway_a.vouch(PLAYER, "ann", "192.0.2.1", "ssh").assertion})
    error = await peer.read()
    assert (error["type"], error["code"], error["field"]) == ("error", "invalid", "gateway")
    assert [frame["type"] for frame in await peer.read_until_closed()] == ["bye"]


def test_a_trust_file_says_what_is_wrong_with_it(tmp_path):
    good = gateway()
    assert read_trusted_gateways(trust_file(tmp_path / "ok", good)) == {good.public}
    bad = tmp_path / "bad"
    for text, why in ((f"{good.public_line}\nssh-ed25519 !!!\n", "line 2: the key is not valid base64"),
                      (f'from="10.0.0.1" {good.public_line}\n', "line 1: keys of type 'from=\"10.0.0.1\"'"),
                      (AccountKey.generate().public_line.replace("ssh-ed25519", "ssh-rsa") + "\n", "line 1:")):
        bad.write_text(text)
        with pytest.raises(BadTrustFile, match=why.replace("(", r"\(")):
            read_trusted_gateways(bad)
    with pytest.raises(BadTrustFile, match="cannot read the trusted gateways file"):
        read_trusted_gateways(tmp_path / "missing")


# --------------------------------------------------------------------------- web sign-in codes apart


@pytest.fixture
def codes(arbiter_and_gateways) -> WebLogins:
    """The arbiter's sign-in codes, for a web page its gateways apart serve (``--web-public-url``)."""
    srv = arbiter_and_gateways[0]
    srv.web_logins = WebLogins(WebLimits(), "https://play.example.org")
    return srv.web_logins


async def test_a_web_gateways_sign_in_code_makes_its_client_the_codes_player_once(arbiter_and_gateways, codes):
    """A web gateway apart cannot redeem a code: it passes it on, and the arbiter, which made it,
    redeems it once the client has proved the session key."""
    srv, gateway_a, _ = arbiter_and_gateways
    issued = codes.issue(PLAYER, "ann")
    browser = await connect(srv, proof_of(gateway_a.vouch(None, "guest-7f3a", "198.51.100.7", "web",
                                                          code=issued.code)))
    assert browser.welcome is not None and not browser.welcome.guest and browser.name == "ann"
    account = srv.accounts.by_fingerprint(PLAYER)
    assert account is not None and account.name == "ann"
    [conn] = [c for c in srv.connections if c.name == "ann"]
    assert conn.assertion is not None and conn.assertion.player == PLAYER and conn.assertion.code is None
    await browser.close()
    with pytest.raises(ServerError) as spent:  # the same link again, through the other gateway
        await connect(srv, proof_of(arbiter_and_gateways[2].vouch(None, "guest-9b1c", "198.51.100.7", "web",
                                                                  code=issued.code)))
    assert spent.value.error.code == ErrorCode.NOT_ALLOWED
    said = spent.value.error.message
    assert "spent or has expired" in said and "https://play.example.org/" in said
    assert "ssh play.example.org web-login" in said and "HOST" not in said


async def test_a_code_is_taken_only_from_a_web_gateways_assertion_of_no_player(arbiter_and_gateways, codes):
    srv, gateway_a, _ = arbiter_and_gateways
    issued = codes.issue(PLAYER, "ann")
    for vouch in (gateway_a.vouch(None, "guest-1", "198.51.100.7", "ssh", code=issued.code),
                  gateway_a.vouch(AccountKey.from_seed(b"bob").fingerprint, "bob", "198.51.100.7", "web",
                                  code=issued.code)):
        with pytest.raises(ServerError) as caught:
            await connect(srv, proof_of(vouch))
        assert "only a web gateway's assertion of no player carries a sign-in code" in caught.value.error.message
    untrusted = gateway().vouch(None, "guest-2", "198.51.100.7", "web", code=issued.code)
    assert "not one this server trusts" in await refused(srv, proof_of(untrusted))
    browser = await connect(srv, proof_of(gateway_a.vouch(None, "guest-3", "198.51.100.7", "web", code=issued.code)))
    assert browser.name == "ann"  # none of those spent the code
    await browser.close()


async def test_wrong_codes_from_one_address_are_limited_and_an_arbiter_without_a_page_takes_none(
        arbiter_and_gateways, codes):
    srv, gateway_a, _ = arbiter_and_gateways
    good = codes.issue(PLAYER, "ann")

    async def attempt(code: str, address: str) -> str:
        with pytest.raises(ServerError) as caught:
            await connect(srv, proof_of(gateway_a.vouch(None, "guest-4", address, "web", code=code)))
        return caught.value.error.message

    for n in range(WebLimits().failed_logins_per_address):
        assert "spent or has expired" in await attempt(f"WRNG-CODE-{n:04d}", "203.0.113.9")
    assert "spent or has expired" in await attempt(good.code, "203.0.113.9")  # that address is out of tries
    browser = await connect(srv, proof_of(gateway_a.vouch(None, "guest-5", "198.51.100.7", "web", code=good.code)))
    assert browser.name == "ann"  # the code was kept for its player, from another address
    await browser.close()
    srv.web_logins = None
    assert NO_WEB in await attempt(codes.issue(PLAYER, "ann").code, "198.51.100.7")


def test_an_assertion_carries_a_code_only_of_a_codes_letters():
    vouch = gateway().vouch(None, "guest-6", "198.51.100.7", "web", code="ABCD-EFGH-JKLM")
    assert gateway_assertions.parse(vouch.assertion)[0].code == "ABCD-EFGH-JKLM"
    with pytest.raises(gateway_assertions.BadAssertion, match="code"):
        gateway_assertions.parse(gateway().vouch(None, "guest-7", "198.51.100.7", "web", code="x" * 33).assertion)
    with pytest.raises(gateway_assertions.BadAssertion, match="code"):
        gateway_assertions.parse(gateway().vouch(None, "guest-8", "198.51.100.7", "web", code="AB/CD").assertion)
