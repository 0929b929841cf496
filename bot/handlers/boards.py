"""Leaderboards and statistics: /top (and its page buttons) and /stats."""

from __future__ import annotations

from telegram import InlineKeyboardMarkup, Update

from bot.callbacks import BoardPress, BoardScope
from bot.deps import Deps
from bot.handlers.common import Context, as_user, asked, deps, pressed, reply, show, text_for_chat
from bot.render.standings import MIN_GAMES, PAGE, board_keyboard, board_text, stats_text
from engine.options import GameType
from storage import GLOBAL


async def _board(
    d: Deps, chat_id: int, scope: BoardScope, game_type: GameType, page: int
) -> tuple[str, InlineKeyboardMarkup]:
    t = await text_for_chat(d, chat_id)
    board_chat = GLOBAL if scope == "g" or chat_id > 0 else chat_id
    leaders = await d.storage.results.leaderboard(
        board_chat, game_type, limit=PAGE + 1, offset=page * PAGE, min_games=MIN_GAMES
    )
    text = board_text(leaders[:PAGE], t, game_type=game_type, scope=scope, page=page)
    return text, board_keyboard(t, game_type=game_type, scope=scope, page=page, more=len(leaders) > PAGE)


async def top_command(update: Update, context: Context) -> None:
    """/top: this group's leaderboard; /top global (or /top in private): everybody's."""
    d = deps(context)
    message = update.effective_message
    if message is None:
        return
    everybody = message.chat_id > 0 or (context.args and context.args[0].lower() == "global")
    scope: BoardScope = "g" if everybody else "c"
    text, keyboard = await _board(d, message.chat_id, scope, "throw_in", 0)
    await reply(d, message, text, keyboard)


async def stats_command(update: Update, context: Context) -> None:
    """/stats: your statistics, or those of the user whose message you reply to."""
    found = await asked(update, context)
    if found is None:
        return
    d, message, subject = found
    replied = message.reply_to_message.from_user if message.reply_to_message else None
    if replied is not None and not replied.is_bot:
        subject = await d.storage.users.seen(as_user(replied))
    here = await d.storage.results.stats(subject.id, message.chat_id) if message.chat_id < 0 else []
    everywhere = await d.storage.results.stats(subject.id, GLOBAL)
    recent = await d.storage.results.reliability(message.chat_id, [subject.id]) if here else {}
    t = await text_for_chat(d, message.chat_id)
    await reply(d, message, stats_text(subject.display_name, here, everywhere, t, recent.get(subject.id)))


async def board_press(update: Update, context: Context) -> None:
    """A leaderboard button (``T:``): another game type or page, drawn in the same message."""
    found = await pressed(update, context, BoardPress)
    if found is None:
        return
    d, query, _, _, press = found
    if query.message is None:
        await query.answer()
        return
    text, keyboard = await _board(d, query.message.chat.id, press.scope, press.game_type, press.page)
    await query.answer()
    await show(d, query, text, keyboard)  # the page already shown is not sent again
