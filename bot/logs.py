"""Logging for operators: LOG_LEVEL is the bot's own lines (bot, engine, storage); libraries (PTB, httpx,
aiosqlite, ...) stay at LOG_LEVEL_LIBS, WARNING unless asked for, because at DEBUG they print request bodies
and SQL parameters: private hands, the fair-play salt and deck, snapshots. The bot token is masked in every
line whatever the level, tracebacks included.

One event is one line, whoever logs it, so that a log shipper never splits one: a message's own line
breaks are escaped and a traceback is folded into the line (its last frames and the error), or, with
LOG_FORMAT=json, each event is one JSON object (the whole traceback in its "exception" field)."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import traceback
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed
from typing import Literal, TextIO

OWN = ("bot", "engine", "storage", "__main__")
MASK = "<BOT_TOKEN>"
# What a log line may carry besides its text (``extra=``), written as fields of their own in JSON.
FIELDS = ("chat_id", "user_id", "table_id", "update_kind", "duration_ms")
try:
    VERSION = installed("durak-bot")
except PackageNotFoundError:  # run from a source tree that was never installed
    VERSION = "unknown (not installed)"
FRAMES = 3  # a folded traceback keeps this many of its last frames
LogFormat = Literal["text", "json"]


class TokenMask(logging.Formatter):
    """One line per event (text, or a JSON object with ``json``), the token (and its secret half alone)
    replaced wherever it appears."""

    def __init__(self, token: str, *, style: LogFormat = "text") -> None:
        super().__init__()
        self.style = style
        self.secrets = [s for s in (token, token.partition(":")[2]) if len(s) >= 8]

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if self.style == "json":
            stamp = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
            event: dict[str, object] = {
                "time": stamp.replace("+00:00", "Z"),  # RFC 3339, UTC
                "level": record.levelname,
                "logger": record.name,
                "message": message,
                "pid": record.process,
                "version": VERSION,
            }
            event.update((k, getattr(record, k)) for k in FIELDS if getattr(record, k, None) is not None)
            if record.exc_info:
                event["exception"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
            text = json.dumps(event, ensure_ascii=False)
        else:
            line = f"{self.formatTime(record)} {record.levelname} {record.name}: {_one_line(message)}"
            if record.exc_info and record.exc_info[1] is not None:
                line += f" | {_folded(record.exc_info[1])}"
            text = line
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return text


def _one_line(text: str) -> str:
    return text.replace("\r", "").replace("\n", " \\n ")


def _folded(error: BaseException) -> str:
    """A traceback in one line: where it happened (the last frames) and what."""
    frames = traceback.extract_tb(error.__traceback__)[-FRAMES:]
    where = " < ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno} {f.name}" for f in reversed(frames))
    return _one_line(f"{type(error).__name__}: {error}" + (f" (at {where})" if where else ""))


def _proxy_page(record: logging.LogRecord) -> bool:
    """PTB logs an answer that is not JSON (a proxy's HTML error page, a 502 say) as an ERROR with the whole
    page and a traceback, just before the bot's own one-line warning and retry, which says the failure:
    one short line at DEBUG instead (the page's start, for whoever looks closer)."""
    if record.name.startswith("telegram") and str(record.msg).startswith("Can not load invalid JSON data"):
        if not logging.getLogger(record.name).isEnabledFor(logging.DEBUG):
            return False
        page = " ".join(str(record.args[0] if isinstance(record.args, tuple) and record.args else "").split())
        record.msg, record.args = "Telegram's answer was not JSON (a proxy's error page?): %s", (page[:160],)
        record.levelno, record.levelname, record.exc_info, record.exc_text = (
            logging.DEBUG,
            "DEBUG",
            None,
            None,
        )
    return True


def _not_a_stop(record: logging.LogRecord) -> bool:
    """A timer job cancelled because the bot is stopping (a computer player still thinking) is not an error:
    the scheduler would log one, with a traceback, for every such table. Nothing was written; the next start
    takes the turn again."""
    return not (record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError))


def configure(
    level: str, libraries: str, token: str, stream: TextIO | None = None, style: LogFormat = "text"
) -> logging.Handler:
    """One handler on the root logger (to ``stream``, stderr by default), returned so tests can remove it."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(TokenMask(token, style=style))
    handler.addFilter(_not_a_stop)
    handler.addFilter(_proxy_page)
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
