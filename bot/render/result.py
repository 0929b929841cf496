"""Rendering how a game ended: the result message (places, the durak, ratings, the deck's seal opened), the
table message's summary once the game is over, and the lines a replay ends with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.i18n import Text
from bot.render.faces import card_list
from bot.render.group import SEAL_SHOWN, fit, name_of, rating_change
from engine.cards import parse_cards
from engine.fairness import commitment as seal
from engine.game import Result
from engine.views import View


def result_text(
    result: Result,
    names: Sequence[str],
    t: Text,
    *,
    rated: bool,
    ratings: Mapping[int, tuple[float, float]] | None = None,
    minutes: int | None = None,
    reveal: tuple[str, str] | None = None,
    game_id: int | None = None,
) -> str:
    """The result message; ``reveal`` (salt, deck) opens the fair-play commitment shown at the deal."""
    title = t("result.title") + (f" · #{game_id}" if game_id is not None else "")
    lines = [f"<b>{title}</b>", "", *result_lines(result, names, t)]
    if result.pogony:
        lines.append(t("result.pogony"))
    if minutes is not None:
        lines.append(t("result.duration", minutes=minutes))
    if not rated:
        lines.append(t("result.unrated"))
    elif ratings:
        lines.append("")
        for seat, (before, after) in sorted(ratings.items()):
            lines.append(t("result.rating", name=name_of(names, seat), **rating_change(before, after, t)))
    if reveal is not None:
        salt, deck = reveal
        lines.append("")
        lines.append(t("result.sealed", hash=seal(salt, deck)[:SEAL_SHOWN], id=game_id or ""))
    return fit(lines)


def result_lines(result: Result, names: Sequence[str], t: Text) -> list[str]:
    """How a game ended: the places and the durak (or the draw); in team play the teams instead, since a
    player who went out first has still lost if their team did."""
    if result.losing_team is not None:
        team = result.losing_team_seats()
        winners = [s for s in range(len(result.places)) if s not in team]
        return [
            t("result.winning_team", names=", ".join(name_of(names, s) for s in winners)),
            *loser_lines(result, names, t),
        ]
    lines = [
        t("result.place", place=result.places[seat], name=name_of(names, seat))
        for seat in sorted(range(len(result.places)), key=lambda s: (result.places[s], s))
    ]
    return [*lines, "", *loser_lines(result, names, t)]


def loser_lines(result: Result, names: Sequence[str], t: Text) -> list[str]:
    """Who lost: the durak (or the durak team), or a draw."""
    if result.losing_team is not None:
        team = result.losing_team_seats()
        named = ", ".join(name_of(names, s) for s in team)
        if set(result.losers) == set(team):  # everybody on it held cards: no need to name them twice
            return [t("result.durak_team_all", names=named)]
        holders = ", ".join(name_of(names, s) for s in result.losers)
        return [t("result.durak_team", names=named, holders=holders)]
    lines = []
    if result.draw:
        lines.append(t("result.draw"))
    if result.durak is not None:
        lines.append(t("result.durak", name=name_of(names, result.durak)))
    return lines


def summary_text(view: View, names: Sequence[str], t: Text, *, minutes: int, game_id: int | None) -> str:
    """The table message once its game is over, where the group keeps its chat tidy: who played and who
    lost, in a few lines beside the result message, which says the rest."""
    assert view.result is not None and view.seat is None
    title = t("table.title", variant=t("variant." + view.options.variant.value))
    if game_id is not None:
        title += f" · #{game_id}"
    players = ", ".join(name_of(names, info.seat) for info in view.seats)
    lines = [f"<b>{title}</b>", t("table.players", names=players), *loser_lines(view.result, names, t)]
    return fit([*lines, t("table.over", minutes=minutes)])


def reveal_lines(salt: str, deck: str, t: Text) -> list[str]:
    """The deck a game was dealt from, readable, and how to check it against the seal shown at the deal."""
    order = parse_cards(deck)
    # One entry, so that a long replay cut into messages never parts the seal from its deck.
    return [
        t("result.reveal", salt=salt, deck=deck, hash=seal(salt, deck))
        + "\n"
        + t("result.deck", cards=card_list(order))
    ]
