"""A fake Telegram Bot API for end-to-end tests, served to PTB's real HTTP client as an httpx transport.

It behaves like Telegram where the bot can tell: long-polling getUpdates with offsets, message ids per
chat, edits, "message is not modified", answerCallbackQuery once, 403 for users who never started the bot,
the 4096-character limit (counted after the HTML is parsed, as Telegram does) and the 64-byte one, 429 with
retry_after on demand, group membership (getChatMember says "left" for a stranger), 403 from a group that
removed the bot, and a log of every send and edit per chat, with its text, for rate and content checks. Simulated users send commands and press the buttons they are shown.

Ephemeral messages (Bot API 10.3) too: a message in a group that only its receiver sees, edited and deleted
by the bot with (chat, receiver, ephemeral id). Telegram's rules ("Ephemeral Messages and Commands"): a bot
that is an administrator of the group (``bot_rights``) sends one to any member at any time; any other bot only
within 15 seconds of that member's press in that group, quoting its ``callback_query_id`` (once); edits and
deletions need neither. What the server holds and what each client shows are kept apart: a client that is
``offline`` misses sends, edits and deletions made meanwhile (the server still says ok), one too old
(``old_clients``) never shows any, an app restart (``restart_app``) drops every ephemeral message it showed,
and messages expire (``ephemeral_ttl``: gone on the server too). ``visible(user, chat)`` is what a user's
screen shows in a chat, for leak checks. A server older than 10.3 (``api_version``) answers 404 to the
ephemeral methods, as to any unknown method, and ignores the unknown parameter of sendMessage: the message
goes to the whole group. Telegram does not say how ephemeral messages count against its limits:
``ephemeral_limits`` picks a model, each receiver paced as a private chat of its own or inside the group's;
a 429 for any call into a chat holds the whole chat (``too_early`` records a call made inside it).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import itertools
import json
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import httpx

BOT_ID = 4242
BOT_USERNAME = "durak_test_bot"
TOKEN = "424242:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
BASE_URL = "http://fake-telegram.test/bot"


class ApiError(Exception):
    def __init__(
        self,
        code: int,
        description: str,
        retry_after: float | None = None,
        migrate_to: int | None = None,
        *,
        page: bool = False,
    ) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.retry_after = retry_after
        self.migrate_to = migrate_to
        self.page = page  # answered as a proxy's HTML error page, not as the Bot API's JSON


PROXY_PAGE = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1>"
    "</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
)


@dataclass
class Message:
    chat_id: int
    message_id: int
    text: str
    reply_markup: dict[str, Any] | None
    thread_id: int | None = None
    from_bot: bool = True
    reply_to: int | None = None  # the message this one answers
    at: float = 0.0  # when it was sent (time.monotonic())
    table_id: int | None = None  # tests remember the lobby's table here: the buttons go once the game starts
    receiver: int | None = None  # an ephemeral message: the one user who sees it
    # An ephemeral message as its receiver's client shows it (None: not shown), which can lag behind the
    # server's text and markup above while the client is offline; ``gone``: deleted on the server.
    seen: tuple[str, dict[str, Any] | None] | None = None
    gone: bool = False
    dropped: bool = False  # its receiver's app restarted: their client no longer has it

    def buttons(self, *, disabled: bool = False) -> list[tuple[str, str]]:
        """(label, data) of the buttons a player can press (``disabled``: those that do nothing too, which an
        older client lets them press)."""
        if not self.reply_markup:
            return []
        return [
            (b["text"], b.get("callback_data", ""))
            for row in self.reply_markup["inline_keyboard"]
            for b in row
            if disabled or not b.get("disabled")
        ]


@dataclass
class Sent:
    at: float
    method: str
    chat_id: int
    ok: bool
    text: str = ""
    sound: bool = False  # a new message without disable_notification: the phone sounds (an edit never does)
    markup: dict[str, Any] | None = None
    receiver: int | None = None  # an ephemeral message's receiver
    error: int = 0  # the error code of a refused call (429: past a limit)
    paid: bool = False  # sent with allow_paid_broadcast: past the free overall budget, for Stars


@dataclass(frozen=True)
class RateLimits:
    """Telegram's limits on sending (edits count), scaled in time like the bot's RATE_SCALE."""

    scale: float = 1.0
    chat_spacing: float = 1.0  # one message a second into a chat (a little early is let through, as Telegram)
    group_budget: int = 20  # a minute, into one group
    global_budget: int = 30  # a second, overall
    paid_budget: int = 1000  # a second, overall, for sends with allow_paid_broadcast (instead of the 30)
    retry_after: float = 1.0  # what a 429 asks for, in seconds (scaled too when ``scale_retry``)
    scale_retry: bool = False


RIGHTS = [
    "can_be_edited",
    "is_anonymous",
    "can_manage_chat",
    "can_delete_messages",
    "can_manage_video_chats",
    "can_restrict_members",
    "can_promote_members",
    "can_change_info",
    "can_invite_users",
    "can_post_stories",
    "can_edit_stories",
    "can_delete_stories",
]  # an administrator's rights, as getChatMember lists them

SENDS = (
    "sendMessage",
    "editMessageText",
    "editMessageReplyMarkup",
    "editEphemeralMessageText",
    "editEphemeralMessageReplyMarkup",
)
EPHEMERAL_METHODS = ("editEphemeralMessageText", "editEphemeralMessageReplyMarkup", "deleteEphemeralMessage")
EPHEMERAL_SINCE = (10, 3)  # the Bot API version that brought ephemeral_message_parameters
COMMANDS_SINCE = (10, 2)  # ephemeral commands: BotCommand.is_ephemeral
CALLBACK_ONLY_SINCE = (10, 4)  # an ephemeral answer to a press may leave out its receiver
FULL_INFO_SINCE = (10, 5)  # getMe answers BotFullInfo; callback_query_mode


@dataclass
class FakeTelegram:
    users: dict[int, dict[str, Any]] = field(default_factory=dict)
    started: set[int] = field(default_factory=set)
    chats: dict[int, dict[str, Any]] = field(default_factory=dict)
    messages: dict[int, dict[int, Message]] = field(default_factory=dict)
    updates: list[dict[str, Any]] = field(default_factory=list)
    answers: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    sent: list[Sent] = field(default_factory=list)
    deleted: list[tuple[int, int]] = field(default_factory=list)  # (chat, message) the bot deleted
    failures: dict[str, list[ApiError]] = field(default_factory=dict)
    commands: dict[str, Any] = field(default_factory=dict)
    profile: dict[str, str] = field(default_factory=dict)  # descriptions by "field:language_code"
    migrated: dict[int, int] = field(default_factory=dict)  # a group upgraded to a supergroup: old -> new id
    admins: dict[int, set[int]] = field(default_factory=dict)  # per group: its administrators
    # Per group where the bot is an administrator: the rights it was given ("can_delete_messages", ...).
    bot_rights: dict[int, set[str]] = field(default_factory=dict)
    members: dict[int, set[int]] = field(default_factory=dict)  # per group: who is in it (writers join it)
    removed: set[int] = field(default_factory=set)  # groups the bot was removed from: 403 on every send
    webhook: dict[str, Any] = field(default_factory=dict)  # setWebhook's url and secret_token, once set
    webhook_target: str | None = None  # where updates are posted in webhook mode (the test's local server)
    # A load balancer in front of several bot processes: updates go to these in turn, and to the next one
    # when a target cannot be reached (as nginx's proxy_next_upstream does).
    balance: list[str] = field(default_factory=list)
    _turn: itertools.count[int] = field(default_factory=itertools.count)
    _poster: httpx.AsyncClient | None = None
    webhook_answers: list[int] = field(default_factory=list)  # HTTP status of every update posted
    limits: RateLimits | None = None  # Telegram's rate limits, enforced with 429s (off unless set)
    calls: Counter[str] = field(default_factory=Counter)  # Bot API calls by method, refused ones included
    served: str | None = None  # the Bot API base URL while served over HTTP (see serve)
    too_early: list[tuple[int, str]] = field(default_factory=list)  # sends before a 429's retry_after ran out
    _blocked_until: dict[object, float] = field(default_factory=dict)
    ephemeral: dict[int, dict[int, Message]] = field(default_factory=dict)  # per group, by ephemeral id
    offline: set[int] = field(default_factory=set)  # users whose clients receive nothing ephemeral now
    old_clients: set[int] = field(default_factory=set)  # users whose clients cannot show ephemeral messages
    ephemeral_limits: str = (
        "group"  # "group": in the group's budget; "receiver": paced as a private chat each
    )
    api_version: tuple[int, int] = (10, 3)  # older than EPHEMERAL_SINCE: a server without ephemeral messages
    revoked: bool = False  # the bot's token revoked in @BotFather: every call answered 401
    outage: int | None = None  # Telegram down behind a proxy: every call answered with this status, a page
    refused: list[tuple[float, str, object]] = field(default_factory=list)  # calls in an outage: when, what
    paid_broadcasts: bool = (
        True  # the bot enabled them in @BotFather and has Stars: else a flagged send is 400
    )
    ephemeral_window: float = 15.0  # seconds a press allows a bot that is not an admin to answer it
    ephemeral_ttl: float | None = None  # seconds an ephemeral message lives (None: until deleted)
    queries: dict[str, tuple[int, int, float]] = field(default_factory=dict)  # press -> (user, chat, when)
    # Ephemeral commands users sent, by (group, ephemeral id): (who, when). A bot may answer one within 15 s.
    ephemeral_commands: dict[tuple[int, int], tuple[int, float]] = field(default_factory=dict)
    # Bot API 10.5's callback_query_mode, as set in @BotFather: "inline" sends every press on the bot's own
    # messages with inline_message_id instead of message (the bot cannot tell which chat it came from).
    callback_query_mode: str = "default"
    spent: set[str] = field(default_factory=set)  # presses an ephemeral message was sent for
    authors: dict[tuple[int, int], int] = field(default_factory=dict)  # (chat, message) -> who wrote it
    _changed: dict[int, asyncio.Event] = field(default_factory=dict)  # per chat: the bot sent or edited
    _answered: dict[str, asyncio.Event] = field(default_factory=dict)
    _update_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _callback_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _new_update: asyncio.Event = field(default_factory=asyncio.Event)

    # ------------------------------------------------------------------ the world

    def add_user(
        self,
        user_id: int,
        first_name: str,
        *,
        language: str = "en",
        started: bool = True,
        last_name: str | None = None,
    ) -> None:
        self.users[user_id] = {
            "id": user_id,
            "is_bot": False,
            "first_name": first_name,
            "language_code": language,
        }
        if last_name is not None:
            self.users[user_id]["last_name"] = last_name
        if started:
            self.started.add(user_id)

    def add_group(self, chat_id: int, title: str, *, forum: bool = False, supergroup: bool = False) -> None:
        kind = "supergroup" if forum or supergroup else "group"
        self.chats[chat_id] = {"id": chat_id, "type": kind, "title": title}
        if forum:
            self.chats[chat_id]["is_forum"] = True

    def chat(self, chat_id: int) -> dict[str, Any]:
        if chat_id in self.chats:
            return self.chats[chat_id]
        user = self.users[chat_id]
        return {"id": chat_id, "type": "private", "first_name": user["first_name"]}

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self._handle)

    # ------------------------------------------------------------------ what users do

    def _push(self, update: dict[str, Any]) -> None:
        update["update_id"] = next(self._update_ids)
        if self.webhook and (self.webhook_target or self.balance):
            asyncio.get_running_loop().create_task(self.post_update(update, self.webhook.get("secret_token")))
            return
        self.updates.append(update)
        self._new_update.set()

    async def post_update(self, update: dict[str, Any], secret: str | None) -> int:
        """Deliver an update as Telegram does in webhook mode: an HTTP POST with the secret token header (to
        the next of ``balance`` that answers, if set). Nobody answering is a 502, as from a load balancer."""
        targets = self.balance or ([self.webhook_target] if self.webhook_target else [])
        headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret else {}
        first = next(self._turn)
        status = 502
        if self._poster is None:  # one client, its connections kept: a client per update costs the bench CPU
            self._poster = httpx.AsyncClient()
        for i in range(len(targets)):
            target = targets[(first + i) % len(targets)]
            try:
                response = await self._poster.post(target, json=update, headers=headers, timeout=10)
            except httpx.TransportError:
                continue
            status = response.status_code
            break
        self.webhook_answers.append(status)
        return status

    def send(
        self,
        user_id: int,
        chat_id: int,
        text: str,
        *,
        thread_id: int | None = None,
        reply_to: int | None = None,
    ) -> int:
        """A user writes ``text`` in a chat (a group, or their private chat with the bot), maybe in reply to
        message ``reply_to`` of that chat."""
        if chat_id == user_id and text.startswith("/start"):
            self.started.add(user_id)
        if chat_id in self.chats:
            self.members.setdefault(chat_id, set()).add(user_id)
        message_id = self._next_id(chat_id)
        message: dict[str, Any] = {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": self.chat(chat_id),
            "from": self.users[user_id],
            "text": text,
        }
        if thread_id is not None:
            message["message_thread_id"] = thread_id
            message["is_topic_message"] = True
        if reply_to is not None:
            message["reply_to_message"] = self._message_json(self.messages[chat_id][reply_to])
        if text.startswith("/"):
            command = text.split()[0]
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command)}]
        self.messages.setdefault(chat_id, {})[message_id] = Message(
            chat_id, message_id, text, None, thread_id, False
        )
        self.authors[(chat_id, message_id)] = user_id
        self._push({"message": message})
        return message_id

    def send_ephemeral_command(
        self, user_id: int, chat_id: int, text: str, *, thread_id: int | None = None
    ) -> int:
        """A user sends a command in a group as an ephemeral message (Bot API 10.2): only the bot sees it.
        Telegram's apps offer that only for a command the bot's menu marks ``is_ephemeral``; returns its
        ephemeral id."""
        name = text.split()[0].lstrip("/").split("@")[0]
        marked = any(
            c.get("command") == name and c.get("is_ephemeral") is True
            for key, menu in self.commands.items()
            if key.startswith('{"type": "all_group_chats"}')
            for c in menu
        )
        assert self.api_version >= COMMANDS_SINCE and marked, (
            f"the bot's menu does not mark /{name} ephemeral"
        )
        self.members.setdefault(chat_id, set()).add(user_id)
        taken = [i for (c, i) in self.ephemeral_commands if c == chat_id]
        ephemeral_id = max([*self.ephemeral.get(chat_id, {}), *taken], default=0) + 1
        self.ephemeral_commands[(chat_id, ephemeral_id)] = (user_id, time.monotonic())
        message: dict[str, Any] = {
            "message_id": 0,
            "ephemeral_message_id": ephemeral_id,
            "receiver_user": {"id": BOT_ID, "is_bot": True, "first_name": "Durak", "username": BOT_USERNAME},
            "date": int(time.time()),
            "chat": self.chat(chat_id),
            "from": self.users[user_id],
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}],
        }
        if thread_id is not None:
            message["message_thread_id"] = thread_id
            message["is_topic_message"] = True
        self._push({"message": message})
        return ephemeral_id

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> str:
        """A user presses a button with ``data`` under a message; returns the callback query id."""
        message = self.messages[chat_id][message_id]
        if chat_id in self.chats:
            self.members.setdefault(chat_id, set()).add(user_id)
        return self._callback(user_id, chat_id, data, self._message_json(message))

    def press_ephemeral(
        self, user_id: int, chat_id: int, ephemeral_id: int, data: str, *, forged: bool = False
    ) -> str:
        """A user presses a button with ``data`` under an ephemeral message their client shows; returns the
        callback query id. Nobody else can (nobody else's client shows it), unless ``forged``: a client that
        sends such a press anyway, as a bot's must expect."""
        message = self.ephemeral[chat_id][ephemeral_id]
        assert forged or (message.receiver == user_id and message.seen is not None), (
            "only its receiver sees it"
        )
        shown = self._ephemeral_json(message)
        shown["text"], markup = message.seen or (message.text, message.reply_markup)
        if markup:
            shown["reply_markup"] = markup
        return self._callback(user_id, chat_id, data, shown)

    def _callback(self, user_id: int, chat_id: int, data: str, message: dict[str, Any]) -> str:
        callback_id = str(next(self._callback_ids))
        self.answers[callback_id] = []
        self.queries[callback_id] = (user_id, chat_id, time.monotonic())
        query = {
            "id": callback_id,
            "from": self.users[user_id],
            "chat_instance": str(chat_id),
            "data": data,
            "message": message,
        }
        if self.callback_query_mode == "inline" and self.api_version >= FULL_INFO_SINCE:
            del query["message"]  # the press says neither its chat nor its message
            query["inline_message_id"] = f"AgAAA{chat_id}x{message.get('message_id')}"
        self._push({"callback_query": query})
        return callback_id

    def bot_membership(self, chat_id: int, by: int, *, added: bool) -> None:
        """A user adds the bot to a group, or removes it (then every send there gets a 403)."""
        if added:
            self.removed.discard(chat_id)
        else:
            self.removed.add(chat_id)
        me = {"id": BOT_ID, "is_bot": True, "first_name": "Durak", "username": BOT_USERNAME}
        statuses = ("left", "member") if added else ("member", "left")
        self._push(
            {
                "my_chat_member": {
                    "chat": self.chat(chat_id),
                    "from": self.users[by],
                    "date": int(time.time()),
                    "old_chat_member": {"status": statuses[0], "user": me},
                    "new_chat_member": {"status": statuses[1], "user": me},
                }
            }
        )

    def promote_bot(self, chat_id: int, by: int, rights: set[str] | None = None) -> None:
        """A group admin makes the bot an administrator (with ``rights``), or takes that away (``rights``
        None): Telegram tells the bot with a my_chat_member update."""
        me = {"id": BOT_ID, "is_bot": True, "first_name": "Durak", "username": BOT_USERNAME}
        admin: dict[str, Any] = {"status": "administrator", "user": me, **dict.fromkeys(RIGHTS, False)}
        member: dict[str, Any] = {"status": "member", "user": me}
        if rights is None:
            self.bot_rights.pop(chat_id, None)
            old, new = admin, member
        else:
            self.bot_rights[chat_id] = set(rights)
            old, new = member, admin | dict.fromkeys(rights, True)
        change = {"chat": self.chat(chat_id), "from": self.users[by], "date": int(time.time())}
        self._push({"my_chat_member": {**change, "old_chat_member": old, "new_chat_member": new}})

    def restart_app(self, user_id: int) -> None:
        """The user's Telegram app restarts: the ephemeral messages it showed are gone from their screen for
        good (the server may still hold them)."""
        for kept in self.ephemeral.values():
            for message in kept.values():
                if message.receiver == user_id:
                    message.seen, message.dropped = None, True

    def upgrade(self, chat_id: int, new_id: int) -> None:
        """The group becomes a supergroup with a new id; the old id answers with migrate_to_chat_id."""
        self.chats[new_id] = {**self.chats[chat_id], "id": new_id, "type": "supergroup"}
        self.migrated[chat_id] = new_id

    def changed(self, chat_id: int) -> asyncio.Event:
        """Set whenever the bot sends or edits a message in the chat (clear it before waiting again)."""
        return self._changed.setdefault(chat_id, asyncio.Event())

    def answered(self, callback_id: str) -> asyncio.Event:
        return self._answered.setdefault(callback_id, asyncio.Event())

    def fail_next(self, method: str, error: ApiError) -> None:
        self.failures.setdefault(method, []).append(error)

    # ------------------------------------------------------------------ what tests look at

    def bot_messages(self, chat_id: int) -> list[Message]:
        return [m for m in self.messages.get(chat_id, {}).values() if m.from_bot]

    def last(self, chat_id: int) -> Message | None:
        found = self.bot_messages(chat_id)
        return found[-1] if found else None

    def shown_to(self, user_id: int, chat_id: int) -> list[Message]:
        """The ephemeral messages a user's client shows in a group now, oldest first."""
        self._expire()
        return [
            m
            for m in self.ephemeral.get(chat_id, {}).values()
            if m.receiver == user_id and m.seen is not None
        ]

    def visible(self, user_id: int, chat_id: int) -> list[str]:
        """Every text a user's screen shows in a chat: the chat's messages, and the ephemeral ones their client
        shows (for leak checks: nothing in it may show another player's cards)."""
        texts = [m.text for m in self.messages.get(chat_id, {}).values()]
        return texts + [m.seen[0] for m in self.shown_to(user_id, chat_id) if m.seen is not None]

    def edits_in(self, chat_id: int) -> list[float]:
        return [s.at for s in self.sent if s.chat_id == chat_id and s.ok]

    async def answer_to(self, chat_id: int, asked: int) -> Message:
        """The bot's reply to message ``asked`` of a chat, once it comes."""
        answer: Message = await self.wait_for(
            lambda: next((m for m in self.bot_messages(chat_id) if m.reply_to == asked), None),
            what=f"a reply to message {asked}",
        )
        return answer

    async def ask(
        self,
        user_id: int,
        chat_id: int,
        text: str,
        *,
        thread_id: int | None = None,
        reply_to: int | None = None,
    ) -> Message:
        """A user writes ``text`` in a chat (see ``send``); the bot's reply to it."""
        return await self.answer_to(
            chat_id, self.send(user_id, chat_id, text, thread_id=thread_id, reply_to=reply_to)
        )

    async def wait_for(
        self, check: Callable[[], object], timeout: float = 10.0, what: str = "condition"
    ) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            result = check()
            if result:
                return result
            await asyncio.sleep(0.01)
        raise AssertionError(f"timed out waiting for {what}")

    # ------------------------------------------------------------------ the API

    def _next_id(self, chat_id: int) -> int:
        return max(self.messages.get(chat_id, {}), default=0) + 1

    def _ephemeral_json(self, m: Message) -> dict[str, Any]:
        """An ephemeral message as the Bot API gives it: its own id, its receiver, and no usable message_id."""
        assert m.receiver is not None
        data = self._message_json(m)
        data["message_id"] = 0
        data["ephemeral_message_id"] = m.message_id
        data["receiver_user"] = self.users[m.receiver]
        return data

    def _message_json(self, m: Message) -> dict[str, Any]:
        data: dict[str, Any] = {
            "message_id": m.message_id,
            "date": int(time.time()),
            "chat": self.chat(m.chat_id),
            "text": m.text,
            "from": {"id": BOT_ID, "is_bot": True, "first_name": "Durak", "username": BOT_USERNAME}
            if m.from_bot
            else self.users[self.authors[(m.chat_id, m.message_id)]],
        }
        if m.reply_markup:
            data["reply_markup"] = m.reply_markup
        if m.thread_id is not None:
            data["message_thread_id"] = m.thread_id
        return data

    async def _handle(self, request: httpx.Request) -> httpx.Response:
        status, body = await self.call(request.url.path.rsplit("/", 1)[-1], request.content)
        if isinstance(body, str):
            return httpx.Response(status, text=body, headers={"Content-Type": "text/html"})
        return httpx.Response(status, json=body)

    async def call(self, method: str, content: bytes) -> tuple[int, dict[str, Any] | str]:
        """One Bot API call: the method name and the form-encoded body PTB sends; (HTTP status, JSON body, or
        the HTML page a proxy answers with)."""
        params: dict[str, Any] = {}
        for key, value in parse_qsl(content.decode(), keep_blank_values=True):
            try:
                params[key] = json.loads(value)
            except json.JSONDecodeError:
                params[key] = value
        self.calls[method] += 1
        if self.revoked:  # the token was revoked in @BotFather: every call, whatever it is
            return 401, {"ok": False, "error_code": 401, "description": "Unauthorized"}
        if self.outage is not None:
            self.refused.append((time.monotonic(), method, params.get("chat_id")))
            return self.outage, PROXY_PAGE
        api = getattr(self, f"_api_{method}", None)
        if api is None or (method in EPHEMERAL_METHODS and self.api_version < EPHEMERAL_SINCE):
            return 404, {"ok": False, "error_code": 404, "description": "Not Found"}
        self._expire()
        receiver = _receiver(params)
        try:
            queued = self.failures.get(method)
            if queued:
                raise queued.pop(0)
            paid = method == "sendMessage" and params.get("allow_paid_broadcast") is True
            if paid and not self.paid_broadcasts:
                raise ApiError(400, "Bad Request: paid broadcasts are not available for the bot")
            if method in SENDS and isinstance(params.get("chat_id"), int):
                self._check_rate(int(params["chat_id"]), method, receiver, paid)
            result = await api(params)
        except ApiError as err:
            if err.page:
                return err.code, PROXY_PAGE
            chat = params.get("chat_id")
            if isinstance(chat, int) and method in SENDS:
                text = str(params.get("text", ""))
                flagged = method == "sendMessage" and params.get("allow_paid_broadcast") is True
                self.sent.append(
                    Sent(
                        time.monotonic(),
                        method,
                        chat,
                        False,
                        text,
                        receiver=receiver,
                        error=err.code,
                        paid=flagged,
                    )
                )
            body: dict[str, Any] = {"ok": False, "error_code": err.code, "description": err.description}
            if err.retry_after is not None and isinstance(chat, int):  # Telegram's limits are per chat
                self._blocked_until[chat] = time.monotonic() + err.retry_after
            if err.retry_after is not None:
                body["parameters"] = {"retry_after": err.retry_after}
            if err.migrate_to is not None:
                body["parameters"] = {"migrate_to_chat_id": err.migrate_to}
            return err.code, body
        return 200, {"ok": True, "result": result}

    def _lane(self, chat_id: int, receiver: int | None) -> object:
        """Whose limits a call counts against: its chat's, or (ephemeral, receiver model) its receiver's."""
        return chat_id if receiver is None or self.ephemeral_limits == "group" else ("to", receiver)

    def _check_rate(self, chat_id: int, method: str, receiver: int | None = None, paid: bool = False) -> None:
        """429 past Telegram's limits; a send before a 429's retry_after has run out is also recorded."""
        now = time.monotonic()
        lane = self._lane(chat_id, receiver)
        if now < self._blocked_until.get(chat_id, 0.0):
            self.too_early.append((chat_id, method))
        limits = self.limits
        if limits is None:
            return
        ok = [s for s in self.sent if s.ok]
        mine = [s.at for s in ok if self._lane(s.chat_id, s.receiver) == lane]
        spacing, window, second = (
            limits.chat_spacing * limits.scale * 0.8,
            60 * limits.scale,
            1.0 * limits.scale,
        )
        group = isinstance(lane, int) and lane < 0
        over = (
            (mine and now - mine[-1] < spacing)
            or (group and sum(1 for t in mine if t > now - window) >= limits.group_budget)
            # The overall limit: the free one, or for a paid broadcast the higher paid one (chats' stay).
            or sum(1 for s in ok if s.at > now - second and s.paid == paid)
            >= (limits.paid_budget if paid else limits.global_budget)
        )
        if over:
            wait = limits.retry_after * (limits.scale if limits.scale_retry else 1.0)
            raise ApiError(429, f"Too Many Requests: retry after {wait:g}", retry_after=wait)

    async def serve(self, host: str = "127.0.0.1", port: int = 0) -> tuple[Any, int]:
        """Serve the fake over real HTTP (aiohttp) for a bot in another process; returns (runner, port)."""
        from aiohttp import web

        async def handle(request: web.Request) -> web.Response:
            status, body = await self.call(request.match_info["method"], await request.read())
            if isinstance(body, str):
                return web.Response(text=body, status=status, content_type="text/html")
            return web.json_response(body, status=status)

        app = web.Application()
        app.router.add_post("/bot{token}/{method}", handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None) or []
        return runner, int(sockets[0].getsockname()[1])

    async def _api_getMe(self, params: dict[str, Any]) -> dict[str, Any]:
        me = {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Durak",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }
        if self.api_version >= FULL_INFO_SINCE:  # BotFullInfo: more settings, still not callback_query_mode
            me |= {
                "active_usernames": [BOT_USERNAME],
                "needs_inline_query_location": False,
                "has_topics_enabled": False,
                "has_topic_sidebar": False,
            }
        return me

    async def _api_deleteWebhook(self, params: dict[str, Any]) -> bool:
        self.webhook = {}
        return True

    async def _api_setWebhook(self, params: dict[str, Any]) -> bool:
        if not str(params.get("url", "")).startswith("https://"):
            raise ApiError(400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook")
        self.webhook = {"url": params["url"], "secret_token": params.get("secret_token")}
        return True

    async def _api_setMyCommands(self, params: dict[str, Any]) -> bool:
        scope = json.dumps(params.get("scope", {}), sort_keys=True)
        commands = [dict(c) for c in params["commands"]]
        for command in commands:
            if not isinstance(command.get("is_ephemeral", False), bool):
                raise ApiError(400, "Bad Request: can't parse BotCommand: is_ephemeral")
            if self.api_version < COMMANDS_SINCE:
                command.pop("is_ephemeral", None)  # an older server ignores what it does not know
        self.commands[f"{scope}:{params.get('language_code', '')}"] = commands
        return True

    async def _api_getMyCommands(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        scope = json.dumps(params.get("scope", {}), sort_keys=True)
        return list(self.commands.get(f"{scope}:{params.get('language_code', '')}", []))

    # Telegram's limits: a description of at most 512 characters, a short one of at most 120.
    async def _api_setMyDescription(self, params: dict[str, Any]) -> bool:
        return self._describe("description", params, 512)

    async def _api_setMyShortDescription(self, params: dict[str, Any]) -> bool:
        return self._describe("short_description", params, 120)

    def _describe(self, field: str, params: dict[str, Any], limit: int) -> bool:
        text = str(params.get(field, ""))
        if len(text) > limit:
            raise ApiError(400, f"Bad Request: {field.replace('_', ' ')} is too long")
        self.profile[f"{field}:{params.get('language_code', '')}"] = text
        return True

    async def _api_getMyDescription(self, params: dict[str, Any]) -> dict[str, str]:
        return {"description": self.profile.get(f"description:{params.get('language_code', '')}", "")}

    async def _api_getMyShortDescription(self, params: dict[str, Any]) -> dict[str, str]:
        key = f"short_description:{params.get('language_code', '')}"
        return {"short_description": self.profile.get(key, "")}

    async def _api_getUpdates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset", 0) or 0)
        self.updates = [u for u in self.updates if u["update_id"] >= offset]
        if not self.updates:
            self._new_update.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self._new_update.wait(), timeout=float(params.get("timeout", 0) or 0) or 0.01
                )
        return list(self.updates[: int(params.get("limit", 100) or 100)])

    def _check_text(self, params: dict[str, Any]) -> None:
        text = str(params.get("text", ""))
        if not text:
            raise ApiError(400, "Bad Request: message text is empty")
        if shown_length(text) > 4096:
            raise ApiError(400, "Bad Request: message is too long")
        markup = params.get("reply_markup")
        if markup:
            for row in markup["inline_keyboard"]:
                for button in row:
                    if len(button.get("callback_data", "").encode()) > 64:
                        raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
                    # Bot API 9.4's colours and 10.3's disabled buttons, as documented (older servers: ignored).
                    if button.get("style") not in (None, "danger", "success", "primary"):
                        raise ApiError(400, "Bad Request: can't parse inline keyboard button: wrong style")
                    if not isinstance(button.get("disabled", False), bool):
                        raise ApiError(400, "Bad Request: can't parse inline keyboard button: disabled")

    def _check_chat(self, chat_id: int) -> None:
        if chat_id in self.removed:
            raise ApiError(403, "Forbidden: bot was kicked from the group chat")
        if chat_id in self.migrated:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                migrate_to=self.migrated[chat_id],
            )
        if chat_id in self.chats:
            return
        if chat_id not in self.users:
            raise ApiError(400, "Bad Request: chat not found")
        if chat_id not in self.started:
            raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")

    async def _api_sendMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id = int(params["chat_id"])
        self._check_chat(chat_id)
        self._check_text(params)
        if params.get("ephemeral_message_parameters") and self.api_version >= EPHEMERAL_SINCE:
            return self._send_ephemeral(chat_id, params)  # (an older server ignores the parameter)
        if (params.get("reply_parameters") or {}).get("ephemeral_message_id") is not None:
            raise ApiError(400, "Bad Request: a reply to an ephemeral message must be ephemeral")
        message = Message(
            chat_id,
            self._next_id(chat_id),
            params["text"],
            params.get("reply_markup"),
            params.get("message_thread_id"),
            reply_to=params.get("reply_to_message_id")
            or (params.get("reply_parameters") or {}).get("message_id"),
            at=time.monotonic(),
        )
        self.messages.setdefault(chat_id, {})[message.message_id] = message
        sound = not params.get("disable_notification")
        paid = params.get("allow_paid_broadcast") is True
        self.sent.append(
            Sent(
                time.monotonic(),
                "sendMessage",
                chat_id,
                True,
                message.text,
                sound,
                message.reply_markup,
                paid=paid,
            )
        )
        self.changed(chat_id).set()
        return self._message_json(message)

    async def _api_editMessageText(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id, message_id = int(params["chat_id"]), int(params["message_id"])
        self._check_chat(chat_id)
        self._check_text(params)
        message = self.messages.get(chat_id, {}).get(message_id)
        if message is None or not message.from_bot:
            raise ApiError(400, "Bad Request: message to edit not found")
        markup = params.get("reply_markup")
        if message.text == params["text"] and message.reply_markup == markup:
            raise ApiError(
                400,
                "Bad Request: message is not modified: specified new message content and reply markup are "
                "exactly the same as a current content and reply markup of the message",
            )
        message.text, message.reply_markup = params["text"], markup
        self.sent.append(
            Sent(time.monotonic(), "editMessageText", chat_id, True, message.text, False, markup)
        )
        self.changed(chat_id).set()
        return self._message_json(message)

    def _send_ephemeral(self, chat_id: int, params: dict[str, Any]) -> dict[str, Any]:
        press = str(params["ephemeral_message_parameters"].get("callback_query_id", ""))
        receiver = _receiver(params)
        if receiver is None and press in self.queries and self.api_version >= CALLBACK_ONLY_SINCE:
            receiver = self.queries[press][0]  # 10.4: the press says whom it answers
        if chat_id not in self.chats:
            raise ApiError(400, "Bad Request: ephemeral messages can be sent only to group chats")
        if receiver not in self.users or receiver not in self.members.get(chat_id, set()):
            raise ApiError(400, "Bad Request: the receiver is not a member of the chat")
        command = (params.get("reply_parameters") or {}).get("ephemeral_message_id")
        asked = self.ephemeral_commands.get((chat_id, int(command))) if command is not None else None
        if command is not None and (asked is None or asked[0] != receiver):
            raise ApiError(400, "Bad Request: message to be replied not found")
        # Not an administrator: only as the answer to the receiver's press, or their ephemeral command.
        if chat_id not in self.bot_rights and asked is not None:
            if time.monotonic() - asked[1] > self.ephemeral_window:
                raise ApiError(400, "Bad Request: not enough rights to send an ephemeral message to the user")
        elif chat_id not in self.bot_rights:
            found = self.queries.get(press)
            if (
                found is None
                or found[:2] != (receiver, chat_id)
                or time.monotonic() - found[2] > self.ephemeral_window
                or press in self.spent
            ):
                raise ApiError(400, "Bad Request: not enough rights to send an ephemeral message to the user")
            self.spent.add(press)
        kept = self.ephemeral.setdefault(chat_id, {})
        message = Message(
            chat_id,
            max(kept, default=0) + 1,
            params["text"],
            params.get("reply_markup"),
            params.get("message_thread_id"),
            at=time.monotonic(),
            receiver=receiver,
        )
        kept[message.message_id] = message
        self._deliver(message)
        sound = not params.get("disable_notification")
        self.sent.append(
            Sent(
                message.at, "sendMessage", chat_id, True, message.text, sound, message.reply_markup, receiver
            )
        )
        self.changed(chat_id).set()
        return self._ephemeral_json(message)

    def _deliver(self, message: Message) -> None:
        """The receiver's client shows what the server holds now, if it is online and can show it."""
        if message.dropped:
            return
        if message.receiver not in self.offline and message.receiver not in self.old_clients:
            message.seen = None if message.gone else (message.text, message.reply_markup)

    def _expire(self) -> None:
        """Ephemeral messages past ``ephemeral_ttl`` are gone, on the server and on their receiver's screen."""
        if self.ephemeral_ttl is None:
            return
        oldest = time.monotonic() - self.ephemeral_ttl
        for kept in self.ephemeral.values():
            for message in kept.values():
                if not message.gone and message.at < oldest:
                    message.gone, message.seen = True, None

    def _ephemeral_message(self, params: dict[str, Any], action: str) -> Message:
        for name in ("chat_id", "receiver_user_id", "ephemeral_message_id"):
            if name not in params:
                raise ApiError(400, f"Bad Request: {name} is empty")
        chat_id, receiver = int(params["chat_id"]), int(params["receiver_user_id"])
        self._check_chat(chat_id)
        found = self.ephemeral.get(chat_id, {}).get(int(params["ephemeral_message_id"]))
        if found is None or found.gone or found.receiver != receiver:
            raise ApiError(400, f"Bad Request: message to {action} not found")
        return found

    async def _api_editEphemeralMessageText(self, params: dict[str, Any]) -> bool:
        self._check_text(params)
        message = self._ephemeral_message(params, "edit")
        self._edit_ephemeral(message, params["text"], params.get("reply_markup"), "editEphemeralMessageText")
        return True

    async def _api_editEphemeralMessageReplyMarkup(self, params: dict[str, Any]) -> bool:
        message = self._ephemeral_message(params, "edit")
        markup = params.get("reply_markup")
        self._edit_ephemeral(message, message.text, markup, "editEphemeralMessageReplyMarkup")
        return True

    def _edit_ephemeral(
        self, message: Message, text: str, markup: dict[str, Any] | None, method: str
    ) -> None:
        if message.text == text and message.reply_markup == markup:
            raise ApiError(400, "Bad Request: message is not modified")
        message.text, message.reply_markup = text, markup
        self._deliver(message)
        self.sent.append(
            Sent(time.monotonic(), method, message.chat_id, True, text, False, markup, message.receiver)
        )
        self.changed(message.chat_id).set()

    async def _api_deleteEphemeralMessage(self, params: dict[str, Any]) -> bool:
        message = self._ephemeral_message(params, "delete")
        message.gone = True
        self._deliver(message)
        return True

    async def _api_deleteMessage(self, params: dict[str, Any]) -> bool:
        chat_id, message_id = int(params["chat_id"]), int(params["message_id"])
        message = self.messages.get(chat_id, {}).get(message_id)
        if message is None:
            raise ApiError(400, "Bad Request: message to delete not found")
        self._check_deletable(message)
        del self.messages[chat_id][message_id]
        self.deleted.append((chat_id, message_id))
        return True

    async def _api_deleteMessages(self, params: dict[str, Any]) -> bool:
        """Up to 100 messages of one chat at once; those not found are skipped (as Telegram says). One that
        the bot may not delete refuses the whole call here, a stricter reading than Telegram documents."""
        chat_id, ids = int(params["chat_id"]), [int(i) for i in params["message_ids"]]
        if not 1 <= len(ids) <= 100:
            raise ApiError(400, "Bad Request: too many messages to delete")
        found = [m for i in ids if (m := self.messages.get(chat_id, {}).get(i)) is not None]
        for message in found:
            self._check_deletable(message)
        for message in found:
            del self.messages[chat_id][message.message_id]
            self.deleted.append((chat_id, message.message_id))
        return True

    def _check_deletable(self, message: Message) -> None:
        """The bot deletes its own messages; others' in a group only with the admin right to."""
        if message.from_bot or message.chat_id > 0:
            return
        if "can_delete_messages" not in self.bot_rights.get(message.chat_id, set()):
            raise ApiError(400, "Bad Request: message can't be deleted")

    async def _api_answerCallbackQuery(self, params: dict[str, Any]) -> bool:
        callback_id = str(params["callback_query_id"])
        if callback_id not in self.answers:
            raise ApiError(
                400, "Bad Request: query is too old and response timeout expired or query ID is invalid"
            )
        if self.answers[callback_id]:
            raise ApiError(
                400, "Bad Request: query is too old and response timeout expired or query ID is invalid"
            )
        self.answers[callback_id].append(params)
        self.answered(callback_id).set()
        return True

    async def _api_getChatMember(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id, user_id = int(params["chat_id"]), int(params["user_id"])
        if user_id == BOT_ID:
            me = {"id": BOT_ID, "is_bot": True, "first_name": "Durak", "username": BOT_USERNAME}
            if chat_id not in self.bot_rights:
                return {"status": "member", "user": me}
            rights = dict.fromkeys(RIGHTS, False) | dict.fromkeys(self.bot_rights[chat_id], True)
            return {"status": "administrator", "user": me, **rights}
        if user_id not in self.users:
            raise ApiError(400, "Bad Request: user not found")
        if user_id not in self.admins.get(chat_id, set()):
            inside = user_id in self.members.get(chat_id, set())
            return {"status": "member" if inside else "left", "user": self.users[user_id]}
        return {"status": "administrator", "user": self.users[user_id], **dict.fromkeys(RIGHTS, False)}


def _receiver(params: dict[str, Any]) -> int | None:
    """The receiver of an ephemeral call: in ``ephemeral_message_parameters`` of a send, or given by edits
    and deletions; None for an ordinary call."""
    found = (params.get("ephemeral_message_parameters") or {}).get("receiver_user_id") or params.get(
        "receiver_user_id"
    )
    return int(found) if found is not None else None


def shown_length(text: str) -> int:
    """What Telegram counts against the 4096 limit: the text after HTML parsing, in UTF-16 code units."""
    plain = html.unescape(re.sub(r"<[^>]*>", "", text))
    return len(plain.encode("utf-16-le")) // 2
