"""Generic technical text: nothing a corpus's vocabulary taught the code may corrupt other corpora."""

from citerag.build.chunk import page_blocks
from citerag.build.clean import CleanPage, _tidy, split_algorithm_steps
from citerag.build.knowledge import CorpusKnowledge, mine_families, mine_mentions
from citerag.build.profile import CorpusProfile
from citerag.conversation.decisions import specific_identifiers
from citerag.text.patterns import is_step_block
from citerag.text.tokenize import tokenize


def test_leading_dot_names_are_not_glued_to_the_word_before():
    assert _tidy("edit the .bashrc file") == "edit the .bashrc file"
    assert _tidy("add build/ to .gitignore and source .profile") == "add build/ to .gitignore and source .profile"
    assert _tidy("call obj .method after init") == "call obj .method after init"
    # the extraction artefact the join exists for still joins
    assert _tidy("run ML-KEM .KeyGen then K-PKE .Encrypt") == "run ML-KEM.KeyGen then K-PKE.Encrypt"


def test_hyphenated_identifiers_stay_whole_and_are_no_family_alone():
    for ident in ("x86-64", "UTF-8", "ISO-8859-1"):
        assert _tidy(f"build for {ident} now") == f"build for {ident} now"
        assert ident.lower() in tokenize(f"uses {ident} here")
    lone = mine_families(["Compile for x86-64 and write UTF-8 text in ISO-8859-1 or not."])
    assert lone == {}
    know = CorpusKnowledge({"m": "Manual"}, families=lone)
    assert not any(know.is_variant(i) for i in ("x86-64", "UTF-8", "ISO-8859-1"))
    # a real family: several members in the corpus
    fam = mine_families(["ML-KEM-512, ML-KEM-768 and ML-KEM-1024", "UTF-8 only"])
    assert fam == {"ml-kem": ["ML-KEM-1024", "ML-KEM-512", "ML-KEM-768"]}
    assert CorpusKnowledge({"d": "D"}, families=fam).is_variant("ML-KEM-768")


def test_numbered_console_output_is_not_an_algorithm():
    console = ["1: In foo(-1) : value out of range", "2: In bar(x) : NAs introduced by coercion"]
    assert not is_step_block(console)
    merged = "Warning messages: 1: In foo(-1) : value out of range 2: In bar(x) : NAs introduced"
    assert split_algorithm_steps(merged) == merged
    blocks = page_blocks(CleanPage("manual", 3, "Warning messages:\n\n" + "\n".join(console)))
    assert all(b.kind != "algorithm" for b in blocks)
    # pseudocode steps still are
    steps = ["1: d ← random 32 bytes", "2: if d = NULL then", "3: return ⊥"]
    assert is_step_block(steps)
    assert any(b.kind == "algorithm" for b in page_blocks(CleanPage("std", 5, "\n".join(steps))))


def test_document_mentions_are_mined_from_doc_ids_and_titles():
    titles = {"NIST.FIPS.203": "Module-Lattice-Based Key-Encapsulation Mechanism Standard (ML-KEM)",
              "NIST.SP.800-227": "Recommendations for Key-Encapsulation Mechanisms",
              "reportlab-userguide": "ReportLab PDF Generation User Guide",
              "auto-multiple-choice.en": "Auto Multiple Choice", "gri": "Gri"}
    texts = {"auto-multiple-choice.en": "AMC reads the scans", "gri": "", "reportlab-userguide": ""}
    know = CorpusKnowledge(titles, mentions=mine_mentions(titles, texts))
    assert [d for _, d in know.doc_mentions("What does FIPS 203 say, and SP 800-227?")] == \
        ["NIST.FIPS.203", "NIST.SP.800-227"]
    assert [d for _, d in know.doc_mentions("How does AMC score a question?")] == ["auto-multiple-choice.en"]
    assert [d for _, d in know.doc_mentions("fonts in ReportLab")] == ["reportlab-userguide"]
    assert [d for _, d in know.doc_mentions("What is gri?")] == ["gri"]
    assert know.doc_mentions("multiple frames on one page") == []
    assert know.strip_scope("the key sizes in FIPS 203 table 2") == "the key sizes"


def test_a_list_of_numbers_after_a_named_document_names_each_document():
    """"FIPS 203, 204 and 205" names three documents, each by the series the first one writes;
    a number that is no document of that series ("table 2", "203 and 2 bytes") names none."""
    titles = {f"NIST.FIPS.{n}": f"Standard {n}" for n in (203, 204, 205)}
    know = CorpusKnowledge(titles, mentions=mine_mentions(titles, {}))
    assert [d for _, d in know.doc_mentions("When were FIPS 203, 204 and 205 published?")] == [
        "NIST.FIPS.203", "NIST.FIPS.204", "NIST.FIPS.205"]
    assert [d for _, d in know.doc_mentions("Do FIPS 204 or 205 sign?")] == ["NIST.FIPS.204", "NIST.FIPS.205"]
    assert [d for _, d in know.doc_mentions("Does FIPS 203, 2 bytes long, say so?")] == ["NIST.FIPS.203"]


def test_a_name_a_document_defines_names_that_document():
    """"Widget Transfer Format (WGT)" defines WGT: "… in WGT?" names that document by name, as a
    manual's name names the manual; "WGT-2" (a variant) does not."""
    titles = {"X.100": "Widget Transfer Format (WGT)", "X.200": "Guidance on Widgets"}
    know = CorpusKnowledge.mine([], titles, CorpusProfile())
    assert know.name_docs == {"WGT": "X.100"}
    assert know.doc_mentions("How large is a header block in WGT?") == [("WGT", "X.100")]
    assert know.doc_mentions("How large is a WGT-2 header?") == []
    assert [d for _, d in know.doc_mentions("Does X.200 say more than WGT?")] == ["X.200", "X.100"]


def test_generic_identifiers_come_from_the_corpus_and_profile():
    know = CorpusKnowledge.mine([], {"a": "A", "b": "B"}, CorpusProfile(generic_terms=["PDF"]))
    assert know.is_generic("pdf")
    assert specific_identifiers("How does ReportLab write PDF files with UTF-8?", know) == ["UTF-8"]


def test_answer_sentences_end_where_document_sentences_end():
    """The verifier's split (split_cited) agrees with the unit split (split_prose): a restated
    unit holding "index.php? func" or ". . . text" stays one cited sentence."""
    from citerag.text.sentences import split_cited, split_prose

    prose = ("Fix bug #97 ( http://host/index.php? func=detail ) . . . documentation wrong on set path to. "
             "The key is 32 bytes, e.g. for KEMs. (See Sec. 4.) “Quoted” text ends here!")
    assert split_cited(prose) == split_prose(prose)
    assert len(split_prose(prose)) == 3
    cited = "It is 800 bytes. [c1] See the table. [c2][c3] Fix ( http://h/a.php? x ) . . . wrong [c4]"
    assert split_cited(cited) == ["It is 800 bytes. [c1]", "See the table. [c2][c3]",
                                  "Fix ( http://h/a.php? x ) . . . wrong [c4]"]
    # the full stop of an abbreviation ends no sentence, in either split
    abbrev = "On some systems (e.g. Solaris) answer no. Use the flag, i.e. Pass it twice. See Fig. A for both."
    assert split_prose(abbrev) == split_cited(abbrev) == [
        "On some systems (e.g. Solaris) answer no.", "Use the flag, i.e. Pass it twice.", "See Fig. A for both."]


def test_a_numbered_label_opens_its_statement_in_both_splits():
    """"Definition 1. A KEM consists of …" is one sentence: split off, the statement loses the
    label a question cites it by. A sentence that merely ends with a number is still one."""
    from citerag.text.sentences import split_cited, split_prose

    prose = "Definition 1. A scheme consists of four parts. Lemma 3.2. It holds. See Algorithm 2. It signs."
    assert split_prose(prose) == split_cited(prose) == [
        "Definition 1. A scheme consists of four parts.", "Lemma 3.2. It holds.", "See Algorithm 2.", "It signs."]
    assert split_cited("Example 4. The call returns None. [c2] Then stop. [c3]") == [
        "Example 4. The call returns None. [c2]", "Then stop. [c3]"]
    # a label with a parenthetical title, its period spaced off by the extraction
    titled = "Definition 3 (ABC-CPA, informal) . A scheme is secure if the advantage is negligible. See Table 3 (sizes)."
    assert split_prose(titled) == ["Definition 3 (ABC-CPA, informal) . A scheme is secure if the advantage is negligible.",
                                   "See Table 3 (sizes)."]


def test_a_focus_term_respaced_is_stated_only_on_word_boundaries():
    """A name with the spaces of the text dropped must not be "found" across two words."""
    from citerag.answer.answerer import term_stated

    assert term_stated("ML-KEM-768", "the ml-kem -768 parameter set")
    assert term_stated("7856", "a signature of 7 856 bytes")
    assert term_stated("Spacer", "the spacer flowable")
    assert not term_stated("Spacer", "it fits in the space remaining on the frame")
    assert not term_stated("768", "a size of 17 68 bytes")


def test_documents_named_by_their_title():
    """"the fourth-round status report", "the transition report's glossary": a noun phrase ending
    in a word for a document, whose other words occur in one document's title only, names that
    document; a phrase that fits no title, or two alike, names none."""
    titles = {"IR.8545": "Status Report on the Fourth Round of the Widget Standardization Process",
              "IR.8547": "Transition to Widget Standards (initial public draft)",
              "FIPS.203": "Module-Lattice-Based Key-Encapsulation Mechanism Standard (ML-KEM)",
              "SP.800-227": "Recommendations for Key-Encapsulation Mechanisms",
              "reportlab-userguide": "ReportLab PDF Generation User Guide", "gri": "Gri"}
    know = CorpusKnowledge(titles, generic=["pdf"])

    def named(q):
        return [(m, d) for m, d in know.doc_mentions(q)]

    assert named("When did the board approve the fourth-round status report?") == \
        [("fourth-round status report", "IR.8545")]
    assert named("How does the transition report's glossary define a combiner?") == [("transition report", "IR.8547")]
    assert named("When does the comment period for the transition report draft end?") == \
        [("transition report draft", "IR.8547")]
    assert named("What does the user guide say about fonts?") == [("user guide", "reportlab-userguide")]
    assert named("In the PDF generation guide, what is a flowable?") == [("PDF generation guide", "reportlab-userguide")]
    # the document noun in one title settles a phrase two titles fit
    assert named("What does the key-encapsulation recommendation say?") == \
        [("key-encapsulation recommendation", "SP.800-227")]
    assert named("What does the key-encapsulation document say?") == []         # two titles alike
    assert named("Which number will the HQC standard be published under?") == []  # no title has HQC
    assert named("Which FIPS is the Secure Hash Standard?") == []                # "secure" is in no title
    assert named("What does the standard say?") == []                             # nothing but the noun


def test_a_document_named_by_title_says_where_to_look_not_what():
    """The title's words leave the retrieval query and the answer's term weights, as a document's
    number does; an identifier inside the title stays (it is also the topic)."""
    from citerag.retrieval.query import analyse
    from citerag.retrieval.retriever import unscoped
    from citerag.text.terms import Scorer

    know = CorpusKnowledge({"IR.8547": "Transition to Widget Standards", "F.1": "Gadget Standard (GX-1)"})
    assert unscoped("How does the transition report define a combiner?", ("transition report",)) == \
        "How does define a combiner?"
    qa = analyse("How does the transition report's glossary define a combiner?", know)
    assert set(Scorer(qa, {"combiner": 3.0, "glossary": 2.0}).weights) == {"glossary", "combiner"}
    qa = analyse("What does the GX-1 standard say about blinking?", know)
    assert qa.docs == ("F.1",) and "gx-1" in Scorer(qa, {"blinking": 3.0}).weights


def test_a_possessive_is_its_noun():
    """"the report's glossary" holds "report", not an unseen "report's" and a letter "s", whichever
    apostrophe the text uses."""
    assert tokenize("the report's glossary") == ["report", "glossary"]
    assert tokenize("Gri’s draw command") == ["gri", "draw", "command"]
    assert tokenize("KEM's keys, don't") == ["kem", "key", "don't", "don", "t"]


def test_a_document_named_by_name_weighs_no_more_than_the_other_terms():
    """"the default text color of AMC annotations": every passage of that document implies AMC and
    few repeat it, so weighed by its rarity the name outweighed the asked thing."""
    from citerag.retrieval.query import analyse
    from citerag.text.terms import Scorer

    know = CorpusKnowledge({"amc": "Auto Multiple Choice"}, mentions=[("AMC", "amc")])
    qa = analyse("What is the default text color of AMC annotations?", know)
    score = Scorer(qa, {"amc": 8.0, "default": 1.5, "text": 1.0, "color": 2.0, "annotation": 4.0})
    assert score.weights["amc"] == 1.0
    assert score("--text-color color text color for annotations. Default value is red.") > \
        score("Do not use a text editor: AMC won't be able to read the file.")


def test_a_command_line_option_is_an_identifier():
    """"--plafond" is the name a question asks about; as a plain word it weighed by idf alone and
    the chunk stating it ranked below chunks the dense ranking liked."""
    from citerag.text.patterns import identifiers

    assert identifiers("What does the --plafond option of AMC do, and --seuil-up? a -- b") == \
        ["plafond", "AMC", "seuil-up"]
    assert identifiers("an e-mail, x--y") == ["e-mail"]


def test_the_subject_of_a_define_question_is_read_anywhere():
    """"How does FIPS 203 define input checking?": the "define" alternative was anchored at the
    question's start, so only "Define X" had a subject and the glossary row was never preferred."""
    from citerag.retrieval.query import definition_subject

    assert definition_subject("How does FIPS 203 define input checking?") == "input checking"
    assert definition_subject("How does the glossary define a widget combiner?") == "widget combiner"
    assert definition_subject("What is input checking?") == "input checking"
    assert definition_subject("Which tools does the manual recommend?") is None


def test_a_double_dotted_name_ends_no_sentence():
    """Gri-style built-in names are written between double dots: "- ..eof.. Flag indicating …" is
    one sentence, so the name stays with what it describes; the closing dots followed by a
    capital had split the name off."""
    from citerag.text.sentences import split_cited, split_prose

    assert split_prose("- ..eof.. Flag indicating an end of file. The next one.") == [
        "- ..eof.. Flag indicating an end of file.", "The next one."]
    assert split_prose("Use ..xsize.. for the width. Then draw.") == ["Use ..xsize.. for the width.", "Then draw."]
    assert split_cited("..batch.. Flag used for batch mode. [c1]") == ["..batch.. Flag used for batch mode. [c1]"]


def test_a_persons_initial_ends_no_sentence():
    """"written by Peter S. Galbraith" was cut after "S.": the answer quoted "… written by Peter
    S." and lost the name asked for. An initial after a capitalised name or another initial joins
    the name; a lettered part ("Appendix B.") and a letter after a lower-case word ("option A.")
    still end a sentence, in document prose and in a cited answer alike."""
    from citerag.text.sentences import split_cited, split_prose

    assert split_prose("The mode was written by Peter S. Galbraith. It completes commands.") == [
        "The mode was written by Peter S. Galbraith.", "It completes commands."]
    assert split_prose("Thanks to P. S. Galbraith. Next.") == ["Thanks to P. S. Galbraith.", "Next."]
    assert split_prose("See Appendix B. The next part.") == ["See Appendix B.", "The next part."]
    assert split_prose("Use option A. Then B is used.") == ["Use option A.", "Then B is used."]
    assert split_cited("It was written by Peter S. Galbraith. [c1]") == ["It was written by Peter S. Galbraith. [c1]"]
