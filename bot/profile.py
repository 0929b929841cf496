"""What a person sees of the bot before its first message, in each language: the command menus (groups and
private chats apart), the description on an empty private chat and the short description on its profile.

Set at start-up, each only where Telegram holds something else: these calls are limited per bot, and a
restart that changes nothing makes none of them.
"""

from __future__ import annotations

import logging

from telegram import Bot, BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats
from telegram.error import TelegramError

from bot.i18n import LANGUAGES, texts

log = logging.getLogger("bot")

GROUP_COMMANDS = (
    "newgame",
    "join",
    "leave",
    "startgame",
    "hand",
    "cancel",
    "arena",
    "top",
    "stats",
    "replay",
    "kick",
    "settings",
    "rules",
    "help",
)
PRIVATE_COMMANDS = ("start", "top", "stats", "language", "rules", "help", "forgetme")
# Sent as ephemeral messages (Bot API 10.2): the group sees neither the command nor its answer. (PTB 22.8
# does not know the field; a server older than 10.2 ignores it, and the command is an ordinary one there.)
EPHEMERAL_COMMANDS = frozenset({"hand"})


async def publish(bot: Bot) -> int:
    """Bring the bot's menus and descriptions up to date in every language (None: the fallback, English).
    Returns how many were changed. A refusal costs the profile, never the start."""
    changed = 0
    for language in (None, *LANGUAGES):
        t = texts(language or "en")
        try:
            for scope, names in (
                (BotCommandScopeAllGroupChats(), GROUP_COMMANDS),
                (BotCommandScopeAllPrivateChats(), PRIVATE_COMMANDS),
            ):
                menu = [_command(name, t(f"command.{name}")) for name in names]
                held = await bot.get_my_commands(scope=scope, language_code=language)
                if [_shown(c) for c in held] != [_shown(c) for c in menu]:
                    await bot.set_my_commands(menu, scope=scope, language_code=language)
                    changed += 1
            description = t("profile.description")
            if (await bot.get_my_description(language_code=language)).description != description:
                await bot.set_my_description(description, language_code=language)
                changed += 1
            short = t("profile.short_description")
            if (await bot.get_my_short_description(language_code=language)).short_description != short:
                await bot.set_my_short_description(short, language_code=language)
                changed += 1
        except TelegramError as exc:
            log.warning(
                "the bot's profile in %s was not updated: %s", language or "the default language", exc
            )
    return changed


def _command(name: str, description: str) -> BotCommand:
    ephemeral = {"is_ephemeral": True} if name in EPHEMERAL_COMMANDS else None
    return BotCommand(name, description, api_kwargs=ephemeral)


def _shown(command: BotCommand) -> tuple[str, str, bool]:
    return command.command, command.description, bool(command.api_kwargs.get("is_ephemeral"))
