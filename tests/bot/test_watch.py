"""What an operator watches: /metrics and /healthz on METRICS_PORT, through the real PTB stack."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.metrics import REGISTRY
from tests.bot.conftest import Harness, running
from tests.bot.fake_telegram import ApiError
from tests.bot.players import GROUP, open_table, start


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    async for h in running(tmp_path, metrics_port=0):  # any free port; the server says which
        yield h


def sample(name: str, **labels: str) -> float:
    """A counter's value now (counters are the process's: tests compare before and after)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def get(h: Harness, path: str) -> httpx.Response:
    watch = h.deps.watch
    assert watch is not None
    async with httpx.AsyncClient() as client:
        return await client.get(f"http://127.0.0.1:{watch.port}{path}")


async def test_metrics_count_updates_calls_results_and_what_the_bot_holds(harness: Harness) -> None:
    fake = harness.fake
    commands = sample("durak_updates_total", kind="command")
    presses = sample("durak_press_answer_seconds_count")
    sends = sample("durak_telegram_calls_total", method="sendMessage", result="ok")
    refused = sample("durak_telegram_calls_total", method="sendMessage", result="429")
    writes = sample("durak_db_write_seconds_count")
    lobby = await open_table(harness, ["Ann", "Bob"])
    fake.fail_next("sendMessage", ApiError(429, "Too Many Requests: retry after 1", retry_after=1))
    await start(harness, lobby)
    await harness.deps.outbox.idle()
    body = (await get(harness, "/metrics")).text
    families = {f.name: f for f in text_string_to_metric_families(body)}  # prometheus_client's own parser
    assert {"durak_updates", "durak_telegram_calls", "durak_live_tables", "durak_outbox_queued"} <= set(
        families
    )
    assert 'durak_live_tables{status="playing"} 1.0' in body
    assert 'durak_outbox_queued{priority="urgent"}' in body and "durak_outbox_oldest_seconds" in body
    assert "durak_cluster_chats_owned 0.0" in body  # SQLite: one process, no leases
    assert sample("durak_updates_total", kind="command") >= commands + 3  # three /start and /newgame
    assert sample("durak_press_answer_seconds_count") >= presses + 2  # Bob's Join, Ann's Start
    assert sample("durak_telegram_calls_total", method="sendMessage", result="ok") > sends
    assert sample("durak_telegram_calls_total", method="sendMessage", result="429") == refused + 1
    assert sample("durak_db_write_seconds_count") > writes
    for name in ("durak_games_ended_total", "durak_bot_decision_seconds", "durak_cluster_leases_lost_total"):
        assert name in body or name.removesuffix("_total") in body, name
    # Never an id, a token or a name in a label.
    assert str(GROUP) not in body and "Ann" not in body and fake.users[1]["first_name"] not in body


async def test_health_says_which_part_is_unwell(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    answer = await get(harness, "/healthz")
    assert answer.status_code == 200 and json.loads(answer.text) == {
        "ok": True,
        "database": "ok",
        "outbox": "ok",
    }

    async def broken(*args: object) -> None:
        raise OSError("disk I/O error")

    with monkeypatch.context() as patch:
        patch.setattr(harness.deps.storage, "probe", broken)
        patch.setattr(harness.deps.outbox.lanes, "backlog", lambda: ({"urgent": 1}, 600.0))
        answer = await get(harness, "/healthz")
        found = json.loads(answer.text)
        assert answer.status_code == 503 and found["ok"] is False
        assert found["database"] == "failed: OSError" and "600 s" in found["outbox"]
    # The database back, the outbox drained: well again.
    assert (await get(harness, "/healthz")).status_code == 200


async def test_health_fails_while_another_program_holds_the_databases_write_lock(harness: Harness) -> None:
    """A read is answered through another connection's exclusive lock, and every move would fail: health
    asks for a write, so it says the database is unwell, and is well again once the lock is let go."""
    assert (await get(harness, "/healthz")).status_code == 200
    other = sqlite3.connect(harness.db_path, isolation_level=None, timeout=0)
    try:
        other.execute("BEGIN EXCLUSIVE")
        answer = await get(harness, "/healthz")
        assert answer.status_code == 503 and json.loads(answer.text)["database"] == "failed: TimeoutError"
    finally:
        other.execute("ROLLBACK")
        other.close()
    for _ in range(100):  # the late write goes through once the lock is gone
        if (await get(harness, "/healthz")).status_code == 200:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("health never came back")
