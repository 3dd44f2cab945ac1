"""Thread memory: persistence, isolation and the pending-clarification slot (real SQLite)."""

from __future__ import annotations

import subprocess
import sys

from citerag.conversation.memory import Pending, ThreadMemory, TurnRecord


def _turn(user: str, route: str = "RETRIEVE") -> TurnRecord:
    return TurnRecord(user, user + "?", route, f"answer to {user} [c1]", False, None,
                      [{"key": "c1", "chunk_id": "d::p1::c0", "doc_id": "d", "start_page": 1, "end_page": 1}],
                      ["d::p1::c0"])


def test_turns_are_ordered_per_thread_and_threads_do_not_mix(tmp_path):
    m = ThreadMemory(tmp_path / "m.sqlite")
    assert m.append("a", _turn("a1")) == 1
    assert m.append("b", _turn("b1")) == 1
    assert m.append("a", _turn("a2")) == 2
    assert [t.user for t in m.turns("a")] == ["a1", "a2"]
    assert [t.user for t in m.turns("b")] == ["b1"]
    assert [t.user for t in m.turns("a", last=1)] == ["a2"]
    assert m.turns("a")[0].citations[0]["chunk_id"] == "d::p1::c0" and m.turns("a")[0].evidence == ["d::p1::c0"]
    assert m.threads() == ["a", "b"]


def test_memory_survives_the_process(tmp_path):
    db = tmp_path / "m.sqlite"
    code = ("import sys; from citerag.conversation.memory import ThreadMemory, TurnRecord; "
            "ThreadMemory(sys.argv[1]).append('t', TurnRecord('from another process', None, 'RETRIEVE', 'x', "
            "True, 'insufficient_evidence'))")
    subprocess.run([sys.executable, "-c", code, str(db)], check=True)
    turns = ThreadMemory(db).turns("t")
    assert [(t.user, t.refused, t.refusal_reason) for t in turns] == [
        ("from another process", True, "insufficient_evidence")]


def test_pending_clarification_slot(tmp_path):
    m = ThreadMemory(tmp_path / "m.sqlite")
    assert m.pending("t") is None
    m.set_pending("t", Pending({"state": {"x": 1}}, "which one?", ["A", "B"]))
    p = m.pending("t")
    assert (p.context, p.question, p.options) == ({"state": {"x": 1}}, "which one?", ["A", "B"])
    assert m.pending("other") is None
    m.clear_pending("t")
    assert m.pending("t") is None
