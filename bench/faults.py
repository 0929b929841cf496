"""Faults: how the bot behaves, minute by minute, through the failures an operator meets, with 20 tables in
play by simulated users over the fake Bot API (bench/load.py's players, at a human pace).

    .venv/bin/python bench/faults.py                                  # every scenario, this checkout
    .venv/bin/python bench/faults.py --scenario outage --outage 180
    PYTHONPATH=/path/to/old/tree .venv/bin/python bench/faults.py --tree /path/to/old/tree   # before

Scenarios, each after a minute of normal play and followed by a minute of it:

- ``outage``: Telegram down behind its proxy for ``--outage`` seconds (every call a 502 page);
- ``locked``: another program holds the database's write lock (BEGIN EXCLUSIVE) for a minute;
- ``full``: the database's disk full for a minute (a tmpfs of its own, filled; needs root to mount one:
  skipped otherwise);
- ``revoked``: the token revoked in @BotFather (every call 401): how long until the process exits, and how.

Per minute: Bot API attempts (refused ones included), log lines at WARNING and above (the bot's stderr),
and the answers of /readyz and /livez polled every second (a bot before the split serves /healthz only: its
answers are counted as both). ``--tree``: the bot process runs the code of that work tree (its PYTHONPATH),
to measure a commit before a change side by side with this one.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import Window, _free_port, rematches, restorable, seat
from tests.bot.fake_telegram import TOKEN, FakeTelegram

MINUTE = 60.0


@dataclass
class Minutes:
    """What happened in each minute of a run."""

    calls: Counter[int] = field(default_factory=Counter)
    lines: Counter[int] = field(default_factory=Counter)
    errors: Counter[int] = field(default_factory=Counter)
    ready: dict[int, Counter[int]] = field(default_factory=dict)
    live: dict[int, Counter[int]] = field(default_factory=dict)


async def scenario(name: str, tables: int, outage: float, tree: str | None) -> None:
    fake = FakeTelegram()
    runner, port = await fake.serve()
    metrics = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "db"
        folder.mkdir()
        mounted = name == "full" and _mount(folder)
        if name == "full" and not mounted:
            print(f"{name}: skipped (mounting a small tmpfs needs root)")
            await runner.cleanup()
            return
        database = folder / "faults.sqlite3"
        env = {
            **os.environ,
            "BOT_TOKEN": TOKEN,
            "BOT_API_URL": f"http://127.0.0.1:{port}/bot",
            "DATABASE_PATH": str(database),
            "METRICS_PORT": str(metrics),
            "AI_WORKERS": "0",
            **({"PYTHONPATH": tree} if tree else {}),
        }
        bot = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=env, cwd=tmp, stderr=asyncio.subprocess.PIPE
        )
        began = time.monotonic()
        minutes = Minutes()
        tasks = [asyncio.create_task(_read_log(bot, began, minutes))]
        try:
            await fake.wait_for(lambda: fake.commands, 60, "the bot to start")
            found = await restorable(fake, tables)
            began = time.monotonic()
            tasks[0].cancel()
            tasks = [asyncio.create_task(_read_log(bot, began, minutes))]
            fault = outage if name == "outage" else MINUTE
            until = began + 2 * MINUTE + fault
            if name == "revoked":
                until = began + MINUTE + 30
            rng = random.Random(5)
            window = Window()
            for group, a, b in found:
                for user in (a, b):
                    tasks.append(asyncio.create_task(seat(fake, user, group, until, window, (2, 8), rng)))
                tasks.append(asyncio.create_task(rematches(fake, group, a, b, until, window)))
            tasks.append(asyncio.create_task(_poll(metrics, began, until, minutes)))
            tasks.append(asyncio.create_task(_count_calls(fake, began, until, minutes)))
            await asyncio.sleep(MINUTE)
            exited = await _fault(name, fake, database, fault, bot)
            await asyncio.sleep(max(0.0, until - time.monotonic()))
            _print(name, outage, minutes, window, exited)
        finally:
            for task in tasks:
                task.cancel()
            if bot.returncode is None:
                bot.terminate()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(bot.wait(), 20)
                if bot.returncode is None:
                    bot.kill()
                    await bot.wait()
            await runner.cleanup()
            if mounted:
                subprocess.run(["umount", str(folder)], check=False)


async def _fault(name: str, fake: FakeTelegram, database: Path, seconds: float, bot: object) -> str:
    """Inject the fault for ``seconds`` (the revoked token: until the process exits); what it did."""
    if name == "outage":
        fake.outage = 502
        await asyncio.sleep(seconds)
        fake.outage = None
    elif name == "locked":
        other = sqlite3.connect(database, isolation_level=None, timeout=30)
        other.execute("BEGIN EXCLUSIVE")
        await asyncio.sleep(seconds)
        other.execute("ROLLBACK")
        other.close()
    elif name == "full":
        filler = database.parent / "filler"
        with contextlib.suppress(OSError), open(filler, "wb") as out:
            while True:
                out.write(b"\0" * 65536)
        await asyncio.sleep(seconds)
        filler.unlink()
    elif name == "revoked":
        assert isinstance(bot, asyncio.subprocess.Process)
        fake.revoked = True
        revoked = time.monotonic()
        try:
            code = await asyncio.wait_for(bot.wait(), 30)
        except TimeoutError:
            return "still running 30 s after the token was revoked"
        return f"exited with status {code} after {time.monotonic() - revoked:.1f} s"
    return ""


def _mount(folder: Path) -> bool:
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(folder)], capture_output=True, check=False
    )
    return done.returncode == 0


async def _read_log(bot: asyncio.subprocess.Process, began: float, minutes: Minutes) -> None:
    assert bot.stderr is not None
    while line := await bot.stderr.readline():
        text = line.decode(errors="replace")
        minute = int((time.monotonic() - began) // MINUTE)
        if any(level in text for level in (" WARNING ", " ERROR ", " CRITICAL ", "Traceback")):
            minutes.lines[minute] += 1
        if any(level in text for level in (" ERROR ", " CRITICAL ")):
            minutes.errors[minute] += 1


async def _poll(port: int, began: float, until: float, minutes: Minutes) -> None:
    async with httpx.AsyncClient(timeout=5) as client:
        while time.monotonic() < until:
            minute = int((time.monotonic() - began) // MINUTE)
            for path, into in (("/readyz", minutes.ready), ("/livez", minutes.live)):
                try:
                    answer = await client.get(f"http://127.0.0.1:{port}{path}")
                    status = answer.status_code
                    if status == 404:
                        status = (await client.get(f"http://127.0.0.1:{port}/healthz")).status_code
                except httpx.HTTPError:
                    status = 0  # no answer at all
                into.setdefault(minute, Counter())[status] += 1
            await asyncio.sleep(1.0)


async def _count_calls(fake: FakeTelegram, began: float, until: float, minutes: Minutes) -> None:
    seen = sum(fake.calls.values())
    while time.monotonic() < until:
        await asyncio.sleep(1.0)
        now = sum(fake.calls.values())
        minutes.calls[int((time.monotonic() - began - 0.5) // MINUTE)] += now - seen
        seen = now


def _print(name: str, outage: float, minutes: Minutes, window: Window, exited: str) -> None:
    fault = f"{outage:.0f} s outage" if name == "outage" else name
    print(
        f"\n{name}: a minute of play, the fault ({fault}), a minute of play; {len(window.moves)} moves in all"
    )
    print(
        "| minute | Bot API attempts | log lines ≥ WARNING (ERROR) | /readyz 200 / 503 / none | /livez 200 / 503 / none |"
    )
    print("|---|---|---|---|---|")
    for minute in sorted(set(minutes.ready) | set(minutes.calls)):
        ready, live = minutes.ready.get(minute, Counter()), minutes.live.get(minute, Counter())
        print(
            f"| {minute + 1} | {minutes.calls[minute]} | {minutes.lines[minute]} ({minutes.errors[minute]}) | "
            f"{ready[200]} / {ready[503]} / {ready[0]} | {live[200]} / {live[503]} / {live[0]} |"
        )
    if exited:
        print(f"the process: {exited}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenario", nargs="+", default=["outage", "locked", "full", "revoked"])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--outage", type=float, default=180.0, help="seconds Telegram is down")
    parser.add_argument("--tree", help="run the bot from this work tree (PYTHONPATH): a commit before")
    args = parser.parse_args()
    print(f"{args.tables} tables at 2-8 s a move; bot from {args.tree or 'this checkout'}")
    for name in args.scenario:
        asyncio.run(scenario(name, args.tables, args.outage, args.tree))


if __name__ == "__main__":
    main()
