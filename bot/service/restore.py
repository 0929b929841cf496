"""After a restart: every table comes back from the database as it was stored, and whatever its players must
still be told is told (a result not yet sent, a game that can no longer be loaded)."""

from __future__ import annotations

from bot import metrics
from bot.service.contracts import Env
from bot.service.ending import ratings_of
from bot.service.table import Table
from storage import BrokenSnapshot
from storage.records import Restorable, TableRow, TableStatus


async def restore(env: Env, live: dict[int, Table], chat_id: int | None) -> list[tuple[TableRow, str]]:
    """Bring back every table of ``chat_id`` (None: of every chat) into ``live``; a table already there is
    being played and stays as it is. A game that cannot be loaded is marked broken and its group and players
    are told; returns those tables with the reason."""
    broken: list[tuple[TableRow, str]] = []
    for item in await env.storage.restorable(chat_id):
        if item.row.id in live:
            continue
        table = live[item.row.id] = await restored(env, item)
        await table.resume()  # its first record: every screen of it is drawn again
        if item.game is not None and table.game is None:
            broken.append((table.row, table.row.broken_reason or ""))
    for chat, ended in await env.storage.tables.untidy(chat_id):  # a restart came before their tidy-up
        env.watcher.tidy(chat, ended)
    return broken


async def restored(env: Env, item: Restorable) -> Table:
    """A lobby, a game in play, or a finished game whose result was not delivered before the process stopped.
    A game that cannot be loaded is marked broken (its table comes back without a game)."""
    storage, row, game_row = env.storage, item.row, item.game
    creator = await storage.users.get(row.creator_id)
    chat = await storage.chats.get(row.chat_id)
    names = (creator.display_name if creator else "?", (chat.title if chat else "") or "")
    game, ratings, deadline = None, None, None
    if game_row is not None:
        try:
            game = storage.games.load(game_row)
        except BrokenSnapshot as exc:
            await storage.tables.set_status(row.id, TableStatus.BROKEN, exc.reason)
            metrics.GAMES.labels("broken").inc()
            game_row = None
    if game is not None and game_row is not None:
        if row.status is TableStatus.FINISHED:
            ratings = ratings_of(await storage.results.players(game_row.id))
        else:
            # Players are not punished for our downtime: a passed deadline gets a fresh period.
            now = env.clock()
            deadline = row.deadline
            if deadline is None or deadline < now + 5:
                deadline = now + row.options.move_timer
    return Table(env, row, *names, game=game, game_row=game_row, deadline=deadline, ratings=ratings)
