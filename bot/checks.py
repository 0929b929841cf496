"""What ``python -m bot`` checks before anything talks to Telegram, what ``--check`` reports, and what
``--version`` says."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

from telegram import Bot
from telegram.error import InvalidToken, TelegramError
from telegram.request import HTTPXRequest

import engine
from bot.logs import VERSION
from bot.settings import Settings
from storage import SchemaTooNew, Storage, StorageUnusable, describe
from storage.lock import DatabaseLock


async def check_database(settings: Settings) -> int:
    """Open (and migrate) the database and read its live tables once, before anything talks to Telegram:
    a damaged, foreign or read-only file stops the start with one line naming it. Returns how many tables a
    start brings back."""
    storage = await Storage.open(settings.database, synchronous=settings.database_synchronous)
    writing = False
    try:
        tables = len(await storage.restorable())
        # A write, as every move makes: a read-only file (or folder, for its -wal and -shm) opens and
        # reads, then refuses every move ("Couldn't save that") for as long as the bot runs.
        writing = True
        await storage.probe()
    except Exception as exc:  # database errors, rows no record can be built from, a write refused
        why = f"{type(exc).__name__}: {exc}"
        raise StorageUnusable(storage.db.where, f"it takes no write ({why})" if writing else why) from None
    finally:
        await storage.close()
    return tables


def report(settings: Settings) -> int:
    """``--check``: what the bot would run with, and whether it could start now, creating nothing (no database
    file, no lock, no port held); 0 if it could, 2 if not (the line says why). Telegram is asked for the
    token (getMe) where the network allows; where it does not, that is said, not failed."""
    ok = True
    mode = f"webhook at {settings.webhook_url}" if settings.webhook_url else "long polling"
    print(f"settings: valid ({mode})")
    sqlite = None if settings.database_url else Path(settings.database_path)
    holder = DatabaseLock(sqlite).holder() if sqlite is not None else None
    if sqlite is not None and not sqlite.exists():
        print(f"database: {describe(settings.database)} does not exist yet: the first start creates it")
    else:
        try:
            tables = asyncio.run(check_database(settings))
            running = f"; in use by a running bot (pid {holder})" if holder else ""
            where = describe(settings.database)
            print(f"database: {where} opens and takes a write, {tables} tables to bring back{running}")
        except (StorageUnusable, SchemaTooNew) as exc:
            print(f"database: FAILED: {exc}")
            ok = False
    ok = asyncio.run(_ask_telegram(settings)) and ok
    for name, host, port in listening(settings):
        if not _free(host, port):
            print(f"{name}: {host}:{port} is taken" + (" (by the running bot?)" if holder else ""))
            ok = ok and holder is not None
    print(f"computer players run on the {engine.BUILD}")
    watched = settings.metrics_port is not None
    url = f"http://{settings.metrics_listen}:{settings.metrics_port}" if watched else ""
    print(f"metrics and health: {url + '/metrics, /livez, /readyz' if watched else 'off (METRICS_PORT)'}")
    days = settings.move_log_days
    print(f"move logs of finished games: {f'kept {days} days' if days else 'kept for ever (MOVE_LOG_DAYS)'}")
    print("OK: the bot can start" if ok else "FAILED: the bot cannot start as configured")
    return 0 if ok else 2


async def _ask_telegram(settings: Settings) -> bool:
    """getMe with the token: False only if Telegram refuses it."""
    request = HTTPXRequest(connect_timeout=5, read_timeout=5)
    bot = Bot(settings.bot_token, base_url=settings.bot_api_url, request=request)
    try:
        async with bot:
            me = await bot.get_me()
    except InvalidToken:
        print("telegram: FAILED: Telegram does not accept this BOT_TOKEN (check it with @BotFather)")
        return False
    except TelegramError as exc:
        print(f"telegram: not asked: cannot reach {settings.bot_api_url} ({type(exc).__name__}: {exc})")
        return True
    privacy = "on: commands and presses only" if not me.can_read_all_group_messages else "off"
    print(
        f"telegram: the token is @{me.username}'s; joins groups: {'yes' if me.can_join_groups else 'NO'}; "
        f"privacy mode {privacy}; callback_query_mode: not reported by getMe (Bot API 10.5), the bot "
        "plays under every mode (docs/groups.md)"
    )
    return True


def listening(settings: Settings) -> list[tuple[str, str, int]]:
    """The ports the bot would listen on: its webhook's, its metrics', its web table's."""
    found = [
        ("WEBHOOK_PORT", settings.webhook_listen, settings.webhook_port if settings.webhook_url else None),
        ("METRICS_PORT", settings.metrics_listen, settings.metrics_port),
        ("WEB_PORT", settings.web_listen, settings.web_port),
    ]
    return [(name, host, port) for name, host, port in found if port]


def _free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def version() -> str:
    """The bot's version as installed (pyproject.toml), and which engine it runs: what a bug report needs."""
    return f"durak-bot {VERSION}; computer players run on the {engine.BUILD}"
