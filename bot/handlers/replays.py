"""/replay: a finished game of this chat told move by move."""

from __future__ import annotations

import re

from telegram import Update

from bot.callbacks import number
from bot.handlers.common import Context, deps, reply, text_for_chat
from bot.render.group import chunks, seat_names
from bot.render.replay import replay_lines
from bot.render.result import reveal_lines
from storage import BrokenSnapshot


async def replay_command(update: Update, context: Context) -> None:
    """/replay N, or /replay in reply to a result message: the whole game, move by move."""
    d = deps(context)
    message = update.effective_message
    if message is None:
        return
    t = await text_for_chat(d, message.chat_id)
    if message.reply_to_message and message.reply_to_message.text:
        found = re.search(r"#(\d+)", message.reply_to_message.text)  # a result message names its game
    else:
        found = re.fullmatch(r"#?(\d+)", " ".join(context.args or []).strip())
    game_id = number(found.group(1)) if found else None
    row = await d.storage.games.get(game_id) if game_id is not None else None
    table = await d.storage.tables.get(row.table_id) if row else None
    if row is None or table is None or table.chat_id != message.chat_id:
        await reply(d, message, t("replay.not_found"))
        return
    try:
        deal = d.storage.games.load_deal(row)
    except BrokenSnapshot:
        await reply(d, message, t("replay.not_found"))
        return
    names = seat_names(
        await d.storage.users.seat_names(table.seats),
        [seat.user_id is None for seat in table.seats],
        t,
    )
    actions = [(a.seat, a.action) for a in await d.storage.games.log(row.id)]
    if row.seq and not actions:  # its log was pruned (MOVE_LOG_DAYS): the game itself is not lost
        await reply(d, message, t("replay.pruned", id=row.id))
        return
    lines = [f"<b>{t('replay.title', id=row.id)}</b>", *replay_lines(deal, actions, names, t)]
    if row.finished_at is not None and row.salt and row.deck:  # the seal opens once the game is over
        lines += ["", *reveal_lines(row.salt, row.deck, t)]
    for text in chunks(lines):
        await reply(d, message, text)
