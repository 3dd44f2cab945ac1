from citerag.build.clean import (
    clean_document,
    dehyphenate,
    normalize_chars,
    restore_compounds,
    split_algorithm_steps,
    strip_line_numbers,
    strip_markdown,
)
from citerag.build.ingest import PageRecord
from citerag.core.params import CleanParams


def test_nfkc_turns_math_italic_into_ascii():
    assert normalize_chars("𝑑-bit integers in ℤ𝑞, ML\u2011KEM, a\u00adb") == "d-bit integers in Zq, ML-KEM, ab"


def test_markdown_stripped_but_tables_and_headings_kept():
    md = "## **8. Parameter Sets**\n\n**Table 2.** _Approved_ sets\n|a<br>b|2<sup>d</sup>|\n<!-- x -->"
    out = strip_markdown(md)
    assert "## 8. Parameter Sets" in out and "Table 2. Approved sets" in out
    assert "|a b|2^d|" in out and "<!--" not in out
    assert strip_markdown("|RSA|_Deprecated_after 2030 _Disallowed_after 2035|") == \
        "|RSA|Deprecated after 2030 Disallowed after 2035|"


def test_dehyphenation_uses_document_vocabulary():
    vocab = {"approved", "implementation"}
    assert dehyphenate("ap- proved and pre- and post", vocab) == "approved and pre- and post"
    assert dehyphenate("implemen-\ntation", vocab) == "implementation"


def test_restore_compounds_from_document_usage():
    texts = ["the fourth-round candidates", "fourth-round again", "selected fourthround KEMs"]
    assert restore_compounds(texts)[2] == "selected fourth-round KEMs"


def test_algorithm_steps_back_on_their_own_lines():
    out = split_algorithm_steps("Algorithm 1 1: for i do 2: x ← 0 3: return x")
    assert out.split("\n") == ["Algorithm 1", "1: for i do", "2: x ← 0", "3: return x"]
    assert split_algorithm_steps("see note 3: nothing") == "see note 3: nothing"


def test_margin_line_numbers_removed_only_in_numbered_documents():
    numbered = [" ".join(f"{n} word{n}" for n in range(s, s + 12)) + " public13 key" for s in (1, 14, 27)]
    out = strip_line_numbers(numbered)
    assert "word5" in out[0] and " 5 " not in out[0]
    plain = ["ML-KEM-512 uses 256 and 3329", "Table 2 has 128 192 256"] * 3
    assert strip_line_numbers(plain) == plain


def test_running_headers_footers_and_page_numbers_removed():
    pages = [
        PageRecord("D", i, f"FIPS 203\nMODULE-LATTICE KEM\n\nBody text of page {i} unique{i}.\n\n{i + 9}")
        for i in range(1, 7)
    ]
    out = clean_document(pages, CleanParams())
    for p in out[1:]:
        assert "FIPS 203" not in p.text and "MODULE-LATTICE" not in p.text
        assert p.text == f"Body text of page {p.page} unique{p.page}."
    # (the first page is where a running title comes from: kept there, see the next test)
    assert out[0].text == "FIPS 203\nMODULE-LATTICE KEM\n\nBody text of page 1 unique1."


def test_later_algorithm_steps_merged_on_one_line_are_split_from_their_own_number():
    """The layout merges the later steps of a long algorithm too; the run starts at the number
    the line opens with, and a number out of order ("… x 3: y") stays inside its step."""
    out = split_algorithm_steps("10: while t = ⊥ do 11: y ← Pick(s, 3: 4) 12: t ← Check(y) 13: end while")
    assert out.split("\n") == ["10: while t = ⊥ do", "11: y ← Pick(s, 3: 4)", "12: t ← Check(y)", "13: end while"]


def test_a_backslash_inside_a_code_span_is_kept():
    """"`\\.path_data.`" is a manual's own name for a built-in: only outside code is a backslash a
    markdown escape. A space after an underscore in code is where the line wrapped."""
    assert strip_markdown("stored in `\\.path_data.` and 2 \\* 3") == "stored in \\.path_data. and 2 * 3"
    assert strip_markdown("usage is in `\\.proper_ usage.` here") == "usage is in \\.proper_usage. here"


def test_a_line_the_extractor_made_an_item_of_its_own_is_joined_back():
    """A draft with margin line numbers comes out one "- " item per line: an item ending on a
    word no sentence ends on ("the", "and") or a comma, and the next one opening in lower case,
    are one sentence. An item ending on a verb ("… code fragment is") announces the next line."""
    from citerag.build.clean import _tidy

    text = "- It is based on the\n\n- expected impact, and\n\n- services. Done\n\n- stop here"
    assert _tidy(text) == "- It is based on the expected impact, and services. Done\n\n- stop here"
    code = "- A typical code fragment is\n\n- draw time stamp"
    assert _tidy(code) == code
    assert _tidy("- a list of the\n\n- Names") == "- a list of the\n\n- Names"  # capitalised: a new item


def test_a_running_title_stays_on_the_title_page_as_text():
    """The header pass dropped a document's title from its own title page: there the running
    title is the title ("What is the title of FIPS 205?" found no line stating it). It stays, as
    text (a heading would head every chunk after it), and goes from every other page."""
    pages = [PageRecord("D", 1, "## **FIPS 9**\n\n# **A Lattice Signature Standard**\n\n**Category: Security**\n\n"
                                "Published: May 2024")]
    pages += [PageRecord("D", i, f"FIPS 9\nA Lattice Signature Standard\n\nBody text of page {i} unique{i}.\n\n{i}")
              for i in range(2, 7)]
    out = clean_document(pages, CleanParams())
    first = out[0].text.split("\n")
    assert "A Lattice Signature Standard" in first and "FIPS 9" in first, out[0].text
    assert not any(ln.startswith("#") for ln in first)
    for p in out[1:]:
        assert p.text == f"Body text of page {p.page} unique{p.page}."
