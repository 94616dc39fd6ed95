"""``ssh HOST record 42 > game.json`` and ``ssh HOST games`` (issue 15, point 4), with OpenSSH's own
client: the record on stdout and status 0, the games as a table; a game of someone else's, a game
in progress, bad arguments and any other command get one line on stderr and a non-zero status."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil
import sys

import asyncssh
import pytest

from aton.record import GameRecord, replay, summary
from aton_tui.cli import vouched
from protocol import messages as m
from protocol.handoff import HOSTED_BY_SSH
from server.hosted_client import identity_environment
from server.rates import BucketsByKey
from server.ssh.commands import REFUSED, USAGE_GAMES, USAGE_RECORD
from server.ssh.gateway import SSHGateway
from server.ssh.identity import fingerprint

from ..server.players import Recorder, bot_game
from .terminal import Stack, client_children, key_file, openssh

pytestmark = pytest.mark.skipif(not shutil.which("ssh"), reason="needs OpenSSH's ssh (.ci/run installs it)")


async def client_of(stack: Stack, key: asyncssh.SSHKey, name: str) -> Recorder:
    """The game client an SSH login with ``key`` runs: in the key's session, proving the key's
    account with the gateway's assertion of it (as ``server.ssh.session`` hands it over)."""
    identity = stack.gateway.identities.for_key(fingerprint(key), name, "127.0.0.1")
    return await Recorder.connect(stack.server.port, name, kind="human", lobby=False,
                                  proof=vouched(identity_environment(identity, HOSTED_BY_SSH)))


@pytest.fixture
async def plain_stack(stack_factory):
    return await stack_factory(fork_server=False)  # these sessions never start a game client


@pytest.fixture(params=["beside", "apart"])
async def commands_port(request, plain_stack):
    """Where the commands are asked: the SSH port of the gateway beside the game server, which reads
    its database, or of a gateway apart from it (in this process, but with no database: it asks
    the game server over the game protocol, as ``aton-server gateway`` does)."""
    if request.param == "beside":
        yield plain_stack.port
        return
    apart = SSHGateway(dataclasses.replace(plain_stack.ssh, port=0), "127.0.0.1", plain_stack.server.port, ":memory:",
                       None, plain_stack.server.gateway_signer)
    await apart.start()
    yield apart.port
    await apart.stop()


async def test_record_and_games_over_ssh(plain_stack, commands_port, tmp_path):
    stack = plain_stack
    alice_key, alice = key_file(tmp_path, "alice")
    bob_key, bob = key_file(tmp_path, "bob")
    alice_player, bob_player = await client_of(stack, alice, "alice"), await client_of(stack, bob, "bob")
    finished = await bot_game(alice_player, resign=True)
    bobs = await bot_game(bob_player, resign=True)
    going = await bot_game(alice_player, resign=False)

    status, out, err = await openssh(commands_port, alice_key, "record", str(finished))
    assert (status, err) == (0, "")
    record = json.loads(out)
    assert summary(replay(GameRecord.from_dict(record)))["winner"] is not None
    assert record["meta"]["game"] == finished and record["meta"]["result"]["reason"] == "resign"
    saved = tmp_path / "game.json"  # what `> game.json` keeps replays in aton replay
    saved.write_bytes(out)
    replayed = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "aton_tui", "replay", str(saved), "--json", stdout=asyncio.subprocess.PIPE)
    final = json.loads((await replayed.communicate())[0])
    assert final["winner"] == record["meta"]["result"]["winner"]

    status, out, err = await openssh(commands_port, alice_key, "games")
    assert (status, err) == (0, "")
    table = out.decode().splitlines()
    assert table[0].split() == ["game", "date", "(UTC)", "opponent", "result", "length"]
    assert [row.split()[0] for row in table[1:]] == [str(going), str(finished)]  # newest first, not bob's
    assert "Bot (random)" in table[2] and "lost (resign)" in table[2] and "1 round" in table[2]
    assert table[1].split()[-2:] == ["playing", "-"]
    status, out, err = await openssh(commands_port, alice_key, "games", "--json")
    assert (status, err) == (0, "")
    lines = [json.loads(line) for line in out.decode().splitlines()]
    assert [(g["game"], g["result"], g["opponent"]) for g in lines] == [
        (going, "playing", "Bot (random)"), (finished, "lost", "Bot (random)")]
    assert lines[0]["rounds"] is None and lines[0]["seconds"] is None  # nothing of a game in play

    refusals = [
        (("record", str(bobs)), 1, f"aton: there is no game {bobs}"),  # someone else's private game
        (("record", str(going)), 1, f"aton: the record of game {going} is available once the game is over"),
        (("record", "99999"), 1, "aton: there is no game 99999"),
        (("record",), 2, USAGE_RECORD), (("record", "42x"), 2, USAGE_RECORD), (("record", "1", "2"), 2, USAGE_RECORD),
        (("record", "9" * 40), 2, USAGE_RECORD), (("games", "0"), 2, USAGE_GAMES), (("games", "--all"), 2, USAGE_GAMES),
        (("ls", "-la", "/"), 1, REFUSED), (("cat", "/etc/passwd"), 1, REFUSED), (("recordx",), 1, REFUSED),
    ]
    for command, expected_status, line in refusals:
        status, out, err = await openssh(commands_port, alice_key, *command)
        assert (status, out, err) == (expected_status, b"", line + "\n"), command
    assert client_children() == set()
    await asyncio.gather(alice_player.close(), bob_player.close())
    del bob_key


async def test_a_public_game_is_served_over_ssh_to_anyone_and_requests_are_rate_limited(plain_stack, commands_port,
                                                                                         tmp_path):
    stack = plain_stack
    a = await Recorder.connect(stack.server.port, "ann", kind="bot", lobby=False)
    b = await Recorder.connect(stack.server.port, "ben", kind="bot", lobby=False)
    await a.send(m.QuickMatch())
    await a.expect(m.Queued)
    await b.send(m.QuickMatch())
    game = (await a.expect(m.GameState)).game
    await b.send(m.Resign(game=game))
    await a.until(lambda f: f.view["winner"] is not None, kind=m.Update)
    stranger_key, _ = key_file(tmp_path, "stranger")
    status, out, err = await openssh(commands_port, stranger_key, "record", str(game))  # anyone could have watched it
    assert (status, err) == (0, "") and json.loads(out)["meta"]["players"]["red"]["name"] in ("ann", "ben")
    stack.server.history.requests = BucketsByKey(rate=0.001, burst=2)  # the server's bucket, smaller
    answers = [await openssh(commands_port, stranger_key, "games") for _ in range(3)]
    assert [status for status, _, _ in answers] == [0, 0, 1]
    assert answers[-1] == (1, b"", "aton: too many requests for games and records: wait a few seconds\n")
    await asyncio.gather(a.close(), b.close())


async def test_an_accounts_games_and_records_over_ssh_from_either_of_its_keys(plain_stack, tmp_path):
    """Two keys of one account: each key's ``games`` lists the games played with the other too,
    and ``record`` serves them (the account's, not the key's session's)."""
    stack = plain_stack
    first_key, first = key_file(tmp_path, "first")
    second_key, second = key_file(tmp_path, "second")
    with_first = await client_of(stack, first, "alice")
    await with_first.send(m.AddKey(key=second.export_public_key().decode().strip()))
    await with_first.expect(m.AccountInfo)
    with_second = await client_of(stack, second, "alice")
    assert with_first.client.name == with_second.client.name == "alice"  # one account, two sessions
    played_first = await bot_game(with_first, resign=True)
    played_second = await bot_game(with_second, resign=True)
    await asyncio.gather(with_first.close(), with_second.close())

    for key in (first_key, second_key):
        status, out, err = await openssh(stack.port, key, "games", "--json")
        assert (status, err) == (0, ""), key
        assert [json.loads(line)["game"] for line in out.decode().splitlines()] == [played_second, played_first]
        for game in (played_first, played_second):  # private bot games: only their player's
            status, out, err = await openssh(stack.port, key, "record", str(game))
            assert (status, err) == (0, "") and json.loads(out)["meta"]["game"] == game, (key, game)
    stranger_key, _ = key_file(tmp_path, "stranger")
    status, out, err = await openssh(stack.port, stranger_key, "record", str(played_first))
    assert (status, out, err) == (1, b"", f"aton: there is no game {played_first}\n")


async def test_games_over_ssh_name_an_opponent_as_they_are_named_now(plain_stack, tmp_path):
    stack = plain_stack
    alice_key, alice = key_file(tmp_path, "alice")
    player = await client_of(stack, alice, "alice")
    bob = await Recorder.connect(stack.server.port, "bob", kind="human", lobby=False)
    await player.send(m.CreateTable())
    await bob.send(m.JoinTable(table=(await player.expect(m.TableCreated)).table))
    game = (await bob.expect(m.GameState)).game
    await bob.send(m.Resign(game=game))
    await player.until(lambda u: u.game == game and u.view["winner"] is not None, kind=m.Update)
    await bob.send(m.Rename(name="robert"))
    assert (await bob.expect(m.AccountInfo)).name == "robert"
    await asyncio.gather(player.close(), bob.close())

    status, out, err = await openssh(stack.port, alice_key, "games")
    assert (status, err) == (0, "")
    _header, row = out.decode().splitlines()
    assert row.split()[0] == str(game) and "robert (then: bob)" in row and "won (resign)" in row
    status, out, err = await openssh(stack.port, alice_key, "games", "--json")
    line = json.loads(out)
    assert (line["opponent"], line["opponent_then"], line["opponent_guest"]) == ("robert", "bob", False)
