"""A finished game told move by move from its deal and its log, for /replay: bouts, leads, covers, takes,
transfers, and how many cards each player drew (never which), then how it ended."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Text
from bot.render.group import event_line, name_of
from bot.render.result import result_lines
from engine.actions import act
from engine.events import EventKind
from engine.game import Game


def replay_lines(deal: Game, actions: Sequence[tuple[int, str]], names: Sequence[str], t: Text) -> list[str]:
    """A whole game in words, move by move, from its deal and its log: bouts, leads, covers, takes,
    transfers and draws (how many cards, never which)."""
    game = deal.copy()
    lines = [t("replay.bout", n=1, lead=name_of(names, game.lead), defender=name_of(names, game.defender))]
    for seat, action in actions:
        for event in act(game, seat, action).events:
            if event.kind is EventKind.BOUT:
                lines.append(
                    t(
                        "replay.bout",
                        n=event.count + 1,
                        lead=name_of(names, event.seat),
                        defender=name_of(names, event.target),
                    )
                )
            elif event.kind is EventKind.DREW:
                lines.append(t.plural("replay.drew", event.count, name=name_of(names, event.seat)))
            elif (line := event_line(event, names, t)) is not None:
                lines.append(line)
    if game.result is not None:
        lines += ["", *result_lines(game.result, names, t)]
    return lines
