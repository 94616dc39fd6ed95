"""`aton analyse`: the table, the JSON, the analysis kept beside the record, bad records."""

import json
import os
import pty
import signal
import subprocess
import sys

import pytest

from aton import GameRecord
from aton_tui.cli import main
from bots.analysis import AnalysisSettings, GameAnalysis, analyse, played_decisions, side_path

from .test_record_and_replay import MOVES, RECORD, ROOT, with_moves, write

#: Play-outs per decision: small, the tests check the command, not the search.
FEW = ["--iterations", "12"]


def test_the_table_names_moves_in_the_logs_words_and_sums_up_each_player(tmp_path, capsys):
    path = write(tmp_path, RECORD)
    assert main(["analyse", path, *FEW]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == f"Analysis of {path}: 12 play-outs per decision, seed 0."
    assert lines[2].split() == ["move", "round", "player", "decision", "played", "best", "before", "after",
                                "loss", "judgement"]
    rows = {line.split()[0]: line for line in lines[3:] if line[:4].strip().isdigit()}
    assert "Red     exchange  exchange" in rows["1"]  # the viewer's move 1: red exchanged
    assert "cards 1-4-2-3" in rows["2"]
    assert "temple 2, black square" in rows["5"]  # red placed on square 5 of temple 2
    assert "12" not in rows, "a resignation is not judged"
    assert any(line.startswith("Red (ann): ") and "average loss" in line for line in lines)
    assert any(line.startswith("Blue (bob): ") for line in lines)
    assert err == f"aton analyse: saved to {side_path(path)}\n"


def test_the_json_is_the_saved_analysis_and_a_summary(tmp_path, capsys):
    path = write(tmp_path, RECORD)
    assert main(["analyse", path, *FEW, "--seed", "3", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    saved = json.loads(side_path(path).read_text(encoding="utf-8"))
    assert printed == {**saved, "summary": printed["summary"]}
    assert printed["settings"] == {"iterations": 12, "budget_ms": None, "seed": 3}
    assert set(printed["summary"]) == {"red", "blue"}
    red = [d for d in printed["decisions"] if d["player"] == "red"]
    assert printed["summary"]["red"]["decisions"] == len(red)
    assert GameAnalysis.from_dict(saved) == analyse(GameRecord.from_dict(RECORD), iterations=12, seed=3)


def test_the_same_json_in_other_processes_whatever_their_hash_seed(tmp_path):
    path = write(tmp_path, RECORD)
    run = [sys.executable, "-m", "aton_tui.cli", "analyse", path, *FEW, "--json", "--no-save"]
    printed = {subprocess.run(run, capture_output=True, cwd=ROOT, timeout=120, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout
               for seed in ("1", "2")}
    assert len(printed) == 1 and json.loads(printed.pop())["decisions"]


def test_the_analysis_beside_the_record_is_used_again_for_the_same_settings(tmp_path, capsys):
    path = write(tmp_path, RECORD)
    record_bytes = (tmp_path / "game.json").read_bytes()
    assert main(["analyse", path, *FEW]) == 0
    first = capsys.readouterr().out
    # a side file that says something no search would: proof that it is read, not recomputed
    side = side_path(path)
    data = json.loads(side.read_text(encoding="utf-8"))
    data["decisions"][0]["chance_played"] = 0.0
    side.write_text(json.dumps(data), encoding="utf-8")
    assert main(["analyse", path, *FEW]) == 0
    out, err = capsys.readouterr()
    assert out != first and "0.0%" in out.splitlines()[3]
    assert err == f"aton analyse: read from {side}\n"
    assert main(["analyse", path, "--iterations", "16"]) == 0  # other settings: computed afresh
    assert capsys.readouterr().err == f"aton analyse: saved to {side}\n"
    assert json.loads(side.read_text(encoding="utf-8"))["settings"]["iterations"] == 16
    assert (tmp_path / "game.json").read_bytes() == record_bytes


def test_no_save_leaves_no_file(tmp_path, capsys):
    path = write(tmp_path, RECORD)
    assert main(["analyse", path, *FEW, "--no-save"]) == 0
    assert capsys.readouterr().err == ""
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


def test_a_budget_in_milliseconds(tmp_path, capsys):
    path = write(tmp_path, with_moves(MOVES[:4]))
    assert main(["analyse", path, "--budget-ms", "3", "--json", "--no-save"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"] == AnalysisSettings(None, 3, 0).to_dict()


@pytest.mark.parametrize("args", [
    ["--iterations", "100", "--budget-ms", "5"],
    ["--iterations", "0"],
    ["--budget-ms", "-1"],
    ["--iterations", "many"],
])
def test_a_budget_must_be_one_positive_number(tmp_path, capsys, args):
    with pytest.raises(SystemExit) as exit_:
        main(["analyse", write(tmp_path, RECORD), *args])
    assert exit_.value.code == 2 and "aton analyse" in capsys.readouterr().err


@pytest.mark.parametrize("content, message", [
    (with_moves([*MOVES[:1], MOVES[0]]), "move 1: red exchange: you have already used your exchange token"),
    ({**RECORD, "format": "pgn"}, "format must be 'aton-record/1', got 'pgn'"),
    ("{not json", "is not valid JSON"),
])
def test_a_bad_record_is_refused_with_status_2_and_nothing_on_stdout(tmp_path, capsys, content, message):
    assert main(["analyse", write(tmp_path, content), *FEW]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("aton analyse: ") and message in err
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


def test_a_missing_file(tmp_path, capsys):
    assert main(["analyse", str(tmp_path / "nowhere.json")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("aton analyse: cannot read")


def test_an_unwritable_place_beside_the_record_is_said_but_not_an_error(tmp_path, capsys):
    path = write(tmp_path, with_moves(MOVES[:4]))
    side_path(path).mkdir()  # a directory where the side file would go
    assert main(["analyse", path, *FEW]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Analysis of ") and err.startswith("aton analyse: not saved beside the record: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.analysis.json", "game.json"]


# ---------------------------------------------------------------------- in a terminal


def _analyse_in_a_terminal(path: str, *args: str) -> tuple[subprocess.Popen[bytes], int]:
    """``aton analyse`` with its standard error on a pseudo-terminal (the master end returned)."""
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "aton_tui.cli", "analyse", path, *args], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
                               preexec_fn=_ctrl_c_as_in_a_terminal)
    os.close(slave)
    return process, master


def _ctrl_c_as_in_a_terminal() -> None:
    """SIGINT at its default in the child, as a command typed in a terminal has it: a test run started
    in the background by a shell without job control ignores SIGINT, and a child inherits that
    (Python then installs no KeyboardInterrupt for it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _read_until(master: int, wanted: bytes) -> bytes:
    """What the terminal shows, until ``wanted`` is among it (or the other end closes)."""
    seen = b""
    while wanted not in seen:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the process ended and closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    return seen


def test_a_terminal_sees_the_progress_and_the_line_is_cleared_at_the_end(tmp_path):
    path = write(tmp_path, RECORD)
    total = len(played_decisions(GameRecord.from_dict(RECORD)))
    lines = [f"aton analyse: {done}/{total} decisions".encode() for done in range(total + 1)]
    process, master = _analyse_in_a_terminal(path, *FEW, "--no-save")
    try:
        shown = _read_until(master, b"\r" + b" " * len(lines[-1]) + b"\r")
        out, _ = process.communicate(timeout=120)
    finally:
        os.close(master)
    assert all(b"\r" + line in shown for line in lines[:-1])
    assert shown.endswith(b"\r" + b" " * len(lines[-1]) + b"\r"), "the last count is cleared away"
    assert process.returncode == 0 and out.startswith(b"Analysis of ")


def test_ctrl_c_stops_the_analysis_with_status_130_and_saves_nothing(tmp_path):
    path = write(tmp_path, RECORD)
    process, master = _analyse_in_a_terminal(path, "--iterations", "100000")
    try:
        _read_until(master, b"aton analyse: 0/")  # searching the first decision (a long search)
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=120)
        shown = _read_until(master, b"interrupted")
    finally:
        os.close(master)
    assert process.returncode == 130 and out == b""
    assert b"aton analyse: interrupted" in shown
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]
