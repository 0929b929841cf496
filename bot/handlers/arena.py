"""A group's arena (docs/groups.md, "Game night"): /arena opens one, and its message's buttons: join, leave,
berserk, "I'm back", and 🃏 My cards (the presser's hand at their arena table, seen by them alone)."""

from __future__ import annotations

from telegram import Update

from bot.callbacks import ArenaPress, number
from bot.handlers.common import Context, alert, answer, asked, opening, pressed, reply, thread_of
from bot.handlers.play import cards_again
from bot.service import Refusal, Verdict

MINUTES = (1, 180)  # how long an arena may run
DEFAULT_MINUTES, SIZES = 60, (2, 3)


def arena_args(text: str) -> tuple[int, int] | None:
    """``/arena [minutes] [players a table]``: (minutes, size), each its default when not given; None for
    anything else (the usage is shown)."""
    words = text.split()[1:]
    values = [number(w) for w in words]
    if len(values) > 2 or None in values:
        return None
    minutes = values[0] if values else DEFAULT_MINUTES
    size = values[1] if len(values) == 2 else SIZES[0]
    if minutes is None or size is None or not MINUTES[0] <= minutes <= MINUTES[1] or size not in SIZES:
        return None
    return minutes, size


async def arena_command(update: Update, context: Context) -> None:
    """/arena: whoever may open a table in the group opens an arena with its default options."""
    found = await asked(update, context)
    if found is None:
        return
    d, message, user = found
    t = await d.presenter.group_text(message.chat_id)
    args = arena_args(message.text or "")
    if args is None:
        await reply(d, message, t("arena.usage"))
        return
    options = await opening(context, d, message, user)
    if options is None:
        return
    minutes, size = args
    verdict = await d.service.arenas.open(message.chat_id, thread_of(message), user, options, size, minutes)
    if not verdict.ok:
        await reply(d, message, alert(t, verdict))


async def arena_press(update: Update, context: Context) -> None:
    """A button of an arena's message (``A:``): it counts for the presser only."""
    found = await pressed(update, context, ArenaPress)
    if found is None:
        return
    d, query, user, t, press = found
    arenas = d.service.arenas
    arena = arenas.of(press.arena_id)
    if arena is None:
        await answer(query, t, Verdict.refused(Refusal.ARENA_OVER))
        return
    if press.action == "cards":
        table_id = arenas.table_of(press.arena_id, user.id)
        if table_id is None:
            await query.answer(t("arena.no_game"), show_alert=True)
        else:
            await answer(query, t, await cards_again(d, table_id, user.id))
        return
    if press.action == "berserk":
        verdict = await arenas.berserk(press.arena_id, user.id)
        now = arenas.of(press.arena_id)  # as the press left it
        on = now is not None and any(p.berserk for p in now.row.players if p.user_id == user.id)
        said = "arena.berserk_on" if on else "arena.berserk_off"
    else:
        verdict = await arenas.set_state(press.arena_id, user.id, "left" if press.action == "leave" else "in")
        said = {"join": "arena.joined", "leave": "arena.left", "back": "arena.back_done"}[press.action]
    if verdict.ok:
        await query.answer(t(said))
    else:
        await answer(query, t, verdict)
