"""What each player's own screen shows beside the game, one part of a table: a card picked for the two-step
cover, a concession being confirmed, the presses of "🃏 My cards". The commands change it; the table
publishes it as each seat's SeatScreen (bot.service.published)."""

from __future__ import annotations

from bot.service.published import Screen, SeatScreen
from engine import Game


class Screens:
    def __init__(self) -> None:
        self.by_seat: dict[int, Screen] = {}  # while the game is played

    def __getitem__(self, seat: int) -> Screen:
        return self.by_seat.setdefault(seat, Screen())

    def __len__(self) -> int:
        return len(self.by_seat)

    def after_move(self, game: Game) -> None:
        """The game moved: a pick made on the state before is no longer what the hand shows, nor is a
        concession asked about once a bot took the seat (its hand offers "I'm back"); once it is over, no
        hand asks anything of its player again."""
        for seat, screen in self.by_seat.items():
            screen.selected = None
            screen.conceding = screen.conceding and not game.is_auto(seat)
        if game.over:
            self.clear()

    def clear(self) -> None:
        self.by_seat.clear()

    def published(self) -> dict[int, SeatScreen]:
        return {seat: SeatScreen(s.selected, s.conceding, s.asked) for seat, s in self.by_seat.items()}
