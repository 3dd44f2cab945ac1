"""Patterns for the structure of standards text, defined once and shared.

Chunking, answering and reranking all need to recognise the same things: an
algorithm's title line, its numbered steps, a table caption, and the dot
leaders of contents lists.
"""

from __future__ import annotations

import re

ALGORITHM_TITLE = re.compile(r"^(?:#+\s*)?Algorithm\s+(\d+)\b(.*)")  # (.*): rest of the first line
STEP_LINE = re.compile(r"^(\d{1,2}): ")
TABLE_CAPTION = re.compile(r"^Table\s+\d+[.:]")
DOT_LEADER = re.compile(r"(?:\.\s){4,}|\.{5,}")
