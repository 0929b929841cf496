"""Retention (MOVE_LOG_DAYS): old move logs go in small batches; results, ratings and statistics stay; /replay
of a pruned game says so."""

from __future__ import annotations

import random

import pytest

from bot import retention
from tests.bot.conftest import Harness
from tests.bot.players import GROUP, open_table, play_until_over, start


async def rows(h: Harness, sql: str) -> list[tuple[object, ...]]:
    return [tuple(r[k] for k in r.keys()) for r in await h.deps.storage.db.fetch_all(sql)]  # noqa: SIM118


async def test_old_move_logs_go_in_batches_and_nothing_else_does(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = harness.fake
    lobby = await open_table(harness, ["Ann", "Bob"])  # two games at two tables, one after the other
    await start(harness, lobby)
    await play_until_over(fake, GROUP, [1, 2], random.Random(1))
    fake.send(1, GROUP, "/newgame")
    second = await fake.wait_for(
        lambda: (m := fake.last(GROUP)) and m.buttons() and "New game" in m.text and m, what="a lobby"
    )
    fake.press(2, GROUP, second.message_id, f"L:{second.buttons()[0][1].split(':')[1]}:join")
    await fake.wait_for(lambda: "Bob" in fake.messages[GROUP][second.message_id].text, what="Bob")
    await start(harness, second)
    await play_until_over(fake, GROUP, [1, 2], random.Random(2))
    await harness.deps.outbox.idle()
    db = harness.deps.storage.db
    await db.execute("UPDATE games SET finished_at = finished_at - 40 * 86400 WHERE id = 1")
    kept = {
        table: await rows(harness, f"SELECT * FROM {table} ORDER BY 1, 2")
        for table in ("results", "result_players", "ratings")
    }
    stats = await harness.deps.storage.results.stats(1, GROUP)
    logged = await rows(harness, "SELECT game_id, count(*) FROM events GROUP BY game_id ORDER BY game_id")
    assert [g for g, _ in logged] == [1, 2]

    calls: list[int] = []
    prune_logs = harness.deps.storage.games.prune_logs

    async def counted(before: float, games: int = 50) -> int:
        calls.append(games)
        return await prune_logs(before, games)

    monkeypatch.setattr(harness.deps.storage.games, "prune_logs", counted)
    monkeypatch.setattr(retention, "BATCH", 1)
    removed = await retention.prune(harness.deps.storage, 30)
    assert removed == logged[0][1] and calls == [1, 1]  # one game a batch, then nothing left
    assert await rows(harness, "SELECT DISTINCT game_id FROM events") == [(2,)]
    for table, before in kept.items():
        assert await rows(harness, f"SELECT * FROM {table} ORDER BY 1, 2") == before, table
    assert await harness.deps.storage.results.stats(1, GROUP) == stats
    assert await retention.prune(harness.deps.storage, 30) == 0  # idempotent

    for game, expected in ((1, "no longer kept"), (2, "Replay of game #2")):
        sent = len(fake.bot_messages(GROUP))
        fake.send(1, GROUP, f"/replay {game}")
        reply = await fake.wait_for(lambda s=sent: fake.bot_messages(GROUP)[s:], what="/replay")  # type: ignore[misc]
        assert expected in reply[0].text, reply[0].text
