"""What the outbox works with: a message as it should show now (``Draft``), what one chat's sends have been
(``Pace``), and what a call to Telegram that did not go through asks of the sender (``TryAgain``, ``Gone``)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from telegram import InlineKeyboardMarkup

from bot.ephemeral import Grant


@dataclass(frozen=True, slots=True)
class Draft:
    """What one message should show now. ``message_id`` None: send it as a new message, which makes the
    phone sound (an edit never does), and then delete ``replaces``: the same message moved to the bottom of
    the chat with a notification, instead of a second message. ``receiver``: an ephemeral message in group
    ``chat_id`` that only this user sees (bot.ephemeral); ``message_id`` is then its ephemeral id.
    ``deletes``: no message to show, but these of the chat to delete (a tidy chat after a game)."""

    chat_id: int
    message_id: int | None
    text: str
    keyboard: InlineKeyboardMarkup | None
    thread_id: int | None = None
    reply_to: int | None = None
    replaces: int | None = None
    receiver: int | None = None
    deletes: tuple[int, ...] = ()
    answers: Grant | None = None  # an ephemeral message sent as the answer to this press or command


@dataclass
class Pace:
    """What one chat's sends have been: when each went out, and how long Telegram asked us to wait."""

    sent: deque[float] = field(default_factory=deque)  # when each send of the window went out
    blocked_until: float = 0.0  # a 429's retry_after, or a pause after a network failure
    calls: int = 0  # calls made, ever, as budget.COST counts them (tells whether a piece of work spent any)


class TryAgain(Exception):
    """The work stays queued: Telegram asked us to wait (nothing more into ``chat_id`` before ``until``), or
    (``failure``) the network failed."""

    def __init__(
        self, *, failure: bool, chat_id: int | None = None, until: float = 0.0, reason: str = ""
    ) -> None:
        super().__init__()
        self.failure = failure
        self.chat_id = chat_id
        self.until = until
        self.reason = reason

    @classmethod
    def failed(cls, exc: Exception, doing: str = "") -> TryAgain:
        """A call that failed (a network failure, Telegram's 5xx), said in a few words: PTB quotes a proxy's
        whole error page after them."""
        return cls(failure=True, reason=f"{doing}{type(exc).__name__}: {short(exc)}")


def short(exc: Exception) -> str:
    return str(exc).split(". Parsing the server response", 1)[0][:160]


class Unpaid(TryAgain):
    """Telegram refused a paid broadcast (paid broadcasts off in @BotFather, or no Stars left): the work stays
    queued, to go within the free budget, and nothing more is paid for until a restart."""

    def __init__(self, reason: str) -> None:
        super().__init__(failure=False, reason=reason)


class Gone(Exception):
    """An in-group hand is gone (expired, deleted) and may not be sent anew now: the bot is not an
    administrator there and its player has not pressed anything lately. It comes back when they do."""
