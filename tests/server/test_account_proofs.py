"""Accounts on a real server (issue 15, point 1): a hello proves an account key by signing the
server's challenge; a wrong key and a bad or replayed signature leave the client a guest with
a marked name (a gateway's assertions: test_gateway_assertions.py); a stolen resume token takes
nothing of an account's; names are owned;
``--no-guests`` refuses what proves nothing; an account renames itself and manages its keys."""

from __future__ import annotations

import asyncio

import pytest

from protocol import messages as m
from protocol.account_keys import AccountKey, proof_message
from protocol.client import Client, ServerError
from protocol.errors import ErrorCode
from server.app import ArbiterServer
from server.config import Limits, ServerConfig
from server.connection import Connection

from ..conftest import GAME_SEED
from ..manual_clock import ManualClock
from .players import RawPeer, Recorder


class WrongKey(AccountKey):
    """Claims one key and signs with another."""

    def __init__(self, claimed: AccountKey, signer: AccountKey) -> None:
        super().__init__(claimed.private)
        self.signer = signer

    def answer(self, message: bytes) -> bytes:
        return self.signer.answer(message)


class Garbage(AccountKey):
    def answer(self, message: bytes) -> bytes:
        return bytes(64)


async def started(tmp_path, **config) -> ArbiterServer:
    srv = ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db"), game_seed=GAME_SEED,
                                     **config), clock=ManualClock())
    await srv.start()
    return srv


async def guest_after_failed_proof(port: int, proof: AccountKey, name: str, shown: str) -> Client:
    """A client whose proof fails: told so, and a guest shown as ``shown``."""
    client = await Client.connect("127.0.0.1", port, name=name, lobby=False, proof=proof)
    assert client.proof_error is not None and client.proof_error.code == ErrorCode.PROOF_FAILED
    assert proof.fingerprint in client.proof_error.message and "you play as a guest" in client.proof_error.message
    assert client.welcome is not None and client.welcome.guest and client.name == shown
    return client


async def test_a_proved_key_is_an_account_and_comes_back_as_it(server):
    key = AccountKey.generate()
    first = await Client.connect("127.0.0.1", server.port, name="ann", lobby=False, proof=key)
    assert first.welcome is not None and first.welcome.guest is False and first.name == "ann"
    assert first.proof_error is None and first.welcome.notice is None
    await first.close()
    again = await Client.connect("127.0.0.1", server.port, name="someone else", lobby=False, proof=key)
    assert again.name == "ann"  # the key's account, whatever the hello says
    account = server.accounts.by_fingerprint(key.fingerprint)
    assert account is not None and account.name == "ann"
    [stored] = server.accounts.keys(account)
    assert stored.logins == 2 and stored.last_seen is not None
    await again.close()


@pytest.mark.parametrize("how", ["another key's signature", "a signature of zeros"])
async def test_a_proof_that_fails_gets_a_clear_error_and_plays_as_a_guest(server, how):
    owner = AccountKey.generate()
    await (await Client.connect("127.0.0.1", server.port, name="ann", lobby=False, proof=owner)).close()
    proof = WrongKey(owner, AccountKey.generate()) if how == "another key's signature" else \
        Garbage(owner.private)
    client = await guest_after_failed_proof(server.port, proof, "ann", "~ann-2")  # ann is an account's name
    assert server.accounts.by_fingerprint(owner.fingerprint) is not None  # the account is untouched
    await client.close()


async def test_a_signature_replayed_from_another_connection_proves_nothing(server):
    """A signature answers one challenge: the nonce is new on every connection."""
    key = AccountKey.generate()
    honest = RawPeer(*await asyncio.open_connection("127.0.0.1", server.port))
    honest.send({"type": "hello", "version": m.PROTOCOL_VERSION, "name": "ann", "kind": "human", "lobby": False,
                 "key": key.public_line})
    challenge = await honest.read()
    signature = key.answer(proof_message(challenge["nonce"], challenge["server"], key.fingerprint))
    honest.send({"type": "prove", "signature": signature})
    assert (await honest.read())["name"] == "ann"
    thief = RawPeer(*await asyncio.open_connection("127.0.0.1", server.port))
    thief.send({"type": "hello", "version": m.PROTOCOL_VERSION, "name": "ann", "kind": "human", "lobby": False,
                "key": key.public_line})
    second = await thief.read()
    assert second["type"] == "challenge" and second["nonce"] != challenge["nonce"]
    thief.send({"type": "prove", "signature": signature})  # what ann sent, seen on the wire
    error, welcome = await thief.read(), await thief.read()
    assert (error["type"], error["code"]) == ("error", "proof_failed")
    assert (welcome["type"], welcome["guest"], welcome["name"]) == ("welcome", True, "~ann-2")
    honest.close()
    thief.close()


async def test_a_stolen_resume_token_takes_nothing_of_an_account(server):
    alice = await Recorder.connect(server.port, "alice", lobby=False)
    await alice.send(m.PlayBot(level="random", clock="relaxed"))
    state = await alice.expect(m.GameState)
    token = alice.client.resume_token
    room = server.rooms[state.game]
    for proof in (None, AccountKey.generate()):  # as a guest, or with a key of one's own
        with pytest.raises(ServerError) as refused:
            await Client.connect("127.0.0.1", server.port, name="mallory", resume=token, lobby=False, proof=proof)
        assert refused.value.code == ErrorCode.UNKNOWN_SESSION
        assert "belongs to an account this hello does not prove" in refused.value.error.message
    seat = next(held for s, held in room.seats.items() if str(s) == state.seat)
    assert isinstance(seat.participant, Connection) and seat.participant.account is not None
    assert seat.participant.account.name == "alice"  # the seat still answers to alice's connection
    await alice.send(m.Ping())
    await alice.expect(m.Pong)  # never replaced
    await alice.close()
    # not even while alice is away: her seat waits for her key
    with pytest.raises(ServerError):
        await Client.connect("127.0.0.1", server.port, name="mallory", resume=token, lobby=False)
    back = await Client.connect("127.0.0.1", server.port, name="x", resume=token, lobby=False, proof=alice.client.proof)
    assert back.name == "alice" and back.welcome is not None and back.welcome.games == (state.game,)
    await back.close()


async def test_an_owned_name_is_offered_a_free_variant_and_guests_are_marked(server):
    alice = await Recorder.connect(server.port, "alice", lobby=False)
    other = await Recorder.connect(server.port, "Alice", lobby=False)  # another key
    assert other.client.name == "Alice-2"
    assert other.client.welcome is not None and other.client.welcome.notice == (
        'The name "Alice" belongs to another player: you are "Alice-2" here. You may choose another name in your '
        "account.")
    guest = await Recorder.connect(server.port, "alice", lobby=False, proof=None)
    assert guest.client.name == "~alice-3" and guest.client.welcome is not None and guest.client.welcome.guest
    marked = await Recorder.connect(server.port, "~bob", lobby=False, proof=None)  # the mark is the server's
    assert marked.client.name == "~bob"
    keyed = await Recorder.connect(server.port, "~~carol", lobby=False)
    assert keyed.client.name == "carol"
    old = await Recorder.connect(server.port, "dave", lobby=False, version="1.5")  # a 1.5 client: a guest
    assert old.client.name == "~dave"
    await old.send(m.PlayBot(level="random", clock="relaxed"))
    state = await old.expect(m.GameState)  # and plays
    assert state.seat is not None and state.players[state.seat]["name"] == "~dave"
    for player in (alice, other, guest, marked, keyed, old):
        await player.close()


async def test_without_guests_only_a_proved_key_is_admitted(tmp_path):
    srv = await started(tmp_path, guests=False)
    try:
        for proof, version in ((None, m.PROTOCOL_VERSION), (None, "1.5"),
                               (Garbage(AccountKey.generate().private), m.PROTOCOL_VERSION)):
            with pytest.raises(ServerError) as refused:
                await Client.connect("127.0.0.1", srv.port, name="ann", lobby=False, proof=proof, version=version)
            assert refused.value.code in (ErrorCode.NOT_ALLOWED, ErrorCode.PROOF_FAILED)
        peer = await RawPeer.open(srv.port, hello=False)
        peer.send({"type": "hello", "version": m.PROTOCOL_VERSION, "name": "ann", "kind": "human"})
        frames = await peer.read_until_closed()
        assert [f["type"] for f in frames] == ["error", "bye"]
        assert frames[0]["message"].startswith("this server admits players with an account key only")
        client = await Client.connect("127.0.0.1", srv.port, name="ann", lobby=False, proof=AccountKey.generate())
        assert client.name == "ann"
        await client.close()
    finally:
        await srv.stop()


async def test_one_account_online_twice_is_one_player_of_the_lobby(server):
    key = AccountKey.generate()
    watcher = await Recorder.connect(server.port, "wanda")
    await watcher.expect(m.Lobby)
    first = await Recorder.connect(server.port, "ann", lobby=False, proof=key)
    second = await Recorder.connect(server.port, "ann", lobby=False, proof=key)
    assert first.client.name == second.client.name == "ann"
    assert sorted(server.lobby.sections["players"].entries) == ["ann", "wanda"]
    await first.close()
    await watcher.send(m.Ping())
    await watcher.expect(m.Pong)
    assert "ann" in server.lobby.sections["players"].entries  # still online, on the second connection
    await second.close()


async def account_reply(player: Recorder, request: m.Message) -> m.AccountInfo | m.Error:
    await player.send(request)
    return await player.until(lambda f: isinstance(f, (m.AccountInfo, m.Error)))  # type: ignore[return-value]


async def test_an_account_renames_itself_and_manages_its_keys(server):
    key = AccountKey.generate()
    ann = await Recorder.connect(server.port, "ann", proof=key)
    await ann.expect(m.Lobby)
    await Recorder.connect(server.port, "bob", lobby=False)
    info = await account_reply(ann, m.GetAccount())
    assert isinstance(info, m.AccountInfo)
    assert (info.name, info.guest, info.kind, info.key) == ("ann", False, "human", key.fingerprint)
    assert [k["fingerprint"] for k in info.keys] == [key.fingerprint] and info.keys[0]["logins"] == 1
    taken = await account_reply(ann, m.Rename(name="BOB"))
    assert isinstance(taken, m.Error) and taken.code == "name_taken" and taken.field == "name"
    assert taken.message == 'the name "BOB" belongs to another player; "BOB-2" is free'
    renamed = await account_reply(ann, m.Rename(name="Annie"))
    assert isinstance(renamed, m.AccountInfo) and renamed.name == "Annie"
    assert "Annie" in server.lobby.sections["players"].entries and "ann" not in server.lobby.sections["players"].entries
    again = await Client.connect("127.0.0.1", server.port, name="ann", lobby=False, proof=key)
    assert again.name == "Annie"  # the account's name now
    await again.close()
    # a second key, pasted as its public line; then it signs in as the same account
    laptop = AccountKey.generate()
    bad = await account_reply(ann, m.AddKey(key="ssh-ed25519 not-base64!"))
    assert isinstance(bad, m.Error) and bad.code == "invalid" and bad.field == "key"
    added = await account_reply(ann, m.AddKey(key=laptop.public_line + " ann@laptop"))
    assert isinstance(added, m.AccountInfo) and {k["fingerprint"] for k in added.keys} == {key.fingerprint,
                                                                                          laptop.fingerprint}
    from_laptop = await Client.connect("127.0.0.1", server.port, name="x", lobby=False, proof=laptop)
    assert from_laptop.name == "Annie"
    await from_laptop.close()
    bobs = server.accounts.by_name("bob")
    assert bobs is not None
    bob_key = server.accounts.keys(bobs)[0].fingerprint
    removed = await account_reply(ann, m.RemoveKey(fingerprint=bob_key))  # not one of hers
    assert isinstance(removed, m.Error) and removed.code == "not_found"
    removed = await account_reply(ann, m.RemoveKey(fingerprint=key.fingerprint))
    assert isinstance(removed, m.AccountInfo) and [k["fingerprint"] for k in removed.keys] == [laptop.fingerprint]
    last = await account_reply(ann, m.RemoveKey(fingerprint=laptop.fingerprint))
    assert isinstance(last, m.Error) and last.code == "not_allowed" and "last key" in last.message
    await ann.close()


async def test_guests_have_no_account_to_change_and_changes_are_rate_limited(tmp_path):
    srv = await started(tmp_path, limits=Limits(account_changes=2))
    try:
        guest = await Recorder.connect(srv.port, "gus", lobby=False, proof=None)
        info = await account_reply(guest, m.GetAccount())
        assert isinstance(info, m.AccountInfo) and info.guest and info.name == "~gus" and info.keys == ()
        refused = await account_reply(guest, m.Rename(name="gus"))
        assert isinstance(refused, m.Error) and refused.code == "not_allowed"
        ann = await Recorder.connect(srv.port, "ann", lobby=False)
        for name in ("ann1", "ann2"):
            assert isinstance(await account_reply(ann, m.Rename(name=name)), m.AccountInfo)
        limited = await account_reply(ann, m.Rename(name="ann3"))
        assert isinstance(limited, m.Error) and limited.code == "rate_limited"
        await ann.send(m.PlayBot(level="random", clock="relaxed"))
        await ann.expect(m.GameState)
    finally:
        await srv.stop()


async def test_no_rename_while_playing(server):
    ann = await Recorder.connect(server.port, "ann", lobby=False)
    await ann.send(m.PlayBot(level="random", clock="relaxed"))
    await ann.expect(m.GameState)
    refused = await account_reply(ann, m.Rename(name="anna"))
    assert isinstance(refused, m.Error) and refused.code == "not_allowed" and "finish your games" in refused.message
    await ann.close()


async def test_new_accounts_from_one_address_are_limited(tmp_path):
    srv = await started(tmp_path, limits=Limits(new_accounts_per_address=2))
    try:
        known = [AccountKey.generate() for _ in range(2)]
        for key in known:
            await (await Client.connect("127.0.0.1", srv.port, name="p", lobby=False, proof=key)).close()
        with pytest.raises(ServerError) as refused:
            await Client.connect("127.0.0.1", srv.port, name="p", lobby=False, proof=AccountKey.generate())
        assert refused.value.code == ErrorCode.RATE_LIMITED and "new accounts" in refused.value.error.message
        again = await Client.connect("127.0.0.1", srv.port, name="p", lobby=False, proof=known[0])  # known keys: in
        assert again.name == "p"
        await again.close()
        elsewhere = await Client.connect("127.0.0.1", srv.port, name="q", lobby=False, proof=AccountKey.generate(),
                                         local_addr=("127.0.0.2", 0))
        assert elsewhere.name == "q"
        await elsewhere.close()
    finally:
        await srv.stop()
