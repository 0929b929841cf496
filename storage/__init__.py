"""SQLite persistence (aiosqlite): schema migrations and one repository per concern. No SQL outside here."""

from __future__ import annotations

from pathlib import Path

from storage.chats import Chats
from storage.db import Database, StorageUnusable
from storage.games import BrokenSnapshot, Games, StaleGame
from storage.migrations import SchemaTooNew
from storage.records import LiveTable
from storage.results import GLOBAL, Results
from storage.tables import SeatTaken, TableExists, Tables
from storage.users import Users


class Storage:
    """The repositories over one database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.users = Users(db)
        self.chats = Chats(db)
        self.tables = Tables(db)
        self.games = Games(db)
        self.results = Results(db)

    @classmethod
    async def open(cls, path: str | Path, *, synchronous: str = "FULL") -> Storage:
        return cls(await Database.open(path, synchronous=synchronous))

    async def close(self) -> None:
        await self.db.close()

    async def live_tables(self) -> list[LiveTable]:
        """Every lobby, every game in play and every finished game whose result was not delivered, with its
        seats, messages, deadline and game: what start-up needs to bring them all back, in one call."""
        async with self.db.transaction():
            tables = await self.tables.live()
            return [
                LiveTable(table=t, game=await self.games.current(t.id) if t.status != "lobby" else None)
                for t in tables
            ]


__all__ = [
    "GLOBAL",
    "BrokenSnapshot",
    "Database",
    "LiveTable",
    "SchemaTooNew",
    "SeatTaken",
    "StaleGame",
    "Storage",
    "StorageUnusable",
    "TableExists",
]
