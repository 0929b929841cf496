"""What an operator sees: a database that cannot be used stops the start with one line, and logs never hold
the token, the fair-play salt or anybody's hand, at any level."""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import logging
import os
import random
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

import engine
from bot import logs
from storage import Storage
from tests.bot.conftest import Harness
from tests.bot.fake_telegram import BASE_URL, BOT_USERNAME, TOKEN, ApiError, FakeTelegram
from tests.bot.players import GROUP, open_table, play_until_over, start, welcome

ROOT = Path(__file__).resolve().parents[2]


def run_bot(database: Path, *args: str, token: str = TOKEN) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "BOT_TOKEN": token,
        "BOT_API_URL": "http://127.0.0.1:9/bot",  # never reached: the database is checked first
        "DATABASE_PATH": str(database),
        "AI_WORKERS": "0",
    }
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def _a_real_database(path: Path) -> None:
    store = await Storage.open(path)
    for i in range(200):
        await store.chats.seen(-1 - i, "group", f"Group {i} " + "x" * 100)
    await store.close()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "missing folder"])
async def test_a_database_that_cannot_be_used_stops_the_start_with_one_line(
    tmp_path: Path, damage: str
) -> None:
    path = tmp_path / "durak.sqlite3"
    if damage == "garbage":
        path.write_bytes(random.Random(1).randbytes(8192))
    elif damage == "truncated":
        await _a_real_database(path)
        os.truncate(path, path.stat().st_size // 3)
    else:
        path = tmp_path / "no such folder" / "durak.sqlite3"
    done = run_bot(path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert " CRITICAL bot: Cannot start: the database" in lines[0] and str(path) in lines[0], lines[0]


@pytest.mark.parametrize("sidecars", [False, True])
async def test_a_read_only_database_stops_the_start_with_one_line(tmp_path: Path, sidecars: bool) -> None:
    """A database on a file system mounted read-only (as root, who writes to read-only files, the tests
    mount one; as anyone else, a read-only file in a read-only folder); with ``sidecars``, its -wal and -shm
    files there too (a copy taken with them): it opened and read, so it passed, and every move then failed."""
    folder = tmp_path / "data"
    folder.mkdir()
    mounted = os.geteuid() == 0 and _mount(folder, "rw")
    if os.geteuid() == 0 and not mounted:
        pytest.skip("root, and no file system can be mounted read-only here")
    try:
        path = folder / "durak.sqlite3"
        await _a_real_database(path)
        if sidecars:
            for suffix in ("-wal", "-shm"):
                Path(f"{path}{suffix}").write_bytes(b"")
        if mounted:
            assert _mount(folder, "remount,ro")
        else:
            for item in [*folder.iterdir(), folder]:
                item.chmod(0o555 if item.is_dir() else 0o444)
        done = run_bot(path)
    finally:
        if mounted:
            subprocess.run(["umount", str(folder)], check=False)
        folder.chmod(0o755)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "Cannot start: the database" in line and str(path) in line, line


def _mount(folder: Path, options: str) -> bool:
    command = ["mount", "-t", "tmpfs", "-o", f"{options},size=8m", "tmpfs", str(folder)]
    if options.startswith("remount"):
        command = ["mount", "-o", options, str(folder)]
    return subprocess.run(command, capture_output=True, check=False).returncode == 0


@pytest.fixture
def debug_log() -> Iterator[io.StringIO]:
    """The bot's logging as ``main`` sets it up with LOG_LEVEL=DEBUG, written to a buffer."""
    stream = io.StringIO()
    root = logging.getLogger()
    levels = {name: logging.getLogger(name).level for name in ("", *logs.OWN)}
    handler = logs.configure("DEBUG", "WARNING", TOKEN, stream)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


async def test_a_debug_log_holds_no_token_salt_deck_or_hand(harness: Harness, debug_log: io.StringIO) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await play_until_over(fake, GROUP, [1, 2], random.Random(3))
    # A library line and one of ours that carry the token are masked too, whatever their level.
    logging.getLogger("telegram.ext").error("calling %s failed", f"{BASE_URL}{TOKEN}/getUpdates")
    logging.getLogger("bot.outbox").debug("token %s", TOKEN)
    text = debug_log.getvalue()
    row = await harness.deps.storage.games.current(1)
    assert row is not None and row.salt and row.deck
    secret = TOKEN.partition(":")[2]
    assert logging.getLogger("bot").isEnabledFor(logging.DEBUG)
    assert "<BOT_TOKEN>/getUpdates" in text and "token <BOT_TOKEN>" in text
    # One line per update an operator can read: what, where, who, which table, how long.
    assert re.search(r"bot\.updates: /newgame chat=-100 user=1 table=1 \d+ ms", text), text[-2000:]
    assert re.search(r"bot\.updates: press m chat=\d+ user=\d+ table=1 \d+ ms", text)
    for leak in (TOKEN, secret, row.salt, row.deck, "Your hand", "snapshot"):
        assert leak not in text, leak
    assert not [m for m in fake.bot_messages(1) if m.text and m.text.split("\n")[-1] in text]


def test_the_checked_in_example_settings_name_every_setting() -> None:
    from bot.settings import Settings

    example = (ROOT / ".env.example").read_text()
    for name in Settings.model_fields:
        assert f"{name.upper()}=" in example, name
    # ... and a setting shown commented out shows its default (an operator reads it as what happens unset).
    shown = dict(re.findall(r"^# ([A-Z_]+)=(.*)$", example, re.MULTILINE))
    for name, field in Settings.model_fields.items():
        default = field.default
        if field.default_factory is not None or default is None or name.upper() not in shown:
            continue
        value = shown[name.upper()]
        same = value == str(getattr(default, "value", default))
        assert same or (isinstance(default, float) and float(value) == default), (name, value, default)


def test_version_says_the_release_and_the_engine_and_needs_no_settings(tmp_path: Path) -> None:
    """What a bug report needs, without a token or a database: nothing is read or created."""
    env = {"PATH": os.environ.get("PATH", "")}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "--version"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("durak-bot ") and "computer players run on the" in done.stdout
    assert list(tmp_path.iterdir()) == []  # no database file made


def test_check_creates_nothing_and_says_what_it_could_not_ask(tmp_path: Path) -> None:
    """No database yet, Telegram out of reach: --check passes, saying both, and leaves no file behind."""
    done = run_bot(tmp_path / "d.sqlite3", "--check")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("settings: valid (long polling)") and "does not exist yet" in done.stdout
    assert "telegram: not asked: cannot reach http://127.0.0.1:9/bot" in done.stdout
    assert f"computer players run on the {engine.BUILD}" in done.stdout  # run_bot's process decides alike
    assert "metrics and health: off" in done.stdout and "kept for ever" in done.stdout
    assert done.stdout.rstrip().endswith("OK: the bot can start")
    assert list(tmp_path.iterdir()) == []  # no database file, no lock file
    done = run_bot(tmp_path / "d.sqlite3", "--check", token="not a token")
    assert done.returncode == 2 and "BOT_TOKEN" in done.stderr and "Cannot start" in done.stderr


async def test_check_asks_telegram_for_the_token_opens_the_database_and_tries_the_ports(
    tmp_path: Path,
) -> None:
    fake = FakeTelegram()
    runner, port = await fake.serve()
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        db = tmp_path / "d.sqlite3"
        await _a_real_database(db)
        api = {"BOT_API_URL": f"http://127.0.0.1:{port}/bot"}
        done = await run_bot_async(db, "--check", env=api)
        assert done[0] == 0, done
        assert f"telegram: the token is @{BOT_USERNAME}'s; joins groups: yes; privacy mode on" in done[1]
        assert "opens and takes a write, 0 tables to bring back" in done[1]
        fake.revoked = True  # a token revoked in @BotFather: the shape is right, Telegram says no
        done = await run_bot_async(db, "--check", env=api)
        assert done[0] == 2 and "Telegram does not accept this BOT_TOKEN" in done[1], done
        fake.revoked = False
        busy = {**api, "METRICS_PORT": str(taken.getsockname()[1])}
        done = await run_bot_async(db, "--check", env=busy)
        assert done[0] == 2 and f"METRICS_PORT: 127.0.0.1:{taken.getsockname()[1]} is taken" in done[1], done
        # ... and the start itself says so in one line: no traceback, no session left open.
        done = await run_bot_async(db, env=busy)
        (line,) = [x for x in done[2].splitlines() if "Cannot start" in x]
        assert done[0] == 2 and "address already in use (METRICS_PORT 127.0.0.1:" in line, done
        assert "Traceback" not in done[2] and "Unclosed" not in done[2] and done[2].count("ERROR") == 0, done
    finally:
        taken.close()
        await runner.cleanup()


async def run_bot_async(
    database: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """``python -m bot`` with its settings; (exit status, stdout, stderr)."""
    settings = {"PATH": os.environ.get("PATH", ""), "BOT_TOKEN": TOKEN, "DATABASE_PATH": str(database)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        cwd=ROOT,
        env={**settings, "AI_WORKERS": "0", "BOT_API_URL": "http://127.0.0.1:9/bot", **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def test_a_job_cancelled_by_the_stop_is_no_error_line_and_a_real_error_still_is() -> None:
    stream = io.StringIO()
    handler = logs.configure("INFO", "WARNING", TOKEN, stream)
    try:
        scheduler = logging.getLogger("apscheduler.executors.default")
        for error in (asyncio.CancelledError(), ValueError("a real failure")):
            try:
                raise error
            except BaseException:
                scheduler.exception('Job "bot:7" raised an exception')
    finally:
        logging.getLogger().removeHandler(handler)
    lines = stream.getvalue()
    assert "CancelledError" not in lines
    assert lines.count('Job "bot:7" raised an exception') == 1 and "ValueError: a real failure" in lines


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """The bot's logging with LOG_FORMAT=json, written to a buffer."""
    stream = io.StringIO()
    levels = {name: logging.getLogger(name).level for name in ("", *logs.OWN)}
    handler = logs.configure("INFO", "WARNING", TOKEN, stream, style="json")
    try:
        yield stream
    finally:
        logging.getLogger().removeHandler(handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


async def test_a_proxys_error_page_is_one_warning_line_and_the_message_still_arrives(
    harness: Harness, debug_log: io.StringIO
) -> None:
    """A 502 page from a proxy in front of the Bot API: PTB's ERROR with the page and a traceback is left to
    the libraries' DEBUG; one WARNING line, the bot's own, says what failed and when it tries again, and the
    reply is sent after it."""
    fake = harness.fake
    fake.add_group(GROUP, "Friends")
    fake.add_user(1, "Ann")
    fake.fail_next("sendMessage", ApiError(502, "Bad Gateway", page=True))
    fake.send(1, GROUP, "/help")
    reply = await fake.wait_for(lambda: fake.last(GROUP), timeout=10, what="the reply")
    assert "/newgame" in reply.text
    lines = [line for line in debug_log.getvalue().splitlines() if line]
    assert not [line for line in lines if "not JSON" in line or " telegram" in line]
    (failed,) = [line for line in lines if " WARNING " in line]
    assert " WARNING bot.sender" in failed and "Bad Gateway" in failed and "next try in" in failed
    stamp = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")
    assert all(stamp.match(line) for line in lines), [line for line in lines if not stamp.match(line)][:3]
    assert "Traceback" not in debug_log.getvalue()


def test_every_event_is_one_line_a_traceback_folded_into_it(debug_log: io.StringIO) -> None:
    log = logging.getLogger("bot.outbox")
    log.warning("two\nlines")
    try:
        raise ValueError(f"bad token {TOKEN}")
    except ValueError:
        log.exception("sending failed")
    lines = debug_log.getvalue().splitlines()
    assert len(lines) == 2 and "two \\n lines" in lines[0]
    assert "sending failed | ValueError: bad token <BOT_TOKEN> (at test_operators.py:" in lines[1]


def test_json_logs_are_one_object_a_line_with_the_traceback_inside(json_log: io.StringIO) -> None:
    log = logging.getLogger("bot.outbox")
    log.info("hello %s", "world")
    try:
        raise KeyError("x")
    except KeyError:
        log.exception("failed with %s", TOKEN)
    events = [json.loads(line) for line in json_log.getvalue().splitlines()]
    assert [e["message"] for e in events] == ["hello world", "failed with <BOT_TOKEN>"]
    assert events[0]["level"] == "INFO" and events[0]["logger"] == "bot.outbox"
    when = datetime.fromisoformat(events[0]["time"])  # RFC 3339 in UTC, to the millisecond
    assert events[0]["time"].endswith("Z") and abs(time.time() - when.timestamp()) < 60
    assert events[0]["pid"] == os.getpid() and events[0]["version"] == logs.VERSION
    assert "Traceback" in events[1]["exception"] and "KeyError: 'x'" in events[1]["exception"]
    assert TOKEN.partition(":")[2] not in json_log.getvalue()


async def test_json_logs_carry_an_updates_chat_user_table_kind_and_duration_as_fields(
    harness: Harness, json_log: io.StringIO
) -> None:
    fake = harness.fake
    await welcome(harness, ["Ann"], started=False)
    fake.send(1, GROUP, "/newgame")
    await fake.wait_for(lambda: fake.last(GROUP), what="the lobby")
    for _ in range(100):
        events = [json.loads(line) for line in json_log.getvalue().splitlines()]
        (found,) = [e for e in events if e.get("update_kind") == "command"] or [None]
        if found is not None:
            break
        await asyncio.sleep(0.02)
    assert found is not None
    assert (found["chat_id"], found["user_id"]) == (GROUP, 1) and isinstance(found["table_id"], int)
    assert found["duration_ms"] >= 0 and found["message"].startswith("/newgame chat=")


async def test_in_an_outage_a_chat_is_tried_again_after_ever_longer_waits_one_line_each(
    harness: Harness, debug_log: io.StringIO
) -> None:
    """Telegram down behind its proxy (every call a 502 page) for 4 s: the reply waiting for the group is
    tried again after 0.5-1 s, then 1-2 s, then 2-4 s (bot.sender.backoff), never every second for as long
    as it lasts; each failure is one WARNING line, polling's own failures too (never an ERROR); the reply is
    sent once Telegram is back."""
    fake = harness.fake
    fake.add_group(GROUP, "Friends")
    fake.add_user(1, "Ann")
    fake.outage = 502
    fake.send(1, GROUP, "/help")
    await asyncio.sleep(4)
    fake.outage = None
    reply = await fake.wait_for(lambda: fake.last(GROUP), timeout=30, what="the reply")
    assert "/newgame" in reply.text
    tries = [when for when, method, chat in fake.refused if method == "sendMessage" and chat == GROUP]
    gaps = [b - a for a, b in itertools.pairwise(tries)]
    assert 3 <= len(tries) <= 4, gaps
    for n, gap in enumerate(gaps):
        assert 0.5 * 2**n - 0.05 <= gap <= 2**n + 0.5, gaps
    lines = [line for line in debug_log.getvalue().splitlines() if " WARNING " in line or " ERROR " in line]
    assert not [line for line in lines if " ERROR " in line], lines
    sends = [line for line in lines if "sending to chat" in line]
    assert len(sends) == len(tries) and all("next try in" in line for line in sends)
