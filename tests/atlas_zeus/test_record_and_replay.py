"""``atlas-zeus-record/1``: the plain form, errors that name the problem, replay, and the
``aton replay`` command on such a file."""

import json
import random
import subprocess
import sys

import pytest

from atlas_zeus import BLUE, RED, GameState, Outcome, RecordError, Resign, Termination, new_game
from atlas_zeus.options import DEFAULT_OPTIONS, Options
from atlas_zeus.record import FORMAT, GameRecord, replay, steps, summary
from atlas_zeus.text import position_text
from aton_tui.cli import main


def recorded(seed: int, options: Options = DEFAULT_OPTIONS, moves: int | None = None) -> tuple[GameRecord, GameState]:
    """A random game of ``seed`` (cut after ``moves`` moves), its record and final state."""
    state, record, chooser = new_game(seed, options), GameRecord(seed, options), random.Random(seed)
    while not state.is_over and (moves is None or len(record.moves) < moves):
        (player,) = state.pending()
        move = chooser.choice(state.legal_moves(player))
        state.play(player, move)
        record.add(player, move)
    return record, state


def test_round_trip_and_replay():
    record, state = recorded(21)
    plain = json.loads(json.dumps(record.to_dict()))
    assert plain["format"] == FORMAT and plain["seed"] == 21 and "options" not in plain
    assert plain["moves"][0]["player"] in ("red", "blue") and plain["moves"][0]["kind"] == "program"
    again = GameRecord.from_dict(plain)
    assert again.moves == record.moves
    replayed = replay(again)
    assert summary(replayed) == summary(state)
    assert replayed.outcome() == state.outcome()


def test_options_travel_with_the_record():
    options = Options(flee_chooser="strongest", max_rounds=14)
    record, state = recorded(5, options)
    plain = record.to_dict()
    assert plain["options"]["flee_chooser"] == "strongest"
    assert GameRecord.from_dict(plain).options == options
    assert replay(GameRecord.from_dict(plain)).outcome() == state.outcome()


def test_a_record_written_before_the_newer_options_replays():
    """Its options lack the keys added since (Transfer, turtle, end check): they are the defaults."""
    options = Options(flee_chooser="strongest")
    record, state = recorded(5, options)
    plain = json.loads(json.dumps(record.to_dict()))
    for key in ("transfer_may_pass", "nets_block_passing", "room_checked_per_step", "turtle_ends_when_moved",
                "end_check_at_any_point"):
        del plain["options"][key]
    again = GameRecord.from_dict(plain)
    assert again.options == options
    assert summary(replay(again)) == summary(state)


def test_a_record_may_end_mid_game():
    record, _ = recorded(8, moves=7)
    state = replay(record)
    assert not state.is_over and summary(state)["winner"] is None


def test_steps_give_each_moves_events():
    record, _ = recorded(8, moves=3)
    all_steps = list(steps(record))
    assert all_steps[0].move is None and all_steps[0].events[0].kind == "round_started"
    assert [s.move for s in all_steps[1:]] == [m for _, m in record.moves]


@pytest.mark.parametrize(("data", "message"), [
    ([], "a record must be a JSON object"),
    ({"format": "aton-record/1", "seed": 1}, "format must be 'atlas-zeus-record/1'"),
    ({"format": FORMAT, "seed": "1"}, "seed must be an integer"),
    ({"format": FORMAT, "seed": 1, "options": {"max_rounds": -1}}, "options: max_rounds must be at least 1"),
    ({"format": FORMAT, "seed": 1, "moves": {}}, "moves must be a list"),
    ({"format": FORMAT, "seed": 1, "moves": [{"player": "green", "kind": "resign"}]}, "move 0: expected 'red'"),
    ({"format": FORMAT, "seed": 1, "moves": [{"player": "red", "kind": "dance"}]}, "move 0: unknown move kind"),
    ({"format": FORMAT, "seed": 1, "meta": {"result": {"winner": "red", "reason": "luck"}}},
     "meta.result: unknown reason"),
])
def test_malformed_records_are_named(data, message):
    with pytest.raises(RecordError, match=message):
        GameRecord.from_dict(data)


def test_an_illegal_move_is_named_with_its_index_and_round():
    record, _ = recorded(8, moves=2)
    player, move = record.moves[1]
    record.moves[1] = (player.other, move)
    with pytest.raises(RecordError, match=r"move 1: .* program in round 1: It is not your turn"):
        replay(record)


def test_the_arbiters_end_is_replayed_from_meta_result():
    record, _ = recorded(8, moves=4)
    record.meta["result"] = {"winner": "blue", "reason": "time"}
    assert replay(record).outcome() == Outcome(Termination.TIME, BLUE)
    record.meta["result"] = {"winner": "red", "reason": "eliminated"}
    with pytest.raises(RecordError, match=r"meta.result says the game ended as red won .* unfinished"):
        replay(record)


def test_resign_is_a_move():
    record = GameRecord(3)
    record.add(RED, Resign())
    assert replay(record).outcome() == Outcome(Termination.RESIGN, BLUE)


def test_same_record_same_game():
    record, _ = recorded(13)
    assert summary(replay(record)) == summary(replay(GameRecord.from_dict(record.to_dict())))


# ---------------------------------------------------------------- aton replay


def write(tmp_path, record: GameRecord, name: str = "game.json"):
    path = tmp_path / name
    path.write_text(json.dumps(record.to_dict()), encoding="utf-8")
    return path


def test_aton_replay_json_prints_the_summary(tmp_path):
    record, state = recorded(21)
    command = [sys.executable, "-m", "aton_tui", "replay", str(write(tmp_path, record)), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == summary(state)


def test_aton_replay_final_prints_the_position(tmp_path, capsys):
    record, state = recorded(21)
    assert main(["replay", str(write(tmp_path, record)), "--final"]) == 0
    assert capsys.readouterr().out == position_text(state) + "\n"


def test_aton_replay_refuses_a_broken_record(tmp_path, capsys):
    record, _ = recorded(8, moves=2)
    player, move = record.moves[1]
    record.moves[1] = (player.other, move)
    assert main(["replay", str(write(tmp_path, record)), "--json"]) == 2
    assert "move 1:" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": FORMAT, "seed": "x"}), encoding="utf-8")
    assert main(["replay", str(bad), "--final"]) == 2
    assert "seed must be an integer" in capsys.readouterr().err
