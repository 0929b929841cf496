"""Which screens a change touches: two records a table published, the one before and the new one, compared by
what each screen shows. Pure: the presenter marks what this says in the outbox, and a screen drawn from a
record is drawn again exactly when what it shows may differ."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from bot import budget
from bot.service import CLOSED, Published
from storage.records import TableStatus


@dataclass(frozen=True, slots=True)
class Changes:
    table_message: int | None = None  # the table message's priority (bot.budget), None: it shows the same
    arena: bool = False  # an arena's table: its line in the arena's message may show something else
    # seat -> priority: the hands that show something else
    hands: dict[int, int] = field(default_factory=dict)
    asked: tuple[int, ...] = ()  # seats whose player asked for their hand in the group afresh (a press)
    result: bool = False
    broken: bool = False  # the table's game could not be loaded: the group is told once
    tidy: bool = False  # the table ended: the group's messages that led to it go (where it keeps tidy)
    sent_only: bool = False  # ended without a result: only hand messages already sent are corrected


def changes(old: Published | None, new: Published) -> Changes:
    """What ``new`` changes on the screens ``old`` was drawn on (None: nothing of the table was drawn since
    the process started, so every screen it has is drawn)."""
    lobby = new.row.status is TableStatus.LOBBY or (old is not None and old.row.status is TableStatus.LOBBY)
    table_message = None
    if old is None or _public(old) != _public(new):
        # A lobby (and the deal that ends it) changes at somebody's press, who waits to see it.
        table_message = budget.URGENT if lobby else budget.LATER
    closed = new.row.status in CLOSED
    hands: dict[int, int] = {}
    if new.game is not None or closed:
        to_act = new.to_act()
        mover = new.recent[-1].seat if new.recent else None
        for at in new.row.seats:
            if old is None or _hand(old, at.seat) != _hand(new, at.seat):
                # Whose turn it is first, then the player who just moved (they watch their hand), the rest.
                priority = (
                    budget.SOON if at.seat in to_act else budget.OWN if at.seat == mover else budget.LATER
                )
                hands[at.seat] = priority
    asked = tuple(
        seat
        for seat, screen in new.screens.items()
        if screen.asked > (old.screen(seat).asked if old is not None else 0)
    )
    result = new.result is not None and (old is None or _result(old) != _result(new))
    broken = new.row.status is TableStatus.BROKEN and (
        old is None or old.row.status is not TableStatus.BROKEN
    )
    tidy = not new.open and (old is None or old.open or old.noted != new.noted)
    if new.row.arena_id is not None:  # the group sees it in its arena's message only (docs/groups.md)
        return Changes(hands=hands, asked=asked, arena=table_message is not None, sent_only=closed)
    return Changes(table_message, False, hands, asked, result, broken, tidy, sent_only=closed)


def _public(r: Published) -> tuple[object, ...]:
    """What the group's table message shows (the ids of the messages aside)."""
    game, row = r.game, r.game_row
    return (
        r.row.chat_id,
        r.row.status,
        r.row.broken_reason,
        r.row.options,
        tuple((s.user_id, s.bot_level) for s in r.row.seats),
        r.names,
        r.creator_name,
        r.editing_options,
        r.pending,
        None if game is None else (game.version, game.over),
        r.seconds,
        r.recent,
        None if row is None else (row.id, row.salt, row.deck, row.finished_at),
    )


def _hand(r: Published, seat: int) -> tuple[object, ...]:
    """What a seat's hand shows: the game as that seat sees it, its clock and its screen (a press on
    "🃏 My cards" aside: it asks for the hand sent anew, not for another one)."""
    game, row = r.game, r.game_row
    user = r.row.seats[seat].user_id if seat < len(r.row.seats) else None
    return (
        r.row.status,
        r.row.broken_reason,
        user,
        None if game is None else (game.version, game.over),
        r.seconds if seat in r.to_act() else None,
        replace(r.screen(seat), asked=0),
        r.names,
        r.chat_title,
        r.ratings.get(seat),
        None if row is None else row.result_message_id,  # each player's end screen links to the result
    )


def _result(r: Published) -> tuple[object, ...]:
    return (r.result, r.rated, tuple(sorted(r.ratings.items())), r.rematch_open, r.names)
