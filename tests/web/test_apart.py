"""The web gateway apart from the arbiter (issue 17, point 2): ``aton-server gateway --web-port``
in a process of its own, serving the page for an arbiter that trusts its gateway key.  A key's
player asks for a sign-in link over SSH (OpenSSH's client, through the same gateway's SSH); the
arbiter makes the code, for its page elsewhere (``--web-public-url``); a real browser opens the
link at the gateway, which cannot redeem it and passes it on in its assertion of the browser's
player; the arbiter redeems it, once, and the browser's client is the key's account."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from protocol import gateway_assertions
from server.app import ArbiterServer
from server.config import ServerConfig, WebLimits
from server.ssh.identity import fingerprint
from server.web_logins import WebLogins

from ..conftest import GAME_SEED
from ..ssh.terminal import key_file, openssh
from ..ssh.test_gateways_apart import gateway_key
from .browser import CHROMEDRIVER, CHROMIUM, Browser
from .conftest import run, screenshot

pytestmark = [pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                 reason="needs Debian's chromium and chromium-driver (.ci/run installs them)"),
              pytest.mark.skipif(not shutil.which("ssh"), reason="needs OpenSSH's ssh (.ci/run installs it)")]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def arbiter(tmp_path: Path) -> AsyncIterator[ArbiterServer]:
    """An arbiter that trusts the gateway keeping its keys in ``tmp_path / "gateway"``."""
    trusted = tmp_path / "trusted_gateways"
    trusted.write_text(gateway_assertions.raw_key_line(gateway_key(tmp_path / "gateway")) + " gateway\n")
    server = ArbiterServer(ServerConfig(port=0, db_path=str(tmp_path / "aton.db"), game_seed=GAME_SEED,
                                        trusted_gateways=str(trusted)))
    await server.start()
    yield server
    await server.stop()


async def test_a_web_gateway_apart_signs_a_browser_in_with_a_code_the_arbiter_made_once(
        arbiter: ArbiterServer, browser: Browser, tmp_path: Path):
    log = (tmp_path / "gateway.log").open("w")
    gateway = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "gateway", "--arbiter", f"127.0.0.1:{arbiter.port}",
         "--web-port", "0", "--web-host", "127.0.0.1", "--ssh-port", "0", "--data-dir", str(tmp_path / "gateway"),
         "--ssh-sessions", "inprocess", "--ssh-app-hosts", "1"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True)
    assert gateway.stdout is not None
    try:
        said = [gateway.stdout.readline() for _ in range(3)]
        assert said[0].startswith("web on http://127.0.0.1:"), [*said, (tmp_path / "gateway.log").read_text()]
        assert said[1].startswith("ssh listening on 127.0.0.1:") and "the arbiter must trust it" in said[2]
        page, ssh_port = said[0].split()[-1].rstrip("/"), int(said[1].rsplit(":", 1)[1])
        arbiter.web_logins = WebLogins(WebLimits(), page)  # as aton-server --web-public-url PAGE sets it

        key_path, key = key_file(tmp_path, "alice")
        status, out, err = await openssh(ssh_port, key_path, "web-login")
        assert status == 0, err
        found = re.search(r"http://\S+\?code=[A-Z0-9-]+", out.decode())
        assert found is not None and found.group(0).startswith(page + "/?code="), out
        link = found.group(0)

        await run(browser.open, link)
        await run(browser.wait_for, "lobby of")
        screen = await run(browser.wait_for, "alice ")
        assert "~" not in screen.split("Players online", 1)[1]  # the account, not a guest
        account = arbiter.accounts.by_fingerprint(fingerprint(key))
        assert account is not None and account.name == "alice"
        [conn] = [c for c in arbiter.connections if c.name == "alice" and c.assertion is not None
                  and c.assertion.via == "web"]
        assert conn.assertion is not None and conn.assertion.player == fingerprint(key)
        screenshot(browser, tmp_path, "apart-signed-in")

        await run(browser.open, link)  # the same link again: the arbiter spent it
        spent = await run(browser.wait_for, "spent or has expired")
        assert "Disconnected: That sign-in link" in " ".join(spent.split())  # the arbiter's line, no error code
        screenshot(browser, tmp_path, "apart-spent")
    finally:
        gateway.send_signal(signal.SIGTERM)
        assert gateway.wait(15) == 0  # it stopped cleanly
        log.close()
