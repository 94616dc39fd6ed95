"""Player names: the one rule for every name a server accepts, and how names are compared.

A name is shown to other players (the lobby, the table, chat), so it must be what it looks
like.  ``player_name`` normalises a proposed name (NFKC, so that fullwidth and other
compatibility forms become the ordinary ones; the spaces around it dropped, the runs of
spaces inside it made one, emoji presentation selectors dropped) and refuses, saying why,
a name that

- holds a control, formatting (zero-width joiners, bidi overrides, tags), private-use or
  unassigned character, or one of the characters that show nothing although Unicode counts
  them as letters, marks or symbols (Hangul fillers, variation selectors, the blank Braille
  pattern…), or more than ``MAX_MARKS`` combining marks on one character;
- has no visible character (a letter, a digit, a punctuation mark or a symbol);
- is longer than ``NAME_CHARS`` characters or wider than ``NAME_COLUMNS`` terminal columns;
- mixes the scripts whose letters look alike (Latin with Cyrillic or Greek): "pаypal" with a
  Cyrillic "а" is refused, a name all in Cyrillic is not;
- looks like a name the server keeps for itself (its bots, its own name): case, accents,
  spacing, punctuation, lookalike letters and a number at the end aside.

``skeleton`` is what a name looks like, for comparisons: the lobby gives a name that looks
like one already online a suffix (``alice-2``), as it does for the same name.

Display width (``columns``): a wide or fullwidth character (``unicodedata.east_asian_width``
W or F, and the few symbols Unicode made wide after Python's version of it) counts as two
columns, a combining mark as none, anything else as one.  That is a few lines of the standard
library, and never narrower than the client's Rich draws a name (a property test checks it);
the ``wcwidth`` package is not installed, and the protocol package, which bots use without a
screen, has no reason to depend on a terminal library.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from .errors import ProtocolError
from .schema import invalid

NAME_CHARS = 24  # the most characters a name may have (on the wire and after normalising)
NAME_COLUMNS = 24  # the most terminal columns a name may take
MAX_MARKS = 3  # combining marks on one character (more is "zalgo" text that spills over lines)

#: Character categories no name may hold, and what to call them in an error message.
_REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character",
    "Cs": "a surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned character",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}
#: Characters that show nothing although they are letters, marks or symbols (Unicode's
#: default-ignorable code points outside the categories above, and blank-looking symbols).
_INVISIBLE = frozenset([
    0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x2800, 0x3164, 0xFFA0,
    0x16FE4, 0x1D159,
    *range(0xFE00, 0xFE10),  # variation selectors
    *range(0xE0100, 0xE01F0),  # variation selectors supplement
])
#: Emoji or text presentation selectors (after "❤"): dropped, the character stays.
_PRESENTATION_SELECTORS = dict.fromkeys([0xFE0E, 0xFE0F])
_VISIBLE_CATEGORIES = ("L", "N", "P", "S")
#: Symbols that Unicode 16 made wide, after the Unicode version of Python's ``unicodedata``
#: (trigrams, monograms, hexagrams, Tai Xuan Jing symbols and counting rods).
_WIDE_SINCE = ((0x2630, 0x2637), (0x268A, 0x268F), (0x4DC0, 0x4DFF), (0x1D300, 0x1D376))
#: The numbers in a name, for ``name_order``.
_DIGITS = re.compile(r"(\d+)")
#: Scripts whose letters are easily taken for one another.
_LOOKALIKE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")
#: Letters of other scripts, and digits, that look like a (casefolded) Latin letter.
_LOOKALIKES = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "һ": "h", "і": "l", "ј": "j", "к": "k", "м": "m", "н": "h",
    "о": "o", "р": "p", "ԛ": "q", "с": "c", "ѕ": "s", "т": "t", "у": "y", "ԝ": "w", "х": "x",
    "ӏ": "l",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x",
    # a capital I, a small l and a 1 look the same in many fonts
    "i": "l", "0": "o", "1": "l",
})


def _columns(c: str) -> int:
    if unicodedata.category(c) in ("Mn", "Me"):
        return 0
    if unicodedata.east_asian_width(c) in ("W", "F") or any(low <= ord(c) <= high for low, high in _WIDE_SINCE):
        return 2
    return 1


def columns(text: str) -> int:
    """Terminal columns ``text`` takes: 2 for a wide character, 0 for a combining mark, else 1."""
    return sum(map(_columns, text))


def _letters_and_digits(name: str) -> str:
    folded = unicodedata.normalize("NFKD", name.casefold())
    return "".join(c for c in folded if c.isalnum())


def skeleton(name: str) -> str:
    """What a name looks like, for comparing names: its letters and digits with case, accents
    and lookalikes folded (``"B0T (Hard)"`` and ``"Bot (hard)"`` are both ``"bothard"``)."""
    return _letters_and_digits(name).translate(_LOOKALIKES)


def name_key(name: str) -> str:
    """What a name looks like, as one key: two names with the same key are one name (an account
    owns its name's key; two players online never share one).  The skeleton, or for a name
    without letters or digits, the name casefolded."""
    return skeleton(name) or name.casefold()


def name_order(name: str) -> tuple[tuple[str | int, ...], str]:
    """A player name's place in a list of names: as a reader orders them, case aside and the
    numbers in it by value (``look2`` before ``look10``); names that differ only in case, or
    in leading zeros, in a fixed order."""
    # the pieces alternate text, number, text, ... (the first may be empty), so that two
    # names' pieces compare str with str and int with int
    pieces = _DIGITS.split(name.casefold())
    return tuple(int(p) if i % 2 else p for i, p in enumerate(pieces)), name


def looks_like(name: str, reserved: Iterable[str]) -> str | None:
    """The reserved name that ``name`` looks like (a number at its end aside), if any."""
    mine = re.sub(r"\d+$", "", _letters_and_digits(name)).translate(_LOOKALIKES)
    return next((r for r in reserved if skeleton(r) == mine), None)


def _code_point(c: str) -> str:
    return f"U+{ord(c):04X} ({unicodedata.name(c, 'unnamed')})"


def _refused_character(text: str) -> str | None:
    """Why some character of ``text`` may not be in a name, or None."""
    marks = 0
    for c in text:
        category = unicodedata.category(c)
        if category in _REFUSED_CATEGORIES:
            return f"{_code_point(c)} is {_REFUSED_CATEGORIES[category]}"
        if ord(c) in _INVISIBLE:
            return f"{_code_point(c)} shows nothing"
        marks = marks + 1 if category.startswith("M") else 0
        if marks > MAX_MARKS:
            return f"more than {MAX_MARKS} combining marks on one character"
    return None


def _scripts(text: str) -> list[str]:
    """The lookalike scripts whose letters ``text`` uses, in the order met."""
    found: list[str] = []
    for c in text:
        if unicodedata.category(c).startswith("L"):
            script = unicodedata.name(c, "").split(" ", 1)[0]
            if script in _LOOKALIKE_SCRIPTS and script not in found:
                found.append(script)
    return found


def player_name(proposed: str, reserved: Iterable[str] = ()) -> str:
    """The name ``proposed`` becomes, normalised; ProtocolError (``invalid``, field ``name``)
    saying what is wrong if it cannot be a player's name.  ``reserved``: the names the server
    keeps for itself, which no player may take or imitate."""
    cleaned = proposed.translate(_PRESENTATION_SELECTORS)
    text = unicodedata.normalize("NFKC", cleaned)
    problem = _refused_character(cleaned) or _refused_character(text)
    if problem is not None:
        raise _refused(f"{problem}; a name may hold only visible characters and spaces")
    text = " ".join(text.split())
    if not any(unicodedata.category(c).startswith(_VISIBLE_CATEGORIES) for c in text):
        raise _refused("a name needs at least one visible character (a letter, a digit or a sign)")
    if len(text) > NAME_CHARS:
        raise _refused(f"{len(text)} characters once normalised; at most {NAME_CHARS}")
    if columns(text) > NAME_COLUMNS:
        raise _refused(f"{columns(text)} columns wide (a wide character counts as two); "
                       f"at most {NAME_COLUMNS}")
    scripts = _scripts(text)
    if len(scripts) > 1:
        words = " and ".join(s.capitalize() for s in scripts)
        raise _refused(f"it mixes {words} letters, which look alike; write it in one script")
    imitated = looks_like(text, reserved)
    if imitated is not None:
        raise _refused(f'it looks like "{imitated}", a name this server keeps for itself')
    return text


def with_suffix(name: str, suffix: str) -> str:
    """``name`` with ``suffix`` (``-2``) at its end, shortened if need be to stay a valid name."""
    while name and (len(name + suffix) > NAME_CHARS or columns(name + suffix) > NAME_COLUMNS):
        name = name[:-1]
    return name.rstrip() + suffix


#: What marks a guest's name (``~ann``): no account's name starts with it.
GUEST_MARK = "~"


def unmarked(name: str) -> str:
    """``name`` without the guest marks at its start (a guest who says hello again with ``~ann``)."""
    return name.lstrip(GUEST_MARK)


def account_name(proposed: str, reserved: Iterable[str] = ()) -> str:
    """``player_name`` for an account's name: one that does not start with the guest mark either."""
    name = player_name(proposed, reserved)
    if name.startswith(GUEST_MARK):
        raise _refused(f'a name that starts with "{GUEST_MARK}" marks a guest')
    return name


def guest_name(name: str) -> str:
    """A guest's name as others see it: marked (``~ann``), shortened if need be to stay a name."""
    while len(GUEST_MARK + name) > NAME_CHARS or columns(GUEST_MARK + name) > NAME_COLUMNS:
        name = name[:-1]
    return GUEST_MARK + name.rstrip()


def _refused(problem: str) -> ProtocolError:
    return invalid("name", problem)
