"""The guided first game (``aton learn``): its decks, every move of it, and what is said at each step.

This is the one place the lesson's words live: edit a text here.  You play Red; the bot,
Blue, plays the moves written for it.  Each of your steps has a short instruction
(``do``: one line, it stands in the decision line) and why (``why``: a few sentences
beside the board), and the moves it expects, in any order within the step.  Nothing
else is played: the decks are fixed, so the same game comes every time.

The cards of each round come from the decks in order (four a round, top first); the
war of round 3 turns up the card after that round's hand.  ``tests/aton_tui/test_lesson.py``
plays the whole script through the engine and checks that it still meets every rule
it teaches, so a change of the rules or of a move here cannot break it silently.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from aton.cards import CARD_VALUES, COPIES_PER_VALUE
from aton.moves import Commit, Move, Place, Remove
from aton.players import BLUE, RED, Player

#: Your colour in the lesson, and the bot's.
LEARNER, TEACHER = RED, BLUE
#: The name the bot plays under.
TEACHER_NAME = "Bot (lesson)"


@dataclass(frozen=True)
class Step:
    """A step of the lesson: ``moves`` by ``player``; for the learner, what is said meanwhile."""

    player: Player
    moves: tuple[Move, ...]
    do: str = ""  # the learner's instruction, one short line
    why: str = ""  # what just happened and why this step, a few sentences


def you(do: str, why: str, *moves: Move) -> Step:
    return Step(LEARNER, moves, do, why)


def bot(*moves: Move) -> Step:
    return Step(TEACHER, moves)


def places(temple: int, *squares: int) -> tuple[Place, ...]:
    return tuple(Place(temple, s) for s in squares)


#: The hands of rounds 1–5 (yours, the bot's), as each deck deals them.
HANDS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    ((4, 1, 2, 3), (1, 4, 3, 4)),
    ((1, 4, 2, 4), (2, 3, 2, 4)),
    ((3, 1, 1, 4), (3, 1, 2, 4)),
    ((2, 2, 1, 3), (1, 3, 2, 4)),
    ((3, 2, 2, 3), (2, 3, 3, 1)),
)
#: The round whose cartouches 1 and 2 tie, and the deck cards turned up in its war (yours, the bot's).
WAR_ROUND, WAR_CARDS = 3, ((1,), (4,))


def _deck(player: Player) -> tuple[int, ...]:
    """A whole starting deck, top first: the hands (and war cards) in order, then the rest."""
    cards: list[int] = []
    for number, hands in enumerate(HANDS, start=1):
        cards += hands[player]
        if number == WAR_ROUND:
            cards += WAR_CARDS[player]
    rest = Counter(dict.fromkeys(CARD_VALUES, COPIES_PER_VALUE))
    rest.subtract(cards)
    return (*cards, *sorted(rest.elements()))


#: Red's deck and Blue's, top card first (``aton.game.new_game``'s ``decks``).
DECKS = (_deck(RED), _deck(BLUE))

STEPS: tuple[Step, ...] = (
    # ---- round 1: cartouche 1 points, cartouche 2 order, no removal in round 1, range
    bot(Commit((1, 4, 3, 4))),
    you("Type 4 1 2 3 (cartouches 1 to 4), then Enter",
        "Welcome! You are Red, the bot is Blue. Each round you both put 4 cards, in secret, on 4 "
        "cartouches. Cartouche 1 scores: the higher card gets 2 × the difference. On cartouche 2 the "
        "lower card plays first; 3 is your range, 4 the stones you place.",
        Commit((4, 1, 2, 3))),
    you("Place 3 stones: Enter on each square the cursor shows",
        "Your 4 beat Blue's 1: 2 × 3 = 6 points. Your 1 on cartouche 2 is lower than Blue's 4, so you "
        "play first. A 1 there also removes one of your own stones, but nobody removes anything in "
        "round 1. Cartouche 3 shows 2: temples 1 and 2 are in range, lit on the board.",
        *places(1, 0, 1, 2)),
    bot(*places(2, 0, 1, 2, 3)),
    # ---- round 2: removing 2 (you) and 1 (the bot)
    bot(Commit((2, 3, 2, 4))),
    you("Type 1 4 2 4, then Enter",
        "Blue placed 4 stones in temple 2. From round 2 on, cartouche 2 also removes: 4 takes 2 of "
        "the opponent's stones, 3 takes 1, 2 none, 1 one of your own. A 4 removes the most, but a high "
        "cartouche 2 plays last.",
        Commit((1, 4, 2, 4))),
    bot(Remove(1, 0)),
    bot(*places(2, 4, 5, 6, 7)),
    you("Remove 2 of Blue's stones: Enter on each",
        "Blue's 2 beat your 1 on cartouche 1: Blue scores 2. Blue's 3 on cartouche 2 is lower than "
        "your 4, so Blue went first: it took 1 of your stones and placed 4 more in temple 2. Now take "
        "2 of Blue's there. Removed stones go to the Kingdom of the Dead.",
        Remove(2, 0), Remove(2, 1)),
    you("Place 4 stones in temple 1",
        "Cartouche 4 shows 4: four stones, each on an empty square in your range. Temple 1 pays its "
        "majority the difference in stones at a scoring round.",
        *places(1, 0, 3, 4, 5)),
    # ---- round 3: a war, removing your own stone, a range of 1
    bot(Commit((3, 1, 2, 4))),
    you("Type 3 1 1 4, then Enter",
        "The Kingdom of the Dead holds 3 stones; at 8 or more at the end of a round, a scoring round "
        "follows. This time a 1 on cartouche 2 costs you one of your own stones, and a 1 on "
        "cartouche 3 keeps you in temple 1.",
        Commit((3, 1, 1, 4))),
    you("Remove one of your own stones",
        "War! Cartouches 1 and 2 tied (3 and 1 each), so both turned up the top card of their deck: "
        "your 1 is lower than Blue's 4, you play first. The war cards go back under the decks. Your 1 "
        "on cartouche 2 sends one of your own stones to the Kingdom.",
        Remove(1, 0)),
    you("Place 4 stones in temple 1",
        "Cartouche 3 shows 1: only temple 1 is in range, so only its squares are lit.",
        *places(1, 6, 7, 8, 9)),
    bot(Remove(2, 2)),
    bot(*places(1, 0, 10, 11), Place(2, 0)),
    # ---- round 4: placement overflows into the Kingdom; a scoring round
    bot(Commit((1, 3, 2, 4))),
    you("Type 2 2 1 3, then Enter",
        "Blue removed one of its own stones and filled the last squares of temple 1. With a 1 on "
        "cartouche 3 you may only use temple 1, and it is full: the 3 stones of your cartouche 4 go "
        "from your supply straight to the Kingdom of the Dead. That makes 8 there: a scoring round.",
        Commit((2, 2, 1, 3))),
    bot(Remove(1, 1)),
    bot(Place(1, 1), *places(2, 1, 2, 8)),
    # ---- round 5: an area threat, blocked
    bot(Commit((2, 3, 3, 1))),
    you("Type 3 2 2 3, then Enter",
        "In a scoring round the player with more stones in a category scores it; a tie scores nothing. "
        "Now look at temple 2: Blue owns 9 of its 12 squares. With 3 more in one turn Blue wins at once. "
        "A low cartouche 2 may let you play first, and a 2 on cartouche 3 reaches temple 2.",
        Commit((3, 2, 2, 3))),
    you("Place your 3 stones on temple 2's empty squares",
        "You play first. Owning a whole temple, all 14 yellow or all 14 green squares wins at once, "
        "checked after a whole placement. Your 3 stones in temple 2 keep Blue from filling it.",
        *places(2, 9, 10, 11)),
    bot(Remove(2, 9)),
    bot(Place(2, 9)),
    you("That is the whole game. Enter ends the lesson",
        "Blue took one of your stones back, but temple 2 is out of its reach. Aton is won by reaching "
        "40 points, or by owning a whole temple, all yellow or all green squares. Once per game, x "
        "exchanges your 4 cards for new ones. ? shows the rules and keys at any time."),
)


def correction(expected: tuple[Move, ...]) -> str:
    """What is said, gently, when the learner does something else than the step's ``expected`` moves."""
    move = expected[0]
    if isinstance(move, Commit):
        cards = " ".join(str(c) for c in move.cards)
        return (f"Not quite: this lesson puts {cards} on cartouches 1 to 4. Your cards are back in "
                f"your hand: type {cards}, then Enter.")
    what = "remove" if isinstance(move, Remove) else "place"
    return f"Not that one: here the lesson wants you to {what} on the square under the cursor. Press Enter."


#: Asked the first time ``aton`` starts.
OFFER = ("New to Aton?  Learn it in 5 minutes:\na guided first game against the bot\n"
         "shows every rule in five rounds.\nNo clock, and Esc leaves it at any time.")
#: Said when the lesson is left before its end, and when it ends.
COME_BACK = "You left the lesson. aton learn, or l in the help (?), starts it again."
LESSON_OVER = "Lesson over. aton plays a game against the bot; aton learn takes the lesson again."
