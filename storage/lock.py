"""One process per SQLite file: a bot holds an exclusive lock on ``<database>.lock`` for as long as it runs.

Two bots on one file would each keep their own tables over it (with webhooks: ``/join`` answered "That table
is gone."; with polling, only Telegram's 409s hint at it). The lock is the operating system's (``flock``):
it goes with the process however that ends, kill -9 included, so a stale lock file never stops a start.
The file says which process holds it, for the message the second one prints. ``--restore`` asks for the same
lock, so a backup is never written under a running bot. (Where ``fcntl`` is missing, Windows, nothing is
locked.) PostgreSQL is for several processes and locks nothing here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class Held(Exception):
    """Another process holds the database."""

    def __init__(self, database: Path, pid: str) -> None:
        super().__init__(f"another bot process{f' (pid {pid})' if pid else ''} is using {database}")
        self.pid = pid


class DatabaseLock:
    def __init__(self, database: Path) -> None:
        self.database = database
        self.path = database.with_name(database.name + ".lock")
        self._file: IO[str] | None = None

    def acquire(self) -> DatabaseLock:
        """Hold the lock until ``release`` or the process ends; ``Held`` if another process has it."""
        if fcntl is None or not self.path.parent.is_dir():
            return self  # (a missing folder: the database's own check says so)
        try:
            handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the process's life
        except OSError:
            return self  # a read-only folder: the database's own check says what is wrong with it
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            pid = handle.read().strip()
            handle.close()
            raise Held(self.database, pid) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._file = handle
        return self

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # the lock goes with it
            self._file = None

    def holder(self) -> str | None:
        """The pid of the process holding the lock now, or None if nobody does: asked without taking it, or
        writing or creating anything."""
        if fcntl is None or not self.path.exists():
            return None
        with open(self.path, encoding="utf-8") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return handle.read().strip() or "?"
            fcntl.flock(handle, fcntl.LOCK_UN)
        return None
