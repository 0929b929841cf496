"""Telegram's paid broadcasts (PAID_BROADCAST), for the outbox: when the token's free 30 messages a second are
spent, a new message somebody waits for may go at once with ``allow_paid_broadcast``, at 0.1 Star, up to the
operator's ceiling a second. Telegram takes the flag on sends only: a reply, or a turn's hand sent anew to
sound (bot.sounds) qualifies; an edit (the mover's hand, a group's table) waits for the free budget, and so
does an in-group hand. Where Telegram refuses to be paid (paid broadcasts off in @BotFather, no Stars left),
the work goes within the free budget and nothing more is paid for until a restart."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from bot import budget, metrics
from bot.budget import STARS_A_MESSAGE, Budget
from bot.kinds import PAYABLE
from bot.messages import Draft
from bot.pacing import Key, Queue

log = logging.getLogger(__name__)


class Paid:
    def __init__(self, ceiling: int, window: float, clock: Callable[[], float]) -> None:
        self.budget = Budget(ceiling, window, clock) if ceiling else None

    def pools(self, free: Budget) -> tuple[Budget, ...]:
        """The budgets a chat may wait in: the free one, and the paid one where it is on."""
        return (free,) if self.budget is None else (free, self.budget)

    async def payable(
        self,
        free: Budget,
        chat: Queue,
        key: Key | None,
        priority: int,
        source: Callable[[Key], Awaitable[Draft | None]],
    ) -> tuple[Key | None, Draft] | None:
        """The chat's next work (``key``, unless a reply comes first), if it may be paid for now: the free
        budget is spent, and it is a new message somebody waits for. Its key (None: a reply) and draft; a
        hand's draft is drawn here to see whether it is a new message (drawing it again changes nothing)."""
        if self.budget is None or priority > budget.SOON or free.free_in(priority) == 0:
            return None
        draft: Draft | None
        if chat.urgent:
            key, draft = None, chat.urgent[0][0]
        elif key is None or key[0] not in PAYABLE:
            return None
        else:
            draft = await source(key)
        if draft is None or draft.message_id is not None or draft.receiver is not None or draft.deletes:
            return None
        return key, draft

    def spent(self, paid: bool) -> None:
        """A message went out; ``paid``: as a paid broadcast (counted in /metrics, in Stars)."""
        if paid:
            metrics.PAID_STARS.inc(STARS_A_MESSAGE)

    def refused(self, reason: str) -> None:
        if self.budget is not None:
            log.error("Telegram refused a paid broadcast (%s): within the free budget from now on", reason)
            self.budget = None
