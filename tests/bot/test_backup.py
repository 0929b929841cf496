"""Backups of the SQLite database (storage.backup): taken while a game is played, checked, kept to a number,
and restored, after which the game plays on from where the backup caught it."""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from storage import Storage
from storage.backup import BackupFailed, backup, check, restore
from storage.records import User
from tests.bot.conftest import Harness, start_app, stop_app
from tests.bot.players import GROUP, open_table, play_until_over, press_and_wait, start, table_id

ROOT = Path(__file__).resolve().parents[2]


async def test_a_backup_taken_during_a_game_restores_and_the_game_plays_on(
    harness: Harness, tmp_path: Path
) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    live = harness.deps.service.tables[table_id(lobby)]
    await play_until_over(fake, GROUP, [1, 2], random.Random(5), limit=6, allow_unfinished=True)
    assert live.game is not None
    taken = backup(harness.db_path, tmp_path / "backups")  # the bot keeps running and writing
    version = live.game.version
    assert check(taken)["events"] >= 1
    # The game goes on, then the bot stops and the backup is restored over the database.
    await play_until_over(fake, GROUP, [1, 2], random.Random(6), limit=6, allow_unfinished=True)
    await stop_app(harness.app)
    counts = restore(taken, harness.db_path)
    assert counts["games"] == 1
    harness.app = await start_app(fake, harness.db_path)
    restored = harness.deps.service.tables[table_id(lobby)]
    assert restored.game is not None and restored.game.version <= live.game.version
    assert restored.game.version >= version  # at least what it was when the backup began
    result = await play_until_over(fake, GROUP, [1, 2], random.Random(7))
    assert "Ann" in result and "Bob" in result
    answer = await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table_id(lobby)}:join")
    assert answer.get("show_alert")  # the finished table's lobby buttons are stale, and say so


def test_only_whole_backups_are_kept_and_a_damaged_file_is_refused(tmp_path: Path) -> None:
    database = tmp_path / "durak.sqlite3"
    _database(database)
    folder = tmp_path / "backups"
    made = [backup(database, folder, keep=2, now=1_800_000_000 + 60 * n) for n in range(4)]
    assert sorted(folder.iterdir()) == made[2:]  # the newest two, and nothing partial
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(made[-1].read_bytes()[:4096] + b"\0" * 4096)
    with pytest.raises(BackupFailed):
        restore(damaged, database)
    assert check(database)["users"] == 1  # untouched


def test_the_command_backs_up_and_restores(tmp_path: Path) -> None:
    database = tmp_path / "durak.sqlite3"
    _database(database)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "storage.backup", *args, "--database", str(database)]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)

    exporter = tmp_path / "node_exporter"
    exporter.mkdir()
    done = run(str(tmp_path / "b"), "--keep", "3", "--textfile", str(exporter))
    assert done.returncode == 0 and "backed up" in done.stdout and "users 1" in done.stdout, done.stderr
    (made,) = (tmp_path / "b").iterdir()
    # When the last good backup was made, where node exporter's textfile collector reads it.
    (told,) = exporter.iterdir()
    families = {f.name: f for f in text_string_to_metric_families(told.read_text())}
    (stamp,) = families["durak_backup_last_success_timestamp_seconds"].samples
    assert stamp.labels == {"database": "durak"} and abs(stamp.value - time.time()) < 60
    assert families["durak_backup_size_bytes"].samples[0].value == made.stat().st_size
    with sqlite3.connect(database) as conn:
        conn.execute("DELETE FROM users")
    done = run("--restore", str(made))
    assert done.returncode == 0 and "restored" in done.stdout, done.stderr
    assert check(database)["users"] == 1


def _database(path: Path) -> None:
    """A database at the latest schema with one user, as the bot would leave it."""

    async def make() -> None:
        storage = await Storage.open(path)
        await storage.users.seen(User(id=1, first_name="Ann"))
        await storage.close()

    asyncio.run(make())


def test_the_command_reads_the_bots_settings_and_keeps_to_its_own_backups(tmp_path: Path) -> None:
    """DATABASE_PATH in .env, as the bot reads it (an empty durak.sqlite3 where the tool runs is not the
    bot's database); --keep 0 refused (it would delete the new backup too); rotation counts only this
    database's backups; an unwritable folder is one line, no traceback."""
    work = tmp_path / "work"
    work.mkdir()
    database = tmp_path / "data" / "bot.sqlite3"
    database.parent.mkdir()
    _database(database)
    (work / "durak.sqlite3").write_bytes(b"")  # left by an earlier run: not the bot's database
    (work / ".env").write_text(f"BOT_TOKEN=123456:{'A' * 35}\nDATABASE_PATH={database}\n")
    folder = tmp_path / "b"
    folder.mkdir()
    others = [folder / "bot-test-20260101-000000.sqlite3", folder / "bot-20260101-000000.sqlite3.bak"]
    for other in others:
        other.write_bytes(b"another database's")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "storage.backup", *args]
        return subprocess.run(
            command, cwd=work, env=env, capture_output=True, text=True, timeout=60, check=False
        )

    done = run(str(folder), "--keep", "1")
    assert done.returncode == 0 and f"backed up {database}" in done.stdout and "users 1" in done.stdout, done
    assert all(other.exists() for other in others)  # not this database's backups: never rotated away
    refused = run(str(folder), "--keep", "0")
    assert refused.returncode == 2 and "keep at least 1" in refused.stderr
    not_a_folder = tmp_path / "a-file"  # a destination nobody can write to, root included
    not_a_folder.write_bytes(b"")
    failed = run(str(not_a_folder / "inner"))
    assert failed.returncode == 1 and failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr
