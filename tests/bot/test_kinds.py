"""The registry of message kinds (bot.kinds) is the one place a kind is described: every kind it names has a
draft, keeps its id in a field its record really has, and a restart finds it there."""

from __future__ import annotations

from typing import get_args

from pydantic import BaseModel

from bot.drafts import Drafts
from bot.kinds import MESSAGES, TOLD_ONCE, MessageKind
from storage import Storage
from storage.records import ArenaRow, GameRow, Seat, TableRow
from storage.tables import SEAT_MESSAGES


def test_every_kind_is_registered_and_drawn() -> None:
    assert set(MESSAGES) == set(get_args(MessageKind))
    drafts = Drafts(Storage.__new__(Storage), bot_username="durak_bot", default_language="en")
    # A tidy-up deletes, and draws nothing; an arena's messages are drawn from the arena's record.
    assert set(drafts.by_kind) == set(MESSAGES) - {"tidy", "arena", "podium"}
    assert {"result", "broken", "podium"} == TOLD_ONCE


def test_every_kept_id_has_its_field() -> None:
    records: dict[str, type[BaseModel]] = {
        "table": TableRow,
        "seat": Seat,
        "game": GameRow,
        "arena": ArenaRow,
    }
    for kind, spec in MESSAGES.items():
        if spec.kept is None:
            continue
        keeper, column = spec.kept
        assert column in records[keeper].model_fields, (kind, column)
        assert spec.per_seat == (keeper == "seat"), kind
        if keeper == "seat":
            assert column in SEAT_MESSAGES, kind
    assert {
        spec.kept[1] for spec in MESSAGES.values() if spec.kept and spec.kept[0] == "seat"
    } == SEAT_MESSAGES
