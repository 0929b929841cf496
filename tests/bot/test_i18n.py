"""Catalogs: the same keys and placeholders in every language, and correct plural forms."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from babel import Locale

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


# ---------------------------------------------------------------------- classes of error made impossible

# Placeholders that stand for people.
PERSON = {"name", "names", "holders", "target", "lead", "defender", "a", "b"}
NUMBERS = {"n", "count", "games", "seconds", "minutes", "players", "limit", "place", "max", "rank", "value"}
# Words that may follow a number without a plural form: units and small words ("10 с", "2 из 3").
AFTER_NUMBER = {"с", "мин", "хв", "из", "з", "и", "і", "или", "або", "в", "у", "—", "·"}
# Past tense is gendered in Russian and Ukrainian; Telegram does not tell us a player's gender.
GENDERED = re.compile(
    r"\b\w*(?:лся|лась|лася|вся|ился|ался|ёл|ыл|ял|ел|ал|ил|ул|ела|ала|ила|ыла|яла|ов|ів|ав|ив|ив)\b"
    r"|\bсам(?:ому|ой|ий|ій|а)\b"
)
NOT_A_VERB = {
    "мин",
    "козирів",
    "переможців",
    "устарела",
    "отбой",
    "Бито",
    "стол",
    "погонами",
    "ниже",
    "ссылке",
    "ходов",
    "партнёров",
}


def _entries(language: str) -> list[tuple[str, str, bool]]:
    """(key, text, is a plural form) for every text of a catalog."""
    found: list[tuple[str, str, bool]] = []
    for key, entry in catalog(language).items():
        if isinstance(entry, str):
            found.append((key, entry, False))
        else:
            found.extend((key, form, True) for form in entry.values())
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_count_has_all_of_the_languages_plural_forms(language: str) -> None:
    needed = set(Locale.parse(language).plural_form.tags) | {"other"}
    for key, entry in catalog(language).items():
        if isinstance(entry, dict):
            assert set(entry) == needed, (language, key, sorted(entry))


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_a_number_followed_by_a_noun_goes_through_plural_forms(language: str) -> None:
    for key, text, plural in _entries(language):
        if plural:
            continue
        for name, word in re.findall(r"\{(\w+)\} ([^\s{}.,:;!?()]+)", text):
            if name in NUMBERS:
                assert word in AFTER_NUMBER, f"{language} {key}: '{{{name}}} {word}' needs plural forms"


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_russian_and_ukrainian_texts_use_no_latin_letters(language: str) -> None:
    for key, text, _ in _entries(language):
        plain = re.sub(r"\{\w*\}|<[^>]*>|&\w+;|/\w+(?: global)?|https?://\S+|SHA-256", "", text)
        assert not re.search(r"[A-Za-z]", plain), f"{language} {key}: {text}"


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_no_line_that_names_a_person_needs_their_gender(language: str) -> None:
    for key, text, _ in _entries(language):
        fields = {name for _, name, _, _ in string.Formatter().parse(text) if name}
        if not fields & PERSON and not key.startswith(("hand.", "end.")):
            continue  # texts to "you" are plural in Russian and Ukrainian: no gender either
        words = [m.group(0) for m in GENDERED.finditer(text)]
        suspicious = [w for w in words if w not in NOT_A_VERB]
        assert not suspicious, f"{language} {key}: {suspicious} in {text!r}"
        assert not re.search(r"\{name\} — (?:дурак|дурень)", text), f"{language} {key}: a verdict on a person"


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_names_stay_in_the_nominative(language: str) -> None:
    """Names cannot be declined: no preposition or case-governing word right before a name."""
    governing = r"(?:под|на|у|к|от|для|с|за|під|до|від|з|гравця|игрока|игроку|гравцеві)"
    for key, text, _ in _entries(language):
        match = re.search(rf"\b{governing} \{{(?:name|target|defender|lead)\}}", text)
        assert match is None, f"{language} {key}: {text}"


def test_the_checks_catch_the_lines_players_saw() -> None:
    """The patterns above would have caught what a native read of real games found."""
    for seen in (
        "Маша вернулся",
        "Даша вышел из игры",
        "чтобы играть самому",
        "Олена повернувся",
        "Оксана вийшов",
    ):
        assert GENDERED.search(seen), seen
    assert re.search(r"\bпод \{name\}", "{lead} ходит под {name}")


# ---------------------------------------------------------------------- one word per thing

README = Path(__file__).resolve().parents[2] / "README.md"


def glossary() -> list[tuple[str, dict[str, tuple[str, list[str]]]]]:
    """The README's glossary: per thing, per language, the word to use and the words never to use."""
    lines = README.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| thing |"))
    languages = [cell.strip().lower()[:2] for cell in lines[start].strip("|").split("|")[1:]]
    found = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        thing, *cells = (cell.strip() for cell in line.strip("|").split("|"))
        words: dict[str, tuple[str, list[str]]] = {}
        for language, cell in zip(languages, cells, strict=True):
            use, _, avoid = cell.partition("(not")
            words[language] = (re.findall(r"`([^`]+)`", use)[0], re.findall(r"`([^`]+)`", avoid))
        found.append((thing, words))
    return found


def _plain(language: str) -> list[tuple[str, str]]:
    """Every text of a catalog without its placeholders, markup and commands: what a player reads."""
    return [(key, re.sub(r"\{\w*\}|<[^>]*>|/\w+", " ", text)) for key, text, _ in _entries(language)]


def _names(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(word)}", re.IGNORECASE)


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_thing_has_the_glossarys_one_word(language: str) -> None:
    texts_ = _plain(language)
    rows = glossary()
    assert len(rows) >= 10 and {"ru", "uk", "en"} <= set(rows[0][1])
    for thing, words in rows:
        use, avoid = words[language]
        assert any(_names(use).search(text) for _, text in texts_), f"{language}: {thing}: {use!r} unused"
        for word in avoid:
            wrong = [key for key, text in texts_ if _names(word).search(text)]
            assert not wrong, f"{language}: {thing} is {use!r}, not {word!r}: {wrong}"


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_no_double_negatives(language: str) -> None:
    for key, text in _plain(language):
        assert not re.search(r"(?<!\w)не\s+не", text, re.IGNORECASE), f"{language} {key}: {text}"


def test_no_ukrainian_calques_of_nechego() -> None:
    """«Нечего брать» is Russian; Ukrainian says «нема чого брати», never «брати нічого»."""
    for key, text in _plain("uk"):
        calque = re.search(r"нічого\s+\w+ти\b|\w+ти\s+нічого\b", text, re.IGNORECASE)
        assert calque is None, f"uk {key}: {text}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_ordinals_after_a_number_are_the_invariant_masculine_ones(language: str) -> None:
    """A suffix glued to a number is «-й»/«-го» (the same for every number in the masculine); any other
    (Ukrainian 1-ше, 2-ге, 3-тє; English 1st, 2nd) depends on the number and needs a helper: not a catalog."""
    allowed = {"ru": {"й", "го"}, "uk": {"й", "го"}, "en": set()}[language]
    for key, text, _ in _entries(language):
        for suffix in re.findall(r"\}-?(\w+)", text):
            if re.fullmatch(r"[а-яіїєґ]+|st|nd|rd|th", suffix):
                assert suffix in allowed, f"{language} {key}: an ordinal '-{suffix}' in {text!r}"


def test_the_glossary_checks_catch_what_players_saw() -> None:
    assert _names("бите").search("В бите пока ничего нет.") and _names("бито:").search("🗑 Бито: 12")
    assert re.search(r"(?<!\w)не\s+не", "Это не непобитая карта на столе.")
    assert re.search(r"\w+ти\s+нічого\b", "Брати нічого.")
    assert re.findall(r"\}-?(\w+)", "Ви посіли {place}-е місце") == ["е"]


# Lines a native reader flagged (docs of the review: ../shared/reviews/words-2026-12-06.md), never again.
BARRED = {
    "ru": ["за вас сыграет бот", "вне игры", "Бито:", "Ничья: да"],
    "uk": ["догравує", "Відповідьте", "виходить з гри", "Нічия: так"],
    "en": ["Nothing was rated", "(Pass)", "(Take)", "(Done)", "under the table", "Beaten off", "Draw: on"],
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_line_a_native_reader_flagged_comes_back(language: str) -> None:
    for key, text, _ in _entries(language):
        for phrase in BARRED[language]:
            assert phrase.lower() not in text.lower(), f"{language} {key}: {phrase!r} in {text!r}"
