"""Chats: language, default table options, and following a group that became a supergroup."""

from __future__ import annotations

import time

from cachetools import LRUCache

from engine import Options
from storage.db import CACHED, Database, Row
from storage.records import Chat, Opens, TablesPer, Tidy
from storage.seasons import SeasonKind


def _chat(row: Row) -> Chat:
    options = row["default_options"]
    return Chat(
        id=row["id"],
        type=row["type"],
        title=row["title"],
        language=row["language"],
        is_forum=bool(row["is_forum"]),
        default_options=Options.model_validate_json(options) if options else None,
        opens=row["opens"],
        tables_per=row["tables_per"],
        seasons=row["seasons"],
        season_told=row["season_told"],
        tidy=row["tidy"],
    )


class Chats:
    """Chats are read for every redraw of a group message, so they are cached; writes go through here."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._cache: LRUCache[int, Chat] = LRUCache(CACHED)  # bounded: the chats seen lately

    async def seen(self, chat_id: int, type: str, title: str | None, is_forum: bool = False) -> Chat:
        known = await self.get(chat_id)
        if known is not None and (known.type, known.title, known.is_forum) == (type, title, is_forum):
            return known  # nothing new: no write, no fsync
        self._cache.pop(chat_id, None)
        await self.db.execute(
            """INSERT INTO chats (id, type, title, is_forum, updated_at) VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (id) DO UPDATE SET type = excluded.type, title = excluded.title,
                   is_forum = excluded.is_forum, updated_at = excluded.updated_at""",
            (chat_id, type, title, int(is_forum), time.time()),
        )
        await self.db.changed("chat", chat_id)
        found = await self.get(chat_id)
        assert found is not None
        return found

    def held(self) -> int:
        """Records in memory now (bot.watch: a bounded number, whatever the bot has ever seen)."""
        return len(self._cache)

    def forget(self, chat_id: int) -> None:
        """Drop the cached record (another process changed it)."""
        self._cache.pop(chat_id, None)

    async def _changed(self, chat_id: int) -> None:
        self.forget(chat_id)
        await self.db.changed("chat", chat_id)

    async def get(self, chat_id: int) -> Chat | None:
        if chat_id in self._cache:
            return self._cache[chat_id]
        row = await self.db.fetch_one("SELECT * FROM chats WHERE id = ?", (chat_id,))
        if row is None:
            return None
        self._cache[chat_id] = found = _chat(row)
        return found

    async def set_language(self, chat_id: int, language: str | None) -> None:
        await self.db.execute(
            "UPDATE chats SET language = ?, updated_at = ? WHERE id = ?", (language, time.time(), chat_id)
        )
        await self._changed(chat_id)

    async def set_default_options(self, chat_id: int, options: Options | None) -> None:
        await self.db.execute(
            "UPDATE chats SET default_options = ?, updated_at = ? WHERE id = ?",
            (options.model_dump_json() if options else None, time.time(), chat_id),
        )
        await self._changed(chat_id)

    async def set_rules(self, chat_id: int, *, opens: Opens, tables_per: TablesPer) -> None:
        """Who may open tables, and how many a forum holds at once."""
        await self.db.execute(
            "UPDATE chats SET opens = ?, tables_per = ?, updated_at = ? WHERE id = ?",
            (opens, tables_per, time.time(), chat_id),
        )
        await self._changed(chat_id)

    async def set_seasons(self, chat_id: int, seasons: SeasonKind) -> None:
        await self.db.execute(
            "UPDATE chats SET seasons = ?, updated_at = ? WHERE id = ?", (seasons, time.time(), chat_id)
        )
        await self._changed(chat_id)

    async def set_tidy(self, chat_id: int, tidy: Tidy) -> None:
        await self.db.execute(
            "UPDATE chats SET tidy = ?, updated_at = ? WHERE id = ?", (tidy, time.time(), chat_id)
        )
        await self._changed(chat_id)

    async def with_seasons(self) -> list[Chat]:
        """The groups whose boards have seasons."""
        rows = await self.db.fetch_all("SELECT * FROM chats WHERE seasons != 'off' AND id < 0")
        return [_chat(row) for row in rows]

    async def tell_season(self, chat_id: int, season: str) -> bool:
        """Mark ``season``'s podium as shown in the group: True for the one caller that marked it (the one to
        send it), False if it had been shown already."""
        done = await self.db.execute(
            """UPDATE chats SET season_told = ?, updated_at = ?
               WHERE id = ? AND (season_told IS NULL OR season_told != ?)""",
            (season, time.time(), chat_id, season),
        )
        await self._changed(chat_id)
        return done == 1

    async def migrate(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup with a new id: move its settings, tables, results and ratings."""
        try:
            await self._migrate(old_id, new_id)
        finally:  # both ids changed under the cache
            await self._changed(old_id)
            await self._changed(new_id)

    async def _migrate(self, old_id: int, new_id: int) -> None:
        async with self.db.transaction():
            old = await self.get(old_id)
            if old is None:
                return
            if await self.get(new_id) is None:
                # Foreign keys cascade the new id to tables and results.
                await self.db.execute("UPDATE chats SET id = ? WHERE id = ?", (new_id, old_id))
            else:
                await self.db.execute(
                    """UPDATE chats SET language = COALESCE(language, ?),
                           default_options = COALESCE(default_options, ?),
                           opens = CASE WHEN opens = 'everyone' THEN ? ELSE opens END,
                           tables_per = CASE WHEN tables_per = 'topic' THEN ? ELSE tables_per END
                       WHERE id = ?""",
                    (
                        old.language,
                        old.default_options.model_dump_json() if old.default_options else None,
                        old.opens,
                        old.tables_per,
                        new_id,
                    ),
                )
                await self.db.execute("UPDATE tables SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
                await self.db.execute("UPDATE arenas SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
                await self.db.execute("UPDATE results SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
                await self.db.execute("DELETE FROM chats WHERE id = ?", (old_id,))
            # Ratings have no foreign key (chat 0 is the global board). Where a player already has a rating
            # under the new id, the one with more games stays.
            await self.db.execute(
                """DELETE FROM ratings AS r WHERE r.chat_id = ? AND EXISTS (
                       SELECT 1 FROM ratings AS n WHERE n.chat_id = ? AND n.user_id = r.user_id
                       AND n.game_type = r.game_type AND n.games >= r.games)""",
                (old_id, new_id),
            )
            await self.db.execute(
                """DELETE FROM ratings AS n WHERE n.chat_id = ? AND EXISTS (
                       SELECT 1 FROM ratings AS r WHERE r.chat_id = ? AND r.user_id = n.user_id
                       AND r.game_type = n.game_type)""",
                (new_id, old_id),
            )
            await self.db.execute("UPDATE ratings SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
            # Several processes: the one that owns the group (and holds its tables in memory) owns it under
            # its new id, so no other process claims the new id and restores tables that are being played.
            moved = await self.db.fetch_one("SELECT 1 AS x FROM chat_owners WHERE chat_id = ?", (old_id,))
            if moved is not None:
                await self.db.execute("DELETE FROM chat_owners WHERE chat_id = ?", (new_id,))
                await self.db.execute(
                    "UPDATE chat_owners SET chat_id = ? WHERE chat_id = ?", (new_id, old_id)
                )
            await self.db.execute("UPDATE forwarded SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
