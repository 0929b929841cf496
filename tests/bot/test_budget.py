"""The overall sending budget: never past it however many chats ask at once, in turn, urgent work first."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine

from bot.budget import AGING, LATER, OWN, SOON, URGENT, Budget

WINDOW = 0.2


def most_in_a_window(times: list[float], window: float) -> int:
    times = sorted(times)
    return max((sum(1 for u in times if t <= u < t + window) for t in times), default=0)


async def test_a_hundred_chats_asking_at_once_never_go_past_the_budget_and_all_get_their_turn() -> None:
    budget = Budget(5, WINDOW, time.monotonic)
    sent: list[float] = []

    async def chat() -> None:
        slot = await budget.take(LATER)
        sent.append(time.monotonic())
        await asyncio.sleep(0.001)  # the request on its way
        budget.done(slot, 1)

    started = time.monotonic()
    await asyncio.wait_for(asyncio.gather(*(chat() for _ in range(100))), 10)
    assert len(sent) == 100
    assert most_in_a_window(sent, WINDOW) <= 5
    # Granted as slots free up, not in bursts a window apart: 100 sends at 5 a window take about 20 windows.
    assert time.monotonic() - started < 25 * WINDOW


async def test_replies_then_hands_that_must_act_are_granted_before_redraws_that_asked_earlier() -> None:
    budget = Budget(1, WINDOW, time.monotonic)
    order: list[str] = []
    first = await budget.take(LATER)

    async def ask(name: str, priority: int) -> None:
        slot = await budget.take(priority)
        order.append(name)
        budget.done(slot, 1)

    redraws = [asyncio.create_task(ask(f"redraw {n}", LATER)) for n in range(3)]
    await asyncio.sleep(0)
    to_act = asyncio.create_task(ask("to act", SOON))
    reply = asyncio.create_task(ask("reply", URGENT))
    await asyncio.sleep(0)
    budget.done(first, 1)
    await asyncio.wait_for(asyncio.gather(*redraws, to_act, reply), 10)
    assert order == ["reply", "to act", "redraw 0", "redraw 1", "redraw 2"]


def granted_in_turn(
    budget: Budget, order: list[str]
) -> Callable[[str, asyncio.Future[float]], Coroutine[None, None, None]]:
    """Await a slot, note its name in ``order`` when granted, and hand it back unused."""

    async def wait(name: str, slot: asyncio.Future[float]) -> None:
        stamp = await slot
        order.append(name)
        budget.done(stamp, 0)

    return wait


async def test_a_redraw_that_becomes_a_turn_while_it_waits_moves_up_to_the_turns() -> None:
    budget = Budget(1, 10.0, time.monotonic)
    held = await budget.take(LATER)
    order: list[str] = []
    wait = granted_in_turn(budget, order)

    tables = [asyncio.create_task(wait(f"table {n}", budget.ask(LATER))) for n in range(2)]
    mover = asyncio.create_task(wait("the mover's hand", budget.ask(OWN)))
    hand = budget.ask(LATER)  # the other player's hand, redrawn for the mover's move ...
    waiting = asyncio.create_task(wait("the next player's hand", hand))
    budget.promote(hand, SOON)  # ... and now it is their turn
    budget.promote(hand, LATER)  # never moved down
    budget.done(held, 0)
    await asyncio.wait_for(asyncio.gather(*tables, mover, waiting), 5)
    assert order == ["the next player's hand", "the mover's hand", "table 0", "table 1"]


async def test_a_redraw_that_waited_long_moves_up_so_a_full_token_still_redraws_tables() -> None:
    now = [0.0]
    budget = Budget(1, 10.0, lambda: now[0])
    held = await budget.take(LATER)
    order: list[str] = []
    wait = granted_in_turn(budget, order)

    table = asyncio.create_task(wait("table", budget.ask(LATER)))
    now[0] = 1.0
    first = asyncio.create_task(wait("own 1", budget.ask(OWN)))
    now[0] = 1.0 + AGING  # the table has waited AGING seconds: it moves up when the queues are next looked at
    second = asyncio.create_task(wait("own 2", budget.ask(OWN)))
    budget.done(held, 0)
    await asyncio.wait_for(asyncio.gather(table, first, second), 5)
    assert order == ["own 1", "table", "own 2"]


async def test_the_last_tenth_of_the_budget_is_kept_for_turns_and_replies() -> None:
    now = [0.0]
    budget = Budget(30, 1.0, lambda: now[0])
    for n in range(27):  # spread over the window, as SPREAD asks
        now[0] = n * 0.035
        budget.done(await budget.take(LATER), 1)
    now[0] = 0.95
    redraw = budget.ask(LATER)
    own = budget.ask(OWN)
    turn = budget.ask(SOON)
    assert turn.done() and not redraw.done() and not own.done()
    budget.done(turn.result(), 1)
    now[0] = 1.02  # the first send left the window: a reply may go, a redraw still may not
    assert budget.ask(URGENT).done() and not redraw.done()


async def test_a_slot_that_sent_nothing_goes_to_the_next_at_once() -> None:
    budget = Budget(1, 10.0, time.monotonic)  # a used slot would hold for ten seconds
    slot = await budget.take(LATER)
    waiter = asyncio.create_task(budget.take(LATER))
    await asyncio.sleep(0.01)
    assert not waiter.done() and budget.waiting() == 1
    budget.done(slot, 0)  # the redraw showed that already: nothing went out
    await asyncio.wait_for(waiter, 1)


async def test_a_cancelled_waiter_does_not_hold_the_queue() -> None:
    budget = Budget(1, WINDOW, time.monotonic)
    slot = await budget.take(LATER)
    gone = asyncio.create_task(budget.take(LATER))
    after = asyncio.create_task(budget.take(LATER))
    await asyncio.sleep(0)
    gone.cancel()
    budget.done(slot, 0)
    await asyncio.wait_for(after, 1)


async def test_two_processes_sharing_the_token_each_keep_half_of_the_budget() -> None:
    budget = Budget(6, WINDOW, time.monotonic)
    budget.share(2)  # bot/cluster.py: another process sends for the same token
    sent: list[float] = []

    async def chat() -> None:
        slot = await budget.take(LATER)
        sent.append(time.monotonic())
        budget.done(slot, 1)

    await asyncio.wait_for(asyncio.gather(*(chat() for _ in range(30))), 10)
    assert most_in_a_window(sent, WINDOW) <= 3
    budget.share(1)  # the other one is gone: the whole budget again
    sent.clear()
    await asyncio.sleep(WINDOW)
    await asyncio.wait_for(asyncio.gather(*(chat() for _ in range(30))), 10)
    assert most_in_a_window(sent, WINDOW) == 6
