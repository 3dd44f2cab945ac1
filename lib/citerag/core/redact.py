"""Secrets never reach an error text, a note, a trace or a log.

An endpoint's error may echo the request (a 401 that quotes the Authorization header); its text
goes through `redact` before it is kept anywhere.
"""

from __future__ import annotations

import re

_PATTERNS = (
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}"), r"\1 [redacted]"),
    (re.compile(r"(?i)\b(authorization|api[-_ ]?key|x-api-key)(\"?\s*[:=]\s*\"?)(?!(?:bearer|basic)\b)[^\s\",}]{4,}"),
     r"\1\2[redacted]"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{6,}"), "sk-[redacted]"),
)


def redact(text: str, *secrets: str | None) -> str:
    """`text` without credentials: the given secret values, bearer/basic tokens, key-like
    fields and `sk-…` keys are replaced by `[redacted]`."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return text
