"""What ``python -m bot`` checks before anything talks to Telegram, what ``--check`` reports, and what
``--version`` says."""

from __future__ import annotations

import engine
from bot.logs import VERSION
from bot.settings import Settings
from storage import Storage, StorageUnusable, describe


async def check_database(settings: Settings) -> int:
    """Open (and migrate) the database and read its live tables once, before anything talks to Telegram:
    a damaged, foreign or read-only file stops the start with one line naming it. Returns how many tables a
    start brings back."""
    storage = await Storage.open(settings.database, synchronous=settings.database_synchronous)
    try:
        return len(await storage.restorable())
    except Exception as exc:  # database errors, and rows no record can be built from
        raise StorageUnusable(storage.db.where, f"{type(exc).__name__}: {exc}") from None
    finally:
        await storage.close()


def report(settings: Settings, tables: int) -> None:
    """``--check``: the settings are valid and the database opens; what the bot would run with."""
    mode = f"webhook at {settings.webhook_url}" if settings.webhook_url else "long polling"
    where = describe(settings.database)
    print(f"OK: settings valid ({mode}); the database {where} opens, with {tables} tables to bring back")
    print(f"computer players run on the {engine.BUILD}")
    watched = settings.metrics_port is not None
    url = f"http://{settings.metrics_listen}:{settings.metrics_port}" if watched else ""
    print(f"metrics and health: {url + '/metrics and /healthz' if watched else 'off (METRICS_PORT)'}")
    days = settings.move_log_days
    print(f"move logs of finished games: {f'kept {days} days' if days else 'kept for ever (MOVE_LOG_DAYS)'}")


def version() -> str:
    """The bot's version as installed (pyproject.toml), and which engine it runs: what a bug report needs."""
    return f"durak-bot {VERSION}; computer players run on the {engine.BUILD}"
