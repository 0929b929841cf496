"""Where the data lives, as the bot and its tools read it: DATABASE_PATH or DATABASE_URL, from the
environment or ``.env`` (the bot's settings extend these, so ``python -m storage.backup`` backs up the
database the bot uses, whichever way it was configured)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from storage.db import is_postgres


class DatabaseSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    database_path: Path = Field(Path("durak.sqlite3"), description="The SQLite file; created if missing.")
    # postgresql://user:password@host:5432/dbname: PostgreSQL instead of the SQLite file, for several bot
    # processes sharing one database (docs/deploy.md).
    database_url: str | None = None

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        if value and not is_postgres(value):
            raise ValueError("DATABASE_URL must be a postgresql:// URL (leave it unset for SQLite)")
        return value or None

    @property
    def database(self) -> str | Path:
        """Where the data lives: the PostgreSQL URL if given, else the SQLite file."""
        return self.database_url or self.database_path
