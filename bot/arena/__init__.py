"""A group's arena: a tournament in the chat (docs/groups.md, "Game night")."""
