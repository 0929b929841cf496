"""The real PTB Application, talking to the fake Bot API through an httpx transport (in-process) or, with the
fake served over HTTP on 127.0.0.1, through the aiohttp request layer (``TELEGRAM_HTTP=aiohttp``), on a real
SQLite file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from telegram.error import TelegramError
from telegram.ext import Application
from telegram.request import HTTPXRequest

from bot.app import build_application, webhook_options
from bot.deps import Deps, deps_of, settings_of
from bot.settings import Settings
from tests.bot.fake_telegram import BASE_URL, TOKEN, FakeTelegram


@dataclass
class Harness:
    fake: FakeTelegram
    app: Application[Any, Any, Any, Any, Any, Any]
    db_path: Path

    @property
    def deps(self) -> Deps:
        return deps_of(self.app)


def settings(db_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "bot_token": TOKEN,
        "bot_api_url": BASE_URL,
        "database_path": db_path,
        "group_redraw_interval": 0.05,
        "private_redraw_interval": 0.01,
        "bot_move_delay": 0.01,
        "ai_workers": 0,  # bots think in a thread, briefly: the games under test are about the bot, not play
        "ai_budget_scale": 0.01,
        "rate_scale": 0.01,  # Telegram's limits a hundred times faster, to play whole games in seconds
    }
    values.update(overrides)
    return Settings(**values)


async def start_app(
    fake: FakeTelegram, db_path: Path, **overrides: Any
) -> Application[Any, Any, Any, Any, Any, Any]:
    if fake.served is not None:  # real HTTP, through the aiohttp request layer
        app = build_application(
            settings(db_path, bot_api_url=fake.served, telegram_http="aiohttp", **overrides)
        )
    else:
        request = HTTPXRequest(httpx_kwargs={"transport": fake.transport()})
        updates = HTTPXRequest(httpx_kwargs={"transport": fake.transport()})
        app = build_application(settings(db_path, **overrides), request=request, updates_request=updates)
    await app.initialize()
    assert app.post_init is not None
    await app.post_init(app)  # what run_polling does after initialize
    await app.start()
    assert app.updater is not None
    configured = settings_of(app)
    if configured.webhook_url:  # what run_webhook does: serve the webhook and tell Telegram where it is
        options = webhook_options(configured)
        await app.updater.start_webhook(**options)
        fake.webhook_target = f"http://127.0.0.1:{options['port']}/{options['url_path']}"
    else:

        def failed(exc: TelegramError) -> None:  # what run_polling does: to the error handler
            app.create_task(app.process_error(error=exc, update=None))

        await app.updater.start_polling(poll_interval=0.0, timeout=1, error_callback=failed)
    return app


async def stop_app(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    assert app.updater is not None
    await app.updater.stop()
    await app.stop()
    if app.post_stop is not None:
        await app.post_stop(app)
    if app.post_shutdown is not None:
        await app.post_shutdown(app)
    await app.shutdown()


async def running(
    tmp_path: Path, *, over_http: bool = False, fake: FakeTelegram | None = None, **overrides: Any
) -> AsyncIterator[Harness]:
    fake = fake or FakeTelegram()
    runner = None
    if over_http:
        runner, port = await fake.serve()
        fake.served = f"http://127.0.0.1:{port}/bot"
    db_path = tmp_path / "bot.sqlite3"
    h = Harness(fake, await start_app(fake, db_path, **overrides), db_path)
    yield h
    await stop_app(h.app)  # the test may have restarted it
    if runner is not None:
        await runner.cleanup()


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    async for h in running(tmp_path):
        yield h
