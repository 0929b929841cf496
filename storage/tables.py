"""Tables: the lobby, the seats, the messages that show them, and their status."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence

from engine import Options
from storage.db import Database, Row
from storage.records import OPEN, Seat, TableRow, TableStatus

SEAT_MESSAGES = frozenset({"hand_message_id", "group_hand_id"})  # the seats' columns that keep a message id


class TableExists(Exception):
    """This chat (or forum topic) already has an open table."""


class SeatTaken(Exception):
    """The user already sits at this table, or the table is full."""


def _table(row: Row, seats: Sequence[Row]) -> TableRow:
    return TableRow(
        id=row["id"],
        chat_id=row["chat_id"],
        thread_id=row["thread_id"],
        creator_id=row["creator_id"],
        status=TableStatus(row["status"]),
        options=Options.model_validate_json(row["options"]),
        message_id=row["message_id"],
        deadline=row["deadline"],
        broken_reason=row["broken_reason"],
        created_at=row["created_at"],
        join_token=row["join_token"],
        arena_id=row["arena_id"],
        series_id=row["series_id"],
        seats=tuple(
            Seat(
                seat=s["seat"],
                user_id=s["user_id"],
                bot_level=s["bot_level"],
                hand_message_id=s["hand_message_id"],
                group_hand_id=s["group_hand_id"],
                berserk=bool(s["berserk"]),
            )
            for s in seats
        ),
    )


class Tables:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(
        self, chat_id: int, thread_id: int, creator_id: int, options: Options, *, series: int | None = None
    ) -> TableRow:
        """A new lobby; ``series``: a rematch's, the series it carries on."""
        now = time.time()
        # The one unique index a new table can break is one open table per chat and topic (the join token is
        # 96 random bits): DO NOTHING, rather than an error each backend words its own way.
        table_id = await self.db.insert(
            """INSERT INTO tables (chat_id, thread_id, creator_id, status, options, created_at, updated_at,
                   join_token, series_id) VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?)
               ON CONFLICT DO NOTHING RETURNING id""",
            (
                chat_id,
                thread_id,
                creator_id,
                options.model_dump_json(),
                now,
                now,
                secrets.token_urlsafe(12),
                series,
            ),
        )
        if table_id is None:
            raise TableExists(f"chat {chat_id} thread {thread_id} already has an open table")
        table = await self.get(table_id)
        assert table is not None
        return table

    async def create_paired(
        self,
        chat_id: int,
        thread_id: int,
        arena_id: int,
        options: Options,
        players: Sequence[tuple[int, bool]],
    ) -> TableRow:
        """A table an arena paired (docs/groups.md): its players, (user id, berserk) each, seated in that
        order, the first as its creator; outside the one-open-table rule, which the arena keeps for itself."""
        now = time.time()
        async with self.db.transaction():
            table_id = await self.db.insert(
                """INSERT INTO tables (chat_id, thread_id, creator_id, status, options, created_at, updated_at,
                       join_token, arena_id) VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?) RETURNING id""",
                (chat_id, thread_id, players[0][0], options.model_dump_json(), now, now,
                 secrets.token_urlsafe(12), arena_id),
            )  # fmt: skip
            assert table_id is not None
            for seat, (user_id, berserk) in enumerate(players):
                await self.db.execute(
                    "INSERT INTO seats (table_id, seat, user_id, berserk) VALUES (?, ?, ?, ?)",
                    (table_id, seat, user_id, int(berserk)),
                )
        table = await self.get(table_id)
        assert table is not None
        return table

    async def get(self, table_id: int) -> TableRow | None:
        async with self.db.transaction():
            row = await self.db.fetch_one("SELECT * FROM tables WHERE id = ?", (table_id,))
            if row is None:
                return None
            seats = await self.db.fetch_all(
                "SELECT * FROM seats WHERE table_id = ? ORDER BY seat", (table_id,)
            )
            return _table(row, seats)

    async def chat_of(self, table_id: int) -> int | None:
        """The chat a table is played in (it changes when its group becomes a supergroup)."""
        row = await self.db.fetch_one("SELECT chat_id FROM tables WHERE id = ?", (table_id,))
        return int(row["chat_id"]) if row is not None else None

    async def open_in(self, chat_id: int, thread_id: int = 0) -> TableRow | None:
        row = await self.db.fetch_one(
            "SELECT id FROM tables WHERE chat_id = ? AND thread_id = ? AND status IN ('lobby', 'playing')"
            " AND arena_id IS NULL",
            (chat_id, thread_id),
        )
        return await self.get(row["id"]) if row else None

    async def by_token(self, token: str) -> TableRow | None:
        """The table a deep link's token names, whatever its status."""
        row = await self.db.fetch_one("SELECT id FROM tables WHERE join_token = ?", (token,))
        return await self.get(row["id"]) if row else None

    async def restorable(self, chat_id: int | None = None) -> list[TableRow]:
        """Every lobby and game in play, and every finished table whose result was not delivered yet (an
        arena's, whose arena has not counted it yet: its result goes to no chat) (of one chat, if given)."""
        where = f"""(t.status IN (?, ?) OR (t.status = '{TableStatus.FINISHED.value}' AND EXISTS (
                      SELECT 1 FROM games AS g WHERE g.table_id = t.id AND g.finished_at IS NOT NULL
                      AND g.result_message_id IS NULL) AND (t.arena_id IS NULL OR EXISTS (
                      SELECT 1 FROM arena_games AS a WHERE a.table_id = t.id AND a.finished_at IS NULL))))"""
        params: list[object] = [s.value for s in OPEN]
        if chat_id is not None:
            where += " AND t.chat_id = ?"
            params.append(chat_id)
        async with self.db.transaction():
            rows = await self.db.fetch_all(f"SELECT t.* FROM tables AS t WHERE {where} ORDER BY t.id", params)
            seats = await self.db.fetch_all(
                f"""SELECT s.* FROM seats AS s JOIN tables AS t ON t.id = s.table_id
                    WHERE {where} ORDER BY s.table_id, s.seat""",
                params,
            )
        by_table: dict[int, list[Row]] = {}
        for s in seats:
            by_table.setdefault(s["table_id"], []).append(s)
        return [_table(row, by_table.get(row["id"], [])) for row in rows]

    async def add_seat(self, table_id: int, user_id: int | None = None, bot_level: str | None = None) -> Seat:
        """Seat a user (or, with ``bot_level``, a bot) in the next seat: seats follow join order."""
        async with self.db.transaction():
            table = await self.get(table_id)
            if table is None:
                raise KeyError(f"no table {table_id}")
            if len(table.seats) >= table.options.max_players:
                raise SeatTaken(f"table {table_id} is full")
            seat = len(table.seats)
            added = await self.db.execute(
                """INSERT INTO seats (table_id, seat, user_id, bot_level) VALUES (?, ?, ?, ?)
                   ON CONFLICT DO NOTHING""",
                (table_id, seat, user_id, bot_level),
            )
            if not added:
                raise SeatTaken(f"user {user_id} already sits at table {table_id}")
            await self._touch(table_id)
        return Seat(seat=seat, user_id=user_id, bot_level=bot_level)

    async def remove_seat(self, table_id: int, seat: int) -> None:
        """Free a lobby seat; later seats move up so seat numbers stay 0..n-1 in join order."""
        async with self.db.transaction():
            await self.db.execute("DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat))
            # Two steps, so no intermediate row collides with the primary key.
            await self.db.execute(
                "UPDATE seats SET seat = -seat - 1 WHERE table_id = ? AND seat > ?", (table_id, seat)
            )
            await self.db.execute(
                "UPDATE seats SET seat = -seat - 2 WHERE table_id = ? AND seat < 0", (table_id,)
            )
            await self._touch(table_id)

    async def set_status(self, table_id: int, status: TableStatus, reason: str | None = None) -> None:
        await self.db.execute(
            "UPDATE tables SET status = ?, broken_reason = ?, deadline = NULL, updated_at = ? WHERE id = ?",
            (status.value, reason, time.time(), table_id),
        )

    async def set_options(self, table_id: int, options: Options) -> None:
        await self.db.execute(
            "UPDATE tables SET options = ?, updated_at = ? WHERE id = ?",
            (options.model_dump_json(), time.time(), table_id),
        )

    async def set_message(self, table_id: int, message_id: int | None) -> None:
        await self.db.execute(
            "UPDATE tables SET message_id = ?, updated_at = ? WHERE id = ?",
            (message_id, time.time(), table_id),
        )

    async def set_seat_message(self, table_id: int, seat: int, column: str, message_id: int | None) -> None:
        """A message of one seat's (its hand in private, ``hand_message_id``; in the group,
        ``group_hand_id``): a restart edits it. None: there is none to edit."""
        if column not in SEAT_MESSAGES:
            raise ValueError(f"no seat message kept in {column!r}")
        await self.db.execute(
            f"UPDATE seats SET {column} = ? WHERE table_id = ? AND seat = ?",  # a column of SEAT_MESSAGES only
            (message_id, table_id, seat),
        )

    async def set_deadline(self, table_id: int, deadline: float | None) -> None:
        await self.db.execute(
            "UPDATE tables SET deadline = ?, updated_at = ? WHERE id = ?", (deadline, time.time(), table_id)
        )

    # ------------------------------------------------------------------ a tidy chat

    async def note_messages(self, table_id: int, chat_id: int, message_ids: Sequence[int]) -> None:
        """Messages of the group that led to this table (a command, the bot's answer to it): deleted when the
        table ends, where the group keeps its chat tidy."""
        await self.db.executemany(
            "INSERT INTO tidy_messages (table_id, chat_id, message_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [(table_id, chat_id, message_id) for message_id in message_ids],
        )

    async def noted(self, table_id: int) -> tuple[int | None, list[int]]:
        """The table's chat now, and the messages noted in it (oldest first). Those noted in a chat the table
        has left since (a group that became a supergroup numbers its messages anew) are not among them."""
        chat_id = await self.chat_of(table_id)
        rows = await self.db.fetch_all(
            "SELECT message_id FROM tidy_messages WHERE table_id = ? AND chat_id = ? ORDER BY message_id",
            (table_id, chat_id),
        )
        return chat_id, [int(row["message_id"]) for row in rows]

    async def tidied(self, table_id: int) -> None:
        """The table's noted messages were deleted (or are to stay): they are not tried again."""
        await self.db.execute("DELETE FROM tidy_messages WHERE table_id = ?", (table_id,))

    async def untidy(self, chat_id: int | None = None) -> list[tuple[int, int]]:
        """Tables that ended with messages still to delete (a restart came between): (chat, table)."""
        where, params = "", []
        if chat_id is not None:
            where, params = " AND t.chat_id = ?", [chat_id]
        rows = await self.db.fetch_all(
            f"""SELECT DISTINCT t.chat_id, t.id FROM tables AS t JOIN tidy_messages AS m ON m.table_id = t.id
                WHERE t.status NOT IN ('lobby', 'playing'){where} ORDER BY t.id""",
            params,
        )
        return [(int(row["chat_id"]), int(row["id"])) for row in rows]

    async def _touch(self, table_id: int) -> None:
        await self.db.execute("UPDATE tables SET updated_at = ? WHERE id = ?", (time.time(), table_id))
