"""Play: a move, the two steps of a cover (pick a card, back to the hand), "I'm back", conceding, the list of
discarded cards, pressed under a hand in private or in the group (the same buttons, the same answers), and
"🃏 My cards" under the table."""

from __future__ import annotations

from telegram import Update

from bot.callbacks import BackPress, CardsPress, ConcedePress, DiscardPress, HandPress, MovePress, PickPress
from bot.handlers.common import Context, answer, pressed
from bot.render.hand import discard_text
from bot.service import Outcome, Refusal
from engine.views import view


async def move_press(update: Update, context: Context) -> None:
    found = await pressed(update, context, MovePress)
    if found is not None:
        d, query, user, t, press = found
        outcome = await d.service.press(press.table_id, user.id, press.version, press.move)
        if outcome.ok and d.outbox.lagging():
            # The hand will show the move late (a busy token): the answer says at once that it counted.
            await query.answer(t("alert.busy"))
        else:
            await answer(query, t, outcome)


async def back_press(update: Update, context: Context) -> None:
    found = await pressed(update, context, BackPress)
    if found is not None:
        d, query, user, t, press = found
        await answer(query, t, await d.service.reclaim(press.table_id, user.id))


async def concede_press(update: Update, context: Context) -> None:
    """ "🏳 Concede" under a hand asks first; "Yes" concedes (docs/rules.md §9), "No" goes back to the hand."""
    found = await pressed(update, context, ConcedePress)
    if found is not None:
        d, query, user, t, press = found
        table = d.service.table(press.table_id)
        outcome = (
            await table.concede(user.id, press.step)
            if table is not None
            else Outcome.refused(Refusal.NO_TABLE)
        )
        await answer(query, t, outcome)


async def cards_press(update: Update, context: Context) -> None:
    """ "🃏 My cards": the presser's hand comes afresh in the group, seen only by them; anyone not playing at
    the table is told so."""
    found = await pressed(update, context, CardsPress)
    if found is not None:
        d, query, user, t, press = found
        table = d.service.table(press.table_id)
        outcome = await table.show_cards(user.id) if table is not None else Outcome.refused(Refusal.NO_TABLE)
        if outcome.ok and not await d.outbox.support.check():
            outcome = Outcome.refused(Refusal.NO_GROUP_CARDS)
        await answer(query, t, outcome)


async def pick_press(update: Update, context: Context) -> None:
    """A card that could cover several attack cards was picked (the keyboard asks which), or the player went
    back to the hand: only their screen changes."""
    found = await pressed(update, context, PickPress | HandPress)  # type: ignore[arg-type]
    if found is None:
        return
    d, query, user, t, press = found
    table = d.service.table(press.table_id)
    if table is None:
        outcome = Outcome.refused(Refusal.NO_TABLE)
    elif isinstance(press, PickPress):
        outcome = await table.pick(user.id, press.version, press.card)
    else:
        outcome = await table.pick(user.id, None, None)
    await answer(query, t, outcome)


async def discard_press(update: Update, context: Context) -> None:
    """The discarded cards, as this seat saw them go, in an alert: no message is sent or edited."""
    found = await pressed(update, context, DiscardPress)
    if found is None:
        return
    d, query, user, t, press = found
    table = d.service.table(press.table_id)
    seat = table.seat_in_game(user.id) if table is not None else Refusal.NO_TABLE
    if isinstance(seat, Refusal):
        await answer(query, t, Outcome.refused(seat))
    elif table is None or table.game is None or not table.row.options.discard_list:
        await answer(query, t, Outcome.refused(Refusal.STALE))
    else:
        await query.answer(discard_text(view(table.game, seat), t), show_alert=True)
