"""What every handler shares: the bot's parts, who is asking and where, and how a refusal reads."""

from __future__ import annotations

import logging
import time
from typing import TypeVar

from telegram import CallbackQuery, InlineKeyboardMarkup, Message, Update
from telegram import User as TelegramUser
from telegram.constants import ChatType
from telegram.ext import ContextTypes

from bot import ephemeral, metrics
from bot.callbacks import Press, decode
from bot.deps import Deps, deps_of
from bot.ephemeral import Grant
from bot.i18n import Text, language_for
from bot.service import Refusal, Verdict
from engine import Options
from storage.records import User

Context = ContextTypes.DEFAULT_TYPE
log = logging.getLogger("bot.updates")
P = TypeVar("P", bound=Press)


def deps(context: Context) -> Deps:
    return deps_of(context.application)


def as_user(tg: TelegramUser) -> User:
    """What Telegram says of a user, as the record storage keeps."""
    return User(
        id=tg.id,
        first_name=tg.first_name,
        last_name=tg.last_name,
        username=tg.username,
        telegram_language=tg.language_code,
    )


_began: dict[int, float] = {}  # update id -> when its handling began (for the log line after it)


async def record_update(update: object, context: Context) -> None:
    """Before any handler (group -1): who wrote and where, once per update. A user who writes to the bot in
    private is reachable again; a chat that writes is no longer refused by the outbox."""
    if not isinstance(update, Update):
        return
    _began[update.update_id] = time.perf_counter()
    metrics.HEARD.updated()
    d = deps(context)
    tg, chat = update.effective_user, update.effective_chat
    if tg is not None and not tg.is_bot:
        user = await d.storage.users.seen(as_user(tg))
        if user.blocked and chat is not None and chat.id == user.id:
            await d.storage.users.set_blocked(user.id, False)
    if chat is not None:
        grant = _grant(update)
        if grant is not None and tg is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP):
            d.outbox.grants.note(chat.id, tg.id, grant)  # Telegram lets the bot answer it in the group (15 s)
        if chat.type in (ChatType.GROUP, ChatType.SUPERGROUP):
            known = await d.storage.chats.seen(chat.id, chat.type, chat.title, bool(chat.is_forum))
            # A group speaks the language of the first person who uses the bot there (Telegram tells us
            # theirs), until its admins choose one in /settings.
            spoken = language_for(tg.language_code if tg else None, "")
            if known.language is None and spoken:
                await d.storage.chats.set_language(chat.id, spoken)
        d.outbox.forgive(chat.id)


def _grant(update: Update) -> Grant | None:
    """A press, or a command sent as an ephemeral message (seen by the bot alone): either lets the bot answer
    its author in the group with an ephemeral message (bot.ephemeral)."""
    if update.callback_query is not None:
        return Grant(press=update.callback_query.id)
    command = ephemeral.message_id(update.message)
    return Grant(command=command) if command is not None else None


async def log_update(update: object, context: Context) -> None:
    """After every handler (the last group): one line an operator can read, with the chat, the user, the
    table, what was asked and how long it took. Never a card, a salt, a token or a deep link's payload:
    commands by name only, presses by the kind of button and its table."""
    if not isinstance(update, Update):
        return
    took = (time.perf_counter() - _began.pop(update.update_id, time.perf_counter())) * 1000
    chat, user = update.effective_chat, update.effective_user
    what, table, kind = "update", None, "other"
    if update.callback_query is not None:
        data = update.callback_query.data or ""
        what, kind = f"press {data[:1] or '?'}", "press"
        table = getattr(decode(data), "table_id", None)
        metrics.PRESS_SECONDS.observe(took / 1000)
    elif update.effective_message is not None and (update.effective_message.text or "").startswith("/"):
        what, kind = (update.effective_message.text or "").split()[0].split("@")[0][:32], "command"
        if chat is not None:
            here = deps(context).service.here(chat.id, thread_of(update.effective_message))
            table = here.id if here else None
    elif update.my_chat_member is not None:
        what, kind = f"membership {update.my_chat_member.new_chat_member.status}", "membership"
    elif update.effective_message is not None:
        kind = "message"
    metrics.UPDATES.labels(kind).inc()
    fields = {"chat_id": chat.id if chat else None, "user_id": user.id if user else None, "table_id": table}
    log.info(
        "%s chat=%s user=%s table=%s %.0f ms",
        what,
        *(v if v is not None else "-" for v in fields.values()),
        took,
        extra={**fields, "update_kind": kind, "duration_ms": round(took, 1)},  # as fields in JSON logs
    )


async def user_of(d: Deps, update: Update) -> User | None:
    """The recorded author of an update (read from the users' cache), or None for bots and channels."""
    tg = update.effective_user
    return None if tg is None or tg.is_bot else await d.storage.users.get(tg.id)


async def asked(update: Update, context: Context) -> tuple[Deps, Message, User] | None:
    """The parts, the message and its author of a command, or None if it has neither."""
    d = deps(context)
    message = update.effective_message
    user = await user_of(d, update)
    return None if message is None or user is None else (d, message, user)


async def reply(
    d: Deps, message: Message, text: str, keyboard: InlineKeyboardMarkup | None = None
) -> int | None:
    """Answer a message where it was written (quoting it in a group, in its forum topic), through the outbox:
    before any redraw, and retried if Telegram asks us to wait."""
    group = message.chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)
    # A command the group did not see (an ephemeral one) is answered to its author alone, as a reply to it.
    author = message.from_user if group and ephemeral.message_id(message) is not None else None
    return await d.outbox.send(
        message.chat_id,
        text,
        keyboard=keyboard,
        thread_id=thread_of(message) or None,
        reply_to=message.message_id if group and author is None else None,
        receiver=author.id if author is not None else None,
    )


async def show(d: Deps, query: CallbackQuery, text: str, keyboard: InlineKeyboardMarkup | None) -> None:
    """Redraw the message a button was pressed under (a menu's next page), through the outbox."""
    if query.message is not None:
        await d.outbox.send(
            query.message.chat.id, text, keyboard=keyboard, message_id=query.message.message_id
        )


def thread_of(message: Message | None) -> int:
    """The forum topic a message is in (0 outside topics): each topic has its own table."""
    if message is not None and message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return 0


async def is_admin(context: Context, chat_id: int, user_id: int) -> bool:
    return await deps(context).members.is_admin(chat_id, user_id)


async def text_for_chat(d: Deps, chat_id: int) -> Text:
    """Groups read the chat's language, private chats the user's."""
    return await (d.presenter.group_text(chat_id) if chat_id < 0 else d.presenter.user_text(chat_id))


def alert(t: Text, verdict: Verdict) -> str:
    """Why the service did nothing, in words."""
    if verdict.refusal is Refusal.ILLEGAL:
        return t(f"reason.{verdict.reason}")
    assert verdict.refusal is not None
    return t(verdict.refusal.value)


async def answer(query: CallbackQuery, t: Text, verdict: Verdict) -> None:
    """Every press gets exactly one answer: silent when it worked, an alert saying why when it did not."""
    if verdict.ok:
        await query.answer()
    else:
        await query.answer(alert(t, verdict), show_alert=True)


async def pressed(
    update: Update, context: Context, kind: type[P]
) -> tuple[Deps, CallbackQuery, User, Text, P] | None:
    """A button press of ``kind``, its presser and their texts; data that is not a well-formed press of that
    kind (stale, forged, cut) is answered with an alert here, and None returned."""
    d, query = deps(context), update.callback_query
    if query is None:
        return None
    user = await user_of(d, update)
    t = await (d.presenter.user_text(user.id) if user else d.presenter.group_text(0))
    press = decode(query.data)
    if user is None or not isinstance(press, kind):
        await answer(query, t, Verdict.refused(Refusal.STALE))
        return None
    if query.message is None and query.inline_message_id is not None:
        _pressed_inline(d, query, user, press)
    return d, query, user, t, press


_told_inline = False


def _pressed_inline(d: Deps, query: CallbackQuery, user: User, press: Press) -> None:
    """A press on one of the bot's own messages that came without it (Bot API 10.5: callback_query_mode not
    the default in @BotFather): a table's buttons carry its id, so play goes on, its group found from the
    table (a press there lets the bot answer in it); menus cannot tell which chat they are in. Said once."""
    global _told_inline
    if not _told_inline:
        _told_inline = True
        log.warning(
            "presses arrive without their message (callback_query_mode is not Default in @BotFather): "
            "games play on, but menus (/settings, /top pages) answer only with an alert; set it to Default"
        )
    table_id = getattr(press, "table_id", None)
    table = d.service.table(table_id) if isinstance(table_id, int) else None
    if table is not None and table.row.chat_id < 0:
        d.outbox.grants.note(table.row.chat_id, user.id, Grant(press=query.id))


async def opening(context: Context, d: Deps, message: Message, user: User) -> Options | None:
    """The options a table (or an arena) opened here by ``user`` starts from, the group's; None if the group
    lets only its admins open one and ``user`` is none (they are told so)."""
    chat = await d.storage.chats.get(message.chat_id)
    if chat is not None and chat.opens == "admins" and not await is_admin(context, message.chat_id, user.id):
        await reply(d, message, (await d.presenter.group_text(message.chat_id))("alert.admins_open"))
        return None
    return chat.default_options if chat and chat.default_options else Options()
