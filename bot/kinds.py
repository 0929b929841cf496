"""The kinds of message the bot keeps drawn for a table, in one place: where each one's id is kept (a restart
edits the message it sent rather than sending another), whether people wait for it (it goes before redraws),
and whether a table has one or one per seat. The outbox's keys, the drafts and the table's record of the ids
sent all read this; a new kind is one entry here, its draft (bot.drafts) and what marks it (bot.presenter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MessageKind = Literal["table_message", "hand", "group_hand", "result", "broken", "tidy", "arena", "podium"]
# Which stored record keeps a kind's message id, in which column (the record's field of the same name).
Keeper = Literal["table", "seat", "game", "arena"]


@dataclass(frozen=True, slots=True)
class Kind:
    per_seat: bool = False  # one message per seat (its key's seat), else one per table (seat -1)
    kept: tuple[Keeper, str] | None = None  # where its id is kept; None: never edited after a restart
    told_once: bool = False  # people wait for it: it goes before the chat's redraws
    # Sent anew to sound (a turn), it may be paid for past the free budget (bot.outbox, PAID_BROADCAST): its
    # draft may be drawn twice (once to see whether it is a new message), which changes nothing it shows.
    payable: bool = False
    # Only deletions (budget.COST: they count against no limit): it goes whenever its chat is not paused,
    # before redraws, so a group busy with one game after another still gets the last one's tidy-up.
    free: bool = False


MESSAGES: dict[MessageKind, Kind] = {
    # The group's message for a table: its lobby, then the table in play, then its summary.
    "table_message": Kind(kept=("table", "message_id")),
    "hand": Kind(per_seat=True, kept=("seat", "hand_message_id"), payable=True),  # a hand in private
    # The same hand inside the group, seen only by its player (an ephemeral message); 0 kept: none to edit.
    "group_hand": Kind(per_seat=True, kept=("seat", "group_hand_id")),
    "result": Kind(kept=("game", "result_message_id"), told_once=True),  # places, ratings, the rematch
    "broken": Kind(told_once=True),  # the table's game could not be loaded
    # No message: the group's messages that led to an ended table, to delete (its draft names them).
    "tidy": Kind(free=True),
    # An arena's (its key names the arena where a table's names the table): its one message in the group,
    # the standings and the games in play, and its podium, posted once when it is over.
    "arena": Kind(kept=("arena", "message_id")),
    "podium": Kind(kept=("arena", "podium_message_id"), told_once=True),
}

TOLD_ONCE: frozenset[MessageKind] = frozenset(k for k, kind in MESSAGES.items() if kind.told_once)
PAYABLE: frozenset[MessageKind] = frozenset(k for k, kind in MESSAGES.items() if kind.payable)
FREE: frozenset[MessageKind] = frozenset(k for k, kind in MESSAGES.items() if kind.free)
