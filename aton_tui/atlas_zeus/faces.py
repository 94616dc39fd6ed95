"""What the widgets draw, read from the engine's view of Atlas & Zeus (``atlas_zeus.views``).

The widgets know nothing of the engine: the ring takes ``IslandFace``s, the track
``SlotFace``s, the hand ``CardFace``s, the clans ``ClanRow``s.  Here they are made from a
``View`` (the live game's or a replay's) and from the decision being made (a programming's
draft is drawn on the track, a Transfer's steps move their people on the ring before they
are sent).
"""

from __future__ import annotations

from collections.abc import Mapping

from atlas_zeus.cards import Card
from atlas_zeus.players import Player
from atlas_zeus.views import PlayerView, View

from .choosing import CardChoice, ProgramDraft
from .clans import ClanRow
from .hand import CardFace
from .ring import IslandFace, PersonMark
from .track import SlotFace


def card_title(card: object) -> str:
    """A card's name as the rules page prints it ("Tidal surge"), from its wire name."""
    return Card(str(card)).title


def card_effect(card: object) -> str:
    return Card(str(card)).effect


def clan_view(view: View, clan: str) -> PlayerView:
    """What the view says of the clan ``clan`` ("red" or "blue")."""
    return view.player(Player.parse(clan))


def where(view: View) -> dict[str, int]:
    """Each living person's island."""
    return {str(p.person): int(p.island) for p in view.people if p.island is not None}


def island_faces(view: View, choice: CardChoice | None = None) -> tuple[IslandFace, ...]:
    """The ring clockwise; a Transfer's chosen steps already applied (their people marked)."""
    moved = dict(choice.steps) if choice is not None and choice.kind == "transfer" else {}
    people = {str(p.person): p for p in view.people}
    at: dict[int, list[PersonMark]] = {}
    for person, island in where(view).items():
        p = people[person]
        destination = moved.get(person, island)
        at.setdefault(destination, []).append(PersonMark(person, str(p.clan), int(p.strength), bool(p.turtle)
                                                         and person not in moved, moved=person in moved))
    faces = []
    for isle in view.ring:
        marks = sorted(at.get(isle.number, []), key=lambda m: (m.clan, -m.strength, m.person))
        faces.append(IslandFace(
            number=isle.number, kind=str(isle.kind), large=isle.large, people=tuple(marks),
            flood=isle.number == view.flood, net=None if isle.net is None else str(isle.net),
            pilehouse=None if isle.pilehouse is None else str(isle.pilehouse)))
    return tuple(faces)


def slot_faces(view: View, draft: Mapping[int, str] | None = None, mine: str | None = None
               ) -> tuple[SlotFace, ...]:
    """The six slots as the receiver sees them; ``draft``: the receiver's (``mine``) own cards
    by slot, being chosen or sealed and not yet shown by the view."""
    faces = []
    for entry in view.track:
        slot = int(entry.slot)
        owner = None if entry.owner is None else str(entry.owner)
        card = None if entry.card is None else card_title(entry.card)
        resolving = view.resolving is not None and int(view.resolving) == slot
        if entry.fogged:
            state = "fogged"
        elif owner is None and draft and slot in draft:
            faces.append(SlotFace(slot, mine, card_title(draft[slot]), "draft"))
            continue
        elif owner is None:
            state = "empty"
        elif entry.resolved:
            state = "resolved"
        elif entry.face_up or card is not None:
            state = "up"
        elif draft and slot in draft and owner == mine:
            state, card = "draft", card_title(draft[slot])
        else:
            state = "down"
        faces.append(SlotFace(slot, owner, card, state, resolving))
    return tuple(faces)


def hand_faces(view: View, seat: str | None, draft: ProgramDraft | None = None) -> tuple[CardFace, ...]:
    """The receiver's hand (none for a spectator); while programming, the draft's hand with the
    slot each card went to."""
    if draft is not None:
        return tuple(CardFace(card_title(card), card_effect(card), draft.used(i)) for i, card in enumerate(draft.hand))
    if seat is None:
        return ()
    hand = clan_view(view, seat).hand
    return tuple(CardFace(card_title(card), card_effect(card)) for card in hand or ())


def clan_row(view: View, clan: str, name: str, you: bool, sealed: bool = False) -> ClanRow:
    """The line of the clan ``clan`` (no clock: the live screen adds its own); ``sealed``: its
    programming is sealed with the arbiter, so it is not to move although the view waits for it."""
    pv = clan_view(view, clan)
    alive = [p for p in view.people if str(p.clan) == clan and p.island is not None]
    to_move = view.outcome is None and any(str(p) == clan for p in view.pending) and not (
        view.phase == "program" and sealed)
    return ClanRow(
        clan=clan, name=name, you=you, connected=True, to_move=to_move, initiative=str(view.initiative) == clan,
        people=len(alive), strength=sum(int(p.strength) for p in alive), hand=int(pv.hand_size), deck=int(pv.deck),
        discard=len(pv.discard), set_aside=tuple(card_title(c) for c in pv.set_aside), open_hand=bool(pv.open_hand),
        weakened=bool(pv.weakened))
