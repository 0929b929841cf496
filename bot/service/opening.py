"""Opening a table: a lobby by /newgame, or the rematch of a finished game (the same players seated again)."""

from __future__ import annotations

from bot.service.contracts import REMATCH_WINDOW, Env, Refusal, Verdict
from bot.service.table import Table
from engine import Options
from storage import TableExists
from storage.records import User, is_former


async def open_lobby(
    env: Env,
    tables: dict[int, Table],
    chat_id: int,
    thread_id: int,
    creator: User,
    chat_title: str,
    options: Options,
) -> Verdict:
    if (elsewhere := await _one_table_elsewhere(env, tables, chat_id, thread_id)) is not None:
        return Verdict.refused(Refusal.ONE_TABLE, table_id=elsewhere.id)
    try:
        row = await env.storage.tables.create(chat_id, thread_id, creator.id, options)
    except TableExists:
        existing = await env.storage.tables.open_in(chat_id, thread_id)
        return Verdict.refused(Refusal.LOBBY_EXISTS, table_id=existing.id if existing else None)
    table = tables[row.id] = Table(env, row, creator.display_name, chat_title)
    verdict = await table.lobby.join(creator)
    return Verdict(True, table_id=row.id) if verdict.ok else verdict


async def rematch(env: Env, tables: dict[int, Table], old: Table, user: User) -> Verdict:
    """Take ``old``'s one rematch for ``user``: a new table with the same options, its players seated (all
    but ``user`` to confirm with Join within REMATCH_WINDOW)."""

    async def open_next() -> Verdict:
        row = old.row
        if (elsewhere := await _one_table_elsewhere(env, tables, row.chat_id, row.thread_id)) is not None:
            return Verdict.refused(Refusal.ONE_TABLE, table_id=elsewhere.id)
        try:
            new = await env.storage.tables.create(
                row.chat_id, row.thread_id, user.id, row.options, series=row.series
            )
        except TableExists:
            return Verdict.refused(Refusal.LOBBY_EXISTS)
        durak = old.result.durak if old.result is not None else None
        loser = (row.seats[durak].user_id, durak) if durak is not None else None
        table = tables[new.id] = Table(env, new, user.display_name, old.chat_title, loser=loser)
        # The players of the last game, but for any who asked to be forgotten.
        players = [s.user_id for s in row.seats if not is_former(s.user_id)]
        await table.lobby.seat_rematch(players, user.id)
        env.scheduler.rematch_expiry(new.id, env.clock() + REMATCH_WINDOW)
        return Verdict(True, table_id=new.id)

    return await old.lobby.rematch(user.id, open_next)


async def _one_table_elsewhere(
    env: Env, tables: dict[int, Table], chat_id: int, thread_id: int
) -> Table | None:
    """The table in another topic of a forum whose admins keep one table in the whole group, if any."""
    chat = await env.storage.chats.get(chat_id)
    if chat is None or chat.tables_per != "group":
        return None
    return next(
        (t for t in tables.values() if t.open and t.row.chat_id == chat_id and t.row.thread_id != thread_id),
        None,
    )
