"""Persistence: SQLite (the default) or PostgreSQL, schema migrations, and one repository per concern. No SQL
outside here."""

from __future__ import annotations

import time
from pathlib import Path

from storage.arenas import ArenaExists, Arenas
from storage.chats import Chats
from storage.db import DATABASE_ERRORS, Database, StorageUnusable, is_postgres
from storage.games import BrokenSnapshot, Games, StaleGame
from storage.migrations import SchemaTooNew
from storage.owners import Owners
from storage.paces import Paces
from storage.postgres import PostgresDatabase, describe_server
from storage.records import Restorable
from storage.reports import Reports
from storage.results import GLOBAL, Results
from storage.series import Series
from storage.sqlite import SqliteDatabase
from storage.tables import SeatTaken, TableExists, Tables
from storage.users import Users


def describe(where: str | Path) -> str:
    """Where the data lives, for messages and logs: never a password."""
    return describe_server(str(where)) if is_postgres(where) else str(where)


async def open_database(where: str | Path, *, synchronous: str = "FULL") -> Database:
    """A PostgreSQL URL (``postgresql://…``) opens that server's database; anything else is a SQLite file.
    Either way the schema is brought up to date (and a newer one refused)."""
    if is_postgres(where):
        return await PostgresDatabase.open(str(where))
    return await SqliteDatabase.open(where, synchronous=synchronous)


class Storage:
    """The repositories over one database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.users = Users(db)
        self.chats = Chats(db)
        self.tables = Tables(db)
        self.games = Games(db)
        self.results = Results(db)
        self.owners = Owners(db)
        self.paces = Paces(db)
        self.arenas = Arenas(db)
        self.series = Series(db)
        self.reports = Reports(db)

    @classmethod
    async def open(cls, where: str | Path, *, synchronous: str = "FULL") -> Storage:
        """A SQLite file, or a ``postgresql://`` URL (``synchronous`` is SQLite's)."""
        return cls(await open_database(where, synchronous=synchronous))

    async def close(self) -> None:
        await self.db.close()

    async def probe(self) -> None:
        """Write one row, as every move does: raises if the database takes no write now (another program
        holds its lock, the disk is full, the file is read-only), where a read would still be answered."""
        await self.db.execute(
            """INSERT INTO health (id, checked_at) VALUES (1, ?)
               ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at""",
            (time.time(),),
        )

    def forget(self, kind: str, key: int) -> None:
        """Another process changed this user or chat: the cached record goes."""
        if kind == "user":
            self.users.forget(key)
        elif kind == "chat":
            self.chats.forget(key)

    async def restorable(self, chat_id: int | None = None) -> list[Restorable]:
        """Every lobby, every game in play and every finished game whose result was not delivered (of one
        chat, if given), with its seats, messages, deadline and game: what start-up needs to bring them all
        back, in one call."""
        async with self.db.transaction():
            tables = await self.tables.restorable(chat_id)
            return [
                Restorable(row=t, game=await self.games.current(t.id) if t.status != "lobby" else None)
                for t in tables
            ]


__all__ = [
    "DATABASE_ERRORS",
    "GLOBAL",
    "ArenaExists",
    "BrokenSnapshot",
    "Database",
    "Restorable",
    "SchemaTooNew",
    "SeatTaken",
    "StaleGame",
    "Storage",
    "StorageUnusable",
    "TableExists",
    "describe",
]
