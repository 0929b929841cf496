"""The table service: the only code that changes a table, and the only one that sees one.

Each table in memory is one ``Table`` (``table.py``) that owns its state and its lock; every command on it
reads, decides, writes and updates it inside that lock, asking the engine, committing to the database before
anybody sees a move, rescheduling its timers and publishing the table as it left it (``published.py``).
``TableService`` is the map from id to table: it opens tables, brings them back after a restart, and hands a
command to the table it names. Handlers and timer jobs call it, and see a table only as the last record it
published; it never talks to Telegram itself.
"""

from bot.service.contracts import (
    ABANDONED,
    CLOSED,
    REMATCH_WINDOW,
    ArenaWatcher,
    Refusal,
    Scheduler,
    Verdict,
    Watcher,
    Watchers,
    seconds_shown,
    warning_before,
)
from bot.service.published import ArenaRecord, Published, Screen
from bot.service.service import TableService
from bot.service.table import Table

__all__ = [
    "ABANDONED",
    "CLOSED",
    "REMATCH_WINDOW",
    "ArenaRecord",
    "ArenaWatcher",
    "Published",
    "Refusal",
    "Scheduler",
    "Screen",
    "Table",
    "TableService",
    "Verdict",
    "Watcher",
    "Watchers",
    "seconds_shown",
    "warning_before",
]
