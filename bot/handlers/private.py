"""The private chat: /start (with a table's deep link), /help and /rules (these work in groups too)."""

from __future__ import annotations

import html
import re

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot.callbacks import ForgetPress, encode
from bot.deps import Deps, settings_of
from bot.handlers.common import Context, alert, asked, deps, pressed, reply, show, text_for_chat, user_of
from bot.i18n import Text
from bot.service import Refusal
from storage.records import OPEN, User

_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")


async def start(update: Update, context: Context) -> None:
    d = deps(context)
    user = await user_of(d, update)
    if user is None or update.effective_message is None:
        return
    await d.storage.users.set_started(user.id)
    t = await d.presenter.user_text(user.id)
    payload = context.args[0] if context.args else ""
    if payload.startswith("join_"):
        await reply(d, update.effective_message, await _join_by_link(d, user, payload[5:], t))
        return
    await reply(d, update.effective_message, t("alert.welcome"), add_to_group(d, t))


def add_to_group(d: Deps, t: Text) -> InlineKeyboardMarkup:
    """A button that opens Telegram's "add this bot to a group" picker."""
    url = f"https://t.me/{d.presenter.bot_username}?startgroup=durak"
    return InlineKeyboardMarkup([[InlineKeyboardButton(t("alert.add_to_group"), url=url)]])


async def group_only(update: Update, context: Context) -> None:
    """A group command sent in private: say where it works, instead of silence."""
    d, message = deps(context), update.effective_message
    user = await user_of(d, update)
    if message is not None and user is not None:
        t = await d.presenter.user_text(user.id)
        await reply(d, message, t("alert.group_only"), add_to_group(d, t))


async def _join_by_link(d: Deps, user: User, token: str, t: Text) -> str:
    """A deep link from a table's chat seats members of that chat only: the token is unguessable and shown
    only there, and a stranger who got hold of it is still refused."""
    table = await d.storage.tables.by_token(token) if _TOKEN.fullmatch(token) else None
    if table is None or table.status not in OPEN:
        return t("alert.bad_link")
    if not await d.members.is_member(table.chat_id, user.id):
        return t("alert.not_member")
    verdict = await d.service.join(table.id, user)
    chat = await d.storage.chats.get(table.chat_id)
    title = html.escape(chat.title if chat and chat.title else "")
    if not (verdict.ok or verdict.refusal is Refusal.ALREADY_SEATED):
        return alert(t, verdict)
    return t("alert.joined", chat=title)


async def forget_command(update: Update, context: Context) -> None:
    """/forgetme in private: what will go and what stays, and a button to confirm."""
    found = await asked(update, context)
    if found is not None:
        d, message, user = found
        t = await d.presenter.user_text(user.id)
        buttons = [
            InlineKeyboardButton(t("forget.confirm"), callback_data=encode(ForgetPress(True))),
            InlineKeyboardButton(t("forget.cancel"), callback_data=encode(ForgetPress(False))),
        ]
        await reply(d, message, t("forget.ask"), InlineKeyboardMarkup([buttons]))


async def forget_press(update: Update, context: Context) -> None:
    """The confirmation: the person is forgotten (their seats handed to bots first), or nothing changes."""
    found = await pressed(update, context, ForgetPress)
    if found is None:
        return
    d, query, user, t, press = found
    inline = query.message is None and query.inline_message_id is not None  # (bot.handlers.common)
    if not inline and (query.message is None or query.message.chat.id != user.id):
        await query.answer(t("alert.stale"), show_alert=True)
        return
    if press.confirmed:
        await d.service.forget(user.id)  # the presser alone, wherever the press came from
    said = t("forget.done" if press.confirmed else "forget.kept")
    await query.answer(said if inline else None, show_alert=inline)
    await show(d, query, said, None)


async def help_command(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is not None:
        d = deps(context)
        await reply(d, message, (await text_for_chat(d, message.chat_id))("help.text"))


async def rules_command(update: Update, context: Context) -> None:
    """The rules in short, and where the whole rule book is (RULES_URL: the operator's copy of
    docs/rules.md), if the operator said."""
    message = update.effective_message
    if message is None:
        return
    t = await text_for_chat(deps(context), message.chat_id)
    url = settings_of(context.application).rules_url
    await reply(
        deps(context),
        message,
        t("help.rules") + (f"\n\n{t('help.rules_link', url=html.escape(url))}" if url else ""),
    )
