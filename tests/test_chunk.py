import re

import pytest
from citerag.build.chunk import chunk_pages, make_chunk_id, page_blocks, parse_chunk_id
from citerag.build.clean import CleanPage
from citerag.core.params import ChunkParams

PARA = "This is a sentence about ML-KEM parameters and their sizes. " * 6


def _pages():
    return [
        CleanPage("DOC", 1, f"## 1. Introduction\n\n{PARA}\n\n### 1.1 Scope\n\n{PARA}"),
        CleanPage("DOC", 2, "Table 3. Sizes (in bytes)\n\n|name|ek|dk|\n|---|---|---|\n"
                  + "\n".join(f"|ML-KEM-{i}|{i * 2}|{i * 3}|" for i in range(40))),
        CleanPage("DOC", 3, "## 2. Algorithms\n\n##### Algorithm 2 KeyGen()\n\n1: d ← B\n2: return d\n\n" + PARA),
    ]


def test_chunk_id_roundtrip():
    cid = make_chunk_id("NIST.SP.800-227", 12, 3)
    assert cid == "NIST.SP.800-227::p12::c3"
    assert parse_chunk_id(cid) == ("NIST.SP.800-227", 12, 3)
    with pytest.raises(ValueError):
        parse_chunk_id("nope")


def test_blocks_typed():
    kinds = [b.kind for b in page_blocks(_pages()[2])]
    assert kinds == ["heading", "algorithm", "algorithm", "paragraph"]


def test_structure_chunks_follow_headings_and_keep_tables_whole():
    params = ChunkParams(target_chars=500, overlap_chars=80, min_chars=100)
    chunks = chunk_pages(_pages(), params)
    ids = [c.chunk_id for c in chunks]
    assert len(ids) == len(set(ids))
    scope = [c for c in chunks if c.heading_path == ["1. Introduction", "1.1 Scope"]]
    assert scope and scope[0].text.startswith("1.1 Scope")
    tables = [c for c in chunks if "table" in c.kinds]
    assert len(tables) > 1  # split on rows ...
    for c in tables:  # ... each piece repeating caption and header row
        assert "Table 3. Sizes (in bytes)\nname | ek | dk\nML-KEM-" in c.text
        assert c.n_chars <= params.target_chars + 60
    algo = next(c for c in chunks if "algorithm" in c.kinds)
    assert "Algorithm 2 KeyGen()" in algo.text and "2: return d" in algo.text
    assert algo.heading_path == ["2. Algorithms"]


def test_overlap_carries_previous_sentences():
    page = CleanPage("D", 1, "\n\n".join(f"Sentence number {i} is here." for i in range(60)))
    chunks = chunk_pages([page], ChunkParams(target_chars=300, overlap_chars=60, min_chars=50))
    assert len(chunks) > 2
    tail = chunks[0].text.split("\n\n")[-1]
    assert chunks[1].text.startswith(tail)


def test_deterministic_and_sentence_strategy():
    params = ChunkParams(target_chars=400, overlap_chars=50, min_chars=100)
    a = [c.to_dict() for c in chunk_pages(_pages(), params)]
    b = [c.to_dict() for c in chunk_pages(_pages(), params)]
    assert a == b
    sent = chunk_pages(_pages(), params.model_copy(update={"strategy": "sentence"}))
    assert sent and all(c.start_page == c.end_page for c in sent)
    assert {c.start_page for c in sent} == {1, 2, 3}


def _two_tables(below: bool) -> list[CleanPage]:
    def table(name: str) -> str:
        return f"|Parameter set|Key|\n|---|---|\n|{name}-1|{len(name)}|\n|{name}-5|{len(name) * 2}|"

    def captioned(n: int, name: str) -> str:
        cap = f"Table {n}. {name} key sizes in bytes"
        return f"{table(name)}\n\n{cap}" if below else f"{cap}\n\n{table(name)}"

    return [CleanPage("DOC", 1, f"Sizes follow.\n\n{captioned(6, 'BIKE')}\n\n{captioned(7, 'HQC')}\n\n"
                                f"{captioned(8, 'McEliece')}\n\nThose were the sizes.")]


@pytest.mark.parametrize("below", [True, False])
def test_each_table_keeps_its_own_caption_above_or_below(below):
    captions = {"BIKE": "Table 6. BIKE key sizes in bytes", "HQC": "Table 7. HQC key sizes in bytes",
                "McEliece": "Table 8. McEliece key sizes in bytes"}
    for target in (100, 1000):  # each table in its own chunk, and all of them in one
        chunks = chunk_pages(_two_tables(below), ChunkParams(target_chars=target, overlap_chars=0, min_chars=0))
        seen = set()
        for c in chunks:
            caption = None
            for line in c.text.split("\n"):
                if line.startswith("Table "):
                    caption = line
                name = line.split("-")[0]
                if name in captions and line.startswith(f"{name}-"):
                    # a row's nearest caption above it, in its own chunk, is its own table's
                    assert caption == captions[name], (target, c.text)
                    seen.add(name)
        assert seen == set(captions)


def test_split_algorithm_repeats_its_title_and_keeps_its_description_and_late_steps():
    """A long algorithm split over chunks repeats its title line in every piece, so a later
    piece's steps still say which algorithm they belong to (for retrieval and the answer's step
    units). The bold line under the title that the layout sets as a heading is the algorithm's
    description, not a section, and a numbered step the layout set apart without pseudocode
    ("5: T.setMode( q )") continues the algorithm."""
    steps = "\n\n".join(f"{i}: acc{i} ← Mix(acc{i - 1}, w[{i}]) ▷ fold word {i} into the tally" for i in range(1, 5))
    late = "\n".join(f"{i}: acc{i} ← Mix(acc{i - 1}, w[{i}]) ▷ fold word {i} into the tally" for i in range(6, 30))
    page = CleanPage("DOC", 1, "## 3. Folding\n\n" + PARA + "\n\n##### Algorithm 7 fold_words(w)\n\n"
                     "##### Folds a word list into one tally.\n\n- Input : word list w .\n\n- Output : tally t .\n\n"
                     + steps + "\n\n5: T.setMode( q )\n\n" + late + "\n30: return acc29")
    chunks = chunk_pages([page], ChunkParams(target_chars=600, overlap_chars=0, min_chars=100))
    algo = [c for c in chunks if "algorithm" in c.kinds]
    assert len(algo) > 2
    for c in algo:
        assert "Algorithm 7 fold_words(w)" in c.text.split("\n")[:3]
    assert all(c.heading_path == ["3. Folding"] for c in chunks)  # the description opened no section
    assert "Algorithm 7 fold_words(w)\nFolds a word list into one tally." in algo[0].text
    body = "\n".join(c.text for c in algo)
    assert "5: T.setMode( q )" in body and "30: return acc29" in body
    assert not [c for c in chunks if "5: T.setMode" in c.text and "algorithm" not in c.kinds]


def test_an_algorithm_split_by_its_layout_stays_one_algorithm():
    """The layout sets apart what belongs to an algorithm: its "Input :" line wrapped into a
    paragraph of its own, a first step without pseudocode, its "▷" comments and list marks
    standing for them between steps, and an empty step ("4:"). Each used to start a block of its
    own, so the steps after it landed in a chunk without the algorithm's title: retrieval could
    not find them by the algorithm's name, and the answer could not tell whose steps they were."""
    page = CleanPage("DOC", 1, "## 3. Folding\n\n" + PARA + "\n\n##### Algorithm 7 fold_words(w, k)\n\n"
                     "Folds a word list into one tally.\n\nInput : word list w ,\n\n"
                     "key k (a byte string). Output : tally t .\n\n"
                     "1: T.reset( )\n\n2: t ← 0 ▷ start empty\n3: for i from 0 to 9 do\n\n"
                     "▷ fold the words\n\n- mix the tally\n\n"
                     "4:\n5: t ← Mix(t, w[i], k)\n6: end for\n7: return t\n\n## 4. Checking\n\n" + PARA)
    chunks = chunk_pages([page], ChunkParams(target_chars=240, overlap_chars=0, min_chars=50))
    algo = [c for c in chunks if "Algorithm 7 fold_words" in c.text]
    body = "\n".join(c.text for c in algo)
    for line in ("key k (a byte string)", "1: T.reset( )", "▷ fold the words", "- mix the tally",
                 "5: t ← Mix(t, w[i], k)", "7: return t"):
        assert line in body, line
    # no step stands in a chunk without its algorithm's title
    assert not [c.text for c in chunks if "Algorithm 7" not in c.text and re.search(r"^\d: |▷", c.text, re.M)]


def test_a_later_algorithm_does_not_swallow_prose_between_two_algorithms():
    """Only comment lines and list marks are read as filler between runs of one algorithm's steps;
    a paragraph of prose between two algorithms keeps them apart, and a step numbered as a new
    start ("1: …") after prose does not join the algorithm before it."""
    page = CleanPage("DOC", 1, "##### Algorithm 1 first(x)\n\nDoes one thing.\n\n1: y ← x\n2: return y\n\n"
                     "The second algorithm below differs from the first one in how it rounds values.\n\n"
                     "##### Algorithm 2 second(x)\n\nDoes another thing.\n\n1: z ← x + 1\n2: return z")
    blocks_text = [c.text for c in chunk_pages([page], ChunkParams(target_chars=120, overlap_chars=0, min_chars=20))]
    first = next(t for t in blocks_text if "Algorithm 1 first" in t)
    assert "z ← x + 1" not in first and "Algorithm 2" not in first


def test_a_table_whose_first_row_is_data_does_not_repeat_it():
    """A reference list drawn as a table ("[R1] | Author A (2019) A long title …") has no header
    row: its first entry repeated at the top of every piece was glued to the entry text the piece
    starts with."""
    rows = "\n".join(f"|[R{i}]|Author{i} A, Writer B (20{i:02d}) A rather long title of work number {i}.|"
                     for i in range(30))
    first, rest = rows.split("\n", 1)
    page = CleanPage("DOC", 1, f"References\n\n{first}\n|---|---|\n{rest}")
    chunks = chunk_pages([page], ChunkParams(target_chars=400, overlap_chars=0, min_chars=0))
    assert len(chunks) > 2
    assert sum(c.text.count("[R0] |") for c in chunks) == 1, [c.text[:80] for c in chunks]
    # a label row is a header, repeated in each piece
    table = CleanPage("DOC", 2, "|name|ek|\n|---|---|\n" + "\n".join(f"|X-{i}|{i}|" for i in range(60)))
    pieces = chunk_pages([table], ChunkParams(target_chars=200, overlap_chars=0, min_chars=0))
    assert len(pieces) > 1 and all(c.text.startswith("name | ek") for c in pieces)


def test_a_table_goes_on_past_the_next_pages_running_title_and_its_pieces_keep_their_pages():
    """A two-page table with a running title the header/footer pass keeps ("Chapter 6 Widgets"
    changes from chapter to chapter) at the top of the second page: the second page's rows read
    under the table's header, not under their own first row, and a piece holding only
    second-page rows is located on that page, not on the page of the header it repeats."""
    one = "|Attribute|Synonyms|\n|---|---|\n" + "\n".join(f"|attrOne{i}|one{i}, alias{i}|" for i in range(12))
    two = "Chapter 6 Widgets\n\n|attrTwo0|two0, other0|\n|---|---|\n" + "\n".join(
        f"|attrTwo{i}|two{i}, other{i}|" for i in range(1, 12))
    chunks = chunk_pages([CleanPage("DOC", 4, one), CleanPage("DOC", 5, two)],
                         ChunkParams(target_chars=250, overlap_chars=0, min_chars=0))
    assert all(c.text.startswith("Attribute | Synonyms") for c in chunks), [c.text[:40] for c in chunks]
    assert not any("Chapter 6 Widgets" in c.text for c in chunks)
    second = [c for c in chunks if "attrOne" not in c.text]
    assert second and all((c.start_page, c.end_page) == (5, 5) for c in second)
    assert all(c.chunk_id.startswith("DOC::p5::") for c in second)
    straddling = [c for c in chunks if "attrOne" in c.text and "attrTwo" in c.text]
    assert all((c.start_page, c.end_page) == (4, 5) for c in straddling)
    # a line that ends a sentence is prose, not a running title: the tables stay apart
    prose = chunk_pages([CleanPage("DOC", 4, one), CleanPage("DOC", 5, two.replace("Widgets", "Widgets."))],
                        ChunkParams(target_chars=250, overlap_chars=0, min_chars=0))
    assert any("Widgets." in c.text for c in prose)
