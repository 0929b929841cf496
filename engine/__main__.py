"""Play Durak in a terminal against computer players: ``python -m engine --players 3 --variant transfer``."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable

from engine.ai import player_for
from engine.cards import SUITS, card_str
from engine.game import Game
from engine.moves import describe
from engine.options import BotLevel, Options, OptionsError, Variant
from engine.views import View, view

YOU = 0


def render(v: View, name: Callable[[int], str]) -> str:
    lines = [f"Trump {SUITS[v.trump]}" + (f" ({card_str(v.trump_card)})" if v.trump_card is not None else "")]
    lines.append(f"Talon {v.talon} · discard {v.discard} · bout {v.bout + 1}")
    for info in v.seats:
        mark = " attacks" if info.seat == v.lead else " defends" if info.seat == v.defender else ""
        state = f"out, place {info.place}" if info.place is not None else f"{info.cards} cards"
        lines.append(f"  {name(info.seat)}: {state}{mark}")
    table = "  ".join(card_str(a) + (f"/{card_str(c)}" if c is not None else "") for a, c in v.table)
    lines.append(f"Table: {table or '-'}" + (" (taking)" if v.taking else ""))
    lines.append("Your hand: " + " ".join(card_str(c) for c in v.hand))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--variant", choices=[v.value for v in Variant], default=Variant.THROW_IN.value)
    parser.add_argument("--deck", type=int, choices=[24, 36, 52], default=36)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        options = Options(variant=Variant(args.variant), deck=args.deck)
        game = Game.deal(
            options, args.players, rng=random.Random(args.seed) if args.seed is not None else None
        )
    except (OptionsError, ValueError) as exc:
        print(f"Cannot start: {exc}", file=sys.stderr)
        return 2
    bot = player_for(BotLevel.EASY, seed=args.seed)  # easy bots' slips keep an endgame among them finite

    def name(seat: int) -> str:
        return "You" if seat == YOU else f"Bot {seat}"

    reason, card = game.opening
    print(
        f"{name(game.lead)} leads first ({reason.replace('_', ' ')}"
        + (f" {card_str(card)})" if card >= 0 else ")")
    )
    while not game.over:
        bots = [s for s in game.to_act() if s != YOU]
        if bots:
            seat = bots[0]
            move = bot.choose(view(game, seat))
            game.apply(seat, move)
            print(f"{name(seat)}: {describe(move)}")
            continue
        mine = view(game, YOU)
        print("\n" + render(mine, name))
        for i, move in enumerate(mine.moves, 1):
            print(f"  {i}. {describe(move)}")
        try:
            answer = input("Your move (number, q to quit): ").strip()
        except EOFError:
            return 0
        if answer.lower() == "q":
            return 0
        if not answer.isdigit() or not 1 <= int(answer) <= len(mine.moves):
            print("Type one of the numbers above.")
            continue
        game.apply(YOU, mine.moves[int(answer) - 1])
    result = game.result
    assert result is not None
    print("\nGame over.")
    for seat in sorted(range(game.players), key=lambda s: result.places[s]):
        print(f"  {result.places[seat]}. {name(seat)}")
    if result.draw:
        print("A draw: nobody is the durak.")
    elif result.durak is not None:
        print(f"{name(result.durak)} is the durak" + (" with pogony!" if result.pogony else "."))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
