"""aton-record/1: the record's JSON form, replaying it, and the `aton replay` command."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from aton import BLUE, RED, Commit, Exchange, GameRecord, Place, RecordError, Remove, Resign, Rules
from aton.record import replay, summary
from aton_tui.cli import main

from .engine_helpers import hands

ROOT = Path(__file__).resolve().parents[2]

RED_DECK = hands((4, 4, 4, 4), (1, 4, 2, 3), (2, 4, 1, 1))
BLUE_DECK = hands((2, 2, 2, 1), (1, 3, 2, 1))

# Round 1: red exchanges; blue plays first (C2 2 < 4) and places one stone, red three.
# Round 2: blue plays first (C2 3 < 4), removes a red stone and places; red resigns.
MOVES = [
    {"player": "red", "move": "exchange"},
    {"player": "red", "move": "commit", "cards": [1, 4, 2, 3]},
    {"player": "blue", "move": "commit", "cards": [2, 2, 2, 1]},
    {"player": "blue", "move": "place", "temple": 1, "square": 0},
    {"player": "red", "move": "place", "temple": 2, "square": 5},
    {"player": "red", "move": "place", "temple": 2, "square": 6},
    {"player": "red", "move": "place", "temple": 1, "square": 1},
    {"player": "red", "move": "commit", "cards": [2, 4, 1, 1]},
    {"player": "blue", "move": "commit", "cards": [1, 3, 2, 1]},
    {"player": "blue", "move": "remove", "temple": 2, "square": 5},
    {"player": "blue", "move": "place", "temple": 1, "square": 2},
    {"player": "red", "move": "resign"},
]

RECORD = {
    "format": "aton-record/1",
    "seed": 42,
    "decks": {"red": RED_DECK, "blue": BLUE_DECK},
    "moves": MOVES,
    "meta": {"players": {"red": "ann", "blue": "bob"}, "date": "2024-05-01"},
}

SUMMARY = {
    "round": 2,
    "phase": "over",
    "scores": {"red": 2, "blue": 2},
    "supply": {"red": 26, "blue": 27},
    "dead": {"red": 1, "blue": 0},
    "temples": [
        ["blue", "red", "blue"] + [None] * 9,
        [None] * 6 + ["red"] + [None] * 5,
        [None] * 12,
        [None] * 12,
    ],
    "exchange_used": {"red": True, "blue": False},
    "winner": "blue",
    "reason": "resign",
}


def with_moves(moves):
    return {**RECORD, "moves": moves}


def write(tmp_path, data, name="game.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------- the record

def test_a_record_parses_into_typed_moves():
    record = GameRecord.from_dict(RECORD)
    assert record.seed == 42 and record.decks == (tuple(RED_DECK), tuple(BLUE_DECK))
    assert record.moves[:3] == [(RED, Exchange()), (RED, Commit((1, 4, 2, 3))),
                                (BLUE, Commit((2, 2, 2, 1)))]
    assert record.moves[9:] == [(BLUE, Remove(2, 5)), (BLUE, Place(1, 2)), (RED, Resign())]
    assert record.meta == RECORD["meta"] and record.rules == Rules()


def test_a_record_round_trips_through_json():
    record = GameRecord.from_dict(RECORD)
    assert json.loads(json.dumps(record.to_dict())) == RECORD


def test_a_record_without_decks_takes_them_from_the_seed():
    record = GameRecord(seed=42)
    assert record.to_dict() == {"format": "aton-record/1", "seed": 42, "moves": [], "meta": {}}
    state = replay(GameRecord.from_dict({"format": "aton-record/1", "seed": 42}))
    from aton import new_game
    assert state.hands == new_game(42)[0].hands


def test_non_default_rules_travel_in_meta_rules():
    rules = Rules(equal_points_draw=False, max_rounds=50)
    record = GameRecord(seed=1, rules=rules, meta={"event": "club night"})
    data = record.to_dict()
    assert data["meta"] == {"event": "club night", "rules": rules.to_dict()}
    assert GameRecord.from_dict(data).rules == rules


def test_replaying_a_record_gives_the_final_position():
    state = replay(GameRecord.from_dict(RECORD))
    assert summary(state) == SUMMARY


def test_a_record_may_end_in_the_middle_of_a_game():
    state = replay(GameRecord.from_dict(with_moves(MOVES[:4])))
    assert summary(state)["phase"] == "place" and summary(state)["winner"] is None
    assert state.pending() == (RED,)


def with_result(moves, winner, reason) -> dict:
    return {**RECORD, "moves": moves, "meta": {"result": {"winner": winner, "reason": reason}}}


@pytest.mark.parametrize("reason", ["time", "abandoned"])
def test_a_game_the_arbiter_ended_replays_to_its_end_from_meta_result(reason):
    """Issue 13, defect 7: no move ends a game lost on time or abandoned; ``meta.result`` does."""
    state = replay(GameRecord.from_dict(with_result(MOVES[:4], "blue", reason)))
    assert (summary(state)["phase"], summary(state)["winner"], summary(state)["reason"]) == ("over", "blue", reason)
    assert state.owner(1, 0) is BLUE and state.round == 1  # the position is where the moves left it


@pytest.mark.parametrize("moves, winner, reason, message", [
    (MOVES[:4], "draw", "time", "meta.result: a game lost on time has a winner, not a draw"),
    (MOVES[:4], "red", "points", "meta.result says the game ended as red won (points), but its moves leave "
                                 "the game unfinished"),
    (MOVES[:4], "blue", "resign", "meta.result says the game ended as blue won (resign), but its moves leave "
                                  "the game unfinished"),
    (MOVES, "red", "time", "meta.result says the game ended as red won (time), but its moves end it as "
                           "blue won (resign)"),
    (MOVES, "blue", "sulking", "meta.result: unknown reason 'sulking'"),
])
def test_a_result_the_moves_contradict_is_refused(moves, winner, reason, message):
    with pytest.raises(RecordError) as refused:
        replay(GameRecord.from_dict(with_result(moves, winner, reason)))
    assert str(refused.value) == message


def test_a_result_that_agrees_with_the_moves_is_accepted():
    assert summary(replay(GameRecord.from_dict(with_result(MOVES, "blue", "resign")))) == SUMMARY


@pytest.mark.parametrize("data, message", [
    ([], "a record must be a JSON object"),
    ({**RECORD, "meta": {"result": "blue"}}, "meta.result must be an object or null"),
    ({**RECORD, "format": "aton-record/2"}, "format must be 'aton-record/1', got 'aton-record/2'"),
    ({**RECORD, "seed": "42"}, "seed must be an integer, got '42'"),
    ({**RECORD, "seed": True}, "seed must be an integer, got True"),
    ({**RECORD, "decks": {"red": RED_DECK}},
     "decks must be an object with exactly the keys 'red' and 'blue'"),
    ({**RECORD, "decks": {"red": RED_DECK, "blue": [*BLUE_DECK[:-1], 1]}},
     "decks.blue: a deck must hold nine of each value 1–4 (36 cards), "
     "got 10×1, 9×2, 9×3, 8×4"),
    ({**RECORD, "decks": {"red": RED_DECK[:35], "blue": BLUE_DECK}},
     "decks.red: a deck must hold nine of each value 1–4 (36 cards), got 9×1, 9×2, 9×3, 8×4"),
    ({**RECORD, "meta": []}, "meta must be an object"),
    ({**RECORD, "meta": {"rules": {"house_rule": 1}}},
     "meta.rules: unknown rule option(s): house_rule"),
    ({**RECORD, "meta": {"rules": {"max_rounds": "x"}}},
     "meta.rules: max_rounds must be int, got 'x'"),
    ({**RECORD, "moves": {}}, "moves must be a list"),
    (with_moves([{"player": "green", "move": "exchange"}]),
     "move 0: expected 'red' or 'blue', got 'green'"),
    (with_moves([MOVES[0], "exchange"]), "move 1: a move must be an object"),
    (with_moves([MOVES[0], {"player": "red", "move": "pass"}]),
     "move 1: unknown move 'pass' (expected commit, exchange, remove, place or resign)"),
    (with_moves([{"player": "red", "move": "commit", "cards": [1, 2, 3]}]),
     "move 0: commit needs 'cards': a list of four card values"),
    (with_moves([{"player": "red", "move": "place", "temple": 5, "square": 0}]),
     "move 0: temple: expected an integer 1–4, got 5"),
])
def test_a_malformed_record_is_refused_with_the_reason(data, message):
    with pytest.raises(RecordError) as info:
        GameRecord.from_dict(data)
    assert str(info.value) == message


def test_an_illegal_move_is_named_by_its_index():
    moves = [*MOVES[:9], {"player": "blue", "move": "remove", "temple": 2, "square": 7}]
    with pytest.raises(RecordError) as info:
        replay(GameRecord.from_dict(with_moves(moves)))
    assert info.value.move_index == 9
    assert str(info.value) == "move 9: blue remove: square 7 of temple 2 holds none of red's stones"


def test_a_move_after_the_end_is_illegal():
    with pytest.raises(RecordError, match=r"^move 12: blue resign: the game is over$"):
        replay(GameRecord.from_dict(with_moves([*MOVES, {"player": "blue", "move": "resign"}])))


# ---------------------------------------------------------------- aton replay

def test_aton_replay_json_prints_exactly_the_summary(tmp_path, capsys):
    assert main(["replay", write(tmp_path, RECORD), "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.endswith("\n") and out.count("\n") == 1
    assert json.loads(out) == SUMMARY
    assert list(json.loads(out)) == ["round", "phase", "scores", "supply", "dead", "temples",
                                     "exchange_used", "winner", "reason"]


def test_aton_replay_json_in_the_middle_of_a_game(tmp_path, capsys):
    assert main(["replay", write(tmp_path, {"format": "aton-record/1", "seed": 7}), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "round": 1, "phase": "commit",
        "scores": {"red": 0, "blue": 0}, "supply": {"red": 29, "blue": 29},
        "dead": {"red": 0, "blue": 0}, "temples": [[None] * 12] * 4,
        "exchange_used": {"red": False, "blue": False}, "winner": None, "reason": None,
    }


def test_aton_replay_prints_a_picture_of_the_position(tmp_path, capsys):
    assert main(["replay", write(tmp_path, with_moves(MOVES[:4]))]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == "Round 1, phase place"
    assert lines[2].split() == ["Temple", "1", "Temple", "2", "Temple", "3", "Temple", "4"]
    assert lines[3].startswith("yB y. y. y.")  # blue's stone on square 0 of temple 1
    assert "To move: red — Place 3 stones in temples 1–2" in lines
    assert any(line.startswith("blue  score  2  supply 28") for line in lines)


def test_aton_replay_shows_the_result_of_a_finished_game(tmp_path, capsys):
    assert main(["replay", write(tmp_path, RECORD)]) == 0
    assert "Game over: blue wins (resign)" in capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("content, message", [
    (with_moves([*MOVES[:9], {"player": "blue", "move": "remove", "temple": 2, "square": 7}]),
     "move 9: blue remove: square 7 of temple 2 holds none of red's stones"),
    (with_moves([*MOVES[:2], {"player": "blue", "move": "commit", "cards": [1, 1, 1, 1]}]),
     "move 2: blue commit: [1, 1, 1, 1] is not a permutation of your hand [1, 2, 2, 2]"),
    (with_moves([MOVES[0], {"player": "red"}]), "move 1: unknown move None"),
    ({**RECORD, "format": "pgn"}, "format must be 'aton-record/1', got 'pgn'"),
    ("{not json", "is not valid JSON"),
])
@pytest.mark.parametrize("as_json", [False, True])
def test_aton_replay_refuses_a_bad_record_with_status_2_and_nothing_on_stdout(
        tmp_path, capsys, content, message, as_json):
    args = ["replay", write(tmp_path, content)] + (["--json"] if as_json else [])
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("aton replay: ") and message in err


def test_aton_replay_of_a_missing_file(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nowhere.json"), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "cannot read" in err


def test_the_console_script(tmp_path):
    good = write(tmp_path, RECORD)
    bad = write(tmp_path, with_moves([*MOVES[:1], MOVES[0]]), "bad.json")
    run = [sys.executable, "-m", "aton_tui.cli", "replay"]
    done = subprocess.run([*run, good, "--json"], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout) == SUMMARY
    done = subprocess.run([*run, bad, "--json"], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("aton replay: move 1: red exchange: "
                           "you have already used your exchange token\n")
