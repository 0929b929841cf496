"""What the web table shows one viewer, drawn from the last record a table published (pure, like every
screen): the public table for a spectator, and for a seated player also their own hand and exactly their
legal moves (engine.views: nobody is sent a card they may not see). The lines in words come from the same
renderers and catalogs as the chat, turned into plain text: the page never renders anything as HTML."""

from __future__ import annotations

import html
import re
from typing import Any

from bot.hand_drafts import names_of
from bot.i18n import Text
from bot.render.faces import by_suit, face, suit_face
from bot.render.group import event_line
from bot.render.hand import prompt_line
from bot.render.keyboard import hand_choices
from bot.render.result import result_text
from bot.service import ABANDONED, Published
from engine.cards import card_code, rank, suit
from engine.moves import Kind, Move, cards, kind, move_str
from engine.views import View, view
from storage.records import TableStatus

RECENT_LINES = 4  # the last actions the page tells in words
_TAG = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """A line drawn for Telegram's HTML, as the text it shows (names come escaped, a few words in bold)."""
    return html.unescape(_TAG.sub("", text))


def card(c: int) -> dict[str, Any]:
    """A card as the page draws it: its code (what a move names), rank, suit sign and colour."""
    return {"code": card_code(c), "face": face(c), "rank": rank(c), "suit": suit(c), "red": suit(c) >= 2}


def snapshot(
    record: Published, seat: int | None, t: Text, user_id: int | None = None, now: float | None = None
) -> dict[str, Any]:
    """The state one viewer's page shows: ``seat`` a seated player's, None a spectator's (``user_id``: the
    viewer, whom a lobby may offer Join or Start; ``now``: the service's clock as the state is sent, from
    which the page counts the move's seconds down)."""
    names = names_of(record, t)
    row = record.row
    state: dict[str, Any] = {
        "table": record.id,
        "version": record.version,
        "status": row.status.value,
        "title": record.chat_title,
        "seat": seat,
        "labels": _labels(t),
    }
    if row.status in (TableStatus.CANCELLED, TableStatus.BROKEN):
        key = "table.broken" if row.status is TableStatus.BROKEN else "lobby.cancelled"
        state["notice"] = plain(t("table.abandoned" if row.broken_reason == ABANDONED else key))
        return state
    game = record.game
    if game is None:
        pending = user_id in record.pending
        state["lobby"] = {
            "players": names,
            "notice": plain(t("web.lobby")),
            "join": row.status is TableStatus.LOBBY and (seat is None or pending),
            "start": row.status is TableStatus.LOBBY and user_id == row.creator_id and len(row.seats) >= 2,
        }
        return state
    v = view(game, seat)
    state["game"] = _table(record, v, names, t)
    if record.deadline is not None and now is not None:  # the page's own clock counts from here
        state["game"]["left"] = round(max(0.0, record.deadline - now), 1)
    if seat is not None:
        state["hand"] = _hand(record, v, names, t)
    if v.result is not None:
        row_game = record.game_row
        text = result_text(
            v.result,
            names,
            t,
            rated=record.rated,
            ratings=record.ratings,
            game_id=row_game.id if row_game else None,
        )
        state["result"] = [line for line in plain(text).split("\n") if line.strip()]
        state["rematch"] = record.rematch_open and seat is not None
    return state


def _table(record: Published, v: View, names: list[str], t: Text) -> dict[str, Any]:
    to_act = set(v.to_act)
    trump = suit_face(v.trump)
    return {
        "version": v.version,
        "trump": trump,
        "trump_red": v.trump >= 2,
        "trump_card": card(v.trump_card) if v.trump_card is not None else None,
        "talon": v.talon,
        "discard": v.discard,
        "lines": {  # the same words as the table message
            "trump": plain(t("table.trump", card=face(v.trump_card) if v.trump_card is not None else trump)),
            "talon": plain(t("table.talon", count=v.talon)),
            "discard": plain(t("table.discard", count=v.discard)),
        },
        "seats": [
            {
                "name": names[info.seat],
                "cards": info.cards,
                "place": info.place,
                "auto": info.auto,
                "team": info.team if v.options.teams else None,
                "to_act": info.seat in to_act,
                "defender": info.seat == v.defender and v.result is None,
                "you": info.seat == v.seat,
            }
            for info in v.seats
        ],
        "pairs": [{"attack": card(a), "cover": card(c) if c is not None else None} for a, c in v.table],
        "recent": [plain(line) for e in record.recent if (line := event_line(e, names, t))][-RECENT_LINES:],
    }


def _hand(record: Published, v: View, names: list[str], t: Text) -> dict[str, Any]:
    """A seated player's own cards and moves. A card that covers several attack cards lists a move for each
    (the page asks which, by a tap on the attack card); the same choices as the chat's buttons."""
    assert v.seat is not None
    info = v.seats[v.seat]
    playable = not info.auto and v.seat not in v.conceded and info.place is None
    choices = hand_choices(v, t) if playable else None
    moves = dict(choices.cards) if choices else {}
    screen = record.screen(v.seat)
    return {
        "cards": [
            {**card(c), "moves": [_move(m, v) for m in moves.get(c, [])]} for c in by_suit(v.hand, v.trump)
        ],
        "buttons": [
            {"move": move_str(m), "label": plain(label)}
            for m, label in ((choices.extra + choices.final) if choices else [])
        ],
        "prompt": plain(prompt_line(v, names, t, None)),
        "may_concede": v.may_concede and not screen.conceding,
        "auto": info.auto and v.seat not in v.conceded,
        "place": info.place,
    }


def _move(m: Move, v: View) -> dict[str, Any]:
    """One move a card makes: what it is, and for a cover, which attack card (its place on the table)."""
    k = kind(m)
    found: dict[str, Any] = {"move": move_str(m), "kind": k.name.lower()}
    if k == Kind.COVER:
        attack = cards(m)[0]
        found["on"] = next(i for i, (a, _) in enumerate(v.table) if a == attack)
    return found


def _labels(t: Text) -> dict[str, str]:
    """The page's own words, in the viewer's language."""
    keys = ("web.watching", "web.offline", "web.choose_attack")
    found = {key.split(".", 1)[1]: plain(t(key)) for key in keys}
    found |= {
        "concede": plain(t("button.concede")),
        "concede_ask": plain(t("hand.concede_ask")),
        "concede_yes": plain(t("button.concede_yes")),
        "concede_no": plain(t("button.concede_no")),
        "back": plain(t("button.back")),
        "join": plain(t("lobby.join")),
        "start": plain(t("lobby.start")),
        "rematch": plain(t("lobby.rematch")),
        "cancel": plain(t("button.cancel")),
    }
    return found
