"""Preferences: /language (in private, also as /settings: a user's language and where their cards are shown)
and /settings in a group (its language, who opens tables, seasons, a tidy chat, and default options; admins
only), with their
buttons (``S:``)."""

from __future__ import annotations

from typing import TypeVar

from telegram import CallbackQuery, Update

from bot.callbacks import SettingsPress
from bot.deps import Deps
from bot.handlers.common import Context, asked, is_admin, pressed, reply, show
from bot.i18n import LANGUAGES
from bot.render.settings_menu import group_menu, user_menu
from engine import Options
from engine.options import CHOICES, cycle
from storage.records import CARDS_PLACES, OPENS, TABLES_PER, TIDY, Chat, User
from storage.seasons import SEASON_KINDS


async def language_command(update: Update, context: Context) -> None:
    """/language (or /settings) in private: the language of the bot's messages to you, and where your cards
    are during a game."""
    found = await asked(update, context)
    if found is not None:
        d, message, user = found
        text, keyboard = user_menu(await d.presenter.user_text(user.id), user.cards_place)
        await reply(d, message, text, keyboard)


async def settings_command(update: Update, context: Context) -> None:
    """/settings in a group (admins): the group's language and the options new tables start from."""
    found = await asked(update, context)
    if found is None:
        return
    d, message, user = found
    t = await d.presenter.group_text(message.chat_id)
    if not await is_admin(context, message.chat_id, user.id):
        await reply(d, message, t("settings.admins_only"))
        return
    chat = await d.storage.chats.get(message.chat_id)
    deletes, admin = await d.members.bot_deletes(message.chat_id), await d.members.bot_admin(message.chat_id)
    here = chat or Chat(id=message.chat_id, type=message.chat.type)
    text, keyboard = group_menu(t, here, deletes=deletes, admin=admin)
    await reply(d, message, text, keyboard)


async def settings_press(update: Update, context: Context) -> None:
    found = await pressed(update, context, SettingsPress)
    if found is None:
        return
    d, query, user, t, press = found
    if press.scope == "u":
        await _own_settings(d, query, user, press)  # (told in a toast where the menu cannot be redrawn)
    elif query.message is None:
        await query.answer(t("alert.menu_off"), show_alert=True)  # which group's? (bot.handlers.common)
    elif query.message.chat.id > 0 or not await is_admin(context, query.message.chat.id, user.id):
        await query.answer(t("settings.admins_only"), show_alert=True)
    else:
        await _group_settings(d, query, query.message.chat.id, press)


async def _own_settings(d: Deps, query: CallbackQuery, user: User, press: SettingsPress) -> None:
    if press.what == "lang" and press.value in LANGUAGES:
        await d.storage.users.set_language(user.id, press.value)
    elif press.what == "cards" and press.value in CARDS_PLACES:
        await d.storage.users.set_cards(user.id, press.value)
    else:
        await query.answer()
        return
    t = await d.presenter.user_text(user.id)
    await query.answer(t("settings.saved"))
    found = await d.storage.users.get(user.id)
    await show(d, query, *user_menu(t, found.cards_place if found else user.cards_place))


V = TypeVar("V")


def _after(values: tuple[V, ...], current: V) -> V:
    """The value a settings button moves to: the next one, round again after the last."""
    return values[(values.index(current) + 1) % len(values)]


async def _group_settings(d: Deps, query: CallbackQuery, chat_id: int, press: SettingsPress) -> None:
    chat = await d.storage.chats.get(chat_id)
    if chat is None:  # every group the bot hears from is recorded first (bot.handlers.common)
        await query.answer()
        return
    if press.what == "lang" and press.value in LANGUAGES:
        await d.storage.chats.set_language(chat_id, press.value)
    elif press.what == "opens":
        await d.storage.chats.set_rules(chat_id, opens=_after(OPENS, chat.opens), tables_per=chat.tables_per)
    elif press.what == "tables_per":
        await d.storage.chats.set_rules(
            chat_id, opens=chat.opens, tables_per=_after(TABLES_PER, chat.tables_per)
        )
    elif press.what == "seasons":
        await d.storage.chats.set_seasons(chat_id, _after(SEASON_KINDS, chat.seasons))
    elif press.what == "tidy":
        await d.storage.chats.set_tidy(chat_id, _after(TIDY, chat.tidy))
    elif press.what in CHOICES:
        options = cycle(chat.default_options or Options(), press.what)
        await d.storage.chats.set_default_options(chat_id, options)
    t = await d.presenter.group_text(chat_id)
    await query.answer(t("settings.saved"))
    now = await d.storage.chats.get(chat_id) or chat
    deletes, admin = await d.members.bot_deletes(chat_id), await d.members.bot_admin(chat_id)
    await show(d, query, *group_menu(t, now, deletes=deletes, admin=admin))
