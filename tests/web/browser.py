"""A real browser for the web gateway's tests: Debian's headless Chromium, driven over WebDriver
(selenium), whose screen is read back by replaying the bytes its page received on the game's
WebSocket (Chromium's DevTools log) into a terminal emulator (pyte): what the page's terminal
shows, as text, without reading pixels.  Its methods block: call them with ``asyncio.to_thread``
when the server runs in the test's own event loop."""

from __future__ import annotations

import base64
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pyte
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
WINDOW = (1280, 800)  # pixels: 142 × 36 cells at the page's font size


class Browser:
    """One headless Chromium window."""

    def __init__(self) -> None:
        options = Options()
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--no-first-run", f"--window-size={WINDOW[0]},{WINDOW[1]}"):
            options.add_argument(argument)
        assert CHROMIUM is not None and CHROMEDRIVER is not None
        options.binary_location = CHROMIUM
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.terminal = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.terminal)

    def open(self, url: str) -> None:
        self.driver.get(url)

    def quit(self) -> None:
        self.driver.quit()

    # ------------------------------------------------------------------ reading the screen

    def _replay(self) -> None:
        """Feed what the page's WebSocket carried since the last look into the terminal emulator."""
        for entry in self.driver.get_log("performance"):
            event = json.loads(entry["message"])["message"]
            method, params = event.get("method"), event.get("params", {})
            if method == "Network.webSocketCreated":
                query = parse_qs(urlsplit(params["url"]).query)
                self.terminal.resize(int(query["height"][0]), int(query["width"][0]))
            elif method == "Network.webSocketFrameSent" and params["response"]["opcode"] == 1:
                message = json.loads(params["response"]["payloadData"])
                if message[0] == "resize":
                    self.terminal.resize(message[1]["height"], message[1]["width"])
            elif method == "Network.webSocketFrameReceived" and params["response"]["opcode"] == 2:
                self.stream.feed(base64.b64decode(params["response"]["payloadData"]))

    def screen(self) -> str:
        self._replay()
        return "\n".join(line.rstrip() for line in self.terminal.display)

    def wait_for(self, *texts: str, timeout: float = 60.0) -> str:
        """The screen, as soon as one of ``texts`` is on it."""
        return self.wait_until(lambda screen: any(text in screen for text in texts), f"none of {texts!r} showed",
                               timeout)

    def wait_until(self, shows: Callable[[str], bool], what: str, timeout: float = 60.0) -> str:
        """The screen, as soon as ``shows(screen)``; AssertionError(``what``) after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if shows(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{what}; the screen was:\n{self.screen()}")

    def where(self, text: str) -> tuple[int, int]:
        """The cell (column, row) where ``text`` begins on the screen."""
        for row, line in enumerate(self.screen().splitlines()):
            if text in line:
                return line.index(text), row
        raise AssertionError(f"{text!r} is not on the screen:\n{self.screen()}")

    # ------------------------------------------------------------------ playing

    def type(self, *keys: str) -> None:
        """Type into the page's terminal (selenium's ``Keys`` for the special keys)."""
        self.driver.execute_script("document.querySelector('.xterm-helper-textarea').focus()")
        for key in keys:
            ActionChains(self.driver).send_keys(key).perform()
            time.sleep(0.15)

    def click(self, column: int, row: int) -> None:
        """Click the middle of a cell of the page's terminal."""
        canvas = self.driver.find_element(By.CSS_SELECTOR, ".xterm-screen")
        width, height = canvas.rect["width"], canvas.rect["height"]
        cell_width, cell_height = width / self.terminal.columns, height / self.terminal.lines
        ActionChains(self.driver).move_to_element_with_offset(
            canvas, int((column + 0.5) * cell_width - width / 2), int((row + 0.5) * cell_height - height / 2),
        ).click().perform()

    def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        assert self.driver.save_screenshot(str(path)), "no screenshot"

    @property
    def closed(self) -> bool:
        """Whether the page says its session has ended."""
        return "-closed" in (self.driver.execute_script("return document.body.className") or "")
