"""Leaderboards and statistics: /top (and its page buttons) and /stats."""

from __future__ import annotations

from telegram import InlineKeyboardMarkup, Update

from bot.callbacks import BoardPress, BoardScope
from bot.deps import Deps
from bot.handlers.common import Context, as_user, asked, deps, pressed, reply, show, text_for_chat
from bot.render.standings import MIN_GAMES, PAGE, board_keyboard, board_text, stats_text, versus_text
from engine.options import GameType
from storage import GLOBAL
from storage.records import Leader
from storage.seasons import season_of


async def _board(
    d: Deps, chat_id: int, scope: BoardScope, game_type: GameType, page: int, season: str | None
) -> tuple[str, InlineKeyboardMarkup]:
    """A page of a board: the global one, or the group's for a season (None: the current one, where the
    group has seasons) or all time ("")."""
    t = await text_for_chat(d, chat_id)
    current = await current_season(d, chat_id) if scope == "c" and chat_id < 0 else None
    if current is None:
        season = ""  # the global board, or a group without seasons
    elif season is None:
        season = current
    if season:
        leaders = await d.storage.results.season_board(
            chat_id, game_type, season, limit=PAGE + 1, offset=page * PAGE
        )
    else:
        board_chat = GLOBAL if scope == "g" or chat_id > 0 else chat_id
        leaders = await d.storage.results.leaderboard(
            board_chat, game_type, limit=PAGE + 1, offset=page * PAGE, min_games=MIN_GAMES
        )
    text = board_text(leaders[:PAGE], t, game_type=game_type, scope=scope, page=page, season=season)
    more = len(leaders) > PAGE
    keyboard = board_keyboard(
        t, game_type=game_type, scope=scope, page=page, more=more, season=season, current=current
    )
    return text, keyboard


async def current_season(d: Deps, chat_id: int) -> str | None:
    """The season a group is in now (None: its boards have no seasons)."""
    chat = await d.storage.chats.get(chat_id)
    kind = chat.seasons if chat is not None else "monthly"
    return None if kind == "off" else season_of(d.service.env.clock(), kind)


async def top_command(update: Update, context: Context) -> None:
    """/top: this group's leaderboard; /top global (or /top in private): everybody's."""
    d = deps(context)
    message = update.effective_message
    if message is None:
        return
    everybody = message.chat_id > 0 or (context.args and context.args[0].lower() == "global")
    scope: BoardScope = "g" if everybody else "c"
    text, keyboard = await _board(d, message.chat_id, scope, "throw_in", 0, None)
    await reply(d, message, text, keyboard)


async def stats_command(update: Update, context: Context) -> None:
    """/stats: your statistics, or those of the user whose message you reply to."""
    found = await asked(update, context)
    if found is None:
        return
    d, message, subject = found
    asker = subject
    replied = message.reply_to_message.from_user if message.reply_to_message else None
    if replied is not None and not replied.is_bot:
        subject = await d.storage.users.seen(as_user(replied))
    here = await d.storage.results.stats(subject.id, message.chat_id) if message.chat_id < 0 else []
    everywhere = await d.storage.results.stats(subject.id, GLOBAL)
    recent = await d.storage.results.reliability(message.chat_id, [subject.id]) if here else {}
    season = await current_season(d, message.chat_id) if here else None
    standings: dict[str, Leader] = {}
    for kind in (s.game_type for s in here) if season else ():
        board = await d.storage.results.season_board(message.chat_id, kind, season or "")
        mine = next((row for row in board if row.user_id == subject.id), None)
        if mine is not None:
            standings[kind] = mine
    t = await text_for_chat(d, message.chat_id)
    seasons = (season, standings) if season else None
    text = stats_text(subject.display_name, here, everywhere, t, recent.get(subject.id), seasons)
    if message.chat_id < 0 and subject.id != asker.id:  # in reply to someone: how you fare against them here
        record = await d.storage.series.head_to_head(message.chat_id, asker.id, subject.id)
        text += "\n\n" + versus_text(asker.display_name, subject.display_name, record, t)
    await reply(d, message, text)


async def board_press(update: Update, context: Context) -> None:
    """A leaderboard button (``T:``): another game type or page, drawn in the same message."""
    found = await pressed(update, context, BoardPress)
    if found is None:
        return
    d, query, _, t, press = found
    if query.message is None:
        await query.answer(t("alert.menu_off"), show_alert=True)  # which chat's? (bot.handlers.common)
        return
    text, keyboard = await _board(
        d, query.message.chat.id, press.scope, press.game_type, press.page, press.season
    )
    await query.answer()
    await show(d, query, text, keyboard)  # the page already shown is not sent again
