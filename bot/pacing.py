"""What a lane of the outbox may send next, and when: the order of its work and Telegram's limits on it.

A lane is a chat (its id), or an in-group receiver paced as a chat of its own (``("to", group, user)``).
Its work comes in order of urgency: what a person waits for (a reply, a result, the answer to a press that
Telegram lets the bot answer for 15 seconds only), a finished table's tidy-up (deletions: free), then
redraws by priority (bot.budget): in a group, a table that has waited, the hands of players who must act,
the table, the rest. Limits decide when each may go: a chat's spacing, a group's 20 a minute (part of them
kept for replies, and where in-group hands share it, for the turns), the redraw interval, and a 429's pause
on the whole chat.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal, TypeGuard

from bot import budget
from bot.kinds import FREE, TOLD_ONCE, MessageKind
from bot.messages import Draft, Pace

# (kind, table id, seat): a message of a table (bot.kinds), seat -1 for a kind the table has one of
Key = tuple[MessageKind, int, int]
# Whose pace a piece of work keeps: a chat's (its id), or an ephemeral receiver's in a group
# (``("to", group id, user id)``).
Lane = int | tuple[str, int, int]
EphemeralModel = Literal["receiver", "group"]


@dataclass(frozen=True, slots=True)
class Limits:
    """Telegram's budgets (the defaults), or scaled down for tests."""

    window: float = 60.0  # seconds over which a group's budget counts
    group_budget: int = 20  # sends and edits into one group per window
    reserve: int = 4  # of those, kept free for replies: redraws wait when only this many are left
    reserve_turns: int = 1  # ... and a turn's hand, which somebody waits for as for a reply, this many
    chat_spacing: float = 1.0  # seconds between two sends into one chat
    global_budget: int = 30  # sends into all chats per global window
    global_window: float = 1.0
    # New messages a global window may send past the free budget with Telegram's paid broadcasts
    # (``allow_paid_broadcast``, 0.1 Star each; 0: off). Telegram takes the flag on sends only, not on edits.
    paid_budget: int = 0
    group_redraw: float = 3.0  # seconds between two redraws of a group's own messages
    private_redraw: float = 1.0  # ... and in a private chat
    # How Telegram counts ephemeral messages (it does not say): inside the group's budget, or each receiver as
    # a private chat of its own. In a group's budget the hands of players who must act go first, then the
    # table, then the other hands, and a part of the budget is kept for the turns.
    ephemeral: EphemeralModel = "group"
    turns: int = 8  # of a group's budget, kept for the hands of players who must act (where hands share it)


@dataclass
class Queue(Pace):
    """One lane's work and pace."""

    # Work somebody waits for: the draft, who waits for it, and when it was queued.
    urgent: deque[tuple[Draft, asyncio.Future[int | None], float]] = field(default_factory=deque)
    dirty: dict[Key, int] = field(
        default_factory=dict
    )  # redraws in marking order, and their priority (bot.budget)
    asking: asyncio.Future[float] | None = None  # the slot of the overall budget this chat waits for
    since: dict[Key, float] = field(default_factory=dict)  # when each redraw was first marked
    last_redraw: float = 0.0
    failures: int = 0  # network failures in a row (a 429 is pacing, not a failure)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    hands_until: float = 0.0  # a group's lane: in-group hands share its budget (marked within a window)

    def settle(self, message_id: int | None) -> None:
        """The first work somebody waits for is done (sent, or given up): they learn the message id."""
        _, done, _ = self.urgent.popleft()
        self.failures = 0
        if not done.done():
            done.set_result(message_id)

    def release(self) -> None:
        """Nothing more goes out of this lane: nobody waits for ever on what it held."""
        for _, done, _ in self.urgent:
            if not done.done():
                done.set_result(None)


def wait(
    lane: Lane,
    chat: Queue,
    priority: int,
    limits: Limits,
    now: float,
    paused: float,
    *,
    overdue: bool = False,
) -> float:
    """Seconds until this chat may send the next piece of work, of ``priority`` (0: now), the overall budget
    aside. In a group, redraws leave ``reserve`` of its budget to replies (a turn's hand, ``reserve_turns``),
    and where in-group hands share it, the redraws nobody must act on leave ``turns`` more to the hands of
    those who must, except a table ``overdue`` (the whole group watches it); the group's own messages are
    spaced by ``group_redraw``, a turn's hand by the chat's spacing only."""
    while chat.sent and chat.sent[0] <= now - limits.window:
        chat.sent.popleft()
    ready = [
        chat.blocked_until,
        paused,
        (chat.sent[-1] + limits.chat_spacing) if chat.sent else 0.0,
    ]
    group, redraw = is_group(lane), priority > budget.URGENT
    if group:
        kept = limits.reserve_turns if priority == budget.SOON else limits.reserve if redraw else 0
        allowed = limits.group_budget - kept
        if priority > budget.SOON and chat.hands_until > now:
            allowed -= limits.turns // 2 if overdue else limits.turns
        if len(chat.sent) >= allowed:
            ready.append(chat.sent[len(chat.sent) - allowed] + limits.window)
    if redraw and not (group and priority == budget.SOON):
        spacing = limits.group_redraw if group else limits.private_redraw
        ready.append(chat.last_redraw + spacing)
    return max(0.0, max(ready) - now)


def next_work(
    lane: Lane, chat: Queue, limits: Limits, now: float, paused: float
) -> tuple[Key | None, int, float]:
    """The piece of work to send next (None: the first that somebody waits for), its priority, and the
    seconds until it may go: the first in order of preference that may go now, else the soonest."""
    if chat.urgent:
        return None, budget.URGENT, wait(lane, chat, budget.URGENT, limits, now, paused)
    key = told_once(chat)
    if key is not None:
        return key, budget.URGENT, wait(lane, chat, budget.URGENT, limits, now, paused)
    key = next((k for k in chat.dirty if k[0] in FREE), None)
    if key is not None:  # deletions: no budget or spacing to keep, only a 429's pause
        return key, budget.URGENT, max(0.0, chat.blocked_until - now, paused - now)
    waits: dict[tuple[int, bool], float] = {}  # a redraw's wait depends on its priority (and overdue) only
    best: tuple[Key | None, int, float] = (None, budget.LATER, float("inf"))
    for key in redraws(chat, is_group(lane), now - limits.group_redraw):
        priority = chat.dirty[key]
        # A table unchanged on the group's screen for half the window may use half the turns' part.
        overdue = key[0] == "table_message" and chat.since.get(key, now) <= now - limits.window / 2
        if (priority, overdue) not in waits:
            seconds = waits[priority, overdue] = wait(
                lane, chat, priority, limits, now, paused, overdue=overdue
            )
            if seconds == 0:
                return key, priority, 0.0
            if seconds < best[2]:
                best = (key, priority, seconds)
    return best


def is_group(lane: Lane) -> TypeGuard[int]:
    return isinstance(lane, int) and lane < 0


def chat_of(lane: Lane) -> int:
    """The chat a lane's work goes into (an in-group hand's: its group)."""
    return lane if isinstance(lane, int) else lane[1]


def redraws(chat: Queue, group: bool, stale: float) -> Iterator[Key]:
    """The redraws in the order they are to be drawn: in a group the table if it was marked ``stale`` or
    earlier, then the hands of players who must act, then the table, then the rest by priority (the hand of a
    player who just moved first), each priority in the order it was marked. (Where in-group hands share a
    group's budget, a turn's hand comes within a few seconds, and the table, which the whole group watches,
    still every few seconds.)"""
    dirty = chat.dirty
    message = next((k for k in dirty if k[0] == "table_message"), None) if group else None
    if message is not None and chat.since.get(message, stale) <= stale:
        yield message
    if group:
        yield from (k for k, priority in dirty.items() if priority <= budget.SOON)
    if message is not None:
        yield message
    yield from sorted(dirty, key=dirty.__getitem__)


def told_once(chat: Queue) -> Key | None:
    """A result or a broken-table notice, or a hand its player asked for this moment ("🃏 My cards", which
    Telegram lets the bot answer for 15 seconds only), waiting in the chat: they go before its redraws."""
    return next(
        (k for k, priority in chat.dirty.items() if k[0] in TOLD_ONCE or priority == budget.URGENT), None
    )
