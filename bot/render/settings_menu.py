"""/language (a user's own settings: their language and where their cards are) and /settings (a group's
language, who opens tables, and default table options): pure rendering of the menus; the handlers store the
choices."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import SettingsPress, SettingsScope, encode
from bot.i18n import LANGUAGES, Text
from bot.render.lobby import option_label, summary
from engine import Options, Variant
from engine.options import CHOICES, TRANSFER_ONLY
from storage.records import CARDS_PLACES, CardsPlace, Chat

LANGUAGE_NAMES = {"ru": "Русский", "uk": "Українська", "en": "English"}


def _language_row(scope: SettingsScope, current: str) -> list[InlineKeyboardButton]:
    return [
        InlineKeyboardButton(
            ("• " if code == current else "") + LANGUAGE_NAMES[code],
            callback_data=encode(SettingsPress(scope, "lang", code)),
        )
        for code in LANGUAGES
    ]


def user_menu(t: Text, cards: CardsPlace) -> tuple[str, InlineKeyboardMarkup]:
    places = [
        InlineKeyboardButton(
            ("• " if place == cards else "") + t(f"settings.cards_{place}"),
            callback_data=encode(SettingsPress("u", "cards", place)),
        )
        for place in CARDS_PLACES
    ]
    return t("settings.language"), InlineKeyboardMarkup([_language_row("u", t.language), places])


def group_menu(
    t: Text, chat: Chat, *, deletes: bool = False, admin: bool = False
) -> tuple[str, InlineKeyboardMarkup]:
    """The group's language, who may open tables (and in a forum, how many at once), seasons, a tidy chat,
    and the options new tables start from; ``deletes``: the bot may delete messages there (a tidy chat needs
    it); ``admin``: the bot is an administrator (else the menu says what that would change for the cards)."""
    options = chat.default_options or Options()
    lines = [f"<b>{t('settings.title')}</b>", t("settings.hint"), ""]
    lines.extend(f"· {line}" for line in summary(options, t))
    if not admin:
        lines.extend(["", t("settings.cards_need")])
    if chat.tidy == "on" and not deletes:
        lines.extend(["", t("settings.tidy_needs")])
    rows = [_language_row("c", t.language)]
    rules = [
        ("opens", t("settings.opens", who=t(f"settings.opens_{chat.opens}"))),
        ("seasons", t("settings.seasons", kind=t(f"settings.seasons_{chat.seasons}"))),
        ("tidy", t("settings.tidy", state=t(f"settings.tidy_{chat.tidy}"))),
    ]
    if chat.is_forum:
        rules.append(("tables_per", t("settings.tables_per", per=t(f"settings.per_{chat.tables_per}"))))
    rows.extend(
        [InlineKeyboardButton(label, callback_data=encode(SettingsPress("c", what)))] for what, label in rules
    )
    rows.extend(
        [InlineKeyboardButton(option_label(options, name, t), callback_data=encode(SettingsPress("c", name)))]
        for name in CHOICES
        if name not in TRANSFER_ONLY or options.variant is Variant.TRANSFER
    )
    return "\n".join(lines), InlineKeyboardMarkup(rows)
