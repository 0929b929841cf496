"""Update handlers: short, they read the update, call the table service and answer.

Every callback query is answered exactly once, before anything that may wait on Telegram's rate limits;
redraws happen in the sender's per-chat tasks.
"""

from __future__ import annotations

import contextlib
import logging
import re
import traceback
from dataclasses import dataclass

from telegram import CallbackQuery, Chat, InlineKeyboardMarkup, Message, Update
from telegram import User as TelegramUser
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, TelegramError
from telegram.ext import ContextTypes

from bot.callbacks import (
    BackPress,
    BoardPress,
    HandPress,
    LobbyPress,
    MovePress,
    PickPress,
    SettingsPress,
    decode,
    number,
)
from bot.i18n import LANGUAGES, Text, language_for, texts
from bot.lobby import CHOICES, cycle
from bot.members import ChatMembers
from bot.presenter import Presenter
from bot.render import chunks, replay_lines
from bot.service import Outcome, Refusal, TableService
from bot.settings_menu import group_menu, language_menu
from bot.standings import MIN_GAMES, PAGE, board_keyboard, board_text, stats_text
from engine import Options
from storage import GLOBAL, BrokenSnapshot, Storage
from storage.records import LIVE, User

Context = ContextTypes.DEFAULT_TYPE
log = logging.getLogger(__name__)
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass
class Deps:
    storage: Storage
    service: TableService
    presenter: Presenter
    members: ChatMembers


def deps(context: Context) -> Deps:
    found: Deps = context.application.bot_data["deps"]
    return found


def _record(tg: TelegramUser) -> User:
    return User(
        id=tg.id,
        first_name=tg.first_name,
        last_name=tg.last_name,
        username=tg.username,
        telegram_language=tg.language_code,
    )


async def _user(d: Deps, update: Update) -> User | None:
    tg = update.effective_user
    if tg is None or tg.is_bot:
        return None
    user = await d.storage.users.seen(_record(tg))
    chat = update.effective_chat
    if user.blocked and chat is not None and chat.id == user.id:  # they write to the bot again
        await d.storage.users.set_blocked(user.id, False)
        user = await d.storage.users.get(user.id) or user
    if chat is not None and d.presenter.sender is not None:
        d.presenter.sender.forgive(chat.id)
    return user


async def _asked(update: Update, context: Context) -> tuple[Deps, Message, User] | None:
    """The dependencies, the message and its (recorded) author of a command, or None if it has neither."""
    d = deps(context)
    message = update.effective_message
    user = await _user(d, update)
    return None if message is None or user is None else (d, message, user)


async def _group(d: Deps, chat: Chat | None) -> bool:
    if chat is None or chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        return False
    await d.storage.chats.seen(chat.id, chat.type, chat.title, bool(chat.is_forum))
    if d.presenter.sender is not None:  # whatever refused us before, the chat is there again
        d.presenter.sender.forgive(chat.id)
    return True


def _thread(message: Message | None) -> int:
    if message is not None and message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return 0


async def _is_admin(context: Context, chat_id: int, user_id: int) -> bool:
    return await deps(context).members.is_admin(chat_id, user_id)


def _alert(t: Text, outcome: Outcome) -> str:
    if outcome.refusal is Refusal.ILLEGAL:
        return t(f"reason.{outcome.reason}")
    assert outcome.refusal is not None
    return t(outcome.refusal.value, link="")


# ---------------------------------------------------------------------- private chat


async def start(update: Update, context: Context) -> None:
    d = deps(context)
    user = await _user(d, update)
    if user is None or update.effective_message is None:
        return
    await d.storage.users.set_started(user.id)
    t = await d.presenter.user_text(user.id)
    payload = context.args[0] if context.args else ""
    if payload.startswith("join_"):
        await update.effective_message.reply_text(await _join_by_link(d, user, payload[5:], t))
        return
    await update.effective_message.reply_text(t("alert.welcome"))


async def _join_by_link(d: Deps, user: User, token: str, t: Text) -> str:
    """A deep link from a table's chat seats members of that chat only: the token is unguessable and shown
    only there, and a stranger who got hold of it is still refused."""
    table = await d.storage.tables.by_token(token) if _TOKEN.fullmatch(token) else None
    if table is None or table.status not in LIVE:
        return t("alert.bad_link")
    if not await d.members.is_member(table.chat_id, user.id):
        return t("alert.not_member")
    outcome = await d.service.join(table.id, user)
    return t("alert.joined") if outcome.ok else _alert(t, outcome)


# ---------------------------------------------------------------------- group commands


async def new_game(update: Update, context: Context) -> None:
    asked = await _asked(update, context)
    if asked is None or not await _group(asked[0], update.effective_chat):
        return
    d, message, user = asked
    chat = await d.storage.chats.get(message.chat_id)
    options = chat.default_options if chat and chat.default_options else Options()
    outcome = await d.service.open_lobby(
        message.chat_id, _thread(message), user, message.chat.title or "", options
    )
    t = await d.presenter.group_text(message.chat_id)
    if not outcome.ok:
        await message.reply_text(_alert(t, outcome))
    elif not user.started and outcome.table_id is not None:
        await d.service.leave(outcome.table_id, user.id)
        live = d.service.live[outcome.table_id]
        await message.reply_text(t("alert.start_private", link=d.presenter.deep_link(live.table)))


async def _table_here(d: Deps, message: Message) -> int | None:
    live = d.service.here(message.chat_id, _thread(message))
    return live.table.id if live else None


async def table_command(update: Update, context: Context) -> None:
    """/join, /leave, /startgame and /cancel act on the live table of this chat (or forum topic)."""
    d = deps(context)
    message = update.effective_message
    user = await _user(d, update)
    if message is None or user is None or not message.text or not await _group(d, update.effective_chat):
        return
    t = await d.presenter.group_text(message.chat_id)
    table_id = await _table_here(d, message)
    if table_id is None:
        await message.reply_text(t("alert.no_table"))
        return
    command = message.text.split()[0].split("@")[0].lstrip("/")
    outcome = await _lobby_action(context, d, user, table_id, message.chat_id, command)
    if outcome is None:  # /join by a user the bot may not message yet
        link = d.presenter.deep_link(d.service.live[table_id].table)
        await message.reply_text(t("alert.start_private", link=link))
    elif not outcome.ok:
        await message.reply_text(_alert(t, outcome))


async def _lobby_action(
    context: Context, d: Deps, user: User, table_id: int, chat_id: int, action: str
) -> Outcome | None:
    service = d.service
    if action == "join":
        if not user.started:
            return None
        return await service.join(table_id, user)
    if action == "leave":
        return await service.leave(table_id, user.id)
    live = service.live.get(table_id)
    admin = (
        live is not None and user.id != live.table.creator_id and await _is_admin(context, chat_id, user.id)
    )
    if action in ("startgame", "start"):
        return await service.start(table_id, user.id, admin)
    if action == "cancel":
        return await service.cancel(table_id, user.id, admin)
    if action == "bot":
        return await service.add_bot(table_id, user.id, admin)
    return None


async def _text_for_chat(d: Deps, chat_id: int) -> Text:
    """Groups read the chat's language, private chats the user's."""
    return await (d.presenter.group_text(chat_id) if chat_id < 0 else d.presenter.user_text(chat_id))


async def help_command(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is not None:
        await message.reply_text((await _text_for_chat(deps(context), message.chat_id))("help.text"))


async def rules_command(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is not None:
        await message.reply_text((await _text_for_chat(deps(context), message.chat_id))("help.rules"))


# ---------------------------------------------------------------------- leaderboards and stats


async def _board(
    d: Deps, chat_id: int, scope: str, game_type: str, page: int
) -> tuple[str, InlineKeyboardMarkup]:
    t = await _text_for_chat(d, chat_id)
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
    await _group(d, update.effective_chat)
    scope = "g" if message.chat_id > 0 or (context.args and context.args[0].lower() == "global") else "c"
    text, keyboard = await _board(d, message.chat_id, scope, "throw_in", 0)
    await message.reply_text(text, parse_mode=ParseMode.HTML, reply_markup=keyboard)


async def stats_command(update: Update, context: Context) -> None:
    """/stats: your statistics, or those of the user whose message you reply to."""
    asked = await _asked(update, context)
    if asked is None:
        return
    d, message, user = asked
    await _group(d, update.effective_chat)
    subject = user
    replied = message.reply_to_message.from_user if message.reply_to_message else None
    if replied is not None and not replied.is_bot:
        subject = await d.storage.users.seen(_record(replied))
    here = await d.storage.results.stats(subject.id, message.chat_id) if message.chat_id < 0 else []
    everywhere = await d.storage.results.stats(subject.id, GLOBAL)
    t = await _text_for_chat(d, message.chat_id)
    await message.reply_text(stats_text(subject.display_name, here, everywhere, t), parse_mode=ParseMode.HTML)


async def _board_press(d: Deps, query: CallbackQuery, press: BoardPress) -> None:
    if query.message is None:
        await query.answer()
        return
    text, keyboard = await _board(d, query.message.chat.id, press.scope, press.game_type, press.page)
    await query.answer()
    with contextlib.suppress(BadRequest):  # pressing the page already shown: "message is not modified"
        await query.edit_message_text(text, parse_mode=ParseMode.HTML, reply_markup=keyboard)


async def replay_command(update: Update, context: Context) -> None:
    """/replay N, or /replay in reply to a result message: the whole game, move by move."""
    d = deps(context)
    message = update.effective_message
    if message is None or not await _group(d, update.effective_chat):
        return
    t = await _text_for_chat(d, message.chat_id)
    if message.reply_to_message and message.reply_to_message.text:
        found = re.search(r"#(\d+)", message.reply_to_message.text)  # a result message names its game
    else:
        found = re.fullmatch(r"#?(\d+)", " ".join(context.args or []).strip())
    game_id = number(found.group(1)) if found else None
    row = await d.storage.games.get(game_id) if game_id is not None else None
    table = await d.storage.tables.get(row.table_id) if row else None
    if row is None or table is None or table.chat_id != message.chat_id:
        await message.reply_text(t("replay.not_found"))
        return
    try:
        deal = d.storage.games.load(row.model_copy(update={"snapshot": row.deal}))
    except BrokenSnapshot:
        await message.reply_text(t("replay.not_found"))
        return
    names = [await d.service.seat_name(seat.user_id, seat.seat) for seat in table.seats]
    actions = [(a.seat, a.action) for a in await d.storage.games.log(row.id)]
    lines = [f"<b>{t('replay.title', id=row.id)}</b>", *replay_lines(deal, actions, names, t)]
    for text in chunks(lines):
        await message.reply_text(text, parse_mode=ParseMode.HTML)


# ---------------------------------------------------------------------- settings


async def language_command(update: Update, context: Context) -> None:
    """/language in private: the language of the bot's private messages to you."""
    asked = await _asked(update, context)
    if asked is None:
        return
    d, message, user = asked
    text, keyboard = language_menu(await d.presenter.user_text(user.id))
    await message.reply_text(text, reply_markup=keyboard)


async def settings_command(update: Update, context: Context) -> None:
    """/settings in a group (admins): the group's language and the options new tables start from."""
    asked = await _asked(update, context)
    if asked is None or not await _group(asked[0], update.effective_chat):
        return
    d, message, user = asked
    t = await d.presenter.group_text(message.chat_id)
    if not await _is_admin(context, message.chat_id, user.id):
        await message.reply_text(t("settings.admins_only"))
        return
    chat = await d.storage.chats.get(message.chat_id)
    text, keyboard = group_menu(t, chat.default_options if chat and chat.default_options else Options())
    await message.reply_text(text, parse_mode=ParseMode.HTML, reply_markup=keyboard)


async def _settings_press(
    context: Context, d: Deps, query: CallbackQuery, user: User, press: SettingsPress
) -> None:
    if query.message is None:
        await query.answer()
        return
    chat_id = query.message.chat.id
    if press.scope == "u":
        if press.value not in LANGUAGES:
            await query.answer()
            return
        await d.storage.users.set_language(user.id, press.value)
        t = await d.presenter.user_text(user.id)
        await query.answer(t("settings.saved"))
        text, keyboard = language_menu(t)
        with contextlib.suppress(BadRequest):
            await query.edit_message_text(text, reply_markup=keyboard)
        return
    if chat_id > 0 or not await _is_admin(context, chat_id, user.id):
        await query.answer((await d.presenter.user_text(user.id))("settings.admins_only"), show_alert=True)
        return
    chat = await d.storage.chats.get(chat_id)
    options = chat.default_options if chat and chat.default_options else Options()
    if press.what == "lang" and press.value in LANGUAGES:
        await d.storage.chats.set_language(chat_id, press.value)
    elif press.what in CHOICES:
        options = cycle(options, press.what)
        await d.storage.chats.set_default_options(chat_id, options)
    t = await d.presenter.group_text(chat_id)
    await query.answer(t("settings.saved"))
    text, keyboard = group_menu(t, options)
    with contextlib.suppress(BadRequest):
        await query.edit_message_text(text, parse_mode=ParseMode.HTML, reply_markup=keyboard)


# ---------------------------------------------------------------------- buttons


async def button(update: Update, context: Context) -> None:
    d = deps(context)
    query = update.callback_query
    if query is None:
        return
    user = await _user(d, update)
    press = decode(query.data)
    t = await d.presenter.user_text(user.id) if user else await d.presenter.group_text(0)
    if user is None or press is None:
        await query.answer(t("alert.stale"), show_alert=True)
        return
    outcome: Outcome | None
    if isinstance(press, BoardPress):
        await _board_press(d, query, press)
        return
    if isinstance(press, SettingsPress):
        await _settings_press(context, d, query, user, press)
        return
    if isinstance(press, MovePress):
        outcome = await d.service.press(press.table_id, user.id, press.version, press.move)
    elif isinstance(press, BackPress):
        outcome = await d.service.reclaim(press.table_id, user.id)
    elif isinstance(press, PickPress | HandPress):
        outcome = _pick(d, user.id, press)
    else:
        outcome = await _lobby_press(context, d, user, press, query)
        if outcome is None:  # Join by a user the bot may not message yet: open the private chat first
            await query.answer(url=d.presenter.deep_link(d.service.live[press.table_id].table))
            return
    if outcome.ok:
        await query.answer()
    else:
        await query.answer(_alert(t, outcome), show_alert=True)


def _pick(d: Deps, user_id: int, press: PickPress | HandPress) -> Outcome:
    found = d.service.seat_in_game(press.table_id, user_id)
    if isinstance(found, Refusal):
        return Outcome.refused(found)
    live, seat = found
    if isinstance(press, PickPress):
        if live.game is None or press.version != live.game.version:
            return Outcome.refused(Refusal.STALE)
        d.presenter.pick(press.table_id, seat, press.card)
    else:
        d.presenter.pick(press.table_id, seat, None)
    return Outcome(True)


async def _lobby_press(
    context: Context, d: Deps, user: User, press: LobbyPress, query: CallbackQuery
) -> Outcome | None:
    live = d.service.live.get(press.table_id)
    if live is None:
        return Outcome.refused(Refusal.NO_TABLE)
    chat_id = live.table.chat_id
    if query.message is None or query.message.chat.id != chat_id:  # a lobby button counts in its own chat
        return Outcome.refused(Refusal.OTHER_CHAT)
    if press.action == "rematch":
        return await d.service.rematch(press.table_id, user)
    if press.action in ("options", "done", "set"):
        admin = user.id != live.table.creator_id and await _is_admin(context, chat_id, user.id)
        if press.action == "set":
            if press.option not in CHOICES:
                return Outcome.refused(Refusal.STALE)
            return await d.service.set_option(
                press.table_id, user.id, admin, cycle(live.table.options, press.option)
            )
        return await d.service.set_option(press.table_id, user.id, admin, None)
    return await _lobby_action(context, d, user, press.table_id, chat_id, press.action)


# ---------------------------------------------------------------------- errors


async def on_error(update: object, context: Context) -> None:
    """A handler raised: log one line (where and what), and still answer the person who is waiting."""
    error = context.error
    where = ""
    if error is not None and error.__traceback__ is not None:
        frame = traceback.extract_tb(error.__traceback__)[-1]
        where = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"
    kind = "update"
    if isinstance(update, Update):
        kind = "press" if update.callback_query else "message" if update.effective_message else "update"
    log.error("handling a %s failed%s: %s: %s", kind, where, type(error).__name__, error)
    log.debug("the failure in full", exc_info=error)
    if not isinstance(update, Update):
        return
    tg = update.effective_user
    t = texts(language_for(tg.language_code if tg else None))
    with contextlib.suppress(TelegramError):  # already answered, or Telegram is the problem: nothing more
        if update.callback_query is not None:
            await update.callback_query.answer(t("alert.error"), show_alert=True)
        elif update.effective_message is not None:
            await update.effective_message.reply_text(t("alert.error"))
