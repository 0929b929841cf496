"""A clean stop: ``python -m bot`` gets SIGTERM mid-game; every accepted move is in the database, the table
message shows the last state (waiting messages are flushed within a bound), the process exits 0, and the
next start brings the game back with its timer."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

from bot.revoked import REVOKED_EXIT
from storage.backup import backup
from tests.bot.fake_telegram import TOKEN, FakeTelegram, Message, RateLimits
from tests.bot.players import hand_message, move_choices, press_and_wait

ROOT = Path(__file__).resolve().parents[2]
GROUP = -100


async def bot_process(
    port: int, db: Path, settings: dict[str, str] | None = None
) -> asyncio.subprocess.Process:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "BOT_TOKEN": TOKEN,
        "BOT_API_URL": f"http://127.0.0.1:{port}/bot",
        "DATABASE_PATH": str(db),
        "AI_WORKERS": "0",
        "RATE_SCALE": "0.01",
        "GROUP_REDRAW_INTERVAL": "3.0",  # redraws still waiting when the stop comes (the flush allows 5 s)
        "PRIVATE_REDRAW_INTERVAL": "0.05",
        **(settings or {}),
    }
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=ROOT, env=env, stderr=asyncio.subprocess.PIPE
    )


async def stop(bot: asyncio.subprocess.Process) -> None:
    """A clean stop (SIGTERM) of a bot process still running, and its end waited for."""
    if bot.returncode is None:
        bot.send_signal(signal.SIGTERM)
        await asyncio.wait_for(bot.communicate(), timeout=30)


async def deal(fake: FakeTelegram, pause: float = 0.0) -> Message:
    """Once the bot is up: Ann and Bob start it, Ann opens a table in the group, Bob joins, Ann deals (after
    ``pause``); the lobby message."""
    await fake.wait_for(lambda: fake.commands, timeout=60, what="the bot to start")
    fake.add_group(GROUP, "Friends")
    for user, name in ((1, "Ann"), (2, "Bob")):
        fake.add_user(user, name)
        fake.send(user, user, "/start")
    await fake.wait_for(lambda: fake.last(1) and fake.last(2), what="welcomes")
    fake.send(1, GROUP, "/newgame")
    lobby: Message = await fake.wait_for(
        lambda: next((m for m in fake.bot_messages(GROUP) if m.buttons()), None)
    )
    table = lobby.buttons()[0][1].split(":")[1]
    await press_and_wait(fake, 2, GROUP, lobby.message_id, f"L:{table}:join")
    await asyncio.sleep(pause)
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{table}:start")
    return lobby


def fresh_move(fake: FakeTelegram, after: int) -> tuple[Message, str] | None:
    """A move button of a newer state than ``after``, in either player's hand."""
    for user in (1, 2):
        hand = hand_message(fake, user)
        for _, data in hand.buttons() if hand else ():
            if data.startswith("m:") and int(data.split(":")[2]) > after:
                return hand, data  # type: ignore[return-value]
    return None


async def test_sigterm_commits_flushes_and_the_next_start_brings_the_game_back(tmp_path: Path) -> None:
    fake = FakeTelegram()
    runner, port = await fake.serve()
    db = tmp_path / "stop.sqlite3"
    try:
        bot = await bot_process(port, db)
        lobby = await deal(fake, pause=0.6)
        version = -1
        for _ in range(4):  # a few moves, the last one right before the stop
            hand, data = await fake.wait_for(lambda: fresh_move(fake, version), what="a move to press")
            version = int(data.split(":")[2])
            answer = await press_and_wait(fake, hand.chat_id, hand.chat_id, hand.message_id, data)
            assert "text" not in answer, answer
        last_move = time.monotonic()
        bot.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(bot.communicate(), timeout=30)
        assert bot.returncode == 0, err.decode()[-2000:]
        with sqlite3.connect(db) as conn:
            (moves,) = conn.execute("SELECT COUNT(*) FROM events").fetchone()
            assert moves == 4
        # The group's table message was redrawn to the last move before the process ended.
        shown = fake.messages[GROUP][lobby.message_id].text
        assert "Durak ·" in shown
        edits = [s for s in fake.sent if s.chat_id == GROUP and s.ok and s.method == "editMessageText"]
        assert edits and edits[-1].text == shown
        assert edits[-1].at > last_move  # the redraw still waiting (3 s apart) went out during the stop
        # The next start brings the game back, with its timer.
        bot = await bot_process(port, db)
        await asyncio.sleep(3)
        with sqlite3.connect(db) as conn:
            (deadline,) = conn.execute("SELECT deadline FROM tables").fetchone()
        bot.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(bot.communicate(), timeout=30)
        assert bot.returncode == 0 and "restored 1 live tables" in err.decode(), err.decode()[-2000:]
        assert deadline is not None
    finally:
        await runner.cleanup()


async def test_a_kill_mid_game_and_a_restart_never_break_the_groups_limit(tmp_path: Path) -> None:
    """kill -9 while the group's minute is nearly spent, and a restart at once: the new process reads what was
    sent into the group (storage.paces) and Telegram, whose limits the fake enforces (a minute of 6 s here),
    never answers 429, though the players keep pressing and asking for /help."""
    scale = 0.1
    fake = FakeTelegram(limits=RateLimits(scale=scale))
    runner, port = await fake.serve()
    db = tmp_path / "kill.sqlite3"
    env = {
        "RATE_SCALE": str(scale),
        "GROUP_REDRAW_INTERVAL": "0.3",
        "PRIVATE_REDRAW_INTERVAL": "0.1",
        "LOG_LEVEL": "WARNING",
    }
    rng = random.Random(9)

    async def play(seconds: float) -> None:
        """Both players press a move whenever their hand shows one, and somebody asks for /help now and then."""
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            shown = [(u, m) for u in (1, 2) if (m := hand_message(fake, u)) and move_choices(m.reply_markup)]
            if rng.random() < 0.1:
                fake.send(rng.choice((1, 2)), GROUP, "/help")
            if shown:
                user, hand = rng.choice(shown)
                fake.press(user, user, hand.message_id, rng.choice(move_choices(hand.reply_markup)))
            await asyncio.sleep(0.05)

    try:
        bot = await bot_process(port, db, env)
        await deal(fake)
        await play(5.0)
        window = [
            s for s in fake.sent if s.chat_id == GROUP and s.ok and s.at > time.monotonic() - 60 * scale
        ]
        assert len(window) >= 12  # the group's minute is mostly spent when the process dies
        bot.kill()
        await bot.wait()
        bot = await bot_process(port, db, env)
        await play(8.0)
        assert [s.text[:40] for s in fake.sent if s.error == 429] == [] and fake.too_early == []
        assert any(s.at > time.monotonic() - 6.0 and s.chat_id == GROUP for s in fake.sent)  # it plays on
        bot.send_signal(signal.SIGTERM)
        await asyncio.wait_for(bot.communicate(), timeout=30)
    finally:
        if bot.returncode is None:
            bot.kill()
        await runner.cleanup()


@contextlib.asynccontextmanager
async def dealt(tmp_path: Path) -> AsyncIterator[tuple[FakeTelegram, asyncio.subprocess.Process, Path]]:
    """A bot process against a fake Bot API, a heads-up game dealt; killed at the end if it still runs."""
    fake = FakeTelegram()
    runner, port = await fake.serve()
    db = tmp_path / "bot.sqlite3"
    bot = await bot_process(port, db)
    try:
        await deal(fake)
        yield fake, bot, db
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()
        await runner.cleanup()


def playing(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM tables WHERE status = 'playing'").fetchone()[0])


async def test_a_token_revoked_while_running_stops_the_bot_at_once_and_loudly(tmp_path: Path) -> None:
    """A leaked token revoked in @BotFather mid-game: every call is answered 401. The bot does not stay up
    deaf (polling given up, timers handing seats to bots): it says so in one line and exits non-zero by
    itself, within seconds, for its supervisor to see; the game is kept for the next start."""
    async with dealt(tmp_path) as (fake, bot, db):
        fake.revoked = True
        code = await asyncio.wait_for(bot.wait(), 30)
        assert bot.stderr is not None
        err = (await bot.stderr.read()).decode()
        assert code == REVOKED_EXIT, err
        assert err.count("no longer accepts the bot token") == 1, err
        assert "Traceback" not in err, err
        assert playing(db) == 1


async def test_a_second_process_on_the_same_sqlite_file_is_refused_and_so_is_a_restore_under_it(
    tmp_path: Path,
) -> None:
    """Two bots on one file would each keep their own tables over it: the second says who holds the file, in
    one line, and exits 2; restoring a backup over it while the first runs is refused the same way."""
    fake = FakeTelegram()
    runner, port = await fake.serve()
    db = tmp_path / "one.sqlite3"
    first = await bot_process(port, db)
    try:
        await fake.wait_for(lambda: fake.commands, timeout=60, what="the first bot to start")
        second = await bot_process(port, db)
        code = await asyncio.wait_for(second.wait(), 60)
        assert second.stderr is not None
        err = (await second.stderr.read()).decode()
        assert code == 2, err
        (line,) = err.splitlines()
        assert f"Cannot start: another bot process (pid {first.pid}) is using {db}" in line
        taken = backup(db, tmp_path / "backups")
        restore = subprocess.run(
            [sys.executable, "-m", "storage.backup", "--restore", str(taken), "--database", str(db)],
            cwd=ROOT,
            env={"PATH": os.environ.get("PATH", "")},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert restore.returncode == 1 and f"(pid {first.pid}) is using" in restore.stderr, restore
        assert first.returncode is None  # the first plays on
    finally:
        first.kill()
        await first.wait()
        await runner.cleanup()


async def test_sigterm_during_a_telegram_outage_ends_the_process_within_seconds(tmp_path: Path) -> None:
    """Telegram down behind its proxy (every call a 502 page) mid-game, the lanes backing off and polling
    failing: a SIGTERM still ends the process within seconds and cleanly (the flush gives up after its bound,
    the moves are in the database), rather than waiting on calls that cannot succeed."""
    async with dealt(tmp_path) as (fake, bot, db):
        fake.outage = 502
        await asyncio.sleep(3)  # lanes fail and back off; polling fails
        bot.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(bot.communicate(), timeout=15)
        assert bot.returncode == 0, err.decode()
        assert b"Traceback" not in err, err.decode()
        assert playing(db) == 1
