"""Play in the private chat: a move, the two steps of a cover (pick a card, back to the hand), "I'm back",
and the list of discarded cards."""

from __future__ import annotations

from typing import TypeVar

from telegram import CallbackQuery, Update

from bot.callbacks import BackPress, DiscardPress, HandPress, MovePress, PickPress
from bot.hand import discard_text
from bot.handlers.common import Context, Deps, answer, pressed
from bot.i18n import Text
from bot.service import Live, Outcome, Refusal
from engine.views import view


async def move_press(update: Update, context: Context) -> None:
    found = await pressed(update, context, MovePress)
    if found is not None:
        d, query, user, t, press = found
        await answer(query, t, await d.service.press(press.table_id, user.id, press.version, press.move))


async def back_press(update: Update, context: Context) -> None:
    found = await pressed(update, context, BackPress)
    if found is not None:
        d, query, user, t, press = found
        await answer(query, t, await d.service.reclaim(press.table_id, user.id))


async def pick_press(update: Update, context: Context) -> None:
    """A card that could cover several attack cards was picked (the keyboard asks which), or the player went
    back to the hand. Only the presenter remembers the pick: nothing about the table changes."""
    found = await _seated(update, context, PickPress | HandPress)  # type: ignore[arg-type]
    if found is None:
        return
    d, query, t, press, live, seat = found
    if isinstance(press, PickPress) and (live.game is None or press.version != live.game.version):
        await answer(query, t, Outcome.refused(Refusal.STALE))
        return
    d.presenter.pick(press.table_id, seat, press.card if isinstance(press, PickPress) else None)
    await answer(query, t, Outcome(True))


async def discard_press(update: Update, context: Context) -> None:
    """The discarded cards, as this seat saw them go, in an alert: no message is sent or edited."""
    found = await _seated(update, context, DiscardPress)
    if found is None:
        return
    _, query, t, _, live, seat = found
    if live.game is None or not live.table.options.discard_list:
        await answer(query, t, Outcome.refused(Refusal.STALE))
        return
    await query.answer(discard_text(view(live.game, seat), t), show_alert=True)


SeatPress = TypeVar("SeatPress", PickPress | HandPress, DiscardPress)


async def _seated(
    update: Update, context: Context, kind: type[SeatPress]
) -> tuple[Deps, CallbackQuery, Text, SeatPress, Live, int] | None:
    """A press of ``kind`` by a player seated at its table, with their game and seat; any other press is
    answered with the reason, and None returned."""
    found = await pressed(update, context, kind)
    if found is None:
        return None
    d, query, user, t, press = found
    seated: tuple[Live, int] | Refusal = d.service.seat_in_game(press.table_id, user.id)
    if isinstance(seated, Refusal):
        await answer(query, t, Outcome.refused(seated))
        return None
    live, seat = seated
    return d, query, t, press, live, seat
