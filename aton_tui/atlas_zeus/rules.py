"""Atlas & Zeus in the help: the game in short (the Help page of a game of it) and the complete
rules, the very text of docs/atlas-zeus.md (shipped in the package as ``aton_tui/atlas-zeus.md``,
a link to it in the source tree)."""

from __future__ import annotations

from importlib import resources

IN_SHORT = """\
# Atlas & Zeus in short

Atlantis sinks, one island a round.  Two clans, **Red ●** and **Blue ■**, eight people each
(a priest 40, three lords 30, four soldiers 20), fight over what is left: **the last clan
with a survivor wins**; both wiped out at once is a draw.

*The card texts are a reconstruction: the rulebook we have stops after the first card, so the
deck and every card's effect come from a fan implementation of the game, checked against
reviews.  The complete rules (**Tab**) say which rules are reconstructed and where from.*

Each round:

1. **Programming.**  The player with the **initiative ★** puts three cards of their hand face
   down on the track, one in each colour pair {1, 2} {3, 4} {5, 6}.  Then the other player
   fills the three free slots.  You see which slots your opponent took, never the cards
   (unless an **Open hand** makes them program face up).
2. **Resolution.**  Slots 1 to 6, in order: each card is turned and carried out by its
   owner.  A card with no legal target, or a fogged one, does nothing.
3. **Sinking.**  The island under the flood marker **≈** sinks with everyone on it.  The
   marker moves on to the next higher island number still in the ring (after the highest:
   the lowest).
4. **Drawing.**  Each player draws 3 cards.  The initiative passes.

The cards: **Transfer** (3 movement points: one point moves a person one island), **Crab**
(where you are stronger, the opponent's people die), **Harpoon** (kill one opponent person
next to your people), **Fog** (cancel an opponent card on a later slot), **Tidal surge** and
**Flood** (move the flood marker), **Flying fish** (one person anywhere with room),
**Volcano** (erupt a volcanic island: its neighbours' people flee or die), **Net**,
**Turtle**, **Pilehouse** (markers), **Reshuffle**, **Open hand**, **Prayer**, **Weakness**.
Your hand shows the lit card's effect.

## The screen

The **ring** runs clockwise around the screen: left to right along the top, down the right
side, right to left along the bottom and up the left side.  Each island shows its number,
**▲** volcanic or **✚** holy, **s** small (one person) or **L** large (any number), and
the markers on it: **≈** the flood, **#** a net, **⌂** a pilehouse in its owner's colour.
Below are the people: **●** red and **■** blue with their strength; **◉** / **▣** a turtle.

The **track** shows its six slots: **▒▒▒** a card face down, the card's name once turned,
**✓** resolved, **≈ fogged**; the slot being resolved is lit.

**Programming**: ← → light a card of your hand (or click it), **1**–**6** (or a click on a
slot) put it there, **Backspace** takes it back, **Enter** seals the three.  **A card's
decision**: the targets you may choose are lit on the ring or the track; ← → move between
them, **Enter** (or a click) chooses.  A Transfer is chosen step by step — a person, then
where it goes — and **d** ends it before its points are spent.
"""


def complete_rules() -> str:
    """docs/atlas-zeus.md, as shipped with the client."""
    return resources.files("aton_tui").joinpath("atlas-zeus.md").read_text(encoding="utf-8")
