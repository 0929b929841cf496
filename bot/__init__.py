"""The Telegram bot (python-telegram-bot): wiring, handlers, the table service, rendering, timers, i18n."""
