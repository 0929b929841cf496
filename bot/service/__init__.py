"""The table service: the only code that changes a table.

Each operation takes the table's lock, asks the engine, writes to the database (a move is committed before
anybody sees it), updates the live state in memory, reschedules the timer and marks what must be redrawn.
Handlers and timer jobs call it; it never talks to Telegram itself. Its parts work on one registry of live
tables: the lobby (``lobby.py``), play (``play.py``) and the restart (``restore.py``).
"""

from __future__ import annotations

from bot.service.live import CLOSED, REMATCH_WINDOW, Live, Outcome, Redraw, Refusal, Scheduler, warning_before
from bot.service.lobby import LobbyService
from bot.service.play import PlayService
from bot.service.restore import RestoreService


class TableService(LobbyService, PlayService, RestoreService):
    """Everything that changes a table, in one object the handlers and timers share."""


__all__ = [
    "CLOSED",
    "REMATCH_WINDOW",
    "Live",
    "Outcome",
    "Redraw",
    "Refusal",
    "Scheduler",
    "TableService",
    "warning_before",
]
