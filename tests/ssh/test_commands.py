"""Over SSH the client runs on the server's machine: its command palette offers the game's own
commands only, and Textual's actions that act on the machine (a screenshot written to its
disk, suspending the process) are refused however they are asked for."""

from __future__ import annotations

import asyncssh

from aton_tui.app import AtonApp, Launch

from .terminal import LOBBY, connect, open_terminal

CTRL_P, CTRL_U = b"\x10", b"\x15"  # the palette; clear its search


async def test_the_palette_over_ssh_offers_the_games_commands_only(stack):
    conn = await connect(stack.port, "ivan", asyncssh.generate_private_key("ssh-ed25519"))
    chan, term = await open_terminal(conn)
    await term.wait_for(LOBBY, timeout=15)
    # Each step waits for what only the keys just sent can draw: the search shown empty with every
    # command listed again (only after the previous query's "No matches found"), then "No matches
    # found" for the new query. Text that a stale frame may still carry is no proof: the client
    # redraws the whole screen when the lobby below the palette changes, and Ctrl+U (a binding,
    # run once the key has bubbled up to the app) would then be overtaken by the next query's
    # letters, which the input takes at once — the query is typed only once Ctrl+U has shown.
    clear = CTRL_P  # opens the palette, with an empty search
    for query in ("screenshot", "keys", "maximize", "suspend"):
        mark = len(term.output)
        chan.write(clear)
        await term.wait_for("Search for commands", since=mark)
        await term.wait_for("Quick match", since=mark)  # the game's commands, all of them
        mark = len(term.output)
        chan.write(query.encode())
        await term.wait_for("No matches found", since=mark)
        assert "Screenshot" not in term.text(mark) and "Change the current theme" not in term.text(mark)
        clear = CTRL_U
    conn.close()
    await conn.wait_closed()


async def test_a_hosted_client_refuses_the_machines_actions(tmp_path):
    hosted = AtonApp(Launch(name="ivan", host="127.0.0.1", port=9, hosted=True))
    local = AtonApp(Launch(name="ivan", host="127.0.0.1", port=9))
    for action in ("screenshot", "suspend_process"):
        assert hosted.check_action(action, ()) is False
        assert local.check_action(action, ()) is True
    assert hosted.check_action("quit", ()) is True
