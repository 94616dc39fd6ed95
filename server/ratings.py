"""Ratings: one Glicko-2 rating per account and clock, updated when a rated game ends.

The arithmetic is ``server.glicko2``; this module is what lichess does with it:

- a new account starts at 1500 with a rating deviation (RD) of 500 and volatility 0.09, and
  τ is 0.75; a rating is *provisional* (shown "1500?") while its RD is 110 or more;
- each game is a rating period of its own, rated the moment it ends;
- between games the RD grows with the time away, by 0.21436 rating periods a day (a
  typical RD goes from 60 to 110 in a year): a rating is stored with the RD it had after its
  last game and the time of that game, and read with the RD it has now (``live``);
- the RD stays between 45 and 500, the volatility at most 0.1, the rating at least 400;
- a game between a person and a bot moves the person's rating, RD and volatility half as far
  as a game between people would (lichess averages the new values with the old); the bot's
  moves in full.

Hosted bots have accounts (``server.accounts``) and start at a rating that says roughly how
strong their level is (``BOT_START``, from the tournaments in docs/bots.md, "Levels": greedy
with slips beats random every time, greedy beats it in 89% of games (+370), the search wins 76%
against greedy (+205)), so that a player can be offered a bot about their strength — a new one
the ``normal`` level, at 1500 — and their games then put them where they belong.

The tables are ``ratings`` (one row per account and clock that has played a rated game) and
``rating_changes`` (each rated game's before and after, per account).  A game's rating
writes are queued with the game's result (``server.store``: one commit, so a crash keeps both
or neither); this module keeps the rows it wrote in memory, so that two games ending in the
same turn each see the other's change before it is committed.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from protocol import events as ev
from protocol.clocks import TIME_CONTROLS
from protocol.game_frames import rating_text

from . import glicko2
from .accounts import bot_name

if TYPE_CHECKING:
    from .room import Room
    from .store import Store

log = logging.getLogger(__name__)

#: lichess's constants (lila's ``Glicko``): where a new account starts, and the system's τ.
START_RATING = 1500.0
START_RD = 500.0
START_VOLATILITY = 0.09
TAU = 0.75
#: A rating whose RD is at least this is provisional: shown with a "?", not on the leaderboard.
PROVISIONAL_RD = 110.0
#: The bounds every rating is kept within after a game.
MIN_RD = 45.0
MAX_RD = 500.0
MAX_VOLATILITY = 0.1
MIN_RATING = 400.0
#: How fast the RD grows with time away: rating periods per day.
RATING_PERIODS_PER_DAY = 0.21436
SECONDS_PER_DAY = 86400.0
#: How far a game against a bot moves a person's rating, as a share of a game between people.
AGAINST_A_BOT = 0.5
#: Where each hosted bot level starts (rating, RD): an estimate from bot-against-bot tournaments,
#: with an RD that lets the first games against people correct it.
BOT_START: dict[str, tuple[float, float]] = {
    "random": (700.0, 150.0),
    "easy": (1150.0, 150.0),
    "normal": (1500.0, 150.0),
    "hard": (1700.0, 150.0),
}


def create_tables(db: sqlite3.Connection) -> None:
    """The ratings' tables (a migration of ``server.store``)."""
    db.execute("""CREATE TABLE ratings (
        account INTEGER NOT NULL REFERENCES accounts(id),
        clock TEXT NOT NULL,
        rating REAL NOT NULL,
        rd REAL NOT NULL,
        volatility REAL NOT NULL,
        games INTEGER NOT NULL DEFAULT 0,
        wins INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        draws INTEGER NOT NULL DEFAULT 0,
        updated REAL NOT NULL,
        PRIMARY KEY (account, clock)
    )""")
    db.execute("CREATE INDEX ratings_by_clock ON ratings (clock, rating DESC)")
    db.execute("""CREATE TABLE rating_changes (
        game INTEGER NOT NULL REFERENCES games(id),
        account INTEGER NOT NULL REFERENCES accounts(id),
        clock TEXT NOT NULL,
        rating_before REAL NOT NULL,
        rd_before REAL NOT NULL,
        rating_after REAL NOT NULL,
        rd_after REAL NOT NULL,
        PRIMARY KEY (game, account)
    )""")


def bot_levels_respaced(db: sqlite3.Connection) -> None:
    """Version 8: the bot levels were spaced again (issue 19: ``easy`` became greedy with slips,
    ``normal`` greedy, ``hard`` the search that plans its turns), so the hosted bots of those
    levels start again from ``BOT_START``.  Their past games' rating changes stay as they were."""
    names = [bot_name(level) for level in ("easy", "normal", "hard")]  # as they were then: never change
    db.execute(f"DELETE FROM ratings WHERE account IN (SELECT id FROM accounts WHERE kind = 'bot' "
               f"AND name IN ({', '.join('?' * len(names))}))", names)


@dataclass(frozen=True)
class PlayerRating:
    """An account's rating for one clock, its RD as of now, and its rated games."""

    account: int
    clock: str
    rating: float
    rd: float
    volatility: float
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def provisional(self) -> bool:
        return self.rd >= PROVISIONAL_RD

    def shown(self) -> str:
        """As players read it: "1623", or "1500?" while provisional."""
        return rating_text(round(self.rating), self.provisional)

    def glicko(self) -> glicko2.Rating:
        return glicko2.Rating(self.rating, self.rd, self.volatility)

    def public(self) -> dict[str, int | bool]:
        """As the wire carries it: the rounded rating and whether it is provisional."""
        return {"rating": round(self.rating), "provisional": self.provisional}


@dataclass(frozen=True)
class Standing:
    """A place on the leaderboard: its rank (from 1), the account's name and kind, its rating."""

    rank: int
    name: str
    kind: str
    rating: PlayerRating


@dataclass(frozen=True)
class Rated:
    """One player of a rated game: their account, whether it is a bot's, and their score
    (1 a win, 0.5 a draw, 0 a loss)."""

    account: int
    bot: bool
    score: float


@dataclass(frozen=True)
class Change:
    """What a rated game did to one player's rating."""

    before: PlayerRating
    after: PlayerRating

    @property
    def shown_change(self) -> int:
        """The change as players read it: the difference of the ratings they saw (+12, −9)."""
        return round(self.after.rating) - round(self.before.rating)


@dataclass(frozen=True)
class _Stored:
    """A ``ratings`` row: the RD as it was at ``updated`` (wall-clock seconds)."""

    rating: float
    rd: float
    volatility: float
    games: int
    wins: int
    losses: int
    draws: int
    updated: float


S = TypeVar("S", bound=Hashable)


class Ratings:
    """The ratings of the server's database.  ``now`` is the wall clock (seconds since the
    epoch): the RD grows with the days between games, across restarts.  ``bot_levels`` gives
    each hosted bot's account its level, for where it starts (``BOT_START``)."""

    def __init__(self, store: Store, now: Callable[[], float] = time.time,
                 bot_levels: Mapping[int, str] | None = None) -> None:
        self.store = store
        self.now = now
        self.bot_levels = dict(bot_levels or {})
        #: the rows this server wrote since it started (read back without waiting for a commit)
        self._written: dict[tuple[int, str], _Stored] = {}

    # ------------------------------------------------------------------ reading

    def _stored(self, account: int, clock: str) -> _Stored | None:
        written = self._written.get((account, clock))
        if written is not None:
            return written
        row = self.store.db.execute(
            "SELECT rating, rd, volatility, games, wins, losses, draws, updated FROM ratings "
            "WHERE account = ? AND clock = ?", (account, clock)).fetchone()
        return None if row is None else _Stored(*row)

    def get(self, account: int, clock: str) -> PlayerRating:
        """The account's rating for ``clock`` now (where it starts, if it never played a rated game)."""
        stored = self._stored(account, clock)
        if stored is None:
            rating, rd = BOT_START.get(self.bot_levels.get(account, ""), (START_RATING, START_RD))
            return PlayerRating(account, clock, rating, rd, START_VOLATILITY)
        rd = live_rd(stored.rd, stored.volatility, self.now() - stored.updated)
        return PlayerRating(account, clock, stored.rating, rd, stored.volatility,
                            stored.games, stored.wins, stored.losses, stored.draws)

    def of_account(self, account: int) -> dict[str, PlayerRating]:
        """The account's rating for every clock, with its rated games won, lost and drawn."""
        return {clock: self.get(account, clock) for clock in TIME_CONTROLS}

    def leaderboard(self, clock: str, offset: int, limit: int) -> tuple[int, list[Standing]]:
        """The accounts whose rating for ``clock`` is not provisional now, best first: how many
        there are, and ``limit`` of them from ``offset`` on."""
        self.store.commit()  # every rated game so far
        # live_rd < PROVISIONAL_RD, squared: RD² + periods·(σ·SCALE)² < PROVISIONAL_RD²
        established = ("r.rd * r.rd + max(0, ? - r.updated) * ? * (r.volatility * ?) * (r.volatility * ?) < ? "
                       "AND r.clock = ?")
        params = (self.now(), RATING_PERIODS_PER_DAY / SECONDS_PER_DAY, glicko2.SCALE, glicko2.SCALE,
                  PROVISIONAL_RD ** 2, clock)
        total = self.store.db.execute(f"SELECT count(*) FROM ratings r WHERE {established}", params).fetchone()[0]
        rows = self.store.db.execute(
            "SELECT a.id, a.name, a.kind FROM ratings r JOIN accounts a ON a.id = r.account "
            f"WHERE {established} ORDER BY r.rating DESC, a.id LIMIT ? OFFSET ?", (*params, limit, offset)).fetchall()
        return total, [Standing(offset + i + 1, name, kind, self.get(account, clock))
                       for i, (account, name, kind) in enumerate(rows)]

    def shown_for(self, account: int | None, clock: str) -> dict | None:
        """An account's rating for ``clock`` as the wire shows it beside its name (None: a guest)."""
        return None if account is None else self.get(account, clock).public()

    def shown_per_clock(self, account: int | None) -> dict[str, dict] | None:
        """An account's ratings, by clock, as the lobby shows them, with the rated games played
        (None: a guest)."""
        if account is None:
            return None
        return {clock: {**rating.public(), "games": rating.games} for clock, rating in self.of_account(account).items()}

    # ------------------------------------------------------------------ a rated game

    def rate_room(self, room: Room) -> list[dict]:
        """``Room.on_result`` of a rated game: rate it (between two accounts, each seat's score from
        the outcome, a seat not held by a person counting as a bot), show each seat's new rating,
        and return the events ``rating_changed`` (wire maps) to publish after the game's end."""
        outcome = room.game.outcome()
        accounts = {seat: held.account for seat, held in room.seats.items()}
        if outcome is None or None in accounts.values() or len(set(accounts.values())) != len(accounts):
            return []
        players = {seat: Rated(held.account, held.kind != "human",
                               0.5 if outcome.winner is None else float(outcome.winner == seat))
                   for seat, held in room.seats.items() if held.account is not None}
        changes = self.rate_game(room.game_id, room.options["clock"], players)
        for seat, change in changes.items():
            room.seats[seat].rating = change.after.public()
            room.rating_changes[str(seat)] = record_entry(change.before.rating, change.after.rating, change.after.rd)
        return [ev.RatingChanged(ev.player_of(seat), round(change.before.rating), round(change.after.rating),
                                 change.after.provisional).to_wire() for seat, change in changes.items()]

    def rate_game(self, game: int, clock: str, players: Mapping[S, Rated]) -> dict[S, Change]:
        """Rate a finished game between two accounts: each player's new rating is queued in the
        store (committed with the game's result) and returned.  Nothing is rated (and {} is
        returned) if the arithmetic fails, which only inputs that are not finite numbers cause."""
        if len(players) != 2 or len({p.account for p in players.values()}) != 2:
            raise ValueError("a rated game is between two different accounts")
        (seat_a, a), (seat_b, b) = players.items()
        before = {seat_a: self.get(a.account, clock), seat_b: self.get(b.account, clock)}
        try:
            after = {seat_a: self._after(before[seat_a], before[seat_b], a, b),
                     seat_b: self._after(before[seat_b], before[seat_a], b, a)}
        except ArithmeticError:
            log.exception("game %s could not be rated", game)
            return {}
        now = self.now()
        changes = {}
        for seat, player in players.items():
            new = after[seat]
            old = before[seat]
            row = _Stored(new.rating, new.rd, new.volatility, old.games + 1, old.wins + (player.score == 1),
                          old.losses + (player.score == 0), old.draws + (player.score == 0.5), now)
            self._write(game, player.account, clock, old, row)
            changes[seat] = Change(old, PlayerRating(player.account, clock, row.rating, row.rd, row.volatility,
                                                     row.games, row.wins, row.losses, row.draws))
        return changes

    def _after(self, mine: PlayerRating, theirs: PlayerRating, me: Rated, them: Rated) -> glicko2.Rating:
        """One player's rating after the game: a Glicko-2 period of one game (the RD's growth for
        the time away is in ``mine`` already), halved for a person against a bot, kept in bounds."""
        new = glicko2.rate(mine.glicko(), [glicko2.Result(theirs.glicko(), me.score)], TAU, elapsed_periods=0)
        if them.bot and not me.bot:
            new = _towards(mine.glicko(), new, AGAINST_A_BOT)
        return glicko2.Rating(max(MIN_RATING, new.rating), min(MAX_RD, max(MIN_RD, new.rd)),
                              min(MAX_VOLATILITY, new.volatility))

    def _write(self, game: int, account: int, clock: str, before: PlayerRating, row: _Stored) -> None:
        self._written[(account, clock)] = row
        self.store.write(
            "INSERT INTO ratings (account, clock, rating, rd, volatility, games, wins, losses, draws, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account, clock) DO UPDATE SET "
            "rating = excluded.rating, rd = excluded.rd, volatility = excluded.volatility, games = excluded.games, "
            "wins = excluded.wins, losses = excluded.losses, draws = excluded.draws, updated = excluded.updated",
            (account, clock, row.rating, row.rd, row.volatility, row.games, row.wins, row.losses, row.draws,
             row.updated))
        self.store.write(
            "INSERT INTO rating_changes (game, account, clock, rating_before, rd_before, rating_after, rd_after) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)", (game, account, clock, before.rating, before.rd, row.rating, row.rd))


def record_entry(rating_before: float, rating_after: float, rd_after: float) -> dict[str, int | bool]:
    """What a game's record keeps of one seat's rated game (``meta.players``): the rating before
    and after, rounded, and whether the one after is provisional."""
    return {"rating_before": round(rating_before), "rating_after": round(rating_after),
            "provisional": rd_after >= PROVISIONAL_RD}


def live_rd(rd: float, volatility: float, seconds_away: float) -> float:
    """An RD ``seconds_away`` after it was stored: grown by Glicko-2's step 6 for the rating
    periods that passed (lichess's ``RATING_PERIODS_PER_DAY``), within the bounds."""
    periods = max(0.0, seconds_away) / SECONDS_PER_DAY * RATING_PERIODS_PER_DAY
    grown = glicko2.idle(glicko2.Rating(0.0, rd, volatility), periods).rd
    return min(MAX_RD, max(MIN_RD, grown))


def _towards(old: glicko2.Rating, new: glicko2.Rating, share: float) -> glicko2.Rating:
    """``share`` of the way from ``old`` to ``new``, in rating, RD and volatility alike."""
    def part(a: float, b: float) -> float:
        return a + (b - a) * share

    return glicko2.Rating(part(old.rating, new.rating), part(old.rd, new.rd), part(old.volatility, new.volatility))

