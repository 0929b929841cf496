"""What the bot shows, drawn by pure functions from engine views and stored records: the group's table
message, results and event lines (``group``), a player's hand and its buttons (``hand``, ``keyboard``), cards
(``faces``), the lobby, leaderboards (``standings``), the settings menus and replays. No I/O: handlers and
the presenter call them and send what they return through the outbox."""
