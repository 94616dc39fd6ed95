"""Provably fair decks (issue 15, point 6): the seed of every game is fixed by the server's and
both players' entropy (``aton-deal/1``), and each client checks, at the end, every card it was
dealt or shown against the seed that the revealed secret and contributions give.  All on a real
server over loopback, with the clients' own code (``protocol.client.Client``) doing the check."""

from __future__ import annotations

import asyncio
import json
import random
import struct
from collections.abc import Collection
from dataclasses import replace

import pytest

from aton.game import new_game
from aton_tui.cli import main as aton_main
from protocol import fairness
from protocol import messages as m
from protocol.client import Client
from protocol.framing import encode_frame
from server.app import ArbiterServer
from server.config import Limits, ServerConfig
from server.fair_deal import DealSecrets
from server.games import GameKind
from server.room import Room

from ..manual_clock import ManualClock
from .players import Recorder

DEAL_SECONDS = Limits().deal_seconds


def fair_server(db: str, **kwargs) -> ArbiterServer:
    """A real server that deals fairly (no fixed game seed), its own choices seeded, on a manual clock."""
    return ArbiterServer(ServerConfig(host="127.0.0.1", port=0, db_path=db, **kwargs.pop("config", {})),
                         clock=kwargs.pop("clock", ManualClock()), rng=random.Random(2026), **kwargs)


@pytest.fixture
async def server(tmp_path):
    srv = fair_server(str(tmp_path / "aton.db"))
    await srv.start()
    yield srv
    await srv.stop()


async def player(port: int, name: str, entropy_seed: int, client: type[Client] = Client, **kwargs) -> Recorder:
    """A bot-kind client whose contributions come from a seeded generator."""
    return Recorder(await client.connect("127.0.0.1", port, name=name, kind="bot", lobby=False,
                                         entropy=random.Random(entropy_seed).randbytes, **kwargs))


async def matched(a: Recorder, b: Recorder) -> tuple[Recorder, Recorder]:
    """``a`` and ``b`` seated at one game through the quick-match queue; (red, blue)."""
    await a.send(m.QuickMatch(clock="normal"))
    await a.expect(m.Queued)
    await b.send(m.QuickMatch(clock="normal"))
    await asyncio.gather(a.expect(m.GameState), b.expect(m.GameState))
    return (a, b) if a.seat == "red" else (b, a)


async def play_out(red: Recorder, blue: Recorder) -> tuple[m.DealRevealed, m.DealRevealed]:
    await asyncio.gather(red.play(random.Random(3)), blue.play(random.Random(4)))
    return await asyncio.gather(red.expect(m.DealRevealed), blue.expect(m.DealRevealed))


def verdict(recorder: Recorder) -> fairness.Verdict:
    return recorder.client.verdicts[recorder.game]


async def test_a_game_between_two_clients_verifies_from_each_side(server, tmp_path, capsys):
    red, blue = await matched(await player(server.port, "alice", 1), await player(server.port, "bob", 2))
    deals = [f for f in red.frames if isinstance(f, m.Deal)]
    assert [d.stage for d in deals] == ["commit", "open"] and deals[1].commitments is not None
    assert set(deals[1].commitments) == {"red", "blue"} and deals[0].fills is None
    await play_out(red, blue)
    for each in (red, blue):
        assert verdict(each).verified is True, verdict(each).text
        assert verdict(each).text.startswith("Decks verified: the cards you saw (")
    # the game's seed is the one the deal gives, and the record keeps what checks it later
    stored = server.store.load_games()[0]
    assert stored.deal is not None
    secrets = DealSecrets.from_json(stored.deal)
    assert stored.seed == secrets.seed(stored.id)
    record = server.rooms[stored.id].record()
    assert record["seed"] == stored.seed and record["meta"]["deal"] == secrets.meta()
    saved = tmp_path / "game.json"
    saved.write_text(json.dumps(record), encoding="utf-8")
    capsys.readouterr()
    assert aton_main(["replay", str(saved), "--json"]) == 0  # the seed is still the engine's seed
    assert json.loads(capsys.readouterr().out)["winner"] == red.view["winner"]


async def test_a_game_against_the_servers_bot_verifies(server):
    human = await player(server.port, "pat", 5)
    await human.send(m.PlayBot(level="random", seat="red"))
    deal = await human.expect(m.Deal)
    assert deal.fills == {"blue": fairness.FILLED_BY_SERVER}  # the bot's part: fixed before ours was seen
    await human.expect(m.GameState)
    await human.play(random.Random(6))
    revealed = await human.expect(m.DealRevealed)
    assert revealed.fills == {"blue": "server"} and set(revealed.opened) == {"red"}
    assert verdict(human).verified is True, verdict(human).text
    assert "Blue's part came from the server's secret" in verdict(human).text


class Tampering(ArbiterServer):
    """A server that deals from another seed than its deal gives, after committing to it;
    ``honest_record``: its record still claims the honest seed."""

    honest_record = False

    def _open_room(self, game_id: int, kind: GameKind, clock: str, participants: dict, private: bool, seed: int,
                   deal: DealSecrets | None, rated: bool = False, gone: Collection[str] = ()) -> Room:
        room = super()._open_room(game_id, kind, clock, participants, private, seed ^ 1, deal, rated, gone)
        if self.honest_record:
            room.game.history.seed = seed  # type: ignore[attr-defined]
        return room


@pytest.mark.parametrize("honest_record", [False, True])
async def test_a_server_that_changed_the_decks_is_caught_by_each_client(tmp_path, honest_record):
    server = Tampering(ServerConfig(host="127.0.0.1", port=0, db_path=str(tmp_path / "aton.db")),
                       clock=ManualClock(), rng=random.Random(2026))
    server.honest_record = honest_record
    await server.start()
    try:
        red, blue = await matched(await player(server.port, "alice", 1), await player(server.port, "bob", 2))
        await play_out(red, blue)
        for each in (red, blue):
            assert verdict(each).verified is False
            assert verdict(each).text.startswith("The server's decks do not match its commitment: ")
            because = ("the game's record does not replay from that seed" if honest_record
                       else "the game's record was not dealt from the seed")
            assert because in verdict(each).text
    finally:
        await server.stop()


async def test_a_wrong_or_replayed_reveal_is_caught(server):
    """The reveals of two real games: each client checks a reveal against what it saw of its own
    deal; another secret, another contribution, or the other game's reveal fails."""
    red, blue = await matched(await player(server.port, "alice", 1), await player(server.port, "bob", 2))
    first, _ = await play_out(red, blue)
    await red.send(m.Rematch(game=red.game))
    await blue.send(m.Rematch(game=blue.game))
    old = red.game

    def the_rematch(state: m.GameState) -> bool:
        return state.game != old

    await asyncio.gather(*(p.until(the_rematch, kind=m.GameState) for p in (red, blue)))
    red, blue = (red, blue) if red.seat == "red" else (blue, red)
    await asyncio.gather(red.play(random.Random(5)), blue.play(random.Random(6)))
    witness = red.client.deals[red.game]  # all red saw, before the reveal is read
    witness_copy = replace(witness, cards=dict(witness.cards), commitments=dict(witness.commitments))
    second = await red.expect(m.DealRevealed)
    assert verdict(red).verified is True

    def check(reveal: m.DealRevealed) -> fairness.Verdict:
        return fairness.verify(witness_copy, red.game, reveal.secret, reveal.opened, reveal.fills or {}, reveal.record)

    assert check(second).verified is True
    replayed = check(replace(first, game=second.game))
    assert replayed.verified is False and "its revealed secret is not the one it committed to" in replayed.text
    other_secret = check(replace(second, secret=bytes(32)))
    assert other_secret.verified is False and "not the one it committed to" in other_secret.text
    blues = replace(second, opened={**second.opened, "blue": bytes(32)})
    assert "blue's revealed contribution does not open its commitment" in check(blues).text
    ours = replace(second, opened={**second.opened, "red": bytes(32)})
    assert "another contribution for this client" in check(ours).text
    said_late = check(replace(second, fills={"red": fairness.FILLED_BY_COMMITMENT}))
    assert said_late.verified is False and "did not open its contribution in time" in said_late.text
    # a record dealt from the right seed, but of another game than the one played
    other = other_game(second.record)
    assert other["moves"] != second.record["moves"]
    made_up = check(replace(second, record=other))
    assert made_up.verified is False and "not the ones that seed deals" in made_up.text


def other_game(record: dict) -> dict:
    """A record from the same seed whose moves are other legal ones (each player's last legal
    move rather than the one played), for the first few rounds."""
    state, _ = new_game(record["seed"])
    moves = []
    while state.round < 4 and state.outcome() is None:
        seat = state.pending()[0]
        move = state.legal_moves(seat, resign=False)[-1]
        state.play(seat, move, [])
        moves.append({"player": str(seat), **move.to_dict()})
    return {**record, "moves": moves, "meta": {**record["meta"], "result": None}}


async def test_an_older_client_still_plays_and_its_opponent_still_verifies(server):
    old = await player(server.port, "old", 1, version="1.4")
    new = await player(server.port, "new", 2)
    red, blue = await matched(old, new)
    await play_out_with_old(red, blue, old)
    assert not any(isinstance(f, (m.Deal, m.DealRevealed)) for f in old.frames)
    seat = old.seat
    assert verdict(new).verified is True
    assert f"{seat.capitalize()}'s part came from the server's secret" in verdict(new).text
    assert old.client.verdicts == {}


async def play_out_with_old(red: Recorder, blue: Recorder, old: Recorder) -> None:
    await asyncio.gather(red.play(random.Random(3)), blue.play(random.Random(4)))
    new = blue if old is red else red
    await new.expect(m.DealRevealed)


def encoded(frames: list[m.Message]) -> list[bytes]:
    return [encode_frame(frame.to_wire()) for frame in frames]


async def test_nothing_of_the_secret_or_the_opponents_contribution_reaches_a_client_before_the_end(server):
    red, blue = await matched(await player(server.port, "alice", 1), await player(server.port, "bob", 2))
    await asyncio.gather(red.play(random.Random(3)), blue.play(random.Random(4)))
    reveals = await asyncio.gather(red.expect(m.DealRevealed), blue.expect(m.DealRevealed))
    seed = reveals[0].record["seed"]
    hidden_from = {"red": [reveals[0].secret, reveals[0].opened["blue"], struct.pack(">Q", seed)],
                   "blue": [reveals[0].secret, reveals[0].opened["red"], struct.pack(">Q", seed)]}
    for each in (red, blue):
        before = each.frames[:next(i for i, f in enumerate(each.frames) if isinstance(f, m.DealRevealed))]
        assert len(before) > 50
        for frame in encoded(before):
            for secret in hidden_from[each.seat]:
                assert secret not in frame


class Silent(Client):
    """A client of the current protocol that does not contribute (as a bot SDK might not)."""

    async def _contribute(self, deal: m.Deal) -> None:
        return None


class CommitsOnly(Client):
    """A client that commits to its contribution and never opens it."""

    async def _contribute(self, deal: m.Deal) -> None:
        if deal.stage == "commit":
            await super()._contribute(deal)


@pytest.mark.parametrize("laggard, fill", [(Silent, "server"), (CommitsOnly, "commitment")])
async def test_a_client_that_does_not_contribute_in_time_still_plays_and_the_other_still_verifies(
        server, laggard, fill):
    honest = await player(server.port, "honest", 1)
    late = await player(server.port, "late", 2, client=laggard)
    await honest.send(m.QuickMatch(clock="normal"))
    await honest.expect(m.Queued)
    await late.send(m.QuickMatch(clock="normal"))
    await asyncio.gather(honest.expect(m.Deal), late.expect(m.Deal))
    await honest.expect(m.Ack)  # its commitment is in
    if fill == "commitment":
        await late.expect(m.Ack)  # and the late one's
    assert not server.rooms  # the game waits for its deal ...
    clock = server.clock
    assert isinstance(clock, ManualClock)
    if fill == "commitment":  # both commitments are in: the open stage, where one stays silent
        await honest.until(lambda d: d.stage == "open", kind=m.Deal)
        await honest.expect(m.Ack)  # its opening is in
    clock.advance(DEAL_SECONDS)
    await asyncio.gather(honest.expect(m.GameState), late.expect(m.GameState))  # ... not longer than it may
    red, blue = (honest, late) if honest.seat == "red" else (late, honest)
    await asyncio.gather(red.play(random.Random(3)), blue.play(random.Random(4)))
    revealed = await honest.expect(m.DealRevealed)
    assert revealed.fills == {late.seat: fill}
    assert verdict(honest).verified is True, verdict(honest).text
    await late.expect(m.DealRevealed)
    assert verdict(late).verified is None and verdict(late).text.startswith("Decks not verifiable")


async def test_a_value_that_does_not_open_its_commitment_is_refused_and_the_deal_goes_on(server):
    honest = await player(server.port, "honest", 1)
    cheat = await player(server.port, "cheat", 2, client=CommitsOnly)
    await matched_without_waiting(honest, cheat)
    _, deal = await asyncio.gather(honest.expect(m.Deal), cheat.until(lambda d: d.stage == "open", kind=m.Deal))
    await cheat.send(m.DealOpen(game=deal.game, value=bytes(32)))
    error = await cheat.expect(m.Error)
    assert error.code == "invalid" and "does not open your commitment" in error.message
    witness = cheat.client.deals[deal.game]
    assert witness.value is not None
    await cheat.send(m.DealOpen(game=deal.game, value=witness.value))
    await asyncio.gather(honest.expect(m.GameState), cheat.expect(m.GameState))
    again = await cheat.send(m.DealCommit(game=deal.game, digest=bytes(32)))
    refused = await cheat.until(lambda e: e.reply_to == again, kind=m.Error)
    assert refused.code == "not_found"


async def matched_without_waiting(a: Recorder, b: Recorder) -> None:
    await a.send(m.QuickMatch(clock="normal"))
    await a.expect(m.Queued)
    await b.send(m.QuickMatch(clock="normal"))


async def test_a_game_resumed_after_a_restart_keeps_its_seed_and_still_verifies(tmp_path):
    db = str(tmp_path / "aton.db")
    first = fair_server(db)
    await first.start()
    red, blue = await matched(await player(first.port, "alice", 1), await player(first.port, "bob", 2))

    def round_three(recorder: Recorder) -> bool:
        return recorder.view["round"] >= 3

    await asyncio.gather(red.play(random.Random(3), stop=round_three), blue.play(random.Random(4), stop=round_three))
    seed = first.rooms[red.game].game.seed  # type: ignore[attr-defined]
    await first.stop()
    second = fair_server(db)
    await second.start()
    try:
        assert second.rooms[red.game].game.seed == seed  # type: ignore[attr-defined]
        for each in (red, blue):
            await each.client.reconnect("127.0.0.1", second.port)
            await each.expect(m.GameState)
        await play_out(red, blue)
        for each in (red, blue):
            assert verdict(each).verified is True, verdict(each).text
    finally:
        await second.stop()


async def test_a_client_started_again_mid_game_with_what_it_wrote_down_still_verifies(server):
    """What a client saw of a deal, written down (``DealWitness.to_dict``, as JSON) and read back by
    a new process of it that resumes the session: the game it takes back verifies at its end; the
    same client without it cannot check the decks (docs/protocol.md, "Fair decks")."""
    red, blue = await matched(await player(server.port, "alice", 1), await player(server.port, "bob", 2))

    def round_three(recorder: Recorder) -> bool:
        return recorder.view["round"] >= 3

    await asyncio.gather(red.play(random.Random(3), stop=round_three), blue.play(random.Random(4), stop=round_three))
    written = json.dumps({game: w.to_dict() for game, w in red.client.deals.items()})
    token = red.client.resume_token
    await red.client.close()
    again = Recorder(await Client.connect("127.0.0.1", server.port, name="alice", kind="bot", lobby=False,
                                          resume=token))
    again.client.deals.update({int(game): fairness.DealWitness.from_dict(entry)
                               for game, entry in json.loads(written).items()})
    await again.expect(m.GameState)
    await play_out(again, blue)
    assert verdict(again).verified is True, verdict(again).text
    assert verdict(blue).verified is True

    forgetful, other = await matched(await player(server.port, "cleo", 5), await player(server.port, "dan", 6))
    await asyncio.gather(forgetful.play(random.Random(3), stop=round_three),
                         other.play(random.Random(4), stop=round_three))
    token = forgetful.client.resume_token
    await forgetful.client.close()
    started_afresh = Recorder(await Client.connect("127.0.0.1", server.port, name="cleo", kind="bot", lobby=False,
                                                   resume=token))
    await started_afresh.expect(m.GameState)
    await play_out(started_afresh, other)
    assert verdict(started_afresh).verified is None and "came in after it" in verdict(started_afresh).text


async def test_a_player_who_drops_during_the_deal_is_asked_again_when_back(server):
    a = await player(server.port, "alice", 1)
    b = await player(server.port, "bob", 2)
    await matched_without_waiting(a, b)
    await a.expect(m.Deal)
    await b.client.close()  # before reading its deal
    await b.client.reconnect("127.0.0.1", server.port)
    await asyncio.gather(a.expect(m.GameState), b.expect(m.GameState))
    assert [d.stage for d in b.frames if isinstance(d, m.Deal)] == ["commit", "open"]  # asked again, once
    red, blue = (a, b) if a.seat == "red" else (b, a)
    await play_out(red, blue)
    assert verdict(red).verified is True and verdict(blue).verified is True
