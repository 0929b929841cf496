"""Fair play anyone can check: before play the table shows SHA-256 of a secret salt and the deck order; the
result reveals both, so anyone can recompute the hash (see the README) and replay the deal."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

from engine.cards import card_code


def new_salt() -> str:
    return secrets.token_hex(16)


def deck_text(order: Sequence[int]) -> str:
    """The deck in deal order as card codes: seat 0's six cards first, the face-up trump after the hands."""
    return " ".join(card_code(c) for c in order)


def commitment(salt: str, deck: str) -> str:
    return hashlib.sha256(f"{salt}:{deck}".encode()).hexdigest()
