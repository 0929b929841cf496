"""The lobby: its message and keyboard, and how an option reads (pure)."""

from __future__ import annotations

import html
from collections.abc import Collection, Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import LobbyAction, LobbyPress, encode
from bot.i18n import Text
from bot.render.faces import TEAM_MARKS
from bot.render.group import short
from engine.compiled_rules import team_of
from engine.options import CHOICES, TRANSFER_ONLY, Options, Variant


def option_label(options: Options, name: str, t: Text) -> str:
    value = getattr(options, name)
    if isinstance(value, bool):
        shown = t("option.on") if value else t("option.off")
    elif value is None:
        shown = t("option.seats_auto") if name == "seats" else t("option.default")
    elif name == "variant":
        shown = t(f"variant.{value.value}")
    elif name in ("throw_in", "attack_cap", "rematch_lead", "bot_level"):
        shown = t(f"option.{name}_{value.value}")
    elif name == "deck":
        return t.plural("option.deck", value)  # "24 карты", "36 карт"
    else:
        shown = str(value)
    return t(f"option.{name}", value=shown)


def summary(options: Options, t: Text) -> list[str]:
    """The options that differ from the defaults, one per line (the variant and deck always)."""
    defaults = Options()
    names = ["variant", "deck"] + [n for n in CHOICES if n not in ("variant", "deck")]
    lines = []
    for name in names:
        if name in TRANSFER_ONLY and options.variant is not Variant.TRANSFER:
            continue
        if name in ("variant", "deck") or getattr(options, name) != getattr(defaults, name):
            lines.append(option_label(options, name, t))
    return lines


def lobby_text(
    options: Options,
    creator: str,
    players: Sequence[str],
    t: Text,
    *,
    bots: bool = False,
    walked: Collection[int] = (),
) -> str:
    """The lobby; with ``bots`` (a bot is seated, or the options are open) it says how the bots play. The
    seats in ``walked`` are marked: their players left or ran out of time in most of their recent games."""
    lines = [f"<b>{t('lobby.title', variant=t('variant.' + options.variant.value))}</b>"]
    lines.append(t("lobby.created_by", name=short(creator)))
    lines.extend(f"· {line}" for line in summary(options, t))
    lines.append("")
    lines.append(t("lobby.seated", count=len(players), max=options.max_players))
    for seat, name in enumerate(players):
        mark = f"{TEAM_MARKS[team_of(seat)]} " if options.teams else ""  # the seat a player takes is its team
        lines.append(f"{seat + 1}. {mark}{html.escape(name)}" + (" 🚪" if seat in walked else ""))
    if walked:
        lines.append(t("lobby.walked_away"))
    if not players:
        lines.append(t("lobby.nobody"))
    elif options.teams:
        lines.append(t("lobby.teams", a=TEAM_MARKS[0], b=TEAM_MARKS[1]))
    if bots:
        level = options.bot_level.value
        lines.append(t("lobby.bot_level", level=t(f"option.bot_level_{level}"), how=t(f"level.{level}")))
    lines.append("")
    lines.append(t("lobby.hint_teams" if options.teams else "lobby.hint"))  # a team game needs 4 or 6
    return "\n".join(lines)


def lobby_keyboard(
    table_id: int, t: Text, *, editing: bool = False, options: Options | None = None
) -> InlineKeyboardMarkup:
    def button(label: str, action: LobbyAction, option: str = "") -> InlineKeyboardButton:
        data = encode(LobbyPress(table_id, action, option))
        return InlineKeyboardButton(label, callback_data=data, style="success" if action == "start" else None)

    if editing:
        assert options is not None
        rows = [
            [button(option_label(options, name, t), "set", name)]
            for name in CHOICES
            if name not in TRANSFER_ONLY or options.variant is Variant.TRANSFER
        ]
        # Joining, leaving and dealing stay one tap away while the options are open.
        rows.append([button(t("lobby.join"), "join"), button(t("lobby.leave"), "leave")])
        rows.append([button(t("lobby.done"), "done"), button(t("lobby.start"), "start")])
        return InlineKeyboardMarkup(rows)
    return InlineKeyboardMarkup(
        [
            [button(t("lobby.join"), "join"), button(t("lobby.leave"), "leave")],
            [button(t("lobby.add_bot"), "bot"), button(t("lobby.options"), "options")],
            [button(t("lobby.start"), "start")],
        ]
    )
