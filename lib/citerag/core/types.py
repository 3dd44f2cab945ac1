"""The one location type: where a chunk, a hit, a piece of evidence or a citation sits.

Retrieval hits, answer evidence, citations and the eval's ranked hits all
point at the same thing, a chunk on a page range of a document. They share
this type, so "does it overlap the gold span" and "what goes in a citation"
are answered once.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    chunk_id: str
    doc_id: str
    start_page: int  # 1-based physical page index
    end_page: int

    @classmethod
    def of(cls, obj) -> Location:
        """The location of anything that has the four fields (a Chunk, a citation dict's owner)."""
        return cls(obj.chunk_id, obj.doc_id, obj.start_page, obj.end_page)

    def overlaps(self, doc_id: str, start_page: int, end_page: int, slack: int = 0) -> bool:
        return (self.doc_id == doc_id and self.start_page <= end_page + slack
                and self.end_page >= start_page - slack)

    def as_dict(self) -> dict:
        return {"chunk_id": self.chunk_id, "doc_id": self.doc_id, "start_page": self.start_page,
                "end_page": self.end_page}


class Located:
    """Mixin for types that carry a `loc: Location`: the location's fields read through."""

    loc: Location

    @property
    def chunk_id(self) -> str:
        return self.loc.chunk_id

    @property
    def doc_id(self) -> str:
        return self.loc.doc_id

    @property
    def start_page(self) -> int:
        return self.loc.start_page

    @property
    def end_page(self) -> int:
        return self.loc.end_page
