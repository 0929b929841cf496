"""Back up the SQLite database while the bot runs, and restore a backup.

    .venv/bin/python -m storage.backup backups/                   # a copy now, checked
    .venv/bin/python -m storage.backup backups/ --keep 14         # ... and only the newest 14 kept
    .venv/bin/python -m storage.backup backups/ --textfile /var/lib/node_exporter   # ... and say when
    .venv/bin/python -m storage.backup --restore backups/durak-20261204-180000.sqlite3   # the bot stopped

The copy is made with SQLite's online backup API, not by copying the file: the database is in WAL mode, so
the file alone may miss the last commits, and a copy taken mid-write may be torn. The backup reads one
consistent snapshot while the bot goes on writing (readers never block writers in WAL mode). It is written
under a temporary name, checked (``PRAGMA integrity_check``, the schema version, its rows counted) and only
then renamed into place, so a file named like a backup is always a whole one. ``--restore`` writes a backup
back over the database (DATABASE_PATH as the bot reads it, from the environment or ``.env``, or
``--database``) with the same API, after checking it; stop the bot
first. PostgreSQL has its own tools for this: ``pg_dump`` and ``pg_restore`` (docs/operations.md).
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import sys
import time
from contextlib import closing, suppress
from pathlib import Path

from prometheus_client import CollectorRegistry, Gauge, write_to_textfile
from pydantic import ValidationError

from storage.copy import TABLES
from storage.lock import DatabaseLock, Held
from storage.migrations import LATEST
from storage.settings import DatabaseSettings


class BackupFailed(RuntimeError):
    """The copy could not be made or did not check out; nothing named like a backup was left."""


def check(path: Path) -> dict[str, int]:
    """The rows of each table of a database file that checks out; BackupFailed if it does not."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            found = conn.execute("PRAGMA integrity_check").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            counts = {
                table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table, _ in TABLES
            }
    except sqlite3.Error as exc:
        raise BackupFailed(f"{path}: {exc}") from None
    if found != "ok":
        raise BackupFailed(f"{path}: integrity check says {found}")
    if version != LATEST:
        raise BackupFailed(f"{path}: schema version {version}, this code is at {LATEST}")
    return counts


def backup(database: Path, folder: Path, *, keep: int | None = None, now: float | None = None) -> Path:
    """Copy ``database`` into ``folder`` as ``<name>-<time>.sqlite3``, checked; keep the newest ``keep``."""
    if not database.exists():
        raise BackupFailed(f"no database at {database}")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    target = folder / f"{database.stem}-{stamp}.sqlite3"
    partial = folder / f".{target.name}.{os.getpid()}.partial"  # runs that overlap never share one
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(database)) as source, closing(sqlite3.connect(partial)) as copy:
            source.backup(copy)  # all pages in one step: one consistent snapshot
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
        check(partial)
        os.replace(partial, target)
    except (sqlite3.Error, OSError, BackupFailed) as exc:  # an unwritable folder, a full disk, a bad copy
        with suppress(OSError):
            partial.unlink(missing_ok=True)
        raise BackupFailed(f"the backup of {database} to {folder} failed: {exc}") from None
    if keep is not None:  # this database's backups only (another named "durak-test" is not among them)
        own = re.compile(rf"{re.escape(database.stem)}-\d{{8}}-\d{{6}}\.sqlite3")
        backups = sorted(p for p in folder.iterdir() if own.fullmatch(p.name))
        for old in backups[: max(0, len(backups) - keep)]:
            old.unlink()
    return target


def restore(backup_file: Path, database: Path) -> dict[str, int]:
    """Write ``backup_file`` over ``database`` (the bot stopped), after checking it; its rows per table. The
    bot's own lock (storage.lock) is held meanwhile: refused while a bot runs on it, and no bot starts on a
    half-written file."""
    counts = check(backup_file)
    try:
        lock = DatabaseLock(database).acquire()
    except Held as exc:
        raise BackupFailed(f"{exc}: stop it first, then restore") from None
    try:
        with (
            sqlite3.connect(f"file:{backup_file}?mode=ro", uri=True) as source,
            sqlite3.connect(database) as target,
        ):
            source.backup(target)
    finally:
        lock.release()
    check(database)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m storage.backup",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("folder", nargs="?", type=Path, help="where backups go")
    parser.add_argument("--keep", type=_at_least_one, help="keep only the newest N (1 or more) backups")
    parser.add_argument("--restore", type=Path, metavar="BACKUP", help="write this backup over the database")
    parser.add_argument(
        "--database", type=Path, help="the database file (default: DATABASE_PATH, as the bot reads it)"
    )
    parser.add_argument(
        "--textfile",
        type=Path,
        metavar="DIR",
        help="after a good backup, write durak_backup.prom here (node exporter's textfile collector)",
    )
    args = parser.parse_args(argv)
    try:  # the bot's own settings: the environment, then .env
        settings = DatabaseSettings()
    except ValidationError as exc:
        print(f"Failed: {exc.errors()[0]['msg']}", file=sys.stderr)
        return 2
    if settings.database_url and args.database is None:
        print("DATABASE_URL is PostgreSQL: back it up with pg_dump (docs/operations.md)", file=sys.stderr)
        return 2
    args.database = args.database or settings.database_path
    try:
        if args.restore is not None:
            counts = restore(args.restore, args.database)
            print(f"restored {args.restore} into {args.database}: {_rows(counts)}")
        elif args.folder is not None:
            made = backup(args.database, args.folder, keep=args.keep)
            print(f"backed up {args.database} to {made}: {_rows(check(made))}")
            if args.textfile is not None:
                told(args.textfile, args.database, made)
        else:
            parser.error("give a folder for the backup, or --restore BACKUP")
    except BackupFailed as exc:
        print(f"Failed: {exc}", file=sys.stderr)
        return 1
    return 0


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:  # 0 would delete every backup, the new one too
        raise argparse.ArgumentTypeError("keep at least 1 backup")
    return value


def told(folder: Path, database: Path, made: Path) -> Path:
    """The time and size of the good backup just made, for Prometheus (node exporter's textfile collector,
    which reads ``*.prom`` in ``folder``): an alert on its age catches a nightly job that stopped."""
    registry = CollectorRegistry()
    labels = {"database": database.stem}
    Gauge(
        "durak_backup_last_success_timestamp_seconds",
        "When the last good backup of the database was made (Unix time)",
        list(labels),
        registry=registry,
    ).labels(**labels).set(time.time())
    Gauge("durak_backup_size_bytes", "The last good backup's size", list(labels), registry=registry).labels(
        **labels
    ).set(made.stat().st_size)
    path = folder / f"{database.stem}_backup.prom"
    try:
        write_to_textfile(str(path), registry)  # written aside and renamed: never read half-written
    except OSError as exc:
        raise BackupFailed(f"the backup is made, but {path} could not be written: {exc}") from None
    return path


def _rows(counts: dict[str, int]) -> str:
    return ", ".join(f"{table} {n}" for table, n in counts.items())


if __name__ == "__main__":
    sys.exit(main())
