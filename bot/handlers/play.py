"""Play: a move, the two steps of a cover (pick a card, back to the hand), "I'm back", conceding, the list of
discarded cards, pressed under a hand in private or in the group (the same buttons, the same answers), and
"🃏 My cards" under the table, or /hand."""

from __future__ import annotations

from telegram import Update

from bot import ephemeral
from bot.callbacks import (
    CardsPress,
    ConcedePress,
    DiscardPress,
    MovePress,
    PickPress,
    ReclaimPress,
    UnpickPress,
)
from bot.deps import Deps
from bot.handlers.common import Context, alert, answer, asked, pressed, reply, thread_of
from bot.render.hand import discard_text
from bot.service import Refusal, Verdict


async def move_press(update: Update, context: Context) -> None:
    found = await pressed(update, context, MovePress)
    if found is not None:
        d, query, user, t, press = found
        verdict = await d.service.press(press.table_id, user.id, press.version, press.move)
        if verdict.ok and d.outbox.lagging():
            # The hand will show the move late (a busy token): the answer says at once that it counted.
            await query.answer(t("alert.busy"))
        else:
            await answer(query, t, verdict)


async def reclaim_press(update: Update, context: Context) -> None:
    found = await pressed(update, context, ReclaimPress)
    if found is not None:
        d, query, user, t, press = found
        await answer(query, t, await d.service.reclaim(press.table_id, user.id))


async def concede_press(update: Update, context: Context) -> None:
    """ "🏳 Concede" under a hand asks first; "Yes" concedes (docs/rules.md §9), "No" goes back to the hand."""
    found = await pressed(update, context, ConcedePress)
    if found is not None:
        d, query, user, t, press = found
        await answer(query, t, await d.service.concede(press.table_id, user.id, press.step))


async def cards_press(update: Update, context: Context) -> None:
    """ "🃏 My cards": the presser's hand comes afresh in the group, seen only by them; anyone not playing at
    the table is told so."""
    found = await pressed(update, context, CardsPress)
    if found is not None:
        d, query, user, t, press = found
        await answer(query, t, await cards_again(d, press.table_id, user.id))


async def cards_again(d: Deps, table_id: int, user_id: int) -> Verdict:
    """The player's hand comes afresh in the group, where the Bot API server can show one there."""
    verdict = await d.service.show_cards(table_id, user_id)
    if verdict.ok and not await d.outbox.support.check():
        return Verdict.refused(Refusal.NO_GROUP_CARDS)
    return verdict


async def hand_command(update: Update, context: Context) -> None:
    """/hand in a group: the sender's hand comes afresh there, seen only by them, as "🃏 My cards" does.
    Sent as an ephemeral command (Bot API 10.2; the group's menu marks it so) neither it nor its answer shows
    in the group, and any bot may answer it. Sent as an ordinary message (an older app), it is answered where
    the bot may send ephemeral messages at any time (an administrator), else told to press the button."""
    found = await asked(update, context)
    if found is None:
        return
    d, message, user = found
    unseen = ephemeral.message_id(message) is not None
    t = await (d.presenter.user_text(user.id) if unseen else d.presenter.group_text(message.chat_id))
    table = d.service.here(message.chat_id, thread_of(message))
    if table is None:
        verdict = Verdict.refused(Refusal.NO_TABLE)
    elif not unseen and not await d.members.bot_admin(message.chat_id):
        await reply(d, message, t("alert.hand_press"))
        return
    else:
        verdict = await cards_again(d, table.id, user.id)
    if not verdict.ok:
        await reply(d, message, alert(t, verdict))


async def pick_press(update: Update, context: Context) -> None:
    """A card that could cover several attack cards was picked (the keyboard asks which), or the player went
    back to the hand: only their screen changes."""
    found = await pressed(update, context, PickPress | UnpickPress)  # type: ignore[arg-type]
    if found is None:
        return
    d, query, user, t, press = found
    if isinstance(press, PickPress):
        verdict = await d.service.pick(press.table_id, user.id, press.version, press.card)
    else:
        verdict = await d.service.pick(press.table_id, user.id, None, None)
    await answer(query, t, verdict)


async def discard_press(update: Update, context: Context) -> None:
    """The discarded cards, as this seat saw them go, in an alert: no message is sent or edited."""
    found = await pressed(update, context, DiscardPress)
    if found is None:
        return
    d, query, user, t, press = found
    seen = d.service.seen(press.table_id, user.id)
    if isinstance(seen, Verdict):
        await answer(query, t, seen)
    elif not seen.options.discard_list:
        await answer(query, t, Verdict.refused(Refusal.STALE))
    else:
        await query.answer(discard_text(seen, t), show_alert=True)
