"""Table options (docs/rules.md §12): one validated model with the rule set's defaults.

Pydantic lives here, at the edge: the game compiles these into plain attributes once per deal.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

GameType = Literal["throw_in", "transfer"]  # separate games with separate ratings: the variant's value


class Variant(StrEnum):
    THROW_IN = "throw_in"  # подкидной
    TRANSFER = "transfer"  # переводной


class ThrowIn(StrEnum):
    ALL = "all"
    NEIGHBOURS = "neighbours"


class AttackCap(StrEnum):
    SIX = "six"
    DEFENDER_HAND = "defender_hand"  # "до завала"


class RematchLead(StrEnum):
    LOSER = "loser"
    LEFT_OF_LOSER = "left_of_loser"  # "из-под дурака"
    LOWEST_TRUMP = "lowest_trump"


class BotLevel(StrEnum):
    """How well the bots a table adds play (a bot taking over a player's seat plays ``normal``)."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


class OptionsError(ValueError):
    """An impossible combination of options or players; ``code`` is stable, the message is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


MAX_PLAYERS = 6


class Options(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    variant: Variant = Variant.THROW_IN
    deck: Literal[24, 36, 52] = 36
    # How many seats the table has; None: as many as the deck allows (deck // 6, at most 6).
    seats: int | None = None
    throw_in: ThrowIn = ThrowIn.ALL
    # None: on for 36 and 52 cards, off for 24 (docs/rules.md §4.5).
    first_bout_five: bool | None = None
    attack_cap: AttackCap = AttackCap.SIX
    transfer_first_bout: bool = True
    show_trump_transfer: bool = False
    draw: bool = True
    teams: bool = False
    rematch_lead: RematchLead = RematchLead.LOSER
    move_timer: Literal[10, 15, 30, 60] = 30
    bot_level: BotLevel = BotLevel.NORMAL
    discard_list: bool = True  # players may open the list of discarded cards (docs/rules.md §4.7)

    @property
    def max_players(self) -> int:
        return self.seats if self.seats is not None else min(MAX_PLAYERS, self.deck // 6)

    @property
    def first_bout_limit(self) -> bool:
        return self.first_bout_five if self.first_bout_five is not None else self.deck != 24

    @model_validator(mode="after")
    def _consistent(self) -> Options:
        capacity = min(MAX_PLAYERS, self.deck // 6)
        if self.seats is not None and not 2 <= self.seats <= capacity:
            raise OptionsError(
                "seats_for_deck",
                f"A {self.deck}-card deck seats 2 to {capacity} players, not {self.seats}.",
            )
        if self.show_trump_transfer and self.variant is not Variant.TRANSFER:
            raise OptionsError(
                "show_trump_needs_transfer", "Showing a trump to transfer needs the transfer variant."
            )
        if self.teams and self.max_players not in (4, 6) and not (self.seats is None and capacity >= 4):
            raise OptionsError("teams_need_4_or_6", "Team play needs 4 or 6 seats.")
        return self

    def check_players(self, count: int) -> None:
        """Raise OptionsError unless ``count`` players can start a game with these options."""
        if count < 2:
            raise OptionsError("too_few_players", "A game needs at least 2 players.")
        if count > self.max_players:
            raise OptionsError(
                "too_many_players",
                f"This table seats at most {self.max_players} players ({self.deck}-card deck), not {count}.",
            )
        if self.teams and count not in (4, 6):
            raise OptionsError("teams_need_4_or_6", f"Team play needs 4 or 6 players, not {count}.")

    @property
    def game_type(self) -> GameType:
        """Throw-in and transfer are separate games with separate ratings (docs/rules.md §5, §10)."""
        return "transfer" if self.variant is Variant.TRANSFER else "throw_in"


# Every option of docs/rules.md §12 with the values a lobby button cycles through, the default first.
CHOICES: dict[str, list[Any]] = {
    "variant": [Variant.THROW_IN, Variant.TRANSFER],
    "deck": [36, 52, 24],
    "seats": [None, 2, 3, 4, 5, 6],
    "move_timer": [30, 60, 10, 15],
    "throw_in": [ThrowIn.ALL, ThrowIn.NEIGHBOURS],
    "draw": [True, False],
    "first_bout_five": [None, True, False],
    "attack_cap": [AttackCap.SIX, AttackCap.DEFENDER_HAND],
    "transfer_first_bout": [True, False],
    "show_trump_transfer": [False, True],
    "teams": [False, True],
    "rematch_lead": [RematchLead.LOSER, RematchLead.LEFT_OF_LOSER, RematchLead.LOWEST_TRUMP],
    "bot_level": [BotLevel.NORMAL, BotLevel.HARD, BotLevel.EASY],
    "discard_list": [True, False],
}
TRANSFER_ONLY = ("transfer_first_bout", "show_trump_transfer")  # options that only the transfer variant has


def cycle(options: Options, name: str) -> Options:
    """The options with ``name`` moved to its next value that makes a valid table (unchanged if none)."""
    values = CHOICES[name]
    current = getattr(options, name)
    start = values.index(current) if current in values else -1
    for step in range(1, len(values) + 1):
        data = options.model_dump()
        data[name] = values[(start + step) % len(values)]
        if data["variant"] == Variant.THROW_IN:
            data["show_trump_transfer"] = False
        if name == "deck" and data["seats"] is not None and data["seats"] > min(6, data["deck"] // 6):
            data["seats"] = None
        try:
            return Options.model_validate(data)
        except ValidationError:
            continue
    return options
