"""What a client keeps of its unfinished games between runs (``protocol.saved_games``): the deals it
saw and the seals it has not opened, per server, privately, for recent games only; a seal's JSON
round trip; damaged files and entries left out."""

from __future__ import annotations

import asyncio
import json
import stat
import threading
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import messages as m
from protocol.client import EARLIER_RUN, Client, Seal
from protocol.fairness import DealWitness, server_commitment
from protocol.private_json import directory_lock, read_json_object, write_private_json
from protocol.saved_games import MAX_GAMES, GameEntries, SavedGames


def a_seal(round_: int = 3) -> Seal:
    return Seal(round=round_, cards=(4, 3, 3, 1), nonce=bytes(range(32)), connection=EARLIER_RUN)


def test_what_was_seen_of_deals_is_kept_per_server_privately_and_for_recent_games_only(tmp_path):
    here, there = SavedGames(tmp_path / "data", "local:/db"), SavedGames(tmp_path / "data", "example.org:2866")
    assert here.deals.load() == {} and here.seals.load() == {}
    witnesses = {game: DealWitness(game, "red", server_commitment(bytes(32)), bytes([game]) * 32)
                 for game in range(1, MAX_GAMES + 6)}
    witnesses[3].saw({"type": "card_revealed", "player": "blue", "cartouche": 1, "value": 4, "version": 7})
    here.deals.keep(witnesses)
    there.deals.keep({1: witnesses[1]})
    assert SavedGames(tmp_path / "data", "local:/db").deals.load() == {
        game: witnesses[game] for game in range(6, MAX_GAMES + 6)}
    assert there.deals.load() == {1: witnesses[1]}
    assert stat.S_IMODE((tmp_path / "data" / "deals.json").stat().st_mode) == 0o600
    here.deals.keep({})  # every deal revealed: the server's entry goes
    assert list(json.loads((tmp_path / "data" / "deals.json").read_text())) == ["example.org:2866"]


def test_seals_are_kept_in_a_file_of_their_own_and_go_once_opened(tmp_path):
    kept = SavedGames(tmp_path / "player", "x:1")
    kept.seals.keep({7: a_seal()})
    assert stat.S_IMODE((tmp_path / "player" / "seals.json").stat().st_mode) == 0o600
    assert SavedGames(tmp_path / "player", "x:1").seals.load() == {7: a_seal()}
    assert not (tmp_path / "player" / "deals.json").exists()
    kept.seals.keep({})  # nothing left: the file goes, and the directory it leaves empty
    assert not (tmp_path / "player").exists()


def test_a_directory_that_holds_more_than_the_games_stays(tmp_path):
    (tmp_path / "sessions.json").write_text("{}")
    kept = SavedGames(tmp_path, "x:1")
    kept.seals.keep({7: a_seal()})
    kept.seals.keep({})
    assert not (tmp_path / "seals.json").exists() and (tmp_path / "sessions.json").exists()


def test_only_a_change_is_written(tmp_path):
    entries = GameEntries(tmp_path / "seals.json", "x:1", Seal.from_dict)
    entries.keep_changed({})
    assert not entries.path.exists()  # nothing kept, nothing changed
    entries.keep_changed({7: a_seal()})
    entries.path.write_text("{}")  # (so that a write would show)
    entries.keep_changed({7: a_seal()})
    assert entries.path.read_text() == "{}"
    entries.keep_changed({7: a_seal(round_=4)})
    assert entries.load() == {7: a_seal(round_=4)}


def test_two_clients_keeping_games_in_one_file_at_once_both_keep_theirs(tmp_path):
    """A change waits for the lock of the file's directory (``private_json.directory_lock``).  Here the
    test holds it, as a second client would, reads the file, and writes its own server's entry on
    what it read; the other client's change, begun meanwhile, waits and is made on what the test
    wrote.  Without the lock that change is made at once and the test's write, on the file as it
    was before, drops it."""
    ours = GameEntries(tmp_path / "seals.json", "here:1", Seal.from_dict)
    theirs = GameEntries(tmp_path / "seals.json", "there:2", Seal.from_dict)
    with directory_lock(ours.path.parent):
        servers = read_json_object(ours.path)
        other = threading.Thread(target=theirs.keep, args=({8: a_seal()},))
        other.start()
        other.join(timeout=0.5)  # (it waits for the lock; without one it is done by now)
        servers["here:1"] = {"7": a_seal().to_dict()}
        write_private_json(ours.path, servers)
    other.join()
    assert ours.load() == {7: a_seal()} and theirs.load() == {8: a_seal()}


def welcomed(games: tuple[int, ...]) -> Client:
    """A client (never connected) as a server's welcome left it: seated in ``games``."""
    client = Client(asyncio.StreamReader(), cast(asyncio.StreamWriter, None))
    client.welcome = m.Welcome(server="aton", version="1.7", session="s", resume="r" * 16, name="ann",
                               limits={}, games=games)
    return client


async def test_a_client_is_given_back_only_the_games_its_session_holds_seats_in(tmp_path):
    """A game that ended or was lost while the client was away, or one of a session the server no
    longer has (a new database numbers its games from 1 again), goes from the files at once; other
    servers' games stay."""
    here, there = SavedGames(tmp_path, "a:1"), SavedGames(tmp_path, "b:1")
    for kept in (here, there):
        kept.seals.keep({2: a_seal(), 3: a_seal()})
        kept.deals.keep({game: DealWitness(game, "blue", server_commitment(bytes(32))) for game in (2, 3)})
    client = welcomed((3,))
    here.attach(client)
    assert list(client.seals) == [3] == list(client.deals)
    assert list(SavedGames(tmp_path, "a:1").seals.load()) == [3] == list(SavedGames(tmp_path, "a:1").deals.load())
    assert list(there.seals.load()) == [2, 3] == list(there.deals.load())
    new_session = welcomed(())
    here.attach(new_session)
    assert new_session.seals == {} == new_session.deals
    assert here.seals.load() == {} == here.deals.load()
    new_session.seals[4] = a_seal()
    new_session.keep(new_session)  # (attached: it keeps what it must remember)
    assert list(here.seals.load()) == [4]


def test_a_damaged_file_or_entry_is_left_out(tmp_path):
    path = tmp_path / "deals.json"
    path.write_text("[1, 2")
    deals = GameEntries(path, "x:1", DealWitness.from_dict)
    assert deals.load() == {}
    good = DealWitness(4, "blue", server_commitment(bytes(32)))
    path.write_text(json.dumps({"x:1": {"3": {"game": 3, "seat": "red"}, "4": good.to_dict(), "five": good.to_dict()},
                                "y:1": [1]}))
    assert deals.load() == {4: good} and GameEntries(path, "y:1", DealWitness.from_dict).load() == {}


programs = st.lists(st.tuples(st.integers(0, 11), st.sampled_from(["move 1", "zeus", "atlas"])), min_size=1, max_size=6)


@given(round_=st.integers(0, 60), nonce=st.binary(min_size=16, max_size=64),
       cards=st.lists(st.integers(1, 4), min_size=4, max_size=4) | programs)
def test_a_seal_comes_back_from_json_as_it_was_sent_by_an_earlier_run(round_, nonce, cards):
    program = isinstance(cards[0], tuple)
    seal = Seal(round=round_, cards=tuple(cards), nonce=nonce, connection=2, opened_on=2, program=program)
    back = Seal.from_dict(json.loads(json.dumps(seal.to_dict())))
    assert back == Seal(round=round_, cards=tuple(cards), nonce=nonce, connection=EARLIER_RUN, program=program)
    assert back.opening(9) == seal.opening(9)


@pytest.mark.parametrize("damage", [
    lambda d: d.pop("nonce"), lambda d: d.update(nonce="zz"), lambda d: d.update(nonce="00" * 8),
    lambda d: d.update(round=-1), lambda d: d.update(round="three"), lambda d: d.update(cards=[]),
    lambda d: d.update(cards=["a", 2, 3, 4]), lambda d: d.update(program="yes"), lambda d: d.update(cards=None),
    lambda d: d.update(round=float("inf")), lambda d: d.update(round=2.5), lambda d: d.update(cards=[4, 3]),
    lambda d: d.update(cards=[4, 3, 2, 9]), lambda d: d.update(cards=[4, 3, 2, True]),
    lambda d: d.update(program=True, cards=[[1, 2, 3]]), lambda d: d.update(program=True, cards=[["1", "zeus"]]),
], ids=["no nonce", "not hex", "short nonce", "negative round", "round not a number", "no cards",
        "card not a number", "program not a flag", "cards not a list", "round infinite (JSON's Infinity)",
        "round not whole", "two cards", "a card of 9", "a card true", "a programming's triple",
        "a programming's slot not a number"])
def test_a_damaged_seal_is_refused(damage):
    data = a_seal().to_dict()
    damage(data)
    with pytest.raises(ValueError):
        Seal.from_dict(data)
    with pytest.raises(ValueError):
        Seal.from_dict([1, 2])
