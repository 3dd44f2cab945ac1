"""Per-thread conversation memory in SQLite.

One row per turn (user text, rewritten query, route, answer, citations, the
evidence chunk ids it was drawn from) keyed by `thread_id`, plus at most one
pending clarification per thread (the serialised workflow context to resume
from). SQLite because a thread must survive the process: `citerag chat` run
twice on the same thread id continues the conversation. Every call opens its
own connection (WAL, busy timeout), so threads and processes do not mix state.
"""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (
    thread_id TEXT NOT NULL, idx INTEGER NOT NULL, user TEXT NOT NULL, rewritten_query TEXT,
    route TEXT NOT NULL, answer TEXT NOT NULL, refused INTEGER NOT NULL, refusal_reason TEXT,
    citations TEXT NOT NULL, evidence TEXT NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (thread_id, idx));
CREATE TABLE IF NOT EXISTS pending (
    thread_id TEXT PRIMARY KEY, context TEXT NOT NULL, question TEXT NOT NULL,
    options TEXT NOT NULL, created REAL NOT NULL);
"""


@dataclass
class TurnRecord:
    user: str
    rewritten_query: str | None
    route: str
    answer: str
    refused: bool
    refusal_reason: str | None
    citations: list[dict] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)  # chunk ids the answer was composed from

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Pending:
    context: dict
    question: str
    options: list[str]


class ThreadMemory:
    """Turns and pending clarifications of every thread, in one SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as con, con:
            con.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=30)
        con.execute("PRAGMA journal_mode=WAL")
        return con

    def turns(self, thread_id: str, last: int | None = None) -> list[TurnRecord]:
        """The thread's turns, oldest first (the `last` n only, when given)."""
        with closing(self._connect()) as con:
            rows = con.execute(
                "SELECT user, rewritten_query, route, answer, refused, refusal_reason, citations, evidence "
                "FROM turns WHERE thread_id = ? ORDER BY idx DESC LIMIT ?", (thread_id, last or -1)).fetchall()
        return [TurnRecord(u, rq, r, a, bool(rf), rr, json.loads(c), json.loads(e))
                for u, rq, r, a, rf, rr, c, e in reversed(rows)]

    def append(self, thread_id: str, turn: TurnRecord) -> int:
        """Store a turn; returns its 1-based index in the thread."""
        with closing(self._connect()) as con, con:
            con.execute("BEGIN IMMEDIATE")  # the index read and the insert are one transaction
            (n,) = con.execute("SELECT COUNT(*) FROM turns WHERE thread_id = ?", (thread_id,)).fetchone()
            con.execute("INSERT INTO turns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (thread_id, n + 1, turn.user, turn.rewritten_query, turn.route, turn.answer,
                         int(turn.refused), turn.refusal_reason, json.dumps(turn.citations),
                         json.dumps(turn.evidence), time.time()))
        return n + 1

    def set_pending(self, thread_id: str, pending: Pending) -> None:
        with closing(self._connect()) as con, con:
            con.execute("INSERT OR REPLACE INTO pending VALUES (?, ?, ?, ?, ?)",
                        (thread_id, json.dumps(pending.context), pending.question, json.dumps(pending.options),
                         time.time()))

    def pending(self, thread_id: str) -> Pending | None:
        with closing(self._connect()) as con:
            row = con.execute("SELECT context, question, options FROM pending WHERE thread_id = ?",
                              (thread_id,)).fetchone()
        return Pending(json.loads(row[0]), row[1], json.loads(row[2])) if row else None

    def clear_pending(self, thread_id: str) -> None:
        with closing(self._connect()) as con, con:
            con.execute("DELETE FROM pending WHERE thread_id = ?", (thread_id,))

    def threads(self) -> list[str]:
        with closing(self._connect()) as con:
            return [r[0] for r in con.execute("SELECT DISTINCT thread_id FROM turns ORDER BY thread_id")]
