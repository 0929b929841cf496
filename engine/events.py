"""What happened (events) and why a move was refused (reasons)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class EventKind(StrEnum):
    LED = "led"  # seat, cards
    THREW_IN = "threw_in"  # seat, cards=(card,)
    COVERED = "covered"  # seat, cards=(attack, cover)
    TOOK = "took"  # seat said "Take"
    PASSED = "passed"  # seat
    TRANSFERRED = "transferred"  # seat, cards=(card,), target = new defender
    SHOWED_TRUMP = "showed_trump"  # seat, cards=(trump,), target = new defender
    BEATEN = "beaten"  # bout over, cards to the discard; seat = defender
    PICKED_UP = "picked_up"  # bout over, seat picked up cards (public)
    DREW = "drew"  # seat drew count cards from the talon (which ones is private)
    WENT_OUT = "went_out"  # seat has no cards and the talon is empty
    BOUT = "bout"  # a new bout: seat = lead attacker, target = defender, count = bout number
    TIMED_OUT = "timed_out"  # seat's timer ran out; count = 1 if it was a missed move
    TAKEN_OVER = "taken_over"  # a bot plays the seat from now on
    RECLAIMED = "reclaimed"  # the player is back in their seat
    CONCEDED = "conceded"  # seat conceded: the last place not yet taken is theirs, a bot plays their cards
    GAME_OVER = "game_over"


# Bookkeeping rather than something a player did: not told as an action (the table shows their effect).
QUIET = frozenset({EventKind.BOUT, EventKind.DREW, EventKind.GAME_OVER})


@dataclass(frozen=True, slots=True)
class Event:
    kind: EventKind
    seat: int = -1
    cards: tuple[int, ...] = ()
    target: int = -1
    count: int = 0


class Reason(StrEnum):
    """Why a move is refused: the value is a stable code (the bot translates it); ``message`` is English."""

    GAME_OVER = "game_over"
    NO_SUCH_SEAT = "no_such_seat"
    MALFORMED = "malformed"
    PLAYER_OUT = "player_out"
    NOT_IN_HAND = "not_in_hand"
    NOT_YOUR_LEAD = "not_your_lead"
    MUST_LEAD_FIRST = "must_lead_first"
    LEAD_ONE_RANK = "lead_one_rank"
    ALREADY_LED = "already_led"
    NOT_DEFENDER = "not_defender"
    DEFENDER_CANNOT_THROW = "defender_cannot_throw"
    NOT_A_THROWER = "not_a_thrower"
    PASSED_ALREADY = "passed_already"
    RANK_NOT_ON_TABLE = "rank_not_on_table"
    TOO_MANY_FOR_DEFENDER = "too_many_for_defender"
    CAP_REACHED = "cap_reached"
    NOT_ON_TABLE = "not_on_table"
    ALREADY_COVERED = "already_covered"
    DOES_NOT_BEAT = "does_not_beat"
    ALREADY_TAKING = "already_taking"
    NOTHING_TO_TAKE = "nothing_to_take"
    NOTHING_TO_PASS = "nothing_to_pass"
    TRANSFER_NOT_PLAYED = "transfer_not_played"
    TRANSFER_FIRST_BOUT = "transfer_first_bout"
    TRANSFER_AFTER_COVER = "transfer_after_cover"
    TRANSFER_AFTER_TAKE = "transfer_after_take"
    TRANSFER_RANK = "transfer_rank"
    TRANSFER_TOO_FEW = "transfer_too_few"
    NO_TRANSFER_TARGET = "no_transfer_target"
    SHOW_TRUMP_OFF = "show_trump_off"
    NOT_TRUMP = "not_trump"
    SHOWN_ALREADY = "shown_already"
    NOT_ALLOWED = "not_allowed"
    CONCEDED = "conceded"
    TEAM_CONCEDE = "team_concede"

    @property
    def message(self) -> str:
        return _MESSAGES[self]


_MESSAGES = {
    Reason.GAME_OVER: "The game is over.",
    Reason.NO_SUCH_SEAT: "There is no such seat at this table.",
    Reason.MALFORMED: "That is not a move.",
    Reason.PLAYER_OUT: "You are out of the game.",
    Reason.NOT_IN_HAND: "You do not hold that card.",
    Reason.NOT_YOUR_LEAD: "It is not your lead.",
    Reason.MUST_LEAD_FIRST: "The bout has not started: the lead attacker leads first.",
    Reason.LEAD_ONE_RANK: "You may lead one card or several cards of the same rank.",
    Reason.ALREADY_LED: "The bout has already been led.",
    Reason.NOT_DEFENDER: "Only the defender may do that.",
    Reason.DEFENDER_CANNOT_THROW: "The defender cannot throw in.",
    Reason.NOT_A_THROWER: "You may not throw in to this defender.",
    Reason.PASSED_ALREADY: "You have passed; wait until the table changes.",
    Reason.RANK_NOT_ON_TABLE: "You may only add a rank that is already on the table.",
    Reason.TOO_MANY_FOR_DEFENDER: "The defender does not hold enough cards to answer more.",
    Reason.CAP_REACHED: "This bout has reached its limit of attack cards.",
    Reason.NOT_ON_TABLE: "That card is not an unbeaten attack card.",
    Reason.ALREADY_COVERED: "That card is already covered.",
    Reason.DOES_NOT_BEAT: "That card does not beat it.",
    Reason.ALREADY_TAKING: "You have already said Take.",
    Reason.NOTHING_TO_TAKE: "There is nothing to take.",
    Reason.NOTHING_TO_PASS: "There is nothing to pass on right now.",
    Reason.TRANSFER_NOT_PLAYED: "Transfer is not played at this table.",
    Reason.TRANSFER_FIRST_BOUT: "No transfer in the first bout at this table.",
    Reason.TRANSFER_AFTER_COVER: "No transfer once a card is covered.",
    Reason.TRANSFER_AFTER_TAKE: "No transfer after Take.",
    Reason.TRANSFER_RANK: "A transfer needs a card of the same rank as every attack card.",
    Reason.TRANSFER_TOO_FEW: "The next player could not answer that many cards.",
    Reason.NO_TRANSFER_TARGET: "There is nobody to transfer to.",
    Reason.SHOW_TRUMP_OFF: "Transfer by showing a trump is not played at this table.",
    Reason.NOT_TRUMP: "Only a trump can be shown.",
    Reason.SHOWN_ALREADY: "You have already shown a trump this bout: put the card down.",
    Reason.NOT_ALLOWED: "That move is not allowed now.",
    Reason.CONCEDED: "You conceded this game: a bot plays your cards to the end.",
    Reason.TEAM_CONCEDE: "In team play nobody concedes alone: your partner plays on.",
}


class IllegalMove(ValueError):
    def __init__(self, reason: Reason) -> None:
        super().__init__(reason.message)
        self.reason = reason
