"""Moderation (issue 15, point 5) on a real server on loopback: the operator's bans and chat mutes
made with ``aton-server admin`` on the database while the server runs, players' own mutes and
reports, and the logins the operator lists.

Clients connect from different loopback addresses (127.0.0.2, 127.0.0.3) so that an address ban
covers one and not another.  The server's clock is a test's own: a ban reaches a live session
when the clock has moved one polling period, never by waiting."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from protocol import messages as m
from protocol.account_keys import AccountKey
from protocol.client import Client, ServerError
from server.app import ArbiterServer
from server.cli import main as server_main
from server.config import Limits, ServerConfig

from ..conftest import GAME_SEED
from ..manual_clock import ManualClock
from .players import Recorder
from .test_fair_decks import Silent

BANNED = "127.0.0.2"
OTHER = "127.0.0.3"
POLL = ServerConfig.moderation_poll_seconds


@pytest.fixture
async def server(tmp_path):
    """A server whose chat has no pause between lines (the tests chat in quick succession) and
    that takes two reports a day from one player."""
    config = ServerConfig(port=0, db_path=str(tmp_path / "aton.db"), game_seed=GAME_SEED,
                          limits=Limits(chat_interval=0.0, reports_per_day=2))
    srv = ArbiterServer(config, clock=ManualClock())
    await srv.start()
    yield srv
    await srv.stop()


def admin(srv: ArbiterServer, *args: str, capsys=None) -> str:
    """Run ``aton-server admin ARGS`` on the server's database (as the operator would, beside the
    running server); what it printed."""
    status = server_main(["admin", *args, "--db", srv.config.db_path])
    assert status == 0, f"aton-server admin {' '.join(args)} failed"
    return "" if capsys is None else capsys.readouterr().out


async def hello_from(port: int, source: str, name: str, version: str = m.PROTOCOL_VERSION) -> tuple[m.Message, ...]:
    """Say hello from ``source``; every frame the server sends until it closes the connection
    (None at the end if it never closes it)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    client = Client(reader, writer)
    await client.send(m.Hello(version=version, name=name, kind="human", lobby=False))
    frames: list[m.Message] = []
    try:
        while len(frames) < 2:
            frames.append(await client.recv(5))
        await asyncio.wait_for(reader.read(), 5)  # the end of the stream: the server closed it
    finally:
        await client.close()
    return tuple(frames)


async def seated(port: int, names: tuple[str, str], sources: tuple[str, str]) -> tuple[Recorder, Recorder]:
    """Two players at one game (the first named is whoever got red), each from its own address."""
    a = await Recorder.connect(port, names[0], lobby=False, local_addr=(sources[0], 0))
    b = await Recorder.connect(port, names[1], lobby=False, local_addr=(sources[1], 0))
    await a.send(m.QuickMatch(clock="normal"))
    await a.expect(m.Queued)
    await b.send(m.QuickMatch(clock="normal"))
    await asyncio.gather(a.expect(m.GameState), b.expect(m.GameState))
    return a, b


# --------------------------------------------------------------------------- bans


async def test_an_address_ban_refuses_hello_in_one_line_and_unban_lets_them_back(server, capsys):
    said = admin(server, "ban", BANNED, "--reason", "flooding the lobby", "--for", "7d", capsys=capsys)
    assert said.startswith("Banned address 127.0.0.2 until 20") and "flooding the lobby" in said

    error, bye = await hello_from(server.port, BANNED, "mallory")
    assert isinstance(error, m.Error) and error.code == "banned"
    assert error.message.startswith("You are banned from this server (reason: flooding the lobby) until 20")
    assert error.message.endswith(" UTC.")
    assert isinstance(bye, m.Bye) and (bye.code, bye.reason) == ("banned", error.message)
    other = await Client.connect("127.0.0.1", server.port, name="ann", local_addr=(OTHER, 0))
    await other.close()

    admin(server, "unban", BANNED)
    back = await Client.connect("127.0.0.1", server.port, name="mallory", local_addr=(BANNED, 0))
    await back.close()


async def test_a_network_ban_covers_every_address_in_it_and_no_other(server):
    admin(server, "ban", "127.0.0.0/30")
    for source in ("127.0.0.1", BANNED, OTHER):
        error, _bye = await hello_from(server.port, source, "mallory")
        assert isinstance(error, m.Error) and error.code == "banned" and error.message == \
            "You are banned from this server."
    outside = await Client.connect("127.0.0.1", server.port, name="ann", local_addr=("127.0.0.4", 0))
    await outside.close()


async def test_a_client_older_than_1_6_is_refused_with_codes_it_knows(server):
    admin(server, "ban", BANNED)
    error, bye = await hello_from(server.port, BANNED, "mallory", version="1.5")
    assert isinstance(error, m.Error)
    assert (error.code, error.message) == ("not_allowed", "You are banned from this server.")
    assert isinstance(bye, m.Bye) and bye.code == "misbehaving"


async def test_a_ban_ends_when_it_expires(server):
    admin(server, "ban", BANNED, "--for", "1h")
    error, _ = await hello_from(server.port, BANNED, "mallory")
    assert isinstance(error, m.Error) and error.code == "banned"
    now = server.moderation.wall()
    server.moderation.wall = lambda: now + 3600
    back = await Client.connect("127.0.0.1", server.port, name="mallory", local_addr=(BANNED, 0))
    await back.close()


async def test_a_ban_closes_a_live_session_within_the_polling_time_and_its_game_ends_as_abandoned(server):
    mallory, ann = await seated(server.port, ("mallory", "ann"), (BANNED, OTHER))
    admin(server, "ban", BANNED, "--reason", "cheating")
    server.clock.advance(POLL * 0.9)
    assert not [f for f in mallory.frames if isinstance(f, (m.Error, m.Bye))]

    server.clock.advance(POLL * 0.1)  # one polling period after the ban
    error = await mallory.expect(m.Error)
    assert (error.code, error.message) == ("banned", "You are banned from this server (reason: cheating).")
    bye = await mallory.expect(m.Bye)
    assert bye.code == "banned"
    over = await ann.until(lambda u: u.view["winner"] is not None, kind=m.Update)
    assert over.view["winner"] == ann.seat and over.view["reason"] == "abandoned"
    assert over.events[-1]["type"] == "game_over"
    stored = server.store.load_games(status="over")
    assert [g.result["reason"] for g in stored if g.id == ann.game] == ["abandoned"]
    assert "mallory" not in server.lobby.online
    await ann.close()


async def test_an_account_ban_refuses_that_accounts_proved_hello_and_closes_its_live_session(server):
    key = AccountKey.generate()
    mallory = await Recorder.connect(server.port, "mallory", lobby=False, proof=key)
    account = server.accounts.by_name("mallory")
    assert account is not None and server.lobby.online["mallory"].account == account
    admin(server, "ban", "mallory", "--reason", "abuse")
    server.clock.advance(POLL)
    error = await mallory.expect(m.Error)
    assert (error.code, error.message) == ("banned", "You are banned from this server (reason: abuse).")
    assert (await mallory.expect(m.Bye)).code == "banned"
    assert [(b.account, b.network) for b in server.moderation.bans] == [(account.id, None)]

    with pytest.raises(ServerError) as refused:
        await Client.connect("127.0.0.1", server.port, name="mallory", proof=key)
    assert (refused.value.code, refused.value.error.message) == ("banned", error.message)
    other = await Client.connect("127.0.0.1", server.port, name="ann", proof=AccountKey.generate())
    await other.close()  # another account from the same address plays

    admin(server, "unban", "mallory")
    back = await Client.connect("127.0.0.1", server.port, name="mallory", proof=key)
    assert back.name == "mallory"
    await back.close()


async def test_a_ban_during_the_deal_ends_the_game_at_once_and_the_other_player_wins_it(tmp_path):
    """The ban reaches a player whose game is still being dealt (its deal waits for them): the
    game does not wait for them (nor for a grace period): it opens and ends at once, the other
    player told that they left, winning (a rated game: their rating goes up), and the deal verified."""
    clock = ManualClock()
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db")),  # no fixed seed: a fair deal
                        clock=clock, rng=random.Random(2026))
    await srv.start()
    try:
        mallory = Recorder(await Silent.connect("127.0.0.1", srv.port, name="mallory", lobby=False,
                                                proof=AccountKey.generate(), local_addr=(BANNED, 0)))
        ann = await Recorder.connect(srv.port, "ann", lobby=False, local_addr=(OTHER, 0))
        await mallory.send(m.QuickMatch(clock="normal", rated=True))
        await mallory.expect(m.Queued)
        await ann.send(m.QuickMatch(clock="normal", rated=True))
        deal = await ann.expect(m.Deal)
        await ann.expect(m.Ack)  # ann's commitment is in; mallory's never comes
        assert not srv.rooms and deal.game in srv.deals

        admin(srv, "ban", BANNED, "--reason", "cheating")
        clock.advance(POLL)  # one polling period: far less than the deal's wait or a grace period
        assert (await mallory.expect(m.Error)).code == "banned"
        state = await ann.expect(m.GameState)
        assert state.game == deal.game and state.players[ann.seat]["name"] == "ann"
        over = await ann.until(lambda u: u.view["winner"] is not None, kind=m.Update)
        assert over.view["winner"] == ann.seat and over.view["reason"] == "abandoned"
        changed = {e["player"]: e for e in over.events if e["type"] == "rating_changed"}
        assert changed[ann.seat]["after"] > changed[ann.seat]["before"]  # won, not penalised
        logged = [e["type"] for e in (*state.log, *ann.events())]
        assert "disconnected" not in logged  # no grace period to wait for: gone for good
        revealed = await ann.expect(m.DealRevealed)
        assert revealed.game == deal.game and ann.client.verdicts[deal.game].verified is True
        assert [(g.id, (g.result or {}).get("reason")) for g in srv.store.load_games(status="over")] == \
            [(deal.game, "abandoned")]
        assert clock.now() == POLL and not srv.deals
        await ann.close()
        await mallory.close()
    finally:
        await srv.stop()


# --------------------------------------------------------------------------- chat


async def test_an_operator_mute_refuses_that_accounts_chat_and_nobody_sees_it(server, capsys):
    mallory, ann = await seated(server.port, ("mallory", "ann"), ("127.0.0.1", OTHER))
    said = admin(server, "mute", "mallory", "--reason", "insults", "--for", "1d", capsys=capsys)
    assert said.startswith("Muted mallory in chat until 20") and said.rstrip().endswith("within seconds.")

    await mallory.send(m.Chat(game=mallory.game, text="you fool"))
    error = await mallory.expect(m.Error)
    assert error.code == "muted"
    assert error.message.startswith("The server's operator has muted you in chat (reason: insults) until 20")
    await ann.send(m.Chat(game=ann.game, text="hello?"))
    heard = await ann.expect(m.Update)
    assert [e["text"] for e in heard.events if e["type"] == "chat"] == ["hello?"]  # and not mallory's
    assert "mallory" in admin(server, "mutes", capsys=capsys)

    admin(server, "unmute", "mallory")
    await mallory.send(m.Chat(game=mallory.game, text="sorry"))
    update = await ann.until(lambda u: any(e["type"] == "chat" and e["name"] == "mallory" for e in u.events),
                             kind=m.Update)
    assert [e["text"] for e in update.events if e["type"] == "chat"] == ["sorry"]


# --------------------------------------------------------------------------- a player's own mutes


async def test_a_players_mute_hides_that_opponents_lines_from_them_only(server):
    ann, ben = await seated(server.port, ("ann", "ben"), ("127.0.0.1", OTHER))
    watcher = await Recorder.connect(server.port, "cleo", lobby=False)
    await watcher.send(m.Watch(game=ann.game))
    await watcher.expect(m.GameState)

    await ann.send(m.Mute(name="BEN"))  # as any name that looks like it
    assert (await ann.expect(m.Mutes)).names == ("ben",)
    await ben.send(m.Chat(game=ben.game, text="you will lose"))
    hidden = await ann.until(lambda u: any(e["type"].startswith("chat") for e in u.events), kind=m.Update)
    said = await watcher.until(lambda u: any(e["type"] == "chat" for e in u.events), kind=m.Update)
    own = await ben.until(lambda u: any(e["type"] == "chat" for e in u.events), kind=m.Update)
    assert [e for e in hidden.events if e["type"].startswith("chat")] == \
        [{"type": "chat_hidden", "player": ben.seat, "version": hidden.version}]
    assert "you will lose" not in json.dumps(hidden.to_wire())
    assert [e["text"] for e in said.events if e["type"] == "chat"] == ["you will lose"]
    assert [e["text"] for e in own.events if e["type"] == "chat"] == ["you will lose"]
    assert hidden.version == said.version == own.version  # one event, in the same place for all

    await ann.send(m.Sync(game=ann.game))  # the game's log keeps it hidden too
    state = await ann.expect(m.GameState)
    assert [e["type"] for e in state.log if e["type"].startswith("chat")] == ["chat_hidden"]

    await ann.send(m.Unmute(name="ben"))
    assert (await ann.expect(m.Mutes)).names == ()
    await ben.send(m.Chat(game=ben.game, text="gg"))
    update = await ann.until(lambda u: any(e["type"].startswith("chat") for e in u.events), kind=m.Update)
    assert [e.get("text") for e in update.events if e["type"].startswith("chat")] == ["gg"]


async def test_an_accounts_mutes_are_kept_for_its_next_session(server):
    key = AccountKey.generate()
    ann = await Recorder.connect(server.port, "ann", lobby=False, proof=key)
    await Recorder.connect(server.port, "ben", lobby=False)
    await ann.send(m.Mute(name="ben"))
    assert (await ann.expect(m.Mutes)).names == ("ben",)
    await ann.close()
    again = await Recorder.connect(server.port, "ann", lobby=False, proof=key)  # the same account, anew
    assert (await again.expect(m.Mutes)).names == ("ben",)
    guest = await Recorder.connect(server.port, "cleo", lobby=False, proof=None)
    await guest.send(m.Mute(name="ben"))
    assert (await guest.expect(m.Mutes)).names == ("ben",)
    await guest.close()
    guest = await Recorder.connect(server.port, "cleo", lobby=False, proof=None)  # a guest's last the session
    await guest.send(m.Ping())
    assert isinstance(await guest.recv(), m.Pong)


async def test_mute_refuses_bad_names(server):
    ann = await Recorder.connect(server.port, "ann", lobby=False)
    for name, code in (("nobody", "not_found"), ("ann", "not_allowed")):
        await ann.send(m.Mute(name=name))
        error = await ann.expect(m.Error)
        assert (error.code, error.field) == (code, "name"), name
    await ann.send(m.Unmute(name="ben"))
    assert (await ann.expect(m.Error)).code == "not_found"


# --------------------------------------------------------------------------- reports and logins


async def test_reports_are_bounded_rate_limited_and_listed_with_the_logins(server, capsys):
    ann, _ben = await seated(server.port, ("ann", "ben"), ("127.0.0.1", OTHER))
    await ann.send(m.Report(name="ben", game=ann.game, reason="stalls every move"))
    await ann.expect(m.Reported)
    for report, (code, field) in ((m.Report(name="nobody", game=ann.game, reason="?"), ("not_found", "name")),
                                  (m.Report(name="ann", reason="me"), ("not_allowed", "name"))):
        await ann.send(report)
        error = await ann.expect(m.Error)
        assert (error.code, error.field) == (code, field)
    await ann.send(m.Report(name="ben", reason="rude in chat"))  # online: no game needed
    await ann.expect(m.Reported)
    await ann.send(m.Report(name="ben", reason="again"))
    error = await ann.expect(m.Error)
    assert error.code == "rate_limited" and "2 reports a day" in error.message

    listed = json.loads(admin(server, "reports", "--json", capsys=capsys))
    assert [(r["reporter"], r["reported"], r["game"], r["reason"], r["reporter_address"]) for r in listed] == [
        ("ann", "ben", None, "rude in chat", "127.0.0.1"), ("ann", "ben", ann.game, "stalls every move", "127.0.0.1")]
    table = admin(server, "reports", capsys=capsys)
    assert table.splitlines()[0].split() == ["ID", "TIME", "BY", "REPORTED", "GAME", "REASON"]
    assert "stalls every move" in table and "ann (127.0.0.1)" in table

    logins = json.loads(admin(server, "logins", "--json", capsys=capsys))
    assert [(entry["name"], entry["account"], entry["address"], entry["via"]) for entry in logins] == [
        ("ben", "ben", OTHER, "native"), ("ann", "ann", "127.0.0.1", "native")]  # each proved their account
    assert [entry["name"] for entry in json.loads(admin(server, "logins", "--json", "--address", OTHER,
                                                        capsys=capsys))] == ["ben"]
    table = admin(server, "logins", capsys=capsys)
    assert table.splitlines()[0].split() == ["TIME", "NAME", "ACCOUNT", "ADDRESS", "VIA"]
    assert "guest" not in table.splitlines()[1] and table.splitlines()[1].count("ben") == 2


async def test_a_report_with_too_long_a_reason_is_refused(server):
    ann = await Recorder.connect(server.port, "ann", lobby=False)
    await ann.send(m.Report(name="ann", reason="x" * (m.REPORT_CHARS + 1)))  # checked before anything else
    error = await ann.expect(m.Error)
    assert (error.code, error.field) == ("invalid", "reason")


async def test_logins_older_than_the_retention_are_forgotten(tmp_path):
    srv = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db"), logins_kept_days=0.0),
                        clock=ManualClock())
    await srv.start()
    try:
        for name in ("ann", "ben"):
            client = await Client.connect("127.0.0.1", srv.port, name=name, proof=AccountKey.generate())
            await client.close()
        srv.store.commit()
        assert [row[0] for row in srv.store.db.execute("SELECT name FROM logins")] == ["ben"]
    finally:
        await srv.stop()


def test_admin_refuses_what_it_cannot_do_in_one_line(tmp_path, capsys):
    missing = str(tmp_path / "none.db")
    assert server_main(["admin", "bans", "--db", missing]) == 1
    assert capsys.readouterr().err.strip() == f"aton-server admin: there is no database at {missing} " \
                                              "(give the server's with --db)"
    db = str(tmp_path / "aton.db")
    ArbiterServer(ServerConfig(port=0, db_path=db)).store.close()
    for args, said in ((["ban", "nobody"], "no account is named 'nobody'"),
                       (["ban", "10.0.0.1/24"], "did you mean 10.0.0.0/24?"),
                       (["unban", "10.0.0.1"], "address 10.0.0.1 is not banned"),
                       (["unmute", "Bot (easy)"], "Bot (easy) is not muted")):
        assert server_main(["admin", *args, "--db", db]) == 1, args
        assert said in capsys.readouterr().err, args
    with pytest.raises(SystemExit):
        server_main(["admin", "ban", "1.2.3.4", "--for", "forever", "--db", db])
    assert "not a duration" in capsys.readouterr().err
    assert server_main(["admin", "bans", "--db", db]) == 0
    assert capsys.readouterr().out.strip() == "No bans in force."


def test_the_ban_line_says_the_reason_and_the_end(tmp_path):
    db = str(tmp_path / "aton.db")
    srv = ArbiterServer(ServerConfig(port=0, db_path=db))
    assert server_main(["admin", "ban", "192.0.2.0/24", "--reason", "spam", "--for", "2h", "--db", db]) == 0
    srv.moderation.refresh()
    ban = srv.moderation.ban_of(None, "192.0.2.77")
    assert ban is not None and ban.target() == "network 192.0.2.0/24"
    assert ban.expires is not None and round(ban.expires - ban.created) == 7200
    assert ban.line().startswith("You are banned from this server (reason: spam) until ")
    assert srv.moderation.ban_of(None, "::ffff:192.0.2.1") is ban  # IPv4 seen through IPv6
    assert srv.moderation.ban_of(None, "192.0.3.1") is None and srv.moderation.ban_of(None, "2001:db8::1") is None
    srv.store.close()


async def test_the_listeners_hear_of_a_ban_even_when_a_login_looked_at_the_bans_first(server):
    """A gateway's live sessions are closed by its listener; a login that read the new ban before
    the poll (its own ``ban_of``) must not keep the poll from telling the listeners."""
    told: list[int] = []
    server.moderation.listeners.append(lambda: told.append(1))
    admin(server, "ban", "192.0.2.7")
    assert server.moderation.ban_of(None, "192.0.2.7") is not None  # a login in the meantime
    server.clock.advance(POLL)
    assert told == [1]
    server.clock.advance(POLL)
    assert told == [1]  # once per change
