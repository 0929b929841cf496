"""/replay: a finished game of this chat told move by move."""

from __future__ import annotations

import re

from telegram import Update

from bot.callbacks import number
from bot.handlers.common import Context, asked, deps, reply, text_for_chat
from bot.render.group import chunks, seat_names
from bot.render.replay import bot_move, replay_lines
from bot.render.result import reveal_lines
from engine.options import BotLevel
from engine.snapshot import dumps
from storage import BrokenSnapshot
from storage.reports import MoveReport

NOTE = 200  # characters of a report's reason kept


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
    bots = [seat.user_id is None for seat in table.seats]
    names = seat_names(await d.storage.users.seat_names(table.seats), bots, t)
    actions = [(a.seat, a.action) for a in await d.storage.games.log(row.id)]
    if row.seq and not actions:  # its log was pruned (MOVE_LOG_DAYS): the game itself is not lost
        await reply(d, message, t("replay.pruned", id=row.id))
        return
    lines = [f"<b>{t('replay.title', id=row.id)}</b>", *replay_lines(deal, actions, names, t, bots)]
    if any(line.startswith("[") for line in lines):  # a bot chose some moves: how to report a bad one
        lines += ["", t("replay.report", id=row.id)]
    if row.finished_at is not None and row.salt and row.deck:  # the seal opens once the game is over
        lines += ["", *reveal_lines(row.salt, row.deck, t)]
    for text in chunks(lines):
        await reply(d, message, text)


async def bad_move_command(update: Update, context: Context) -> None:
    """/badmove GAME MOVE [why]: a player of a finished game of this chat reports a move a bot chose in it
    (its number in /replay) as a bad one; the position before it is kept for bench/reports.py."""
    found = await asked(update, context)
    if found is None:
        return
    d, message, user = found
    t = await text_for_chat(d, message.chat_id)
    args = context.args or []
    game_id, n = (number(args[0].lstrip("#")), number(args[1])) if len(args) >= 2 else (None, None)
    row = await d.storage.games.get(game_id) if game_id is not None else None
    table = await d.storage.tables.get(row.table_id) if row else None
    if n is None or row is None or table is None or table.chat_id != message.chat_id or not row.finished_at:
        await reply(d, message, t("replay.report_how"))
        return
    at = next((s for s in table.seats if s.user_id == user.id), None)
    if at is None:
        await reply(d, message, t("replay.report_players"))
        return
    try:
        log = [(a.seat, a.action) for a in await d.storage.games.log(row.id)]
        before = bot_move(d.storage.games.load_deal(row), log, [s.user_id is None for s in table.seats], n)
    except BrokenSnapshot:
        before = None
    if before is None:
        await reply(d, message, t("replay.report_not_bot", n=n, id=row.id))
        return
    seat, move = log[n - 1]
    level = table.seats[seat].bot_level if table.seats[seat].user_id is None else None
    note = " ".join(args[2:])[:NOTE]
    report = MoveReport(row.id, n, seat, dumps(before), move, level or BotLevel.NORMAL.value, note)
    await d.storage.reports.record(report, user.id)
    await reply(d, message, t("replay.reported", n=n, id=row.id))
