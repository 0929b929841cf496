"""What an operator watches: /metrics, /livez and /readyz on METRICS_PORT, through the real PTB stack."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

import engine
from bot import logs
from bot.metrics import HEARD, REGISTRY
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
    # The process's own figures, the release and engine running, and how long since the outside was heard.
    assert sample("process_cpu_seconds_total") > 0 and sample("process_resident_memory_bytes") > 0
    assert (
        sample(
            "durak_build_info", version=logs.VERSION, engine="compiled" if engine.BUILD.compiled else "pure"
        )
        == 1
    )
    assert "durak_handler_exceptions_total" in body
    assert (
        0 <= sample("durak_last_update_seconds") < 60
        and 0 <= sample("durak_last_telegram_answer_seconds") < 60
    )
    # Never an id, a token or a name in a label.
    assert str(GROUP) not in body and "Ann" not in body and fake.users[1]["first_name"] not in body


async def test_readiness_says_which_part_is_unwell(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    for path in ("/readyz", "/healthz"):  # (/healthz: its name before liveness and readiness were apart)
        answer = await get(harness, path)
        assert answer.status_code == 200 and json.loads(answer.text) == {
            "ok": True,
            "database": "ok",
            "telegram": "ok",
            "outbox": "ok",
        }

    async def broken(*args: object) -> None:
        raise OSError("disk I/O error")

    with monkeypatch.context() as patch:
        patch.setattr(harness.deps.storage, "probe", broken)
        patch.setattr(harness.deps.outbox.lanes, "backlog", lambda: ({"urgent": 1}, 600.0))
        patch.setattr(harness.deps.outbox, "delivered_ago", lambda: 600.0)
        answer = await get(harness, "/readyz")
        found = json.loads(answer.text)
        assert answer.status_code == 503 and found["ok"] is False
        assert found["database"] == "failed: OSError" and "nothing sent for 600 s" in found["outbox"]
        # One chat that cannot be reached (or a message starved in a busy group) while others are sent to:
        # the metrics' business (durak_outbox_oldest_seconds), not a reason to take the process out.
        patch.setattr(harness.deps.outbox, "delivered_ago", lambda: 1.0)
        assert json.loads((await get(harness, "/readyz")).text)["outbox"] == "ok"
    # The database back, the outbox drained: well again.
    assert (await get(harness, "/readyz")).status_code == 200


async def test_readiness_asks_telegram_when_it_has_not_answered_for_a_while(harness: Harness) -> None:
    """A quiet bot calls nobody: readiness asks Telegram (getMe) once nothing has been heard from it for a
    minute, and says so when it does not answer (an outage: a proxy's 502 page); liveness is not affected."""
    fake = harness.fake
    HEARD.telegram = time.monotonic() - 120
    fake.outage = 502
    answer = await get(harness, "/readyz")
    assert answer.status_code == 503 and json.loads(answer.text)["telegram"].startswith("no answer for 12")
    assert (await get(harness, "/livez")).status_code == 200
    fake.outage = None
    answer = await get(harness, "/readyz")
    assert answer.status_code == 200, answer.text
    assert fake.calls["getMe"] >= 2  # asked each time (once at the start)


async def test_liveness_fails_when_polling_stops_asking_or_a_stop_hangs(harness: Harness) -> None:
    answer = await get(harness, "/livez")
    assert answer.status_code == 200 and json.loads(answer.text) == {
        "ok": True,
        "loop": "ok",
        "polling": "ok",
    }
    asked = HEARD.polled
    try:
        HEARD.polled = time.monotonic() - 600
        answer = await get(harness, "/livez")
        assert answer.status_code == 503 and json.loads(answer.text)["polling"] == "no getUpdates for 600 s"
    finally:
        HEARD.polled = asked
    HEARD.stopping = time.monotonic() - 45
    try:
        answer = await get(harness, "/livez")
        assert answer.status_code == 503 and json.loads(answer.text)["stopping"] == "stopping for 45 s"
    finally:
        HEARD.stopping = None


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


DOCS = Path(__file__).resolve().parents[2] / "docs"
UNDOCUMENTED_VALUES = {"method", "version"}  # Bot API methods, the release: open-ended by nature


def documented_metrics() -> dict[str, tuple[set[str], str]]:
    """docs/operations.md's metrics table: each metric's labels, and the row's text (where its values are)."""
    text = (DOCS / "operations.md").read_text(encoding="utf-8")
    section = text[text.index("## Watching it") : text.index("### Alerts and what to do")]
    found: dict[str, tuple[set[str], str]] = {}
    for row in section.splitlines():
        if not row.startswith("| `"):
            continue
        names, what = row.split(" | ", 1)
        for name, labels in re.findall(r"`(\w+)(?:\{([\w,]+)\})?`", names):
            family = re.sub(r"_total$", "", name)
            found[family] = (set(labels.split(",")) if labels else set(), what)
    return found


def exposed(body: str) -> dict[str, dict[str, set[str]]]:
    """Each metric family the bot exposes: its labels, and the values each took."""
    families: dict[str, dict[str, set[str]]] = {}
    for family in text_string_to_metric_families(body):
        labels = families.setdefault(family.name, {})
        for s in family.samples:
            for label, value in s.labels.items():
                if label not in ("le", "quantile"):
                    labels.setdefault(label, set()).add(value)
    return families


def metrics_in(expression: str) -> set[str]:
    """The metric families a PromQL expression reads (``up`` is Prometheus' own)."""
    names = set(re.findall(r"\b((?:durak|process)_\w+)", expression))
    return {re.sub(r"_(total|bucket|count|sum)$", "", n) for n in names}


async def test_the_docs_name_every_metric_label_and_value_the_bot_exposes_and_the_dashboard_loads(
    harness: Harness,
) -> None:
    """operations.md's table, its alert rules and docs/grafana-dashboard.json against the exposition after a
    game: every documented metric is exposed with the documented labels, every value a label took is named
    in its row, every durak_ metric is documented, and every alert and panel reads metrics that exist."""
    lobby = await open_table(harness, ["Ann", "Bob"])
    await start(harness, lobby)
    await harness.deps.outbox.idle()
    found = exposed((await get(harness, "/metrics")).text)
    documented = documented_metrics()
    for name, (labels, row) in documented.items():
        assert name in found, f"{name} is documented but not exposed"
        assert set(found[name]) == labels or not found[name], (name, labels, set(found[name]))  # (none yet)
        for label, values in found[name].items():
            if label not in UNDOCUMENTED_VALUES:
                assert all(re.search(rf"\b{re.escape(v)}\b", row) for v in values), (name, label, values)
    assert {n for n in found if n.startswith("durak_")} <= set(documented)
    text = (DOCS / "operations.md").read_text(encoding="utf-8")
    rules = text[text.index("groups:\n  - name: durak") :].split("```", 1)[0]
    for expression in re.findall(r"expr: (.+)", rules):
        assert metrics_in(expression) <= set(found), expression
    dashboard = json.loads((DOCS / "grafana-dashboard.json").read_text(encoding="utf-8"))
    targets = [t for p in dashboard["panels"] for t in p.get("targets", [])]
    assert len(targets) >= 20 and dashboard["uid"] == "durak-bot"
    for target in targets:
        assert metrics_in(target["expr"]) <= set(found), target["expr"]
    assert {m for t in targets for m in metrics_in(t["expr"])} >= {
        n for n in documented if n.startswith("durak_")
    }
