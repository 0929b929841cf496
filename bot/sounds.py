"""When a screen sounds: the one place that decides it. A Telegram message sounds when it is sent, never when
it is edited, so a screen that is to sound is sent anew (the one before it deleted) and otherwise edited in
place. A hand sounds when the table starts waiting for its player, when a bot takes the seat, and at the
warning before a missed move: once each. The group's table message sounds when it calls a player by name
(a mention sounds in a new message only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# What a hand shows of its player's turn: the table waits for them, and has warned them; a bot plays the
# seat; or nothing asked of them.
Turn = Literal["clock", "warned", "auto", "idle"]
SOUNDING: frozenset[Turn] = frozenset({"clock", "warned", "auto"})


@dataclass
class Ring:
    """What one hand message showed last, and whether it is to be sent anew."""

    shown: Turn | None = None
    ringing: int | None = None  # the message to replace with a new one
    answered: int = 0  # the presses of "🃏 My cards" answered so far (bot.service.published.SeatScreen)


class Sounds:
    """Per table: each hand's ring (in private and in the group) and whom its table message calls."""

    def __init__(self) -> None:
        self._rings: dict[int, dict[tuple[int, bool], Ring]] = {}  # table -> (seat, in the group) -> ring
        self._called: dict[int, frozenset[tuple[int, bool]]] = {}  # table -> (user, warned) called

    def ring(
        self,
        table_id: int,
        seat: int,
        message_id: int | None,
        turn: Turn,
        *,
        group: bool = False,
        sounds: bool = True,
        asked: int = 0,
    ) -> int | None:
        """A hand is drawn showing ``turn`` (in the group if ``group``): the hand message to replace with a
        new one (which sounds), or None to edit it in place. One that does not ``sounds`` (the in-group hand
        of a player whose private hand sounds) is sent anew only at the warning, or when its player asked
        for it afresh (``asked``: their presses of "🃏 My cards" so far)."""
        ring = self._ring(table_id, seat, group)
        before, ring.shown = ring.shown, turn
        fresh, ring.answered = asked > ring.answered, max(asked, ring.answered)
        if message_id is None:
            return None  # the first hand is a new message anyway
        if fresh:
            ring.ringing = None
            return message_id
        if turn != before and (turn == "warned" or (sounds and turn in SOUNDING)):
            ring.ringing = message_id
        if ring.ringing is None:
            return None
        if ring.ringing != message_id or (turn == "idle" and sounds):  # replaced already, or nothing asked
            ring.ringing = None
            return None
        return ring.ringing

    def unanswered(self, table_id: int, seat: int, asked: int) -> bool:
        """The player pressed "🃏 My cards" since their in-group hand was last drawn."""
        ring = self._rings.get(table_id, {}).get((seat, True))
        return asked > (ring.answered if ring is not None else 0)

    def call(self, table_id: int, called: frozenset[tuple[int, bool]]) -> bool:
        """The table message calls these (user, warned) to move now: True if it did not call one of them so
        before, so that it is sent anew (at the warning, a player is called again)."""
        fresh = bool(called - self._called.get(table_id, frozenset()))
        if called:
            self._called[table_id] = called
        else:
            self._called.pop(table_id, None)
        return fresh

    def forget(self, table_id: int) -> None:
        """The game is over, the table closed or gone: nothing of it sounds again."""
        self._rings.pop(table_id, None)
        self._called.pop(table_id, None)

    def held(self) -> int:
        return len(self._rings) + len(self._called)

    def _ring(self, table_id: int, seat: int, group: bool) -> Ring:
        return self._rings.setdefault(table_id, {}).setdefault((seat, group), Ring())
