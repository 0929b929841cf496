"""Settings: a missing or malformed token is one clear line, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.settings import SettingsError, load_settings
from tests.bot.fake_telegram import TOKEN

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_token_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.delenv("BOT_TOKEN", raising=False)
    with pytest.raises(SettingsError, match="BOT_TOKEN is missing"):
        load_settings()


def test_a_malformed_token_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BOT_TOKEN", "not-a-token")
    with pytest.raises(SettingsError, match="BOT_TOKEN"):
        load_settings()


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BOT_TOKEN", "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123")
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "x.sqlite3"))
    monkeypatch.setenv("DEFAULT_LANGUAGE", "uk")
    settings = load_settings()
    assert settings.database_path == tmp_path / "x.sqlite3" and settings.default_language == "uk"
    assert settings.ai_workers == len(os.sched_getaffinity(0))  # one search worker per core by default
    monkeypatch.setenv("AI_WORKERS", "0")
    assert load_settings().ai_workers == 0


def test_a_database_url_is_postgresql_or_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BOT_TOKEN", "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123")
    assert load_settings().database == Path("durak.sqlite3")  # no URL: the SQLite file
    monkeypatch.setenv("DATABASE_URL", "postgresql://durak:secret@db.example/durak")
    assert load_settings().database == "postgresql://durak:secret@db.example/durak"
    monkeypatch.setenv("DATABASE_URL", "mysql://durak@db.example/durak")
    with pytest.raises(SettingsError, match="postgresql://"):
        load_settings()


def test_python_m_bot_without_a_token_says_so_and_exits(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()  # one line, through the bot's log formatter
    assert line.endswith(
        " CRITICAL bot: Cannot start: BOT_TOKEN is missing (set it in the environment or in .env)"
    )


def test_python_m_bot_with_a_placeholder_token_says_so(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "BOT_TOKEN": "paste-your-token-from-BotFather-here",
    }
    done = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert " CRITICAL bot: Cannot start: BOT_TOKEN does not look like a token" in done.stderr


@pytest.mark.parametrize("where", ["BOT_TOKEN_FILE", "CREDENTIALS_DIRECTORY"])
def test_the_token_is_read_from_a_file_never_the_environment(tmp_path: Path, where: str) -> None:
    """BOT_TOKEN_FILE names a file holding the token; systemd's LoadCredential=bot_token:... puts it in
    $CREDENTIALS_DIRECTORY/bot_token (docs/deploy.md). Either way the token is in no environment."""
    secrets = tmp_path / "credentials"
    secrets.mkdir()
    (secrets / "bot_token").write_text(TOKEN + "\n")
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "BOT_API_URL": "http://127.0.0.1:9/bot",  # never reached: --check says so
        where: str(secrets / "bot_token") if where == "BOT_TOKEN_FILE" else str(secrets),
    }

    def check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "bot", "--check"], cwd=tmp_path, env=env, capture_output=True, text=True,
            timeout=60,
        )  # fmt: skip

    done = check(env)
    assert done.returncode == 0 and "settings: valid" in done.stdout, done.stderr
    env["BOT_TOKEN_FILE"] = str(tmp_path / "missing")
    env.pop("CREDENTIALS_DIRECTORY", None)
    done = check(env)
    assert done.returncode == 2 and "BOT_TOKEN_FILE" in done.stderr and "cannot be read" in done.stderr
