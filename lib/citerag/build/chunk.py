"""Cleaned pages → chunks that respect headings, tables and algorithms.

Two strategies (param `chunk.strategy`):
- `structure` (default): blocks (heading, paragraph, list, table, algorithm)
  are packed up to `target_chars`; a heading starts a new chunk; a table keeps
  its caption and repeats its header row when split; overlap carries the tail
  sentences of the previous chunk within the same section.
- `sentence`: llama-index's `SentenceSplitter` per page (a well-known baseline).

Chunk ids are `{doc_id}::p{start_page}::c{idx}`, idx counting chunks that start
on that page, so an edit far away in a document does not renumber them.
Output is a pure function of the input pages and params (deterministic).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from citerag.build.clean import CleanPage
from citerag.core.params import ChunkParams
from citerag.core.types import Location
from citerag.text.patterns import ALGORITHM_TITLE as _ALGO_START
from citerag.text.patterns import HEADING_MARK, IO_LINE, STEP_NUMBER, is_step_block
from citerag.text.patterns import TABLE_CAPTION as _TABLE_CAPTION
from citerag.text.sentences import split_prose

_HEADING_MD = re.compile(r"^(#{1,6})\s+(.*)$")
_NUMBERED = re.compile(r"^(?:(Appendix|Annex)\s+([A-Z])\b|([A-Z]|\d+)((?:\.\d+)*)\.?\s)")
_TABLE_SEP = re.compile(r"^\|?\s*:?-{3,}")


def make_chunk_id(doc_id: str, start_page: int, idx: int) -> str:
    """The one definition of a chunk id."""
    return f"{doc_id}::p{start_page}::c{idx}"


def parse_chunk_id(chunk_id: str) -> tuple[str, int, int]:
    """(doc_id, start_page, idx) from a chunk id; ValueError when malformed."""
    m = re.fullmatch(r"(.+)::p(\d+)::c(\d+)", chunk_id)
    if not m:
        raise ValueError(f"not a chunk id: {chunk_id!r} (expected DOC::pN::cK)")
    return m.group(1), int(m.group(2)), int(m.group(3))


@dataclass(frozen=True)
class Block:
    kind: str  # heading | paragraph | list | table | algorithm
    text: str
    page: int
    level: int = 0  # heading depth


@dataclass
class Chunk:
    chunk_id: str
    doc_id: str
    start_page: int
    end_page: int
    ordinal: int  # position in its document, for neighbour edges
    heading_path: list[str]
    kinds: list[str]
    text: str
    n_chars: int = 0

    @property
    def location(self) -> Location:
        return Location.of(self)

    def to_dict(self) -> dict:
        return asdict(self)


def heading_level(text: str, md_level: int) -> int:
    """Depth from section numbering ("4.2.2" → 3, "Appendix A" → 1), else markdown level."""
    m = _NUMBERED.match(text)
    if m:
        if m.group(1):
            return 1
        return 1 + m.group(4).count(".")
    return max(1, md_level - 1) if md_level else 1


def _table_row(line: str) -> str:
    """`|a||b|` → `a | | b`: readable, and cell positions survive for column look-ups."""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return " | ".join(cells).strip() if any(cells) else ""


def page_blocks(page: CleanPage) -> list[Block]:
    """Split a cleaned page into typed blocks (blank-line separated)."""
    blocks = []
    for raw in re.split(r"\n\s*\n", page.text):
        text = raw.strip()
        if not text:
            continue
        lines = text.split("\n")
        m = _HEADING_MD.match(lines[0])
        if m and len(lines) == 1:
            title = m.group(2).strip()
            if _ALGO_START.match(title):
                blocks.append(Block("algorithm", title, page.page))
            else:
                blocks.append(Block("heading", title, page.page, heading_level(title, len(m.group(1)))))
            continue
        if all(ln.lstrip().startswith("|") for ln in lines):
            rows = [_table_row(ln) for ln in lines if not _TABLE_SEP.match(ln.strip("| "))]
            blocks.append(Block("table", "\n".join(r for r in rows if r), page.page))
        elif _ALGO_START.match(lines[0]) or is_step_block(lines):
            blocks.append(Block("algorithm", text, page.page))
        elif lines[0].startswith(("- ", "• ")) or re.match(r"^\d+\.\s", lines[0]):
            blocks.append(Block("list", text, page.page))
        else:
            blocks.append(Block("paragraph", text, page.page))
    return blocks


@dataclass
class _Unit:
    """Blocks that must stay together (caption + table, an algorithm's parts)."""

    kind: str
    parts: list[Block] = field(default_factory=list)
    closed: bool = False  # a table whose caption came below it: the next table is a new one

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.parts)


def _is_caption(b: Block) -> bool:
    return b.kind == "paragraph" and bool(_TABLE_CAPTION.match(b.text)) and len(b.text) < 300


def captions_below(blocks: list[Block]) -> bool:
    """Whether the document captions its tables below them (a status report) rather than above (a standard).

    Decided by the captions that touch a table on one side only; a caption between two tables
    is ambiguous and has no vote. Attaching a caption to the wrong neighbour labels a table
    with its predecessor's title ("XYZ key sizes: abc-128 …")."""
    below = above = 0
    for i, b in enumerate(blocks):
        if not _is_caption(b):
            continue
        before = i > 0 and blocks[i - 1].kind == "table"
        after = i + 1 < len(blocks) and blocks[i + 1].kind == "table"
        below += before and not after
        above += after and not before
    return below > above


def _units(blocks: list[Block]) -> list[_Unit]:
    units: list[_Unit] = []
    below = captions_below(blocks)
    for b in blocks:
        prev = units[-1] if units else None
        if below and prev and prev.kind == "table" and not prev.closed and _is_caption(b):
            prev.parts.insert(0, b)  # the caption under its table closes it, and reads first
            prev.closed = True
        elif not below and prev and b.kind == "table" and prev.kind == "paragraph" and len(prev.parts) == 1 \
                and _is_caption(prev.parts[0]):
            prev.kind = "table"
            prev.parts.append(b)
        elif prev and prev.kind == "table" and not prev.closed and b.kind == "table":
            prev.parts.append(b)  # a table continued on the next page
        elif b.kind == "table" and _running_title_between(units, b):
            # … after the next page's running title ("Chapter 6 Paragraphs"): the title goes, and
            # the rows read under the table's header, not under their own first row
            units.pop()
            units[-1].parts.append(b)
        elif (gap := _steps_resume(units, b)) is not None:
            # comment lines or list marks the layout set between an algorithm's steps (its "▷ …"
            # comments, "- mix the tally"), then its next step: all of it is the algorithm
            algo = units[-1 - gap]
            for u in units[len(units) - gap:]:
                algo.parts.extend(u.parts)
            del units[len(units) - gap:]
            algo.parts.append(b)
        elif prev and prev.kind == "algorithm" and b.kind in ("algorithm", "paragraph", "list", "heading") \
                and not _ALGO_START.match(b.text) and not (b.kind == "heading" and _NUMBERED.match(b.text)) and (
                    b.kind == "algorithm" or _io_line(b.text) or len(prev.parts) == 1 or _next_step(prev, b)
                    or (b.kind == "paragraph" and _io_line(prev.parts[-1].text)
                        and prev.parts[-1].text.rstrip().endswith(","))):
            # the line under an algorithm's title describes it, even when set as a heading (a
            # numbered heading, "5.4 Batch Mode …", opens a section instead); an "Input :" line
            # that ends on a comma goes on in the paragraph after it
            prev.parts.append(b if b.kind != "heading" else Block("paragraph", b.text, b.page))
        else:
            units.append(_Unit(b.kind, [b]))
    return units


_RUNNING_TITLE_WORDS = 8


def _running_title_between(units: list[_Unit], b: Block) -> bool:
    """An open table, then a short line standing alone at the top of the next page (a running
    title the header/footer pass did not remove: it changes from chapter to chapter), then rows
    with as many columns as the table's: the table goes on past the page break."""
    if len(units) < 2:
        return False
    line, table = units[-1], units[-2]
    if table.kind != "table" or table.closed or line.kind != "paragraph" or len(line.parts) != 1:
        return False
    title = line.parts[0]
    last = table.parts[-1]
    return (title.page == b.page == last.page + 1 and "\n" not in title.text
            and len(title.text.split()) <= _RUNNING_TITLE_WORDS and not re.search(r"[.:;!?]$", title.text)
            and last.text.split("\n")[-1].count(" | ") == b.text.split("\n")[0].count(" | "))


def _io_line(text: str) -> bool:
    """An algorithm's "Input :" or "Output :" line (set as a list item or not)."""
    return bool(IO_LINE.match(text.lstrip("-• ")))


def _next_step(unit: _Unit, b: Block) -> bool:
    """The block opens with the step after the algorithm's last one ("5: X.setMode( y )" after
    "4: end for"), or with step 1 under a title with no step yet: a step line without
    pseudocode that the layout set apart still belongs."""
    last = [m for ln in unit.text.split("\n") if (m := STEP_NUMBER.match(ln))]
    first = STEP_NUMBER.match(b.text)
    if not first:
        return False
    if not last:
        return int(first.group(1)) == 1 and bool(_ALGO_START.match(unit.parts[0].text))
    return int(first.group(1)) == int(last[-1].group(1)) + 1


# Lines the layout may set apart between an algorithm's steps: its comments ("▷ compute …") or
# list marks standing for them ("- mix the tally").
_STEP_FILLER = re.compile(r"^(?:▷|[-•]\s)")
# At most this many such blocks sit between two runs of one algorithm's steps.
_MAX_FILLER_BLOCKS = 3


def _steps_resume(units: list[_Unit], b: Block) -> int | None:
    """How many filler units (only comment lines or list marks) stand between the last algorithm
    unit and a block that resumes its steps with the next step number; None when `b` resumes no
    algorithm across filler."""
    if b.kind not in ("algorithm", "paragraph") or not STEP_NUMBER.match(b.text):
        return None
    for gap in range(1, min(_MAX_FILLER_BLOCKS, len(units) - 1) + 1):
        u = units[-gap]
        if u.kind not in ("paragraph", "list") or not all(
                _STEP_FILLER.match(ln.strip()) for p in u.parts for ln in p.text.split("\n") if ln.strip()):
            return None
        if units[-1 - gap].kind == "algorithm":
            return gap if _next_step(units[-1 - gap], b) else None
    return None


_HEADER_CELL_MAX = 40


def _header_row(line: str) -> bool:
    """A table's first row is its header when its cells are labels ("Parameter set | n | k"); a
    row with a long cell is data ("[REF1] | Author A (2019) A title …" of a reference list drawn
    as a table), and repeating it at the top of every piece glued it to the text that piece
    starts with."""
    return all(len(cell.strip()) <= _HEADER_CELL_MAX for cell in line.split("|"))


def _page_span(pages: list[int]) -> tuple[int, int]:
    return min(pages), max(pages)


def _split_long(unit: _Unit, target: int) -> tuple[list[list[tuple[str, int]]], int]:
    """Pieces of (text, page) no longer than `target` where possible, and how many lines each
    piece opens with that repeat the unit's header.

    Tables split on rows and repeat caption + header row; algorithms split on
    lines and repeat their title line ("Algorithm 7 Name(…)"), so a later piece's steps still
    say which algorithm they belong to, for retrieval and for the answer; prose splits on
    sentence boundaries.
    """
    items: list[tuple[str, int]] = []
    header: list[tuple[str, int]] = []
    have_header_row = False
    for b in unit.parts:
        if unit.kind in ("table", "algorithm"):
            lines = b.text.split("\n")
            if b.kind == "table" and not have_header_row:
                if _header_row(lines[0]):
                    header += [(ln, b.page) for ln in lines[:1]]
                    lines = lines[1:]
                have_header_row = True
            elif b.kind == "paragraph" and unit.kind == "table":
                header.append((b.text, b.page))
                continue
            items.extend((ln, b.page) for ln in lines)
        else:
            items.extend((s, b.page) for s in split_prose(b.text))
    if unit.kind == "table":
        # Caption first, then the header row; both are repeated in each piece.
        header = sorted(header, key=lambda h: 0 if _TABLE_CAPTION.match(h[0]) else 1)
    elif unit.kind == "algorithm" and items and _ALGO_START.match(items[0][0]):
        header = [items.pop(0)]
    pieces: list[list[tuple[str, int]]] = []
    cur: list[tuple[str, int]] = list(header)
    size = sum(len(t) + 1 for t, _ in cur)
    for text, page in items:
        if cur and size + len(text) > target and len(cur) > len(header):
            pieces.append(cur)
            cur, size = list(header), sum(len(t) + 1 for t, _ in header)
        cur.append((text, page))
        size += len(text) + 1
    if len(cur) > len(header) or not pieces:
        pieces.append(cur)
    return pieces, len(header)


def _tail(text: str, budget: int) -> str:
    """The last whole sentences of `text` fitting in `budget` characters."""
    if budget <= 0:
        return ""
    out: list[str] = []
    for s in reversed(split_prose(text)):
        if sum(len(x) + 1 for x in out) + len(s) > budget:
            break
        out.insert(0, s)
    return " ".join(out)


class _Builder:
    def __init__(self, doc_id: str, params: ChunkParams) -> None:
        self.doc_id, self.p = doc_id, params
        self.chunks: list[Chunk] = []
        self.per_page: dict[int, int] = {}
        self.cur: list[tuple[str, int, int, str]] = []  # (text, first page, last page, kind)
        self.path: list[tuple[int, str]] = []
        self.cur_path: list[str] = []

    def size(self) -> int:
        return sum(len(t) + 2 for t, _, _, _ in self.cur)

    def flush(self, overlap: bool) -> None:
        if not self.cur:
            return
        text = "\n\n".join(t for t, _, _, _ in self.cur).strip()
        start = min(first for _, first, _, _ in self.cur)
        idx = self.per_page.get(start, 0)
        self.per_page[start] = idx + 1
        kinds = sorted({k for _, _, _, k in self.cur if k != "overlap"})
        self.chunks.append(Chunk(
            chunk_id=make_chunk_id(self.doc_id, start, idx), doc_id=self.doc_id,
            start_page=start, end_page=max(last for _, _, last, _ in self.cur), ordinal=len(self.chunks),
            heading_path=list(self.cur_path), kinds=kinds, text=text, n_chars=len(text),
        ))
        last_text, _, last_page, last_kind = self.cur[-1]
        self.cur = []
        if overlap and self.p.overlap_chars and last_kind in ("paragraph", "list"):
            tail = _tail(last_text, self.p.overlap_chars)
            if tail:
                self.cur = [(tail, last_page, last_page, "overlap")]

    def add(self, unit: _Unit) -> None:
        first = unit.parts[0]
        if unit.kind == "heading":
            if self.size() >= self.p.min_chars or self._only_overlap():
                self.flush(overlap=False)
            while self.path and self.path[-1][0] >= first.level:
                self.path.pop()
            self.path.append((first.level, first.text))
            if not self.cur or self._only_overlap():
                self.cur = []
                self.cur_path = [t for _, t in self.path]
            self.cur.append((first.text, first.page, first.page, "heading"))
            return
        if not self.cur:
            self.cur_path = [t for _, t in self.path]
        text = unit.text
        if self.size() + len(text) <= self.p.target_chars:
            self.cur.append((text, *_page_span([b.page for b in unit.parts]), unit.kind))
            return
        if self.size() >= self.p.min_chars:
            self.flush(overlap=True)
            self.cur_path = [t for _, t in self.path]
        if self.size() + len(text) <= self.p.target_chars:
            self.cur.append((text, *_page_span([b.page for b in unit.parts]), unit.kind))
            return
        if self._only_overlap() and unit.kind in ("table", "algorithm"):
            self.cur = []  # a split table/algorithm starts clean: its pieces repeat their header
        room = max(self.p.min_chars, self.p.target_chars - self.size())
        pieces, repeated = _split_long(unit, room)
        for i, piece in enumerate(pieces):
            if i > 0:
                self.flush(overlap=False)
                self.cur_path = [t for _, t in self.path]
            joiner = " " if unit.kind in ("paragraph", "list") else "\n"
            body = joiner.join(t for t, _ in piece)
            # a later piece is where its own lines are, not where the header it repeats is
            own = piece[repeated:] if i > 0 else piece
            self.cur.append((body, *_page_span([p for _, p in own or piece]), unit.kind))
            if i == 0 and len(pieces) > 1:
                room = self.p.target_chars

    def _only_overlap(self) -> bool:
        return bool(self.cur) and all(k == "overlap" for _, _, _, k in self.cur)


def chunk_document(pages: list[CleanPage], params: ChunkParams) -> list[Chunk]:
    """Structure-aware chunks of one document's pages (sorted by page)."""
    if not pages:
        return []
    builder = _Builder(pages[0].doc_id, params)
    blocks = [b for p in sorted(pages, key=lambda p: p.page) for b in page_blocks(p)]
    for unit in _units(blocks):
        builder.add(unit)
    if builder.cur and not builder._only_overlap():
        builder.flush(overlap=False)
    return builder.chunks


def _heading_paths_by_page(pages: list[CleanPage]) -> dict[int, list[str]]:
    """The heading path in effect at the start of each page (for the sentence strategy)."""
    path: list[tuple[int, str]] = []
    out = {}
    for page in sorted(pages, key=lambda p: p.page):
        out[page.page] = [t for _, t in path]
        for b in page_blocks(page):
            if b.kind == "heading":
                while path and path[-1][0] >= b.level:
                    path.pop()
                path.append((b.level, b.text))
                if not out[page.page]:
                    out[page.page] = [t for _, t in path]
    return out


def chunk_document_sentence(pages: list[CleanPage], params: ChunkParams) -> list[Chunk]:
    """llama-index `SentenceSplitter` per page; sizes converted from chars (~4 chars/token)."""
    from llama_index.core.node_parser import SentenceSplitter

    splitter = SentenceSplitter(
        chunk_size=max(32, params.target_chars // 4),
        chunk_overlap=min(params.overlap_chars // 4, max(0, params.target_chars // 4 - 1)),
    )
    paths = _heading_paths_by_page(pages)
    chunks: list[Chunk] = []
    for page in sorted(pages, key=lambda p: p.page):
        text = HEADING_MARK.sub("", page.text)
        for idx, piece in enumerate(splitter.split_text(text) if text.strip() else []):
            chunks.append(Chunk(
                chunk_id=make_chunk_id(page.doc_id, page.page, idx), doc_id=page.doc_id,
                start_page=page.page, end_page=page.page, ordinal=len(chunks),
                heading_path=paths.get(page.page, []), kinds=["text"], text=piece,
                n_chars=len(piece),
            ))
    return chunks


def chunk_pages(pages: Iterable[CleanPage], params: ChunkParams) -> list[Chunk]:
    """Chunk every document; order: documents as first seen, chunks in reading order."""
    by_doc: dict[str, list[CleanPage]] = {}
    for p in pages:
        by_doc.setdefault(p.doc_id, []).append(p)
    fn = chunk_document if params.strategy == "structure" else chunk_document_sentence
    out: list[Chunk] = []
    for doc_pages in by_doc.values():
        out.extend(fn(doc_pages, params))
    return out
