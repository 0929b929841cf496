"""Logging for operators: LOG_LEVEL is the bot's own lines (bot, engine, storage); libraries (PTB, httpx,
aiosqlite, ...) stay at LOG_LEVEL_LIBS, WARNING unless asked for, because at DEBUG they print request bodies
and SQL parameters: private hands, the fair-play salt and deck, snapshots. The bot token is masked in every
line whatever the level, tracebacks included."""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import TextIO

OWN = ("bot", "engine", "storage", "__main__")
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
MASK = "<BOT_TOKEN>"


class TokenMask(logging.Formatter):
    """Formats as usual, then replaces the token (and its secret half alone) wherever it appears."""

    def __init__(self, token: str, fmt: str = FORMAT) -> None:
        super().__init__(fmt)
        self.secrets = [s for s in (token, token.partition(":")[2]) if len(s) >= 8]

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return text


def _not_a_stop(record: logging.LogRecord) -> bool:
    """A timer job cancelled because the bot is stopping (a computer player still thinking) is not an error:
    the scheduler would log one, with a traceback, for every such table. Nothing was written; the next start
    takes the turn again."""
    return not (record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError))


def configure(level: str, libraries: str, token: str, stream: TextIO | None = None) -> logging.Handler:
    """One handler on the root logger (to ``stream``, stderr by default), returned so tests can remove it."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(TokenMask(token))
    handler.addFilter(_not_a_stop)
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "durak", False):
            root.removeHandler(old)
    handler.durak = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(libraries)
    for name in OWN:
        logging.getLogger(name).setLevel(level)
    return handler
