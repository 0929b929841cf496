"""Russian, Ukrainian and English texts. Catalogs are TOML files in ``locales/`` (one per language, the same
keys in each); plural categories come from CLDR through Babel, so "1 карта, 2 карты, 5 карт" is right."""

from __future__ import annotations

import tomllib
from datetime import date
from functools import cache
from importlib import resources
from typing import Any

from babel import Locale
from babel.dates import format_date
from babel.lists import format_list
from babel.numbers import format_decimal

from storage.records import User
from storage.seasons import months

LANGUAGES = ("ru", "uk", "en")
DEFAULT_LANGUAGE = "en"
PLURAL_CATEGORIES = frozenset({"zero", "one", "two", "few", "many", "other"})


def language_for(code: str | None, default: str = DEFAULT_LANGUAGE) -> str:
    """The supported language for a Telegram ``language_code`` such as ``ru``, ``uk`` or ``en-GB``."""
    if code:
        base = code.split("-")[0].split("_")[0].lower()
        if base in LANGUAGES:
            return base
    return default


Entry = str | dict[str, str]


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Entry]:
    out: dict[str, Entry] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, str):
            out[name] = value
        elif isinstance(value, dict) and value and set(value) <= PLURAL_CATEGORIES:
            out[name] = {k: str(v) for k, v in value.items()}
        elif isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        else:
            raise ValueError(f"catalog entry {name} is neither text, plural forms nor a section")
    return out


@cache
def catalog(language: str) -> dict[str, Entry]:
    text = resources.files("bot").joinpath("locales", f"{language}.toml").read_text(encoding="utf-8")
    return _flatten(tomllib.loads(text))


class Text:
    """The texts of one language: ``t("key", name=...)`` and ``t.plural("key", n)``."""

    def __init__(self, language: str) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"unsupported language {language!r}")
        self.language = language
        self._catalog = catalog(language)
        self._fallback = catalog(DEFAULT_LANGUAGE)
        self._locale = Locale.parse(language)

    def _entry(self, key: str) -> Entry:
        entry = self._catalog.get(key, self._fallback.get(key))
        if entry is None:
            raise KeyError(f"no text {key!r}")
        return entry

    def __call__(self, key: str, **params: object) -> str:
        entry = self._entry(key)
        if isinstance(entry, dict):
            raise TypeError(f"text {key!r} has plural forms: use plural()")
        return entry.format(**params)

    def plural(self, key: str, n: int, **params: object) -> str:
        entry = self._entry(key)
        if not isinstance(entry, dict):
            raise TypeError(f"text {key!r} has no plural forms")
        form = entry.get(self._locale.plural_form(abs(n)), entry["other"])
        return form.format(n=n, **params)

    def season(self, season: str, *, inline: bool = False) -> str:
        """A season's name as this language says it: "December 2026", "Декабрь 2026", "Q4 2026"; ``inline``:
        inside a sentence, after a colon or in brackets ("Сезон: декабрь 2026"), lower case where the
        language writes months so; always in the nominative (a genitive "декабря 2026" reads as a date)."""
        year, first, length = months(season)
        if length == 3:
            return self("season.quarter", quarter=(first - 1) // 3 + 1, year=year)
        month = format_date(date(year, first, 1), "LLLL y", locale=self._locale)
        return month if inline and self.language != "en" else month[:1].upper() + month[1:]

    def number(self, value: float, digits: int = 0) -> str:
        """A number as this language writes it: "3,00" in Russian, "3.00" in English; "1 512" grouped."""
        pattern = "#,##0" + ("." + "0" * digits if digits else "")
        return format_decimal(value, format=pattern, locale=self._locale)

    def signed(self, value: float) -> str:
        """A change with its sign: "+31", "−12" (a true minus sign)."""
        shown = self.number(abs(value))
        return ("+" if value > 0 else "−" if value < 0 else "±") + shown

    def join(self, items: list[str]) -> str:
        """Choices as this language lists them: "a, b, or c", "a, b или c"."""
        return format_list(items, style="or", locale=self._locale)


@cache
def texts(language: str) -> Text:
    return Text(language)


def user_texts(user: User | None, default: str) -> Text:
    """A user's texts: in the language they chose with the bot, else their Telegram client's, else
    ``default`` (a user the bot has not met)."""
    if user is None:
        return texts(default)
    return texts(user.language or language_for(user.telegram_language, default))
