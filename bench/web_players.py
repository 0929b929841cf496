"""Players of bench/load.py who play through the web table (bot/web) instead of their hand's buttons: each
opens their table's page socket (Telegram's initData signed with the fake's token), taps a random legal move
whenever the page shows new ones, and follows a rematch to its new table. Every state a page receives is
logged, so the latencies are what a page shows: a move → the next player's page (the turn), → the mover's
own page."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from tests.bot.fake_telegram import FakeTelegram
from tests.bot.web import signed


@dataclass
class Pages:
    """What the pages saw: per (table, user), each state as (when, game version, whether it waits for them);
    per move, (when it was sent, table, the game version it was made on, the mover, the group)."""

    seen: dict[tuple[int, int], list[tuple[float, int, bool]]] = field(default_factory=dict)
    moves: list[tuple[float, int, int, int, int]] = field(default_factory=list)

    def latencies(self) -> tuple[list[float], list[float]]:
        """For each move: until a page that now has to act shows it (the turn), and until the mover's own
        page shows it. A move after which nobody is asked (the game ended) has no turn."""
        turns, own = [], []
        users: dict[int, set[int]] = {}
        for table, user in self.seen:
            users.setdefault(table, set()).add(user)
        for sent, table, version, mover, _ in self.moves:
            waited = [
                at
                for user in users.get(table, ())
                for at, shown, asked in self.seen[table, user]
                if at >= sent and shown > version and asked
            ]
            if waited:
                turns.append(min(waited) - sent)
            mine = [
                at for at, shown, _ in self.seen.get((table, mover), []) if at >= sent and shown > version
            ]
            if mine:
                own.append(min(mine) - sent)
        return turns, own


def current_table(fake: FakeTelegram, group: int) -> int | None:
    """The table the group plays at now: the one its newest lobby or table message names."""
    for message in reversed(fake.bot_messages(group)):
        for _, data in message.buttons():
            if data and data[:2] in ("L:", "c:"):
                return int(data.split(":")[1])
    return None


def _choices(state: dict[str, Any]) -> list[str]:
    hand, game = state.get("hand"), state.get("game")
    if not hand or not game or "result" in state:
        return []
    return [m["move"] for card in hand["cards"] for m in card["moves"]] + [b["move"] for b in hand["buttons"]]


async def web_seat(
    fake: FakeTelegram,
    base: str,
    user: int,
    group: int,
    until: float,
    pages: Pages,
    pace: tuple[float, float],
    rng: random.Random,
) -> None:
    """One player at their group's table, through its page, until ``until``; a new page for each rematch."""
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < until:
            table = current_table(fake, group)
            if table is None:
                await asyncio.sleep(0.05)
                continue
            init = signed(user, f"P{user}", table)
            try:
                socket = await session.ws_connect(f"{base}/socket", params={"init": init})
            except aiohttp.ClientError:
                await asyncio.sleep(0.2)  # the table is not in play yet, or already gone
                continue
            async with socket:
                await _play(socket, table, user, group, until, pages, pace, rng)
            while time.monotonic() < until and current_table(fake, group) == table:
                await asyncio.sleep(0.05)  # the game is over: wait for the rematch's table


async def _play(
    socket: aiohttp.ClientWebSocketResponse,
    table: int,
    user: int,
    group: int,
    until: float,
    pages: Pages,
    pace: tuple[float, float],
    rng: random.Random,
) -> None:
    seen = pages.seen.setdefault((table, user), [])
    latest: dict[str, Any] = {}
    changed = asyncio.Event()

    async def read() -> None:
        async for frame in socket:
            if frame.type is not aiohttp.WSMsgType.TEXT:
                return
            state = json.loads(frame.data)
            if state["type"] == "refused":  # the move was a state behind: not a move that counts
                found = [i for i, m in enumerate(pages.moves) if m[1] == table and m[3] == user]
                if found:
                    del pages.moves[found[-1]]
                continue
            if "game" not in state:
                continue
            game = state["game"]
            asked = state["seat"] is not None and game["seats"][state["seat"]]["to_act"]
            seen.append((time.monotonic(), game["version"], asked))
            latest.clear()
            latest.update(state)
            changed.set()

    reader = asyncio.get_running_loop().create_task(read())
    tried = -1  # the game version a move was last sent on
    try:
        while time.monotonic() < until and not reader.done():
            if "result" in latest:
                return
            choices = _choices(latest)
            version = latest["game"]["version"] if latest else -1
            if not choices or version == tried:
                changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), max(0.01, until - time.monotonic()))
                continue
            if pace[1] > 0:
                await asyncio.sleep(rng.uniform(*pace))
                if latest["game"]["version"] != version:
                    continue  # the table moved while thinking: look again
            tried = version
            pages.moves.append((time.monotonic(), table, version, user, group))
            await socket.send_str(json.dumps({"move": rng.choice(choices), "version": version}))
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
