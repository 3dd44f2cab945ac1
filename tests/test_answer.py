"""Citations, support checks and the refusal contract (issue 4's answer layer)."""

import pytest
from citerag.answer.answerer import answer_from_evidence, unknown_terms, verify
from citerag.answer.citations import REFUSAL, check_citations, parse_keys, split_sentences, strip_citations
from citerag.answer.evidence import Evidence, numbers, support_score
from citerag.core.params import AnswerParams
from citerag.core.types import Location
from citerag.retrieval.query import analyse, detect_mode


def test_citation_forms_parse():
    assert parse_keys("a [c1] b [C2][c3] c [c4, C5] d [c1]") == ["c1", "c2", "c3", "c4", "c5"]
    assert strip_citations("It is 1088 bytes [c1][c2].") == "It is 1088 bytes."
    assert split_sentences("One is 1.2 ok [c1]. Two [c2]!\n1: step [c3]\n[c4]") == [
        "One is 1.2 ok [c1].", "Two [c2]!", "1: step [c3] [c4]"]


def test_invalid_keys_and_uncited_sentences():
    report = check_citations("Cited [c1]. Bad key [c9]. Nothing here.", {"c1", "c2"})
    assert [s.valid_keys for s in report.sentences] == [["c1"], [], []]
    assert report.sentences[1].invalid_keys == ["c9"] and not report.all_cited


def test_numbers_must_be_in_cited_text():
    assert numbers("7 856 bytes and ML-KEM-768") == {"7856", "768"}
    cited = ["ML-KEM-768 | 1184 | 2400 | 1088 | 32"]
    assert support_score("ML-KEM-768 ciphertexts are 1088 bytes", cited) > 0.5
    assert support_score("ML-KEM-768 ciphertexts are 1089 bytes", cited) == 0.0


def _ev(key, text):
    return Evidence(key, Location(f"D::p1::{key}", "D", 1, 1), text)


def test_verify_drops_unsupported_and_refuses_when_empty():
    ev = [_ev("c1", "The ciphertext of ML-KEM-768 is 1088 bytes long.")]
    p = AnswerParams()
    text, checks, reason = verify("ML-KEM-768 ciphertext is 1088 bytes [c1]. Pigs can fly [c1].", ev, p)
    assert reason is None and text == "ML-KEM-768 ciphertext is 1088 bytes [c1]."
    assert [c.supported for c in checks] == [True, False]
    assert verify("Pigs can fly [c1].", ev, p)[2] == "unsupported_claims"
    assert verify("No citations at all.", ev, p)[2] == "missing_citations"


def test_refusal_contract_and_unknown_terms():
    vocab = {"ml-kem", "ml-kem-768", "ml", "kem", "768", "ciphertext", "size", "signature", "break"}
    assert unknown_terms("What is the ML-KEM-2048 ciphertext size?", vocab) == ["ML-KEM-2048"]
    assert unknown_terms("How many qubits break ML-KEM-768?", vocab) == ["qubits"]
    # ordinary English absent from the corpus is not a missing technical term
    assert unknown_terms("What must happen to a qubits ciphertext?", vocab, frozenset({"happen"})) == ["qubits"]
    # a word the corpus writes in another inflection is known ("disallowing" ← "disallowed")
    assert unknown_terms("When is disallowing due for Kyberish?", vocab | {"disallowed"}) == ["Kyberish"]
    # ... and one it writes in the other spelling ("initialising" ← "initializing", "analysed" ←
    # "analyze"): a British question over an American manual asks about nothing unknown
    assert unknown_terms("Which address is set when initialising the colour ciphertext?",
                         vocab | {"initializing", "color", "address"}) == []
    assert unknown_terms("When is the signature analysed by Kyberish?", vocab | {"analyze"}) == ["Kyberish"]
    a = answer_from_evidence(analyse("How many qubits break ML-KEM-768?"), [], AnswerParams(), {}, vocab)
    assert (a.answer, a.refused, a.refusal_reason, a.citations) == (REFUSAL, True, "unknown_terms", [])
    a = answer_from_evidence(analyse("What is the ML-KEM-768 ciphertext size?"), [], AnswerParams(), {}, vocab)
    assert a.refused and a.refusal_reason == "insufficient_evidence"


def test_extractive_table_row_answer_is_cited():
    ev = [_ev("c1", "Table 3. Sizes (in bytes) of keys and ciphertexts of ML-KEM\n"
                    "encapsulation key | decapsulation key | ciphertext | shared secret key\n"
                    "ML-KEM-512 | 800 | 1632 | 768 | 32\nML-KEM-768 | 1184 | 2400 | 1088 | 32")]
    idf = {"ciphertext": 2.0, "ml-kem-768": 3.0, "size": 1.0}
    a = answer_from_evidence(analyse("What is the size of an ML-KEM-768 ciphertext?"), ev, AnswerParams(), idf,
                             {"ml-kem-768", "ciphertext", "size"})
    assert not a.refused
    assert "ciphertext 1088" in a.answer and a.answer.endswith("[c1]")
    assert a.citations == [{"key": "c1", "chunk_id": "D::p1::c1", "doc_id": "D", "start_page": 1, "end_page": 1}]


def test_an_option_default_stated_in_the_next_sentence_is_part_of_the_answer():
    ev = [_ev("c1", "--copy-to dir gives a directory where to copy all the scans files. --vector-density density "
                    "sets the density used to convert vector graphics scans to bitmap files. Defaults to 300.")]
    idf = {"density": 3.0, "vector": 2.0, "graphics": 2.0, "scans": 1.5, "bitmap": 2.5, "default": 0.5, "convert": 1.0}
    a = answer_from_evidence(analyse("What density is used by default to convert vector graphics scans to bitmaps?"),
                             ev, AnswerParams(), idf, set(idf))
    assert not a.refused and "300" in a.answer, a.notes


def test_the_sentence_after_the_matching_one_is_read_with_it():
    """Documents often name the topic in one sentence and state the fact in the next; the next
    sentence of the same paragraph comes with the chosen one (answer.context_sentences), and only
    from the same paragraph."""
    ev = [_ev("c1", "The pagesize option sets the size of each output page. Valid values are A4, letter and "
                    "legal.\n\nThe margin option sets the blank border around the page body.")]
    idf = {"pagesize": 4.0, "option": 1.0, "size": 1.5, "page": 0.5, "set": 0.3, "output": 1.0, "margin": 4.0}
    q = analyse("What sizes can the pagesize option set for output pages?")
    with_next = answer_from_evidence(q, ev, AnswerParams(), idf, set(idf))
    alone = answer_from_evidence(q, ev, AnswerParams(context_sentences=0), idf, set(idf))
    assert not with_next.refused and "A4, letter and legal" in with_next.answer, with_next.notes
    assert not alone.refused and "A4" not in alone.answer
    assert "margin" not in with_next.answer


def test_the_two_sentences_after_the_matching_one_are_read_with_it():
    """The fact may come two sentences on ("… sets the size. Sizes are in points. Valid values
    are …"): by default the two sentences that follow in the paragraph are read with the chosen
    one (measured: one more added nothing)."""
    ev = [_ev("c1", "The pagesize option sets the size of each output page. Sizes are given in points. Valid "
                    "values are A4, letter and legal. Other sizes need a template.\n\nThe margin option sets "
                    "the blank border around the page body.")]
    idf = {"pagesize": 4.0, "option": 1.0, "size": 1.5, "page": 0.5, "set": 0.3, "output": 1.0, "margin": 4.0,
           "point": 2.0, "template": 2.0}
    q = analyse("What sizes can the pagesize option set for output pages?")
    a = answer_from_evidence(q, ev, AnswerParams(), idf, set(idf))
    assert not a.refused and "A4, letter and legal" in a.answer and "template" not in a.answer, a.answer
    one = answer_from_evidence(q, ev, AnswerParams(context_sentences=1), idf, set(idf))
    assert not one.refused and "A4" not in one.answer, one.answer


def test_a_later_section_in_the_same_chunk_is_read_under_its_own_title():
    """A short section shares its chunk with the next one; the next section's sentences must not be
    read under the first title (a question about the first would pick them), and they are read
    under their own."""
    from citerag.answer.units import units

    ev = Evidence("c1", Location("D::p1::c1", "D", 1, 1),
                  "9.4 Spacer(width, height)\n\nThis does exactly as expected; it adds a certain amount of space "
                  "into the story.\n\n9.5 PageBreak()\n\nThis Flowable represents a page break in the story.",
                  "Flowables > 9.4 Spacer(width, height)")
    got = {u.text: u.heading for u in units(ev)}
    assert got["This does exactly as expected; it adds a certain amount of space into the story."] == \
        "Flowables > 9.4 Spacer(width, height)"
    assert got["This Flowable represents a page break in the story."] == "Flowables > 9.5 PageBreak()"
    assert not any(t.startswith("9.") for t in got)


def test_a_sentence_opening_with_an_algorithm_number_is_prose_not_a_title():
    """"Algorithm 4 shows …" and "Algorithm 3, implementing …" are sentences a question may ask
    about; "Algorithm 2 toInt(X, n)" and "Algorithm 9 chain (X, i)" are titles, and the line
    under a title is its description."""
    from citerag.answer.units import units

    ev = Evidence("c1", Location("D::p1::c1", "D", 1, 1),
                  "Algorithm 4 shows the encodings of the names for WG-1, WG-2, and WG-3. However, it may be "
                  "used with other functions.\n\nAlgorithm 3, implementing checks for GX, needs no key.\n\n"
                  "Algorithm 2 toInt(X, n)\nConverts a byte string to an integer.\n\nAlgorithm 9 chain (X, i)\n"
                  "Chains a value.")
    got = [(u.kind, u.text, u.group) for u in units(ev)]
    assert ("sentence", "Algorithm 4 shows the encodings of the names for WG-1, WG-2, and WG-3.", "") in got
    assert ("sentence", "However, it may be used with other functions.", "") in got
    assert ("sentence", "Algorithm 3, implementing checks for GX, needs no key.", "") in got
    assert ("title", "Algorithm 2 toInt(X, n)", "Algorithm 2 toInt(X, n)") in got
    assert ("sentence", "Converts a byte string to an integer.", "Algorithm 2 toInt(X, n)") in got
    assert ("title", "Algorithm 9 chain (X, i)", "Algorithm 9 chain (X, i)") in got


def test_a_short_or_name_heavy_sentence_continuing_the_one_before_is_kept():
    """"They are Ana Lund, Bo Okafor, and Cy Dahl." has too few lower-case words to pass as a
    statement on its own, but it completes the sentence before it (a pronoun opens it)."""
    from citerag.answer.units import units

    ev = Evidence("c1", Location("D::p1::c1", "D", 1, 1),
                  "The authors thank the other members of the team who reviewed the drafts. They are Ana Lund, "
                  "Bo Okafor, and Cy Dahl.\n\nAna Lund, Bo Okafor, and Cy Dahl.")
    got = [u.text for u in units(ev)]
    assert "They are Ana Lund, Bo Okafor, and Cy Dahl." in got
    assert "Ana Lund, Bo Okafor, and Cy Dahl." not in got  # no statement, continuing nothing


def test_list_items_one_to_a_paragraph_answer_with_the_head_that_announces_them():
    """Bulleted items standing one to a paragraph after "… the following X:" are the list: short
    ones are read with the head, and a list is scored as its head with its best item, so a long
    list does not gather every term of a question."""
    from citerag.answer.units import passages, units

    text = ("Our converter knows about the following codecs:\n\n- gz = gzip stream: 'GZ-Fast'\n\n"
            "- bz = bzip2 stream: 'BZ-Best'\n\n- xz = LZMA stream: 'XZ-Small'\n\nUnrelated closing remarks follow "
            "here in a paragraph of their own.")
    ev = [_ev("c1", text)]
    us = units(ev[0])
    assert [u.item for u in us] == [False, True, True, True, False]
    head = passages(us)[0]
    assert [u.text for u in head.items] == ["gz = gzip stream: 'GZ-Fast'", "bz = bzip2 stream: 'BZ-Best'",
                                            "xz = LZMA stream: 'XZ-Small'"]
    idf = {"codec": 3.0, "converter": 2.0, "know": 1.0, "bzip2": 4.0, "stream": 1.5}
    a = answer_from_evidence(analyse("Which codec does the converter know for bzip2 streams?"), ev,
                             AnswerParams(), idf, set(idf))
    assert not a.refused and "BZ-Best" in a.answer, a.notes
    long_items = ("Known problems of older helper tools:\n\n- With old versions of the spooler, printing the sheets "
                  "exits the interface early and loses the queue.\n\n- With old versions of the imaging library, "
                  "merging the corrected answer sheets into one file fails for multi-page answers.")
    assert len(passages(units(_ev("c2", long_items)))[0].units) == 2  # long items are statements of their own
    # numbered items are items too ("1. …", "2) …"), read without their numbers
    numbered = units(_ev("c3", "There are two kinds of such archives:\n\n1. Archives made by the tar tool\n\n"
                                 "2) Archives made by the zip tool"))
    assert [(u.item, u.text) for u in numbered] == [(False, "There are two kinds of such archives:"),
                                                    (True, "Archives made by the tar tool"),
                                                    (True, "Archives made by the zip tool")]


def test_a_head_written_in_the_other_spelling_is_stated():
    from citerag.answer.asked import Head, head_stated

    assert head_stated(Head("colour"), "Set the color of missing pixels (white by default).", "")
    assert head_stated(Head("centre"), "text is centered at the center of the page", "")
    assert not head_stated(Head("colour"), "Set the width of missing pixels.", "")
    from citerag.text.terms import Scorer

    score = Scorer(analyse("What colour are missing pixels?"), {"colour": 4.0, "color": 2.0, "missing": 1.0, "pixel": 1.0})
    assert score("Set the color of missing pixels.") == score("Set the colour of missing pixels.") == 1.0


def test_a_word_the_corpus_writes_hyphenated_is_known_and_held():
    """"multiline" is in a corpus that writes "multi-line": not an unknown term, and a text that
    writes "multi-line" holds it."""
    from citerag.answer.answerer import unknown_terms
    from citerag.text.terms import Scorer

    vocab = {"multi-line", "multi", "line", "text", "widget", "flag", "value"}
    assert unknown_terms("What is the value of the multiline flag?", vocab) == []
    assert unknown_terms("What is the value of the monoline flag?", vocab) == ["monoline"]
    # "non-X" is a word about X: known when X is
    from citerag.answer.answerer import absent_words

    assert absent_words("What does a non-empty flag do?", {"empty", "flag"}) == []
    assert absent_words("What does a post-empty flag do?", {"empty", "flag"}) == ["post-empty"]
    idf = {"multi-line": 3.0, "multi": 1.0, "line": 1.0, "flag": 1.0, "value": 1.0}
    score = Scorer(analyse("What is the value of the multiline flag?"), idf)
    assert score("multi-line: for multi-line text widget, flag value 1<<12") == 1.0


def test_a_compound_written_closed_or_open_is_held_either_way():
    """The question's "barcode" is held by a text's "bar code", its "face name" by a text's
    "facename"; a split into words the corpus does not use is not looked for."""
    from citerag.text.terms import Scorer

    idf = {"barcode": 4.0, "bar": 2.0, "code": 1.0, "create": 1.0, "facename": 4.0, "face": 2.0, "name": 1.0,
           "font": 1.0, "password": 3.0, "word": 1.0}
    bars = Scorer(analyse("Does the tool create barcodes?"), idf)
    assert bars("The tool does not create bar codes.") == bars("The tool does not create barcodes.") == 1.0
    assert bars("Create a code for the bar.") < 1.0  # both words, not as the compound
    faces = Scorer(analyse("Where does the face name of a font come from?"), idf)
    assert faces("The font's facename comes from the metrics file.") == 1.0
    assert Scorer(analyse("Which password is used?"), idf)("a pass word") == 0.0  # "pass" is no corpus word


def test_a_hyphenated_compound_is_held_in_another_inflection_of_its_last_word():
    """The tokenizer keeps "re-encrypts" whole, so the question's "re-encrypted" needs it as a form."""
    from citerag.text.terms import Scorer

    idf = {"re-encrypts": 6.0, "re-encrypt": 6.0, "re": 2.0, "encrypts": 3.0, "encrypted": 3.0, "value": 1.0}
    score = Scorer(analyse("Which value is re-encrypted?"), idf)
    assert score("The value re-encrypts.") == 1.0
    assert score("The value is encrypted.") < 1.0


def test_a_participle_of_the_question_is_held_in_another_inflection():
    """"What is a static key contrasted with?" is answered by "… Contrast with ephemeral key.":
    a past participle counts in its other forms. Other words keep theirs: "processing" is not
    held by "process" ("image processing libraries" vs "process the file")."""
    from citerag.text.terms import Scorer

    idf = {"static": 2.0, "key": 1.0, "contrasted": 3.0, "image": 1.0, "processing": 2.0, "library": 1.0}
    score = Scorer(analyse("What is a static key contrasted with?"), idf)
    assert score("A static key is used for a long period. Contrast with ephemeral key.") == 1.0
    assert score("The contrasting key is static.") == 1.0
    assert score("A static key is used for a long period.") == 0.5
    libs = Scorer(analyse("Which image processing libraries are required?"), idf)
    assert libs("LaTeX will process the image file.") < libs("the image processing library")


@pytest.mark.corpus
def test_eval_set_refusals_on_real_index(built, corpus_params):
    """Through the agent: questions naming what the corpus lacks are refused and few
    answerables are; what is answered cites every sentence validly. With the opt-in calibrated
    model, most near misses (topic present, fact absent) are refused too, and every decision
    records its features and probability."""
    from citerag.agent.workflow import Agent
    from citerag.core.paths import repo_root
    from citerag.experiments.evalset import load_questions
    from citerag.retrieval.store import load_store

    store = load_store(corpus_params)
    items = load_questions(repo_root() / "data" / "nist-pqc" / "eval" / "questions.jsonl")
    gated = corpus_params.with_overrides({"agent.thin_evidence": "model",
                                          "answer.abstain.model": "data/abstain/model.json"})
    for params, model in ((corpus_params, False), (gated, True)):
        agent = Agent(store, params)
        refused_answerable, near_miss, near_miss_refused, absent, absent_refused = 0, 0, 0, 0, 0
        for it in items:
            a = agent.run(it.question).answer
            if not it.answerable:
                if it.qid.startswith("nu"):  # near misses: the topic is in the corpus, the fact is not
                    near_miss += 1
                    near_miss_refused += a.refused
                else:
                    absent += 1
                    absent_refused += a.refused
                continue
            if a.refused:
                refused_answerable += 1
            else:
                assert a.citations and all(s.valid_keys for s in
                                           check_citations(a.answer, {c["key"] for c in a.citations}).sentences)
                assert set(a.decision["features"]) >= {"best", "cover"}
                assert ("probability" in a.decision) == model
        assert refused_answerable <= 0.1 * sum(it.answerable for it in items)
        # the default gate answers one of the ten (a related sentence); the model refuses all ten
        assert absent_refused >= (absent if model else 0.8 * absent)
        if model:
            assert near_miss_refused >= 0.5 * near_miss


def test_a_draft_missing_a_focus_is_redrafted_from_the_evidence_that_states_it():
    """The best-scoring passage may not state the question's number or name while a lower one
    does: the redraft answers from the evidence that states it (answer.focus_redraft). A missing
    asked thing alone ("which protocol …") is not redrafted: a unit that only mentions the word
    elsewhere would answer a question the documents do not answer."""
    from citerag.text.tokenize import tokenize

    ev = [_ev("c1", "To register a CID font, pass the font name and its Font class to the registry; each "
                    "registered CID font is then available to the canvas under that name."),
          _ev("c2", "In version 2.0 you should use the new UnicodeCIDFont class."),
          _ev("c3", "The protocol of the network server is set in its configuration file.")]
    vocab = set(tokenize(" ".join(e.text for e in ev) + " since which should used does use"))
    idf = {w: 2.0 for w in vocab} | {"2.0": 1.0, "version": 1.0, "class": 1.0}
    q = analyse("What should be used to register a CID font since version 2.0?")
    on = answer_from_evidence(q, ev, AnswerParams(), idf, vocab)
    off = answer_from_evidence(q, ev, AnswerParams(focus_redraft=False), idf, vocab)
    assert (off.refused, off.refusal_reason) == (True, "focus_not_stated")
    assert not on.refused and "UnicodeCIDFont" in on.answer and on.answer.endswith("[c2]"), on.notes
    assert any(n.startswith("redrafted from the 1 evidence unit(s) stating 2.0") for n in on.notes), on.notes
    head_only = answer_from_evidence(analyse("Which protocol does the registry use to register a CID font?"),
                                     ev, AnswerParams(), idf, vocab)
    assert (head_only.refused, head_only.refusal_reason) == (True, "focus_not_stated"), head_only.answer


def test_the_words_inside_an_identifier_are_not_names_of_their_own():
    """'Frame.addFlowable' asks about that member, not about 'Frame': a passage that opens by
    defining 'Frame' must not get the defined-name bonus (it won over the member's own sentences)."""
    from citerag.answer.extractive import names

    qa = analyse("What does Frame.addFlowable return when the Flowable does not fit?")
    assert "Frame.addFlowable" in names(qa, frozenset()) and "Frame" not in names(qa, frozenset())
    assert "Flowable" in names(qa, frozenset())  # a capitalised word of its own is still a name


def test_a_later_part_about_the_same_thing_is_answered_in_the_same_document():
    """'… and what is its default value?' is about the thing of the first part: another
    document's sentence about default values, however well it matches the part's own words,
    does not answer it."""
    from citerag.text.tokenize import tokenize

    a = Evidence("c1", Location("A::p1::c0", "A", 1, 1),
                 "The gutter option of the packer sets the blank space between two columns of a page. "
                 "When the gutter is left out, the packer uses half a centimetre.")
    b = Evidence("c2", Location("B::p4::c0", "B", 4, 4),
                 "The default value of every plotting option is stored in the startup file as its value.")
    ev = [a, b]
    vocab = set(tokenize(" ".join(e.text for e in ev) + " what does set default value"))
    idf = {w: 2.0 for w in vocab}
    r = answer_from_evidence(analyse("What does the gutter option of the packer set, and what is its default value?"),
                             ev, AnswerParams(), idf, vocab)
    assert not r.refused and "[c2]" not in r.answer and "half a centimetre" in r.answer, r.answer


def test_an_options_own_dashes_survive_the_bullet_mark():
    """'- --dist d sets …' is a bullet holding an option: the mark goes, the option's dashes stay
    (the answer must name '--dist', not 'dist'); a bullet written '•' or '- •' goes whole."""
    from citerag.answer.units import units

    ev = _ev("c1", "Lengths are given with a unit.\n\n- --gap d sets the space between two boxes. Defaults to 1cm.\n\n"
                   "- • Deprecated options are still read by the parser.")
    texts = [u.text for u in units(ev)]
    assert "--gap d sets the space between two boxes." in texts
    assert "Deprecated options are still read by the parser." in texts


def _parts_answer(question: str, evidence: list[Evidence]):
    from citerag.text.tokenize import tokenize

    vocab = set(tokenize(" ".join(e.text for e in evidence) + " " + question))
    return answer_from_evidence(analyse(question), evidence, AnswerParams(), {w: 2.0 for w in vocab}, vocab)


def test_a_later_part_with_its_own_subject_is_not_pulled_back_to_the_first_parts_name():
    """'… and what is done with the partial sums once they are all computed?' names its own
    subject: the first part's identifier must not win that part for a sentence that merely
    names it again."""
    ev = [Evidence("c1", Location("A::p3::c0", "A", 3, 3),
                   "This section describes pack_rows, a function that computes the row totals of a table. "
                   "The pack_rows function begins by computing the partial sums of each column in turn. "
                   "Once all of the partial sums have been computed, they are added together to give the grand total.")]
    r = _parts_answer("What does pack_rows compute, and what is done with the partial sums once they are all computed?", ev)
    assert not r.refused and "row totals" in r.answer and "added together" in r.answer, r.answer


def test_a_later_part_that_refers_back_stays_in_the_first_parts_section():
    """'… and what should its horizontal axis be?' is about the tool of the first part: of two
    sentences about a horizontal axis in the same document, the one under that tool's section answers it."""
    ev = [Evidence("c1", Location("A::p9::c0", "A", 9, 9),
                   "The isoline tool traces lines of equal height on the plot.", heading="Isoline tool"),
          Evidence("c2", Location("A::p9::c1", "A", 9, 9),
                   "Set the name of the horizontal axis to the given string.", heading="Set x name"),
          Evidence("c3", Location("A::p9::c2", "A", 9, 9),
                   "For the results to make sense, the horizontal axis should be the distance along the track.",
                   heading="Isoline tool")]
    r = _parts_answer("What does the isoline tool trace, and what should its horizontal axis be?", ev)
    assert not r.refused and "equal height" in r.answer and "distance along the track" in r.answer, r.answer


def test_a_later_part_without_a_subject_of_its_own_stays_in_the_first_parts_section():
    """'…, and which build file is used?' names no subject: it continues the first part's (building
    under one system). Of two sentences about the build file, the one under that system's section
    answers it, even when the other matches the part's words a little better."""
    ev = [Evidence("c1", Location("A::p4::c0", "A", 4, 4),
                   "On Plinth the build file used is called build.pl, which is also used for the tests.",
                   heading="Building on Plinth"),
          Evidence("c2", Location("A::p5::c0", "A", 5, 5),
                   "To build the packer on Zorix, first install the Qbase toolkit.", heading="Building on Zorix"),
          Evidence("c3", Location("A::p5::c1", "A", 5, 5),
                   "Then type make with the file build.zx to compile it.", heading="Building on Zorix")]
    r = _parts_answer("What must be installed first to build the packer on Zorix, and which build file is used?", ev)
    assert not r.refused and "Qbase" in r.answer and "build.zx" in r.answer, r.answer


def test_what_a_named_command_does_is_its_sections_opening_sentence():
    """'What does the draw frame command draw?': the section titled "draw frame" opens with what it
    does ("Draw a box around …"), in words that need not repeat the name; a later sentence that
    names the command again ("… ensure that draw frame comes after …") does not say what it draws."""
    ev = [Evidence("c1", Location("W::p7::c0", "W", 7, 7),
                   "4.2 draw frame\n\n‘draw frame [width .w.]’\n\n"
                   "Draw a box around the plot area, using the current line width. The box is closed.\n\n"
                   "NOTE: If you want the frame drawn over a filled image, ensure that draw frame comes after draw image.",
                   heading="4 Drawing > 4.2 draw frame")]
    r = _parts_answer("What does the draw frame command draw?", ev)
    assert not r.refused and "box around the plot area" in r.answer, r.answer
    assert r.answer.index("box around") < r.answer.index("[c1]"), r.answer


def test_a_parts_runner_up_within_reach_of_its_best_passage_is_quoted_too():
    """'…, and which flag turns on verbose output?': one sentence holds every word of the part
    without answering it, another holds three of its four words and names the flag. The term
    share cannot settle so near a tie, so the runner-up is quoted with the best passage."""
    ev = [Evidence("c1", Location("P::p2::c0", "P", 2, 2),
                   "The packer compresses every table of a page before writing it. "
                   "The log viewer has no flag of its own: its verbose output turns on with the log level."),
          Evidence("c2", Location("P::p3::c0", "P", 3, 3), "The -w flag turns on verbose messages.")]
    r = _parts_answer("What does the packer compress, and which flag turns on verbose output?", ev)
    assert not r.refused and "every table" in r.answer and "-w flag" in r.answer, r.answer


def test_a_plural_what_are_question_is_answered_by_the_sentence_defining_the_thing():
    """'What are drift windows?' also reads as a list question, so a sentence naming drift
    windows between commas looked like the answer's shape and the one defining them did not.
    "Drift windows are intervals of …" opens by defining the asked thing: that is the answer."""
    ev = [Evidence("c1", Location("M::p4::c0", "M", 4, 4),
                   "Drift windows are intervals of low activity that bound the error of the estimate. "
                   "Moreover, these intervals are known to raise the false alarm rate. "
                   "A particular class of drift windows, where a = b, was described in [4], and shown to exist for the monitor. "
                   "The impact of drift windows on the monitor was first analysed in [4]. "
                   "In [5], a model that tracked drift windows was used to predict the alarm floor.")]
    r = _parts_answer("What are drift windows, according to the monitor guide?", ev)
    assert not r.refused and "intervals of low activity" in r.answer, r.answer


def test_an_absent_word_naming_the_kind_of_thing_refuses_however_well_the_rest_matches():
    """'Which command draws a violin plot?': every other word is matched by a passage about a
    command that draws a plot, but the corpus never writes 'violin', the kind of plot asked
    about. An absent word before a function word or an -ing form modifies nothing."""
    from citerag.answer.answerer import modifying

    assert modifying("Which command draws a violin plot?", ["violin"]) == ["violin"]
    assert modifying("What does it do besides setting the type?", ["besides"]) == []
    assert modifying("Is it faster than before", ["faster"]) == []
    # a verb, a quantifier or a longer phrase after the word: no kind named
    assert modifying("How many signatures can a pilot verify per flight?", ["pilot"]) == []
    assert modifying("How many bytes does the hash output?", ["many"]) == []
    assert modifying("Which class draws bar charts with a glossy finish?", ["glossy"]) == ["glossy"]
    # a participle with its preposition after the head ends the phrase as a preposition does
    assert modifying("What is the vendor's fax number given in the notice?", ["fax"]) == ["fax"]
    # ... and so does the auxiliary after a which/what phrase
    assert modifying("Which port number does the protocol use?", ["port"]) == ["port"]
    # an absent word heading a phrase of its own after a determiner is the thing asked about
    from citerag.answer.answerer import heads_a_phrase

    assert heads_a_phrase("Which method applies a shear to its contents?", ["shear"]) == ["shear"]
    assert heads_a_phrase("Which method shears its contents?", ["shears"]) == []
    from citerag.text.tokenize import tokenize

    ev = [_ev("c1", "The draw curve command draws a plot of the columns read so far.")]
    vocab = set(tokenize(ev[0].text + " which"))  # the corpus: it never writes "violin"
    idf = {w: 2.0 for w in vocab | {"violin"}}
    r = answer_from_evidence(analyse("Which command draws a violin plot?"), ev, AnswerParams(), idf, vocab)
    assert r.refused and r.refusal_reason == "unknown_terms" and "violin" in r.notes[-1], r.notes
    assert not answer_from_evidence(analyse("Which command draws a plot?"), ev, AnswerParams(), idf, vocab).refused


def test_a_modifier_no_retrieved_passage_writes_refuses_the_answer():
    """'Which option adds crop marks?': the corpus writes 'crop' somewhere, so it is no absent
    word, but no retrieved passage does: the passages are about options that add marks of
    another kind. Words that describe rather than name a kind, verbs and multi-part questions
    are left out."""
    from citerag.answer.answerer import unretrieved_kind
    from citerag.text.tokenize import tokenize

    passages = ["The Quill page layout option adds registration marks and a frame around the page."]
    vocab = set(tokenize(passages[0])) | {"crop", "small", "know", "stop", "give"}
    assert unretrieved_kind("Which option adds crop marks?", passages, vocab) == ["crop"]
    assert unretrieved_kind("Which option adds registration marks?", passages, vocab) == []  # written
    assert unretrieved_kind("Which option gives crop marks, and what does frame do?", passages, vocab) == []
    assert unretrieved_kind("Which option adds smaller marks?", passages, vocab) == []  # a comparative
    assert unretrieved_kind("What are the known marks of the page?", passages, vocab) == []  # a participle
    assert unretrieved_kind("Which option gives page marks?", passages, vocab) == []  # a verb, not a modifier
    assert unretrieved_kind("How can you stop page marks?", passages, vocab) == []  # the verb after "you"
    assert unretrieved_kind("Which option adds the fourth frame?", passages, vocab) == []  # an ordinal
    assert unretrieved_kind("Are frames allowed when stacking Quill pages?", passages, vocab) == []  # a verb in -ing
    assert unretrieved_kind("Which option adds stacking marks?", passages, vocab | {"stack"}) == ["stacking"]
    # the question's own "which" before a two-letter acronym: the word between modifies it; before a
    # lower-case word it may be the subject of a participle ("which paper cited in …")
    assert unretrieved_kind("Which crop QL does the layout option add?", passages, vocab) == ["crop"]
    assert unretrieved_kind("Which crop marks does the layout option add?", passages, vocab) == []
    assert unretrieved_kind("Can the option add a crop QL?", passages, vocab) == ["crop"]
    # a compound adjective before a compound noun ("a big-endian bit string"); a noun in -ing is a noun
    assert unretrieved_kind("Which option adds big-endian page marks?", passages, vocab | {"big-endian"}) == [
        "big-endian"]
    assert unretrieved_kind("Which option adds a worst-case running frame?", passages,
                            vocab | {"worst-case"}) == ["worst-case"]
    assert unretrieved_kind("Which option adds a crop string?", passages, vocab) == ["crop"]
    assert unretrieved_kind("Which option of the crop guide adds marks?", passages, vocab,
                            named=("the crop guide",)) == []  # a document's name
    ev = [_ev("c1", passages[0])]
    idf = {w: 2.0 for w in vocab}
    # (the asked head, "option", is written: the head check has nothing to refuse)
    q = "Which Quill page layout option adds crop marks?"
    r = answer_from_evidence(analyse(q), ev, AnswerParams(), idf, vocab)
    assert r.refused and r.refusal_reason == "focus_not_stated" and "crop" in r.notes[-1], (r.answer, r.notes)
    off = AnswerParams(refuse_unretrieved_kind=False)
    assert not answer_from_evidence(analyse(q), ev, off, idf, vocab).refused


def test_an_algorithm_answer_keeps_the_line_saying_what_it_does():
    """'What does Algorithm 5 SpreadRows compute?': the steps, and first the sentence under the
    title that says what the algorithm does (not the Input/Output lines)."""
    ev = [_ev("c1", "Algorithm 5 SpreadRows(r)\nComputes the spread of every row of a table.\n"
                    "Input : a table r .\n1: for i from 0 to n do\n2: s[i] ← max(r[i]) - min(r[i])\n3: return s")]
    r = _parts_answer("What does Algorithm 5 SpreadRows compute?", ev)
    assert not r.refused and "spread of every row" in r.answer and "1: for i" in r.answer, r.answer
    assert "Input" not in r.answer


def test_a_short_description_line_and_a_second_part_of_an_algorithm_question_are_answered():
    """'What does Algorithm 19 ColUnpack do, and what does RowUnpack recover?': the four-word line
    under the title ('Reverses the procedure ColPack.') is the answer to the first part, and the
    second part is answered from its own passage, not dropped because the steps answered the first."""
    ev = [_ev("c1", "Algorithm 19 ColUnpack(v, a)\nReverses the procedure ColPack .\nInput : a byte string v .\n"
                    "1: c ← bitlen a\n2: z ← BytesToBits(v)\n3: return z"),
          _ev("c2", "RowUnpack reverses the procedure performed by RowPack and recovers the vector h of hints.")]
    r = _parts_answer("What does Algorithm 19 ColUnpack do, and what does RowUnpack recover?", ev)
    assert not r.refused and "Reverses the procedure ColPack" in r.answer, r.answer
    assert "1: c ← bitlen a" in r.answer and "recovers the vector h" in r.answer, r.answer


def test_a_short_labelled_line_is_a_fact():
    """'Category: Computer Security' is too short to pass as a prose statement but states a fact;
    an algorithm's 'Input:' line stays with its algorithm."""
    from citerag.answer.units import units

    got = {u.text: u.kind for u in units(_ev("c1", "Category: Computer Security\n\nSubcategory: Cryptography\n\n"
                                                   "Input: a byte string v."))}
    assert got.get("Category: Computer Security") == "definition", got
    assert got.get("Subcategory: Cryptography") == "definition", got
    assert not any(t.startswith("Input") and k == "definition" for t, k in got.items()), got



def test_a_stated_motivation_or_purpose_shows_a_reason():
    """'Why is X used?' is answered by 'The motivation for using X is that …' or 'The purpose of
    X is …' as much as by 'because'; a plain statement shows none."""
    from citerag.answer.asked import CUES

    for text in ("The motivation for using the transform is that multiplication is faster.",
                 "The purpose of the counter is to make each nonce unique.",
                 "The rationale for the larger key is a higher security category.",
                 "It is used because it is fast."):
        assert CUES["reason"].search(text), text
    assert not CUES["reason"].search("The transform maps a polynomial to its evaluations.")


def test_a_which_method_question_is_answered_by_a_name_written_as_code():
    """'Which canvas method lists the fonts?' is answered by 'getAvailableFonts()' though the text
    never says 'method'; prose that names no code-like name does not answer it."""
    from citerag.answer.answerer import unstated_heads

    q = "Which canvas method lists the fonts that are always available?"
    text = "canvas.getAvailableFonts() returns the fonts that are always available."
    assert unstated_heads(q, text, text + " [c1]") == []
    prose = "The fonts that are always available are listed in the appendix."
    assert unstated_heads(q, prose, prose + " [c1]") == ["method"]
    assert unstated_heads("Which option makes the run quiet?", "Use --quiet to silence it.",
                          "Use --quiet to silence it. [c1]") == []


def test_a_glossary_term_on_its_own_line_defines_what_follows():
    """In a glossary, "widget combiner" standing alone over "A function that takes …" is one
    definition, "widget combiner: A function …", and the next term's paragraph is read under that
    term, not the chunk's; a term opening its line in lower case ("legacy mode The tool may …")
    is one too. Outside a glossary, a short line is no term."""
    from citerag.answer.units import units

    text = ("widget combiner\n\nA function that takes in two or more widgets and returns one. It is keyed by the caller's secret.\n\n"
            "key derivation\n\nThe process of deriving a key.\n\n"
            "legacy mode The tool may be used only to read old files (e.g., to convert them).")
    us = units(Evidence("c1", Location("D::p9::c2", "D", 9, 9), text, "Appendix A. Glossary > widget combiner"))
    assert [(u.kind, u.text[:30]) for u in us] == [
        ("definition", "widget combiner: A function th"), ("sentence", "It is keyed by the caller's se"),
        ("definition", "key derivation: The process of"), ("definition", "legacy mode: The tool may be u")]
    assert us[2].heading == "Appendix A. Glossary > key derivation"
    prose = units(Evidence("c1", Location("D::p9::c2", "D", 9, 9), text, "4 Usage > widget combiner"))
    assert [u.kind for u in prose] == ["sentence"] * 4


def test_a_sentence_broken_by_a_displayed_command_or_a_paragraph_break_is_read_whole():
    """"… add, just after the command \\start the line" [the command] "so that the count starts at 1
    …" is one sentence around a displayed command; "… with industry, and" over "relevant agencies
    to …" one sentence a page layout broke. Each is read as one passage; a finished sentence does
    not take the next paragraph."""
    from citerag.answer.units import passages, units

    text = ("and it is then important to add, just after the command \\start the line\n\n"
            "<mark>\\setcounter{page}{0}</mark>\n\n"
            "so that the numbering of pages starts at 1 for every copy.\n\n"
            "It is intended to foster engagement with industry, standards bodies, and\n\n"
            "relevant agencies to facilitate the adoption of the new scheme.\n\n"
            "The tool writes one file per copy.\n\n"
            "several files may be merged later by the user.")
    ps = passages(units(Evidence("c1", Location("D::p2::c0", "D", 2, 2), text)))
    assert [u.kind for u in ps[0].units] == ["sentence", "code", "sentence"]
    assert ps[0].units[2].text.startswith("so that the numbering")
    broken = next(p for p in ps if p.head.text.startswith("It is intended"))
    assert [u.text[:8] for u in broken.units] == ["It is in", "relevant"]
    assert len(next(p for p in ps if p.head.text.startswith("The tool")).units) == 1


def test_each_part_favours_the_passage_defining_its_own_name():
    """"What is the default barGap of a bar chart, and what is the default groupGap?": the passage
    defining groupGap also names barGap ("use groupGap and not barGap"), so with the whole
    question's names both passages defined one, and groupGap's answered the first part too."""
    ev = [_ev("c1", "barWidth | As it says. Defaults to 10.\ngroupGap | Defaults to 5. This is the space between "
                    "each group of bars. If you have only one series, use groupGap and not barGap to split them up."),
          _ev("c2", "barGap | Defaults to 0. This is the spacing between bars in each group.\nbarLabel | Defaults "
                    "to None. If you supply a format string then labels will be drawn.")]
    idf = {"default": 0.5, "bargap": 4.0, "groupgap": 4.0, "chart": 2.0, "space": 1.0, "bar": 1.0, "group": 1.0}
    plain = frozenset("what is the default of a bar chart and group space spacing".split())  # ordinary English
    a = answer_from_evidence(analyse("What is the default barGap of a bar chart, and what is the default groupGap?"),
                             ev, AnswerParams(), idf, set(idf), common_words=plain)
    assert not a.refused and "barGap: Defaults to 0" in a.answer and "groupGap: Defaults to 5" in a.answer, a.answer


def test_a_settings_default_stated_later_in_its_paragraph_is_read_with_it():
    """"--cap t gives the ratio over which a box is not ticked. You can set this value to 0.6 to
    … . The default value is 1.0, so that this feature is disabled.": the default is two
    sentences on, past the one context sentence, and is read with the setting."""
    ev = [_ev("c1", "- --cap upper gives the black ratio threshold over which a box is considered as not being "
                    "ticked. You can set this value to 0.6 to allow students to cancel a ticked box by filling it "
                    "completely. The default value is 1.0, so that this feature is disabled.\n\n- --grain g asks "
                    "marks to be rounded to a multiple of g.")]
    idf = {"cap": 4.0, "default": 0.5, "value": 0.5, "ratio": 2.0, "black": 2.0, "box": 1.0, "ticked": 2.0,
           "option": 0.5, "set": 0.3}
    a = answer_from_evidence(analyse("What does the --cap option set, and what is its default?"), ev, AnswerParams(),
                             idf, set(idf))
    assert not a.refused and "default value is 1.0" in a.answer, a.answer


def test_a_numbered_announcement_item_is_a_labelled_fact():
    """"4. Approving Authority. Secretary of Commerce.": label and value were each too short to be
    a statement and both were dropped. A value of one sentence keeps its label; a longer item
    stays prose."""
    from citerag.answer.units import units

    text = ("4. Approving Authority. Secretary of Widgets.\n\n5. Maintenance Agency. Department of Widgets, "
            "Institute of Gadgets, Laboratory of Tools (LT).\n\n6. Applicability. This standard applies to all "
            "departments. It also applies to their contractors.")
    us = units(Evidence("c1", Location("D::p4::c3", "D", 4, 4), text))
    assert [(u.kind, u.text[:30]) for u in us] == [
        ("definition", "Approving Authority: Secretary"), ("definition", "Maintenance Agency: Department"),
        ("sentence", "This standard applies to all d"), ("sentence", "It also applies to their contr")]


def test_a_part_naming_a_camel_case_name_keeps_to_it():
    """"What does sigDecode do, and which function does w1Encode use …?": the first part names its
    own thing in camel case, so it does not carry the second part's identifier, which had
    picked w1Encode's sentences for both parts."""
    from citerag.answer.asked import split_parts
    from citerag.answer.extractive import _part_qa

    qa = analyse("What does sigDecode do, and which function does w1Encode use to pack each polynomial?")
    first, _second = split_parts(qa.text)
    assert "w1Encode" not in _part_qa(qa, first).text
    assert _part_qa(analyse("What does X-1 take, and what does it return?"), "what does it return").text.endswith("X-1")


def test_a_pronoun_part_stays_about_the_first_parts_subject():
    """"How does the guide define a widget key, and what is it contrasted with?": "it" is the widget
    key; the second part, naming nothing of its own, had only "contrasted" to go on and picked any
    passage about contrasts. A part naming its own identifier keeps to it."""
    from citerag.answer.extractive import _part_qa

    qa = analyse("How does the guide define a widget key, and what is it contrasted with?")
    assert "widget key" in _part_qa(qa, "what is it contrasted with", "widget key").text
    assert "widget key" not in _part_qa(qa, "what is WG-7 contrasted with", "widget key").text


def test_a_yes_no_requirement_is_answered_by_the_sentence_stating_it_with_a_modal():
    """"Should implementations bound the loop?" ← "Implementations should not bound this loop":
    the verb after a modal is the question's verb; a sentence merely sharing the loop's name is
    not the answer."""
    from citerag.answer.extractive import states_predicate

    q = "Should implementations bound the widget loop?"
    assert states_predicate(q, "Implementations should not bound this loop, if at all possible.")
    assert not states_predicate(q, "An incorrect limit on the widget loop will cause interoperability errors.")
    assert not states_predicate("What should implementations bound?", "Implementations should not bound it.")
    # a denial with "does not" states the predicate too; an emphatic "does" in a condition does not
    q = "Does the packer create the labels used for sorting?"
    assert states_predicate(q, "The packer does not create labels, it is your responsibility to do so.")
    assert not states_predicate(q, "If a user does create labels, the packer sorts them by name.")


def test_a_title_line_over_a_table_names_its_rows():
    """"widget.choice parameters" over "Parameter | Meaning | Default": each row restates the title,
    so a question about widget.choice's width finds that table's row, not another widget's. A
    caption already read keeps its place, and a two-column table under a line stays a glossary."""
    from citerag.answer.units import units

    text = ("widget.choice parameters\nParameter | Meaning | Default\nwidth | The widget width | 120\n\n"
            "Table 3. Sizes\n[REF1]\nname | size | category\nABC-1 | 32 | 1\n\n"
            "Terms used\nXOF | eXtendable-Output Function")
    us = units(Evidence("c1", Location("D::p62::c2", "D", 62, 62), text))
    assert [u.text for u in us] == ["widget.choice parameters: width: Meaning The widget width, Default 120",
                                    "Table 3, Sizes: ABC-1: size 32, category 1", "XOF: eXtendable-Output Function"]


def test_a_kind_head_is_stated_by_its_cue_or_by_the_answer_naming_the_kind():
    """"Which methods for combining keys …" asks for methods, which an answer states by naming
    them ("three approved methods for combining …"), not only by code ("getWidth()"). A date or
    number head still needs its cue."""
    from citerag.answer.asked import Head, head_stated

    assert head_stated(Head("methods", "code"), "", "It provides three approved methods for combining keys.")
    assert head_stated(Head("method", "code"), "", "Call getWidth() on it.")
    assert not head_stated(Head("method", "code"), "", "It combines the keys.")
    assert not head_stated(Head("year", "date"), "", "The year of the standard is given in its references.")


def test_the_asked_thing_of_a_phrase_whose_verb_is_a_guess():
    """Without an auxiliary the verb ending a "which X …" phrase is guessed: "which value means
    black" asks for a value, not for "means"; "which method sets several properties" for a method.
    Each noun before a word that could be its verb may be the head, and evidence naming any of them
    states it; evidence naming none does not. A hyphenated modifier in -ed is not the verb, and a
    question word in a relative clause ("the bug in which two patches …") asks for nothing."""
    from citerag.answer.asked import asked_heads, head_stated

    (value,) = asked_heads("Which value means black in the tool?")
    assert head_stated(value, "A graylevel value of 0 is black and 1 is white.", "")
    assert not head_stated(value, "Black text is drawn on a white page.", "")
    (method,) = asked_heads("which method sets several properties at once?")
    assert head_stated(method, "The setProperties method takes a dictionary.", "")
    (schemes,) = asked_heads("Which two hash-based signature schemes does the standard use as components?")
    assert schemes.word == "schemes"
    assert asked_heads("Who found the bug in which two nearly equal color patches came out red?") == ()
    # an acronym opening the phrase modifies the noun after it: "which XYZ vendors" asks for
    # vendors, and evidence that names none does not state them (the acronym once ended the phrase)
    (vendors,) = asked_heads("Which XYZ vendors does the standard approve for signing?")
    assert (vendors.word, vendors.modifiers) == ("vendors", ("XYZ",))
    assert not head_stated(vendors, "Signing may run in a validated XYZ module.", "")
    assert asked_heads("What KEM does the protocol use?") == ()


def test_a_date_is_a_year_or_a_month_not_a_word_a_month_begins():
    """The date cue took "may" (the modal), "decapsulation" and "novel" for months, so a "when
    will …" question was answered with a sentence holding no date."""
    from citerag.answer.asked import STRICT, type_match

    assert not type_match(("date",), "After the process is completed, the agency may consider a standard.")
    assert not type_match(("date",), "The decapsulation key is a novel octet string.")
    assert type_match(("date",), "The comment period closed on 12 May.")
    assert type_match(("date",), "It was published in Sept. and revised in 2024.")
    assert STRICT["money"].search("how much does it charge for issuing one?")


def test_each_part_wants_the_answer_type_it_asks_itself():
    """"Which shuffle is the sampler based on, and which bytes of the output choose the signs?":
    the first part asks no number; inheriting the question's ("which bytes") halved the one
    sentence that answers it, "The procedure is based on the Knuth shuffle.", which has no digit,
    and a sentence about byte 9 answered instead."""
    from citerag.answer.asked import asked

    q = "Which shuffle is the sampler based on, and which bytes of the output choose the signs?"
    first, second = asked(q).parts
    assert first.types == () and "number" in second.types
    from citerag.answer.asked import type_match

    assert type_match(("reason",), "For efficiency reasons, the slow path is not used.")  # a plural reason
    ev = [_ev("c1", "Step 9 of the sampler runs every time a byte of the sampler output is greater than i."),
          _ev("c2", "The procedure is based on the Knuth shuffle. The first 8 bytes of the output choose the "
                    "signs of the nonzero entries.")]
    idf = {"shuffle": 4.0, "sampler": 3.0, "based": 1.0, "byte": 1.0, "output": 1.0, "choose": 3.0, "sign": 2.0,
           "step": 1.0, "procedure": 1.0}
    a = answer_from_evidence(analyse(q), ev, AnswerParams(), idf, set(idf))
    assert not a.refused and "based on the Knuth shuffle" in a.answer, a.answer


def test_a_part_quotes_its_runner_up_when_the_two_nearly_tie():
    """"What is the width for all layouts, and what is the margin when the width is 4?": two
    passages hold the first part's words equally ("width", "layouts"); the first by evidence rank
    only lists the layouts' parameters, the second states the width. A near tie is not settled by
    the term share, so both are quoted; a passage far below the best is not."""
    ev = [_ev("c1", "A layout consists of parameters for the grid (n and width), the page and the frame."),
          _ev("c2", "For the layouts specified in this manual, the width is 4 for all layouts."),
          _ev("c3", "When width = 4, margin = 3 and gutter = 2."),
          _ev("c4", "A frame may hold a grid.")]
    idf = {"width": 3.0, "layout": 2.0, "margin": 4.0, "gutter": 4.0, "parameter": 1.0, "grid": 2.0, "frame": 2.0,
           "page": 1.0, "specified": 1.0, "manual": 1.0}
    q = "What is the width for all layouts, and what is the margin when the width is 4?"
    a = answer_from_evidence(analyse(q), ev, AnswerParams(), idf, set(idf))
    assert not a.refused and "width is 4 for all layouts" in a.answer and "margin = 3" in a.answer, a.answer
    assert "may hold a grid" not in a.answer


def test_a_near_tie_is_quoted_past_the_sentence_budget():
    """The best passage spends the sentence budget ("The grid option sets the grid. It also …");
    a runner-up holding the question's words as fully is quoted anyway (the term share cannot
    tell the two apart), a weaker one is not."""
    ev = [_ev("c1", "The grid option sets the grid spacing of the chart. It also sets the colour of its lines."),
          _ev("c2", "By default the grid spacing of a chart is 10 points."),
          _ev("c3", "A chart may hide its grid.")]
    idf = {"grid": 3.0, "spacing": 4.0, "chart": 2.0, "option": 1.0, "default": 1.0, "colour": 2.0, "line": 1.0,
           "point": 1.0, "hide": 2.0}
    q = analyse("What is the grid spacing of a chart?")
    a = answer_from_evidence(q, ev, AnswerParams(max_sentences=2), idf, set(idf))
    assert not a.refused and "10 points" in a.answer and "hide its grid" not in a.answer, a.answer


def test_three_items_with_one_comma_are_a_list():
    """"… by a comma, a semicolon or a tabulation.": a list written with one comma and "or"
    shows the list shape a "which characters …" question wants; a lone comma does not."""
    from citerag.answer.asked import type_match

    assert type_match(("list",), "One can replace the separator by a comma, a semicolon or a tabulation.")
    assert not type_match(("list",), "If the option is set, the box is ticked.")


def test_a_limit_is_shown_only_by_a_sentence_about_the_asked_thing():
    """"What is the maximum size of a message?": a sentence giving another thing's maximum ("The
    label has a maximum length of 255 bytes.") does not show it; one about messages does."""
    from citerag.answer.asked import unshown_quantities

    q = "What is the maximum size of a message?"
    assert unshown_quantities(q, "A widget signs a message. [c1]\nThe label has a maximum length of 255 bytes. [c2]") \
        == ["a limit (maximum or minimum)"]
    assert unshown_quantities(q, "A message may be at most 2 MB in size. [c1]") == []


def test_a_displayed_literal_completes_the_sentence_announcing_it():
    """"Widgetry inserts the following comment line at the end of the data" then "%END_DATA" on a
    paragraph of its own: the literal is what the sentence announces; as a one-word paragraph it
    was dropped as no statement, and the answer stopped at "… at the end of the data."."""
    from citerag.answer.units import passages, units

    text = ("Widgetry inserts a single comment line before the data:\n\n%BEGIN_DATA\n\n"
            "The first number is the count. Widgetry inserts the following comment line at the end of the data"
            "\n\n%END_DATA\n\nThe next section describes colours.")
    us = units(Evidence("c1", Location("D::p4::c0", "D", 4, 4), text))
    assert [u.text for u in us if u.kind == "code"] == ["%BEGIN_DATA", "%END_DATA"]
    ps = [p for p in passages(us, 3) if p.head.text.startswith("Widgetry inserts the following")]
    assert [u.text for u in ps[0].units] == [
        "Widgetry inserts the following comment line at the end of the data", "%END_DATA"]


def _answer_over(text: str, question: str, idf_overrides: dict[str, float] | None = None):
    """The answer to `question` from one evidence text whose every token is known (idf 2.0)."""
    from citerag.text.tokenize import tokenize

    ev = [Evidence("c1", Location("D::p1::c1", "D", 1, 1), text)]
    idf = {w: 2.0 for w in tokenize(text)} | (idf_overrides or {})
    return answer_from_evidence(analyse(question), ev, AnswerParams(), idf, set(idf))


def test_what_an_algorithm_returns_under_a_condition_is_its_return_step():
    """"What does X return if …?" is answered by the step of X that returns under that condition
    (with its "if" line and the algorithm's title), not by the title's "Output :" line, which says
    what X returns when it succeeds. The condition may be inflected differently ("overflows" /
    "overflowed"), and a step of another algorithm does not answer."""
    text = ("The parser reads blocks from the stream.\n\n"
            "Algorithm 7 ParseBlock(buf)\nReads one block.\nInput : buffer buf. Output : block B.\n"
            "1: if |buf| > 4096 then\n2: return ⊥ ▷ return an error indication if the buffer overflowed\n"
            "3: end if\n4: B ← decode(buf)\n5: return B\n\n"
            "Algorithm 8 ParseStream(s)\nReads a stream.\nInput : stream s. Output : blocks.\n"
            "1: if s = NULL then\n2: return ⊥ ▷ return an error indication if the stream is empty\n3: end if")
    a = _answer_over(text, "What does ParseBlock return if the buffer overflows?")
    assert not a.refused and "buffer overflowed" in a.answer and "Algorithm 7 ParseBlock" in a.answer
    assert "stream is empty" not in a.answer and "5: return B" not in a.answer
    a = _answer_over(text, "What does ParseStream return if the stream is empty?")
    assert "stream is empty" in a.answer and "buffer overflowed" not in a.answer


def test_the_function_an_algorithm_calls_for_a_purpose_is_its_call_step():
    """"Which function does X use to …?" is answered by X's step that calls a function for that
    purpose, with the loop line above it: the callee's name counts in its parts ("Sample Poly"
    for "sample") and a one-letter variable must be the one the step computes. A call of another
    algorithm, or one for another purpose, does not answer."""
    text = ("The mixing functions are below.\n\n"
            "Algorithm 3 MixRows(M)\nMixes the rows of M.\nInput : matrix M. Output : matrix R.\n"
            "1: for i from 0 to 7 do ▷ shuffle each row\n2: S[i] ← ShuffleRow(M[i])\n3: end for\n"
            "4: for i from 0 to 7 do\n5: R[i] ← SamplePoly(S[i]) ▷ sample each output row\n6: end for\n"
            "7: return R\n\n"
            "Algorithm 4 MixCols(M)\nMixes the columns of M.\nInput : matrix M. Output : matrix R.\n"
            "1: R ← ShuffleCols(M) ▷ shuffle the columns\n2: return R")
    a = _answer_over(text, "Which function does MixRows use to sample R?")
    assert not a.refused and "SamplePoly" in a.answer and "ShuffleRow" not in a.answer, a.answer
    a = _answer_over(text, "Which function does MixRows use to shuffle each row?")
    assert "ShuffleRow" in a.answer and "ShuffleCols" not in a.answer and "SamplePoly" not in a.answer, a.answer


def test_a_return_condition_is_read_through_abbreviations_and_comparisons():
    """Pseudocode names abbreviate the question's words ("ctx" for context) and compare with
    signs ("longer than 255" is "> 255"); a negated condition ("not less than q") is the other
    branch of "if z < q", so the sign does not count for it."""
    text = ("Algorithm 9 CheckMsg(M, ctx)\nChecks a message.\nInput : message M, context string ctx. Output : Boolean.\n"
            "1: if |ctx| > 255 then\n2: return false\n3: end if\n4: return true\n\n"
            "Algorithm 10 DrawVal(b)\nDraws a value.\nInput : bytes b. Output : value z or ⊥.\n"
            "1: z ← b mod 2^23\n2: if z < q then return z\n3: else return ⊥")
    common = {"context": 2.0, "string": 0.5, "byte": 0.5, "longer": 2.0, "less": 2.0}  # common words weigh little
    a = _answer_over(text, "What does CheckMsg return if the context string is longer than 255 bytes?", common)
    assert not a.refused and "return false" in a.answer and "Algorithm 9 CheckMsg" in a.answer, a.answer
    a = _answer_over(text, "What does DrawVal return when z is not less than q?", common)
    assert "if z < q then return z" not in a.answer, a.answer


def test_a_verb_that_frames_the_question_is_never_an_absent_word():
    """"Which publication on TLS does the report mention?" ends on the question's frame, not on new
    information: a corpus that never writes "mention" must not refuse it (it did, `unknown_terms`)."""
    from citerag.answer.answerer import absent_words, ends_on

    vocab = {"publication", "tls", "report", "server", "client"}
    q = "Which publication on TLS servers and clients does the report mention?"
    assert absent_words(q, vocab) == [] and ends_on(q, absent_words(q, vocab)) == []
    assert absent_words("Which publication does the report recommend for satellites?", vocab) == [
        "recommend", "satellites"]


def test_a_named_step_of_a_protocol_is_answered_from_prose_not_from_an_algorithms_steps():
    """'… in the challenge step of the protocol?' names one step of a protocol the prose
    describes; only "steps", "step 8" or "step by step" ask for an algorithm's numbered steps.
    Answered as an algorithm question, it got the steps of another algorithm of the same scheme."""
    assert detect_mode("What does the verifier send in the challenge step of the WX protocol?") != "algorithm"
    assert detect_mode("Does the example include a key-confirmation step?") != "algorithm"
    for q in ("What are the steps of WX.Sign?", "What happens in step 8 of WX.Sign?", "Explain WX.Sign step by step."):
        assert detect_mode(q) == "algorithm"
    ev = [_ev("c1", "Algorithm 7 WX.Sign_internal(sk, M)\nSigns a message.\n1: y ← Mask(sk)\n"
                    "2: c ← Pick(y) ▷ verifier's challenge\n3: return (c, y)"),
          _ev("c2", "The WX protocol has three steps. In the challenge step, the verifier sends a random "
                    "challenge vector c to the prover. In the response step, the prover returns z.")]
    r = _parts_answer("What does the verifier send in the challenge step of the WX protocol?", ev)
    assert not r.refused and "random challenge vector c" in r.answer and "Pick(y)" not in r.answer


def test_a_conclusion_for_these_reasons_keeps_its_reasons_and_is_quoted_once():
    """"For these reasons, …" leans on the sentence before it, as "For this reason, …" does; and
    the overlap that repeats it at the top of the next chunk is not quoted a second time."""
    ev = [_ev("c1", "The codec packs rows in place. Moreover, the packed form halves the memory the tally needs. "
                    "For these reasons, packing is an integral part of the codec and not merely an optimization."),
          _ev("c2", "For these reasons, packing is an integral part of the codec and not merely an optimization. "
                    "Unpacking reverses it.")]
    r = _parts_answer("Why is packing an integral part of the codec rather than merely an optimization?", ev)
    assert not r.refused and "halves the memory" in r.answer
    assert r.answer.count("For these reasons") == 1, r.answer


_PACK = ("The archive writer packs records into frames before it writes them, one frame per call.\n\n"
         "Algorithm 5 PackFrame(r, n)\nPacks records into one frame.\n"
         "Input : record list r, frame size n. Output : frame F of n bytes.\n"
         "1: F ← Zero(n)\n2: for i from 0 to 9 do\n3: F ← F ∥ Encode(r[i])\n4: end for\n5: return F")


def test_what_an_algorithm_takes_or_returns_is_read_from_its_input_and_output_lines():
    """"What inputs does X take?" and "what does X return?" are stated by X's "Input :" and
    "Output :" lines, which do not repeat X's name: they are read under the algorithm's title,
    and their labels as the question's verbs ("Output" is what X returns). Before, they weighed
    only their own words and lost to the description line under the title."""
    a = _answer_over(_PACK, "What inputs does PackFrame take?", {"take": 2.0})  # a word of the corpus
    assert not a.refused and "record list r, frame size n" in a.answer.split("\n")[0], a.answer
    a = _answer_over(_PACK, "What does PackFrame return?")
    assert not a.refused and "frame F of n bytes" in a.answer.split("\n")[0], a.answer


def test_an_input_line_is_read_under_its_title_only_when_the_part_asks_what_goes_in_or_out():
    """Read under the title for any question naming the algorithm, an "Input :" line outscored
    the prose stating other facts about it (seen pools: two answers lost, none gained). So the
    title and the label's verbs count only when the part asks what the algorithm takes or
    returns; otherwise the line weighs its own words, as any sentence does."""
    from dataclasses import replace

    from citerag.answer.extractive import passage_score
    from citerag.answer.units import Passage, units
    from citerag.text.terms import Scorer

    ev = Evidence("c1", Location("D::p1::c1", "D", 1, 1), _PACK)
    line = next(u for u in units(ev) if u.text.startswith("Input :"))
    assert line.group == "Algorithm 5 PackFrame(r, n)"
    bare = Passage([replace(line, group="")])
    q = analyse("Which frame size does PackFrame use for archive records?")
    score = Scorer(q, {}, frozenset())
    assert passage_score(score, (), Passage([line]), 0) == passage_score(score, (), bare, 0)
    assert passage_score(score, (), Passage([line]), 0, asks_io=True) > passage_score(score, (), bare, 0)


def test_a_question_about_steps_naming_no_algorithm_is_not_answered_by_an_algorithms_steps():
    """"May an implementation replace the given steps with other steps?" asks about steps in
    general: the steps of whichever algorithm the evidence holds do not answer it; the prose
    does."""
    ev = [_ev("c1", _PACK),
          _ev("c2", "For every algorithm in this manual, a conforming implementation may replace the given "
                    "steps with any equivalent set of steps that produces the same output.")]
    r = _parts_answer("May a conforming implementation replace the given steps with other steps?", ev)
    assert not r.refused and "equivalent set of steps" in r.answer and "1: F ← Zero(n)" not in r.answer, r.answer


def test_a_numbered_thing_the_evidence_numbers_only_otherwise_is_refused():
    """"Where was the fifth workshop held?" over evidence about the third and fourth workshops was
    answered from the sentence about the fourth: the ordinal is the focus, as a number is. A word
    the evidence numbers another way ("Screenshot 2") or never numbers says nothing either way,
    and "per second" is no ordinal."""
    from citerag.answer.asked import unstated_ordinals

    ev = [_ev("c1", "The third workshop was held in Lyon in 2019. The fourth workshop was held online in 2021, "
                    "with talks on the new drafts."),
          _ev("c2", "Screenshot 2 shows the menu after the first screenshot's command ran.")]
    r = _parts_answer("Where was the fifth workshop held?", ev)
    assert r.refused and r.refusal_reason == "focus_not_stated" and "fifth workshop" in r.unstated, r.answer
    r = _parts_answer("Where was the fourth workshop held?", ev)
    assert not r.refused and "online" in r.answer, r.answer
    text = [e.text for e in ev]  # the evidence texts
    assert unstated_ordinals("What does the second screenshot show?", text) == []
    assert unstated_ordinals("What does the second banner show?", text) == []
    assert unstated_ordinals("How many talks per second can the 4th workshop hold?", text) == []
    assert unstated_ordinals("Which talks did the 5th workshop have?", text) == ["5th workshop"]


def test_a_table_right_under_a_sentence_in_one_paragraph_is_read_as_a_table():
    """A sentence line followed by table rows in the same paragraph: the table's header row is
    its header. (d6abb45 reused the header's variable for whether a sentence sits under an
    algorithm's title, and such a table raised a TypeError.)"""
    from citerag.answer.units import units

    us = units(_ev("c1", "The sizes of the two formats are listed below for reference.\n"
                         "Format | Size | Speed\nalpha | 3 | fast\nbeta | 4 | slow"))
    assert [u.kind for u in us] == ["sentence", "row", "row"], us
    assert us[1].text == "alpha: Size 3, Speed fast"


def test_a_name_only_another_documents_passage_states_is_not_stated_by_the_named_document():
    """"Which Plotter version switched to UTF-8?" names the Plotter manual. With a Plotter passage
    cited, "UTF-8" stated only by another manual's passage is not stated: the answer would join two
    documents' facts. With no passage of the named document cited, all the cited evidence counts
    (a glossary two documents share states the same thing)."""
    from citerag.answer.answerer import missing_focus
    from citerag.build.knowledge import CorpusKnowledge, mine_mentions

    titles = {"plotter": "Plotter", "typeset": "Typeset"}
    know = CorpusKnowledge(titles, mentions=mine_mentions(titles, {}))
    qa = analyse("Which Plotter version switched to UTF-8?", know)
    assert qa.docs == ("plotter",)
    own = Evidence("c1", Location("plotter::p9::c0", "plotter", 9, 9), "Version 2.2 switched the encoding to ISO-Latin-1.")
    other = Evidence("c2", Location("typeset::p3::c0", "typeset", 3, 3), "Typeset version 3 switched its output to UTF-8.")
    # (the answer shows a version by its number: "Version 2.2", "version 3")
    assert missing_focus(qa, [own, other], own.text) == ["UTF-8"]
    assert missing_focus(qa, [other], other.text) == []
    plain = analyse("Which version switched to UTF-8?", know)
    assert missing_focus(plain, [own, other], other.text) == []


def test_a_signature_on_its_own_line_is_the_subject_of_the_description_under_it():
    """An API reference writes 'Sheet.drawEdge(pen)' alone, then 'draws the sheet's edge …': the
    signature was dropped as no statement, so 'which method draws the edge?' got the description
    without the method. It is a code unit now, read with the description; a signature followed by
    a capitalised sentence of its own, or a sentence that is no signature, is not."""
    from citerag.answer.units import continues, units

    ev = _ev("c1", "Sheet methods\n\nSheet.fill(items, canvas)\n\nconsumes items from the front of the list until the "
                   "sheet is full.\n\nSheet.drawEdge(pen)\n\ndraws the sheet's edge as a rectangle (for debugging)."
                   "\n\nSheet.split(item)\n\nAsks the item to split itself over the remaining space.")
    us = units(ev)
    by_text = {u.text: u for u in us}
    assert by_text["Sheet.drawEdge(pen)"].kind == "code"
    assert continues(by_text["Sheet.drawEdge(pen)"], by_text["draws the sheet's edge as a rectangle (for debugging)."])
    assert "Sheet.split(item)" not in by_text
    q = analyse("Which Sheet method draws the edge of the sheet for debugging?")
    idf = {"sheet": 1.0, "method": 1.0, "draw": 3.0, "edge": 4.0, "debugging": 3.0, "drawedge": 5.0}
    ans = answer_from_evidence(q, [ev], AnswerParams(), idf, set(idf) | {"pen", "rectangle", "fill", "split"})
    assert not ans.refused and "Sheet.drawEdge(pen)" in ans.answer, (ans.notes, ans.answer)


def test_a_definition_of_a_neighbouring_term_does_not_define_the_term_asked():
    """"How does the glossary define post-quantum key wrapping?" was answered with the glossary's
    "key wrapping: …" entry, and "… a quantum random number generator?" with another entry that
    shares one word: a definition states the term it defines, so one answer sentence must hold
    all of the term's words."""
    from citerag.answer.asked import defined_term

    assert defined_term("How does the glossary define post-quantum key wrapping?") == (
        "post-quantum", "post", "quantum", "key", "wrapping")
    assert defined_term("How is a salt defined in DOC 7?") == ("salt",)
    assert defined_term("What is the definition of a nonce, according to DOC 7?") == ("nonce",)
    assert defined_term("How is a salt used?") == () and defined_term("Which example defines category 1?") == ()
    ev = [_ev("c1", "Key wrapping: A method of protecting secret keying material that provides both "
                    "confidentiality and integrity protection."),
          _ev("c2", "Quantum computer: A computer that exploits quantum effects. A post-quantum scheme resists "
                    "attacks by one.")]
    r = _parts_answer("How does the glossary define post-quantum key wrapping?", ev)
    assert r.refused and r.refusal_reason == "focus_not_stated" and r.unstated, r.answer
    r = _parts_answer("How does the glossary define key wrapping?", ev)
    assert not r.refused and "protecting secret keying material" in r.answer, (r.answer, r.notes)
    # a compound is written as a run of its words; a term with a preposition by its words
    from citerag.answer.asked import states_defined_term

    q = "How does the standard define a quantum adversary?"
    assert not states_defined_term(q, "It resists adversaries who possess a quantum computer.")
    assert states_defined_term(q, "Quantum adversaries are adversaries with a quantum computer.")
    assert states_defined_term("How does the standard define the ceiling of a number?",
                               "The least integer not below the real number x, called the ceiling of x.")



def test_what_a_document_defines_as_a_term_is_that_terms_own_entry():
    """"What does DOC 3 define as a private channel?" was answered with the "public channel: …"
    entry, and "… define as an initialization vector?" with the "keying material: …" entry whose
    definition mentions initialization vectors: "define as" names the term asked, and a glossary
    entry defines only its own term. A term the PDF's text splits around the colon
    ("extendable-output: A function … any function desired length"), or a symbol's entry, still
    defines what it says."""
    from citerag.answer.asked import defined_term, unstated_defined_term

    assert defined_term("What does DOC 3 define as a private channel?") == ("private", "channel")
    assert defined_term("What does DOC 3's glossary define as an initialization vector?") == (
        "initialization", "vector")
    public = "public channel: A communication channel between two parties, observed by third parties."
    keying = ("keying material: A bit string whose segments can serve as secret keys, secret initialization "
              "vectors, and other secret parameters.")
    assert unstated_defined_term("What does DOC 3 define as a private channel?", [public]) == "private channel"
    assert unstated_defined_term("What does DOC 3's glossary define as an initialization vector?",
                                 [public, keying]) == "initialization vector"
    assert not unstated_defined_term("What does DOC 3 define as a public channel?", [keying, public])
    q = "How does the glossary define an extendable-output function?"
    assert not unstated_defined_term(q, ["extendable-output: A function on bit strings in which the output can "
                                         "be extended to any function desired length."])
    assert not unstated_defined_term("How does the standard define the ceiling of a number?",
                                     ["⌈x⌉: The least integer not below the real number x, called the ceiling of x."])
    assert unstated_defined_term("How does the standard define the ceiling of a number?",
                                 ["floor: The largest integer not above the real number x, unlike the ceiling "
                                  "of a number."]) == "ceiling number"


def test_code_in_braces_is_quoted_exactly():
    """"What does {calc 3 2 <} test?" was answered from "{calc 3 2 >=}": an expression in braces
    with a space in it is quoted code, braces and all, so only the passage writing that expression
    takes the quoted bonus; a macro's argument ("\\mymacro{title}") is no quote."""
    from citerag.text.patterns import holds_any, query_phrases, quoted_phrases

    assert query_phrases("What does {calc 3 2 <} test, and what does it yield?") == ("{calc 3 2 <}",)
    assert quoted_phrases("What does \\mymacro{corrected}{title} replace?") == []
    phrases = query_phrases("What does {calc 3 2 <} test?")
    assert holds_any(phrases, "{calc 3 2 <} Test whether 2 is less than 3.")
    assert not holds_any(phrases, "{calc 3 2 <=} Test whether 2 is at most 3.")


def test_a_scope_by_document_number_weighs_nothing_in_the_term_share():
    """"What is a KEX, according to XYZ 12?" weighed "according" (a rare word) and the series
    "XYZ" (an identifier, as written) above "KEX": the passage defining a KEX held a seventh of
    the question's terms and the loop refused for thin evidence. "according to" frames where the
    answer is, as the numbered document does."""
    from dataclasses import replace

    from citerag.text.terms import Scorer

    idf = {"kex": 1.2, "according": 5.0, "xyz": 3.0, "12": 2.0, "scheme": 2.0}
    # (a corpus's knowledge names the document; here it is given)
    score = Scorer(replace(analyse("What is a KEX, according to XYZ 12?"), doc_mentions=("XYZ 12",)), idf)
    assert set(score.weights) == {"kex"}
    assert score("A KEX is a scheme that establishes a shared key.") == 1.0
    # without "to" the word is the question's own
    assert "according" in Scorer(analyse("What does the according field hold?"), idf).weights


def test_a_signature_described_by_a_sentence_naming_it_is_read_with_it():
    """'pathobject.rect(x, y)' alone, then 'The rect method draws a rectangle …': the description
    opens by naming the entry, capitalised; it continues the signature as a lower-case one does."""
    from citerag.answer.units import continues, units

    ev = _ev("c1", "Figure 3: arcs\n\npath.rect(x, y, width, height)\n\nThe rect method draws a rectangle with its "
                   "corner at (x,y).\n\npath.close()\n\nAll paths end somewhere.")
    by_text = {u.text: u for u in units(ev)}
    sig = by_text["path.rect(x, y, width, height)"]
    assert sig.kind == "code"
    assert continues(sig, by_text["The rect method draws a rectangle with its corner at (x,y)."])
    assert "path.close()" not in by_text  # a sentence not naming it describes something else


def test_a_step_ending_on_a_colon_is_done_by_the_step_after_it():
    """"14: case BETA-2:" says which case; the step after it says what is done in that case (the
    identifier a "which OID for BETA-2" question asks for). Other steps stand alone."""
    from citerag.answer.units import passages, units

    ev = Evidence("c1", Location("D::p1::c1", "D", 1, 1),
                  "Algorithm 4 Widget.Sign(key, M, H)\n"
                  "10: switch H do\n11: case BETA-1:\n12: ID ← 0x01, 0x02 ▷ 1.2.3.1\n"
                  "13: case BETA-2:\n14: ID ← 0x01, 0x03 ▷ 1.2.3.2\n15: end switch\n16: return ID")
    chains = {p.head.text: [u.text for u in p.units] for p in passages(units(ev))}
    case = next(k for k in chains if "case BETA-2" in k)
    assert [t for t in chains[case]][1:] == [next(k for k in chains if "1.2.3.2" in k)]
    assert len(chains[next(k for k in chains if "1.2.3.1" in k)]) == 1


def test_a_compound_the_corpus_never_writes_hyphenated_is_held_by_its_words():
    """"byte-array" in a corpus that writes "byte arrays": a term no text can hold, it weighed as
    the rarest word, and the passage that answers held too small a share to count as a hit. A
    compound with a word the corpus never writes ("refactor") still weighs."""
    from citerag.text.terms import Scorer

    idf = {"byte": 1.5, "array": 2.5, "format": 4.0, "storage": 5.0, "required": 2.7, "gri": 0.7, "mode": 2.0}
    score = Scorer(analyse("Is the byte-array format required for storage?"), idf)
    assert "byte-array" not in score.weights
    assert score("This format of byte arrays is not required for storage.") == 1.0
    refactor = Scorer(analyse("What does the gri-refactor mode do?"), idf)
    assert "gri-refactor" in refactor.weights and refactor("The gri mode does a lot.") < 0.5
