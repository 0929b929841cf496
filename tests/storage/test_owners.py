"""Chat leases and forwarded updates: one owner per chat at a time, taken over once a lease runs out."""

from __future__ import annotations

from engine import Options
from storage import Storage
from storage.records import TableStatus
from tests.storage.conftest import make_users

LEASE = 10.0


async def test_one_owner_per_chat_until_its_lease_runs_out(store: Storage) -> None:
    owners = store.owners
    assert await owners.claim(-1, "a", LEASE, now=100) == "a"
    assert await owners.claim(-1, "b", LEASE, now=105) == "a"  # a holds it
    assert await owners.claim(-1, "a", LEASE, now=108) == "a"  # a keeps it (and extends it to 118)
    assert await owners.claim(-1, "b", LEASE, now=115) == "a"
    assert await owners.claim(-1, "b", LEASE, now=119) == "b"  # a stopped renewing
    assert await owners.renew("a", LEASE, now=120) == set()  # a learns it lost the chat
    assert await owners.renew("b", LEASE, now=120) == {-1}


async def test_renewing_keeps_every_chat_and_a_release_frees_them(store: Storage) -> None:
    owners = store.owners
    for chat in (-1, -2):
        await owners.claim(chat, "a", LEASE, now=100)
    assert await owners.renew("a", LEASE, now=109) == {-1, -2}
    assert await owners.claim(-2, "b", LEASE, now=115) == "a"  # renewed until 119
    await owners.release("a")
    assert await owners.claim(-2, "b", LEASE, now=116) == "b"


async def test_chats_with_live_tables_and_no_live_owner_are_orphaned(store: Storage) -> None:
    await make_users(store, 1)
    for chat in (-1, -2, -3):
        await store.chats.seen(chat, "group", "G")
        table = await store.tables.create(chat, 0, 1, Options())
    await store.tables.set_status(table.id, TableStatus.CANCELLED)  # chat -3 has nothing live
    owners = store.owners
    assert await owners.orphaned(now=100) == [-2, -1]
    await owners.claim(-1, "a", LEASE, now=100)
    assert await owners.orphaned(now=105) == [-2]
    assert await owners.orphaned(now=111) == [-2, -1]


async def test_forwarded_updates_are_taken_once_in_order_and_follow_the_chat(store: Storage) -> None:
    owners = store.owners
    await owners.forward("a", -1, '{"update_id": 1}')
    await owners.forward("a", -2, '{"update_id": 2}')
    await owners.forward("a", -1, '{"update_id": 3}')
    await owners.adopt(-1, "b")  # a stopped: b took chat -1 over
    assert await owners.forwarded("b") == ['{"update_id": 1}', '{"update_id": 3}']
    assert await owners.forwarded("b") == []
    assert await owners.forwarded("a") == ['{"update_id": 2}']


async def test_processes_alive_are_counted_until_they_stop_or_go_quiet(store: Storage) -> None:
    owners = store.owners
    assert await owners.alive("a", LEASE, now=100) == 1
    assert await owners.alive("b", LEASE, now=101) == 2
    assert await owners.alive("a", LEASE, now=112) == 1  # b has not said it is alive since 101
    await owners.release("a")
    assert await owners.alive("b", LEASE, now=113) == 1
