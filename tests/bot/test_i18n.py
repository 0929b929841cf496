"""Catalogs: the same keys and placeholders in every language, and correct plural forms."""

from __future__ import annotations

import string

import pytest

from bot.i18n import LANGUAGES, catalog, language_for, texts
from engine.events import EventKind
from engine.game import Opening
from engine.options import Variant


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "ru",
            [
                "1 карта",
                "2 карты",
                "5 карт",
                "11 карт",
                "21 карта",
                "22 карты",
                "25 карт",
                "111 карт",
                "0 карт",
            ],
        ),
        (
            "uk",
            [
                "1 карта",
                "2 карти",
                "5 карт",
                "11 карт",
                "21 карта",
                "22 карти",
                "25 карт",
                "111 карт",
                "0 карт",
            ],
        ),
        (
            "en",
            [
                "1 card",
                "2 cards",
                "5 cards",
                "11 cards",
                "21 cards",
                "22 cards",
                "25 cards",
                "111 cards",
                "0 cards",
            ],
        ),
    ],
)
def test_plural_forms(language: str, expected: list[str]) -> None:
    t = texts(language)
    assert [t.plural("cards", n) for n in (1, 2, 5, 11, 21, 22, 25, 111, 0)] == expected


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_catalog_has_the_same_keys_forms_and_placeholders() -> None:
    english = catalog("en")
    for language in LANGUAGES:
        other = catalog(language)
        assert set(other) == set(english), language
        for key, entry in english.items():
            theirs = other[key]
            assert isinstance(theirs, dict) == isinstance(entry, dict), (language, key)
            if isinstance(entry, str):
                assert isinstance(theirs, str)
                assert _fields(theirs) == _fields(entry), (language, key)
            else:
                assert isinstance(theirs, dict) and "other" in theirs
                fields = _fields(entry["other"])
                assert "n" in fields
                assert all(_fields(form) == fields for form in theirs.values()), (language, key)


def test_every_event_opening_and_variant_has_a_text() -> None:
    keys = set(catalog("en"))
    shown = set(EventKind) - {EventKind.BOUT, EventKind.DREW, EventKind.GAME_OVER}
    assert {f"event.{k.value}" for k in shown} <= keys
    reasons = [v for k, v in vars(Opening).items() if not k.startswith("_")]
    assert {f"opening.{r}" for r in reasons} <= keys
    assert {f"variant.{v.value}" for v in Variant} <= keys


@pytest.mark.parametrize(
    ("code", "language"),
    [("ru", "ru"), ("uk", "uk"), ("en-GB", "en"), ("ru-RU", "ru"), ("de", "en"), (None, "en")],
)
def test_telegram_language_codes(code: str | None, language: str) -> None:
    assert language_for(code) == language


def test_unknown_texts_and_languages_are_errors() -> None:
    with pytest.raises(KeyError):
        texts("en")("no.such.key")
    with pytest.raises(ValueError):
        texts("de")


def test_every_refusal_reason_has_a_text() -> None:
    from engine.events import Reason

    assert {f"reason.{r.value}" for r in Reason} <= set(catalog("en"))
