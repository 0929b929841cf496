"""Users: who they are, their language, and whether the bot may message them."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence

from cachetools import LRUCache

from storage.db import CACHED, Database, record
from storage.records import CardsPlace, Seat, User


class Users:
    """Users are read on every update, so they are cached; every write goes through here and updates it."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._cache: LRUCache[int, User] = LRUCache(CACHED)  # bounded: the users seen lately

    async def seen(self, user: User) -> User:
        """Record what Telegram says of a user (name, username, language); keeps their own settings."""
        known = await self.get(user.id)
        telegram = ("first_name", "last_name", "username", "telegram_language")
        if known is not None and all(getattr(known, f) == getattr(user, f) for f in telegram):
            return known  # nothing new: no write, no fsync
        await self.db.execute(
            """INSERT INTO users (id, first_name, last_name, username, telegram_language, updated_at)
               VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT (id) DO UPDATE SET first_name = excluded.first_name, last_name = excluded.last_name,
                   username = excluded.username, telegram_language = excluded.telegram_language,
                   updated_at = excluded.updated_at""",
            (user.id, user.first_name, user.last_name, user.username, user.telegram_language, time.time()),
        )
        await self._changed(user.id)
        found = await self.get(user.id)
        assert found is not None
        return found

    async def get(self, user_id: int) -> User | None:
        if user_id in self._cache:
            return self._cache[user_id]
        row = await self.db.fetch_one("SELECT * FROM users WHERE id = ?", (user_id,))
        if row is None:
            return None
        self._cache[user_id] = found = record(User, row)
        return found

    def cached(self, user_id: int) -> User | None:
        """The record if it is in the cache (no I/O; None if it is not)."""
        return self._cache.get(user_id)

    async def seat_names(self, seats: Sequence[Seat]) -> list[str]:
        """The name of each seat's player as Telegram gave it; "" for an added bot (the bot names it in each
        reader's language)."""
        names = []
        for seat in seats:
            user = await self.get(seat.user_id) if seat.user_id is not None else None
            names.append("" if seat.user_id is None else user.display_name if user else str(seat.user_id))
        return names

    def held(self) -> int:
        """Records in memory now (bot.watch: a bounded number, whatever the bot has ever seen)."""
        return len(self._cache)

    def forget(self, user_id: int) -> None:
        """Drop the cached record (another process changed it)."""
        self._cache.pop(user_id, None)

    async def _changed(self, user_id: int) -> None:
        self.forget(user_id)
        await self.db.changed("user", user_id)

    async def erase(self, user_id: int) -> int:
        """Forget a user (/forgetme): their record goes, with their name, username, language and settings. What
        other players' results, ratings and replays need of them stays, under a new id that names nobody (a
        "former player": ids below 0, which Telegram never gives a user). Returns that id."""
        former = -secrets.randbits(52) - 1
        async with self.db.transaction():
            await self.db.execute(
                "INSERT INTO users (id, first_name, updated_at) VALUES (?, '', ?)", (former, time.time())
            )
            for table, column in (
                ("seats", "user_id"),
                ("result_players", "user_id"),
                ("ratings", "user_id"),
                ("tables", "creator_id"),
                ("arenas", "creator_id"),
                ("arena_players", "user_id"),
                ("arena_games", "user_id"),
                ("move_reports", "reporter_id"),
            ):
                await self.db.execute(
                    f"UPDATE {table} SET {column} = ? WHERE {column} = ?", (former, user_id)
                )
            await self.db.execute("DELETE FROM users WHERE id = ?", (user_id,))
        await self._changed(user_id)
        return former

    async def set_started(self, user_id: int, started: bool = True) -> None:
        """Pressed Start in private (and so unblocked the bot), or stopped it."""
        await self.db.execute(
            "UPDATE users SET started = ?, blocked = CASE WHEN ? = 1 THEN 0 ELSE blocked END, updated_at = ? WHERE id = ?",
            (int(started), int(started), time.time(), user_id),
        )
        await self._changed(user_id)

    async def set_blocked(self, user_id: int, blocked: bool = True) -> None:
        await self.db.execute(
            "UPDATE users SET blocked = ?, updated_at = ? WHERE id = ?", (int(blocked), time.time(), user_id)
        )
        await self._changed(user_id)

    async def set_cards(self, user_id: int, cards: CardsPlace | None) -> None:
        """Where they want their hand shown: in private, in the group (seen only by them), or both."""
        await self.db.execute(
            "UPDATE users SET cards = ?, updated_at = ? WHERE id = ?", (cards, time.time(), user_id)
        )
        await self._changed(user_id)

    async def set_language(self, user_id: int, language: str | None) -> None:
        await self.db.execute(
            "UPDATE users SET language = ?, updated_at = ? WHERE id = ?", (language, time.time(), user_id)
        )
        await self._changed(user_id)
