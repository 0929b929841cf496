"""Load: N tables kept in play at once by simulated users over the fake Bot API.

    .venv/bin/python bench/load.py --tables 50 100 200 300 --seconds 60 --pace 2 8
    .venv/bin/python bench/load.py --tables 100 --limits off on
    .venv/bin/python bench/load.py --tables 100 500 --pace 2 8 --players chat web
    .venv/bin/python bench/load.py --tables 300 --pace 2 8 --http httpx aiohttp
    .venv/bin/python bench/load.py --tables 100 300 --pace 2 8 --database sqlite postgresql
    .venv/bin/python bench/load.py --tables 100 300 --pace 2 8 --database postgresql --processes 1 2

The bot runs as its own process (``python -m bot``) and talks real HTTP on 127.0.0.1 to the fake Bot API,
which runs here with the simulated users (``--http``: the bot's request layer, TELEGRAM_HTTP). Each table has two players who press a random move of their hand
message whenever it shows a new one (after a think time drawn from ``--pace`` seconds, e.g. 2–8 for a human
pace; none by default); when a game ends they play a rematch at once, so N tables are in play for the whole
measured window. For each N, with Telegram's rate limits off and/or on in the fake:

- accepted moves/s: moves the engine took, counted in the bot's database (the first tap of a two-tap move
  is not one);
- press→answer p50/p99/max over every press (the time until the bot answered its callback);
- press→own hand redrawn p50/p99: until the presser's hand message shows the move (it waits for the chat's
  spacing and Telegram's overall budget, 30 sends a second, which caps moves/s once tables are many), and the
  share of moves whose press was answered "✓ Played" because of that wait (bot.outbox.lagging);
- the turn latency p50/p99, what players feel: from a move (its press) until the hand of the player the table
  now waits for shows it (the first hand at the table drawn after the move's answer with the "⏳" of a
  running clock), and move→table: until the group's table message shows it;
- Bot API calls per move, by method, and the budgeted calls per move (each call priced by bot.budget.COST,
  the outbox's own accounting); the bot's CPU per move; its peak RSS;
- the bench's own CPU and event-loop lag: if they are high, the latencies are the bench's, not the bot's.

``--players web`` (or ``chat web``, each N run both ways, side by side): the players play through the web table
(bot/web, bench/web_players.py) instead of their hand's buttons, each from their table's page socket; the turn
latency is then a move → the page of the player the table now waits for shows it, press→own hand a move → the
mover's own page, press→answer is not measured (a page's tap has no callback to answer), and the Bot API calls
per move are what is left in the chat (the group's table message; no hand while a page is open).

The bot process is ``python -m bot`` started in a temporary directory: it runs the code Python finds for ``bot``,
which is this checkout where the README's editable install was made. To measure another commit side by side,
check it out in a work tree and run its bench with ``PYTHONPATH`` set to that tree (and this one's to this one),
or both sides run the same bot.

Ends with the largest N held at press→answer p99 < 150 ms, and the largest with turn latency p99 < 1 s. The database lives in the system's temp dir, or with
``--database postgresql`` in a fresh database on a throwaway PostgreSQL server (tests/postgres.py: the
installed binaries, or ``DURAK_TEST_POSTGRES_URL``). ``--processes 2`` (PostgreSQL only) runs two bot
processes in webhook mode behind the fake's load balancer (updates to each in turn; docs/deploy.md); their
CPU and RSS are summed. ``--bots``: both players leave right after the deal, so computer players play every
seat (at *normal*, ``--think`` seconds of CPU a decision, 0.1 by default, two worker processes in all): the
moves/s then are bot moves.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import os
import random
import socket
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.web_players import Pages, web_seat
from bot.budget import COST, STARS_A_MESSAGE
from bot.callbacks import CardsPress, MovePress, PickPress, decode
from tests import postgres
from tests.bot.fake_telegram import TOKEN, FakeTelegram, Message, RateLimits
from tests.bot.players import hand_message, is_result

P99_TARGET = 0.150  # seconds
TURN_TARGET = 1.0  # seconds


@dataclass
class Window:
    """What happened while the load was measured."""

    latencies: list[float] = field(default_factory=list)
    redraws: list[float] = field(default_factory=list)  # press → the presser's hand shows the move
    moves: list[tuple[float, int]] = field(default_factory=list)  # accepted moves: when pressed, the group
    rematches: int = 0
    noted: int = 0  # moves answered with a word that they counted (the token was full: bot.outbox.lagging)


def lobby_table(message: Message) -> str:
    return next(d for _, d in message.buttons() if d.startswith("L:")).split(":")[1]


async def press(fake: FakeTelegram, user: int, chat: int, message: Message, data: str) -> None:
    callback = fake.press(user, chat, message.message_id, data)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(fake.answered(callback).wait(), 30)


async def restorable(fake: FakeTelegram, tables: int) -> list[tuple[int, int, int]]:
    """(group, first player, second player) per table, each with a game dealt."""
    found = []
    for t in range(tables):
        group, a, b = -(t + 1), 2 * t + 1, 2 * t + 2
        fake.add_group(group, f"Group {t}")
        for user in (a, b):
            fake.add_user(user, f"P{user}")
            fake.send(user, user, "/start")
        found.append((group, a, b))
    await fake.wait_for(lambda: all(fake.last(u) for _, a, b in found for u in (a, b)), 300, "welcomes")
    for group, a, _ in found:
        fake.send(a, group, "/newgame")
    await fake.wait_for(lambda: all(fake.last(g) for g, _, _ in found), 300, "lobbies")
    for group, _, b in found:
        lobby = fake.last(group)
        assert lobby is not None
        await press(fake, b, group, lobby, f"L:{lobby_table(lobby)}:join")
    for group, a, _ in found:
        lobby = fake.last(group)
        assert lobby is not None
        await press(fake, a, group, lobby, f"L:{lobby_table(lobby)}:start")
    return found


async def seat(
    fake: FakeTelegram,
    user: int,
    group: int,
    until: float,
    window: Window,
    pace: tuple[float, float],
    rng: random.Random,
) -> None:
    """Press a random move of the hand message whenever it shows new ones; wait for a change otherwise."""
    changed = fake.changed(user)
    pressed: tuple[int, list[str]] | None = None
    thought: tuple[int, list[str]] | None = None  # what was shown when the think time began
    before: tuple[float, int, str] | None = None  # the last accepted press: when, and the hand it was under
    while time.monotonic() < until:
        message = hand_message(fake, user)
        if before is not None and message is not None and (message.message_id, message.text) != before[1:]:
            window.redraws.append(time.monotonic() - before[0])
            before = None
        choices = (
            []
            if message is None
            else [d for _, d in message.buttons() if isinstance(decode(d), MovePress | PickPress)]
        )
        if message is None or not choices or (message.message_id, choices) == pressed:
            changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), max(0.01, until - time.monotonic()))
            continue
        if pace[1] > 0 and thought != (message.message_id, choices):
            thought = (message.message_id, choices)
            await asyncio.sleep(rng.uniform(*pace))
            continue  # look again: the hand may have changed while thinking
        pressed = (message.message_id, choices)
        changed.clear()
        start = time.monotonic()
        data = rng.choice(choices)
        callback = fake.press(user, user, message.message_id, data)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(fake.answered(callback).wait(), max(0.01, until - time.monotonic()))
        if fake.answers[callback]:
            window.latencies.append(time.monotonic() - start)
            if "show_alert" not in fake.answers[callback][0]:
                before = (start, message.message_id, message.text)
                if isinstance(decode(data), MovePress):
                    window.moves.append((start, group))
                    window.noted += "text" in fake.answers[callback][0]


async def rematches(fake: FakeTelegram, group: int, a: int, b: int, until: float, window: Window) -> None:
    """Whenever the group gets a result: Rematch, the other player confirms, the first deals."""
    changed = fake.changed(group)
    seen = 0
    while time.monotonic() < until:
        results = [m for m in fake.bot_messages(group) if is_result(m.text)]
        if len(results) == seen:
            changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), max(0.01, until - time.monotonic()))
            continue
        seen = len(results)
        again = next((d for label, d in results[-1].buttons() if label == "Rematch"), None)
        if again is None:
            continue
        await press(fake, a, group, results[-1], again)
        with contextlib.suppress(TimeoutError):
            lobby = await fake.wait_for(
                lambda: next((m for m in reversed(fake.bot_messages(group)) if "⏳" in m.text), None),
                30,
                "the rematch lobby",
            )
            table = lobby_table(lobby)
            await press(fake, b, group, lobby, f"L:{table}:join")
            await fake.wait_for(confirmed(fake, group, lobby.message_id), 30, "Join")
            await press(fake, a, group, lobby, f"L:{table}:start")
            window.rematches += 1


def confirmed(fake: FakeTelegram, group: int, message_id: int) -> Callable[[], bool]:
    return lambda: "⏳" not in fake.messages[group][message_id].text


@dataclass
class Figures:
    tables: int
    limits: bool
    http: str
    presses: int
    p50: float
    p99: float
    worst: float
    redraw_p50: float  # press → the presser's own hand redrawn (waits for the chat's and Telegram's budgets)
    redraw_p99: float
    turn_p50: float  # a move → the hand of the player the table now waits for shows it
    turn_p99: float
    table_p50: float  # a move → the group's table message shows it
    table_p99: float
    moves_per_second: float
    calls_per_move: dict[str, float]
    budgeted_per_move: float  # the calls priced by bot.budget.COST
    cpu_ms_per_move: float
    rss_mib: float
    rematches: int
    noted_share: float  # of the moves: answered "✓ Played" because the mover's hand would show it late
    bench_cpu_share: float  # of one core: near 1.0, the bench itself (fake API and users) is the bottleneck
    bench_lag_p99: float  # how late the bench's own event loop ran: high, and the latencies are the bench's
    paid_per_move: float  # new messages sent with allow_paid_broadcast (PAID_BROADCAST), a move
    stars_per_table_hour: float  # what they cost: 0.1 Star each, per busy table and hour


async def run(
    tables: int,
    seconds: float,
    limits: bool,
    pace: tuple[float, float],
    http: str,
    postgres: str | None = None,
    processes: int = 1,
    bots_only: bool = False,
    think: float = 0.1,
    web: bool = False,
    paid: int = 0,
) -> Figures:
    """One measured run; ``postgres``: the URL of an empty database to keep the bot's data in, else SQLite;
    ``processes``: bot processes sharing it (more than one needs PostgreSQL); ``bots_only``: both players
    leave once dealt, so computer players play every seat (two worker processes in all, ``think`` seconds of CPU
    a decision)."""
    fake = FakeTelegram(limits=RateLimits() if limits else None)
    runner, port = await fake.serve()
    with tempfile.TemporaryDirectory() as tmp:
        database = Path(tmp) / "load.sqlite3"
        web_port = _free_port()
        env = {
            **os.environ,
            "BOT_TOKEN": TOKEN,
            "BOT_API_URL": f"http://127.0.0.1:{port}/bot",
            "DATABASE_PATH": str(database),
            "LOG_LEVEL": "WARNING",
            "AI_WORKERS": str(2 // processes) if bots_only else "0",  # the cores, shared by the processes
            "AI_BUDGET_SCALE": str(think / 0.5),  # normal thinks 0.5 s a decision at scale 1
            "BOT_MOVE_DELAY": "0",
            "TELEGRAM_HTTP": http,
            **({"WEB_PORT": str(web_port), "WEB_APP": "table"} if web else {}),
            **({"DATABASE_URL": postgres} if postgres else {}),
            **({"PAID_BROADCAST": str(paid)} if paid else {}),
        }
        profile = (
            ["-m", "cProfile", "-o", os.environ["BENCH_PROFILE"]] if os.environ.get("BENCH_PROFILE") else []
        )
        hooks = [_free_port() for _ in range(processes)] if processes > 1 else []
        bots = [
            await asyncio.create_subprocess_exec(
                sys.executable, *profile, "-m", "bot", env={**env, **_webhook(hook)}, cwd=tmp
            )
            for hook in hooks or [0]
        ]
        try:
            await fake.wait_for(lambda: fake.commands, 60, "the bot to start")
            if hooks:
                for hook in hooks:
                    await fake.wait_for(lambda hook=hook: _listening(hook), 60, "a webhook port")  # type: ignore[misc]
                fake.balance = [f"http://127.0.0.1:{hook}/durak" for hook in hooks]
                await fake.wait_for(lambda: fake.webhook, 60, "the webhook")
            found = await restorable(fake, tables)
            # Web players: every hand of the deal out first (they are the chat's, before the pages open).
            both = all if web else any
            await fake.wait_for(
                lambda: all(both((hand_message(fake, a), hand_message(fake, b))) for _, a, b in found),
                300,
                "deals",
            )
            if bots_only:
                for group, a, b in found:
                    for user in (a, b):
                        fake.send(user, group, "/leave")
            window = Window()
            rng = random.Random(tables)
            calls = Counter(fake.calls)
            cpu = sum(_cpu_seconds(bot.pid) for bot in bots)
            own = time.process_time()
            started_wall, started = time.time(), time.monotonic()
            until = started + seconds
            lags: list[float] = []
            watch = asyncio.create_task(_loop_lag(lags))
            pages = Pages()
            ended: list[Counter[str]] = []
            base = f"http://127.0.0.1:{web_port}"
            await asyncio.gather(
                *(
                    web_seat(fake, base, u, g, until, pages, pace, random.Random(rng.random()))
                    if web
                    else seat(fake, u, g, until, window, pace, random.Random(rng.random()))
                    for g, a, b in found
                    for u in (a, b)
                    if not bots_only
                ),
                *(rematches(fake, g, a, b, until, window) for g, a, b in found if not bots_only),
                _window_end(seconds, fake, ended),
            )
            elapsed = time.monotonic() - started
            watch.cancel()
            cpu = sum(_cpu_seconds(bot.pid) for bot in bots) - cpu
            own = time.process_time() - own
            calls = (
                ended[0] - calls
            )  # at the window's end: a page closing after it redraws its hand in the chat
            if web:  # every move by a page: the table message's latency counted from each
                window.moves = [(at, group) for at, _, _, _, group in pages.moves]
            turns, tables_shown = _shown_after_moves(fake, window.moves, {g: (a, b) for g, a, b in found})
            if web:
                turns, window.redraws = pages.latencies()
            moves = _moves_between(postgres or database, started_wall, started_wall + elapsed)
            bought = sum(1 for sent in fake.sent if sent.paid and started <= sent.at < started + elapsed)
            rss = sum(_peak_rss_mib(bot.pid) for bot in bots)
        finally:
            for bot in bots:
                bot.terminate()
                await bot.wait()
            await runner.cleanup()
    per_move = max(1, moves)
    return Figures(
        tables,
        limits,
        http,
        len(window.latencies) or len(window.moves),
        _quantile(window.latencies, 0.5),
        _quantile(window.latencies, 0.99),
        max(window.latencies, default=float("nan")),
        _quantile(window.redraws, 0.5),
        _quantile(window.redraws, 0.99),
        _quantile(turns, 0.5),
        _quantile(turns, 0.99),
        _quantile(tables_shown, 0.5),
        _quantile(tables_shown, 0.99),
        moves / elapsed,
        {method: n / per_move for method, n in calls.most_common()},
        sum(COST.get(method, 0) * n for method, n in calls.items()) / per_move,
        cpu / per_move * 1000,
        rss,
        window.rematches,
        window.noted / max(1, len(window.moves)),
        own / elapsed,
        _quantile(lags, 0.99),
        bought / per_move,
        bought * STARS_A_MESSAGE / tables / (elapsed / 3600),
    )


def _shown_after_moves(
    fake: FakeTelegram, moves: list[tuple[float, int]], players: dict[int, tuple[int, int]]
) -> tuple[list[float], list[float]]:
    """For each move: seconds from its press until a hand at its table with a running clock ("⏳": the player
    the table waits for) was next drawn, and until the group's table message was. Counted from the press, not
    the answer: the bot often sends the redraw before its answer reaches us. A draft is drawn when it is sent,
    so what is drawn after the press shows the move (but for a redraw in the few ms before the bot took it).
    A move after which nobody's clock runs (the game ended) has no turn; one whose turn was not drawn before
    the window closed is left out."""
    hands: dict[int, list[float]] = {}
    tables: dict[int, list[float]] = {}
    for sent in fake.sent:
        if not sent.ok:
            continue
        if sent.chat_id > 0 and "⏳" in sent.text:
            hands.setdefault(sent.chat_id, []).append(sent.at)
        elif sent.chat_id < 0 and sent.method == "editMessageText" and _is_table(sent.markup):
            tables.setdefault(sent.chat_id, []).append(sent.at)
    turns, shown = [], []
    for pressed, group in moves:
        drawn = [t for user in players[group] if (t := _first_after(hands.get(user, []), pressed))]
        if drawn:
            turns.append(min(drawn) - pressed)
        if t := _first_after(tables.get(group, []), pressed):
            shown.append(t - pressed)
    return turns, shown


async def _window_end(seconds: float, fake: FakeTelegram, ended: list[Counter[str]]) -> None:
    await asyncio.sleep(seconds)
    ended.append(Counter(fake.calls))


def _first_after(times: list[float], after: float) -> float | None:
    i = bisect.bisect_right(times, after)
    return times[i] if i < len(times) else None


def _is_table(markup: dict[str, object] | None) -> bool:
    """A running table's message: its keyboard is the one "🃏 My cards" button (bot.callbacks.CardsPress)."""
    rows = markup.get("inline_keyboard") if markup else None
    return bool(rows) and isinstance(decode(rows[0][0].get("callback_data", "")), CardsPress)  # type: ignore[index]


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


async def _loop_lag(lags: list[float]) -> None:
    """How late the bench's own loop wakes from 5 ms sleeps: the simulated users and the fake API share it."""
    while True:
        t = time.monotonic()
        await asyncio.sleep(0.005)
        lags.append(time.monotonic() - t - 0.005)


def _webhook(port: int) -> dict[str, str]:
    """The settings of one of several processes behind the load balancer (none for a lone process)."""
    if not port:
        return {}
    return {
        "WEBHOOK_URL": "https://bot.example/durak",
        "WEBHOOK_SECRET": "load-bench-secret",
        "WEBHOOK_LISTEN": "127.0.0.1",
        "WEBHOOK_PORT": str(port),
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _moves_between(database: Path | str, start: float, end: float) -> int:
    """Moves the engine accepted in the window: the bot logs each one (and nothing else) as an event."""
    if isinstance(database, str):
        import psycopg

        with psycopg.connect(database) as pg:
            found = pg.execute(
                "SELECT COUNT(*) FROM events WHERE at >= %s AND at < %s", (start, end)
            ).fetchone()
        return int(found[0]) if found else 0
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as conn:
        (count,) = conn.execute(
            "SELECT COUNT(*) FROM events WHERE at >= ? AND at < ?", (start, end)
        ).fetchone()
    return int(count)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, nargs="+", default=[50, 100, 200, 300])
    parser.add_argument("--seconds", type=float, default=60.0, help="the measured window for each N")
    parser.add_argument("--pace", type=float, nargs=2, default=(0.0, 0.0), metavar=("MIN", "MAX"))
    parser.add_argument("--limits", choices=["off", "on"], nargs="+", default=["off"])
    parser.add_argument("--http", choices=["httpx", "aiohttp"], nargs="+", default=["aiohttp"])
    parser.add_argument("--database", choices=["sqlite", "postgresql"], nargs="+", default=["sqlite"])
    parser.add_argument("--processes", type=int, choices=[1, 2], nargs="+", default=[1])
    parser.add_argument("--bots", action="store_true", help="computer players at every seat: bot moves/s")
    parser.add_argument("--think", type=float, default=0.1, help="with --bots: CPU seconds a decision")
    parser.add_argument(
        "--paid",
        type=int,
        nargs="+",
        default=[0],
        help="PAID_BROADCAST: new messages a second the bot may pay for past the free 30 (0: off)",
    )
    parser.add_argument(
        "--players",
        choices=["chat", "web"],
        nargs="+",
        default=["chat"],
        help="how the players play: their hand's buttons in the chat, or the web table's page (bot/web)",
    )
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(postgres.server()) if "postgresql" in args.database else None
        if "postgresql" in args.database and server is None:
            sys.exit(postgres.reason())
        measure(args, server)


def measure(args: argparse.Namespace, server: str | None) -> None:
    pace = (args.pace[0], args.pace[1])
    print(f"pace {pace[0]:g}–{pace[1]:g} s a move, {args.seconds:g} s measured per run")
    held: dict[tuple[str, bool, str], int] = {}
    turned: dict[tuple[str, bool, str], int] = {}
    modes = [
        (http, mode == "on", db if n == 1 else f"{db} ×{n}", n)
        for db in args.database
        for n in args.processes
        if n == 1 or db == "postgresql"
        for http in args.http
        for mode in args.limits
    ]
    for http, limits, db, processes in modes:
        for tables, players, paid in [
            (n, p, b) for n in args.tables for p in args.players for b in args.paid
        ]:
            with contextlib.ExitStack() as fresh:
                url = (
                    fresh.enter_context(postgres.fresh_database(server))
                    if server and not db.startswith("sqlite")
                    else None
                )
                f = asyncio.run(
                    run(
                        tables,
                        args.seconds,
                        limits,
                        pace,
                        http,
                        url,
                        processes,
                        args.bots,
                        args.think,
                        web=players == "web",
                        paid=paid,
                    )
                )
            calls = ", ".join(f"{m} {n:.2f}" for m, n in f.calls_per_move.items() if n >= 0.01)
            print(
                f"{f.tables:>5} tables, {players} players, {db}, {http}, limits {'on ' if limits else 'off'}"
                f"{f', paid up to {paid}/s' if paid else ''}: "
                f"{f.moves_per_second:7.1f} moves/s, press→answer p50 {f.p50 * 1e3:6.1f} p99 {f.p99 * 1e3:7.1f} "
                f"max {f.worst * 1e3:7.1f} ms ({f.presses:,} presses, {f.rematches} rematches), "
                f"press→own hand redrawn p50 {f.redraw_p50:.2f} p99 {f.redraw_p99:.2f} s "
                f"({f.noted_share:.0%} of the moves answered “✓ Played”), "
                f"turn latency p50 {f.turn_p50:.2f} p99 {f.turn_p99:.2f} s, "
                f"move→table p50 {f.table_p50:.2f} p99 {f.table_p99:.2f} s, "
                f"bot CPU {f.cpu_ms_per_move:.1f} ms/move, peak RSS {f.rss_mib:,.0f} MiB; "
                f"the bench's own CPU {f.bench_cpu_share:.0%} of a core, loop lag p99 {f.bench_lag_p99 * 1e3:.0f} ms\n"
                f"      Bot API calls per move: {calls}; budgeted {f.budgeted_per_move:.2f}"
                + (
                    f"; paid {f.paid_per_move:.2f} a move, {f.stars_per_table_hour:.1f} Stars a table-hour"
                    if paid
                    else ""
                ),
                flush=True,
            )
            if f.p99 < P99_TARGET:
                held[http, limits, db] = max(held.get((http, limits, db), 0), tables)
            if f.turn_p99 < TURN_TARGET:
                turned[http, limits, db] = max(turned.get((http, limits, db), 0), tables)
    for http, limits, db, _ in modes:
        n = held.get((http, limits, db))
        print(
            f"{db}, {http}, limits {'on' if limits else 'off'}: largest N held at p99 < {P99_TARGET * 1e3:.0f} ms: "
            f"{n if n is not None else 'none of those tried'}; at turn latency p99 < {TURN_TARGET:g} s: "
            f"{turned.get((http, limits, db), 'none of those tried')}"
        )


if __name__ == "__main__":
    main()
