"""A whole game of Atlas & Zeus over SSH (issue 18): a guest logs in through the gateway, opens
"Play a bot", chooses Atlas & Zeus on the dialog's Play row, and plays the server's bot to the
end with key presses only, as a player at a terminal would; the end screen comes.

The keys are those of the game's screen; which decision waits for the player is read from the
server's game (the test's oracle), since the terminal's bytes are all the SSH client has."""

from __future__ import annotations

import asyncio

from server.room import Room, Seat

from .terminal import IN_LOBBY, LOBBY, connect, open_terminal

DOWN, RIGHT, ENTER, BACKSPACE = b"\x1b[B", b"\x1b[C", b"\r", b"\x7f"
#: Every slot key, then Enter: the lit cards go on the slots open to the player (a slot of a pair
#: taken replaces its partner; a slot not open is refused with a notice), and the programming is sealed.
PROGRAM_KEYS = b"123456" + ENTER
#: Bounds, in looks at the server's game every ``POLL`` seconds: for the game to start, for the
#: whole game (it takes about 5 s here), and for a server to take one decision's keys.
POLL = 0.05
POLLS_TO_START, POLLS_TO_PLAY, POLLS_TO_ANSWER = 400, 4800, 40


def keys_for(kind: str, tries: int) -> bytes:
    """The keys that answer a decision of ``kind``, the ``tries``-th time it is asked (a choice the
    server refused, such as Transfer steps legal only together, is made otherwise the next time)."""
    if kind == "program":
        return PROGRAM_KEYS
    undo = BACKSPACE * 3  # whatever a refused attempt left chosen
    if kind == "transfer":  # a person, an island, and d: the Transfer ends after that one step
        return undo + RIGHT * tries + ENTER + RIGHT * tries + ENTER + b"d"
    if kind == "fish":  # the person first, then the island
        return undo + ENTER + RIGHT * (1 + tries) + ENTER
    return undo + RIGHT * (1 + tries) + ENTER


def our_decision(room: Room, seat: object) -> str | None:
    """The kind of decision the player must make now (None: the bot's turn, or a sealed wait)."""
    if room.game.is_over or seat not in room.game.pending() or seat in room.seals:
        return None
    decision = room.game.view(seat).get("decision")
    return decision["kind"] if decision else None


def is_guest(held: Seat) -> bool:
    """Whether a seat is held by a guest (a guest's name begins with "~"); the bot's is not."""
    return held.name.startswith("~")


def position(room: Room) -> tuple[object, ...]:
    return room.move_count, tuple(room.game.pending()), tuple(room.seals), room.game.progress()


async def test_a_whole_game_of_atlas_zeus_over_ssh_by_keys(stack):
    conn = await connect(stack.port, "zoe")  # a guest
    chan, term = await open_terminal(conn, size=(100, 30))
    await term.wait_for(IN_LOBBY, timeout=15)
    chan.write(b"b")  # Play a bot: Strength, Clock, Colour, then Play (a guest has no Game row)
    await term.wait_for("Atlas & Zeus")
    chan.write(DOWN * 3 + RIGHT)  # Play: Aton → Atlas & Zeus
    await asyncio.sleep(0.3)
    chan.write(ENTER)
    for _ in range(POLLS_TO_START):
        if rooms := [r for r in stack.server.rooms.values() if any(is_guest(held) for held in r.seats.values())]:
            break
        await asyncio.sleep(POLL)
    else:
        raise AssertionError("no game started:\n" + term.text()[-2000:])
    [room] = rooms
    assert room.game.name == "atlas-zeus"
    seat = next(seat for seat, held in room.seats.items() if is_guest(held))
    await term.wait_for("Atlas & Zeus", since=0, timeout=15)

    decided: dict[str, int] = {}
    for _ in range(POLLS_TO_PLAY):
        if room.game.is_over:
            break
        kind = our_decision(room, seat)
        if kind is None:
            await asyncio.sleep(POLL)
            continue
        before = position(room)
        for tries in range(12):
            chan.write(keys_for(kind, tries))
            for _ in range(POLLS_TO_ANSWER):
                if position(room) != before:
                    break
                await asyncio.sleep(POLL)
            if position(room) != before:
                break
        else:
            raise AssertionError(f"the {kind} never reached the server:\n" + term.text()[-3000:])
        decided[kind] = decided.get(kind, 0) + 1
    else:
        raise AssertionError("the game did not end:\n" + term.text()[-3000:])

    assert decided.get("program", 0) >= 2, decided
    outcome = room.game.outcome()
    assert outcome is not None
    mark = len(term.output)
    await term.wait_for("Lobby (l)", timeout=15)  # the end screen, with its buttons
    chan.write(b"l")  # back to the lobby
    await term.wait_for(LOBBY, since=mark, timeout=15)
    conn.close()
    await conn.wait_closed()
    await stack.settled()
    print(f"decisions by key over SSH: {decided}; outcome: {outcome.to_dict()}")
