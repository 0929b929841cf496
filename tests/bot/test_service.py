"""The table service on its own: a real database, and a fake scheduler, presenter and clock, so each case says
exactly what the service decided, scheduled and asked to redraw."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.changes import changes
from bot.service import ABANDONED, Published, Refusal, TableService, play
from bot.thinking import Thinker
from engine import Options, cards, parse_cards, parse_move
from engine.ai import HeuristicPlayer
from engine.views import view
from storage import Storage
from storage.records import TableStatus, User

GROUP = -100


@dataclass
class Scheduled:
    deadlines: dict[int, tuple[int, float | None]] = field(default_factory=dict)
    bot_turns: list[tuple[int, int, float]] = field(default_factory=list)
    rematches: dict[int, float] = field(default_factory=dict)
    ticks: dict[int, tuple[int, float | None]] = field(default_factory=dict)

    def tick(self, table_id: int, version: int, at: float | None) -> None:
        self.ticks[table_id] = (version, at)

    def deadline(self, table_id: int, version: int, at: float | None) -> None:
        self.deadlines[table_id] = (version, at)

    def bot_turn(self, table_id: int, version: int, delay: float) -> None:
        self.bot_turns.append((table_id, version, delay))

    def rematch_expiry(self, table_id: int, at: float) -> None:
        self.rematches[table_id] = at

    def arena_end(self, arena_id: int, at: float) -> None:
        self.rematches[-arena_id] = at


@dataclass
class Marked:
    """A watcher that notes which screens each published record changes (bot.changes)."""

    marks: list[tuple[str, int]] = field(default_factory=list)
    records: list[Published] = field(default_factory=list)

    def published(self, record: Published) -> None:
        before = next((r for r in reversed(self.records) if r.id == record.id), None)
        self.records.append(record)
        change = changes(before, record)
        self.marks += [("table", record.id)] if change.table_message is not None else []
        self.marks += [("hands", record.id)] if change.hands else []
        self.marks += [(f"cards {seat}", record.id) for seat in change.asked]
        self.marks += [(name, record.id) for name in ("result", "broken", "tidy") if getattr(change, name)]

    def forgotten(self, table_id: int) -> None:
        self.marks.append(("forgotten", table_id))

    def tidy(self, chat_id: int, table_id: int) -> None:
        self.marks.append(("tidy", table_id))


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class World:
    storage: Storage
    service: TableService
    scheduled: Scheduled
    marked: Marked
    clock: Clock


def service_over(storage: Storage) -> tuple[TableService, Scheduled, Marked, Clock]:
    scheduled, marked, clock = Scheduled(), Marked(), Clock()
    service = TableService(storage, scheduled, marked, bot_delay=0.0, thinker=Thinker(0, 0.01), clock=clock)
    return service, scheduled, marked, clock


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    storage = await Storage.open(tmp_path / "service.sqlite3")
    await storage.chats.seen(GROUP, "group", "Friends")
    service, scheduled, marked, clock = service_over(storage)
    yield World(storage, service, scheduled, marked, clock)
    await storage.close()


async def player(storage: Storage, user_id: int, name: str) -> User:
    user = await storage.users.seen(User(id=user_id, first_name=name))
    await storage.users.set_started(user_id)
    return (await storage.users.get(user_id)) or user


async def dealt(w: World, players: int = 2, **options: object) -> int:
    users = [await player(w.storage, i, name) for i, name in enumerate(["Ann", "Bob", "Cid"][:players], 1)]
    opened = await w.service.open_lobby(GROUP, 0, users[0], "Friends", Options(**options))
    assert opened.ok and opened.table_id is not None
    for user in users[1:]:
        assert (await w.service.join(opened.table_id, user)).ok
    assert (await w.service.start(opened.table_id, 1, False)).ok
    return opened.table_id


def next_move(w: World, table_id: int) -> tuple[int, int, int]:
    """(user, version, move) of a sensible move of the seat on the clock."""
    live = w.service.tables[table_id]
    assert live.game is not None
    seat = live.game.to_act()[0]
    user = live.row.seats[seat].user_id
    assert user is not None
    return user, live.game.version, HeuristicPlayer().choose(view(live.game, seat))


async def test_a_move_no_longer_legal_is_refused_with_its_reason_and_changes_nothing(world: World) -> None:
    tid = await dealt(world)
    user, version, move = next_move(world, tid)
    assert (await world.service.press(tid, user, version, move)).ok
    live = world.service.tables[tid]
    assert live.game is not None and live.game.version == version + 1
    published = len(world.marked.records)
    verdict = await world.service.press(tid, user, version, move)  # the same lead again
    assert verdict.refusal is Refusal.ILLEGAL and verdict.reason and live.game.version == version + 1
    assert ("hands", tid) in world.marked.marks  # every hand is drawn from the move's record
    assert len(world.marked.records) == published  # ... and the refused press published nothing
    # The deadline follows the game: the newest version, a full move timer from now.
    assert world.scheduled.deadlines[tid] == (version + 1, world.clock.now + 30)


async def test_two_presses_at_once_one_is_taken_the_other_refused(world: World) -> None:
    tid = await dealt(world)
    user, version, move = next_move(world, tid)
    first, second = await asyncio.gather(
        world.service.press(tid, user, version, move), world.service.press(tid, user, version, move)
    )
    assert sorted([first.ok, second.ok]) == [False, True]
    assert (first.refusal or second.refusal) is Refusal.ILLEGAL
    row = await world.storage.games.current(tid)
    assert row is not None and row.seq == 1  # logged once


async def test_a_press_on_an_older_keyboard_counts_while_its_move_is_still_legal(world: World) -> None:
    """Ann leads 6♠ on Bob; Cid's keyboard then offers 6♣ to throw in. Bob covers first; Cid's press, made on
    the keyboard drawn before the cover, is still a legal move and is taken."""
    users = [await player(world.storage, i, name) for i, name in enumerate(["Ann", "Bob", "Cid"], 1)]
    opened = await world.service.open_lobby(GROUP, 0, users[0], "Friends", Options())
    tid = opened.table_id
    assert tid is not None
    for user in users[1:]:
        await world.service.join(tid, user)
    hands = "6h 6s 9d Td Jd Qd  7s 8c 9c Tc Jc Qc  6c 8d Kd Ad Ks As  7h"
    rest = [c for c in cards.deck(36) if c not in parse_cards(hands)]
    assert (await world.service.start(tid, 1, False, deck=[*parse_cards(hands), *rest])).ok
    live = world.service.tables[tid]
    assert live.game is not None and live.game.lead == 0
    assert (await world.service.press(tid, 1, 0, parse_move("l6s"))).ok
    assert (await world.service.press(tid, 2, 1, parse_move("c6s7s"))).ok
    assert (await world.service.press(tid, 3, 1, parse_move("t6c"))).ok  # drawn at version 1, taken at 2
    assert live.game.version == 3 and live.game.attack == parse_cards("6s 6c")


async def test_a_press_by_someone_not_seated_is_refused(world: World) -> None:
    tid = await dealt(world)
    _, version, move = next_move(world, tid)
    assert (await world.service.press(tid, 99, version, move)).refusal is Refusal.NOT_YOURS
    assert (await world.service.press(tid + 1, 1, version, move)).refusal is Refusal.NO_TABLE


async def test_a_finished_game_is_rated_redrawn_and_closed(world: World) -> None:
    tid = await dealt(world)
    live = world.service.tables[tid]
    while live.game is not None and not live.game.over:
        assert (await world.service.press(tid, *next_move(world, tid))).ok
    assert live.result is not None and live.row.status is TableStatus.FINISHED
    assert ("result", tid) in world.marked.marks
    assert world.scheduled.deadlines[tid][1] is None  # no timer after the end
    assert set(live.ratings) == {0, 1}
    for seat, (before, after) in live.ratings.items():
        won = live.result.places[seat] == 1 and not live.result.draw
        assert (after > before) == won or live.result.draw
    stats = await world.storage.results.stats(1, GROUP)
    assert stats and stats[0].games == 1


async def test_a_failed_write_is_refused_and_the_timer_is_set_again_later(world: World) -> None:
    tid = await dealt(world)
    user, version, move = next_move(world, tid)
    original = world.storage.games.record

    async def full_disk(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    world.storage.games.record = full_disk  # type: ignore[method-assign]
    live = world.service.tables[tid]
    live.clock.deadline = world.clock.now  # the timer has run out
    await world.service.timeout(tid, version)
    assert live.game is not None and live.game.version == version
    assert world.scheduled.deadlines[tid] == (version, world.clock.now + 1)
    assert (await world.service.press(tid, user, version, move)).refusal is Refusal.SAVE_FAILED
    assert world.scheduled.deadlines[tid] == (version, world.clock.now + 2)  # backing off
    world.storage.games.record = original  # type: ignore[method-assign]
    assert (await world.service.press(tid, user, version, move)).ok and live.clock.failures == 0


async def test_a_broken_snapshot_at_restore_is_marked_told_and_refuses_moves(
    world: World, tmp_path: Path
) -> None:
    tid = await dealt(world)
    await world.service.press(tid, *next_move(world, tid))
    await world.storage.db.execute("UPDATE games SET snapshot = '{\"schema\": 0}' WHERE table_id = ?", (tid,))
    service, _, marked, _ = service_over(world.storage)
    broken = await service.restore()
    assert [(t.id, "unsupported snapshot schema" in reason) for t, reason in broken] == [(tid, True)]
    assert {("broken", tid), ("table", tid), ("hands", tid)} <= set(marked.marks)
    table = await world.storage.tables.get(tid)
    assert table is not None and table.status is TableStatus.BROKEN
    assert (await service.press(tid, 1, 1, 0)).refusal in (Refusal.NO_TABLE, Refusal.CANCELLED)


async def test_a_cancelled_game_refuses_every_kind_of_action(world: World) -> None:
    tid = await dealt(world)
    user, version, move = next_move(world, tid)
    assert (await world.service.cancel(tid, 2, False)).refusal is Refusal.CREATOR_ONLY
    assert (await world.service.cancel(tid, 1, False)).ok
    assert world.scheduled.deadlines[tid] == (-1, None)
    assert (await world.service.press(tid, user, version, move)).refusal is Refusal.CANCELLED
    assert (await world.service.reclaim(tid, user)).refusal is Refusal.CANCELLED
    await world.service.timeout(tid, version)
    await world.service.bot_turn(tid, version)
    live = world.service.tables[tid]
    assert live.game is not None and live.game.version == version
    assert (await world.service.cancel(tid, 1, False)).refusal is Refusal.NO_TABLE  # once is enough


async def test_a_decided_game_takes_for_the_defender_instead_of_asking(world: World) -> None:
    """docs/rules.md §7: once nothing the defender does changes the result, nobody is asked to press Take."""
    for _ in range(20):
        tid = await dealt(world)
        live = world.service.tables[tid]
        assert live.game is not None
        while not live.game.over and not live.game.decided():
            assert (await world.service.press(tid, *next_move(world, tid))).ok
        if live.game.decided():
            break
    else:
        pytest.fail("no game came to a decided end")
    version = live.game.version
    assert world.scheduled.bot_turns[-1] == (tid, version, world.service.env.bot_delay)
    await world.service.bot_turn(tid, version)
    assert live.game.over and live.result is not None
    assert live.result.durak == live.game.defender or live.result.losers == (live.game.defender,)
    row = await world.storage.games.current(tid)
    assert row is not None
    log = await world.storage.games.log(row.id)
    assert log[-1].action == "x" and log[-1].seat == live.game.defender  # logged as the defender's Take


@pytest.mark.parametrize("expiry_first", [False, True])
async def test_a_rematch_confirmed_as_its_time_runs_out_keeps_the_confirmer_and_drops_the_rest(
    world: World, expiry_first: bool
) -> None:
    users = [await player(world.storage, i, name) for i, name in enumerate(["Ann", "Bob", "Cid"], 1)]
    tid = await dealt(world, players=3)
    live = world.service.tables[tid]
    while live.game is not None and not live.game.over:
        assert (await world.service.press(tid, *next_move(world, tid))).ok
    rematch = await world.service.rematch(tid, users[0])
    assert rematch.ok and rematch.table_id is not None
    new = world.service.tables[rematch.table_id]
    assert new.lobby.pending == {2, 3}
    if expiry_first:
        _, confirmed = await asyncio.gather(
            world.service.expire_rematch(new.id), world.service.join(new.id, users[1])
        )
    else:
        confirmed, _ = await asyncio.gather(
            world.service.join(new.id, users[1]), world.service.expire_rematch(new.id)
        )
    assert confirmed.ok  # seated either way: as a confirmation, or joining the lobby the expiry left
    assert [s.user_id for s in new.row.seats] == [1, 2] and not new.lobby.pending
    stored = await world.storage.tables.get(new.id)
    assert stored == new.row


async def test_once_nobody_plays_the_bots_play_it_out_at_once_and_it_is_not_rated(world: World) -> None:
    """docs/rules.md §9, §10: the last person to leave leaves a game of bots, played without pauses."""
    tid = await dealt(world)
    live = world.service.tables[tid]
    assert (await world.service.leave(tid, 1)).ok
    assert live.rated  # Bob still plays
    assert (await world.service.leave(tid, 2)).ok
    row = await world.storage.games.current(tid)
    assert not live.rated and row is not None and not row.rated
    while live.game is not None and not live.game.over:
        table_id, version, delay = world.scheduled.bot_turns[-1]
        assert (table_id, version, delay) == (tid, live.game.version, 0.0)
        await world.service.bot_turn(tid, version)
    assert live.result is not None and not live.ratings  # nobody's rating moved


async def test_a_game_only_bots_play_that_gets_nowhere_is_stopped_and_everybody_told(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(play, "STALL_BOUTS", 3)
    tid = await dealt(world, players=3)
    live = world.service.tables[tid]
    for user in (1, 2, 3):
        assert (await world.service.leave(tid, user)).ok
    bouts = 0
    while live.row.status is TableStatus.PLAYING:  # every seat's time runs out: defenders take, nothing goes
        assert live.game is not None and not live.game.over and live.game.discard == 0
        bouts = live.game.bout
        await world.service.timeout(tid, live.game.version)
    assert live.row.status is TableStatus.CANCELLED and live.row.broken_reason == ABANDONED
    assert live.game is not None and live.game.bout == bouts + 1 >= 3 and not live.game.over
    assert ("hands", tid) in world.marked.marks and world.scheduled.deadlines[tid][1] is None
    assert await world.storage.results.stats(1, GROUP) == []
