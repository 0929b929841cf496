"""Settings from the environment and ``.env`` (pydantic-settings). Only BOT_TOKEN is required."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.i18n import LANGUAGES

_TOKEN = re.compile(r"^\d{5,}:[A-Za-z0-9_-]{30,}$")


class SettingsError(Exception):
    """A setting is missing or malformed; the message is one line for the operator."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    bot_token: str = Field(description="The token from @BotFather.")
    bot_api_url: str = Field(
        "https://api.telegram.org/bot",
        description="Bot API base URL (a local Bot API server, or a test server).",
    )
    database_path: Path = Field(Path("durak.sqlite3"), description="The SQLite file; created if missing.")
    # FULL: every move survives a power loss; NORMAL: faster, and still safe if only the process dies.
    database_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    default_language: Literal["ru", "uk", "en"] = "en"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    # Production: a public HTTPS URL makes the bot use a webhook instead of long polling.
    webhook_url: str | None = None
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    webhook_secret: str | None = None
    # Seconds between redraws of one group's table message, and of one player's hand message.
    group_redraw_interval: float = 3.0
    private_redraw_interval: float = 1.0
    # PTB's AIORateLimiter as a safety net under the sender's own pacing (tests with fast pacing turn it off).
    rate_limiter: bool = True
    # Seconds a bot seat waits before it moves, so play looks human and can be followed.
    bot_move_delay: float = 1.5

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: str) -> str:
        value = value.strip()
        if not _TOKEN.match(value):
            raise ValueError("BOT_TOKEN does not look like a token from @BotFather (digits:letters)")
        return value

    @field_validator("default_language")
    @classmethod
    def _language(cls, value: str) -> str:
        assert value in LANGUAGES
        return value


def load_settings(**overrides: object) -> Settings:
    """Settings, or SettingsError with a one-line explanation instead of a traceback."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            name = str(error["loc"][0]).upper() if error["loc"] else "settings"
            if error["type"] == "missing":
                problems.append(f"{name} is missing (set it in the environment or in .env)")
                continue
            message = str(error.get("ctx", {}).get("error", error["msg"]))
            problems.append(message if message.startswith(name) else f"{name}: {message}")
        raise SettingsError("; ".join(problems)) from None
