"""Post-game analysis (``bots.analysis``): the verdicts, what they are based on, the side file."""

from __future__ import annotations

import json
from functools import cache

import pytest

from aton import BLUE, RED, Commit, GameRecord, Move, Place, Player, RecordError
from aton.board import mask_of
from aton.outcome import Termination
from aton.record import steps
from aton.views import view
from bots.analysis import (
    FORMAT,
    AnalysisCancelled,
    AnalysisSettings,
    GameAnalysis,
    Judgement,
    analyse,
    judge,
    load_beside,
    played_decisions,
    record_digest,
    save_beside,
    side_path,
)
from bots.evaluation import CLASS_MASKS, commit_options
from bots.strategy import make_strategy
from bots.tournament import play_game

from ..aton.engine_helpers import hands

#: Play-outs per decision in these tests: enough to tell a won game from a lost one.
BUDGET = 40


#: A greedy game that ends on move 104, blue placing on temple 1, square 9: the square that fills
#: temple 1 and wins.
WON_ON_A_SQUARE = 92


@cache
def greedy_game(seed: int = 5) -> GameRecord:
    """A whole game of the greedy bot against itself."""
    record = GameRecord(seed=seed)
    play_game(make_strategy("greedy", seed=seed), make_strategy("greedy", seed=seed + 1), seed,
              on_move=lambda state, player, move: record.add(player, move))
    return record


def copy_of(record: GameRecord, moves=None) -> GameRecord:
    return GameRecord(record.seed, record.decks, list(record.moves if moves is None else moves), dict(record.meta))


def options(record: GameRecord, index: int) -> int:
    """How many different options the player of move ``index`` had (squares of one temple
    and colour are one option; the exchange is one while unused)."""
    for number, step in enumerate(steps(record)):
        if number == index:
            decision = view(step.state, record.moves[index][0]).decision
            assert decision is not None
            if decision.kind == "commit":
                return len(commit_options(decision.hand)) + decision.can_exchange
            legal = mask_of(decision.squares)
            return sum(1 for mask in CLASS_MASKS if legal & mask)
    raise IndexError(index)


# ---------------------------------------------------------------------- the verdicts


def test_the_same_seed_and_budget_give_the_same_analysis():
    record = greedy_game()
    first = json.dumps(analyse(record, iterations=BUDGET, seed=3).to_dict())
    assert json.dumps(analyse(record, iterations=BUDGET, seed=3).to_dict()) == first
    assert json.dumps(analyse(record, iterations=BUDGET, seed=4).to_dict()) != first


def test_exactly_the_decisions_with_a_choice_are_judged():
    record = greedy_game()
    analysis = analyse(record, iterations=8)
    judged = [d.move_index for d in analysis.decisions]
    assert judged == [i for i in range(len(record.moves)) if options(record, i) > 1]
    assert len(judged) < len(record.moves), "the game has forced decisions: they are not judged"
    kinds = {d.kind for d in analysis.decisions}
    assert {"commit", "place", "remove"} <= kinds


def test_a_missed_win_is_a_blunder_and_the_winning_square_the_best_move():
    record = greedy_game(WON_ON_A_SQUARE)
    player, winning = record.moves[-1]
    assert (player, winning) == (BLUE, Place(1, 9)) and greedy_game_result(record) is Termination.TEMPLE
    elsewhere = copy_of(record, [*record.moves[:-1], (BLUE, Place(2, 0))])
    verdict = analyse(elsewhere, iterations=BUDGET).decisions[-1]
    assert (verdict.move_index, verdict.player, verdict.kind) == (len(record.moves) - 1, BLUE, "place")
    assert verdict.played == Place(2, 0) and verdict.best == Place(1, 9)
    assert verdict.chance_before == 1.0  # the game is won on the spot
    assert verdict.loss >= 0.15 and verdict.judgement is Judgement.BLUNDER
    kept = analyse(record, iterations=BUDGET).decisions[-1]
    assert kept.played == kept.best == winning and kept.loss == 0.0 and kept.judgement is None


def greedy_game_result(record: GameRecord) -> Termination:
    for step in steps(record):
        state = step.state
    outcome = state.outcome()
    assert outcome is not None
    return outcome.termination


def test_a_commit_is_judged_on_what_its_player_knew_not_on_the_opponents_hand():
    """Two games the same for red but for blue's cards (four 4s, or four 1s): red's first
    commit gets the same verdict in both, although it does much better against the 1s."""
    red_deck = hands((2, 3, 1, 4))
    verdicts = []
    for blue_hand in ((4, 4, 4, 4), (1, 1, 1, 1)):
        record = GameRecord(seed=1, decks=(tuple(red_deck), tuple(hands(blue_hand))),
                            moves=[(RED, Commit((2, 3, 1, 4))), (BLUE, Commit(blue_hand))])
        verdicts.append(analyse(record, iterations=BUDGET).decisions[0])
    assert verdicts[0].move_index == verdicts[1].move_index == 0
    assert verdicts[0] == verdicts[1]


def test_the_second_commit_of_a_round_does_not_see_the_first():
    """The record lists red's commit before blue's, but blue chose without seeing it."""
    deck = tuple(hands((2, 3, 1, 4)))
    verdicts = []
    for red_cards in ((2, 3, 1, 4), (4, 1, 3, 2)):
        record = GameRecord(seed=1, decks=(deck, deck),
                            moves=[(RED, Commit(red_cards)), (BLUE, Commit((4, 1, 3, 2)))])
        verdicts.append([d for d in analyse(record, iterations=BUDGET).decisions if d.player is BLUE])
    assert len(verdicts[0]) == 1 and verdicts[0] == verdicts[1]


def test_a_commit_is_judged_alike_whether_the_opponent_committed_before_or_after_it():
    """The record's order of a round's two commits says nothing either player knew: blue's
    commit is judged from the same view (red still to commit) in both orders."""
    deck = tuple(hands((2, 3, 1, 4)))
    red: tuple[Player, Move] = (RED, Commit((2, 3, 1, 4)))
    blue: tuple[Player, Move] = (BLUE, Commit((4, 1, 3, 2)))
    views = []
    for moves in ([red, blue], [blue, red]):
        record = GameRecord(seed=1, decks=(deck, deck), moves=moves)
        views.append([d.view for d in played_decisions(record) if d.player is BLUE])
    assert views[0] == views[1]
    assert not views[0][0].red.committed


@pytest.mark.parametrize("loss, judgement", [
    (0.0, None), (0.0499, None), (0.05, Judgement.INACCURACY), (0.0999, Judgement.INACCURACY),
    (0.10, Judgement.MISTAKE), (0.15, Judgement.BLUNDER), (1.0, Judgement.BLUNDER),
])
def test_the_thresholds(loss, judgement):
    assert judge(loss) is judgement


def test_the_graph_gives_reds_chance_after_every_judged_move():
    analysis = analyse(greedy_game(), iterations=8)
    points = analysis.red_chances()
    assert [i for i, _ in points] == [d.move_index for d in analysis.decisions]
    for (_, red), d in zip(points, analysis.decisions, strict=True):
        assert red == pytest.approx(d.chance_played if d.player is RED else 1 - d.chance_played)
        assert 0.0 <= red <= 1.0


def test_the_summary_counts_each_players_judgements():
    analysis = analyse(greedy_game(), iterations=BUDGET)
    summary = analysis.summary()
    for player in (RED, BLUE):
        own = [d for d in analysis.decisions if d.player is player]
        assert summary[player].decisions == len(own)
        assert summary[player].blunders == sum(d.judgement is Judgement.BLUNDER for d in own)
        assert summary[player].inaccuracies == sum(d.judgement is Judgement.INACCURACY for d in own)
        assert summary[player].average_loss == pytest.approx(sum(d.loss for d in own) / len(own), abs=1e-4)


def test_a_budget_in_milliseconds_is_kept_in_the_settings():
    record = copy_of(greedy_game(), greedy_game().moves[:10])
    analysis = analyse(record, budget_ms=2)  # it replaces the default budget in play-outs
    assert analysis.settings == AnalysisSettings(None, 2, 0)
    assert [d.move_index for d in analysis.decisions] == [d.move_index for d in analyse(record, iterations=8).decisions]
    with pytest.raises(ValueError, match="not both or neither"):
        AnalysisSettings(8, 2)
    with pytest.raises(ValueError, match="not both or neither"):
        analyse(record, iterations=None)


# ---------------------------------------------------------------------- progress, cancel, bad records


def test_progress_is_told_before_the_first_decision_and_after_each():
    record = greedy_game()
    told: list[tuple[int, int]] = []
    analysis = analyse(record, iterations=8, progress=lambda done, total: told.append((done, total)))
    total = told[0][1]
    assert told == [(done, total) for done in range(total + 1)]
    assert total >= len(analysis.decisions)  # forced decisions count as done too


def test_cancelling_stops_the_analysis_inside_a_decision():
    asked = 0

    def cancelled() -> bool:
        nonlocal asked
        asked += 1
        return asked > 3  # during the first judged decision's search

    told: list[int] = []
    with pytest.raises(AnalysisCancelled):
        analyse(greedy_game(), iterations=BUDGET, progress=lambda done, total: told.append(done),
                cancelled=cancelled)
    assert asked == 4 and told == [0]


def test_cancelling_between_decisions():
    told: list[int] = []
    with pytest.raises(AnalysisCancelled):
        analyse(greedy_game(), iterations=8, progress=lambda done, total: told.append(done),
                cancelled=lambda: len(told) > 5)
    assert told == [0, 1, 2, 3, 4, 5]


def test_a_record_that_does_not_replay_is_refused_naming_the_move():
    record = greedy_game()
    bad = copy_of(record, [*record.moves[:3], (RED, Place(4, 0))])
    searched: list[int] = []
    with pytest.raises(RecordError, match=r"^move 3: red place: "):
        analyse(bad, iterations=8, progress=lambda done, total: searched.append(done))
    assert searched == [], "nothing is searched before the record is known to replay"


# ---------------------------------------------------------------------- the side file


def test_an_analysis_survives_its_json_form():
    analysis = analyse(greedy_game(), iterations=8)
    data = json.loads(json.dumps(analysis.to_dict()))
    assert data["format"] == FORMAT and data["record"] == record_digest(greedy_game())
    assert GameAnalysis.from_dict(data) == analysis


def test_saved_beside_the_record_and_read_back_without_touching_the_record(tmp_path):
    record = greedy_game()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record.to_dict()), encoding="utf-8")
    before = path.read_bytes()
    analysis = analyse(record, iterations=8)
    saved = save_beside(path, analysis, record)
    assert saved == tmp_path / "game.analysis.json" == side_path(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.analysis.json", "game.json"]
    assert load_beside(path, GameRecord.from_dict(json.loads(before))) == analysis


def test_the_side_file_of_another_name():
    assert side_path("games/aton-game-12.json").as_posix() == "games/aton-game-12.analysis.json"
    assert side_path("games/last").as_posix() == "games/last.analysis.json"


def test_an_analysis_of_another_game_is_refused(tmp_path):
    record = greedy_game()
    path = tmp_path / "game.json"
    analysis = analyse(record, iterations=8)
    save_beside(path, analysis, record)
    other = copy_of(record, record.moves[:-1])
    assert load_beside(path, other) is None
    with pytest.raises(ValueError, match="another record"):
        save_beside(path, analysis, other)


def test_names_and_dates_in_meta_do_not_change_the_game():
    record = greedy_game()
    renamed = copy_of(record)
    renamed.meta = {"players": {"red": "ann", "blue": "bob"}, "date": "2026-12-03"}
    assert record_digest(renamed) == record_digest(record)
    reseeded = copy_of(record)
    reseeded.seed += 1
    assert record_digest(reseeded) != record_digest(record)


@pytest.mark.parametrize("change", [
    lambda data: {**data, "format": "aton-analysis/0"},
    lambda data: {**data, "thresholds": {"inaccuracy": 0.04, "mistake": 0.1, "blunder": 0.15}},
    lambda data: {**data, "decisions": [{"move_index": "one"}]},
    lambda data: {**data, "decisions": [{**data["decisions"][0], "chance_played": 1.5}]},
    lambda data: [data],
])
def test_a_side_file_of_another_format_or_broken_is_ignored(tmp_path, change):
    record = greedy_game()
    path = tmp_path / "game.json"
    data = analyse(record, iterations=8).to_dict()
    side_path(path).write_text(json.dumps(change(data)), encoding="utf-8")
    assert load_beside(path, record) is None


def test_no_side_file_or_one_that_is_not_json(tmp_path):
    record = greedy_game()
    path = tmp_path / "game.json"
    assert load_beside(path, record) is None
    side_path(path).write_bytes(b"\xff{not json")
    assert load_beside(path, record) is None
