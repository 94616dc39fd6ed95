"""Accounts over real SSH (issue 15, point 1): the gateway vouches for the key it authenticated,
the client it runs proves that key's account to the game server, a name belongs to the first key
that takes it (another key is told, in the client, and gets a free variant), and an SSH key and a
native client's key can be one account."""

from __future__ import annotations

import asyncssh

from protocol import messages as m
from protocol.account_keys import AccountKey
from protocol.client import Client

from .terminal import IN_LOBBY, LOBBY, connect, open_terminal


async def test_a_name_belongs_to_the_first_key_and_the_second_is_told_in_the_client(stack):
    first_key, second_key = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    first = await connect(stack.port, "alice", first_key)
    _chan, term = await open_terminal(first)
    await term.wait_for(IN_LOBBY, timeout=15)
    account = stack.server.accounts.by_fingerprint(first_key.get_fingerprint("sha256"))
    assert account is not None and account.name == "alice"
    second = await connect(stack.port, "alice", second_key)
    _chan2, term2 = await open_terminal(second, size=(120, 40))
    await term2.wait_for(IN_LOBBY, timeout=15)
    await term2.wait_for("belongs to another player")  # said on the screen, with the name it got
    await term2.wait_for("alice-2")
    other = stack.server.accounts.by_fingerprint(second_key.get_fingerprint("sha256"))
    assert other is not None and other.name == "alice-2"
    names = {c.name: c.account for c in stack.server.connections}
    assert names["alice"] == account and names["alice-2"] == other  # proved, not guests
    for conn in (first, second):
        conn.close()
        await conn.wait_closed()


async def test_an_ssh_key_added_from_a_native_session_logs_in_as_that_account(stack):
    native = AccountKey.generate()
    client = await Client.connect("127.0.0.1", stack.server.port, name="nina", lobby=False, proof=native)
    ssh_key = asyncssh.generate_private_key("ssh-ed25519")
    await client.send(m.AddKey(key=ssh_key.export_public_key().decode().strip()))
    info = await client.expect(m.AccountInfo)
    assert ssh_key.get_fingerprint("sha256") in {k["fingerprint"] for k in info.keys}
    await client.close()
    conn = await connect(stack.port, "someone", ssh_key)
    _chan, term = await open_terminal(conn)
    await term.wait_for(LOBBY, timeout=15)
    await term.wait_for("nina")
    [served] = [c for c in stack.server.connections if c.account is not None and c.account.name == "nina"]
    assert served.key == ssh_key.get_fingerprint("sha256")
    conn.close()
    await conn.wait_closed()

