"""Update handlers, by feature: short, they read the update, call the table service and answer. ``register``
wires them all, in the order PTB tries them."""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    TypeHandler,
    filters,
)

from bot.buttons import pattern
from bot.handlers import arena, boards, errors, lobby, membership, play, preferences, private, replays
from bot.handlers.common import log_update
from bot.handlers.common import record_update as common_record

__all__ = ["register"]


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    private_chat, groups = filters.ChatType.PRIVATE, filters.ChatType.GROUPS
    add = application.add_handler
    # Before anything else: record who wrote and where (group -1 runs first, for every update).
    add(TypeHandler(Update, common_record), group=-1)
    # Private chat: /start, with a deep-link payload to join a table; your language and where your cards are.
    add(CommandHandler("start", private.start, filters=private_chat))
    add(CommandHandler(["language", "settings"], preferences.language_command, filters=private_chat))
    add(CommandHandler("forgetme", private.forget_command, filters=private_chat))
    # A group's table: open one, take or leave a seat, deal, cancel.
    add(CommandHandler("newgame", lobby.new_game, filters=groups))
    add(CommandHandler(["join", "leave", "startgame", "cancel"], lobby.table_command, filters=groups))
    add(CommandHandler("kick", lobby.kick_command, filters=groups))
    add(CommandHandler("hand", play.hand_command, filters=groups))  # your cards, seen by you alone
    add(CommandHandler("arena", arena.arena_command, filters=groups))  # a tournament in the chat
    # Everywhere: help, rules, leaderboards and statistics; in groups: replays and the group's settings.
    add(CommandHandler("help", private.help_command))
    add(CommandHandler("rules", private.rules_command))
    add(CommandHandler("top", boards.top_command))
    add(CommandHandler("stats", boards.stats_command))
    add(CommandHandler("replay", replays.replay_command, filters=groups))
    add(CommandHandler("badmove", replays.bad_move_command, filters=groups))  # a bot's move, reported
    add(CommandHandler("settings", preferences.settings_command, filters=groups))
    # Group commands sent in private get told where they work; the bot added to or removed from a group.
    group_commands = [
        "newgame",
        "join",
        "leave",
        "startgame",
        "cancel",
        "replay",
        "kick",
        "hand",
        "arena",
        "badmove",
    ]
    add(CommandHandler(group_commands, private.group_only, filters=private_chat))
    add(ChatMemberHandler(membership.my_membership, ChatMemberHandler.MY_CHAT_MEMBER))
    # Buttons, one handler per kind of callback data (bot.callbacks); the last one answers everything else.
    # First, a press of a kind its message never carries (forged): refused, it changes nothing.
    add(errors.Misplaced(errors.unknown_press))
    add(CallbackQueryHandler(play.move_press, pattern=pattern("m")))
    add(CallbackQueryHandler(play.pick_press, pattern=pattern("k", "h")))
    add(CallbackQueryHandler(play.reclaim_press, pattern=pattern("b")))
    add(CallbackQueryHandler(play.concede_press, pattern=pattern("q")))
    add(CallbackQueryHandler(play.discard_press, pattern=pattern("d")))
    add(CallbackQueryHandler(play.cards_press, pattern=pattern("c")))
    add(CallbackQueryHandler(private.forget_press, pattern=pattern("F")))
    add(CallbackQueryHandler(lobby.lobby_press, pattern=pattern("L")))
    add(CallbackQueryHandler(arena.arena_press, pattern=pattern("A")))
    add(CallbackQueryHandler(boards.board_press, pattern=pattern("T")))
    add(CallbackQueryHandler(preferences.settings_press, pattern=pattern("S")))
    add(CallbackQueryHandler(errors.unknown_press))
    # After everything: one log line per update (who, where, which table, what, how long).
    add(TypeHandler(Update, log_update), group=1)
    # A handler that raised: one log line, and the person waiting still gets an answer.
    application.add_error_handler(errors.on_error)
