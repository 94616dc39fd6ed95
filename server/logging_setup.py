"""Where the server's log goes, and how its lines look (``aton-server --log-level --log-format``).

One line per event worth an operator's attention (a login, a game's start and end, a
refusal); asyncssh's own INFO chatter (every channel opened and closed) is kept at WARNING
unless the level is ``debug``. As text, each line is ``time level logger: message``; as JSON
(python-json-logger), one object per line with ``time``, ``level``, ``logger``, ``message``
and the fields the line carries (``event``, ``account``, ``game``…), for a log collector.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

from .config import LogFileSettings

LOG_LEVELS = ("debug", "info", "warning", "error")
LOG_FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
#: The libraries whose INFO lines say nothing an operator needs (asyncssh logs every channel).
CHATTY_LIBRARIES = ("asyncssh",)


def configure(level: str = "info", log_format: str = "text", handler: logging.Handler | None = None) -> None:
    """Send every log line of ``level`` and above to ``handler`` (default: standard error), in
    ``log_format``; the chatty libraries only from WARNING, unless ``level`` is debug."""
    handler = handler or logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for library in CHATTY_LIBRARIES:
        logging.getLogger(library).setLevel(logging.DEBUG if level == "debug" else logging.WARNING)


def formatter(log_format: str) -> logging.Formatter:
    if log_format == "json":
        from pythonjsonlogger.json import JsonFormatter

        return JsonFormatter("{asctime}{levelname}{name}{message}", style="{",
                             rename_fields={"asctime": "time", "levelname": "level", "name": "logger"})
    return logging.Formatter(TEXT_FORMAT)


def rotating_file(path: Path, settings: LogFileSettings | None = None) -> logging.Handler:
    """A handler that writes to ``path`` and rotates it (``LogFileSettings``)."""
    settings = settings or LogFileSettings()
    return logging.handlers.RotatingFileHandler(path, maxBytes=settings.max_bytes, backupCount=settings.backups,
                                                encoding="utf-8")
