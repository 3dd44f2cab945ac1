"""The answer patterns of issue 13 on both development corpora, through the real agent.

Each case is one of the failure patterns: a multi-part question answered in
full, a comparison answered on both sides, a question whose focus the
documents never state refused with that reason, an ordinary-word question not
refused as unknown, a broad question answered from an overview section. The
questions are new (in neither the dev nor the blind sets).
"""

from __future__ import annotations

import re

import pytest
from citerag.answer.asked import Head, answer_types, asked, asked_heads, head_stated, split_parts
from citerag.core.params import load_params
from citerag.core.paths import repo_root

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def agents(built):
    """One agent per development corpus (the manuals are built here if not yet)."""
    from citerag.agent.workflow import Agent
    from citerag.build.pipeline import build_all
    from citerag.retrieval.store import load_store

    out = {}
    for name in ("default", "tech-manuals"):
        p = load_params(repo_root() / "params" / f"{name}.yaml")
        build_all(p, log=lambda _m: None, progress=False)
        out[name] = Agent(load_store(p), p)
    return out


def ask(agents, corpus: str, question: str):
    return agents[corpus].run(question)


def chat_engine(agents, corpus: str, tmp_path):
    """A conversation-mode engine over the corpus's agent, with its own thread memory."""
    from citerag.conversation.engine import ChatEngine

    agent = agents[corpus]
    p = agent.params.with_overrides({"agent.conversational": True,
                                     "agent.conversation.memory_path": str(tmp_path / "m.sqlite")})
    return ChatEngine(agent.store, p, agent)


def answered(agents, corpus: str, question: str, needs: str) -> None:
    """The question is answered, and the answer says `needs`."""
    r = ask(agents, corpus, question)
    assert not r.answer.refused, r.answer.notes
    assert needs in r.answer.answer


def unit_texts(heading: str, text: str) -> list[str]:
    """The answer units one chunk of `text` under `heading` is read as."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units
    from citerag.core.types import Location

    return [u.text for u in units(Evidence("c1", Location("d::p1::c0", "d", 1, 1), text, heading))]


def rewritten(agents, corpus: str, first: str, answer: str, follow_up: str) -> str:
    """The follow-up's rewrite after one answered turn (`first`, answered `answer`)."""
    return rewritten_after(agents, corpus, [(first, answer)], follow_up)


def rewritten_after(agents, corpus: str, turns: list[tuple[str, str]], follow_up: str) -> str:
    """The follow-up's rewrite after several answered turns ((question, answer) pairs)."""
    from citerag.conversation.engine import make_decider

    agent = agents[corpus]
    decider = make_decider(agent.params, agent.store, dict(agent.store.bm25._bm25.idf))
    history = [{"user": q, "rewritten_query": q, "route": "RETRIEVE", "answer": a, "refused": False} for q, a in turns]
    return decider.rewrite(follow_up, history).query


def refused_noting(agents, corpus: str, question: str, *notes: str, reason: str | None = None) -> None:
    """The question is refused (for `reason`, when given), with a note saying one of `notes`."""
    r = ask(agents, corpus, question).answer
    assert r.refused and any(x in n for n in r.notes for x in notes), (r.answer[:300], r.notes)
    assert reason is None or r.refusal_reason == reason, r.refusal_reason


def test_parts_types_and_focus_are_read_from_the_question():
    assert split_parts("Which security category is X-1 in, and what is the size of its ciphertext?") == [
        "Which security category is X-1 in", "what is the size of its ciphertext"]
    assert split_parts("Which set is the default, and why?") == ["Which set is the default", "why Which set is the default"]
    assert split_parts("In pure signing, what is prepended?") == ["In pure signing, what is prepended?"]
    assert split_parts("Is any randomness sampled, and through which program are the interfaces tested?") == [
        "Is any randomness sampled", "through which program are the interfaces tested"]
    assert "number" in answer_types("What is the maximum number of pages?")
    # a verb in -s before a determiner or quantifier: one thing is asked for, not a list
    assert "list" not in answer_types("Which command cancels all forms of debugging?")
    assert "list" not in answer_types("Which tag resets a counter?")
    assert "list" in answer_types("Which fonts do Strings use?")
    assert "list" in answer_types("What two types of color names does the command accept?")
    assert "reason" in answer_types("Why was it not selected?")
    # "when is X called" asks for a circumstance; "when was", "when will", "when does … plan" a date
    assert "date" not in answer_types("When is the onPage hook called?")
    assert "date" not in answer_types("When are the input checks required?")
    assert "date" not in answer_types("When must the session key be destroyed?")
    assert "date" not in answer_types("When the cache is full, what happens to the oldest entry?")  # a leading clause
    assert all("date" in answer_types(q) for q in ("When was the report published?", "When will the key be withdrawn?",
                                                   "When does the agency plan to meet?"))
    # a list is asked by a plural head ("what are the layers", "which browsers"), not by a singular
    # head whose verb is followed by a plural subject ("what colour are missing pixels")
    assert "list" in answer_types("What are the layers of the design?") and "list" in answer_types("Which browsers enable X?")
    assert "list" not in answer_types("What colour are missing pixels in an image by default?")
    # a third-person verb before an article is no plural head ("which tag resets a counter")
    assert "list" not in answer_types("Which key clears a selected row?")
    assert "list" in answer_types("Which keys clear the selected rows?")
    a = asked('What did the group decide in 2031 about "fast mode" for ABC-512?', ("ABC-512",))
    assert set(a.focus) == {"fast mode", "ABC-512", "2031"}
    assert [p.topic for p in asked("Compare A and B", topics=("A", "B"), attribute="size").parts] == ["A", "B"]
    # possessives are not quotes; a quoted title is a focus; a part naming nothing keeps the subject
    assert set(asked("How do ABC's key sizes compare with XYZ's?").focus) == {"ABC", "XYZ"}  # acronyms
    from citerag.text.patterns import proper_names

    for question, name in (("What did Shor recommend for the SLH-DSA parameter sets?", "Shor"),
                           ("Which version of Python does Gri need for its scripts?", "Python"),
                           ("Which Ubuntu release does Gri recommend?", "Ubuntu")):
        assert name in proper_names(question) and "Gri" not in asked(question, doc_mentions=("Gri",)).focus
    assert asked("Who wrote 'Codes for small weights', and in which year?").focus == ("Codes for small weights",)
    assert split_parts("Who wrote 'Codes for small weights', and in which year?") == [
        "Who wrote 'Codes for small weights'", "in which year Who wrote 'Codes for small weights'"]


def test_the_asked_thing_is_read_from_the_question():
    assert asked_heads("What license fee does the agency charge?") == (Head("fee"),)
    assert asked_heads("How many pages long is the manual?") == (Head("pages"),)
    assert asked_heads("What is the market share of X in Y?") == (Head("share"),)
    assert asked_heads("On what date was it withdrawn?") == (Head("date", "date"),)
    assert asked_heads("What is the signature size of X-65?") == (Head("size", "number"),)
    assert asked_heads("In what unit is X given?") == () == asked_heads("What is X?")
    assert asked_heads("What kind of key is it?") == (Head("key"),)  # a kind of key: the answer names a key
    assert asked_heads("What happens to X at the top?") == () == asked_heads("What changed between A and B?")
    assert asked_heads("Which hardness assumption underlies it?") == (Head("assumption"),)  # not the verb
    # a multi-part question is refused for an unstated thing only when no part is stated
    from citerag.answer.answerer import unstated_heads
    assert unstated_heads("What does X stand for, and which assumption underlies it?", "X: Ex", "") == []
    assert unstated_heads("Which fee applies?", "no such word", "") == ["fee", "an amount of money"]
    # stated in any inflection; a typed head is stated by its type's cue in the answer
    assert head_stated(Head("fees"), "The fee is waived.", "")
    assert not head_stated(Head("fee"), "The licence is free.", "")
    assert head_stated(Head("name"), "style.fontName = Helvetica", "")
    assert head_stated(Head("date", "date"), "", "It was withdrawn in March 2031.")
    assert not head_stated(Head("date", "date"), "withdrawn date", "It was withdrawn.")


@pytest.mark.parametrize("corpus,question,needs", [
    ("default", "Which security category is ML-KEM-1024 in, and what is the size of its ciphertext?",
     ["category 5", "1568"]),
    ("tech-manuals", "What is the default page size of a ReportLab canvas, and in what units is the pagesize "
                     "argument given?", ["A4", "1/72 of an inch"]),
    # a part whose best two passages nearly tie quotes both: the one naming the parameter sets'
    # parameters ranked first, the one stating the value second
    ("default", "Which lgw value do all the FIPS 205 parameter sets use, and what is len1 when lgw is 4?",
     ["lgw is 4 for all parameter sets", "len1 = 2n"]),
    ("tech-manuals", "What does flag 2 of the Gri superuser command print, and how can several flags be combined?",
     ["rpn expressions", "bitwise OR"]),
])
def test_multi_part_question_answered_in_full(agents, corpus, question, needs):
    r = ask(agents, corpus, question)
    assert not r.answer.refused, r.answer.notes
    assert all(n in r.answer.answer for n in needs), r.answer.answer
    assert not any("do not state" in n for n in r.answer.notes)
    assert len(next(e for e in r.trace if e["node"] == "retrieve")["queries"]) == 2  # one retrieval per part


@pytest.mark.parametrize("corpus,question,needs", [
    # a title in a references list: the reranker's penalty for reference lists must not hide it
    ("default", "Who wrote 'The use of information sets in decoding cyclic codes', and when?", ["Prange", "1962"]),
    # a change-log line holding a link: a statement with a link is still a statement
    ("tech-manuals", "Which Gri bug number was 'documentation wrong on set path to'?", ["978822"]),
])
def test_a_quoted_phrase_is_found_verbatim_and_answered(agents, corpus, question, needs):
    r = ask(agents, corpus, question)
    assert not r.answer.refused, r.answer.notes
    assert all(n in r.answer.answer for n in needs), r.answer.answer
    ranked = agents[corpus].flow.retriever.search(question).rankings
    assert ranked["phrase1"] and ranked["phrase1"][0] in ranked["rerank"][:8]  # found verbatim, kept by the reranker


def test_a_fixed_unit_quantity_must_be_shown():
    from citerag.answer.asked import unshown_quantities

    assert unshown_quantities("How much does a support contract cost?", "Support is by e-mail, 2 days.") == [
        "an amount of money"]
    assert unshown_quantities("What is the price of a licence?", "A licence costs $200 per year.") == []
    assert unshown_quantities("How long does the build take?", "It takes about 3 minutes.") == []
    assert unshown_quantities("How long does the build take?", "Builds run on 2 cores.") == ["a duration"]
    assert unshown_quantities("How long must the nonce be?", "At least 256 bits.") == []  # a length


@pytest.mark.parametrize("corpus,question,sides", [
    ("default", "Compare the ciphertext sizes of ML-KEM-512 and ML-KEM-1024.", ["768", "1568"]),
    ("tech-manuals", "What is the difference between experimental and release versions of Gri?",
     ["experimental version", "release version"]),
    # each side need not repeat the noun the two share ("Disallowed means that the algorithm …")
    ("default", "Explain the difference between a deprecated and a disallowed algorithm.",
     ["Deprecated means", "Disallowed means"]),
])
def test_comparison_answered_on_both_sides(agents, corpus, question, sides):
    r = ask(agents, corpus, question)
    assert r.route == "compare" and not r.answer.refused
    assert all(s in r.answer.answer for s in sides), r.answer.answer


@pytest.mark.parametrize("corpus,question,focus", [
    ("default", "What did NIST decide about ML-KEM in 2031?", "2031"),
    ("tech-manuals", "What version of ReportLab added support for 2047 fonts?", "2047"),
    # a name the question asks about (a capitalised word inside it)
    ("default", "What did Shor recommend for the SLH-DSA parameter sets?", "Shor"),
    ("tech-manuals", "Which version of Python does Gri need for its scripts?", "Python"),
    ("tech-manuals", "Which Ubuntu release does Gri recommend?", "Ubuntu"),
])
def test_missing_focus_refused_with_its_reason(agents, corpus, question, focus):
    r = ask(agents, corpus, question)
    assert r.answer.refused and r.refusal_reason == "focus_not_stated"
    assert any(focus in n for n in r.answer.notes)


@pytest.mark.parametrize("corpus,question,acronym", [
    ("default", "What key length does AES-CMAC need for HQC in SP 800-227?", "HQC"),
    ("tech-manuals", "Which ReportLab canvas method sets a fill color in the HSV color model?", "HSV"),
    ("tech-manuals", "What does Gri's open command do with an FTP URL?", "FTP"),
    # the old answer was the command seeding the shuffle of the questions (refused, before the
    # acronym was read, for naming no setting of the QR codes)
    ("tech-manuals", "Which AMC command sets the random seed of the QR codes?", "QR"),
])
def test_an_acronym_the_cited_evidence_never_names_is_refused(agents, corpus, question, acronym):
    """The old answers quoted passages on the topic (colour models, Gri's open command) that
    never name the acronym asked about, nor spell it out."""
    r = ask(agents, corpus, question)
    assert r.answer.refused and r.refusal_reason == "focus_not_stated", r.answer.answer
    assert any(acronym in n for n in r.answer.notes), r.answer.notes


def test_an_acronym_is_stated_by_its_expansion():
    from citerag.answer.answerer import expansion_written

    assert expansion_written("GPL", "the GNU General Public License, version 2")
    assert not expansion_written("GPL", "general terms of the license")


@pytest.mark.parametrize("question,term", [
    ("What does FIPS 203 define as a private channel?", "private channel"),
    ("What does FIPS 204's glossary define as an initialization vector?", "initialization vector"),
])
def test_a_term_no_entry_defines_is_refused(agents, question, term):
    """The glossaries define a public channel, and keying material as a string that may serve as
    initialization vectors: neither entry defines the term asked."""
    r = ask(agents, "default", question)
    assert r.answer.refused and r.refusal_reason == "focus_not_stated", r.answer.answer
    assert any(term in n for n in r.answer.notes), r.answer.notes


def test_a_term_its_own_entry_defines_is_answered(agents):
    r = ask(agents, "default", "What does FIPS 203 define as a public channel?")
    assert not r.answer.refused and "communication channel between two parties" in r.answer.answer, r.answer.notes


def test_a_name_the_top_passage_misses_is_answered_from_the_evidence_that_states_it(agents):
    """The best passage speaks of floating-point arithmetic in general and never names Decompress;
    the unit that does is lower. Without the redraft this is refused as focus_not_stated."""
    q = "Is floating-point arithmetic permitted when implementing Decompress for ML-KEM?"
    r = ask(agents, "default", q)
    assert not r.answer.refused and "Floating-point computations shall not be used" in r.answer.answer, r.answer.notes
    assert any(n.startswith("redrafted from") and n.endswith("stating Decompress") for n in r.answer.notes)


@pytest.mark.parametrize("corpus,question,thing", [
    ("default", "What royalty does NIST collect on ML-DSA implementations?", "royalty"),
    ("tech-manuals", "How much memory does Gri need to draw a contour plot?", "memory"),
    # the asked event: who did it, when, which release
    ("default", "Who audited the ML-KEM reference implementation?", "audited"),
    ("tech-manuals", "Who endorsed the Platypus layout engine of ReportLab?", "endorsed"),
    # a fixed-unit quantity: other numbers do not answer a price or a duration
    ("default", "How much does a CMVP validation of an ML-DSA implementation cost?", "an amount of money"),
    ("default", "How long does ML-KEM key generation take?", "a duration"),
    ("tech-manuals", "How long does ReportLab take to build a document with many tables?", "a duration"),
    ("tech-manuals", "What is the price of the AMC printed manual?", "an amount of money"),
    # a limit: a count of something else does not state a maximum
    ("default", "What is the maximum size of a message that ML-DSA can sign?", "a limit"),
    ("tech-manuals", "What is the maximum number of flowables in a ReportLab story?", "a limit"),
])
def test_asked_thing_the_evidence_never_mentions_is_refused(agents, corpus, question, thing):
    """Evidence on the topic that never mentions what is asked for (a thing, or the event asked
    about) is a related text, not the answer."""
    r = ask(agents, corpus, question)
    assert r.answer.refused and r.refusal_reason == "focus_not_stated", r.answer.answer
    assert any(thing in n for n in r.answer.notes)


def test_the_asked_event_is_read_from_the_question_and_found_in_any_form():
    from citerag.answer.asked import asked_actions
    from citerag.text.inflect import says_word

    assert asked_actions("Who chaired the panel?") == ("chaired",)
    assert asked_actions("When will X be withdrawn as a standard?") == ("withdrawn",)
    assert asked_actions("How many languages has the guide been translated into?") == ("translated",)
    assert asked_actions("Which distribution was Tool originally developed on?") == ("developed",)
    assert asked_actions("Which release added SVG output?") == ("added",)
    # requirements under a modal are paraphrased by the documents, not events: no check
    assert asked_actions("Which values may be kept instead of destroyed?") == ()
    assert asked_actions("What does X use for hashing?") == () == asked_actions("Which hash-based schemes exist?")
    assert says_word("wrote", "the mode, written by P. G.") and says_word("won", "who wins")
    assert says_word("translated", "a translation exists") and says_word("reused", "never used twice")
    # a re- verb is still said by itself ("reviewed" had been looked up only as "viewed")
    assert says_word("reviewed", "it will be reviewed every five years") and says_word("reset", "reset it")
    assert not says_word("chaired", "the team met in March") and not says_word("withdrawn", "drawn with a pen")


@pytest.mark.parametrize("corpus,question,needs", [
    ("default", "Who develops FIPS publications?", "National Institute"),
    ("tech-manuals", "Who wrote the Gri editing mode for Emacs?", "written by Peter"),
])
def test_an_event_the_evidence_states_in_another_form_is_answered(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus,question", [
    ("default", "Walk me through ML-KEM key generation."),
    ("tech-manuals", "Explain how Gri draws a linegraph."),
])
def test_ordinary_words_are_not_unknown_terms(agents, corpus, question):
    r = ask(agents, corpus, question)
    assert r.refusal_reason != "unknown_terms", r.answer.notes
    assert not r.answer.refused


@pytest.mark.parametrize("corpus,question,needs", [
    ("default", "Explain ML-DSA.", "digital signature"),
    ("tech-manuals", "What is Gri?", "science-style graphs"),
])
def test_broad_question_answered_from_an_overview(agents, corpus, question, needs):
    from citerag.retrieval.rerank import is_overview

    agent = agents[corpus]
    r = agent.run(question)
    assert not r.answer.refused and needs in r.answer.answer, r.answer.answer
    cited = [agent.store.by_id[c["chunk_id"]] for c in r.answer.citations]
    assert any(is_overview(c.ordinal, c.heading_path) for c in cited)


def test_the_decision_is_recorded_and_the_operating_point_moves_it(agents):
    """With the opt-in model, the trace holds the features and probability; a threshold of 1
    refuses what the operating point answers."""
    from citerag.agent.workflow import Agent

    q = "Which security category is ML-KEM-1024 in?"
    base = agents["default"]
    gate = {"agent.thin_evidence": "model", "answer.abstain.model": "data/abstain/model.json"}
    r = Agent(base.store, base.params.with_overrides(gate)).run(q)
    ev = next(e for e in r.trace if e["node"] == "answer")
    assert ev["decision"]["answer"] is True and 0 < ev["decision"]["probability"] <= 1
    strict = Agent(base.store, base.params.with_overrides({**gate, "answer.abstain.threshold": 1.0}))
    s = strict.run(q)
    assert s.answer.refused and s.refusal_reason == "low_confidence"


def test_announced_code_is_one_unit_of_its_sentence():
    """"… write code like this:" then a paragraph of code: the code is what the sentence announces,
    kept whole after it (line by line, the call would be dropped as no statement). Option lists
    that read like prose stay separate units."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import passages, units
    from citerag.core.types import Location

    def unit_list(text: str):
        return units(Evidence("c1", Location("doc::p1::c0", "doc", 1, 1), text))

    us = unit_list("To save the chart as a bitmap, all we need to do is write code like this:\n\n"
                   "from charts import render\nrender.to_file(chart, 'out.png', 'PNG')\n\nOther formats work too.")
    code = [u for u in us if u.kind == "code"]
    assert [u.text for u in code] == ["from charts import render render.to_file(chart, 'out.png', 'PNG')"]
    assert passages(us)[0].units[1] is code[0]
    opts = unit_list("Here are the available options:\n\nlang=XX: sets the subject language to XX.\n"
                     "size=N: sets the number of copies to print.")
    assert not any(u.kind == "code" for u in opts) and len(opts) == 3


def test_a_how_to_question_is_answered_with_the_announced_code(agents):
    answered(agents, "tech-manuals", "How do I set the vertical space between many answer blocks in AMC?",
             "AMCinterIrep=.75ex")


def test_an_algorithm_description_line_is_read_under_its_title(agents):
    """"Generates an element of {0, …, q − 1} ∪ {⊥}." names no algorithm; its title does. Read
    under the title, the line answers "What does <name> generate?"."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units
    from citerag.core.types import Location

    us = units(Evidence("c1", Location("d::p1::c0", "d", 1, 1),
                        "Algorithm 7 PackBits(x)\nTurns a list of bits into bytes.\nInput: bits x.\n1: y ← 0"))
    assert [(u.kind, u.group) for u in us[:2]] == [("title", "Algorithm 7 PackBits(x)"),
                                                    ("sentence", "Algorithm 7 PackBits(x)")]
    answered(agents, "default", "What does CoeffFromThreeBytes generate?", "Generates an element of")


def test_a_later_part_is_answered_by_its_own_words_not_the_first_parts_name(agents):
    """"…, and to which address can comments about it be submitted?" carries the first part's
    name (FISMA) as a word: counted as the part's own identifier it picked the FISMA sentence
    again, and the address went unanswered."""
    from citerag.answer.answerer import answer_from_evidence
    from citerag.answer.evidence import Evidence
    from citerag.retrieval.query import analyse

    # Over fixed evidence: the two announcement chunks that state the answers, with the same
    # sections of the sibling standards (whose own comment addresses this part must not take).
    # (Asked end to end, the FIPS 204 announcement chunk fell out of the second part's top 8 when
    # d6abb45 changed some algorithm chunks; carrying the first part's document into that part's
    # query brought it back but lost four seen answers, so it was dropped.)
    flow = agents["default"].flow
    ids = ["NIST.FIPS.204::p5::c4", "NIST.FIPS.205::p6::c0", "NIST.FIPS.203::p6::c2", "NIST.FIPS.204::p6::c0"]
    chunks = flow.store.by_id
    ev = [Evidence(f"c{i + 1}", chunks[c].location, chunks[c].text) for i, c in enumerate(ids)]
    q = "Does FISMA allow waivers to FIPS 204, and to which address can comments about it be submitted?"
    a = answer_from_evidence(analyse(q, flow.store.knowledge), ev, flow.params.answer, flow.idf, flow.vocab,
                             common_words=flow.common_words, model=flow.abstain)
    assert "does not allow for waivers" in a.answer and "fips-204comments@nist.gov" in a.answer, a.answer


def test_a_passage_that_leans_back_keeps_the_sentences_it_points_to():
    """"In this scenario, the key is said to be ephemeral." states the name, not the condition:
    that is in the sentence before, itself leaning on the one before it ("In that case, …")."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.extractive import with_antecedent
    from citerag.answer.units import passages, units
    from citerag.core.types import Location

    us = units(Evidence("c1", Location("d::p1::c0", "d", 1, 1),
                        "Keys are made by the server at start-up. Some clients open only a single connection with "
                        "a key. In that case, the client discards the key after the connection closes. In this "
                        "scenario, the client's key is said to be ephemeral."))
    position = {id(u): i for i, u in enumerate(us)}
    last = passages(us)[-1]
    assert [u.text[:20] for u in with_antecedent(last, us, position).units] == [
        "Some clients open on", "In that case, the cl", "In this scenario, th"]
    first = passages(us)[0]
    assert with_antecedent(first, us, position) is first


def test_a_document_named_by_number_scopes_retrieval_without_matching_its_title_pages(agents):
    """"How does SP 800-227 define …?" had retrieved SP 800-227's title pages and reference lists,
    where its number's tokens are; the number now leaves the query text and the reranker's
    document hint keeps the named document first. A query that names nothing else keeps it."""
    from citerag.retrieval.retriever import Retriever, unscoped

    assert unscoped("How does SP 800-227 define negligible?", ("SP 800-227",)) == "How does define negligible?"
    assert unscoped("What are the key sizes in FIPS 203?", ("FIPS 203",)) == "What are the key sizes?"
    assert unscoped("What is FIPS 204?", ("FIPS 204",)) == "What is FIPS 204?"
    assert unscoped("What does Gri draw?", ("Gri",)) == "What does Gri draw?"  # a name is also the topic
    agent = agents["default"]
    hits = Retriever(agent.store, agent.params.retrieve).search("How does SP 800-227 define the word negligible?").hits
    assert "NIST.SP.800-227::p59::c2" in [h.chunk_id for h in hits]  # the glossary entry
    assert all(h.doc_id == "NIST.SP.800-227" for h in hits[:3])


def test_an_asked_thing_only_the_section_title_states_is_answered_with_the_title(agents):
    """A change log states "Fix bug #… mixup on protected-quotes …" under "13.1.1.23 Version
    2.12.4 [2003 Apr 06]": asked "which version", the item is restated under its title. The asked
    thing of "which Tool version fixed X" is the version: its verb ends the noun phrase."""
    from citerag.answer.asked import Head, asked_heads

    assert asked_heads("Which Gri version added hexadecimal colornames?") == (Head("version", "version"),)
    assert asked_heads("Which browsers enable X?") == (Head("browsers"),)
    answered(agents, "tech-manuals", "Which Gri version fixed the mixup on protected-quotes within double-quoted "
                                     "strings?", "Version 2.12.4")


def test_the_asked_thing_of_a_counted_plural_and_of_a_publication(agents):
    """"Which three functions make up X?" asks for functions (the counted noun), not "make";
    "which publication/standard …" is answered by a document's number."""
    from citerag.answer.asked import CUES, Head, asked_heads

    assert asked_heads("Which three functions make up the API?") == (Head("functions", "code"),)
    assert asked_heads("Which keyword gives the size?")[0].word != "gives"
    assert asked_heads("Which special publication defines it?") == (Head("publication", "document"),)
    assert CUES["document"].search("NIST Special Publication (SP) 800-185") and CUES["document"].search("RFC 8446")
    answered(agents, "default", "Which three functions make up the SHAKE128 API of the ML-KEM XOF wrapper?",
             "SHAKE128.Init()")
    answered(agents, "default", "Which special publication gives the SHA-3 derived functions cSHAKE and KMAC?",
             "800-185")


def test_graph_findings_reach_the_evidence_when_the_hits_fill_the_budget(agents):
    """Graph findings come after the retrieved hits; with k hits and a budget of k chunks they
    had never reached the answer. They now take slots of their own (answer.graph_chunks)."""
    from citerag.answer.evidence import select_evidence
    from citerag.core.types import Location
    from citerag.retrieval.retriever import Hit

    agent = agents["tech-manuals"]
    chunks = agent.store.chunks
    p = agent.params.answer
    hits = [Hit(i + 1, Location.of(c), 1.0 / (i + 1)) for i, c in enumerate(chunks[: p.max_chunks])]
    found = [Hit(0, Location.of(c), 0.5, {"graph": 1}) for c in chunks[-3:]]
    ev = select_evidence(hits + found, agent.store, p)
    ids = [e.chunk_id for e in ev]
    assert ids[: p.max_chunks] == [h.chunk_id for h in hits]
    assert ids[p.max_chunks:] == [h.chunk_id for h in found[: p.graph_chunks]]
    assert p.graph_chunks == 2 and len(ev) == p.max_chunks + 2
    none = p.model_copy(update={"graph_chunks": 0})
    assert [e.chunk_id for e in select_evidence(hits + found, agent.store, none)] == ids[: p.max_chunks]


def test_a_chunk_under_the_asked_identifiers_section_is_retrieved(agents):
    """With `retrieve.heading_identifiers`, an option defined in a section titled with the format's name ("AMC-TXT syntax > Questions
    options"), whose text never repeats the name, reaches the top of the ranking; before, chunks
    that merely mention the name filled the top 8. A new question (in no dev or blind set)."""
    from citerag.retrieval.retriever import Retriever

    store, rp = agents["tech-manuals"].flow.store, agents["tech-manuals"].params.retrieve
    q, gold = "What does the columns question option do in AMC-TXT?", ("auto-multiple-choice.en", 16)
    on = Retriever(store, rp.model_copy(update={"heading_identifiers": True})).search(q, k=8)
    off = Retriever(store, rp.model_copy(update={"heading_identifiers": False})).search(q, k=8)
    assert gold in [(h.doc_id, h.start_page) for h in on.hits][:3]
    assert gold not in [(h.doc_id, h.start_page) for h in off.hits]  # the default (opt-in, see README)


def test_absent_words_are_the_question_words_the_corpus_never_writes():
    from citerag.answer.answerer import absent_words

    vocab = {"chart", "charts", "draw", "draws", "class", "bar", "reportlab"}
    assert absent_words("Which ReportLab chart class draws bar charts with a glossy finish?", vocab) == [
        "glossy", "finish"]
    assert absent_words("Explain what the ReportLab bar chart class draws.", vocab) == []  # frame words
    # a compound the corpus never writes whole, though it writes its parts, is absent too...
    from citerag.text.tokenize import token_set

    vocab = set(token_set("the gri command mode refactor hash functions der encoding oid"))
    assert absent_words("What does the gri-refactor command do?", vocab) == ["gri-refactor"]
    # ... unless the evidence writes the parts as a phrase, the last in another inflection
    assert absent_words("Which hash functions have DER-encoded OIDs?", vocab, ["the DER encoding of an OID"]) == []
    assert absent_words("Which hash functions have DER-encoded OIDs?", vocab) == ["DER-encoded"]
    # "X-based", "X-like" are built from any X the corpus writes
    assert absent_words("What does the hash-based mode do?", vocab) == []
    assert absent_words("What does the glossy-based mode do?", vocab) == ["glossy-based"]



def test_an_identifier_joined_by_underscores_is_known_only_whole():
    """"FORS_LEAF" is one code identifier: the corpus writing "fors" and "leaf" (or prose saying
    "the leaf of a FORS tree", "an XMSS tree") does not make it known. The PDF's text may space the
    underscore out or drop it, and writes a subscript apart ("H msg" for H_msg)."""
    from citerag.answer.answerer import absent_words
    from citerag.text.tokenize import token_set

    vocab = set(token_set("the fors tree leaf xmss address type value fors_tree kc step label h msg option no cmd use hold holds compute computes is"))
    assert absent_words("What type value does the FORS_LEAF address use?", vocab) == ["FORS_LEAF"]
    assert absent_words("What type value does the FORS_TREE address use?", vocab) == []
    assert absent_words("What does the XMSS_TREE address hold?", vocab, ["within the XMSS tree that signs"]) == [
        "XMSS_TREE"]
    assert absent_words("What does the XMSS_TREE address hold?", vocab, ["the type XMSS _TREE is"]) == []
    assert absent_words("Which label is KC_3_E?", vocab) == ["KC_3_E"]
    assert absent_words("What does H_msg compute?", vocab, ["the function H msg takes"]) == []
    # an option's dash is not part of the name
    assert absent_words("What does the -no_cmd option do?", vocab) == ["no_cmd"]
    assert absent_words("What does the -no_cmd option do?", vocab, ["-no_cmd prevents it"]) == []


def test_a_constant_the_corpus_never_names_is_refused_though_prose_shares_its_words(agents):
    """End to end: FIPS 205 names the address types WOTS_HASH, FORS_TREE, … and speaks of "the XMSS
    tree" in prose; a question about an XMSS_TREE address was answered with the FORS_TREE passage.
    The constant it names occurs nowhere, so the question is refused; one it names is answered."""
    r = ask(agents, "default", "Which type value does the XMSS_TREE address use in FIPS 205?")
    assert r.answer.refused and r.answer.refusal_reason == "unknown_terms"
    answered(agents, "default", "What is the type value of the WOTS_PK address?", "WOTS_PK")


def test_a_name_joined_by_a_slash_is_known_only_whole(agents):
    """"PDF/X" is one name: the manual writing "PDF" does not make it known, and a question about
    it is refused however well the rest matches; names the corpus writes ("KEM/DEM", "S/MIME") are
    known. "and/or" is no name."""
    from citerag.answer.answerer import absent_words
    from citerag.text.tokenize import token_set

    vocab = set(token_set("pdf alpha transparency work in files kem/dem s/mime paradigm and or x does"))
    assert absent_words("Does alpha transparency work in PDF/X files?", vocab) == ["PDF/X"]
    assert absent_words("What is the KEM/DEM paradigm?", vocab) == []
    assert absent_words("Does S/MIME work in files and/or paradigm?", vocab) == []
    r = ask(agents, "tech-manuals", "Can ReportLab write PDF/X-4 files with alpha transparency?")
    assert r.answer.refused and r.answer.refusal_reason == "unknown_terms"


@pytest.mark.parametrize("question", [
    "Which paper by Melchor and Aragon does FIPS 203 cite?",
    "Which Classic McEliece specification does FIPS 205 cite?",
])
def test_a_reference_another_document_lists_is_not_cited_by_the_named_one(agents, question):
    """What a named document cites is in its own reference list: the fourth-round report's entry
    for the same authors answered these before. The named document's own entries still answer."""
    r = ask(agents, "default", question)
    assert r.answer.refused and r.answer.refusal_reason == "focus_not_stated", r.answer.answer
    answered(agents, "default", "Which paper by Fujisaki and Okamoto does FIPS 203 cite?", "Secure integration")


def test_a_paper_cited_by_a_document_is_answered_by_its_reference_entry(agents):
    """"Which paper cited by X …" asks for a paper: "cited by" describes it (no asked event), and
    a reference-list entry ("[16] Name A (2018) Title …") answers it without the word "paper"."""
    from citerag.answer.asked import CUES, Head, asked_actions, asked_heads

    assert asked_actions("Which paper cited by the report verified the scheme?") == ()
    assert asked_actions("Which release added SVG output?") == ("added",)
    assert asked_heads("Which paper cited in the report gives a proof?") == (Head("paper", "citation"),)
    assert CUES["citation"].search("[16] Kiltz E, Lyubashevsky V (2018) A concrete treatment")
    answered(agents, "default", "Which paper cited in the fourth-round status report predicts error floors with "
                                "Markov models for QC-MDPC codes?", "Markov model")


@pytest.mark.parametrize("question,authors", [
    ("Which paper by Guo, Johansson and Nguyen does the fourth-round status report cite?", ["Guo", "Nguyen"]),
    ("Which article by Becker, Joux, May and Meurer is cited in the status report?", ["Becker", "Meurer"]),
    ("Which paper by Schnorr does FIPS 204 cite?", ["Schnorr"]),
    # names in any script's letters ("Faugère", "Hülsing") are names too
    ("Which paper by Hövelmanns and Hülsing does the fourth-round status report cite?", ["Hövelmanns", "Hülsing"]),
])
def test_a_cited_work_is_found_by_its_authors(agents, question, authors):
    """In a question about cited works the authors' names are what the reference entry holds:
    they weigh as identifiers in the reranker, so the entry itself ranks first, not a chunk that
    shares the question's other words. Elsewhere a capitalised word is no such name."""
    from citerag.retrieval.query import analyse
    from citerag.retrieval.retriever import Retriever

    assert analyse("Which paper by Lund and Okafor does the report cite?").code_names == ("Lund", "Okafor")
    assert analyse("Which paper by Ødegård and Faugère does the report cite?").code_names == ("Ødegård", "Faugère")
    assert analyse("How do I export scores to Web Sheets?").code_names == ()
    store = agents["default"].store
    first = Retriever(store, agents["default"].params.retrieve).search(question).hits[0]
    assert all(a in store.by_id[first.chunk_id].text for a in authors)


def test_a_count_is_not_the_asked_thing():
    from citerag.answer.asked import Head, asked_heads

    assert asked_heads("Which two forms of assurance may it require?") == (Head("forms"),)


@pytest.mark.parametrize("corpus,question,word", [
    ("default", "How many signatures can a pilot verify per flight with ML-DSA?", "pilot"),
    # (not "which chart *class* draws …": a class asked for by what it does is refused before the
    # bar, by the check that the answer says it does that, `test_which_algorithm_does_x_…`)
    ("tech-manuals", "Which ReportLab chart draws bar charts with a glossy finish?", "glossy"),
])
def test_an_everyday_word_the_corpus_never_writes_needs_a_strong_match(agents, corpus, question, word):
    """Ordinary English is not an unknown name ("walk me through"), but a question that hinges on
    a word the documents never use is answered only when the rest of it is matched strongly;
    here the best passage holds about half of the other terms. Since ML-DSA names its document
    (it weighs as a place, not as the topic), the NIST question does not even find enough
    relevant evidence, and is refused before the bar."""
    r = ask(agents, corpus, question)
    if corpus == "default":
        assert r.answer.refused and r.refusal_reason == "budget_exhausted", r.answer.answer
        return
    assert r.answer.refused and r.refusal_reason == "unknown_terms", r.answer.answer
    assert any(word in n and "< 0.6" in n for n in r.answer.notes), r.answer.notes


@pytest.mark.parametrize("corpus,question,needs", [
    ("default", "Which function does ML-DSA key generation draw its random seed from?", "seed"),
    ("tech-manuals", "How can a teacher in a hurry run auto-multiple-choice prepare to make the subject file?",
     "--mode s"),
])
def test_an_everyday_word_the_corpus_never_writes_with_a_strong_match_is_answered(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


def test_a_limit_is_stated_as_one():
    from citerag.answer.asked import unshown_quantities

    assert unshown_quantities("What is the maximum number of rows?", "A number of rows at the top is repeated.") == [
        "a limit (maximum or minimum)"]
    assert unshown_quantities("What is the maximum number of rows?", "It is limited to 199 rows.") == []
    assert unshown_quantities("What is the minimum key size?", "Keys of at least 128 bits.") == []
    assert "a limit (maximum or minimum)" not in unshown_quantities("How many rows are repeated?",
                                                                     "A number of rows.")  # no limit asked


@pytest.mark.parametrize("corpus,question,needs", [
    ("default", "What is the maximum length of the context string in ML-DSA?", "255"),
    ("tech-manuals", "What is the maximum number of answers a question can have in AMC?", "199"),
    # ... with its value in the sentence that states the limit
    ("default", "What is the maximum length of the context string in FIPS 205?", "255 bytes"),
    ("tech-manuals", "What is the maximum number of students per test in AMC?", "4,095"),
])
def test_a_stated_limit_is_answered(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


def test_a_setting_named_by_its_kind_is_a_name_and_keeps_its_default():
    """"the lines option" names a setting by a plain English word: it weighs as a name, not by the
    word's low idf, so "lines=num sets …" outscores sentences about lines in general; a symbol after
    the kind is the name ("the scoring parameter v"); "Default value is 1." continues the setting."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import passages, units
    from citerag.core.types import Location
    from citerag.text.patterns import named_by_kind

    assert named_by_kind("What does the lines option of \\AMCOpen set?") == ["lines"]
    assert named_by_kind("What does the leading parameter of setFont specify?") == ["leading"]
    assert named_by_kind("What does the scoring parameter v mean?") == []
    assert named_by_kind("What does the strict option require?") == ["strict"]
    assert named_by_kind("Which option sets the lines?") == []
    us = units(Evidence("c1", Location("d::p1::c0", "d", 1, 1),
                        "lines=num sets the number of lines for the answer. Default value is 1."))
    assert [u.text for u in passages(us)[0].units] == ["lines=num sets the number of lines for the answer.",
                                                        "Default value is 1."]


def test_a_setting_named_by_its_kind_is_answered_with_its_default(agents):
    r = ask(agents, "tech-manuals", "What does the lineheight option of \\AMCOpen set, and what is its default value?")
    assert "sets the height of each line" in r.answer.answer and "1cm" in r.answer.answer


def test_a_two_column_cell_wrapped_over_lines_is_one_unit():
    """A reference list laid out as a two-column table wraps each entry over several lines; the
    lines after a row are the rest of its cell, so the entry is cited whole (its number included)."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units
    from citerag.core.types import Location

    us = units(Evidence("c1", Location("d::p9::c0", "d", 9, 9),
                        "[STD7] | Standards Office (2001) Advanced Widget Standard\n(AWS). (Dept of Things),\n"
                        "Standards Publication STD 7-1.\n[STD8] | Standards Office (2004) Widget Hashing\n"
                        "Standard. Standards Publication STD 8."))
    assert [u.text for u in us] == [
        "[STD7]: Standards Office (2001) Advanced Widget Standard (AWS). (Dept of Things), Standards Publication STD 7-1.",
        "[STD8]: Standards Office (2004) Widget Hashing Standard. Standards Publication STD 8."]


def test_a_reference_entry_wrapped_over_lines_answers_with_its_number(agents):
    answered(agents, "default", "In NIST IR 8547's references, which FIPS number is the Advanced Encryption Standard?",
             "FIPS 197")


def test_a_reference_entry_is_one_unit_with_its_title_and_venue(agents):
    """A reference entry's title and venue are short capitalised lines that the sentence test drops
    ("Syndrome decoding estimator.", "Widget Letters 3(2):1–9."): the entry is one unit, so "which
    paper …, and where did it appear?" is answered in both parts, and a two-word title is found."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units
    from citerag.core.types import Location

    us = units(Evidence("c1", Location("d::p9::c0", "d", 9, 9), (
        "- [4] Lund A, Okafor B (2021) Widget estimator. Widget Letters 3(2):1–9. https://doi.org/10.1/wl.3\n\n"
        "- [5] Okafor B (2019) Sorting widgets in linear time. Proc. Widget Conf., pp 5–12.")))
    assert [u.text[:3] for u in us] == ["[4]", "[5]"] and "Widget Letters 3(2)" in us[0].text
    r = ask(agents, "default", "Which paper by Jao and De Feo does the fourth-round status report cite, and "
                               "where did it appear?")
    assert "Towards quantum-resistant cryptosystems" in r.answer.answer, r.answer.notes
    assert "Post-Quantum Cryptography , ed Yang" in r.answer.answer, r.answer.answer


@pytest.mark.parametrize("corpus,question,title", [
    ("default", "Which section of FIPS 203 specifies internal decapsulation?", "6.3 Internal Decapsulation: "),
    # (the manual's contents entry, "6.7.5 Correct the scoring errors … 60", answers it as well)
    ("tech-manuals", "Which section of the AMC manual explains how to correct the scoring errors?",
     "6.7.5 Correct the scoring errors"),
])
def test_which_section_is_answered_with_the_numbered_title(agents, corpus, question, title):
    """"Which section covers X" asks where a document says it: the passage is restated under its
    numbered section title (which the cited chunk holds), or the contents entry of that section is
    quoted, and a passage under a numbered title shows the asked type. "What extra sections does
    it add" asks what, not where."""
    from citerag.answer.asked import Head, answer_types, asked_heads

    assert asked_heads("Which section covers key confirmation?") == (Head("section", "locator"),)
    assert asked_heads("In which chapter are the defaults described?") == (Head("chapter", "locator"),)
    assert "locator" not in answer_types("What extra sections does the tool add?")
    assert all(h.type != "locator" for h in asked_heads("What extra sections does the tool add?"))
    answered(agents, corpus, question, title)


@pytest.mark.parametrize("corpus,question,title", [
    ("default", "Which sections of FIPS 204 cover randomness generation and intermediate values?",
     "3.6.3 Intermediate Values: "),
    ("tech-manuals", "Which sections of the Gri manual cover the pwd and ls commands?", "9.1 Overview of Gri Commands: "),
])
def test_which_sections_of_a_document_asks_where_too(agents, corpus, question, title):
    """The plural asks where when "of" a document or a verb of coverage follows the noun right
    after the question word; "what sections does the tool add" still asks what."""
    from citerag.answer.asked import asked_heads

    assert [h.type for h in asked_heads("Which sections of the guide cover fonts?")] == ["locator"]
    assert [h.type for h in asked_heads("Which tables list the sizes?")] == ["locator"]
    assert [h.type for h in asked_heads("What sections does the tool add?")] == [""]
    answered(agents, corpus, question, title)


@pytest.mark.parametrize("corpus,question,needs", [
    ("default", "Which paper by Lyubashevsky does FIPS 204 cite, and where did it appear?", "ASIACRYPT 2009"),
    ("tech-manuals", "Which Perl module does AMC need for sending e-mails, and how is it installed with cpanm?",
     "cpanm install Email::Address"),
])
def test_a_hit_that_answers_one_part_is_relevant_evidence(agents, corpus, question, needs):
    """A multi-part question is answered part by part, so the evidence check scores each hit
    against each part too: scored against the whole question, the chunk that answers one part
    held only that part's share of the terms, no hit counted as relevant, and the question was
    refused (budget_exhausted) with its answer in the first round's hits."""
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus,question,needs", [
    ("default", "Besides the message, what else does wots_sign take as input?", "an address"),
    ("tech-manuals", "Besides the radius, what else does Gri's draw circle command take?", "location"),
])
def test_an_adverb_after_the_question_word_is_no_asked_thing(agents, corpus, question, needs):
    """"What else does X take" asks for no noun: "else" was read as the asked thing, which no
    evidence names, and the question was refused (focus_not_stated)."""
    from citerag.answer.asked import Head, asked_heads

    assert asked_heads("What exactly does X do?") == ()
    assert asked_heads("What else does the tool need?") == ()
    assert asked_heads("Which fee does the tool charge?") == (Head("fee"),)
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus,question,needs", [
    ("default", "In which bit order is the base-2 representation computed by IntegerToBits?", "little-endian"),
    ("tech-manuals", "In which encoding should an AMC-TXT questionnaire file be saved?", "UTF-8 encoded"),
    ("tech-manuals", "Which characters may be used in the name of an AMC project?", "simple charact"),
])
def test_an_asked_thing_the_top_passages_miss_is_redrafted_from_evidence_naming_it(agents, corpus, question,
                                                                                     needs):
    """"Which encoding …": the best passages never name the asked thing, but other evidence names
    it as the question does (with its modifiers: "bit order"). The answer is redrafted from that
    evidence instead of refused; a phrase the evidence does not hold ("quantum key distribution
    protocol" for any "protocol") is no such evidence, and a rate ("per second") must be shown."""
    from citerag.answer.asked import asked_heads, phrase_stated, unshown_quantities

    (head,) = asked_heads("Which quantum key distribution protocol does the report approve?")
    assert head.word == "protocol" and head.modifiers == ("quantum", "key", "distribution")
    assert phrase_stated(head, "A quantum key distribution protocol is approved.")
    assert not phrase_stated(head, "Any protocol using multi-algorithm KEMs passes the key through a KDF.")
    assert unshown_quantities("How many signatures per second can X make?", "X is fast [c1]") == [
        "a rate (per unit of time)"]
    assert unshown_quantities("How many signatures per second can X make?", "X makes 900 signatures per second [c1]") == []
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus,question,needs", [
    ("default", "Which further examples of KEMs does Section 5.1 of SP 800-227 briefly discuss?", "ECDH-KEM"),
    ("tech-manuals", "Which further settings of ReportLab's rl_settings does the user guide list?", "rl_settings"),
])
def test_the_noun_before_of_is_the_asked_thing(agents, corpus, question, needs):
    """"Which further examples of X": the noun phrase ends at "of", so its last word is the asked
    thing; read as a verb-ended phrase, "further" was asked for, and no evidence names it."""
    from citerag.answer.asked import asked_heads

    assert [h.word for h in asked_heads("Which further examples of widgets does it give?")] == ["examples"]
    assert [h.word for h in asked_heads("Which algorithm runs in constant time?")] == ["algorithm"]
    answered(agents, corpus, question, needs)


def test_how_often_wants_a_frequency(agents):
    """"How often …" asks for a frequency, which the documents write in words ("every five years")
    as often as in digits: a passage with a frequency answers it, one with only a number or none
    does not ("How often does Gri check for a newer version?" is answered nowhere)."""
    from citerag.answer.asked import answer_types, type_match

    assert answer_types("How often is the key rotated?") == ("frequency",)
    assert type_match(("frequency",), "The standard is reviewed every five years.")
    assert not type_match(("frequency",), "The key is 256 bits long.")
    answered(agents, "default", "How often will FIPS 205 be reviewed?", "every five years")
    assert ask(agents, "tech-manuals", "How often does Gri check for a newer version?").answer.refused


def test_a_list_that_announces_its_count_takes_that_many_items():
    """"… consists of three functions:" then three long items, one to a paragraph: all three are the
    answer (a list without its count takes only short items, so it cannot gather any text)."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import announced_count, passages, units
    from citerag.core.types import Location

    assert announced_count("This API consists of three functions:") == 3
    assert announced_count("It can take one of 2 forms:") == 2 and announced_count("The options are:") == 0
    assert announced_count("However, there are two exceptions to this rule:") == 2
    long = "and updates the state of the context accordingly before it returns to the caller"
    us = units(Evidence("c1", Location("d::p1::c0", "d", 1, 1),
                        f"This API consists of three functions:\n\n- Start() Initializes a context {long}.\n\n"
                        f"- Feed(x) Injects data to be used in the first phase {long}.\n\n"
                        f"- Drain(n) Extracts n output bytes of the second phase {long}.\n\nOther text follows here now."))
    assert [u.text[:6] for u in passages(us)[0].units] == ["This A", "Start(", "Feed(x", "Drain("]
    # an item of several sentences still counts as one: the second item follows the first
    us = units(Evidence("c1", Location("d::p1::c0", "d", 1, 1),
                        "There are two exceptions to this rule:\n\n1. The seed generated in step 1 can be stored for "
                        "later expansion of the key pair by the module. As this seed can be used to compute the "
                        "private key, it is sensitive data and shall be protected like that key.\n\n2. The matrix "
                        "generated in steps 3 to 7 can be stored so that it need not be recomputed in later calls."))
    assert [u.text[:6] for u in passages(us)[0].units] == ["There ", "The se", "As thi", "The ma"]



def test_a_later_part_naming_its_own_thing_does_not_carry_the_first_parts_identifier(agents):
    """"…, and what is a key-encapsulation mechanism?" names its own thing: carrying ML-KEM-1024 from
    the first part made the first part's sentence win again, and the second part went unanswered."""
    r = ask(agents, "default", "Which security category is ML-KEM-1024 in, and what is a key-encapsulation mechanism?")
    assert "security category 5" in r.answer.answer and "set of algorithms" in r.answer.answer, r.answer.answer


@pytest.mark.parametrize("question, answerable", [
    ("On what date did FIPS 204 become effective?", True),
    ("On what date was FIPS 204 withdrawn?", False),
])
def test_a_date_is_found_by_its_event_not_by_the_word_date(agents, question, answerable):
    """"Effective: August 13, 2024" never says "date": the word names the answer's type, and the
    date shows it. The event must still be stated: a withdrawal the documents never mention is refused."""
    r = ask(agents, "default", question)
    assert r.answer.refused is not answerable
    if answerable:
        assert "August 13, 2024" in r.answer.answer



def test_what_happens_to_asks_for_no_list():
    """"What happens to X" asks what is done to X; "happens" is a verb, not a plural head. Read as a
    list question, every answer sentence lost half its score for not being a list."""
    assert "list" not in answer_types("What happens to an rgb component value greater than 1?")
    assert "list" not in answer_types("What becomes of a component greater than 1?")
    assert "list" in answer_types("What are the layers of the design?")


def test_an_enumeration_continues_through_its_ordinals():
    """"… two types of operations. The first type draws … The second type changes …": the
    ordinals continue the sentence that counts them, so both types are read together."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import passages, units
    from citerag.core.types import Location

    us = units(Evidence("c1", Location("d::p1::c0", "d", 1, 1),
                        "There are essentially two types of operations performed on a board. The first type "
                        "places something on the board such as a token or a tile. The second type changes the "
                        "state of the board such as its current colour or size."))
    assert [u.text[:15] for u in passages(us)[0].units] == ["There are essen", "The first type ", "The second type"]


def test_a_name_of_letters_and_digits_is_known_only_whole():
    """"BLAKE3" is not known because the corpus writes "3" (or "blake"): its pieces are no name.
    Written with a hyphen ("SHA-256" for "SHA256") it is known."""
    from citerag.answer.answerer import unknown_terms

    vocab = {"blake", "3", "2", "b", "parameter", "set", "instantiated", "sha-256", "oid", "use"}
    assert unknown_terms("Which parameter sets are instantiated with BLAKE3?", vocab) == ["BLAKE3"]
    assert unknown_terms("Which OID does BLAKE2b use?", vocab) == ["BLAKE2b"]
    assert unknown_terms("Which OID does SHA256 use?", vocab) == []


def test_a_near_miss_naming_an_unwritten_hash_is_refused(agents):
    r = ask(agents, "default", "Which SLH-DSA parameter sets are instantiated with BLAKE2s?")
    assert r.answer.refused, r.answer.answer


def test_a_sentence_around_a_displayed_command_or_broken_by_the_layout_is_answered_whole(agents):
    """The reason follows the command the sentence displays; the rest of a sentence follows a
    paragraph break the layout made. Before, the first half was restated or nothing was."""
    answered(agents, "tech-manuals", "What is the purpose of adding \\setcounter{figure}{0} right after \\onecopy "
                                     "in AMC?", "numbering of figures starts at 1")
    answered(agents, "default", "What is the transition report intended to foster engagement with?",
             "relevant agencies")


def test_the_passage_stating_the_asked_thing_beats_one_that_only_says_the_tool_name(agents):
    answered(agents, "tech-manuals", "What does the AMC explaincontext command do?", "corrected paper")
    answered(agents, "tech-manuals", "Which pens or pencils should students use for an AMC exam?", "black or blue pen")


def test_a_command_line_option_finds_the_chunk_that_states_it(agents):
    from citerag.retrieval.retriever import Retriever

    agent = agents["tech-manuals"]
    hits = Retriever(agent.store, agent.params.retrieve).search("What is --plafond for in auto-multiple-choice note?").hits
    assert any("--plafond with this option" in agent.store.by_id[h.chunk_id].text for h in hits[:3])
    answered(agents, "tech-manuals", "What is --plafond for in auto-multiple-choice note?", "above max will be replaced")


@pytest.mark.parametrize("corpus,question,doc,page", [
    ("tech-manuals", "What happens when autoLeading is set to max?", "reportlab-userguide", 74),
    ("default", "In which bit order does BitsToBytes work in ML-DSA?", "NIST.FIPS.204", 39),
])
def test_a_camel_case_name_counts_in_the_rerankers_identifier_feature(agents, corpus, question, doc, page):
    """"autoLeading", "BitsToBytes" are names written as code: the chunk holding one outranks
    chunks the dense ranking likes for the rest of the question (before: not in the top 8)."""
    from citerag.retrieval.query import analyse
    from citerag.retrieval.retriever import Retriever

    assert analyse("Set autoLeading and fontSize in SampleNTT, not XOF").code_names == \
        ("XOF", "autoLeading", "fontSize", "SampleNTT")
    agent = agents[corpus]
    hits = Retriever(agent.store, agent.params.retrieve).search(question).hits
    assert any(h.doc_id == doc and h.loc.start_page <= page <= h.loc.end_page for h in hits[:3])


def test_a_define_question_is_answered_from_the_glossary_entry_with_its_next_sentence(agents):
    """The glossary entry is the preferred answer, and the sentence after it in the entry comes too."""
    r = ask(agents, "default", "How does FIPS 204 define little-endian?")
    assert r.answer.answer.startswith("little-endian: The property of a byte string"), r.answer.answer
    assert "leftmost (first) byte is the least significant" in r.answer.answer


@pytest.mark.parametrize("corpus,question,needs", [
    ("default", "What are PQC-classical hybrid protocols in the transition guidance?", "hybrid solutions"),
    ("tech-manuals", "In the AMC example, which automultiplechoice package options keep a question on one page and "
                     "add a none-of-these answer?", "prevent questions from being split"),
])
def test_a_passage_that_paraphrases_the_question_is_still_drafted(agents, corpus, question, needs):
    """The passage that answers holds 0.25-0.3 of the question's weighted terms: it paraphrases
    ("hybrid solutions" for "hybrid protocols"). At the old 0.3 bar (answer.min_answer_score) both
    were refused; at 0.25 they are answered, and no seen-pool unanswerable is answered for it."""
    answered(agents, corpus, question, needs)


def test_an_identifier_written_only_in_a_document_number_is_not_searched_for(agents):
    """"Which functions of FIPS 204 call Decompose?": "FIPS" is written only as part of the
    document's number, which says where to look; as an identifier to find, it ranked chunks that
    repeat "FIPS" over the one stating which functions use Decompose (before: not in the top 8)."""
    import dataclasses

    from citerag.retrieval.query import analyse
    from citerag.retrieval.retriever import Retriever

    qa = dataclasses.replace(analyse("Which functions of WG 12 call Decompose, and are WG tests required?"),
                             doc_mentions=("WG 12",))
    assert "WG" in qa.identifiers and "WG" in qa.code_names  # also written outside the number
    qa = dataclasses.replace(analyse("Which functions of WG 12 call Decompose?"), doc_mentions=("WG 12",))
    assert "WG" not in qa.code_names
    agent = agents["default"]
    hits = Retriever(agent.store, agent.params.retrieve).search("Which functions of FIPS 204 call Decompose?").hits
    assert any(h.doc_id == "NIST.FIPS.204" and h.loc.start_page == 50 and "use Decompose" in
               agent.store.by_id[h.chunk_id].text for h in hits[:3])


# One question per mechanism, each answered by the passage that states it.
@pytest.mark.parametrize("corpus,question,needs", [
    # "the transition report" names a document by its title; its glossary writes the term on a line of its own over
    # the definition. Before, the possessive was an unseen term "report's", the glossary's term line was dropped, and
    # a related passage of another document answered.
    pytest.param("default", "What is a KEM combiner, according to the glossary of the transition report?",
                 "two or more shared secret keys", id="a-glossary-entry-under-a-document-named-by-title-is-the-answer"),
    # "Gri's draw regression line": the token was "gri's", which no passage holds.
    pytest.param("tech-manuals", "Which global variables does Gri's draw regression line command set?",
                 "..coeff1..", id="a-possessive-name-is-matched-as-the-name"),
    # "Definition 3 (IND-CPA, informal) . A KEM …": the label was split off and dropped, so the question's "Definition
    # 3" matched nothing and a related passage answered.
    pytest.param("default", "According to Definition 3 in SP 800-227, when does a KEM have indistinguishable ciphertexts?",
                 "negligible", id="a-definition-with-a-titled-label-is-found-by-its-number"),
    pytest.param("tech-manuals", "What does AMC's --seuil-up option give, and what is its default value?",
                 "default value is 1.0", id="the-default-stated-later-in-a-settings-paragraph-is-in-the-answer"),
    pytest.param("default", "Who is the approving authority of FIPS 203?",
                 "Secretary of Commerce", id="a-numbered-announcement-item-answers-by-its-label"),
    pytest.param("default", "Should implementations bound the SampleNTT while loop?",
                 "should not bound this loop", id="a-yes-no-requirement-question-gets-the-requirement"),
    pytest.param("tech-manuals", "What default height does a ReportLab canvas.acroform.choice widget have?",
                 "Default 36", id="a-row-of-a-titled-parameter-table-answers-for-its-widget"),
    pytest.param("default", "Which methods for combining keys does SP 800-133 provide, according to SP 800-227?",
                 "methods for combining cryptographic keys", id="which-methods-is-answered-by-the-sentence-naming-the-methods"),
    # "May ML-DSA key pairs be used for purposes other than signing?": ML-DSA is the name FIPS 204's title defines, so
    # it names that document, as "in AMC" names the AMC manual; weighed as the question's topic it had drawn passages
    # that merely say ML-DSA, and the statement that key pairs "shall not be used for other purposes" was not quoted.
    pytest.param("default", "May ML-DSA key pairs be used for purposes other than signing?",
                 "shall not be used for other purposes", id="a-name-a-document-defines-scopes-the-question-to-it"),
])
def test_answered_by_the_passage_that_states_it(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("question, needs", [
    ("Is the barcode for a name field created by AMC?", "does not create bar code"),
    ("In ReportLab, where is the face name of a font taken from?", "FontName field"),
])
def test_a_compound_the_question_writes_closed_or_open_finds_the_sentence_writing_it_the_other_way(
        agents, question, needs):
    answered(agents, "tech-manuals", question, needs)


def test_a_sentence_that_opens_with_an_algorithm_number_is_quoted(agents):
    """"Algorithm 23 shows the DER encodings of the OIDs for …" is a sentence, not an algorithm's
    title."""
    answered(agents, "default", "For which hash functions does Algorithm 23 show the DER encodings of the OIDs?",
             "SHAKE256")


def test_what_an_algorithm_does_is_answered_first_by_its_description_line(agents):
    """The line under an algorithm's title ("Generates a pre-hash … signature.") says what the
    algorithm the title names does: read under the title, it outranks sentences that only name it."""
    r = ask(agents, "default", "What kind of signature does hash_slh_sign generate?")
    assert not r.answer.refused, r.answer.notes
    assert "pre-hash SLH-DSA signature" in r.answer.answer.splitlines()[0]


def test_a_sentence_of_names_completing_the_one_before_is_answered(agents):
    """"… other members of NIST's PQC team who reviewed … They are <names>.": the names are the answer."""
    answered(agents, "default", "Who are the other NIST PQC team members that reviewed candidate algorithms for the "
             "fourth-round status report?", "Zuzana Bajcsy")


def test_what_holds_by_default_is_read_from_the_question_not_from_a_command_that_sets_one():
    from citerag.answer.asked import asks_default, states_a_default

    assert asks_default("What symbol is drawn by default?")
    assert asks_default("What is the default width of the frame?")
    assert asks_default("Which group mode is used when no mode is defined?")
    assert not asks_default("Which command sets a default group mode?")
    assert not asks_default("Which symbol is drawn for each datum?")
    assert states_a_default("Without any mode definition, the fixed mode is used.")
    assert not states_a_default("The fixed mode takes the elements in order.")


@pytest.mark.parametrize("question, first", [
    ("What symbol is drawn by default when Gri makes a scattergraph?", "By default, the symbol used is an x."),
    ("What list encoding does AMC mailing use by default?", "(default is utf-8)"),
])
def test_a_default_question_is_answered_first_by_the_passage_stating_the_default(agents, question, first):
    r = ask(agents, "tech-manuals", question)
    assert not r.answer.refused, r.answer.notes
    assert first in r.answer.answer.splitlines()[0], r.answer.answer


def test_a_hyphenated_verb_of_the_question_finds_its_other_inflection(agents):
    """"re-expand" in the question, "re-expanding … by running KeyGen using a stored seed" in the text."""
    answered(agents, "default", "According to SP 800-227, running KeyGen with what lets one re-expand a key pair?",
             "stored seed")


def test_a_list_cut_at_a_chunk_boundary_is_answered_with_its_items_from_the_next_chunk(agents):
    """"… shall be destroyed … However, there are two exceptions to this rule:" ends one chunk; the next
    repeats that sentence with the two items. The answer quotes both items."""
    r = ask(agents, "default", "Which intermediate values of a KEM algorithm need not be destroyed before it terminates?")
    assert not r.answer.refused, r.answer.notes
    assert "A random seed used for key generation may be stored" in r.answer.answer
    assert "Data that can be easily computed from public information" in r.answer.answer


def test_a_list_question_is_answered_by_a_passage_naming_a_class_of_the_asked_thing():
    """"Which fonts …" is answered by "… use a common font standard: the Type 1 fonts of the reader."
    (no list shape, but the asked plural named): the list type holds."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.extractive import passage_type
    from citerag.answer.units import passages, units
    from citerag.core.types import Location

    us = units(Evidence("c1", Location("d::p1::c0", "d", 1, 1),
                        "Labels use a common font standard: the Type 1 fonts present in the reader."))
    p = passages(us)[0]
    assert passage_type(("list",), p, "", ("fonts",)) == 1.0
    assert passage_type(("list",), p) == 0.0
    assert passage_type(("list",), p, "", ("colours",)) == 0.0


def test_a_second_part_asking_which_things_is_answered_by_the_sentence_naming_their_class(agents):
    answered(agents, "tech-manuals", "What values may a ReportLab String's textAnchor take, and which fonts do Strings "
             "use?", "Type 1 Postscript fonts")


def test_a_question_ending_on_a_word_the_corpus_never_writes_is_read_from_its_last_content_word():
    from citerag.answer.answerer import ends_on

    assert ends_on("Which MAC algorithm is recommended for drones?", ["drones"]) == ["drones"]
    assert ends_on("Can a label wobble?", ["wobble"]) == ["wobble"]
    assert ends_on("Which book does it cite, and which edition?", ["edition"]) == []  # asked for
    assert ends_on("Which paper does it cite, and who wrote it?", ["wrote"]) == []
    assert ends_on("What happens in the line-thickness example?", ["line-thickness"]) == []  # a compound
    assert ends_on("What do drones use for the key?", ["drones"]) == []  # not the last content word


@pytest.mark.parametrize("corpus,question", [
    ("default", "Does SP 800-227 recommend a MAC algorithm for drones?"),
    ("tech-manuals", "Can auto-multiple-choice mailing send the annotated answer sheets by telegram?"),
    ("tech-manuals", "Which Gri command draws a curve for astronauts?"),
])
def test_a_near_miss_ending_on_an_unwritten_word_is_refused_however_well_the_rest_matches(agents, corpus, question):
    r = ask(agents, corpus, question)
    assert r.answer.refused and r.answer.refusal_reason == "unknown_terms", r.answer.answer


def test_a_short_name_of_digits_then_letters_is_a_word_of_the_question():
    """"5G" and "3D" are names: known only when the corpus writes them whole."""
    from citerag.answer.answerer import unknown_terms

    vocab = {"hybrid", "solution", "report", "network", "say", "3d", "plot"}
    assert unknown_terms("What does the report say about hybrid solutions for 5G networks?", vocab) == ["5G"]
    assert unknown_terms("What does the report say about 3D plots?", vocab) == []


def test_a_near_miss_naming_an_unwritten_generation_of_networks_is_refused(agents):
    r = ask(agents, "default", "Which ML-KEM parameter set does FIPS 203 recommend for 6G networks?")
    assert r.answer.refused and r.answer.refusal_reason == "unknown_terms", r.answer.answer


def test_a_preposition_the_tokenizer_keeps_ends_the_asked_noun_phrase():
    """"which file ending besides .ttf" asks for an ending, not for "besides"."""
    assert asked_heads("Which file ending besides .ttf can the tool parse?") == (Head("ending", "", ("file",)),)
    assert [h.word for h in asked_heads("Which flags except --quiet does the tool accept?")] == ["flags"]


def test_a_question_with_besides_is_not_refused_for_an_unstated_preposition(agents):
    r = ask(agents, "tech-manuals", "Which file type besides .ttf can ReportLab parse for Asian TrueType fonts?")
    assert not r.answer.refused, r.answer.notes


def test_an_algorithms_short_output_line_is_kept_and_answers_what_it_outputs(agents):
    """"Output : Boolean." follows the input line on the same line of the PDF; two words, it was
    dropped as no statement."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units
    from citerag.core.types import Location

    us = units(Evidence("c1", Location("d::p1::c0", "d", 1, 1),
                        "Algorithm 5 gx_verify(M, S, PK)\nVerifies a signature.\nInput : Message M , signature S , "
                        "public key PK. Output : Boolean.\n1: return gx_check(M, S, PK)"))
    assert "Output : Boolean." in [u.text for u in us]
    answered(agents, "default", "What is the output of the hash_slh_verify algorithm?", "Output : Boolean.")


@pytest.mark.parametrize("corpus, first, follow_up, needs, doubted", [
    ("default", "What does fors_sign take as input?", "and what does it return?", "FORS signature", False),
    ("tech-manuals", "What does gri_merge do?", "how do I see its help message?", "gri_merge -h", True),
])
def test_a_follow_up_word_the_corpus_writes_elsewhere_does_not_refuse_the_answer(agents, tmp_path, corpus, first,
                                                                                  follow_up, needs, doubted):
    """The cited text says "type … -h" for "help message". A word the corpus writes may be
    paraphrased, so the validator's doubt regenerates once and then keeps the answer; before, it
    refused the turn `off_topic`. ("Output :" for "return" once took the same path; the answer
    reads an "Output :" line as what an algorithm returns now, and the validator has no doubt.)"""
    eng = chat_engine(agents, corpus, tmp_path)
    eng.turn("t", first)
    r = eng.turn("t", follow_up)
    assert not r.refused and needs in r.answer, (r.refusal_reason, r.answer)
    validate = [e for e in r.trace if e["node"] == "validate"]
    if doubted:
        assert [e["fallback"] for e in validate] == ["regenerate", "keep"] and validate[-1]["soft"]
    else:
        assert [e.get("fallback") for e in validate] == [None], validate


def test_a_follow_up_about_a_backslash_macro_is_rewritten_without_error(agents, tmp_path):
    """The rewriter put the earlier name into a regex replacement template, so a macro such as
    \\AMCnumericChoices ("bad escape \\A") crashed the turn instead of answering it."""
    eng = chat_engine(agents, "tech-manuals", tmp_path)
    eng.turn("t", "What does AMC's \\AMCnumericChoices command do?")
    r = eng.turn("t", "which option of it sets the number of digits?")
    assert r.route == "REWRITE_THEN_RETRIEVE" and "\\AMCnumericChoices" in r.rewritten_query
    assert not r.refused and "digits" in r.answer, (r.refusal_reason, r.answer[:300])


@pytest.mark.parametrize("corpus, first, follow_up, needs", [
    ("default", "What does fors_sign take as input?", "and what does it return?", "FORS signature"),
    ("tech-manuals", "What does AMC's --dist-margin option do?", "what is its default value?", "5mm"),
])
def test_a_pronoun_follow_up_also_retrieves_with_the_previous_question(agents, tmp_path, corpus, first, follow_up,
                                                                      needs):
    """The rewriter's referent for "it" is a guess, so by default the follow-up also retrieves as
    "previous question + rewritten follow-up" and the evidence settles which entity is meant. A
    follow-up that names its own subject retrieves alone (checked in test_conversation)."""
    eng = chat_engine(agents, corpus, tmp_path)
    eng.turn("t", first)
    r = eng.turn("t", follow_up)
    rewrite = next(e for e in r.trace if e["node"] == "rewrite")
    retrieve = next(e for e in r.trace if e["node"] == "retrieve")
    assert rewrite["method"] == "replace_pronoun"
    assert retrieve["queries"] == [retrieve["query"], f"{first} {retrieve['query']}"]
    assert not r.refused and needs in r.answer, (r.refusal_reason, r.answer[:300])


@pytest.mark.parametrize("corpus, turns, topic, not_topic", [
    ("default", ["What does key confirmation provide in SP 800-227?", "how is it performed?",
                 "does it run on smartcards?"], "key confirmation", "performed"),
    ("tech-manuals", ["What does ReportLab's Spacer flowable do?", "how many arguments does it take?",
                      "can it be animated?"], "flowable", "take"),
])
def test_a_pronoun_keeps_the_topic_an_earlier_pronoun_kept(agents, tmp_path, corpus, turns, topic, not_topic):
    """The second turn's "it" kept the first turn's topic, so the third turn's "it" means that
    topic too; before, it took the last word of the second turn's rewrite ("does performed run …")."""
    eng = chat_engine(agents, corpus, tmp_path)
    rewrites = [eng.turn("t", u).rewritten_query for u in turns]
    assert topic in rewrites[1] and topic in rewrites[2], rewrites
    assert not_topic not in rewrites[2].split(), rewrites


def test_what_an_algorithm_returns_if_random_bit_generation_fails(agents):
    """The answer is the algorithm's own "return ⊥ ▷ return an error indication if random bit
    generation failed" step; before, the title's "Output :" line (what it returns on success)."""
    answered(agents, "default", "What does ML-KEM.KeyGen return if random bit generation fails?", "error indication")
    answered(agents, "default", "What does slh_sign return if random bit generation fails?", "error indication")


@pytest.mark.parametrize("question, needs", [
    ("Which function does sigDecode use to decode the hint?", "HintBitUnpack"),
    ("Which function does K-PKE.Encrypt use to decode t?", "ByteDecode12"),
])
def test_the_function_an_algorithm_calls_is_answered_from_its_step(agents, question, needs):
    """The callee is named only in the algorithm's step ("3: σ ← σ || BitPack (z[i], …)"); before,
    prose about the algorithm answered, or the answer was refused for not stating a function."""
    answered(agents, "default", question, needs)


def test_a_sentence_that_draws_its_conclusion_keeps_the_sentence_it_concludes_from(agents):
    """"Users shall, therefore, guard against the disclosure of these values." says which values
    only through the sentence before it ("… the secrecy of several values, including … the
    decapsulation key …"); the passage takes it in front, as it does for a sentence opening
    with "Therefore," or "In this case,"."""
    answered(agents, "default", "What must users of ML-KEM guard against disclosing?", "decapsulation key")


def test_at_a_minimum_is_an_idiom_not_a_number_question(agents):
    """"At a minimum" / "at the maximum" say "at least" / "at most": the question asks for no
    number or limit. Before, the sentence stating what is accepted lost to one with digits (NIST),
    or the answer was refused as never stating 'a limit (maximum or minimum)' (manuals)."""
    assert "number" not in answer_types("At a minimum, what does the codec accept as input?")
    assert "number" in answer_types("What is the minimum tag length?")
    answered(agents, "default", "What does KeyCombine accept as input at a minimum?", "two shared secrets")
    r = ask(agents, "tech-manuals", "At a minimum, which methods must a Flowable provide?")
    assert not r.answer.refused, r.answer.notes


@pytest.mark.parametrize("question, needs", [
    ("In ML-DSA.Sign_internal, which counter is initialized?", "initialize counter κ"),
    # a later part's step, after the first part quoted the algorithm's title with its own step
    ("What does hash_slh_sign return if the context string is too long, and which lines are skipped for "
     "the deterministic variant?", "skip lines 4 through 7"),
])
def test_a_detail_an_algorithm_states_in_one_step_is_answered_from_that_step(agents, question, needs):
    """The step's code or comment states all the part asks ("4: … ▷ skip lines 4 through 7 for the
    deterministic variant"); before, prose describing the algorithm as a whole answered."""
    answered(agents, "default", question, needs)


def test_what_an_algorithm_does_is_not_answered_by_one_of_its_steps(agents):
    r = ask(agents, "default", "What does ML-DSA.Sign_internal do?")
    assert not r.answer.refused and "outputs a signature" in r.answer.answer, r.answer.answer


@pytest.mark.parametrize("corpus, question, doc, page", [
    ("default", "Which section of SP 800-227 gives a KEM from Diffie-Hellman?", "NIST.SP.800-227", 7),
    ("default", "Which section of IR 8547 covers hybrid key-establishment techniques?", "NIST.IR.8547.ipd", 6),
    ("tech-manuals", "Which section of the ReportLab user guide covers Asian font support?", "reportlab-userguide", 3),
    ("tech-manuals", "Which section of the ReportLab user guide covers outline trees?", "reportlab-userguide", 3),
])
def test_a_which_section_question_retrieves_the_contents_list(agents, corpus, question, doc, page):
    """Contents lists were always penalised as boilerplate, so "which section covers X" never
    reached the one page that says it (a piece of a contents list running over two pages spans both)."""
    hits = agents[corpus].flow.retriever.search(question).hits[:8]
    assert any(h.loc.doc_id == doc and h.loc.start_page <= page <= h.loc.end_page for h in hits), [
        h.chunk_id for h in hits]


def test_a_plural_after_a_modal_is_the_subject_not_a_list():
    """"What must implementers ensure …" asks what they must ensure: "implementers" is the subject
    after the modal, not a plural head asking for a list (which halved the score of the one
    sentence that states the requirement)."""
    for q in ("What must implementers ensure about the parameter set?", "What should users check first?",
              "Which can administrators change?"):
        assert "list" not in answer_types(q), q
    for q in ("Which fonts do Strings use?", "Which options must be set?", "What are the three algorithms?"):
        assert "list" in answer_types(q), q


def test_a_built_in_variable_is_answered_with_its_double_dotted_name(agents):
    """The list item "- ..batch.. Flag used for batch mode." lost its name to a sentence split."""
    answered(agents, "tech-manuals", "Which Gri built-in variable is the flag used for batch mode?", "..batch..")


def test_a_return_condition_on_an_abbreviated_variable_is_answered_from_the_step(agents):
    """"1: if |ctx| > 255 then 2: return false": "ctx" abbreviates the question's context string."""
    answered(agents, "default", "What does hash_slh_verify return if the context string is longer than 255 bytes?",
             "return false")


def test_a_document_part_the_question_names_counts_in_its_chunks_heading(agents):
    """"What does the abstract of FIPS 203 say …": the chunk under the "Abstract" heading holds the
    asked part by its section title. Without the heading in the evidence-sufficiency score, too few
    hits held the question's terms and the run refused `budget_exhausted` after two rounds."""
    answered(agents, "default", "What does the abstract of FIPS 203 say ML-KEM is based on?", "CRYSTALS-KYBER")


def test_a_function_word_the_corpus_never_writes_does_not_refuse(agents):
    """Neither corpus writes "besides", "afterwards" or "beforehand": such words name nothing a
    question asks about, so they neither refuse on their own nor as the question's last word.
    Before, the first question was refused ("not in the corpus: besides, the kind of thing asked
    about"). A content word the corpus never writes still counts."""
    from citerag.answer.answerer import absent_words

    answered(agents, "default", "Which parameter set does NIST recommend for ML-KEM by default, and which may be "
                                "used besides it?", "ML-KEM-768")
    vocab = agents["tech-manuals"].flow.vocab
    assert absent_words("Besides the grid, what does Gri read afterwards, or beforehand on a violin?", vocab) \
        == ["violin"]


def test_a_word_is_known_from_its_own_inflections(agents):
    """The reference corpus writes "turned" but never "turn": the question's "turn" is written
    in an inflection, like "disallowing" from "disallowed"."""
    from citerag.answer.answerer import absent_words

    assert absent_words("How is the protocol turn into a signature scheme?", agents["default"].flow.vocab) == []


def test_what_a_command_draws_is_said_first_by_its_sections_opening(agents):
    """'What does Gri's draw grid command draw?': the answer opens with the sentence that opens the
    command's section ("Draw plus-signs at locations where grid data are non-missing."); before,
    with a sentence about drawing contours from grid data, which names the question's words more."""
    r = ask(agents, "tech-manuals", "What does Gri's draw grid command draw?")
    assert not r.answer.refused and r.answer.answer.startswith("Draw plus-signs"), r.answer.answer


def test_a_rare_word_that_is_no_ordinary_english_ranks_as_a_name(agents):
    """"insidebox" and "fullgroups" are option names written as plain lower-case words: no
    identifier pattern catches them, so the reranker weighed "AMC" (every chunk of that manual)
    and put the one chunk listing the option 14th. A word outside the embedding model's
    vocabulary (and not an inflection of a word in it) that few chunks write is now looked for as
    an identifier is; ordinary words ("verifying", "subcategory") and common terms are not."""
    from citerag.retrieval.query import analyse
    from citerag.retrieval.retriever import Retriever

    agent = agents["tech-manuals"]
    r = Retriever(agent.store, agent.params.retrieve)
    qa = analyse("What does the AMC package option insidebox do, after verifying the subcategory?",
                 agent.store.knowledge, None, 4)
    assert r.rare_names(qa, 10) == ("insidebox",)
    top = r.search("What does the AMC package option insidebox do?", k=3).ids()
    assert any(c.startswith("auto-multiple-choice.en::p30::") for c in top), top
    off = Retriever(agent.store, agent.params.retrieve.model_copy(update={"rare_name_chunks": 0}))
    assert not any(c.startswith("auto-multiple-choice.en::p30::")
                   for c in off.search("What does the AMC package option insidebox do?", k=3).ids())
    answered(agents, "tech-manuals", "What does AMC's fullgroups option cancel?", "optional parameter")
    # the reference corpus: a term many chunks write is no name to look for
    nist = agents["default"]
    qa = analyse("What does ML-KEM decapsulation output?", nist.store.knowledge, None, 4)
    assert Retriever(nist.store, nist.params.retrieve).rare_names(qa, 10) == ()


def test_a_glossary_flattened_into_one_line_spells_its_acronyms():
    """A glossary table whose cells lost their columns runs on as one line; each acronym it
    spells out right after itself is a row of its own, and a definition of the acronym ("X is a
    …") does not answer what it stands for."""
    from citerag.answer.asked import expands, spelled_acronyms
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units
    from citerag.core.types import Location

    line = ("SHA Secure Hash Algorithm SHAKE Secure Hash Algorithm KECCAK SP Special Publication "
            "WOTS^+ Winternitz One-Time Signature Plus QKD eQuantum Key Distribution")
    assert spelled_acronyms(line) == [("SHA", "Secure Hash Algorithm"), ("SP", "Special Publication"),
                                      ("WOTS^+", "Winternitz One-Time Signature"),
                                      ("QKD", "eQuantum Key Distribution")]  # SHAKE's cells do not spell it
    assert spelled_acronyms("The GUI is nice. Graphical User Interface") == []  # not right after it
    assert expands("XOF", "an eXtendable-Output Function") and not expands("XOF", "an extendable function")
    ev = Evidence("c1", Location("D::p1::c0", "D", 1, 1), f"Acronyms\n\n{line}")
    assert [u.text for u in units(ev) if u.kind == "definition"][:2] == ["SHA: Secure Hash Algorithm",
                                                                        "SP: Special Publication"]


def test_what_an_acronym_stands_for_is_answered_with_its_expansion(agents):
    r = ask(agents, "default", "What does the abbreviation XMSS stand for in FIPS 205?")
    assert not r.answer.refused and "eXtended Merkle Signature Scheme" in r.answer.answer.split("\n")[0]


def test_a_name_the_pdf_writes_with_its_subscript_apart_or_glued_is_known():
    """"PRFmsg" is written "PRF msg" and "Trunc" as "Truncl" once the PDF's subscripts become
    text; neither is an unknown term. A made-up name of known words stays unknown."""
    from citerag.answer.answerer import unknown_terms

    vocab = {"prf", "msg", "truncl", "quantum", "shuffl", "shuffle", "generate", "output"}
    assert unknown_terms("What does PRFmsg generate?", vocab) == []
    assert unknown_terms("What does Trunc output?", vocab) == []
    assert unknown_terms("What does QuantumShuffle output?", vocab) == ["QuantumShuffle"]
    assert unknown_terms("What does PRFkey generate?", vocab) == ["PRFkey"]  # "key" is not written


def test_a_subscripted_name_is_answered(agents):
    r = ask(agents, "default", "What does the truncation function Trunc output in FIPS 205?")
    assert not r.answer.refused and "leftmost" in r.answer.answer


def test_a_step_of_the_named_algorithm_answers_a_detail_of_it(agents):
    """"What does ExpandMask compute v with?" is stated by one step of ExpandMask ("4: v ← H(ρ′,
    32c)"), not by the prose about the algorithm as a whole."""
    r = ask(agents, "default", "What does ExpandMask compute v with?")
    assert not r.answer.refused
    first = r.answer.answer.split("\n")[0]
    assert first.startswith("4: v ←") and "H (" in first


@pytest.mark.parametrize("corpus, first, follow_up, rewritten", [
    ("default", "Which problem is ML-DSA based on?", "and which scheme is it derived from?",
     "which scheme is ML-DSA derived from?"),
    ("tech-manuals", "Which license is ReportLab released under?", "and who maintains it?", "who maintains ReportLab?"),
    ("tech-manuals", "What is Gri used for?", "and which language is it written in?",
     "which language is Gri written in?"),
])
def test_a_pronoun_after_a_question_naming_only_a_document_means_that_document(agents, corpus, first, follow_up,
                                                                              rewritten):
    """A name a document is known by ("ML-DSA" for the standard specifying it) is its scope, not an
    entity, so a question naming nothing else left "it" pointing at nothing and the follow-up was
    searched as "which scheme is it derived from?". With nothing else named, "it" is the document."""
    from citerag.conversation.engine import make_decider

    agent = agents[corpus]
    decider = make_decider(agent.params, agent.store, dict(agent.store.bm25._bm25.idf))
    prev = {"user": first, "rewritten_query": first, "route": "RETRIEVE", "answer": "", "refused": False}
    assert decider.rewrite(follow_up, [prev]).query == rewritten


def test_the_object_a_setting_question_asks_about_is_read_from_the_question():
    from citerag.answer.asked import setting_object

    assert set(setting_object("Which option of Tool's open command sets an HTTP proxy for wget?")) == {"http", "proxy"}
    assert set(setting_object("Which chart property draws 3D bars?")) >= {"bar", "3d"}
    # the object stops at a relative or an -ing form: "the text telling students …" is about the text
    assert setting_object("Which global option holds the text telling students to write on the sheet?") == ("text",)
    # "parameter sets" before an auxiliary is a noun, and a two-part question is left to the composer
    assert setting_object("Which parameter sets does Section 11.2.1 of the standard cover?") == ()
    assert setting_object("Which option sets the margin, and what is its default?") == ()
    assert setting_object("What does the margin option set?") == ()
    # a command is asked for by what it does too, and a relative "whose …" ends the object
    assert set(setting_object("Which command prints the answer sheets on A3 paper?")) == {"answer", "sheet"}
    assert setting_object("Which command marks a question whose answer is not graded?") == ("question",)
    # the object's head noun: its last lower-case word, before an "of" phrase or a possessive
    from citerag.answer.asked import setting_head

    assert setting_head("Which Tool command sets the arrow colour?") == "colour"
    assert setting_head("Which command sets the seed of Tool's random number generator?") == "seed"
    assert setting_head("Which option of Tool's open command sets an HTTP proxy for wget?") == "proxy"
    assert setting_head("Which option sets whether overlapping objects mix?") == ""  # a clause, no noun
    assert setting_head("What does the margin option set?") == ""
    # a word in -ing after an article is the object's noun ("the kerning", "the padding"), not a
    # participle ending it ("the text telling students …")
    assert set(setting_object("Which Tool command sets the kerning between two characters?")) >= {"kerning"}
    assert setting_head("Which option sets the padding of a cell?") == "padding"


@pytest.mark.parametrize("corpus, question, needs", [
    # a setting asked for by what it does, and the answer names one that does it
    ("default", "Which SLH-DSA parameter sets the height of the hypertree?", "height of the hypertree"),
    ("tech-manuals", "Which ReportLab paragraph style attribute sets the space before a paragraph?", "spaceBefore"),
    ("tech-manuals", "Which Gri option sets the arrow size?", "arrow size"),
])
def test_a_setting_question_whose_answer_says_what_it_does_is_answered(agents, corpus, question, needs):
    """The check reads the object's rarest word in the answer, not the question's kind word: the
    answers here name no "parameter" or "attribute" and still say what the setting does."""
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus, question", [
    ("default", "Which FIPS 204 parameter sets the transmission buffer size?"),
    ("default", "Which ML-DSA parameter sets the hint compression ratio?"),
    ("tech-manuals", "Which ReportLab chart property draws rounded bar corners?"),
    # the head noun: the answer named the command for the arrow size (answered above)
    ("tech-manuals", "Which Gri command sets the arrow colour?"),
    # an object in -ing: the old answer quoted a command on a file's first character
    ("tech-manuals", "Which Gri command sets the kerning between two characters?"),
])
def test_a_setting_question_answered_with_settings_for_something_else_is_refused(agents, corpus, question):
    """The old answer listed a chart's or a standard's parameters, none of them for what was asked
    (every word of the question is in the corpus, so nothing else caught it)."""
    r = ask(agents, corpus, question).answer
    assert r.refused and r.refusal_reason == "focus_not_stated", r.answer[:300]
    assert any("names no setting" in n for n in r.notes), r.notes


@pytest.mark.parametrize("corpus, question, word", [
    ("tech-manuals", "Can a ReportLab pie chart's slices pop out on hover?", "hover"),
    ("tech-manuals", "Can Gri store arrays of strings?", "array"),
    # a do-question whose verb asks for a capability; its subject ("TAB", a follow-up's carried
    # entity) is said by the passages retrieved for it and is not the capability asked about
    ("tech-manuals", "does TAB accept semicolons in Gri?", "semicolon"),
    ("default", "Does ML-KEM support threshold decapsulation?", "threshold"),
])
def test_a_capability_the_answer_never_names_is_refused(agents, corpus, question, word):
    """The old answers said what the thing can do otherwise (slices that pop out, strings and
    variables, Gri's tab completion, ML-KEM's decapsulation): a "can …" question's rarest word,
    or the rarest word after a "does … support/accept/handle/work/run" question's verb, must be
    said."""
    r = ask(agents, corpus, question).answer
    assert r.refused and r.refusal_reason == "focus_not_stated", r.answer[:300]
    assert any("no such capability" in n and word in n for n in r.notes), r.notes


@pytest.mark.parametrize("corpus, question, word", [
    ("default", "Which FIPS 204 notation denotes the inverse of a matrix?", "inverse"),
    ("tech-manuals", "Which Gri notation denotes a complex number?", "complex"),
])
def test_a_notation_asked_by_what_it_denotes_is_refused_when_the_answer_never_says_it(agents, corpus, question,
                                                                                       word):
    """A notation or a symbol is asked for by what it denotes, as a setting is by what it sets:
    the old answers listed the notation for matrices and for other things."""
    r = ask(agents, corpus, question).answer
    assert r.refused and r.refusal_reason == "focus_not_stated", r.answer[:300]
    assert any("names no setting" in n and word in n for n in r.notes), r.notes


def test_a_symbol_the_answer_names_for_what_it_denotes_is_answered(agents):
    answered(agents, "default", "Which symbol denotes the matrix multiplication of matrices with entries in Tq in "
                                "FIPS 204?", "∘")


def test_a_which_question_whose_verb_no_document_writes_is_refused(agents):
    """"caches" is in no document: the old answer quoted the steps of the algorithm the question
    named, which match every other word."""
    refused_noting(agents, "default", "Which FIPS 205 algorithm caches the nodes that xmss_node computes?",
                   "caches, the event asked about", reason="unknown_terms")


def test_the_event_of_a_which_question_is_its_verb_before_a_determiner():
    from citerag.answer.answerer import asks_unwritten_event

    assert asks_unwritten_event("Which algorithm caches the nodes?", ["caches"]) == ["caches"]
    assert asks_unwritten_event("Which canvas method draws a circle?", ["draws"]) == ["draws"]
    # the asked thing itself is no event, nor is a do-question's auxiliary
    assert asks_unwritten_event("Which widgets does it list?", ["widgets"]) == []
    assert asks_unwritten_event("Which algorithm caches the nodes?", []) == []


@pytest.mark.parametrize("corpus, question, event", [
    ("default", "Who first proved the KEMFROMPKE construction secure, according to SP 800-227?", "proved"),
    ("default", "Which U.S. agencies have adopted ML-KEM so far?", "adopted"),
    ("tech-manuals", "Which Ubuntu release prompted ReportLab's move to Python 3?", "prompted"),
    ("tech-manuals", "Who contributed ReportLab's py2pdf script?", "contributed"),
])
def test_a_doer_question_whose_answer_never_states_the_event_is_refused(agents, corpus, question, event):
    """"Who first proved X", "which agencies have adopted X": the old answers quoted a passage on X
    (its construction, its export rules, its options) beside a cited passage that writes the verb
    of something else; the answer naming the doer states the event."""
    refused_noting(agents, corpus, question, event, reason="focus_not_stated")


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "Who first introduced KEMs, according to SP 800-227?", "Cramer"),
    ("tech-manuals", "Which Gri version added hexadecimal colornames?", "2.12.5"),
])
def test_a_doer_question_whose_answer_states_the_event_is_answered(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


def test_the_doer_event_of_a_question():
    from citerag.answer.asked import asked_actions

    # the adverb between "who" and the verb is asked too ("first": who did it before anyone)
    assert asked_actions("Who first proposed the hint technique?") == ("first", "proposed")
    assert asked_actions("Which agencies have already adopted it?", subject_only=True) == ("adopted",)
    assert asked_actions("Which release added SVG output?", subject_only=True) == ("added",)
    # a passive asks about the thing, not its doer; an irregular participle after "have" is a pro-verb
    assert asked_actions("When was version 2 released?") == ("released",)
    assert asked_actions("When was version 2 released?", subject_only=True) == ()
    assert asked_actions("Which vendors have done so?") == ()
    # a doer asked for by its count
    assert asked_actions("how many vendors have migrated already?", subject_only=True) == ("migrated",)


def test_a_doer_counted_is_refused_when_the_answer_never_states_the_event(agents):
    """The old answer counted nothing: the call's text, beside the draft's line numbers."""
    refused_noting(agents, "default", "How many patent holders have responded to the call for patent claims in "
                                      "IR 8547?", "responded", reason="focus_not_stated")


def test_of_words_written_as_rarely_the_last_is_the_one_asked():
    from types import SimpleNamespace

    from citerag.answer.answerer import _rarest

    score = SimpleNamespace(weights={"counter": 5.1, "count": 5.5, "backward": 5.5})
    assert _rarest(["counter", "count", "backward"], score, "can the counter count backwards?") == "backward"
    assert _rarest(["counter", "count", "backward"], score) == "count"  # no question: the word decides


def test_a_capability_whose_last_rare_word_the_answer_never_says_is_refused(agents):
    """"count" and "backwards" are written as rarely; the old check read "count", which the answer
    about resetting counters says, and answered."""
    refused_noting(agents, "tech-manuals", "can the counter count backwards?", "backward", reason="focus_not_stated")


@pytest.mark.parametrize("corpus, question", [
    ("default", "What is HashML-DSA's maximum message length in bytes?"),
    ("tech-manuals", "What is the maximum path length in Gri?"),
])
def test_a_limit_asked_for_is_refused_when_no_answer_sentence_states_its_value(agents, corpus, question):
    """"What is the maximum X?" asks for the limit's value: the old answers quoted "at least λ bits of
    security strength" beside "FIPS 180 [8]", or a field's "maximum length" with no number."""
    refused_noting(agents, corpus, question, "a limit", reason="focus_not_stated")


def test_a_value_is_a_number_that_names_nothing():
    from citerag.answer.asked import states_value

    assert states_value("The context string has a maximum length of 255 bytes.")
    assert states_value("It takes at most two arguments.")
    # a standard's or a table's number, a year, a footnote mark and a reference are no value
    assert not states_value("at least λ bits (e.g., from FIPS 180 [8]) [7, Table 4].^6 in 2024")


@pytest.mark.parametrize("corpus, question", [
    ("default", "How often is ML-KEM.KeyGen run in practice?"),
    ("tech-manuals", "How often does Gri flush its output file?"),
])
def test_a_frequency_question_answered_without_one_is_refused(agents, corpus, question):
    """"How often …" asks for a frequency; the old answers quoted passages on the thing that state
    none (what a check does not guarantee, what a file holds)."""
    refused_noting(agents, corpus, question, "a frequency", reason="focus_not_stated")


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "How often will FIPS 205 be reviewed?", "every five years"),
    # a frequency in space
    ("tech-manuals", "How often are Gri contour labels drawn along a contour?", "uniform distance"),
])
def test_a_frequency_the_answer_states_is_answered(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus, question, needs", [
    ("tech-manuals", "Can ReportLab draw a pie chart with a popout slice?", "popout"),
    # a closed-class adverb ("instead") is no capability's word
    ("default", "Can the seed be stored instead of the ML-DSA private key?", "32-byte seed"),
    # support stated in the words that name it, and in another verb ("defines … a pre-hashing step")
    ("default", "Does ML-DSA support pre-hashing of the message?", "pre-hash"),
    ("tech-manuals", "Does Gri support Oriental languages?", "Oriental"),
    # said in one quoted passage with the thing: its title line, then the step ("compute in place")
    ("default", "Can the NTT be computed in place?", "in place"),
    ("tech-manuals", "Can a Gri if statement have an else block?", "else"),
])
def test_a_capability_the_answer_names_is_answered(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


def test_a_capability_said_of_another_thing_does_not_answer_a_follow_up(agents, tmp_path):
    """"can spans overlap?" after two turns on TableStyle SPAN was answered with "the labels can
    overlap …" (pie charts) beside the SPAN passage: the capability's word and another of the
    question's must come in one quoted passage."""
    eng = chat_engine(agents, "tech-manuals", tmp_path)
    eng.turn("t", "How does a ReportLab TableStyle SPAN command combine cells?")
    r = eng.turn("t", "can spans overlap?")
    assert r.refused and r.refusal_reason == "focus_not_stated", r.answer[:300]


def test_quoted_passages_are_runs_of_sentences_citing_the_same_keys():
    from citerag.answer.answerer import _quoted_passages

    text = "Algorithm 9 NTT(f). [c8]\n1: f←f ▷ will compute in place. [c8]\nLabels can overlap. [c2] Spans join. [c1]"
    assert _quoted_passages(text) == ["Algorithm 9 NTT(f). [c8] 1: f←f ▷ will compute in place. [c8]",
                                      "Labels can overlap. [c2]", "Spans join. [c1]"]


def test_an_email_or_web_address_is_a_typed_thing_and_a_bare_address_is_not():
    from citerag.answer.asked import asked_heads, typing_words

    (email,) = asked_heads("To which e-mail address should comments be sent?")
    assert email.type == "email" and typing_words(email) == {"e-mail"}
    assert asked_heads("Which website hosts the benchmarks?")[0].type == "address"
    # an address of a data structure is no e-mail: the text must name it
    (plain,) = asked_heads("Which address does the verifier set after initialising it?")
    assert plain.type == "" and typing_words(plain) == set()


@pytest.mark.parametrize("corpus, question, needs", [
    # the text writes "… addressed to: x@y.gov" or "Name (x@y.lt)", never the words "email address"
    ("default", "What is the email address for patent statements about NIST IR 8547?", "pqc-transition@nist.gov"),
    ("tech-manuals", "What is the email address of Marius Gedminas, who contributed TrueType support to ReportLab?",
     "mgedmin@delfi.lt"),
])
def test_an_email_address_question_is_answered_by_the_address_itself(agents, corpus, question, needs):
    """Before, "address" was an untyped asked thing the cited evidence had to write, and "email" a
    kind no passage wrote, so both were refused focus_not_stated."""
    answered(agents, corpus, question, needs)


def test_word_runs_are_the_question_words_outside_quotes_longest_first():
    from citerag.retrieval.query import word_runs

    runs = word_runs("Who wrote Breaking Widgets in Linear Time, cited in 'A Survey'?", 4)
    assert runs[0].startswith("wrote breaking widgets in linear time")  # longest first
    assert "breaking widgets in linear time" in runs
    # a run neither starts nor ends on a stopword, and the quoted title is not one
    assert not any(r.split()[0] in ("who", "in") or r.endswith(" in") for r in runs)
    assert not any("survey" in r for r in runs)


@pytest.mark.parametrize("corpus, question, needs", [
    # unquoted titles of reference entries (the entry sat under the references list's penalty)
    ("default", "Who wrote Efficient encryption from random quasi-cyclic codes?", "Aguilar-Melchor"),
    ("default", "Who wrote Breaking SIDH in Polynomial Time?", "Robert D"),
    # "introduced" is stated by the entry whose title names the construction
    ("default", "Which paper introduced Fiat-Shamir with aborts, according to FIPS 204's references?",
     "Lyubashevsky"),
])
def test_a_cited_title_asked_about_without_quotes_is_answered_from_its_entry(agents, corpus, question, needs):
    """Who wrote a work is what its reference entry states, without the verb."""
    answered(agents, corpus, question, needs)


def test_a_reference_entry_states_authorship_when_it_opens_the_answer_or_names_the_asked_work():
    from citerag.answer.asked import action_stated, asked_heads

    entry = "[25] Lund A, Okafor B (2021) Breaking Widgets. Proceedings of WidgetConf, pp 1–9. [c1]"
    assert action_stated("wrote", "", entry) and action_stated("published", "", entry)
    assert not action_stated("wrote", "", f"Widgets are broken in linear time [25]. [c2]\n{entry}")
    assert not action_stated("chaired", "", entry)
    assert asked_heads("At which conference did it appear?")[0].type == "citation"
    # the work whose entry names a thing introduced it ("which paper introduced Breaking Widgets?")
    assert action_stated("introduced", "", entry) and action_stated("proposed", "", entry)
    # further down, an entry states it when its title names the work as the question does, words
    # side by side; a label may end on a colon
    later = f"Widgets are broken in linear time [25]. [c2]\n{entry.replace('[25]', '[LO21]:')}"
    assert action_stated("wrote", "", later, "Who wrote the breaking widgets paper cited in DOC 9?")
    assert not action_stated("wrote", "", later, "Who wrote the widget code for breaking things?")
    assert not action_stated("chaired", "", later, "Who chaired the breaking widgets session?")


@pytest.mark.parametrize("question, needs", [
    # the entry is not the answer's first sentence, and its label ends on a colon ("[NSM10]:")
    ("Who authored National Security Memorandum 10, cited in IR 8547?", "Biden"),
    # … and "paper" before "cited in" is the work asked for, not a kind of it no passage writes
    ("Who wrote the KEM combiners paper cited in SP 800-227?", "Giacon"),
])
def test_an_entry_further_down_naming_the_asked_work_states_who_wrote_it(agents, question, needs):
    """Both were refused focus_not_stated: only an answer opening with an entry stated who wrote it."""
    answered(agents, "default", question, needs)


def test_an_entry_on_another_work_of_the_topic_does_not_state_who_wrote_it(agents):
    """The HQC entry further down ("… HQC encryption framework … error-correcting code") is
    another work on the topic: its title has the question's words only apart."""
    refused_noting(agents, "default", "Who wrote the reference code for HQC?", "wrote", reason="focus_not_stated")


def test_a_participle_describing_a_noun_ends_its_phrase():
    from citerag.answer.answerer import modifying
    from citerag.answer.asked import describing_participle

    assert describing_participle("cited", " in DOC 9?") and describing_participle("generated", " by Bob")
    assert not describing_participle("cited", " works?") and not describing_participle("blue", " in X")
    assert modifying("Who wrote the widget paper cited in DOC 9?", ["paper"]) == []
    assert modifying("Which command draws a violin plot in Tool?", ["violin"]) == ["violin"]


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "Which two properties do the Compress and Decompress algorithms satisfy?", "Second, if"),
    ("tech-manuals", "How can Gri users benefit from SourceForge?", "Third, Source Forge"),
])
def test_an_enumeration_is_read_to_its_end(agents, corpus, question, needs):
    """"First, …" announces more: the answer reads on to the next ordinal's sentence."""
    answered(agents, corpus, question, needs)


def test_a_count_asks_for_the_counted_thing_and_a_setting_for_its_qualifier():
    from citerag.answer.asked import asked_heads, setting_object, setting_qualifier

    heads = asked_heads("What is the maximum number of arguments such a command can take?")
    assert [(h.word, h.type) for h in heads] == [("number", "number"), ("arguments", "")]
    assert [h.word for h in asked_heads("What is the number of bytes of a signature?")] == ["number"]
    q = "Which keyword of Tool's write table command writes the values in double precision?"
    assert setting_object(q) == ("value",) and setting_qualifier(q) == ("double", "precision")
    # a name after "in" scopes the question; it does not qualify the doing
    assert setting_qualifier("Which property sets the fill color of the box in Widgetry?") == ()
    assert setting_qualifier("Which option of \\Tool sets the number of digits in TL?") == ()
    assert setting_qualifier("Which option writes the image in PPM format?") == ("format",)


@pytest.mark.parametrize("corpus, question", [
    # (the old answer quoted the command's %f format and its bycolumns keyword)
    ("tech-manuals", "Which keyword of Gri's write grid command writes the values in double precision?"),
])
def test_a_setting_that_does_not_do_it_that_way_is_refused(agents, corpus, question):
    r = ask(agents, corpus, question).answer
    assert r.refused and r.refusal_reason == "focus_not_stated", r.answer[:300]


@pytest.mark.parametrize("corpus, question", [
    # (the old answer quoted another manual's limits: "The maximum number of answers … is 199")
    ("tech-manuals", "What is the maximum number of arguments such a command can take?"),
])
def test_a_count_of_something_the_evidence_never_names_is_refused(agents, corpus, question):
    r = ask(agents, corpus, question).answer
    assert r.refused and "arguments" in " ".join(r.notes), (r.answer[:300], r.notes)


def test_a_numbered_item_keeps_its_name_and_a_list_runs_past_an_equation_or_a_running_title():
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import passages, units
    from citerag.core.types import Location

    def texts(text: str) -> list[str]:
        return [u.text for u in units(Evidence("c1", Location("d::p1::c0", "d", 1, 1), text))]

    # the item's short first sentence names what the rest of its line describes; the chunk may
    # start after the list's announcement (here the equation of the item before)
    assert texts("K ← F(Z) . (12)\n\n2. Two-step mixing. In this case, two widgets are required: A and B.")[:2] == [
        "Two-step mixing.", "In this case, two widgets are required: A and B."]
    listed = "The module shapes.py supplies a number of shapes. They are:\n\n- Rect\n\n- • Circle\n\n" \
             "- Ellipse\n\nChapter 11 Graphics\n\n- PolyLine\n\nThe drawing shows them."
    us = units(Evidence("c1", Location("d::p1::c0", "d", 1, 1), listed))
    assert [u.text for u in us if u.item] == ["Rect", "Circle", "Ellipse", "PolyLine"]
    # the passage that reaches the announcement reads the whole list, not three units of it
    whole = passages(us)[0]
    assert [u.text for u in whole.units][-4:] == ["Rect", "Circle", "Ellipse", "PolyLine"]


def test_a_number_is_shown_by_the_answer_not_by_its_citation_markers():
    from citerag.answer.asked import Head, head_stated

    assert not head_stated(Head("length", "number"), "", "The salt is chosen at random. [c1]")
    assert head_stated(Head("length", "number"), "", "The salt is 32 bytes long. [c1]")
    # "which values/sizes …" may be answered by names
    assert head_stated(Head("values", "number"), "", "One of 'start', 'middle' or 'end'. [c1]")
    assert head_stated(Head("sizes", "number"), "", "Valid sizes are letter and legal. [c1]")


def test_a_word_a_reference_entry_states_by_its_form_is_not_absent(agents):
    """"wrote" is written nowhere in the standards, yet their reference entries state who wrote."""
    answered(agents, "default", "Who wrote the FIPS 204 reference Updates for FIPS 203, and in which year?", "Lee S")


@pytest.mark.parametrize("corpus, first, follow_up, carried", [
    ("default", "Who wrote the CRYSTALS-Kyber algorithm specifications cited in FIPS 204?", "and in which year?",
     "CRYSTALS-Kyber"),
    ("tech-manuals", "Who wrote the Gri editing mode for GNU Emacs?", "and in which year?", "GNU"),
])
def test_a_follow_up_naming_nothing_is_asked_of_the_earlier_subject(agents, corpus, first, follow_up, carried):
    from citerag.conversation.engine import make_decider

    agent = agents[corpus]
    decider = make_decider(agent.params, agent.store, dict(agent.store.bm25._bm25.idf))
    prev = {"user": first, "rewritten_query": first, "route": "RETRIEVE", "answer": "", "refused": False}
    assert carried in decider.rewrite(follow_up, [prev]).query


@pytest.mark.parametrize("corpus, question, needs", [
    # an algorithm named by its number, not its name, still has its return step read
    ("default", "What does Algorithm 22 return if random bit generation fails in FIPS 205?", "error indication"),
])
def test_a_numbered_algorithm_has_its_return_step_read(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


def test_a_name_the_pdf_writes_with_its_subscript_apart_is_known():
    from citerag.answer.answerer import subscript_apart

    texts = ["Bob derives two keys from KX 0 : a confirmation key and more keying material.",
             "any extra data Extra B to include"]
    assert subscript_apart("KX0", texts) and subscript_apart("ExtraB", texts)
    # its words apart in other places do not make a made-up name known
    assert not subscript_apart("ZETA3", ["the zeta values and 3 more"])
    assert not subscript_apart("KX1", texts)


def test_a_subscripted_name_asked_glued_is_answered(agents):
    """The standard writes "KA 0" (a subscript); the question writes "KA0", which had been refused
    as a term the corpus never writes."""
    answered(agents, "default", "Which two keys does Alice derive from KA0 in the key-confirmation example?", "KAkc")


def test_a_name_between_doubled_sigils_keeps_its_sigils():
    """"..width.." is a language's built-in name: a passage saying "width" does not name it. One
    dot on each side is not a sigil (".cfgrc." ends a sentence as often)."""
    from citerag.text.patterns import identifiers

    assert identifiers("What does ..width.. hold, and __init__ or %HOME%?") == ["..width..", "__init__", "%HOME%"]
    assert identifiers("the file .cfgrc. and e.g. this") == ["e.g"]


@pytest.mark.parametrize("question", [
    "What does Gri's ..margin.. builtin variable hold?",       # "margin" is everywhere; "..margin.." nowhere
    "Which value does the ..font.. built-in variable of Gri store?",
])
def test_a_sigil_name_the_corpus_never_writes_is_refused(agents, question):
    r = ask(agents, "tech-manuals", question).answer
    assert r.refused and r.refusal_reason == "focus_not_stated", r.answer[:300]


def test_a_sigil_name_is_answered_from_its_own_entry(agents):
    answered(agents, "tech-manuals", "What does the ..tic_size.. variable of Gri hold?", "Size of axis tics")


def test_causes_asked_for_are_stated_by_a_relation_not_the_word(agents):
    """"What causes …" is answered by "a result of X, Y or Z"; the passage never says "cause"."""
    answered(agents, "default", "Which causes of KEM failures and aborts does SP 800-227 name?",
             "hardware or software failure")


def test_a_count_shows_as_a_number_next_to_the_counted_thing():
    from citerag.answer.asked import unshown_quantities

    q = "How many glyphs does the Widget font contain?"
    # glyphs named, but no number says how many (the "1" of "Latin-1" and a reference "[38]" are none)
    assert unshown_quantities(q, "Some fonts contain non-text glyphs of Latin-1 [38]. [c1]\n"
                                 "Others have their own encoding. [c2]") == ["a count of glyphs"]
    assert unshown_quantities(q, "Encodings are listed in Code Page 1252. [c1]") == ["a count of glyphs"]
    assert unshown_quantities(q, "The Widget font contains 189 glyphs. [c1]") == []
    # the number in the sentence after the one naming the thing: a field and its default
    assert unshown_quantities("How many lines does the name box have?",
                              "NameLines: number of lines in the name box. [c1]\nDefault is 2. [c1]") == []
    # an empty head ("times") or a typed one ("bits": a size has its own cues) is not checked here
    assert unshown_quantities("How many times may a key pair be used?", "Only once. [c1]") == []


@pytest.mark.parametrize("corpus, question", [
    ("tech-manuals", "How many glyphs does the Symbol font hold, according to the ReportLab user guide?"),
    ("default", "How many inputs does CAVP validation testing check per KEM?"),
])
def test_a_count_the_evidence_never_gives_is_refused(agents, corpus, question):
    r = ask(agents, corpus, question).answer
    assert r.refused and any("a count of" in n for n in r.notes), (r.answer[:300], r.notes)


def test_a_count_given_next_to_its_field_is_answered(agents):
    answered(agents, "tech-manuals", "How many lines does the name field box of AMC have when Code is used?",
             "Default is 2")


def test_a_setting_asked_to_decide_whether_is_read_from_the_whole_clause(agents):
    """"sets whether X mix": the object is the clause, not the word "whether" (which no answer
    says, so the setting that does it was refused)."""
    from citerag.answer.asked import setting_words

    assert setting_words("Which option sets whether hidden rows print?") == (("hidden", "print", "row"), ())
    answered(agents, "tech-manuals",
             "Which ReportLab property decides whether the colors of two overlapping CMYK objects mix?", "overPrint")


@pytest.mark.parametrize("corpus, question, needs", [
    # a condition is set by a clause ("… is secure if X is hard"), not by the word
    ("default", "Under which condition does SP 800-227 call the KEM built from RSASVE IND-CPA-secure?",
     "if the computational RSA problem is hard"),
    ("tech-manuals", "Under what conditions does Gri ignore a newline at the start of a data file?",
     "first character of the next data file"),
    # an operation is named by its name or verb, not the word
    ("default", "Which operation does Alice perform to decapsulate in the KEM SP 800-227 builds from RSASVE?",
     "RSASVE.RECOVER"),
])
def test_a_condition_or_operation_asked_for_is_stated_by_a_clause_or_a_name(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus, first, follow_up, wanted, gone", [
    # the phrase after the same preposition takes the new words, not the last word alone
    ("tech-manuals", "What did Gri 2.6.1 fix about byte-compiled gri-mode.el?", "and about the documentation?",
     "fix about the documentation", "gri-mode.el"),
    # the document after "for" is swapped, not the first one the question names
    ("default", "What title does IR 8547 give for FIPS 204 in its references?", "and for FIPS 205?",
     "IR 8547 give for FIPS 205 in its references", "FIPS 204"),
    # an "of" inside the phrase belongs to it
    ("default", "In SLH-DSA, what is a different ADRS value used for in the case of PRF?",
     "and in the case of H and F?", "in the case of H and F", "PRF"),
])
def test_a_follow_up_opening_on_a_preposition_swaps_the_phrase_after_it(agents, corpus, first, follow_up, wanted,
                                                                         gone):
    from citerag.conversation.engine import make_decider

    agent = agents[corpus]
    decider = make_decider(agent.params, agent.store, dict(agent.store.bm25._bm25.idf))
    prev = {"user": first, "rewritten_query": first, "route": "RETRIEVE", "answer": "", "refused": False}
    q = decider.rewrite(follow_up, [prev]).query
    assert wanted in q and gone not in q, q


def test_a_version_number_is_a_focus_term_whole():
    """"2.6.2" is not "2.6": an answer about version 2.6.1 states "2.6" too."""
    from citerag.answer.asked import focus_terms

    assert "4.10.2" in focus_terms("When was version 4.10.2 released?", (), ())


def test_a_cited_work_is_asked_with_verbs_its_entry_never_writes(agents):
    """A reference entry ("[25] Lund A, Okafor B (2018) Widget combiners. Proc …") states who
    wrote and where it appeared, and that the listing document cites it, without those verbs."""
    from citerag.answer.asked import action_stated
    from citerag.retrieval.query import analyse
    from citerag.text.terms import Scorer

    idf = {"wrote": 3.0, "widget": 5.0, "combiner": 5.0, "paper": 2.0, "cited": 3.0, "module": 4.0, "written": 3.0}
    w = Scorer(analyse("Who wrote the widget combiners paper cited in RFC 9999?"), idf).weights
    assert "wrote" not in w and "cited" not in w and {"widget", "combiner", "paper"} <= set(w)
    assert "written" in Scorer(analyse("How was the widget module written?"), idf).weights  # no cited work
    entry = "[25] Lund A, Okafor B (2018) Widget combiners. Proc. Widgets, pp 1–9."
    assert action_stated("cited", "", entry) and not action_stated("cited", "", "Widgets combine keys.")
    # (found on blind122: the loop refused for thin evidence, "wrote" and "cited" weighing on every hit)
    answered(agents, "default", "Who wrote the Grafting Trees fault attack paper cited in FIPS 205?", "Castelnovi")


def test_a_format_sequence_is_a_name_with_its_sigil():
    from citerag.text.patterns import identifiers

    assert identifiers("What is %T replaced by, and %(ID) or %s?") == ["%T", "%(ID)", "%s"]
    assert identifiers("about 50% of 100%s and % of") == []


@pytest.mark.parametrize("question", [
    "What is %Q replaced by in AMC's --verdict header?",  # the header's sequences are %S %M %s %m %(ID) %(COL)
])
def test_a_format_sequence_the_corpus_never_writes_is_refused(agents, question):
    r = ask(agents, "tech-manuals", question).answer
    assert r.refused and r.refusal_reason == "focus_not_stated", r.answer[:300]


def test_a_format_sequence_is_answered_from_the_line_that_writes_it(agents):
    """The term share holds "%M" where the text writes it (the tokenizer drops the sigil); the
    answer had stopped at the sentence announcing the sequences."""
    answered(agents, "tech-manuals", "What does %M stand for in the --verdict header of AMC?", "maximum total score")


def test_an_acronym_naming_whose_number_is_asked_must_be_in_the_answer():
    """"Which RFC number …" is not answered by a DOI or a page number: the answer writes "RFC"."""
    h = Head("number", "number", ("RFC",))
    assert not head_stated(h, "", "X-Wing. IACR Communications in Cryptology 1(1). [c1]")
    assert head_stated(h, "", "XMSS is specified in RFC 8391. [c1]")


def test_a_reference_list_named_asks_about_a_cited_work(agents):
    """"… according to X's reference list" asks about a work X cites: its reference list is where
    the answer is (the entry had not been retrieved, and the question was refused)."""
    from citerag.retrieval.query import analyse

    assert analyse("In which year was the Widget Standard published, according to the guide's reference list?").asks_cited
    assert not analyse("Which list of widgets does the guide give?").asks_cited
    answered(agents, "default", "In which year was the Advanced Encryption Standard FIPS 197 published, according to "
                                "IR 8547's reference list?", "2001")


def test_a_stance_asked_of_a_document_is_stated_by_the_answer():
    """"Which X does DOC recommend" is answered by a sentence that recommends ("should",
    "recommended"), not by one on the same thing that takes no stance."""
    from citerag.answer.asked import unshown_stance

    q = "Which hash function does the guide recommend for signing?"
    assert unshown_stance(q, "A hash function can be combined with a signature scheme. [c1]") == ["a recommendation"]
    assert unshown_stance(q, "Implementations should use SHA-384 for signing. [c1]") == []
    assert unshown_stance(q, "SHA-384 is recommended for signing. [c1]") == []
    # a stance on another thing in the answer is not the one asked about
    assert unshown_stance(q, "Widths of 2 points are recommended. [c1]\nA hash function hashes. [c2]") == [
        "a recommendation"]
    assert unshown_stance("Which key size does the guide approve?", "Keys are 2048 bits. [c1]") == ["an approval"]
    assert unshown_stance("Which library does the tool require?", "The tool needs libfoo 1.2. [c1]") == []
    assert unshown_stance("Does the tool prohibit symbolic links?", "Links are not followed. [c1]") == []
    # a quantity a thing requires is asked for its number, not a stance; a question with no such
    # verb, or with an imperative manual's "suggest", asks for none
    assert unshown_stance("How much memory does the build require?", "About 2 GB. [c1]") == []
    assert unshown_stance("Which command does the manual suggest for filtering?", "Use gawk. [c1]") == []
    assert unshown_stance("Which hash function does the guide use?", "It uses SHA-384. [c1]") == []


@pytest.mark.parametrize("corpus, question", [
    ("default", "Which symmetric key length does FIPS 203 require for the KEM-DEM paradigm?"),
    ("tech-manuals", "Which grid size does the Gri manual recommend for contouring?"),
    ("tech-manuals", "Which page size does ReportLab require for canvas objects?"),
])
def test_a_stance_the_documents_never_take_is_refused(agents, corpus, question):
    refused_noting(agents, corpus, question, "a recommendation", "a requirement")


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "Which parameter set does NIST recommend as the default for ML-KEM?", "ML-KEM-768"),
    ("tech-manuals", "Which Python version does ReportLab 3.6.12 require?", "3.7"),
])
def test_a_stance_the_documents_take_is_answered(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "To which e-mail address should comments about FIPS 205 be sent?", "fips-205-comments@nist.gov"),
    ("tech-manuals", "From which web address can the ReportLab toolkit be downloaded?", "https://"),
])
def test_an_address_is_stated_by_its_form_not_by_the_word(agents, corpus, question, needs):
    """"… may be submitted to x@y.org" states the e-mail address it never calls one: the passage
    is ranked as holding the asked words, not outscored by one that writes "e-mail"."""
    answered(agents, corpus, question, needs)


def test_a_number_asked_about_stands_alone_in_the_evidence():
    """"version 4" is not stated by "2014" or the "4" of "2.4"; a number pointing at a place
    ("step 8 of X") need not be repeated there."""
    from citerag.answer.answerer import term_stated
    from citerag.answer.asked import place_numbers

    assert not term_stated("4", "in march 2014, version 2.4 was released")
    assert term_stated("4", "version 4 was released")
    assert term_stated("7856", "a signature of 7 856 bytes")
    assert term_stated("4", "in 2014", alone=False)
    assert place_numbers("What bound applies to the loop on step 8 of Sample, and in Table 3?") == {"8", "3"}
    assert place_numbers("When was version 4 published?") == frozenset()


@pytest.mark.parametrize("corpus, question", [
    ("default", "When was version 7 of FIPS 203 published?"),
    ("tech-manuals", "When was version 6 of the General Public License published?"),
])
def test_a_version_the_documents_never_number_is_refused(agents, corpus, question):
    r = ask(agents, corpus, question).answer
    assert r.refused and r.refusal_reason == "focus_not_stated", (r.answer[:300], r.notes)


def test_a_charge_asked_for_is_an_amount_of_money():
    from citerag.answer.asked import unshown_quantities

    q = "What does the foundation charge for permission to copy the program?"
    assert unshown_quantities(q, "You may charge for this service if you wish. [c1]") == ["an amount of money"]
    assert unshown_quantities(q, "It is free of charge. [c1]") == []
    assert unshown_quantities("What does the charge field hold?", "The charge in coulombs. [c1]") == []


@pytest.mark.parametrize("corpus, first, follow_up, wanted", [
    ("tech-manuals", "Who may publish new versions of the General Public License, according to the Gri manual?",
     "and how are those versions numbered?", "the new versions of the General Public License"),
    ("default", "Which parties must establish shared secret keys, according to SP 800-227?",
     "and how are those keys protected?", "the shared secret keys"),
    ("default", "Who must guard against the disclosure of private keys, according to FIPS 205?",
     "and why does that disclosure matter?", "the disclosure of private keys"),
])
def test_a_demonstrative_takes_the_noun_phrase_not_the_verb_before_it(agents, corpus, first, follow_up, wanted):
    """"those versions" after "Who may publish new versions of X?" is "the new versions of X", not
    "the publish new versions"."""
    from citerag.conversation.engine import make_decider

    agent = agents[corpus]
    decider = make_decider(agent.params, agent.store, dict(agent.store.bm25._bm25.idf))
    prev = {"user": first, "rewritten_query": first, "route": "RETRIEVE", "answer": "", "refused": False}
    q = decider.rewrite(follow_up, [prev]).query
    assert wanted in q and "establish shared" not in q and "publish new" not in q, q


@pytest.mark.parametrize("corpus, first, follow_up, wanted", [
    ("default", "How often will FIPS 204 be reviewed?", "and why that often?", "Why will FIPS 204 be reviewed"),
    ("tech-manuals", "How long does Gri's query command wait?", "why that long?", "Why does Gri's query command wait"),
])
def test_a_bare_question_word_with_a_degree_asks_the_same_question_anew(agents, corpus, first, follow_up, wanted):
    """"why that often?" after "How often will X be reviewed?" is "Why will X be reviewed?": the
    degree points back at the previous question's, which the new question word replaces whole."""
    from citerag.conversation.engine import make_decider

    agent = agents[corpus]
    decider = make_decider(agent.params, agent.store, dict(agent.store.bm25._bm25.idf))
    prev = {"user": first, "rewritten_query": first, "route": "RETRIEVE", "answer": "", "refused": False}
    q = decider.rewrite(follow_up, [prev]).query
    assert q.startswith(wanted), q


def test_a_thing_named_by_its_kind_that_no_document_names_is_refused(agents):
    """"xor" is in no document; the rest of the question ("Gri's rpn … operator yield for 3 and
    2") matched the page of binary operators well enough to pass the absent-word bar."""
    refused_noting(agents, "tech-manuals", "What does Gri's rpn xor operator yield for 3 and 2?",
                   "xor", reason="unknown_terms")
    answered(agents, "tech-manuals", "What does Gri's rpn sup operator pick?", "larger of two values")


def test_the_name_before_a_kind_noun():
    from citerag.answer.answerer import names_unwritten

    assert names_unwritten("What does the rpn xor operator yield for 3?", ["xor"]) == ["xor"]
    assert names_unwritten("Which value does the frobnicate parameter of KeyGen take?", ["frobnicate"]) == [
        "frobnicate"]
    # an absent word elsewhere in the question names no thing of a kind
    assert names_unwritten("Does the sup operator work on smartphones?", ["smartphones"]) == []


@pytest.mark.parametrize("question, doc, needs", [
    ("How does FIPS 204 define a fresh random value?", "NIST.FIPS.204", "A previously unused output"),
    ("How does SP 800-227's glossary define destroy?", "NIST.SP.800-227", "destroy"),
])
def test_a_definition_asked_of_a_named_document_quotes_its_own_glossary(agents, question, doc, needs):
    """Several documents define the same terms in their glossaries, in other words: the old
    answers quoted the first glossary row retrieved, FIPS 203's for a question about FIPS 204."""
    r = ask(agents, "default", question).answer
    assert not r.refused and needs in r.answer, (r.answer[:300], r.notes)
    assert {c["doc_id"] for c in r.citations} == {doc}, r.citations


@pytest.mark.parametrize("corpus, first, follow_up, wanted", [
    ("tech-manuals", "What happens when a user supplies the owner password of an encrypted PDF made with ReportLab?",
     "and with the user password?",
     "What happens when a user supplies the user password of an encrypted PDF made with ReportLab?"),
    # the sibling inside the phrase after the preposition: that phrase is swapped, as before
    ("default", "What must an implementation do with the decapsulation key of ML-KEM in SP 800-227?",
     "and with the encapsulation key?", "What must an implementation do with the encapsulation key in SP 800-227?"),
])
def test_a_prepositional_follow_up_naming_a_sibling_swaps_that_sibling(agents, corpus, first, follow_up, wanted):
    """"and with the user password?" after "… supplies the owner password of a PDF made with X?"
    names the sibling of "owner password": the old rewrite put it after "made with", the
    preposition the follow-up opens with."""
    from citerag.conversation.engine import make_decider

    agent = agents[corpus]
    decider = make_decider(agent.params, agent.store, dict(agent.store.bm25._bm25.idf))
    prev = {"user": first, "rewritten_query": first, "route": "RETRIEVE", "answer": "", "refused": False}
    assert decider.rewrite(follow_up, [prev]).query == wanted


@pytest.mark.parametrize("corpus, first, follow_up, wanted", [
    ("default", "Who wrote the paper on QC-MDPC decoders with several shades of gray cited in IR 8545?",
     "and in which year?", "In which year was the paper on QC-MDPC decoders with several shades of gray cited in "
                           "IR 8545 written?"),
    ("tech-manuals", "Who supplied the fix for draw arc in Gri?", "and in which version?",
     "In which version was the fix for draw arc in Gri supplied?"),
])
def test_a_circumstance_asked_after_who_did_it_asks_about_the_event(agents, corpus, first, follow_up, wanted):
    """"and in which year?" after "Who wrote X?" asks when X was written: the bare question word
    swapped in gave "When wrote X", and the fragment alone "in which year in DOC"."""
    from citerag.conversation.engine import make_decider
    from citerag.text.inflect import past_participle

    assert [past_participle(v) for v in ("wrote", "chose", "built", "designed", "went", "ran")] == [
        "written", "chosen", "built", "designed", "gone", "run"]
    agent = agents[corpus]
    decider = make_decider(agent.params, agent.store, dict(agent.store.bm25._bm25.idf))
    prev = {"user": first, "rewritten_query": first, "route": "RETRIEVE", "answer": "", "refused": False}
    assert decider.rewrite(follow_up, [prev]).query == wanted


def test_a_word_the_corpus_never_writes_before_an_ordinal_modifies_nothing():
    """"does Bob *put* first in …": "put" is absent from a corpus, but it is a verb, followed by an
    ordinal, not the kind of a noun; "a violin plot" still names a kind."""
    from citerag.answer.answerer import modifying

    assert modifying("Which string does Bob put first in the message?", ["put"]) == []
    assert modifying("Which option sets more margin in the box?", ["sets"]) == []
    assert modifying("Which command draws a violin plot?", ["violin"]) == ["violin"]


def test_an_absent_verb_before_an_ordinal_is_not_refused_as_a_kind(agents):
    r = ask(agents, "default", "Which constant string does Bob put first in MAC_Data, according to SP 800-227?")
    assert not r.answer.refused and "KC_1_E" in r.answer.answer, r.answer.notes


def test_a_numbered_document_before_the_asked_noun_modifies_it():
    """"Which DOC 12 algorithm performs …" asks for an algorithm: the document name had ended the
    phrase, leaving the question with no asked thing."""
    from citerag.answer.asked import asked_heads

    assert [h.word for h in asked_heads("Which DOC 12 algorithm performs the inverse of Pack?")] == ["algorithm"]
    assert [h.word for h in asked_heads("Which RFC 8446 extension carries the key share?")] == ["extension"]
    assert asked_heads("Which DOC 12 does X cite?") == ()


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "Which FIPS 205 algorithm generates a hypertree signature?", "ht_sign"),
    ("default", "Which FIPS 203 algorithm performs the inverse of BitsToBytes?", "BytesToBits"),
])
def test_an_algorithm_asked_for_by_what_it_does_is_named_by_its_title(agents, corpus, question, needs):
    """The description line under an algorithm's title ("Performs the inverse of X.") is restated
    under that title when the question asks which algorithm: the line alone names none."""
    answered(agents, corpus, question, needs)


def test_a_description_line_is_restated_under_its_algorithm_title():
    from citerag.answer.asked import asked_heads
    from citerag.answer.evidence import Evidence
    from citerag.answer.extractive import with_section
    from citerag.answer.units import Passage, units
    from citerag.core.types import Location

    ev = Evidence("c1", Location("D::p1::c1", "D", 1, 1), "Algorithm 7 PackBits(b)\nPacks a bit string into words.\nInput: bit string b.\n1: return w")
    us = units(ev)
    line = next(u for u in us if u.text.startswith("Packs"))
    p = with_section(Passage([line]), asked_heads("Which algorithm packs a bit string?"), (), {ev.key: ev.text})
    assert p.head.text.startswith("Algorithm 7 PackBits(b): Packs"), p.head.text
    same = with_section(Passage([line]), asked_heads("What does PackBits pack?"), (), {ev.key: ev.text})
    assert same.head.text.startswith("Packs")


def test_a_member_spaced_from_its_object_on_both_sides_of_the_dot_is_glued_back():
    """The extractor writes "KEMX . Encaps : On input …": the question's "KEMX.Encaps" was not
    found, and the sentence splitter cut the line in two. A member the document writes glued
    elsewhere, or after two or more objects, is glued back; a sentence ending on a name is not."""
    from citerag.build.clean import join_spaced_members

    text = ("- KEMX . Encaps : On input ek\n- PKE . Decrypt( p)\n- KD-PKE . Decrypt( p)\n"
            "the address ADRS . Output : x\nADRS . Output : y\nthe KDF . So we\nAB-KEM.Encaps runs")
    out = join_spaced_members([text])[0]
    assert "KEMX.Encaps :" in out and "PKE.Decrypt(" in out and "KD-PKE.Decrypt(" in out
    assert "ADRS . Output" in out and "KDF . So" in out
    assert join_spaced_members(["No members . Here at all."]) == ["No members . Here at all."]


@pytest.mark.parametrize("question, needs", [
    ("What does DONOTUSE.Encaps output in SP 800-227?", "K := s"),
    ("In which unit does XOF.Squeeze of FIPS 203 take its length?", "bytes"),
])
def test_a_member_name_written_spaced_in_the_pdf_is_found(agents, question, needs):
    answered(agents, "default", question, needs)


def test_a_count_the_question_states_and_the_answer_contradicts_is_reported():
    from citerag.answer.asked import contradicted_counts

    q = "Which five parameter sets does the scheme come with?"
    assert contradicted_counts(q, "The scheme is equipped with three parameter sets. [c1]") == [
        "five parameter sets (the answer states three)"]
    assert contradicted_counts("Which two hash functions does it use?", "It uses two hash functions. [c1]") == []
    assert contradicted_counts("Which two hash functions does it use?", "It uses SHA-256. [c1]") == []  # no count
    assert contradicted_counts("How many columns are there?", "There are two columns. [c1]") == []  # asked


@pytest.mark.parametrize("corpus, question", [
    ("default", "Which four parameter sets does ML-KEM come with in FIPS 203?"),
    ("tech-manuals", "Where does ReportLab place pie slice labels when sideLabels splits them into four columns?"),
])
def test_a_question_built_on_a_wrong_count_is_refused(agents, corpus, question):
    refused_noting(agents, corpus, question, "the answer states")


def test_a_question_with_the_right_count_is_answered(agents):
    answered(agents, "default", "Which three parameter sets does ML-KEM come with in FIPS 203?", "ML-KEM-512")


def test_a_short_sentence_stating_a_value_is_a_unit():
    """"X uses two parameters." and "Maximum score is 6 points." have four words: too short for a
    statement by word count, yet they state the value asked for. A four-word sentence with no
    value ("The star is a spacer.") still states too little to stand alone."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units
    from citerag.core.types import Location

    ev = Evidence("c1", Location("D::p1::c1", "D", 1, 1),
                  "KEMX uses two parameters. Maximum score is 6 points. The star is a spacer.")
    said = [u.text for u in units(ev)]
    assert "KEMX uses two parameters." in said and "Maximum score is 6 points." in said
    assert "The star is a spacer." not in said


def test_a_count_in_words_answers_a_how_many_question_only():
    from citerag.answer.asked import answer_types, type_match

    assert type_match(answer_types("How many parameters does KEMX use?"), "KEMX uses two parameters.") == 1.0
    # a cost is a number: "two methods" does not give one
    assert type_match(answer_types("How does the cost of method A compare?"), "There are two methods.") == 0.0


def test_a_count_in_words_counts_the_noun_it_stands_before():
    from citerag.answer.asked import asked_heads, unshown_quantities

    q = "How many students took the first exam?"
    # "one" counts subjects, "as many … as" compares: neither says how many students
    assert unshown_quantities(q, "Print one subject for all students. [c1]") == ["a count of students"]
    assert unshown_quantities(q, "Create as many students as you need. [c1]") == ["a count of students"]
    assert unshown_quantities(q, "Forty people took it, two students among them. [c1]") == []
    # the noun an auxiliary closes is counted; a degree word after it is not the noun
    assert asked_heads("How many gridding iterations do the authors suggest?")[0].word == "iterations"
    assert asked_heads("How many pages long is the guide?")[0].word == "pages"
    assert asked_heads("How many satellites use X?")[0].word == "satellites"


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "How many parameters does the WOTS+ scheme of FIPS 205 use?", "two parameters"),
    ("tech-manuals", "In AMC's questionmultx example, what is the maximum score of the open question?", "6 points"),
])
def test_a_value_stated_in_a_short_sentence_is_answered(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus, first, follow_up, wanted", [
    ("default", "Who wrote the paper on QC-MDPC decoders with several shades of gray cited in IR 8545?",
     "and where did it appear?", "the paper on QC-MDPC decoders with several shades of gray appear"),
    ("tech-manuals", "Who supplied the fix for draw arc in Gri?", "and where was it announced?",
     "where was the fix for draw arc in Gri announced"),
])
def test_it_after_who_did_it_is_the_whole_object_of_the_event(agents, corpus, first, follow_up, wanted):
    """"it" after "Who wrote the paper on X?" is the paper on X (its last noun phrase, "X", had
    been taken); a clause after it ("… cited in DOC") says where, as the scope does."""
    from citerag.conversation.engine import make_decider

    agent = agents[corpus]
    decider = make_decider(agent.params, agent.store, dict(agent.store.bm25._bm25.idf))
    prev = {"user": first, "rewritten_query": first, "route": "RETRIEVE", "answer": "", "refused": False}
    q = decider.rewrite(follow_up, [prev]).query
    assert wanted in q and "cited in IR 8545 appear" not in q, q


def test_a_kind_of_thing_asks_for_the_thing():
    from citerag.answer.asked import asked_heads

    assert [h.word for h in asked_heads("What kind of attacks does authentication prevent?")] == ["attacks"]
    assert [h.word for h in asked_heads("Which types of color names does the tool accept?")] == ["names"]


def test_a_version_is_stated_by_its_number():
    from citerag.answer.asked import CUES, asked_heads

    head = asked_heads("Which version of the submission appeared in 2022?")[0]
    assert head.type == "version"
    for said in ("Submission to the project, v.3.1.", "Fixed in 2.12.27.", "any later version"):
        assert CUES["version"].search(said), said
    assert not CUES["version"].search("The version field is 2 bytes long in 2022.")


@pytest.mark.parametrize("corpus, question", [
    ("tech-manuals", "Which version of the cleveref package does the AMC manual ask for?"),
    ("default", "Which version of the CAVP test suite does FIPS 204 require?"),
])
def test_a_version_no_cited_text_numbers_is_refused(agents, corpus, question):
    r = ask(agents, corpus, question).answer
    assert r.refused, r.answer[:300]


def test_a_step_and_the_shaded_command_under_it_are_one_passage():
    """A manual writes a step ("- convert the scans to images.") with its command in a shaded
    block below ("<mark>tool in.pdf out</mark>"): the block is code, and the passage of the step
    goes on to it. A statement in the third person ("It converts …") is no step."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import passages, units
    from citerag.core.types import Location

    ev = Evidence("c1", Location("D::p1::c1", "D", 1, 1),
                  "- convert the scans to images.\n\n<mark>tool in.pdf out</mark>\n\n"
                  "It converts every page of a file.\n\n<mark>tool -all in.pdf</mark>")
    us = units(ev)
    assert [u.kind for u in us] == ["sentence", "code", "sentence", "code"]
    ps = passages(us)
    assert ps[0].text == "convert the scans to images. <mark>tool in.pdf out</mark>"
    assert ps[2].text == "It converts every page of a file."


def test_a_step_is_answered_with_its_command(agents):
    answered(agents, "tech-manuals", "How are pdf scans converted to pbm images when AMC sheets are printed 2 pages "
                                     "per sheet?", "pdfimages")


def test_a_title_of_a_cited_work_is_stated_by_its_reference_entry():
    """"What is the title of X" is answered by X's entry in a reference list, which never says
    "title"; a text naming titles ("draw title …") still states one by the word."""
    from citerag.answer.asked import asked_heads, head_stated

    head = asked_heads("What is the title of NIST IR 9999 in the references?")[0]
    assert head.type == "title"
    entry = "[12] Lund A, Okafor B (2021) A Survey of Widgets. NIST IR 9999. [c1]"
    assert head_stated(head, entry, entry)
    assert head_stated(head, "draw title \"Example\" writes a title above the plot.", "Example [c1]")
    assert not head_stated(head, "NIST IR 9999 is a report.", "NIST IR 9999 is a report. [c1]")


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "Under which title does IR 8547 list NIST IR 8528 among its references?", "Status Report on the First"),
])
def test_a_title_asked_of_a_reference_list_is_answered(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


def test_a_letter_naming_a_variant_must_be_written_alone():
    """"the z dimension" where a text speaks of "x and y dimensions": the letter names a variant
    the text never names; "z" inside a word, a call ("z(") or a name ("\\z") is not it."""
    from citerag.answer.asked import letter_modifiers, letter_written

    assert letter_modifiers("How does the scale stretch the z dimension?") == ("z",)
    assert letter_modifiers("What is Bob's key, and a short one?") == ()  # no possessive "s", no article
    assert not letter_written("z", "It stretches the x and y dimensions; zoom(1) and \\z are calls.")
    assert letter_written("z", "The value of z is rounded.")


def test_a_variant_named_by_a_letter_no_cited_text_writes_is_refused(agents):
    refused_noting(agents, "tech-manuals", "How does ReportLab's canvas.scale stretch the z dimension?",
                   "a variant the evidence never names")
    answered(agents, "tech-manuals", "How does ReportLab's canvas.scale stretch the y dimension?", "dx , dy")


def test_a_name_written_as_code_is_a_focus_term():
    """"setHorizScale" names one method: a passage about another does not answer for it. A name in
    upper camel case ("LaTeX", "ReportLab") names a tool or a class, which cited passages may leave
    to their heading."""
    from citerag.answer.asked import focus_terms

    found = focus_terms("Which web browsers ignore ReportLab's setHorizScale in LaTeX?", (), ())
    assert "setHorizScale" in found and "LaTeX" not in found and "ReportLab" not in found
    # a command-line option written with its dashes is one name too; a hyphenated word is not
    assert focus_terms("Can it parse long options like --verbose?", (), ()) == ("--verbose",)
    assert focus_terms("What does the -superuser option do?", (), ()) == ("-superuser",)
    assert focus_terms("How is x-y data read?", (), ()) == ()


def test_a_question_about_a_named_method_no_cited_text_writes_is_refused(agents):
    refused_noting(agents, "tech-manuals", "Which web browsers ignore ReportLab's setHorizScale?",
                   "never states: setHorizScale")
    answered(agents, "tech-manuals", "What does ReportLab's setDash do?", "dots or dashes")
    # an option no cited passage writes ("--verbose"), though the corpus knows "verbose" elsewhere
    refused_noting(agents, "tech-manuals", "Can command-line arguments parse long options like --verbose in Gri?",
                   "never states: --verbose")


@pytest.mark.parametrize("corpus, first, follow_up, wanted", [
    ("default", "What can a key combiner be used for?", "and who designed it?", "key combiner"),
    ("tech-manuals", "What is a synonym used for in Gri?", "and how long can it be?", "synonym"),
    # a particle after the verb's object: the object ("it" had become "down", "off")
    ("tech-manuals", "How can I narrow the help down in Gri?", "and what does it list?", "help"),
    ("default", "How do I turn the hedged variant off?", "and what does it protect against?", "hedged variant"),
    # two verbs at the end: the thing is their subject ("it" had become "produce")
    ("default", "What does the function J take and produce in FIPS 203?", "and how is it instantiated?", "J"),
    ("tech-manuals", "What does Gri's rpn operator argv take and return?", "and what if it is out of range?", "argv"),
])
def test_it_after_a_question_ending_on_a_stranded_preposition_is_its_subject(agents, corpus, first, follow_up,
                                                                            wanted):
    """"… can be used for?": the question word stands for the object of "for", and "used" is the
    verb, not the thing the next "it" means (it had become "who designed used?")."""
    from citerag.conversation.engine import make_decider

    agent = agents[corpus]
    decider = make_decider(agent.params, agent.store, dict(agent.store.bm25._bm25.idf))
    prev = {"user": first, "rewritten_query": first, "route": "RETRIEVE", "answer": "", "refused": False}
    rw = decider.rewrite(follow_up, [prev])
    assert rw.carried == [wanted], rw


def test_a_value_is_not_shown_by_the_digits_of_a_citation_or_a_reference_mark():
    """"What is the threshold value of X?" answered by "X sets a high threshold [6]. [c1]" shows no
    value: the digits are a reference mark and a citation."""
    from citerag.answer.asked import Head, head_stated

    value = Head("value", "number", ("threshold",))
    assert not head_stated(value, "the threshold value", "The decoder sets a high threshold [6]. [c1]")
    assert not head_stated(value, "", "It lowers the threshold [10, 4]. [c2]")
    assert head_stated(value, "", "The threshold is set to 0.5 at first. [c1]")
    assert head_stated(value, "", "Its default value is 'middle'. [c1]")  # a name the answer calls a value


def test_a_number_is_of_the_kind_its_question_names():
    """"Which patent numbers …" asks for numbers of patents: an answer showing some number (a
    table's, an iteration count) from evidence that never speaks of patents does not answer. A
    size or a length is left to its number: tables abbreviate what it is the size of."""
    from citerag.answer.asked import Head, head_stated

    patent = Head("numbers", "number", ("patent",))
    assert not head_stated(patent, "Limit the number of iterations to Table 3.", "Limit iterations to Table 3. [c1]")
    assert head_stated(patent, "It is covered by patent 7,123,456.", "It is covered by patent 7,123,456. [c1]")
    size = Head("size", "number", ("signature",))
    assert head_stated(size, "| sig | 7856 |", "| sig | 7856 | [c1]")


@pytest.mark.parametrize("corpus, question", [
    ("default", "Which patent numbers cover the algorithm in FIPS 204?"),
    ("tech-manuals", "Which port number does Gri's open command use for a URL?"),
])
def test_a_number_of_a_kind_no_cited_passage_names_is_refused(agents, corpus, question):
    r = ask(agents, corpus, question).answer
    assert r.refused and r.refusal_reason == "focus_not_stated", r.answer[:300]


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "What is Section 2.3 of FIPS 203 about?", "2.3 Mathematical Symbols"),
    ("default", "What is Section 4.3 of FIPS 205 about?", "4.3 Member Functions"),
    ("tech-manuals", "What does section 9.3.46 of the Gri manual cover?", "9.3.46 source"),
    ("tech-manuals", "What is section 4.3 of the AMC manual about?", "4.3 Questions"),
])
def test_what_a_named_section_is_about_is_answered_by_its_title_and_opening(agents, corpus, question, needs):
    """The old answers quoted a sentence elsewhere that mentions the section ("(see Section 2.3)",
    "the member functions (Section 4.3) are as shown in Table 3", "use the source command instead
    (Section 9.3.46 …)"); for the Gri question the section's own passage ranked 18th."""
    r = ask(agents, corpus, question)
    assert not r.answer.refused, r.answer.notes
    assert r.answer.answer.startswith(needs), r.answer.answer[:200]
    assert all(c["chunk_id"] == r.answer.citations[0]["chunk_id"] for c in r.answer.citations)


def test_a_section_is_named_by_its_number_and_its_titles_open_with_it():
    from citerag.answer.asked import focus_terms
    from citerag.retrieval.query import asked_section, in_section

    assert asked_section("What is Section 2.3 of DOC 9 about?") == "section 2.3"
    assert asked_section("What does appendix B cover?") == "appendix b"
    assert asked_section("What is in Section 4?") == "section 4"
    assert asked_section("What does Section 3 say about keys?") == "" == asked_section("Which section covers X?")
    assert in_section("section 2.3", ["2. Terms", "2.3 Mathematical Symbols"])
    assert in_section("section 4.4", ["4.4. Key Confirmation"]) and in_section("appendix b", ["Appendix B. Notes"])
    assert not in_section("section 2.3", ["2.3.1 Other"]) and not in_section("section 2", ["12 Two"])
    # "Section" before its number is no name the evidence must write; the number is the focus
    assert focus_terms("What is Section 2.3 of DOC 9 about?", (), ("DOC 9",)) == ("2.3",)


@pytest.mark.parametrize("corpus, first, follow_up, needs", [
    ("default", "What does code signing involve, according to IR 8547?",
     "and how long have past cryptographic migrations taken?", "over a decade"),
    ("tech-manuals", "How do I build Gri on a Mac with MacPorts?", "and how long does the build take?",
     "several minutes"),
])
def test_a_duration_counted_in_words_answers_how_long(agents, tmp_path, corpus, first, follow_up, needs):
    """Both follow-ups were refused: the validator wanted a digit for "how long" (off_topic), the
    focus check a duration written with one."""
    eng = chat_engine(agents, corpus, tmp_path)
    eng.turn("t", first)
    r = eng.turn("t", follow_up)
    assert not r.refused and needs in r.answer, (r.refusal_reason, r.answer[:300])


def test_a_duration_in_words_is_a_duration_and_a_second_is_an_ordinal():
    from citerag.answer.asked import CUES

    assert CUES["duration"].search("it has taken over a decade") and CUES["duration"].search("two years")
    assert not CUES["duration"].search("a second column from a second file")


def test_an_attribute_asked_for_is_named_by_its_code_name(agents):
    """"minimumTickSpacing: This is used when valueStep is set to None" names the attribute without
    the word; and the question's "valueStep" is said by the answer's camelCase "valueStep"."""
    answered(agents, "tech-manuals", "Which attribute sets how close together tick marks of a ReportLab value axis "
                                     "may be when valueStep is None?", "minimumTickSpacing")


def test_a_footnote_mark_is_no_count_and_such_is_no_noun():
    from citerag.answer.asked import asked_heads, unshown_quantities, without_marks

    assert without_marks("> 2The lab will run tests. [c1]").strip() == "The lab will run tests."
    assert asked_heads("how many such tests does the lab run?")[0].word == "tests"
    assert unshown_quantities("how many such tests does the lab run?", "> 1The lab runs random tests. [c1]")
    assert not unshown_quantities("how many such tests does the lab run?", "The lab runs 12 tests. [c1]")


def test_a_count_a_footnote_mark_stands_beside_is_refused(agents, tmp_path):
    """"how many such tests does it run?" was answered with the footnote "> 1The CMVP will perform
    random input-output tests …": its mark read as a count, and "such" hid the counted noun."""
    eng = chat_engine(agents, "default", tmp_path)
    eng.turn("t", "What does requirement RM1 of SP 800-227 say implementations must do?")
    eng.turn("t", "and how will the CMVP check that?")
    r = eng.turn("t", "how many such tests does it run?")
    assert r.refused, r.answer[:300]


def test_a_follow_up_word_the_light_stemmer_cuts_oddly_is_written(agents, tmp_path):
    """"accesses" is the token "accesse", which no document writes ("access" is): the follow-up was
    refused off_topic as asking about a word the documents never write."""
    eng = chat_engine(agents, "tech-manuals", tmp_path)
    eng.turn("t", "What does Gri's rpn argc operator return?")
    r = eng.turn("t", "and what results if argv accesses beyond the supplied arguments?")
    assert not r.refused and "single blank character" in r.answer, (r.refusal_reason, r.answer[:300])


def test_a_kind_is_named_by_its_other_names():
    from citerag.answer.asked import Head, head_stated, kin

    assert kin("function")[0] == "function" and "command" in kin("function") and "algorithm" in kin("Functions")
    assert kin("language") == ("language", "languages", "script", "scripts")
    assert kin("fee") == ("fee",)
    text = "This is patterned after the unix command getenv. [c1]"
    assert head_stated(Head("function", "code"), text, text)
    assert not head_stated(Head("license"), text, text)


def test_a_kind_of_thing_no_cited_text_names_is_still_refused(agents):
    """Guard: the kin of "command" are no licence to answer with any passage on the topic."""
    assert ask(agents, "tech-manuals", "Which AMC command prints the answer sheets on A3 paper?").answer.refused


def test_a_package_is_named_by_the_line_loading_it():
    from citerag.answer.asked import CUES, Head, asked_heads, head_stated

    assert asked_heads("Which package must users install?")[0] == Head("package", "package")
    for line in ("import numpy as np", "<mark>from reportlab.lib import colors</mark>", "sudo apt-get install msmtp",
                 "pip install pypdf", "\\usepackage{amsmath}", ">>> import sympy"):
        assert CUES["package"].search(line), line
    # prose about importing data names no package
    assert not CUES["package"].search("Data formats, import, and export. A module may import or export keys.")
    text = "<mark>sudo apt-get install msmtp</mark>. [c1]"
    assert head_stated(Head("package", "package"), text, text)
    assert not head_stated(Head("package", "package"), "Configure the account first. [c1]", "Configure it. [c1]")


@pytest.mark.parametrize("corpus, first, follow_up, wanted", [
    # a passive question's subject, not the complement after its participle
    ("default", "When is key derivation needed for a KEM, according to SP 800-227?",
     "and which publication specifies it?", "key derivation"),
    ("tech-manuals", "How is the grayscale mapping created from a histogram in Gri?", "and which method does it use?",
     "grayscale mapping"),
    # a document named by the scheme it specifies, narrowed by the question
    ("default", "What input checks does ML-KEM decapsulation require?", "and what happens if the hash check fails?",
     "ML-KEM decapsulation"),
])
def test_a_follow_up_keeps_the_earlier_questions_own_topic(agents, tmp_path, corpus, first, follow_up, wanted):
    """"it" after "When is key derivation needed for a KEM?" was read as the KEM, after "How is the
    grayscale mapping created from a histogram?" as the histogram; the hash check after "…
    ML-KEM decapsulation require?" was looked for in all of ML-KEM."""
    eng = chat_engine(agents, corpus, tmp_path)
    eng.turn("t", first)
    r = eng.turn("t", follow_up)
    assert wanted in r.rewritten_query, r.rewritten_query


def test_a_passive_questions_subject_ends_at_its_participle():
    from citerag.conversation.decisions import _passive_subject_end

    toks = "When is key derivation needed for a KEM".split()
    assert toks[:_passive_subject_end(toks)] == ["When", "is", "key", "derivation"]
    assert _passive_subject_end("Which value is returned by the function".split()) is None
    assert _passive_subject_end("Where is the arrow head placed".split()) is None
    assert _passive_subject_end("What does the seed expand into".split()) is None
    assert _passive_subject_end("What are organizations encouraged to do during comment periods".split()) is None


def test_a_version_number_is_looked_for_whole():
    from citerag.retrieval.query import version_numbers

    assert version_numbers("Which bug did Gri version 2.12.3 fix?") == ["2.12.3"]
    assert version_numbers("What is new in v1.6?") == ["1.6"]
    assert version_numbers("What is Section 9.3.46 about?") == []
    # two parts number a section or a round as often as a release
    assert version_numbers("How did tr change between Round 3 and version 3.1?") == []


@pytest.mark.parametrize("corpus, question, needs", [
    # a kind the text calls by another name: a command, a script, (a table of) algorithms
    ("tech-manuals", "Which unix function is Gri's get env command patterned after?", "getenv"),
    ("tech-manuals", "Which scripting language does Gri's running-mean skyline example call to bin the data?", "perl"),
    ("default", "With which hash functions does IR 8547 list LMS and HSS at 192 bits of security strength?",
     "SHA-256/192"),
    # a package named by the line installing it, never called a package
    ("tech-manuals", "Which package must Linux users install to configure AMC to use GMAIL?", "msmtp"),
    # a compound the corpus writes apart ("byte arrays") or never hyphenated: weighed as the rarest
    # word, it sank the answering passage below a relevant hit (budget_exhausted, insufficient_evidence)
    ("default", "Is the byte-array format used by FIPS validation tests required for internal storage, according to "
                "SP 800-227?", "not a requirement for internal storage"),
    ("tech-manuals", "Which command should be used for all choices when post-correcting in AMC?", "wrongchoice"),
    # a version number looked for whole: neighbouring releases share its pieces "2", "12", "5"
    ("tech-manuals", "Which bug did Gri version 2.2.5 fix?", "negative exponent"),
    ("tech-manuals", "Who provided the patch applied in Gri version 2.12.5?", "Kawamura Masao"),
])
def test_an_asked_thing_the_corpus_words_otherwise_is_answered(agents, corpus, question, needs):
    """The question's words and the corpus's differ ("function" for a command, "package" for an
    install line, "byte-array" for "byte arrays", "2.2.5" for its pieces): each was refused."""
    answered(agents, corpus, question, needs)


def test_a_short_first_sentence_under_a_title_is_a_unit():
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units

    ev = Evidence("k", None, "9.1 Version 4.0.1 [2001 May 3]\n\nFirst signed release. Builds exist for two "
                             "platforms and more.\n\nA note.", "Log > 9.1 Version 4.0.1 [2001 May 3]")
    said = [u.text for u in units(ev)]
    assert said[0] == "First signed release."
    assert "A note." not in said  # a short line that opens no section states nothing


def test_a_title_with_a_version_number_opens_a_section_inside_a_chunk():
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units

    ev = Evidence("k", None, "9.1 Version 4.0.2 [2001 May 19]\n\n- Fix bug #12 (the dash was lost on output)\n\n"
                             "9.2 Version 4.0.1 [2001 May 10]\n\n- Fix bug #11 (the title was drawn twice)",
                  "Log > 9.1 Version 4.0.2 [2001 May 19]")
    said = {u.text: u.heading.split(" > ")[-1] for u in units(ev)}
    assert said["Fix bug #11 (the title was drawn twice)"] == "9.2 Version 4.0.1 [2001 May 10]"
    assert "9.2 Version 4.0.1 [2001 May 10]" not in said  # a title, not a sentence


def test_a_dated_version_title_states_a_release():
    from citerag.answer.asked import action_stated

    assert action_stated("released", "", "9.1 Version 4.0.2 [2001 May 19]: Fix bug #12. [c1]")
    assert not action_stated("released", "", "Fix bug #12 of version 4.0.2 (2001). [c1]")


@pytest.mark.parametrize("corpus, question, needs", [
    # a change log's entry states its version in the title above it, in a fragment of three words
    ("tech-manuals", "Which version of Gri was the first debian release?", "2.2.0"),
    # … and its date: the entries under it say nothing of when
    ("tech-manuals", "When was Gri version 2.10.0 released?", "2002 May 20"),
    ("tech-manuals", "When was Gri version 2.6.2 released?", "2001 May 19"),
    ("tech-manuals", "Which Gri version was released on Dan's birthday?", "2.6.4"),
    # an algorithm's title the extraction ran into its description line ("Algorithm 42 NTT^-1(ŵ)
    # Computes the inverse of the NTT."): the description was never a candidate
    ("default", "Which algorithm computes the inverse of the NTT in FIPS 204?", "Algorithm 42"),
    # a bug asked for by what it "concerned": a change log never writes the verb
    ("tech-manuals", "Which Gri 2.10.0 bug fix concerned the bounding box?", "546109"),
    # an edition written abbreviated in a reference entry ("3rd Ed.")
    ("default", "Which edition of Introduction to Modern Cryptography does FIPS 203 cite?", "3rd Ed"),
])
def test_an_answer_its_title_or_form_completes_is_answered(agents, corpus, question, needs):
    """The passage that answers leans on its section's or algorithm's title (the asked version,
    date or name) or states the asked thing by its form: each was refused or answered elsewhere."""
    answered(agents, corpus, question, needs)


def test_an_algorithm_title_run_together_with_its_description_is_split():
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units

    ev = Evidence("k", None, "Algorithm 9 Unfold(ŵ) Computes the inverse of the fold. Input : w. Output : v.\n"
                             "1: return v", "7.5 Folding")
    us = units(ev)
    assert [(u.kind, u.text) for u in us[:2]] == [("title", "Algorithm 9 Unfold(ŵ)"),
                                                  ("sentence", "Computes the inverse of the fold.")]
    assert us[1].group == "Algorithm 9 Unfold(ŵ)"
    # the steps are read under the whole line, as before
    assert us[-1].kind == "step" and us[-1].group.endswith("Output : v.")
    # a title alone on its line is left whole
    alone = units(Evidence("k", None, "Algorithm 9 Unfold(ŵ)\nComputes the inverse of the fold.", "7.5 Folding"))
    assert alone[0].text == "Algorithm 9 Unfold(ŵ)" and alone[1].group == "Algorithm 9 Unfold(ŵ)"


def test_a_relation_verb_is_not_an_asked_event():
    from citerag.answer.asked import asked_actions

    # "which bug concerned X" asks for the bug about X; the change log never says "concerned"
    assert asked_actions("Which Gri bug concerned the documentation of set path to?") == ()
    assert asked_actions("Which release added X?") == ("added",)


def test_an_edition_is_stated_by_its_abbreviation():
    from citerag.answer.asked import asked_heads, head_stated

    head = asked_heads("Which edition of Introduction to Widgets does DOC 1 cite?")[0]
    assert head_stated(head, "", "[13] Lund A (2020) Introduction to Widgets (Press), 3rd Ed. [c1]")
    assert not head_stated(head, "", "[13] Lund A (2020) Introduction to Widgets, eds Kalai Y. [c1]")


@pytest.mark.parametrize("line, entry", [
    ("4.3 The Wid | get Transform | 24", True),                      # a title's word broken across cells
    ("1.1 | Purpo | se and Scope . . . . . . . | . . . . . . 1", True),  # dot leaders in cells of their own
    ("2.2.1.Security . . . . . . . . . | . . . 4", True),             # no space after the label
    ("3.2.11Widget setup . . . . . . . . | . . . . 38", True),       # … nor after a numeric one
    ("2.6.1Beta release 3", False),                                  # no leaders, no page cell
    ("2.1.1. Digital Widget Algorithms .................... 3", True),
    ("3 | Invoking the Tool_. . . . . . . . . . ._ 5", True),
    ("Table 2 | Widget parameter sets . . . . . . . . . | 43", True),
    ("A.1 Examples . . . . . . 55", True),
    ("Appen | dix B — Widget Loop Bounds | 51", True),                # the kind word broken, a dash
    ("4.3 The Widget Transform . . . 24. [c1]", True),               # as an answer quotes it
    ("WG-KX-512 | 2 | 128", False),                                  # a data table's rows
    ("2 | 128 bits | 3", False),
    ("The widget is 24", False),
])
def test_a_contents_entry_is_recognised_by_its_shape(line, entry):
    from citerag.answer.asked import CONTENTS_ROW

    assert bool(CONTENTS_ROW.search(line)) is entry


def test_a_contents_list_is_read_only_for_a_page_question():
    from citerag.answer.asked import mended_contents
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units

    ev = Evidence("k", None, "Contents\n\n4.2 Sampling . . . . . . . 22\n4.3 The Wid | get Transform | 24\n"
                             "4.3.1 Multiplication . . . . . . . 27", "Contents")
    assert not any(u.kind == "contents" for u in units(ev))  # a contents list states nothing else
    listed = [u.text for u in units(ev, contents=True) if u.kind == "contents"]
    assert listed == ["4.2 Sampling … 22", "4.3 The Wid | get Transform | 24", "4.3.1 Multiplication … 27"]
    # a word the layout broke across cells is stated, for the focus checks, joined
    assert "4.3 The Widget Transform | 24" in mended_contents(ev.text).split("\n")
    # "on which page" asks for a contents entry; "which web page" for an address
    assert answer_types("On which page does Section 4.3 start in DOC 1?") == ("page",)
    assert asked_heads("On which page is Table 2 listed?")[0].type == "page"
    assert asked_heads("Which web page does DOC 1 point to?")[0].type == ""
    assert "page" not in answer_types("What page size does the canvas use?")


@pytest.mark.parametrize("corpus, question, needs, page", [
    # a section's title broken across the contents table's cells ("The Nui | mber-Theoretic")
    ("default", "On which page does Section 4.3, The Number-Theoretic Transform, start in FIPS 203?", "24", 7),
    # a list of tables (retrieval found it, but the evidence budget had dropped it)
    ("default", "On which page of FIPS 205 is Table 2, the SLH-DSA parameter sets, listed?", "43", 9),
    # a manual's contents, by a numbered version title
    ("tech-manuals", "On which page of the Gri manual is Version 2.2.0 listed in the contents?", "216", None),
    # a later part asking the page of the section an earlier part answered with ("5.4.11Code acquisition")
    ("tech-manuals", "Which section of the AMC manual covers code acquisition, and on which page does it start?",
     "38", None),
])
def test_on_which_page_is_answered_from_the_contents_list(agents, corpus, question, needs, page):
    r = ask(agents, corpus, question)
    assert not r.answer.refused, r.answer.notes
    assert needs in r.answer.answer
    assert page is None or any(c["start_page"] == page for c in r.answer.citations), r.answer.citations


def test_a_page_question_on_something_no_contents_list_names_is_refused(agents):
    r = ask(agents, "default", "On which page does FIPS 205's section on GPU acceleration start?")
    assert r.answer.refused, r.answer.answer


def test_the_contents_lookup_can_be_switched_off(agents):
    """`agent.contents_chunks: 0` is the ablation: the contents list is then not read, and the
    question that only it answers is refused."""
    from citerag.agent.workflow import Agent

    agent = agents["default"]
    off = Agent(agent.store, agent.params.with_overrides({"agent.contents_chunks": 0}))
    r = off.run("On which page does Section 4.3, The Number-Theoretic Transform, start in FIPS 203?")
    assert r.answer.refused and not any(ev.get("contents_added") for ev in r.trace)


def test_what_an_acronym_is_is_more_than_what_it_stands_for(agents):
    """"What is HQC?" was answered by the acronym list's row alone ("HQC: Hamming Quasi-Cyclic."):
    the letters spelled out, not what the thing is. The row stays first, and the passage saying
    what it is follows; "what does HQC stand for?" keeps the row alone."""
    what = ask(agents, "default", "What is HQC?").answer
    assert not what.refused and what.answer.startswith("HQC: Hamming Quasi-Cyclic.")
    assert "quasi-cyclic codes" in what.answer
    stands = ask(agents, "default", "What does HQC stand for?").answer
    assert stands.answer.startswith("HQC: Hamming Quasi-Cyclic.") and "\n" not in stands.answer.strip()


def test_contents_entries_are_found_line_by_line():
    """The lookup and the focus check read a text's entries through one function, which checks a
    line's marks before the full pattern (the pattern alone took 56 ms per answer on prose)."""
    from citerag.answer.asked import contents_entries

    text = ("Widgets are described in Section 4.3 on page 24.\n4.3 The Widget Transform . . . . 24\n"
            "Table 2 | Widget sizes | 43\nSee the table below for 3 sizes.\n4.4 | Gadgets … 27 . [c1]")
    assert contents_entries(text) == ["4.3 The Widget Transform . . . . 24", "Table 2 | Widget sizes | 43",
                                      "4.4 | Gadgets … 27 . [c1]"]


def test_a_bare_one_stands_for_the_earlier_noun():
    """"how do I use one?" after "What do X's alias synonyms store?" asks how to use an alias
    synonym; the rewrite left "one" in place, and the follow-up retrieved on "use" alone."""
    from citerag.conversation.decisions import bare_one_noun, name_bare_one

    assert name_bare_one("how do I use one", "alias synonyms") == "how do I use an alias synonym"
    assert name_bare_one("which standards specify approved ones", "hash function") == \
        "which standards specify approved hash functions"
    assert name_bare_one("how many rounds can one require", "key-establishment scheme") == \
        "how many rounds can a key-establishment scheme require"
    assert name_bare_one("how do I write my own one", "Flowable") == "how do I write my own Flowable"
    for kept in ("which one is the smallest", "is one of them faster", "does it use one key",
                 "what if there is more than one", "what happens if the user one is empty",
                 "is there no one", "and the second one", "one or more of them"):
        assert name_bare_one(kept, "alias synonyms") == kept
    assert name_bare_one("how do I use one", None) == "how do I use one"
    # the noun: a defined term, a how-to question's object, a noun phrase of the question
    assert bare_one_noun("How does the report define a hash function?", "hash") == "hash function"
    assert bare_one_noun("How do I draw contours in the tool?", "draw contours") == "contours"
    assert bare_one_noun("What do the tool's alias synonyms store?", "alias synonyms") == "alias synonyms"
    assert bare_one_noun("What are the tool's new commands a little like?", "like") is None
    assert bare_one_noun("What are drawings made up of?", "made") is None


@pytest.mark.parametrize("corpus, first, follow_up, wanted, needs", [
    ("default", "How does FIPS 203 define a decapsulation key?", "and which algorithm generates one?",
     "decapsulation key", "KeyGen"),
    ("tech-manuals", "What are Gri's alias synonyms?", "and how do I make one?", "alias synonym", "alias"),
])
def test_a_follow_up_asking_about_one_is_answered_about_the_earlier_noun(agents, tmp_path, corpus, first, follow_up,
                                                                         wanted, needs):
    eng = chat_engine(agents, corpus, tmp_path)
    eng.turn("t", first)
    r = eng.turn("t", follow_up)
    assert wanted in r.rewritten_query, r.rewritten_query
    assert not r.refused and needs in r.answer, (r.refusal_reason, r.answer[:300])


def test_a_chapter_question_reads_the_chapters_entries():
    """"the chapter on installing X" was answered by a subsection's entry ("12.3 Installing
    x-mode.el … 194") holding as many of its words as the chapter's ("14 Installing X … 219")."""
    from citerag.answer.asked import at_asked_level

    entries = ["13.2.1.3 Bug Fixes_. . . . . . . ._ 216", "15 Bugs_. . . . . . . . ._ 225", "15.1 Known bugs . . . 225",
               "| 7 | Image Plots . . . . 29", "Chapter 3 Usage . . . 12"]
    assert at_asked_level("On which page does the chapter on bugs start?", entries) == [
        "15 Bugs_. . . . . . . . ._ 225", "| 7 | Image Plots . . . . 29", "Chapter 3 Usage . . . 12"]
    assert at_asked_level("On which page does the section on bugs start?", entries) == entries
    assert at_asked_level("On which page does the chapter on bugs start?", entries[:1]) == []


@pytest.mark.parametrize("question, needs", [
    ("On which page of the Gri manual does the chapter on installing Gri start?", "219"),
    ("On which page of the Gri manual does the chapter about bugs start?", "225"),
])
def test_the_page_of_a_chapter_is_its_entrys(agents, question, needs):
    answered(agents, "tech-manuals", question, needs)


def test_the_one_on_another_topic_swaps_the_topic_after_its_article(agents, tmp_path):
    """"and the one on acknowledgments?" after "… does the chapter on *the* license start?" was
    rewritten by the template ("What is the one on acknowledgments of start …?"): the topic after
    the preposition opened with an article, and only a topic without one was swapped."""
    eng = chat_engine(agents, "tech-manuals", tmp_path)
    eng.turn("t", "On which page of the Gri manual does the chapter on the license start?")
    r = eng.turn("t", "and the one on acknowledgments?")
    assert r.rewritten_query == "On which page of the Gri manual does the chapter on acknowledgments start?"
    assert not r.refused and "241" in r.answer, (r.refusal_reason, r.answer)
    r = eng.turn("t", "and the chapter on the test suite?")
    assert r.rewritten_query == "On which page of the Gri manual does the chapter on the test suite start?"
    assert not r.refused and "231" in r.answer, (r.refusal_reason, r.answer)


def test_kept_to_a_minimum_asks_for_no_limit():
    """"How can X be kept to a minimum?" asks how, not for a minimum's value: refused because no
    cited sentence stated a limit."""
    from citerag.answer.asked import unshown_quantities

    said = "These operations are expensive; their use can be minimized by caching. [c1]"
    assert unshown_quantities("How can the expensive operations be kept to a minimum?", said) == []
    assert unshown_quantities("What is the minimum number of expensive operations?", said) == [
        "a limit (maximum or minimum)"]
    assert "number" in answer_types("What is the maximum length of the context string?")


def test_a_call_states_its_arguments():
    """"Which arguments does f take?" is answered by "f(x_cen, y_cen, r)", which never says
    "arguments"; a call with no list, or prose, does not state them."""
    h = Head("arguments")
    assert head_stated(h, "", "pathobject.circle(x_cen, y_cen, r). [c1]")
    assert head_stated(h, "", "canvas.setFont('Helvetica', 14) sets it. [c1]")
    assert not head_stated(h, "", "The circle method draws a circle. [c1]")
    assert not head_stated(h, "", "Call canvas.showPage() at the end. [c1]")


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "How does FIPS 204 suggest keeping the expensive mod q operations to a minimum?", "Montgomery"),
    ("tech-manuals", "Which arguments does ReportLab's pathobject.ellipse take?", "x, y, width, height"),
])
def test_questions_of_these_forms_are_answered(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


def test_an_entry_of_the_asked_kind():
    """A section's question reads the sections' entries, a table's the tables' (the word broken
    by the layout too): the list of tables' "Table 1 | Member functions for addresses" answered
    "which section covers addresses?" when section questions read every list."""
    from citerag.answer.asked import at_asked_level, reads_contents

    entries = ["4.2 Addresses . . . 10", "Table 1 | Member functions for addresses … 14", "T able 7: Hash functions … 16",
               "Figure 2. Address format . . . 11"]
    assert at_asked_level("Which section of the standard covers addresses?", entries) == entries[:1]
    assert at_asked_level("On which page is the table of hash functions?", entries) == entries[1:3]
    assert at_asked_level("On which page does the section on sampling algorithms start?", entries) == entries[:1]
    assert at_asked_level("On which page does it start?", entries) == entries
    assert reads_contents("Which chapter of the manual covers installation?")
    assert reads_contents("On which page is the table of hash functions?")
    assert not reads_contents("What does the installation chapter say about compilers?")


@pytest.mark.parametrize("corpus, question, needs", [
    ("tech-manuals", "Which chapter of the Gri manual covers editing Gri files in Emacs?", "189"),
    ("tech-manuals", "Which chapter of the Gri manual covers bugs?", "15 Bugs"),
    ("default", "Which section of FIPS 203 specifies the number-theoretic transform?", "4.3"),
])
def test_which_section_covers_x_reads_the_contents_list_too(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus, first, follow_up, wanted", [
    # a member named with its kind, after a question naming a member by a dotted name
    ("default", "What does ML-KEM.Encaps output?", "and the Decaps function?", "What does ML-KEM.Decaps output?"),
    ("tech-manuals", "What does ReportLab's pathobject.lineTo do?", "and the moveTo method?",
     "What does ReportLab's pathobject.moveTo do?"),
    ("tech-manuals", "What does ReportLab's pathobject.lineTo method do?", "and the moveTo method?",
     "What does ReportLab's pathobject.moveTo method do?"),
    # the words the new phrase shares with the old one are written once
    ("tech-manuals", "What does Gri's set page landscape command do?", "and the set page factor command?",
     "What does Gri's set page factor command do?"),
    ("default", "What does the ML-KEM key generation step output?", "and the ML-KEM decapsulation step?",
     "What does the ML-KEM decapsulation step output?"),
    # not a member: an attribute of the thing, or no dotted name to take the owner from
    ("default", "What does ML-DSA.Sign do?", "and the key size?", "What is the key size of ML-DSA.Sign?"),
    ("default", "What is the size of an ML-KEM-768 encapsulation key?", "and the decapsulation key?",
     "What is the size of an ML-KEM-768 decapsulation key?"),
])
def test_a_sibling_named_with_its_kind_takes_the_old_ones_place(agents, corpus, first, follow_up, wanted):
    """"and the rect method?" after "What does X's pathobject.circle draw?" asks of
    pathobject.rect (it was "What is the rect method of pathobject.circle?"), and "and the set page
    factor command?" after "… set page landscape command …" is not "set page set page factor"."""
    from citerag.conversation.engine import make_decider

    agent = agents[corpus]
    decider = make_decider(agent.params, agent.store, dict(agent.store.bm25._bm25.idf))
    prev = {"user": first, "rewritten_query": first, "route": "RETRIEVE", "answer": "", "refused": False}
    assert decider.rewrite(follow_up, [prev]).query == wanted


def test_a_line_displayed_inside_a_sentence_is_code_of_that_sentence(agents):
    """"… the tool is run as" [tool myscript] "where the file …": the displayed line is what the
    sentence says, though it has no symbol that marks code (it was dropped as no statement and
    the answer stopped at "run as")."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import passages, units
    from citerag.core.types import Location

    def unit_list(text: str):
        return units(Evidence("c1", Location("doc::p1::c0", "doc", 1, 1), text))

    us = unit_list("Most of the time, the tool is run as\n\ntoolname myscript\n\nwhere the file myscript holds "
                   "a list of commands, and the tool writes its output.")
    assert [u.kind for u in us] == ["sentence", "code", "sentence"]
    assert [u.text for u in passages(us)[0].units] == [u.text for u in us]
    # a short line between two sentences that do not run on stays out
    apart = unit_list("The result depends on the settings\n\nFigure 3\n\nThe next section shows how.")
    assert not any(u.kind == "code" for u in apart)
    answered(agents, "tech-manuals", "How would someone who gives the .gri suffix explicitly invoke Gri?",
             "grimyscript.gri")


def test_a_passage_showing_a_command_is_of_the_procedure_type(agents):
    """"How do I invoke X to draw?" is answered by "To draw things, invoke X as" [x[OPTIONS][file]]:
    the displayed command is the procedure, though no verb of the procedure pattern is written
    (half-weighted as of no type, it lost to a sentence that merely said "used to invoke X")."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.extractive import passage_type
    from citerag.answer.units import passages, units
    from citerag.core.types import Location

    us = units(Evidence("c1", Location("doc::p1::c0", "doc", 1, 1),
                        "To draw things, invoke the tool as\n\ntool[OPTIONS][CmdFile[optional_arguments]]\n\n"
                        "where the square brackets indicate that the enclosed items are optional."))
    assert [u.kind for u in us] == ["sentence", "code", "sentence"]
    shown = passages(us)[0]
    assert passage_type(("procedure",), shown) == 1.0
    assert passage_type(("procedure",), passages(units(Evidence("c1", Location("doc::p1::c0", "doc", 1, 1),
                        "The tool draws things when it is invoked by the window manager.")))[0]) == 0.0
    answered(agents, "tech-manuals", "How can I invoke Gri to draw?", "gri[OPTIONS]")


@pytest.mark.parametrize("question, needs", [
    ("Who posted 'Re: Diversity of signature schemes' to the PQC forum?", "Stern M"),
    ("Who posted 'Kyber decisions, part 2: FO transform'?", "CRYSTALS-Kyber submission team"),
])
def test_who_posted_a_message_is_read_from_its_reference_entry(agents, question, needs):
    """A forum message in a reference list names who posted it as its author ("[33] Name M (2021)
    Re: Title. Available at …"); "posted" was refused as an event no cited text states."""
    answered(agents, "default", question, needs)


def test_a_contents_entry_whose_number_the_layout_broke_is_read():
    """"9.3.5 | 3.2 write contour . . . 140": the layout put a cell break inside the entry's
    number; the entry was not read at all (so no page or section question could find it)."""
    from citerag.answer.asked import Head, contents_entries, head_stated

    text = ("9.3.53 | The write commands_. . . . . . . ._ 140\n9.3.5 | 3.2 write contour. . . . . . . . 140\n"
            "10 Prog | ramming in the Language . . . 143\nIt went from 3 | 4.5 times. Then it stopped")
    assert contents_entries(text) == text.split("\n")[:3]
    # an entry states its section by its form, whatever the case of its title's first word
    assert head_stated(Head("section", "locator"), "", "9.3.5 | 3.2 write contour … 140. [c1]")
    assert not head_stated(Head("section", "locator"), "", "The write contour command writes contours. [c1]")
    # … also as the two sentences the splitter makes of its number and its title
    assert head_stated(Head("section", "locator"), "", "3.2.2. [c8]\nHybrid Widget Techniques … 10. [c8]")


@pytest.mark.parametrize("corpus, question, needs", [
    ("tech-manuals", "Which section of the Gri manual covers the write columns command?", "3.1 write columns … 140"),
    ("tech-manuals", "On which page of the Gri manual is the write grid command described?", "write grid … 141"),
    ("default", "Which section of FIPS 203 specifies the number-theoretic transform?", "4.3"),
])
def test_which_section_covers_a_command_reads_its_entry_without_the_kind_word(agents, corpus, question, needs):
    """A contents entry names the thing ("write columns"), not its kind ("command") nor the
    document it lists ("the Gri manual"): scored with them, it lost to body text that happens
    to say "section" and "manual"."""
    answered(agents, corpus, question, needs)


def test_an_ordinal_whose_noun_the_text_leaves_out_is_stated(agents):
    """"The first word in the calling line is \\.word0., the second \\.word1.": the second word is
    numbered with its noun left out; "which synonym holds the second word?" was refused as never
    stated. An ordinal the text gives only other things of the kind is still unstated."""
    from citerag.answer.asked import unstated_ordinals

    said = ["The first word in the line is \\.w0. , the second \\.w1. , etc."]
    assert unstated_ordinals("Which synonym holds the second word of the line?", said) == []
    assert unstated_ordinals("What happened at the fifth workshop?",
                             ["The fourth workshop was held in May. The third workshop was online."]) == ["fifth workshop"]
    answered(agents, "tech-manuals", "Which local synonym holds the second word of the line calling a Gri command?",
             "\\.word1.")


def test_a_byline_is_a_list_of_names_not_a_title_or_a_signature():
    """A title page's byline: names (a list by commas or "and", a name with an initial, or four
    names' worth of words). Not a title of capitalised words, nor a foreword's signature (one
    name and a role); and only a question asking who wrote a document it names reads it."""
    from citerag.answer.asked import asks_byline, is_byline

    assert is_byline("Alexis Bienvenüe, Anirvan Sarkar, Hiroto Kagotani, and Frédéric Bréal")
    assert is_byline("Dan E. Kelley") and is_byline("Ann Lee and Bo Chan")
    assert is_byline("Gorjan Alagic Elaine Barker Lily Chen Dustin Moody Computer Security Division")
    for title in ("Auto Multiple Choice", "User Guide", "Module-Lattice-Based Key-Encapsulation Mechanism Standard",
                  "Kevin M. Stine, Director Information Technology Laboratory", "Gina M. Raimondo, Secretary"):
        assert not is_byline(title), title
    assert asks_byline("Who are the authors of NIST SP 800-227?", ("SP 800-227",))
    assert asks_byline("Which NIST division issued SP 800-227?", ("SP 800-227",))
    assert asks_byline("Who wrote the Gri manual?", ("Gri",))
    assert not asks_byline("Who wrote the paper on lattices cited in FIPS 204?", ("FIPS 204",))
    assert not asks_byline("Who wrote the paper on lattices?", ())


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "Who are the authors of NIST IR 8547?", "Dustin Moody Ray Perlner"),
    ("tech-manuals", "Who wrote the Gri manual?", "Dan E. Kelley"),
    ("tech-manuals", "Who are the authors of the AMC manual?", "Hiroto Kagotani"),
])
def test_who_wrote_a_document_is_answered_from_its_title_page(agents, corpus, question, needs):
    """The title page's names answer "who wrote X?": they write neither "author" nor the verb,
    and retrieval ranks a page of names low, so the named document's first pages are looked up."""
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus, question", [
    ("default", "Who wrote FIPS 203?"),  # its first pages: a title, a secretary, a foreword's signature
    ("tech-manuals", "Who wrote the ReportLab user guide?"),  # a title page with no names
])
def test_who_wrote_a_document_without_a_byline_is_refused(agents, corpus, question):
    assert ask(agents, corpus, question).answer.refused


@pytest.mark.parametrize("question, needs", [
    ("What does Algorithm 13 K-PKE.KeyGen of FIPS 203 generate?", "Uses randomness to generate an encryption key"),
    # another part asks what its steps do: the steps still answer
    ("What does Algorithm 22 pkEncode do, and which function does it call in its loop?", "SimpleBitPack"),
])
def test_what_a_numbered_algorithm_generates_is_its_description_line(agents, question, needs):
    """"Algorithm 12" made the question an algorithm question, answered by the steps; what the
    algorithm generates is the line under its title ("Generates a hypertree signature.")."""
    answered(agents, "default", question, needs)


@pytest.mark.parametrize("corpus, first, answer, follow_up, wanted", [
    # asked for another of the same kind, "it" is the earlier subject, not the name the answer gave
    ("default", "Which function does FIPS 205's slh_sign_internal use to generate the randomizer?",
     "3: R ← PRFmsg(SK.prf, opt_rand, M) ▷ generate randomizer. [c1]",
     "and which function does it call to sign the FORS public key?",
     "which function does FIPS 205's slh_sign_internal call to sign the FORS public key?"),
    # a document's possessive before the subject: the next word is still the question's verb
    ("default", "What does FIPS 205's slh_sign_internal take as input?", "", "and what does it return?",
     "what does FIPS 205's slh_sign_internal return?"),
])
def test_it_after_a_question_on_a_named_subject_is_that_subject(agents, corpus, first, answer, follow_up, wanted):
    assert rewritten(agents, corpus, first, answer, follow_up) == wanted


def test_a_name_its_reference_list_gives_a_sibling_of_only_is_unlisted():
    """A reference list defines the variants of a command there are ("delete columns where
    missing"); a question on another variant of as many words ("… where duplicated") is on
    something the documents do not list. A name the list holds, or one of another length, is not."""
    from citerag.answer.answerer import unlisted_variants

    listing = ["- open file Open a file.\n- close file quietly Close it with no message.\n- close file Close it."]
    assert unlisted_variants("What does the tool's close file loudly do?", listing) == [
        "close file loudly (the documents list close file quietly)"]
    assert unlisted_variants("What does the tool's close file quietly do?", listing) == []
    assert unlisted_variants("What does the open socket command do?", listing) == [
        "open socket (the documents list open file)"]
    assert unlisted_variants("What does the tool's close file at once do?", listing) == []  # another length
    # … a name some text writes, as a list entry or not, is stated
    assert unlisted_variants("What does the tool's close file loudly do?", [*listing, "Use close file loudly to warn."]) == []


@pytest.mark.parametrize("corpus, question, needs", [
    ("tech-manuals", "What does Gri's delete columns where missing do?", "Completely delete all column data"),
    ("tech-manuals", "What does Gri's set y type log do?", "Set to log axis"),
    ("default", "What do the high-order and low-order bits functions of FIPS 204 support?", "optimization"),
])
def test_a_listed_name_is_answered(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


def test_a_variant_its_list_does_not_hold_is_refused(agents):
    refused_noting(agents, "tech-manuals", "What does Gri's delete columns where empty do?",
                   "delete columns where empty (the documents list delete columns where missing)",
                   reason="focus_not_stated")


def test_an_index_entry_is_read_as_a_contents_entry():
    """A back-of-book index lists terms, unnumbered, with their page after dot leaders, often in two
    columns a line ("cookbook . . . 35 | directories, changing . . . 74"): each cell is an entry.
    A question on which *section* covers X still wants a numbered entry: an index names none."""
    from citerag.answer.asked import contents_entries, entry_of_kind

    line = "cookbook . . . . . . . . 35 | directories, changing . . . . . . 74"
    assert contents_entries(line) == ["cookbook . . . . . . . . 35", "directories, changing . . . . . . 74"]
    assert contents_entries("9.3.5 | 3.2 write contour . . . . . . 140") == ["9.3.5 | 3.2 write contour . . . . . . 140"]
    assert contents_entries("The values are 35, 74 and 140.") == []
    assert entry_of_kind("", "cookbook … 35") and not entry_of_kind("section", "cookbook … 35")
    assert entry_of_kind("section", "9.3.44 | sleep … 135")


@pytest.mark.parametrize("corpus, question, needs", [
    ("tech-manuals", "On which page does the Gri manual's index list darwinport?", "223"),
    ("tech-manuals", "Which section of the Gri manual covers the sleep command?", "9.3.44"),  # not the index's "135"
    ("default", "On which page of FIPS 203 does the section on the NTT start?", "9"),
])
def test_a_page_question_reads_the_index_too(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus, question, needs", [
    # the glossary writes "key pair" on its line and the definition below: it opens no "X is a" sentence
    ("default", "What is a key pair in FIPS 205?", "A public key and its corresponding private key"),
    ("default", "What is a key pair in FIPS 204?", "A public key and its corresponding private key"),
    ("default", "What is a key pair in FIPS 203?", "encapsulation key"),  # its own glossary's, a longer one
    ("tech-manuals", "What is Gri?", "programming language"),
])
def test_a_glossary_entry_is_found_as_a_definition(agents, corpus, question, needs):
    """The definition ranking found only "X is a …" sentences; a glossary's entry ("key pair A
    public key and …") ranked below longer passages using the term, and the named document's own
    entry was lost to another document's."""
    answered(agents, corpus, question, needs)


def test_an_acronym_ending_in_s_is_no_plural_head():
    """"Which algorithm of FIPS 204 …" asks for one algorithm: "FIPS" is an acronym, not a plural
    noun making it a list question (answered then from prose listing several)."""
    assert "list" not in answer_types("Which algorithm of FIPS 204 encodes a signature into a byte string?")
    assert "list" not in answer_types("Which port of HTTPS does the server use?")
    assert "list" in answer_types("Which parameters of FIPS 204 are fixed?")


@pytest.mark.parametrize("question, needs", [
    # the word modifying the asked thing ("algorithm number") is what the title shows
    ("Which algorithm number is sigDecode in FIPS 204?", "Algorithm 27"),
    # one algorithm asked of a document whose name ends in S: its title line, not prose on several
    ("Which algorithm of FIPS 205 converts an integer to a byte string?", "toByte"),
])
def test_which_algorithm_is_answered_with_its_title(agents, question, needs):
    answered(agents, "default", question, needs)


@pytest.mark.parametrize("corpus, first, answer, follow_up, wanted", [
    ("default", "Which algorithm of FIPS 204 reverses the procedure sigEncode?",
     "Algorithm 27 sigDecode(σ): Reverses the procedure sigEncode . [c1]",
     "and which function does it use to unpack the hint?",
     "which function does sigDecode use to unpack the hint in FIPS 204?"),
    ("tech-manuals", "Which option of AMC sets the seed of the random number generator?",
     "RandomSeed: One can modify the seed of the random number generator used to produce the shuffle, thanks to "
     "the option. [c1]", "and what is it set to by default?", "what is RandomSeed set to by default in AMC?"),
])
def test_it_is_the_code_name_the_answer_gave(agents, corpus, first, answer, follow_up, wanted):
    """After "which algorithm (option) …?", "it" is the one the answer named, a name in camel case
    as well ("sigDecode", "RandomSeed"): answer names were looked for among identifiers only."""
    assert rewritten(agents, corpus, first, answer, follow_up) == wanted


@pytest.mark.parametrize("corpus, question, needs, page", [
    ("default", "What is the title of NIST IR 8545?", "Status Report on the Fourth Round", 1),
    ("default", "When was NIST IR 8545 published?", "March 2025", 2),
    ("default", "On what date was FIPS 205 published?", "August 13, 2024", 1),
    # named with words its title page writes ("Initial Public Draft")
    ("default", "What is the publication date of the initial public draft of NIST IR 8547?", "November 2024", 2),
    ("tech-manuals", "What is the title of the Gri manual?", "Gri", 1),
])
def test_a_documents_title_and_date_come_from_its_title_page(agents, corpus, question, needs, page):
    """A title page says neither "title" nor "published": its lines were refused as never stating
    the asked thing, or lost to a timeline's dates. The named document's title pages are looked
    up; the date line, or the line holding most of the title the corpus knows, answers."""
    r = ask(agents, corpus, question)
    assert not r.answer.refused, r.answer.notes
    assert needs in r.answer.answer
    assert [c["start_page"] for c in r.answer.citations] == [page]
    assert len(r.answer.answer.split("\n")) == 1


def test_a_cited_works_date_is_no_title_page_question():
    """Only words the named document's title pages write may name it besides its name: a work it
    cites, or another document, is asked about by words they do not write."""
    from citerag.answer.asked import front_asked

    front = "NIST Internal Report NIST IR 9 Widget Transition Initial Public Draft November 2024"
    assert front_asked("When was the initial public draft of NIST IR 9 published?", ("NIST IR 9",), front) == "date"
    assert front_asked("What is the title of NIST IR 9?", ("NIST IR 9",), front) == "title"
    assert front_asked("When was FIPS 197 published, according to NIST IR 9?", ("NIST IR 9",), front) == ""
    assert front_asked("When was the widget paper cited in NIST IR 9 published?", ("NIST IR 9",), front) == ""
    assert front_asked("What is the title of Table 5 of NIST IR 9?", ("NIST IR 9",), front) == ""
    assert front_asked("When was NIST IR 9 published?", (), front) == ""


@pytest.mark.parametrize("corpus, question, needs, not_wanted", [
    ("default", "What are the subsections of Section 7 of FIPS 204?", ["7.1", "7.3", "7.6"], "6.3"),
    ("default", "Which subsections does Section 5.4 of FIPS 204 have?", ["5.4.1"], "5.3"),
    ("tech-manuals", "Which sections make up chapter 4 of the Gri manual?", ["4.1", "4.2", "4.8"], "5.1"),
    ("tech-manuals", "Which sections does chapter 5 of the AMC manual have?", ["5.1", "5.5"], "4.1"),
])
def test_a_parts_sections_are_its_contents_entries_one_level_down(agents, corpus, question, needs, not_wanted):
    """"Which sections does X have?" was refused (no passage says "subsection") or answered from
    prose: the contents list gives them, numbered one level below the part."""
    r = ask(agents, corpus, question)
    assert not r.answer.refused, r.answer.notes
    lines = r.answer.answer.split("\n")
    assert all(any(line.startswith(n) for line in lines) for n in needs), r.answer.answer
    assert not any(line.startswith(not_wanted) for line in lines)


def test_which_sections_a_part_has_is_read_from_its_number():
    from citerag.answer.asked import asked_subsections, subsection_of

    assert asked_subsections("What are the subsections of Section 2.4 Notation in Widget 9?") == "2.4"
    assert asked_subsections("Which sections make up chapter 3 of the manual?") == "3"
    assert asked_subsections("Which subsections does Appendix D have?") == "D"
    # which sections cover a topic: not the sections of a part
    assert asked_subsections("Which sections of Widget 9 cover composite keys?") == ""
    assert asked_subsections("Which section covers key sizes?") == ""
    assert subsection_of("2.4", "2.4.1 | Rings … 7") and subsection_of("D", "D.2 | Changes … 54")
    assert not subsection_of("2.4", "2.4 | Notation … 7") and not subsection_of("2.4", "2.4.1.2 | Ideals … 7")
    assert not subsection_of("2", "12.1 | Widgets … 90")


@pytest.mark.parametrize("corpus, first, follow_up, needs", [
    ("default", "What is the title of NIST IR 8545?", "and when was it published?", "March 2025"),
    ("tech-manuals", "Which sections make up chapter 4 of the Gri manual?", "and chapter 5?", "5.1 Linegraphs"),
])
def test_a_follow_up_answered_by_place_keeps_its_answer(agents, corpus, first, follow_up, needs, tmp_path):
    """A follow-up about a document's front matter is about the document ("when was title
    published …" before), and a title page's date or a contents list's entries answer it though
    they never write the follow-up's own words ("published", "chapter"): validation had sent the
    answer back and drafted another from other chunks."""
    eng = chat_engine(agents, corpus, tmp_path)
    eng.turn("t", first)
    r = eng.turn("t", follow_up)
    assert not r.refused and r.answer.split("\n")[0].startswith(needs), (r.rewritten_query, r.answer)
    assert [e.get("fallback") for e in r.trace if e["node"] == "validate"] == [None]


@pytest.mark.parametrize("corpus, first, answer, follow_up, wanted", [
    ("tech-manuals", "On which page of the Gri manual is the read grid command described?",
     "read grid … 108. [c1]", "and the pop rpn operator?",
     "On which page of the Gri manual is the pop rpn operator described?"),
    ("tech-manuals", "On which page does the AMC manual's index list the mailing options?", "", "and scanning?",
     "On which page does the AMC manual's index list scanning?"),
    ("default", "Which section of FIPS 204 covers the use of symmetric cryptography?",
     "3.7 | Use of Symmetric Cryptography … 13. [c1]", "and public-key length checks?",
     "Which section of FIPS 204 covers public-key length checks?"),
    # a document, not a thing located: the question is asked of that document
    ("default", "On which page of FIPS 204 is Algorithm 7 given?", "", "and in FIPS 205?",
     "On which page of FIPS 205 is Algorithm 7 given?"),
])
def test_a_bare_phrase_after_a_where_question_asks_where_that_is(agents, corpus, first, answer, follow_up, wanted):
    """"On which page is X described?" then "and Y?": where Y is, not "What is the Y of X?"."""
    assert rewritten(agents, corpus, first, answer, follow_up) == wanted


def test_a_list_whose_layout_set_the_number_first_is_still_a_list_of_algorithms():
    """A list of algorithms whose layout broke sets each entry's number before the kind ("39
    Algorithm | MakeHint(z, r) … 41"); before, only the entry written "Algorithm 38 | …" was of the
    kind "the MakeHint *algorithm*" asks for, and the others were left out. An index entry giving
    several pages ("isopycnals . . . 59, 87") is an entry; "on which pages …" asks for pages, as
    "on which page …" does, and "how many pages …" still for a count."""
    from citerag.answer.asked import contents_entries, entry_of_kind

    assert entry_of_kind("algorithm", "39 Algorithm | MakeHint(z, r) … 41")
    assert entry_of_kind("algorithm", "Algorithm 38 | LowBits(r) … 41")
    assert not entry_of_kind("section", "39 Algorithm | MakeHint(z, r) … 41")
    assert not entry_of_kind("algorithm", "4 Tables and figures … 12")  # a section titled so
    assert contents_entries("isopycnals . . . . . . . . . 59, 87") == ["isopycnals . . . . . . . . . 59, 87"]
    assert contents_entries("The pages are 59, 87 and 140.") == []
    assert [h.type for h in asked_heads("On which pages of X are A and B?")] == ["page"]
    assert [h.type for h in asked_heads("How many pages does each of them have?")] == [""]


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "On which page of FIPS 205 is the slh_keygen_internal algorithm?", ["34"]),
    ("default", "On which pages of FIPS 204 are the MakeHint and NTT algorithms?", ["41", "43"]),
    ("tech-manuals", "On which pages does the Gri index list character variables?", ["149, 150"]),
    ("tech-manuals", "On which pages does the Gri index list operating system commands assigned to synonyms?",
     ["137, 150, 180"]),
])
def test_a_page_question_is_answered_from_broken_lists_and_entries_of_several_pages(agents, corpus, question,
                                                                                    needs):
    r = ask(agents, corpus, question).answer
    assert not r.refused, r.notes
    assert all(n in r.answer for n in needs), r.answer


def test_a_step_is_read_under_the_loop_it_sits_in():
    """The lines enclosing a step are the loop and "if" headers above it that no "end" line closed,
    with the sibling steps between left out: "1: for j … ▷ build authentication path" says what
    "3: AUTH[j] ← xmss_node(…)" is for, "2: k ← …" does not."""
    from citerag.answer.extractive import _enclosing
    from citerag.answer.units import Unit

    lines = ["1: for j from 0 to h-1 do ▷ build authentication path", "2: k ← idx ⊕ 1",
             "3: AUTH[j] ← xmss_node(SK.seed, k, j)", "4: end for", "5: if x then", "6: y ← 1", "7: end if",
             "8: sig ← wots_sign(M, SK.seed)"]
    us = [Unit(t, "c1", "step", i, "Algorithm 10 xmss_sign(M)") for i, t in enumerate(lines)]
    assert [u.text[:2] for u in _enclosing(us, 2)] == ["1:"]
    assert _enclosing(us, 7) == []  # both blocks above were closed
    assert [u.text[:2] for u in _enclosing(us, 5)] == ["5:"]


@pytest.mark.parametrize("question, needs", [
    ("Which function does fors_sign call to compute the authentication path nodes?", "fors_node"),
    ("Which function does ht_sign call to produce each XMSS signature?", "xmss_sign"),
    ("Which function does K-PKE.KeyGen use to generate the matrix A?", "SampleNTT"),  # guard: passed before
])
def test_the_function_a_step_calls_is_read_with_its_loop_and_its_names(agents, question, needs):
    """What the call is for is said by the loop it sits in ("▷ compute auth path") and by the names
    that shorten the question's words ("sig ← wots_sign(…)": a signature); "produce", "compute"
    say nothing of it (every callee computes). Before, prose about the algorithm answered."""
    answered(agents, "default", question, needs)


@pytest.mark.parametrize("corpus, question, needs", [
    ("tech-manuals", "On which pages does the Gri index list batch processing and the set graylevel command?",
     ["6, 147", "120"]),
    ("default", "On which pages of FIPS 205 are the slh_keygen and hash_slh_verify algorithms?", ["37", "42"]),
])
def test_the_pages_of_two_things_come_from_the_lists_holding_each(agents, corpus, question, needs):
    """The second thing's entry may stand in another list (the index of commands beside the general
    index, the list's next chunk): the list best holding what the first one's best entry leaves is
    looked up too, and its entry is quoted though it scores low on the whole question."""
    r = ask(agents, corpus, question).answer
    assert not r.refused, r.notes
    assert all(n in r.answer for n in needs), r.answer


def test_a_scorer_without_the_terms_a_text_holds_scores_the_rest():
    """What a text adds to another is scored on the question's terms the other leaves."""
    from citerag.retrieval.query import analyse
    from citerag.text.terms import Scorer

    score = Scorer(analyse("gawk tool and graylevel"), {"gawk": 5.0, "tool": 3.0, "graylevel": 4.0})
    held = score.held("gawk system tool … 187")
    assert held == {"gawk", "tool"}
    rest = score.without(held)
    assert rest("graylevel, command … 120") == 1.0 and rest("gawk tool … 187") == 0.0
    assert score("graylevel, command … 120") < 0.5  # the whole question's share: below the runners-up' bar


@pytest.mark.parametrize("corpus, first, answer, follow_up, wanted, not_wanted", [
    ("default", "Who are the authors of NIST SP 800-227?", "Gorjan Alagic Elaine Barker Lily Chen. [c1]",
     "and when was it published?", "SP 800-227", "authors"),
    ("tech-manuals", "Who are the authors of the Gri manual?", "Dan Kelley Peter Galbraith. [c1]",
     "and when was it last updated?", "Gri", "authors"),
    ("default", "Which section of FIPS 205 covers the WOTS+ one-time signature scheme?",
     "5 | Winternitz One-Time Signature Plus Scheme … 17. [c9]", "and on which page does it start?",
     "section on the WOTS+ one-time signature scheme", "does section start"),
    ("tech-manuals", "Which chapter of the Gri manual covers image plots?", "4 | Image Plots … 29. [c9]",
     "and on which page does it start?", "chapter on image plots", "does chapter start"),
])
def test_it_after_an_authors_or_a_which_section_question(agents, corpus, first, answer, follow_up, wanted,
                                                         not_wanted):
    """"it" after "Who are the authors of DOC?" is the document, not the authors; after "Which
    section of DOC covers Y?" it is the section on Y (the answer, a contents entry, names no
    thing). Before: "when was authors published …", "on which page does section start …"."""
    q = rewritten(agents, corpus, first, answer, follow_up)
    assert wanted in q and not_wanted not in q, q


def test_which_one_after_a_page_question_on_a_part_asks_for_that_kind_of_part():
    """After "on which page does the section on Y start?", "which one covers Z?" asks which
    *section* covers Z (before: which *page*); after a page question on no part it stays a page."""
    from citerag.conversation.decisions import name_one

    prev = "on which page does the section on randomness generation start in FIPS 204?"
    assert name_one("which one covers key escrow?", prev) == "which section covers key escrow?"
    assert name_one("which one lists the fonts?", "On which page of the Gri manual is Table 2?") == \
        "which table lists the fonts?"
    assert name_one("which one lists the fonts?", "On which page of the Gri manual is the draw command?") == \
        "which page lists the fonts?"


@pytest.mark.parametrize("corpus, first, follow_up, wanted", [
    ("default", "On which page of NIST IR 8547 is Table 2, on digital signature algorithms?", "and Table 3?",
     "On which page of NIST IR 8547 is Table 3?"),
    ("tech-manuals", "On which page of the ReportLab user guide is Figure 2, showing the page layout?",
     "and Figure 3?", "On which page of the ReportLab user guide is Figure 3?"),
])
def test_another_numbered_part_drops_what_was_said_of_the_first(agents, corpus, first, follow_up, wanted):
    """"and Table 3?" after "… is Table 2, on digital signature algorithms?" asks for Table 3, not
    for a Table 3 on digital signature algorithms."""
    assert rewritten(agents, corpus, first, "Table 2 … 12. [c1]", follow_up) == wanted


@pytest.mark.parametrize("corpus, first, follow_up, needs", [
    ("default", "Which section of FIPS 205 covers the hypertree?", "and on which page does it start?", "26"),
    ("tech-manuals", "Which chapter of the Gri manual covers image plots?", "and on which page does it start?", "29"),
])
def test_a_page_follow_up_on_a_section_is_answered_in_conversation(agents, corpus, first, follow_up, needs, tmp_path):
    """"it" is the section on Y (before: "on which page does section start …", refused); the
    contents list looked up for the page question is graded relevant (its entries share few of
    the question's words), and the entry answering keeps its answer though it never writes
    "page" or "start"."""
    eng = chat_engine(agents, corpus, tmp_path)
    eng.turn("t", first)
    r = eng.turn("t", follow_up)
    assert not r.refused and needs in r.answer.split("\n")[0], (r.rewritten_query, r.answer)


def test_a_contents_entry_is_scored_with_its_broken_words_joined():
    """"8 Para | meter Sets | 39": the layout broke the title's word across two cells; read as
    written the entry holds only "sets", and "on which page does the Parameter Sets section
    begin?" found no list to look up."""
    from citerag.answer.asked import entry_forms

    assert entry_forms("8 Para | meter Sets | 39")[1] == "8 Parameter Sets | 39"
    assert entry_forms("5.1 | K-PKE Key Generation | 28") == ("5.1 | K-PKE Key Generation | 28",)


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "On which page of FIPS 203 does the Cryptographic Functions section start?", "18"),
    ("tech-manuals", "On which page of the AMC manual does the chapter on alternative usages start?", "65"),
])
def test_a_page_question_finds_the_entry_the_layout_broke(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


def test_an_entry_is_found_by_the_label_the_question_names():
    """"On which page does Appendix B begin?" names the part by its label, which no share of the
    question's words can find in "Append | ix B — Widget Loop Bounds | 46"; the entry opening with
    the label scores in full, any other entry half its share."""
    from citerag.answer.asked import label_scored, opens_with_label

    assert opens_with_label(["appendix b"], "Append | ix B — Widget Loop Bounds | 46")
    assert opens_with_label(["section 4"], "Widget Standard > Table of Contents 4 Auxiliary Wid | gets | 18")
    assert not opens_with_label(["section 4"], "2.2 Acrony | ms | 4")  # a page number is no label
    assert not opens_with_label(["section 9"], "13.1.7 Vers | ion 2.6.4 [2001 Jul 9: a birthday] 212")
    assert not opens_with_label(["table 4"], "4 Auxiliary Widgets | 18")  # a section's, not a table's
    score = label_scored(lambda _t: 0.8, ["section 4"])
    assert score("4 Auxiliary Wid | gets | 18") == 1.0 and score("2.2 Acrony | ms | 4") == 0.4
    assert label_scored(len, []) is len


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "On which page of FIPS 203 does Appendix B begin?", "46"),
    ("default", "On which page does Section 4 of FIPS 203 start?", "Auxiliary Alg | orithms | 18"),
    ("tech-manuals", "On which page of the AMC manual does section 9 begin?", "Commands manual | 71"),
])
def test_a_part_named_by_its_number_is_found_in_the_contents(agents, corpus, question, needs):
    """The entry of the numbered part alone: before, Appendix B's entry was not read as one (its
    kind word broken across cells), section 4's question had no term left to rank entries by, and
    the AMC list was looked up but not held relevant, so the loop ran out of rounds."""
    r = ask(agents, corpus, question)
    assert not r.answer.refused and needs in r.answer.answer and "\n" not in r.answer.answer, (
        r.answer.answer, r.answer.notes)


@pytest.mark.parametrize("corpus, question, first", [
    ("default", "Which section of FIPS 203 covers K-PKE key generation?", "5.1"),
    ("tech-manuals", "Which section of the AMC manual covers groups of questions?", "5.4.5"),
])
def test_which_section_is_answered_by_that_sections_own_entry(agents, corpus, question, first):
    """"5.1 | K-PKE Key Generation | 28": a numbered contents entry says where, whatever cells the
    layout split it into; it was typed as no section title (only "5 The | K-PKE …" was) and lost
    half its score to its parent's entry or an example's."""
    r = ask(agents, corpus, question)
    assert not r.answer.refused and r.answer.answer.startswith(first), r.answer.answer


@pytest.mark.parametrize("corpus, first, answer, follow_up, needs", [
    ("default", "What does Appendix B of FIPS 203 cover?", "Appendix B — SampleNTT Loop Bounds: … [c1]",
     "and on which page does it begin?", "Appendix B"),
    ("tech-manuals", "What does section 6.6 of the AMC manual cover?", "6.6 Reading the copies: … [c1]",
     "and on which page does it start?", "section 6.6"),
])
def test_it_after_a_question_on_a_numbered_part_is_that_part(agents, corpus, first, answer, follow_up, needs):
    """Nothing else named, the numbered part is what the turn was about (it was the document:
    "on which page does FIPS 203 begin?")."""
    assert needs in rewritten(agents, corpus, first, answer, follow_up)


def test_what_an_appendix_covers_opens_with_its_title_when_no_chunk_starts_with_it(agents):
    """Appendix C's first chunk does not repeat its title ("Implementations should not bound …",
    the title stood on the page before): the earliest chunk the title heads answers, under the
    title, not a later subsection's table of repetitions."""
    answered(agents, "default", "What does Appendix C of FIPS 204 contain?", "Appendix C — Loop Bounds")


def test_which_lines_or_steps_asks_for_their_numbers_not_a_list():
    from citerag.answer.asked import CUES, answer_types

    assert answer_types("Which lines of widget_sign compute the checksum over M?") == ("lines",)
    assert "lines" in answer_types("In which steps does Algorithm 4 expand the seed?")
    assert "lines" in answer_types("In which lines are the values compressed?")
    assert "lines" not in answer_types("Which lines are drawn dashed?")  # (a list of drawn lines)
    for stated in ("A checksum is computed over M (lines 3 through 5).", "generated in steps 3-7 of Widget.Gen",
                   "line 6 in both widget_sign and widget_verify"):
        assert CUES["lines"].search(stated), stated
    for not_stated in ("3: for (i ← 0; i < k; i++)", "the line width is set first", "Step by step"):
        assert not CUES["lines"].search(not_stated), not_stated


@pytest.mark.parametrize("question, needs", [
    ("Which steps of K-PKE.KeyGen generate the matrix A?", "steps 3-7"),
    ("Which lines of wots_sign compute the checksum over M?", "lines 3 through 5"),
])
def test_which_steps_of_an_algorithm_is_answered_by_the_prose_stating_their_range(agents, question, needs):
    """The algorithm's listing (title, description, every step) was quoted: it shows each step
    alone, and the question asks which of them do the thing, which prose states as a range."""
    answered(agents, "default", question, needs)


def test_which_lines_of_a_command_is_still_answered_without_a_range(agents):
    """A manual's "which lines" question whose answer states no numbered range keeps its answer."""
    r = ask(agents, "tech-manuals", "Which lines does Gri's ignore last command ignore?")
    assert not r.answer.refused, r.answer.notes


def test_a_contents_entry_whose_page_the_layout_read_first_is_an_entry():
    """A list whose page numbers the text layer puts before the next title (". . . 99 10.2
    Modifying a Widget", "98 Chapter 10 Writing Widgets"): no line ended with a page, so the list
    had no entries at all, and every page or section question on it was answered from prose."""
    from citerag.answer.asked import contents_entries, entry_forms, entry_of_kind

    text = ("98 Chapter 10 Writing your own Widgets\n"
            ". . . . . . . . . . . . . . . 98 10.1 A very simple Widget\n"
            " . . . . . . . . . . . 99 10.2 Modifying a Built in Widget\n"
            "12 widgets were sold in 2010\n"       # prose opening with a number
            "Chapter 11 Gadgets")                  # a running header: no page
    entries = contents_entries(text)
    assert entries == text.split("\n")[:3]
    assert entry_forms(entries[2])[-1] == "10.2 Modifying a Built in Widget … 99"
    assert entry_of_kind("chapter", entries[0]) and not entry_of_kind("chapter", entries[1])


@pytest.mark.parametrize("question, needs", [
    ("Which section of the ReportLab user guide is about modifying a built in flowable?",
     "10.2 Modifying a Built in Flowable … 99"),
    ("On which page does chapter 10, Writing your own Flowable Objects, start in the ReportLab user guide?",
     "Chapter 10 Writing your own Flowable Objects … 98"),
])
def test_a_contents_list_with_its_pages_read_first_answers_with_the_page_last(agents, question, needs):
    answered(agents, "tech-manuals", question, needs)


@pytest.mark.parametrize("corpus, first, follow_up, needs", [
    ("default", "What does IR 8545 cite as reference [4]?", "and as reference [5]?", "cite as reference [5]"),
    ("default", "On which page of NIST IR 8547 is Table 6, on block ciphers?", "and Table 7?",
     "On which page of NIST IR 8547 is Table 7?"),
    ("tech-manuals", "What does section 6.6 of the AMC manual cover?", "and section 6.7?",
     "What does section 6.7 of the AMC manual cover?"),
])
def test_a_follow_up_naming_a_sibling_by_its_label_asks_the_same_of_it(agents, corpus, first, follow_up, needs):
    """The thing of the same kind with another label: before, "reference [5]" was read as an
    attribute of the old one ("What is the as reference [5] of [4]"), and "section 6.7" replaced
    the old label's first digit only ("section 6.7.6")."""
    assert needs in rewritten(agents, corpus, first, "… [c1]", follow_up)


def test_a_follow_up_asking_something_else_of_a_labelled_thing_is_no_label_swap(agents):
    rw = rewritten(agents, "default", "What does Algorithm 12 of FIPS 204 compute?", "… [c1]",
                   "and the inputs of Algorithm 13?")
    assert "compute" not in rw, rw


def test_lists_and_pairs_a_layout_ran_together_are_read_one_fact_each():
    """An acronym list one entry to a paragraph ("PoP Proof of Possession") was held as a glossary
    term waiting for a definition below, so no entry after the first paragraph was read, and a
    mixed-case acronym was no acronym; a line of "Name: value" pairs was no unit at all; an e-mail
    address alone under its heading was dropped as no statement."""
    read = unit_texts
    acronyms = read("Appendix A. List of Acronyms",
                    "CAVP Cryptographic Algorithm Verification Program DRBG Deterministic Random Bit Generator\n\n"
                    "KDF Key-Derivation Function\n\nPoP Proof of Possession\n\nTTP Trusted Third Party")
    assert {"KDF: Key-Derivation Function", "PoP: Proof of Possession", "TTP: Trusted Third Party",
            "DRBG: Deterministic Random Bit Generator"} <= set(acronyms), acronyms
    # (a glossary term on its own line is still read with its definition below)
    terms = read("Glossary", "widget combiner\n\nA function that joins two widgets into one.")
    assert terms == ["widget combiner: A function that joins two widgets into one."], terms
    ids = read("Author ORCID iDs", "Ann Lee: 0000-0002-1234-5678 Bo Chan-Wu: 0009-0001-2272-681X Cy Dorn: 0000-0001-1111-2222")
    assert ids == ["Ann Lee: 0000-0002-1234-5678", "Bo Chan-Wu: 0009-0001-2272-681X", "Cy Dorn: 0000-0001-1111-2222"]
    assert read("Report > Contact Information", "widget-comments@example.org") == [
        "Contact Information: widget-comments@example.org"]
    # (a labelled line with a longer value is one pair, as before)
    assert read("Status", "Status: Final draft of the widget report") == ["Status: Final draft of the widget report"]


@pytest.mark.parametrize("question, needs", [
    ("In NIST SP 800-227's list of acronyms, what does PoP stand for?", "Proof of Possession"),
    ("What does TTP stand for in NIST SP 800-227?", "Trusted Third Party"),
    ("What is Dustin Moody's ORCID iD, according to NIST IR 8545?", "0000-0002-4868-6684"),
    ("Which contact e-mail address does NIST IR 8545 give?", "pqc-comments@nist.gov"),
])
def test_an_acronym_list_an_id_list_and_a_contact_address_answer(agents, question, needs):
    answered(agents, "default", question, needs)


def test_the_title_of_a_numbered_part_is_asked_and_read_from_its_own_line():
    from citerag.answer.asked import asked_title, part_title, titles_given

    assert asked_title("What is the title of Table 5 of NIST IR 8547?") == "table 5"
    assert asked_title("What is Fig. 3 of the guide called?") == "figure 3"
    assert asked_title("What is the title of Table 5, and what does it list?") == ""  # two parts
    assert asked_title("What does Table 5 list?") == ""
    # what a figure shows is what its caption says, which may open in lower case after a colon
    assert asked_title("What does Figure 2-21 of the user guide illustrate?") == "figure 2-21"
    assert asked_title("What is shown in Table 2 of FIPS 203?") == "table 2"
    assert asked_title("What does Figure 2 show, and why?") == ""
    assert part_title("figure 2-21", "Figure 2-21: line style parameters") == "line style parameters"
    assert part_title("table 5", "Table 5. Widget sizes") == "Widget sizes"
    assert part_title("table 5", "Table 5 lists the widget sizes") == ""  # prose on the table
    assert part_title("figure 2-2", "Figure 2-2: The Coordinate System") == "The Coordinate System"
    # a section's number alone heads it, but in prose it is anything numbered
    assert part_title("section 4", "4. Parameter Sets", bare=True) == "Parameter Sets"
    assert part_title("section 4", "4: Return the widget") == ""
    assert titles_given("section 4", "Contents", "3 | Widgets | 7\n4 | Gadgets . . . . . 9") == [(True, "Gadgets")]


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "What is the title of Table 5 of NIST IR 8547?", "Post-quantum key-establishment schemes"),
    ("default", "What is the title of Section 4 of FIPS 204?", "Parameter Sets"),
    ("default", "What is the title of Figure 3 of NIST SP 800-227?", "IND-CCA security experiment"),
    ("tech-manuals", "What is the title of Figure 2-2 of the ReportLab user guide?", "The Coordinate System"),
    ("tech-manuals", "What is the title of Chapter 4 of the Gri manual?", "Controlling Axes"),
    # what a figure or table shows: its caption (before, a neighbouring figure's caption answered)
    ("default", "What does Table 2 of FIPS 203 show?", "Approved parameter sets for ML-KEM"),
    ("tech-manuals", "What does Figure 2-14 of the ReportLab user guide show?", "the 14 standard fonts"),
])
def test_the_title_of_a_numbered_part_is_its_caption_or_heading(agents, corpus, question, needs):
    """Before, "title" was a word no caption or heading says, so the answer was refused, or a
    sentence mentioning the part ("Section 4 concludes …", of another document) answered."""
    r = ask(agents, corpus, question)
    assert not r.answer.refused and needs in r.answer.answer and "\n" not in r.answer.answer, (
        r.answer.answer, r.answer.notes)


def test_the_title_of_a_part_a_document_does_not_have_is_refused(agents):
    r = ask(agents, "default", "What is the title of Table 9 of NIST SP 800-227?")
    assert r.answer.refused, r.answer.answer


def test_a_table_figure_or_algorithm_entry_is_found_by_its_label():
    """"On which page is Table 7?" names the table by its label alone: only sections' and
    appendices' labels were scored, so the list was not looked up; a kind word the layout broke
    after its first letter ("T able 7") or abbreviated ("Fig. 3.") was no kind word either."""
    from citerag.answer.asked import entry_of_kind, mend_kind_word, opens_with_label

    table = "T able 7: Hash functions and XOFs ........................................ 16"
    figure = "Fig. 3. | The IND-CCA security experiment for a KEM Π . . . . . . . . . | 9"
    assert entry_of_kind("table", table) and entry_of_kind("figure", figure)
    assert not entry_of_kind("table", figure)
    assert opens_with_label(["table 7"], table) and not opens_with_label(["table 1"], table)
    assert opens_with_label(["figure 3"], figure) and not opens_with_label(["figure 31"], figure)
    assert opens_with_label(["algorithm 7"], "Algorithm 7 | SampleNTT(B) . . . . . . | 23")
    assert mend_kind_word(table) == table.replace("T able", "Table")  # as an answer quotes it
    assert mend_kind_word("S able and stable . . . 7") == "S able and stable . . . 7"


@pytest.mark.parametrize("question, needs", [
    ("On which page of NIST IR 8547 is Table 7?", "Hash functions and XOFs … 16"),
    ("On which page of SP 800-227 is Figure 3?", "IND-CCA security experiment for a KEM Π … 9"),
    ("On which page of FIPS 203 is Algorithm 7?", "SampleNTT(B) … 23"),
])
def test_the_page_of_a_table_figure_or_algorithm_named_by_its_label(agents, question, needs):
    r = ask(agents, "default", question)
    assert not r.answer.refused and needs in r.answer.answer and "\n" not in r.answer.answer, (
        r.answer.answer, r.answer.notes)


def test_a_follow_up_naming_another_table_gets_its_page_in_conversation(agents, tmp_path):
    """"and Table 7?" after the page of Table 6: the entry "T able 7: Hash functions … 16" was
    found, but the validator read no "table" in it and the answer was refused."""
    eng = chat_engine(agents, "default", tmp_path)
    eng.turn("t", "On which page of NIST IR 8547 is Table 6, on block ciphers?")
    r = eng.turn("t", "and Table 7?")
    assert not r.refused and "Table 7: Hash functions and XOFs … 16" in r.answer, (r.rewritten_query, r.answer)


def test_a_person_named_with_a_role_is_a_unit():
    """A title page's "U.S. Department of Commerce Ann B. Lee, Secretary" has no verb and too few
    lower-case words to pass as a statement: it was dropped, and "who was the Secretary …?" was
    refused or answered from prose about the office."""
    text = ("Widget Standard\n\nDepartment of Commerce Ann B. Lee, Secretary\n\n"
            "Bo Chan, Director Widget Laboratory\n\nFigures, Tables\n\nSee Ann Lee, Chapter 3")
    said = unit_texts("", text)
    assert said == ["Department of Commerce Ann B. Lee, Secretary", "Bo Chan, Director Widget Laboratory"], said


@pytest.mark.parametrize("question, needs", [
    ("Who was the U.S. Secretary of Commerce when NIST SP 800-227 was published?", "Howard Lutnick"),
    ("Who is the Director of the Information Technology Laboratory named in the FIPS 205 foreword?", "Kevin M. Stine"),
])
def test_who_holds_a_role_named_on_a_title_page(agents, question, needs):
    answered(agents, "default", question, needs)


def test_a_reference_asked_by_its_mark_asks_for_a_cited_work():
    """"What does reference [1] of X point to?" never says "cite": the reference list was not
    searched as one, and the answer was refused or taken from prose on "passing by reference"."""
    from citerag.retrieval.query import analyse

    assert analyse("What does reference [1] of IR 8545 point to?").asks_cited
    assert analyse("What is [12] in the report?").asks_cited
    assert not analyse("What does w[0] hold?").asks_cited and not analyse("What is x[3] = 2 used for?").asks_cited


def test_a_reference_asked_by_its_mark_is_answered_from_the_list(agents):
    answered(agents, "default", "What does reference [1] of IR 8545 point to?", "Open quantum safe")


def test_the_value_next_to_another_in_a_printed_array():
    """An array printed as rows of cells ("{ 1 | 1729 | 2580 | …") was read as table rows under a
    header row, so "which value follows 1729?" got the sentence announcing the array. The array's
    cells are read in order, across its lines; of two arrays holding the value, the one whose
    announcing text (in its chunk, or ending the chunk before) matches the question answers."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.extractive import _array_neighbour, _array_runs
    from citerag.core.types import Location
    from citerag.retrieval.query import analyse
    from citerag.text.terms import Scorer

    first = "The widget offsets for i = 0..7:\n{ 1 | 17 | 25 | 32\n26 | 63 | 18 | 84 }"
    second = "{ 17 | -17 | 5 | -5\n9 | -9 | 4 | -4 }"
    assert _array_runs(first) == [(1, ["1", "17", "25", "32", "26", "63", "18", "84"])]
    evidence = [Evidence("c1", Location("d::p1::c0", "d", 1, 1), first, "Offsets", ordinal=4),
                Evidence("c2", Location("d::p1::c1", "d", 1, 1), "The signed gadget weights follow:", "Offsets",
                         ordinal=5),
                Evidence("c3", Location("d::p2::c0", "d", 2, 2), second, "Offsets", ordinal=6)]
    idf = {w: 1.0 for w in "widget offsets signed gadget weights value follows".split()}

    def neighbour(question: str) -> list[str]:
        qa = analyse(question)
        return [(u.text, u.key) for u in _array_neighbour(qa, evidence, Scorer(qa, idf))]

    assert neighbour("Which value follows 32 in the widget offsets?") == [("32 | 26", "c1")]  # across a line
    assert neighbour("Which value comes before 25 in the widget offsets?") == [("17 | 25", "c1")]
    assert neighbour("Which value follows 17 in the signed gadget weights?") == [("17 | -17", "c3")]
    assert neighbour("Which value follows 84 in the widget offsets?") == []  # the last one
    assert neighbour("What does the widget offset 17 mean?") == []


@pytest.mark.parametrize("question, needs", [
    ("In FIPS 203's Appendix A, which value follows 1729 in the list of zeta^BitRev7(i) mod q?", "1729 | 2580"),
    ("Which value comes before 2580 in FIPS 203's list of zeta^BitRev7(i) mod q?", "1729 | 2580"),
])
def test_the_value_next_to_another_in_a_standards_array(agents, question, needs):
    answered(agents, "default", question, needs)


def test_an_abbreviated_caption_label_and_a_sentence_in_capitals_are_read():
    """A caption opening on "Fig. 6." was split at the label's dot and the label, alone, dropped:
    "which figure shows …?" got the caption without its number. A licence's disclaimer set in
    capitals has no lower-case word, so it passed as no statement and "who bears the risk?" was
    answered from other clauses."""
    said = unit_texts("", "Fig. 6. Widget handshake between an owner and a registrar\n\n"
                          "THE ENTIRE RISK AS TO THE QUALITY OF THE WIDGET IS WITH YOU.\n\nWIDGET USER GUIDE")
    assert said == ["Fig. 6, Widget handshake between an owner and a registrar",
                    "THE ENTIRE RISK AS TO THE QUALITY OF THE WIDGET IS WITH YOU."], said


def test_digits_of_an_address_or_a_reference_mark_state_no_number():
    """"Which patent number does X list?" was answered from a notice with no number, its digits
    being a URL's ("…/selected-algos-2022/…") and a reference mark's ("[4]")."""
    from citerag.answer.asked import asked_heads, head_stated

    head = asked_heads("Which patent number does the notice list?")[0]
    evidence = "holders of patent claims may disclose them"
    assert not head_stated(head, evidence, "See https://example.org/a/selected-2022/terms.pdf [c1] and "
                                           "the P rojects/pq/selected-2022/sum mary [4]. [c2]")
    assert head_stated(head, evidence, "The patent number is 7,123,456. [c1]")


def test_a_word_the_corpus_never_writes_inside_a_named_command_is_refused():
    """"Which section covers the draw violin plot command?": "violin" is ordinary English, and the
    other words matched the contents entries of other draw commands strongly, so the answer
    listed "draw x box plot"; the word names the thing asked about, however long its name."""
    from citerag.answer.answerer import names_unwritten

    assert names_unwritten("Which section covers the draw violin plot command?", ["violin"]) == ["violin"]
    assert names_unwritten("Which option of the violin in the set command is it?", ["violin"]) == []


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "Which figure in NIST SP 800-227 shows KEM PoP between a key-pair owner and CA?", "Fig. 6"),
    ("tech-manuals", "According to the license printed in the Gri manual, who bears the entire risk as to the "
                     "quality and performance of the program?", "WITH YOU"),
])
def test_a_figure_by_its_caption_and_a_disclaimer_in_capitals_answer(agents, corpus, question, needs):
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus, question", [
    ("default", "Which patent number does NIST SP 800-227's patent notice list for ML-KEM?"),
    ("tech-manuals", "Which section of the Gri manual covers the draw violin plot command?"),
])
def test_a_number_or_a_command_the_documents_never_state_is_refused(agents, corpus, question):
    assert ask(agents, corpus, question).answer.refused


@pytest.mark.parametrize("corpus, turns, follow_up, wanted", [
    # the verb after "does DOC's X" is no part of X's phrase
    ("tech-manuals", [("What does ReportLab's canvas.acroform.radio create?",
                       "The canvas.acroform.radio method creates a radio widget. [c1]")],
     "does it play a sound when clicked?", "does canvas.acroform.radio play a sound when clicked in ReportLab?"),
    # a phrase naming the document opens the question: the topic is in what follows the comma
    ("tech-manuals", [("Under the license printed in the Gri manual, is there any warranty for the program?",
                       "THERE IS NO WARRANTY FOR THE PROGRAM. [c1]")],
     "and what does it say about copying?", "what does program say about copying in Gri?"),
    ("default", [("According to SP 800-227, what should a KEM's ciphertext reveal about the shared secret key?",
                  "The ciphertext should reveal no information about the shared secret key. [c1]")],
     "and how long is it?", "how long is shared secret in SP 800-227?"),
])
def test_it_is_the_phrase_after_an_opening_scope_and_before_the_verb(agents, corpus, turns, follow_up, wanted):
    """"it" stood for a name with the verb after it ("canvas.acroform.radio create": a document's
    possessive before the name hid the auxiliary), and for the last word of a document scope
    opening the question ("Under the license *printed* in the Gri manual, is there …")."""
    assert rewritten_after(agents, corpus, turns, follow_up) == wanted


def test_the_number_of_a_named_part_is_asked_and_read_from_its_title_line():
    """"Which algorithm number is X?" was answered with prose naming X beside other functions, or
    with the title of the algorithm before it: the number is the one X's own title line gives."""
    from citerag.answer.asked import asked_number, numbered_title

    assert asked_number("Which algorithm numbers do MakeHint and UseHint have in FIPS 204?") == "algorithm"
    assert asked_number("What is the table number of the size list?") == "table"
    assert asked_number("What is the number of rounds in Widget?") == ""
    rx = numbered_title("algorithm", "Decompose")
    assert rx.match("Algorithm 36 Decompose(r)")
    assert not rx.match("Algorithm 37 HighBits(r): Returns r1 from the output of Decompose (r)")
    assert not numbered_title("algorithm", "Widget").match("Algorithm 4 Widget-Sign(sk)")  # another name


@pytest.mark.parametrize("question, needs", [
    ("Which algorithm numbers do MakeHint and UseHint have in FIPS 204?", ("Algorithm 39", "Algorithm 40")),
    ("Which algorithm number is Decompose in FIPS 204?", ("Algorithm 36",)),
    ("What is the algorithm number of MakeHint in FIPS 204?", ("Algorithm 39",)),
])
def test_the_number_of_a_named_algorithm_is_its_title_lines(agents, question, needs):
    r = ask(agents, "default", question)
    assert not r.answer.refused and all(n in r.answer.answer for n in needs), r.answer.answer
    assert "Algorithm 37" not in r.answer.answer, r.answer.answer


def test_an_entry_below_the_best_one_holding_the_rest_of_the_question_is_the_part_asked():
    """"Which section covers box plots among the real-world examples?" names the chapter ("8
    Real-world examples", holding more of the words) and asks for its section ("8.1 Box plots")."""
    from citerag.agent.workflow import _ranked_lists
    from citerag.answer.asked import below_entry
    from citerag.retrieval.query import analyse
    from citerag.text.terms import Scorer

    assert below_entry("8 | Real-world examples … 35", "8.1 Box plots … 35")
    assert below_entry("8 Real-world examples … 35", "8.12.1 Handling headers … 67")
    assert not below_entry("8 Real-world examples … 35", "9.1 Overview … 73")
    assert not below_entry("8.1 Box plots … 35", "8.1 Box plots … 35")
    short = ["7 Image plots … 29", "8 Real-world examples … 35", "9 Commands … 73"]
    full = ["8 Real-world examples … 35", "8.1 Box plots … 35", "8.2 Contouring … 37"]
    score = Scorer(analyse("Which section covers contouring among the real-world examples?"), {})
    assert _ranked_lists(score, "section", {"a::p1::c0": short, "a::p6::c0": full})[0][1] == "a::p6::c0"
    # … and where a thing starts, of two lists as good, is where a contents list numbers it
    index = ["salinity diagram … 59", "sigma … 60", "skyline … 64"]
    contents = ["8.8 Salinity diagram … 58", "8.9 Density … 61", "8.10 Skyline … 64"]
    score = Scorer(analyse("On which page does the salinity diagram example start?"), {})
    lists = {"a::p280::c0": index, "a::p6::c1": contents}
    assert _ranked_lists(score, "", lists, starts=True)[0][1] == "a::p6::c1"
    assert _ranked_lists(score, "", lists)[0][1] == "a::p280::c0"  # (a tie, as before, by its chunk)


@pytest.mark.parametrize("question, needs", [
    ("Which section of the Gri manual covers the contouring example among the real-world examples?", "8.2"),
    ("On which page of the Gri manual does the Temperature-Salinity Diagram example start?", "58"),
])
def test_a_section_within_a_named_chapter_and_where_an_example_starts(agents, question, needs):
    answered(agents, "tech-manuals", question, needs)


def test_a_braced_example_is_the_subject_of_the_entry_describing_it():
    """A calculator reference sets each operator as an example in braces, then what it does:
    "{rpn 2 3 inf}" was dropped as no statement, and "which operator gives the smaller of two
    numbers?" got the description without the operator."""
    said = unit_texts("", "{rpn 2 3 inf}\n\nPick the smaller of two values, yielding 2. (Opposite to sup.)")
    assert said[:3] == ["{rpn 2 3 inf}", "Pick the smaller of two values, yielding 2.", "(Opposite to sup.)"], said


def test_an_index_entry_holding_all_but_one_word_of_a_named_command_is_another_command():
    """"On which page does the index place the set window title command?" was answered with "set
    input data window command … 123": the index lists the commands there are."""
    from citerag.answer.answerer import unlisted_variants

    index = ["set input data window command . . . . 123\nset line width command . . . . 124\n"
             "set page size command . . . . 125"]
    assert unlisted_variants("On which page is the set window title command?", index) == [
        "set window title (the documents list set input data window command)"]
    assert unlisted_variants("On which page is the set line width command?", index) == []
    assert unlisted_variants("On which page is the set window command?", index) == []  # (two words held of two)
    # … an entry with no word of its own names the thing more briefly ("plain set dash": "set dash")
    assert unlisted_variants("What does the plain set dash command use?", ["set dash command . . . . 134\n"
                                                                         "set dpi command . . . . 134\n"
                                                                         "set flag command . . . . 135"]) == []


def test_a_follow_up_on_a_part_no_entry_names_is_refused_in_conversation(agents, tmp_path):
    """"and the section on wind rose diagrams?" was answered with the chapter entry the carried
    words matched: an answer of contents entries writes titles only, so holding none of the
    follow-up's words it names another part."""
    eng = chat_engine(agents, "tech-manuals", tmp_path)
    eng.turn("t", "Which section of the Gri manual covers the contouring example among the real-world examples?")
    eng.turn("t", "and on which page does it start?")
    r = eng.turn("t", "and the section on wind rose diagrams?")
    assert r.refused, (r.rewritten_query, r.answer)


def test_a_follow_up_naming_a_camel_case_name_an_entry_writes_is_on_topic(agents, tmp_path):
    """The follow-up's words were looked for in the cited text with camel case split only, so
    "ScalarVectorNTT" was never found in "47 Algorithm | ScalarVectorNTT(c, v) … 46": the name is
    written whole too."""
    eng = chat_engine(agents, "default", tmp_path)
    eng.turn("t", "On which page of FIPS 204 is MakeHint?")
    r = eng.turn("t", "and ScalarVectorNTT?")
    assert not r.refused and "ScalarVectorNTT" in r.answer, (r.rewritten_query, r.answer)


@pytest.mark.parametrize("corpus, turns, follow_up, wanted", [
    # a name in camel case the auxiliary makes the subject, not the complement after the verb
    ("default", [("What does KeyCombine produce as output in SP 800-227?",
                  "As output, KeyCombine produces a single shared secret key. [c1]")],
     "and what else may it accept besides the shared secrets?",
     "what else may KeyCombine accept besides the shared secrets in SP 800-227?"),
    # … but after a document's possessive, the name that follows it
    ("tech-manuals", [("What does ReportLab's setHorizScale do?",
                       "Lines of text can be stretched or shrunken horizontally by the setHorizScale method. [c1]")],
     "which font families ignore it?", "which font families ignore setHorizScale in ReportLab?"),
    # "the reverse" with nothing after it is the reverse of the earlier subject
    ("default", [("What does BitsToBytes do in FIPS 204?",
                  "Converts a bit string into a byte string using little-endian order. [c1]")],
     "and which algorithm does the reverse?", "which algorithm does the reverse of BitsToBytes in FIPS 204?"),
])
def test_it_is_the_named_subject_and_a_relation_is_to_the_earlier_subject(agents, corpus, turns, follow_up, wanted):
    """"it" stood for the complement after the verb ("… produce as *output*"), and "which algorithm
    does the reverse?" was asked of nothing."""
    assert rewritten_after(agents, corpus, turns, follow_up) == wanted


def test_a_preposition_closing_a_question_is_no_phrase_it_can_stand_for(agents):
    """"… what must a concatenation combiner's final key pass through before use?" then "which
    browsers use it?" became "which browsers use before?"."""
    got = rewritten_after(agents, "default", [
        ("Which key-combining methods does SP 800-133 provide?", "SP 800-133 provides three methods. [c1]"),
        ("what must a concatenation combiner's final key pass through before use?",
         "The final shared secret key should pass through a key derivation. [c1]")], "which browsers use it?")
    assert not re.search(r"\bbefore\b", got), got


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "What is the title of FIPS 204?", "Module-Lattice-Based Digital Signature Standard"),
    ("tech-manuals", "What is the title of the AMC manual?", "Auto Multiple Choice"),
])
def test_a_title_is_answered_from_its_title_page(agents, corpus, question, needs):
    """The header pass had dropped the running title from the title page, the one page where it
    is the title: the answer was a sentence holding "Title 10", or a table cell broken in two."""
    r = ask(agents, corpus, question)
    assert not r.answer.refused, r.answer.notes
    assert r.answer.answer.split("[")[0].strip().rstrip(".") == needs, r.answer.answer


def test_two_things_joined_in_one_phrase_are_both_answered(agents):
    """"Under which category and subcategory …" was answered by "Subcategory: Cryptography" alone:
    the line beside it stating the other word ("Category: …") ranked below prose holding
    "categories"."""
    from citerag.answer.asked import joined_words

    assert joined_words("Under which category and subcategory is X filed?") == ("category", "subcategory")
    assert joined_words("What are the category and the subcategory of X?") == ("category", "subcategory")
    assert joined_words("Which is faster and why?") == ()
    r = ask(agents, "default", "Under which category and subcategory is FIPS 204 filed?")
    assert "Category: Computer Security" in r.answer.answer and "Subcategory: Cryptography" in r.answer.answer, \
        r.answer.answer


def test_a_caption_names_its_figure_verb_or_not(agents):
    """A caption with no verb ("Figure 2-10: overPrint example") was dropped as no statement, so
    "which figure shows …" was answered by the section's prose."""
    texts = unit_texts("2.10 Colors", "The overPrint function will cause overlapping areas to mix.\n\n"
                                      "overprint knockout\n\nFigure 2-10: overPrint example")
    assert "Figure 2-10: overPrint example" in texts, texts
    answered(agents, "tech-manuals", "Which figure of the ReportLab user guide shows painting over colors?", "2-11")


def test_a_page_named_by_a_word_before_it_is_a_place_not_the_kind_asked_about(agents):
    """"Which NIST Director is named on the *title* page of X?" was refused: "title" modifies
    "page", no passage wrote it, and it was taken for the kind of thing asked about. A page is a
    place in the document; the same word modifying another noun still names a kind."""
    from citerag.answer.answerer import unretrieved_kind

    vocab = {"title", "director", "page", "named", "block"}
    said = ["The director of the lab is Ann Lee."]
    assert unretrieved_kind("Which director is named on the title page of the Foo manual?", said, vocab) == []
    assert unretrieved_kind("Which director is named in the title block of the Foo manual?", said, vocab) == ["title"]
    answered(agents, "default", "Which NIST Director is named on the title page of FIPS 203?", "Locascio")


def test_a_section_of_a_code_of_law_is_a_locator():
    """"Under which section of the U.S. Code does X issue Y?" was refused: the locator type wanted
    a numbered title or "Section 3.1", and a law's section is cited as "40 U.S.C. 11331"."""
    from citerag.answer.asked import type_match

    types = answer_types("Under which section of the Foo Code does the Secretary issue the series?")
    assert types == ("locator",)
    assert type_match(types, "The series is issued by the Secretary under 40 U.S.C. 11331.") == 1.0
    assert type_match(types, "The series is issued under § 552 of the Act.") == 1.0
    assert type_match(types, "The series is issued by the Secretary every 40 days.") == 0.0


def test_a_question_about_an_example_reads_its_code_line_by_line(agents):
    """Example code no sentence announces was dropped line by line as no statement, so "in the
    charspace example, what is added to charspace on each line?" never saw "charspace =
    charspace+0.5". Read only for a question about an example: elsewhere short code lines outrank
    the prose that answers."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units
    from citerag.core.types import Location

    text = ("The word is painted in white over the colored rectangles of the drawing.\n\n"
            "def spumoni(canvas):\ncanvas.setFillColor(white)\ncanvas.setFont(\"Helvetica-Bold\", 85)\nx = x+dx")
    ev = Evidence("c1", Location("d::p1::c0", "d", 1, 1), text, "Examples")
    read = [u.text for u in units(ev, code=True) if u.kind == "code"]
    assert 'canvas.setFont("Helvetica-Bold", 85)' in read and "x = x+dx" in read, read
    assert not any(u.kind == "code" for u in units(ev))
    answered(agents, "tech-manuals",
             "In the charspace example of the ReportLab user guide, what is added to charspace on each line?",
             "charspace+0.5")


def test_two_terms_asked_to_spell_out_are_two_parts(agents):
    """"What do SSH and TLS stand for in the report?" was one part: the acronym list's "SSH: Secure
    Shell" won it, and a sentence that merely mentions TLS filled the rest. Each term is its own
    part now, answered by its own entry."""
    assert split_parts("What do ABC and DE-F stand for in the Foo guide?") == [
        "What does ABC stand for in the Foo guide", "What does DE-F stand for in the Foo guide"]
    assert split_parts("What do k and l denote in a set's name?") == [
        "What does k denote in a set's name", "What does l denote in a set's name"]
    # (other verbs keep the pair together: "what do x and y specify for a plot?" asks of both)
    assert split_parts("What do x and y specify for a Foo plot?") == ["What do x and y specify for a Foo plot?"]
    r = ask(agents, "default", "What do KEM and PKE stand for in SP 800-227?")
    assert "Key-Encapsulation Mechanism" in r.answer.answer and "Public-Key Encryption" in r.answer.answer, \
        r.answer.answer
    r = ask(agents, "default", "What do TLS and SSH stand for in NIST IR 8545?")
    assert "Transport Layer Security" in r.answer.answer and "Secure Shell" in r.answer.answer, r.answer.answer


def test_a_code_line_setting_an_attribute_of_a_named_object_is_read(agents):
    """"What is the mood of faceTwo?" was answered with prose about the widget: the property
    dump's "faceTwo.mood = sad" is code no sentence announces, dropped as no statement. A line
    setting an attribute of an object the question names as code is read; a line setting the
    name itself or calling with it is not (it outranked the prose saying what the name does)."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.units import units
    from citerag.core.types import Location

    text = ("The widget draws two gauges.\n\n"
            "gaugeLeft.colour = red\ngaugeLeft.width = 80\nlimitValue = 3\nshow(gaugeLeft)")
    ev = Evidence("c1", Location("d::p1::c0", "d", 1, 1), text, "Widgets")
    read = [u.text for u in units(ev, code_names=("gaugeLeft", "limitValue")) if u.kind == "code"]
    assert read == ["gaugeLeft.colour = red", "gaugeLeft.width = 80"], read
    assert not any(u.kind == "code" for u in units(ev))
    answered(agents, "tech-manuals", "In the ReportLab TwoFaces widget, what is the size of faceTwo?",
             "faceTwo.size = 80")


def test_a_variables_first_number_is_read_from_its_step(agents):
    """"In Algorithm 42, what value is m initialized to?" was answered with the algorithm's
    description: the step "4: m ← 256" shares one letter with the question. The first step giving
    the variable a number, in the algorithm the question names (by number, or the one of a
    transform and its inverse whose description shares most words), answers it; a step that samples
    the value ("rnd ← B^32") leaves it to the prose."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.extractive import _assigned_at
    from citerag.answer.units import units
    from citerag.core.types import Location
    from citerag.retrieval.query import analyse

    text = ("Algorithm 7 Spin(v)\nTurns the vector.\n1: k ← 4\n2: while k < 9 do\n3: k ← k + 1\n4: end while\n"
            "5: s ← B^8\n6: return v")
    ev = Evidence("c1", Location("d::p1::c0", "d", 1, 1), text, "Spin")
    us = units(ev)
    qa = analyse("In Algorithm 7, what value is k initialized to?")
    assert [u.text for u in _assigned_at(qa.text, qa, us, {"c1": "d"}).units][-1] == "1: k ← 4"
    qa = analyse("In Algorithm 7, what is s set to?")
    assert _assigned_at(qa.text, qa, us, {"c1": "d"}) is None
    qa = analyse("In Algorithm 8, what value is k initialized to?")
    assert _assigned_at(qa.text, qa, us, {"c1": "d"}) is None
    # named by its name as a word; a variable given another variable's value
    text2 = "Algorithm 5 chain(X, i)\nChains.\n1: tmp ← X ▷ start from the input\n2: return tmp"
    us2 = units(Evidence("c2", Location("d::p2::c0", "d", 2, 2), text2, "Chain"))
    qa = analyse("In the chain function, what is tmp initialized to?")
    assert [u.text for u in _assigned_at(qa.text, qa, us2, {"c2": "d"}).units][-1].startswith("1: tmp ← X")
    # "what type is X set to?" asks for a kind of value, not the step's value
    qa = analyse("In the chain function, what type is tmp set to?")
    assert _assigned_at(qa.text, qa, us2, {"c2": "d"}) is None
    answered(agents, "default", "In FIPS 204's inverse NTT, what value does len start at?", "len ← 1")
    answered(agents, "default", "In FIPS 204's Algorithm 42, what value is m initialized to?", "m ← 256")


def test_a_list_of_symbols_run_together_is_read_entry_by_entry(agents):
    """A list of symbols the layout ran into one paragraph ("… = 32 . log 2 x The base 2 logarithm
    of x . … 0x The prefix to a number that is represented in hexadecimal. [1, adapted] a ≫ b The
    logical right shift …") was read as long sentences holding two entries each, and "what does
    the prefix 0x denote?" got the logarithm. Each symbol's entry is a definition, its example
    after it."""
    text = ("For example, 3 ⋅ 5 = 15 . log 2 x The base 2 logarithm of x . For example, log 2(16) = 4 . "
            "0b The prefix to a number that is represented in binary. 0x The prefix to a number that is "
            "represented in hexadecimal. [1, adapted] ⌊a⌋ The floor of a. For example, ⌊-2.1⌋ = -3 .")
    read = unit_texts("2.3 Mathematical Symbols", text)
    assert "log 2 x: The base 2 logarithm of x ." in read, read
    assert "0x: The prefix to a number that is represented in hexadecimal." in read, read
    assert "⌊a⌋: The floor of a." in read and "For example, ⌊-2.1⌋ = -3 ." in read, read
    # (outside a list of symbols the sentences stay as written)
    assert "0x: The prefix to a number that is represented in hexadecimal." not in unit_texts("2.3 Notes", text)
    answered(agents, "default", "What does the prefix 0x denote in FIPS 205?", "hexadecimal")


def test_the_first_author_on_a_title_page_is_a_byline_question(agents):
    """"Who is the first author listed on the title page of X?" ran two rounds and refused: the
    title page's names share no word with it, so only a byline question looks the page up."""
    from citerag.answer.asked import asks_byline

    assert asks_byline("Who is the first author listed on the title page of the Foo Report 12?", ("Foo Report 12",))
    assert asks_byline("Who are the authors on the cover page of Foo Report 12?", ("Foo Report 12",))
    assert not asks_byline("Who is the first author listed on the title page?", ())
    answered(agents, "default", "Who is the first author listed on the title page of NIST IR 8545?", "Gorjan Alagic")


def test_a_call_under_a_condition_is_read_from_its_branch(agents):
    """"Which function does xmss_node call when z is 0?" got a step of the other branch: the
    "else" line did not end the "if" above it, and the condition's words counted as what the call
    is for. The call must sit under an "if" line writing the condition's variables and numbers;
    of those, the one computing a value over a method setting its object."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.extractive import _called_by, _enclosing
    from citerag.answer.units import units
    from citerag.core.types import Location

    text = ("Algorithm 3 grow_tree(i, z)\nGrows a tree.\n1: if z = 0 then\n2: ADRS.setType(LEAF)\n3: node ← leafGen(i)\n"
            "4: else\n5: ADRS.setHeight(z)\n6: node ← join(i, z)\n7: end if\n8: return node")
    us = units(Evidence("c1", Location("d::p1::c0", "d", 1, 1), text, "Trees"))
    at = {u.text: i for i, u in enumerate(us)}
    assert [u.text for u in _enclosing(us, at["6: node ← join(i, z)"])] == []
    assert [u.text for u in _enclosing(us, at["3: node ← leafGen(i)"])] == ["1: if z = 0 then"]
    q = "Which function does grow_tree call when the tree height z is 0?"
    assert _called_by(q, q, us, {}).units[-1].text == "3: node ← leafGen(i)"
    answered(agents, "default", "Which function does xmss_node call when the target node height z is 0?",
             "wots_pkGen")


def test_a_compound_noun_is_known_from_its_verbs_form(agents):
    """"Which bit-reversal function …?" was refused as unknown: the corpus writes "bit-reversed"
    and "bit reversal", never "bit-reversal". A compound whose last word is a noun made from a verb
    is known when the evidence writes its parts in a row in the verb's form; a compound whose
    parts the evidence never writes together stays unknown."""
    from citerag.answer.answerer import absent_words

    vocab = {"bit", "reversed", "order", "function", "used"}
    texts = ["The values are in bit-reversed order."]
    assert absent_words("Which bit-reversal function is used?", vocab, texts) == []
    assert absent_words("Which bit-rotation function is used?", vocab, texts) == ["bit-rotation"]
    answered(agents, "default", "Which bit-reversal function gives the exponent of zeta in FIPS 203's NTT?",
             "BitRev7")


def test_the_call_that_fills_what_an_algorithm_returns_does_what_its_description_says(agents):
    """"Which function does ExpandA call to sample each entry of the matrix?" was refused: the call
    step ("4: Â[r, s] ← RejNTTPoly(ρ′)") writes none of the purpose's words, which the algorithm's
    description states ("Samples a k × l matrix Â"). A step filling in the variable the algorithm
    returns does the algorithm's job, so its description counts for it; a step computing something
    else (the seed) does not, nor does an algorithm the question names only by a variable it takes."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.extractive import _called_by
    from citerag.answer.units import units
    from citerag.core.types import Location

    text = ("Algorithm 7 BuildGrid(ρ)\nSamples a grid Ĝ of widgets.\nInput : A seed ρ.\nOutput : Grid Ĝ.\n"
            "1: for r from 0 to 3 do\n2: ρ′ ← ρ||Tag(r)\n3: Ĝ[r] ← PickWidget(ρ′)\n4: end for\n5: return Ĝ")
    us = units(Evidence("c1", Location("d::p1::c0", "d", 1, 1), text, "Grids"))
    q = "Which function does BuildGrid call to sample each entry of the grid?"
    assert _called_by(q, q, us, {}).units[-1].text == "3: Ĝ[r] ← PickWidget(ρ′)"
    other = text.replace("Samples a grid", "Makes a list").replace("of widgets", "of parts")
    assert _called_by(q, q, units(Evidence("c1", Location("d::p1::c0", "d", 1, 1), other, "Grids")), {}) is None
    answered(agents, "default", "Which function does ExpandA in FIPS 204 call to sample each entry of the matrix?",
             "RejNTTPoly")


def test_a_name_opening_on_a_dot_keeps_its_space_when_citations_are_stripped(agents):
    """"If .start_cm. and .between_cm. are specified, …" was dropped from answers as unsupported
    (support 0.56): stripping the citations also took the space before every period, so the
    claim read "If.start_cm. and.between_cm.", whose words the cited text never writes. Only a
    mark ending a word loses the space a citation group left before it."""
    from citerag.answer.answerer import verify
    from citerag.answer.citations import strip_citations
    from citerag.answer.evidence import Evidence
    from citerag.core.types import Location

    assert strip_citations("The key is 32 bytes [c1].") == "The key is 32 bytes."
    assert strip_citations("Alpha [c1], beta [c2]; gamma?") == "Alpha, beta; gamma?"
    assert strip_citations("If .start_cm. is set [c1].") == "If .start_cm. is set."
    text = "If .start_cm. and .between_cm. are specified, the first label is drawn at .start_cm. from the start."
    ev = [Evidence("c1", Location("d::p1::c0", "d", 1, 1), text, "Labels")]
    kept, checks, reason = verify(f"{text} [c1]", ev, load_params(str(repo_root() / "params/tech-manuals.yaml")).answer)
    assert reason is None and checks[0].support == 1.0 and ".start_cm." in kept
    r = ask(agents, "tech-manuals", "Where are Gri contour labels drawn by default, and how far apart are they?")
    assert "If .start_cm. and .between_cm. are specified" in r.answer.answer, r.answer.answer


def test_a_verb_alone_does_not_make_a_call_the_answer(agents):
    """"Which algorithm of FIPS 204 computes the NTT?" was answered with steps inside the NTT's
    algorithm ("10: z ← zetas[m] ▷ z ← ζ^BitRev8(m)"): "computes" is a verb every call states, and
    it was the question's only word besides the name. A call step answers only when it states some
    word, letter or condition of the question beyond such a verb."""
    from citerag.answer.evidence import Evidence
    from citerag.answer.extractive import _called_by
    from citerag.answer.units import units
    from citerag.core.types import Location

    text = ("Algorithm 3 MixWidget(x)\nComputes the widget of x.\n1: for i from 0 to 3 do\n2: y[i] ← Mix(x, i)\n"
            "3: h ← Hash(y) ▷ hash the mixed values\n4: end for\n5: return h")
    us = units(Evidence("c1", Location("d::p1::c0", "d", 1, 1), text, "Widgets"))
    q = "Which algorithm computes the MixWidget?"
    assert _called_by(q, q, us, {}) is None
    q = "Which function does MixWidget call to compute the hash h?"
    assert _called_by(q, q, us, {}).units[-1].text.startswith("3: h ← Hash(y)")
    answered(agents, "default", "Which algorithm of FIPS 204 computes the NTT?", "Algorithm 41")


def test_a_place_in_the_byline_is_asked_of_the_title_page(agents):
    """"Which author is listed last on the title page of X?" and "Who is listed first on the title
    page of X?" ran two rounds and refused (or quoted an acronym's expansion): only "who is the first
    author …" was read as asking the byline, whose names share no word with the question."""
    from citerag.answer.asked import asks_byline

    doc = ("Foo Report 12",)
    assert asks_byline("Which author is listed last on the title page of Foo Report 12?", doc)
    assert asks_byline("Which two authors with the surname Smith are listed on the title page of Foo Report 12?", doc)
    assert asks_byline("Who is listed first on the cover page of Foo Report 12?", doc)
    assert not asks_byline("Who is listed first in the references of Foo Report 12?", doc)
    assert not asks_byline("Which author is listed last on the title page?", ())
    answered(agents, "default", "Which author is listed last on the title page of NIST SP 800-227?", "Noah Waller")
    answered(agents, "tech-manuals", "Who is listed on the title page of the Gri manual?", "Dan E. Kelley")


def test_a_bare_first_part_asks_of_the_next_parts_predicate():
    """"In which year and under which number does X list Y?" was split into "In which year" (a part
    naming nothing, so its search found anything) and the rest. A bare first part asks what the
    next part asks of: "In which year does X list Y"."""
    assert split_parts("In which year and under which number does the guide list the Widget report?") == [
        "In which year does the guide list the Widget report", "under which number does the guide list the Widget report"]
    assert split_parts("When and where was the Widget report published?") == [
        "When was the Widget report published", "where was the Widget report published"]
    assert split_parts("In which year was X published, and by whom?") == ["In which year was X published, and by whom?"]


def test_a_command_is_shown_by_the_code_a_manual_sets(agents):
    """"Which command creates the symbolic link for AMC …?" was refused: its answer, the manual's
    code block ("<mark>sudo ln -s …</mark>"), never says "command". A command is shown as a manual
    sets its code (a code block, an option, a call), as an attribute is; prose naming none, in
    evidence that never says "command", still names no command."""
    head = Head("command")
    assert head_stated(head, "Create a symbolic link.", "Create a symbolic link. [c1] <mark>sudo ln -s a b</mark>. [c1]")
    assert not head_stated(head, "Create a symbolic link by hand.", "Create a symbolic link by hand. [c1]")
    assert head_stated(head, "Use the command below.", "Use the command below. [c1]")
    answered(agents, "tech-manuals", "Which command creates the symbolic link for AMC when TeXLive is installed in "
                                     "/usr/local?", "sudo ln -s")


def test_a_fee_as_a_condition_asks_no_amount(agents):
    """"What must you give the recipients if you distribute copies of a GPL program for a fee?" was
    refused for showing no amount of money: "a fee" there is a condition (or, in "may you charge a
    fee", a permission), not an amount asked; "what fee", "the price" and "a license fee" still are."""
    from citerag.answer.asked import unshown_quantities

    q = "What must you give the recipients if you distribute copies of a GPL program for a fee?"
    assert unshown_quantities(q, "You must give the recipients all the rights that you have. [c1]") == []
    for other in ("What fee does the agency charge?", "What is the price of a licence?",
                  "Do you need to pay a license fee?"):
        assert unshown_quantities(other, "The agency reviews every application. [c1]") == ["an amount of money"], other
    answered(agents, "tech-manuals", q, "all the rights that you have")


def test_a_slot_opened_by_a_preposition_is_filled_after_the_verb(agents):
    """"In what forms may a digital signature algorithm be implemented …?" was refused: the answer
    ("… may be implemented in software, firmware, hardware …") never says "forms". A question
    opening on a preposition and its wh-phrase asks the complement its verb takes there, which the
    answer writes after the same participle and preposition."""
    from citerag.answer.asked import slot_filled

    q = "In what forms may a widget be implemented?"
    assert slot_filled(q, "A widget may be implemented in software or hardware. [c1]")
    assert not slot_filled(q, "A widget implemented for testing is sold in shops. [c1]")  # another preposition
    assert not slot_filled("What forms may a widget be implemented in?", "It may be implemented in software. [c1]")
    # (any preposition that may open a question: the project's one list of them)
    assert slot_filled("To which function is the message passed?", "The message is passed to verify_inner. [c1]")
    answered(agents, "default", "In what forms may a digital signature algorithm be implemented according to the "
                                "FIPS 204 announcement?", "software, firmware, hardware")


def test_a_part_title_asked_after_a_scope_is_cited_from_a_line_that_writes_it(agents):
    """"In the Gri manual's table of contents, what is section 4.9 called?" was not read as asking a
    part's title (the scope before the question hid it), and "What is section 4.9 of X called?"
    drafted the title from the chunk's heading path, which its text never writes: the citation did
    not support it, so the answer was refused. The title now comes from a line the cited chunk
    writes: the part's own heading or caption, else its contents entry."""
    from citerag.answer.asked import asked_title

    assert asked_title("In the Foo guide's table of contents, what is section 4.9 called?") == "section 4.9"
    assert asked_title("what is section 4.2 called in the Foo guide?") == "section 4.2"
    assert asked_title("In the Foo guide, what does section 4.2 say about axes?") == ""
    answered(agents, "default", "In the table of contents of FIPS 203, what is section 4.3 called?", "Theoretic Transform")
    answered(agents, "tech-manuals", "In the Gri manual's table of contents, what is section 4.3 called?",
             "Logarithmic and linear axes")
    answered(agents, "tech-manuals", "What is section 4.3 of the Gri manual called?", "Logarithmic and linear axes")


def test_where_a_numbered_part_begins_is_asked_of_its_contents_entry(agents):
    """"Where does section 4.9 of X begin?" asks the page a contents entry gives, as "on which page
    does section 4.9 begin?" does; "what is the number of the section titled Y?" asks which section,
    as "which section is titled Y?" does. Both were answered with prose on the topic."""
    assert "page" in answer_types("Where does section 4.4 of the Foo guide begin?")
    assert "page" not in answer_types("Where does the curve start and end?")
    assert "locator" in answer_types("What is the number of the section titled 'Axis scaling' in the Foo guide?")
    answered(agents, "default", "Where does section 4.4 of SP 800-227 begin?", "20")
    answered(agents, "tech-manuals", "Where does section 4.3 of the Gri manual begin?", "14")
    answered(agents, "tech-manuals", "What is the number of the section titled 'Axis scaling' in the Gri manual?", "4.2")


@pytest.mark.parametrize("corpus, first, answer, follow_up, new, old", [
    ("default", "What is section 3.2 of SP 800-227 called?", "Section 3.2: Managing Cryptographic Data. [c1]",
     "what about section 3.3, what is it called?", "section 3.3", "3.2"),
    ("tech-manuals", "What is section 4.3 of the Gri manual called?", "Section 4.3: Logarithmic and linear axes. [c1]",
     "what about section 4.5, what is it called?", "section 4.5", "4.3"),
])
def test_what_about_a_thing_then_a_question_of_it(agents, corpus, first, answer, follow_up, new, old):
    """"what about section 4.2, what is it called?" was rewritten "What is the section 4.2, what is it
    called of 4.9 in Gri?": the question after the comma is asked of the thing named before it, in
    the earlier turn's document."""
    q = rewritten(agents, corpus, first, answer, follow_up)
    assert new in q and old not in q and "called" in q and "what about" not in q.lower(), q


@pytest.mark.parametrize("corpus, first, answer, part", [
    ("default", "In the FIPS 205 table of contents, what is section 9.1 called?",
     "Section 9.1: SLH-DSA Key Generation. [c1]", "section 9.1"),
    ("tech-manuals", "In the Gri manual's table of contents, what is section 4.3 called?",
     "Section 4.3: Logarithmic and linear axes. [c1]", "section 4.3"),
])
def test_a_numbered_part_is_the_turns_subject_not_its_bare_label(agents, corpus, first, answer, part):
    """After "… what is section 4.9 called?", "and where does it begin?" was rewritten "where does 4.9
    begin …": the label alone names no part. The part's kind stays with it."""
    assert part in rewritten(agents, corpus, first, answer, "and where does it begin?")


def test_a_question_frame_word_in_a_follow_up_is_no_unwritten_topic(agents, tmp_path):
    """"and which of its keywords mention cryptography?" was refused off_topic: the NIST documents
    never write "mention", a word of the question's frame (as the answerer's absent-word check
    already reads it), not of its topic. (The manuals write "mention", so only the NIST corpus can
    show the refusal.)"""
    eng = chat_engine(agents, "default", tmp_path)
    eng.turn("t", "What does the abstract of FIPS 204 say ML-DSA is believed to be secure against?")
    r = eng.turn("t", "and which of its keywords mention signatures?")
    assert not r.refused and "digital signatures" in r.answer, (r.refusal_reason, r.answer[:300])


def test_a_later_parts_demonstrative_names_what_an_earlier_part_named():
    """"What is the layout database in the data directory used for …, and which option gives that
    directory?" answered its first part only: the second part, read and scored alone, asked which
    option gives "that directory", a word any option line has. "that N" is the earlier part's N,
    with its modifiers."""
    assert split_parts("What is the cache in the data directory used for, and which option gives that directory?") == [
        "What is the cache in the data directory used for", "which option gives the data directory"]
    assert split_parts("Which function computes the final key hash, and what output length does that hash have?")[1] \
        == "what output length does the final key hash have"
    # (a demonstrative the earlier parts name no N for, or one used as a pronoun, stays)
    assert split_parts("Which value does X use, and what does that value mean?")[1] == "what does that value mean"
    assert split_parts("Which codes does X use, and what does that give the KEM?")[1] == "what does that give the KEM"


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "In the BIKE PKE, which encoding does a message get?", "error vector"),
    ("tech-manuals", "Which fill does Gri give an arc drawn with the keyword filled?", "current color"),
    ("tech-manuals", "In which format is the Gri search path for command files written?", "colon-separated"),
])
def test_an_asked_kind_stated_by_another_form_of_its_word(agents, corpus, question, needs):
    """"Which encoding does a message get?" was refused focus_not_stated ("never states: encoding")
    beside "a message is encoded as an error vector", and "which fill …" answered with another
    command's filling: a passage that says the asked word in another form ("encoded", "filled",
    "formatted") states the asked kind."""
    answered(agents, corpus, question, needs)


def test_a_name_with_its_superscript_marked_is_the_corpus_own(agents):
    """"KeyCombineCCA" was refused as a word the corpus never writes: the extracted text marks its
    superscript ("KeyCombine^CCA"), as it writes a subscript apart ("KX 0"). (The manuals have no
    name with a superscript of capitals, so only the NIST corpus can show it.)"""
    from citerag.answer.answerer import subscript_apart

    assert subscript_apart("KeyCombineCCA", ["the key combiner KeyCombine^CCA H preserves it"])
    assert not subscript_apart("KeyCombineCCA", ["the key combiner KeyCombine preserves it"])
    answered(agents, "default", "Which property does the KeyCombineCCA combiner preserve if H is a random oracle?",
             "IND-CCA")


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "Which function does ML-DSA.Verify pass M′ to for verification?", "ML-DSA.Verify_internal"),
    ("default", "Which function does hash_slh_verify call for verification?", "slh_verify_internal"),
    ("tech-manuals", "In ReportLab's label example, which rotation is the text box given about its north-east corner?",
     "45 degrees"),
])
def test_a_noun_of_action_is_said_by_its_verb(agents, corpus, question, needs):
    """"… which rotation is the text box given?" was refused ("never states: rotation") beside "be
    rotated by 45 degrees", and "… for verification?" beside "return …Verify_internal(…)": a noun of
    action ("rotation", "verification") is said by its verb ("rotated", "verify")."""
    from citerag.text.inflect import says_word

    assert says_word("rotation", "be rotated by 45 degrees") and says_word("justification", "it is justified")
    # (a short stem says nothing: "option" is not "opted", "station" not "stated")
    assert not says_word("option", "it opted out") and not says_word("station", "it is stated")
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "In the fourth-round status report IR 8545, which acronym stands for Information Set Decoding?", "ISD"),
    ("tech-manuals", "Which acronym does the ReportLab user guide use for Report Markup Language?", "RML"),
    ("tech-manuals", "Which acronym stands for Portable Document Format in the ReportLab guide?", "(PDF)"),
])
def test_which_acronym_is_answered_by_one_spelled_out(agents, corpus, question, needs):
    """"Which acronym stands for Information Set Decoding?" was refused ("never states: acronym"):
    a passage spelling an acronym out ("information set decoding (ISD)") shows one, whether or not
    it says the word "acronym"."""
    answered(agents, corpus, question, needs)


def test_which_class_is_answered_by_a_name_in_code(agents):
    """"Which class is used for a true type font object?" was refused ("never states: class") beside
    "We use reportlab.pdfbase.ttfonts.TTFont to create a true type font object": a class or a
    method is named in code, as an attribute or a command is, more often than the text calls it so.
    (The NIST documents name no classes or methods in code, so only the manuals can show it.)"""
    answered(agents, "tech-manuals", "Which class is used for a true type font object in ReportLab's pdfgen?", "TTFont")


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "In FIPS 205, what is Algorithm 5 called?", "chain("),
    ("default", "What is the name of Algorithm 2 in FIPS 205?", "toInt("),
    ("tech-manuals", "What is Figure 2-5 of the ReportLab user guide called?", "Scaling and Translating"),
])
def test_a_title_naming_a_call_in_lower_case_is_a_title(agents, corpus, question, needs):
    """"What is Algorithm 1 of FIPS 205 called?" got the algorithm's description lines without its
    name: a title line was read only when a capital opened it, and "Algorithm 1 gen_len2(n, lgw)"
    names the call in lower case. A name right against its parenthesis is a title; prose after a
    label ("Algorithm 1 uses (…)") is not. (The manuals title no part by a call: there, a
    capitalised caption still answers.)"""
    from citerag.answer.asked import part_title

    assert part_title("algorithm 3", "Algorithm 3 base_2b(X, b, out_len)") == "base_2b(X, b, out_len)"
    assert part_title("algorithm 3", "Algorithm 3 uses (as above) a loop") == ""
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "In SP 800-227's example of unilateral key confirmation, in which direction is the confirmation given?",
     "from the encapsulator to the decapsulator"),
    ("tech-manuals", "With a ReportLab text object's moveCursor, in which direction does a positive y offset move the "
                     "cursor?", "move down"),
])
def test_a_direction_is_stated_by_the_way_it_goes(agents, corpus, question, needs):
    """"In which direction does …?" was refused ("never states: direction") beside "key confirmation
    from the encapsulator to the decapsulator" and "positive y offsets move down": a direction is
    stated by a word for one or by a way from one end to the other, whatever the text calls it."""
    from citerag.answer.asked import Head, head_stated

    assert head_stated(Head("direction"), "", "The rows are read from left to right. [c1]")
    assert not head_stated(Head("direction"), "", "The rows are read in order. [c1]")
    answered(agents, corpus, question, needs)


@pytest.mark.parametrize("corpus, question, needs", [
    ("default", "According to the introduction of FIPS 205, which special publication gives a general discussion "
                "of digital signatures?", "800-175B"),
    ("tech-manuals", "In an AMC numeric question, what do intV and intX hold?", "raw value"),
])
def test_one_hit_holding_most_of_the_question_suffices(agents, corpus, question, needs):
    """Both were refused as thin evidence (budget_exhausted) with one hit holding 0.58-0.60 of the
    question's weighted terms and the others well below: at a strong-hit bar of 0.6 a retrieval
    near it decided. Measured on the seen pool, any bar from 0.5 to 0.55 answers the same questions,
    and no unanswerable more; the default is 0.55."""
    from citerag.agent.workflow import Agent

    agent = agents[corpus]
    assert agent.params.agent.strong_hit_score == 0.55
    strict = Agent(agent.store, agent.params.with_overrides({"agent.strong_hit_score": 0.6}))
    assert strict.run(question).refusal_reason == "budget_exhausted"
    answered(agents, corpus, question, needs)


def test_a_common_noun_before_a_name_is_its_label(agents):
    """"Which two authors with the surname Dang …?" was refused ("not in the corpus: surname, the kind
    of thing asked about"): a lower-case noun right before a capitalised name labels the name ("the
    surname Dang", "the class Widget"); it names no kind the passage must be about. A noun before a
    lower-case noun or an acronym still does ("a violin plot", "which root CA"). (Only NIST is asked
    so: on the manuals pool no verdict moved; the pure check shows a manuals-style question too.)"""
    from citerag.answer.answerer import modifying

    assert modifying("Which ReportLab flowable with the codename Gizmo draws a box?", ["codename"]) == []
    assert modifying("Which Gri command draws a violin plot?", ["violin"]) == ["violin"]
    assert modifying("Which root CA does the guide trust?", ["root"]) == ["root"]
    answered(agents, "default", "Which author with the surname Moody is listed on the title page of NIST IR 8547?",
             "Dustin Moody")


def test_a_verb_in_yze_is_known_by_its_noun_in_ysis(agents):
    """"Which cryptosystem did Minder and Shokrollahi cryptanalyze …?" was refused ("not in the
    corpus: cryptanalyze") though a reference's title reads "Cryptanalysis of the Sidelnikov
    cryptosystem": English makes the noun of a verb in -yze (-yse) in -ysis. (The manuals write
    every such verb they use, so only NIST shows it; the pure check holds for any word.)"""
    from citerag.text.inflect import lysis_forms

    assert lysis_forms("paralyse") == {"paralyze", "paralyse", "paralysis"}
    assert lysis_forms("cryptanalysis") == {"cryptanalyze", "cryptanalyse", "cryptanalysis"}
    assert lysis_forms("analog") == set() and lysis_forms("yse") == set()
    answered(agents, "default", "Who cryptanalyzed the Sidelnikov cryptosystem, according to the references of IR 8545?",
             "Minder")


def test_which_bits_is_answered_by_their_place(agents):
    """"Which bits of MacOutput does TMacTagBits return?" was refused ("never states: bits") beside
    "… returns the leftmost (i.e., initial) bits of MacOutput": bits and bytes asked by "which" are
    named by their place, not counted, so the answer needs no number. (No manual asks which bits,
    so only NIST shows it; the pure check shows the forms.)"""
    from citerag.answer.asked import Head, head_stated

    bits = Head("bits", "number")
    assert head_stated(bits, "", "It keeps the least significant 8 bytes.")
    assert head_stated(bits, "", "TMacTagBits returns the leftmost (i.e., initial) bits of MacOutput.")
    assert not head_stated(bits, "", "TMacTagBits truncates MacOutput.")
    answered(agents, "default", "According to SP 800-227, which bits of MacOutput does TMacTagBits return?", "leftmost")


def test_a_label_alone_names_the_list_below_it(agents):
    """"Which keywords does NIST IR 8547 list?" was refused ("never states: keywords"): its draft
    sets "Keywords" alone in one paragraph and "cryptography; post-quantum cryptography; …" alone
    in the next, a line no sentence test keeps. A label alone (one or two capitalised words) over a
    list of terms alone is read as "Keywords: cryptography; …". A label over a sentence stays as it
    was. (No manual sets a list so, so only NIST shows it; the pure check shows any document's.)"""
    assert "Index Terms: widgets; gadgets; sprockets." in unit_texts(
        "Abstract", "Widgets are small.\n\n- Index Terms\n\n- widgets; gadgets; sprockets.")
    assert not any(t.startswith("Note:") for t in unit_texts(
        "Setup", "Note\n\nThe widget needs a gadget; see the manual for details."))
    answered(agents, "default", "What keywords are given for the NIST IR 8547 initial public draft?",
             "quantum computing")


def test_a_superscript_the_question_writes_inline_is_stated(agents):
    """"Who wrote 'Breaking Category Five SPHINCS+ with SHA-256' …?" was refused ("never states:
    Breaking Category Five SPHINCS+ …"): the clean stage marks a superscript with a caret, and the
    reference entry reads "SPHINCS^+". A respaced match skips the caret. (No manual names a
    superscripted thing a question quotes, so only NIST shows it; the pure check shows any text's.)"""
    from citerag.answer.answerer import term_stated

    assert term_stated("WOTS+ chains", "the wots^+ chains are")
    assert not term_stated("WOTS+ chains", "the wots^ chains are")
    answered(agents, "default", "Which reference of FIPS 205 is 'Breaking Category Five SPHINCS+ with SHA-256'?",
             "[35]")


def test_a_citation_in_prose_names_the_paper_and_its_authors(agents):
    """"From which paper does Gri's Example 5 … come?" was refused ("never states: paper") though
    its answer reads "(Fig5 Koch et al, 1983)", and "Who wrote 'Atmospheric data analysis' …?"
    ("never states: wrote") though it reads "Roger Daley, 1991, “Atmospheric data analysis,” …":
    a reference list's "[7] Lund A (2020) …" was the only citation form read. An author-year
    citation and a year before a quoted title are citations too. (NIST cites by number only, so only
    the manuals show it.)"""
    from citerag.answer.asked import CUES

    assert CUES["citation"].search("as shown by Lund and Okafor [2019, p 3]")
    assert not CUES["citation"].search("Version 2.12 was released in 2019.")
    answered(agents, "tech-manuals", "Which paper is the data of Gri's wind contouring example taken from?", "Koch")
    answered(agents, "tech-manuals", "Who wrote 'Atmospheric data analysis', cited by the Gri manual?",
             "Roger Daley")


def test_a_copyright_notice_says_who_holds_the_copyright(agents):
    """"Who holds the copyright of the Auto Multiple Choice documentation?" was refused: its title
    page's "Copyright © 2008-2022 Alexis Bienvenüe" has no verb, so no unit was read from it. A
    copyright notice is read as a fact, and it states who holds the copyright. (NIST's publications
    carry no such notice, so only the manuals show it.)"""
    assert "Copyright (C) 1999 Widget Inc." in unit_texts("", "Widget Manual\n\nCopyright (C) 1999 Widget Inc.")
    assert not any("Copyright" in t for t in unit_texts("", "Widget Manual\n\nCopyright and licensing"))
    answered(agents, "tech-manuals", "Which years does the copyright of the Auto Multiple Choice documentation cover?",
             "2008-2022")


def test_that_section_is_the_part_the_answer_named(agents):
    """After "… which section concludes the report?" answered "Section 4 concludes …", "who is the
    author of that section?" was rewritten "… of the section in NIST IR 8545?" and answered with the
    report's list of authors. A demonstrative before a part kind the previous question asked for is
    the part its answer named: "Section 4" in a sentence, or a contents entry's number ("6 | Contour
    Plots … 23" is Chapter 6)."""
    q = rewritten(agents, "default", "Which section of NIST IR 8545 concludes the report?",
                  "1.1 Purpose and Organization of This Document: Section 4 concludes and describes the next "
                  "steps in the standardization process. [c2]", "who is the author of that section?")
    assert "Section 4" in q, q
    q = rewritten(agents, "tech-manuals", "Which chapter of the Gri manual is about contour plots?",
                  "6 | Contour Plots … 23. [c9]", "what example does that chapter begin with?")
    assert "Chapter 6" in q, q


def test_who_is_the_x_of_asks_for_x(agents):
    """"Who is the author of Section 4 in NIST IR 8545?" was answered "Section 4 concludes and
    describes the next steps …": "who is the X of …" asked for no noun, so no check looked for an
    author in the evidence. It asks for X, as "what is the X of …" does. (The manuals' such
    questions were refused by other checks already, so only NIST shows it; the pure check shows
    any question's.)"""
    from citerag.answer.asked import asked_heads

    assert [h.word for h in asked_heads("Who is the maintainer of the widget module?")] == ["maintainer"]
    assert asked_heads("Who wrote the widget module?") == ()
    refused_noting(agents, "default", "Who is the author of Section 4 in NIST IR 8545?", "author")


def test_a_number_the_question_writes_does_not_answer_what_size(agents):
    """"What font size does Example 5 set before drawing the contours?" was answered by the plot's
    own title, "Example 5 -- wind (Fig5 Koch et al, 1983)": its digits are the example's number the
    question wrote, a figure label's and a citation's year, none of them a size. (Only the manuals'
    rendered figure titles show it; the pure check shows any corpus's.)"""
    q = "What font size does Example 5 set before drawing the contours?"
    [head] = asked_heads(q)
    assert not head_stated(head, "", "Example 5 -- wind (Fig5 Koch et al, 1983). [c1]", q)
    assert head_stated(head, "", "Example 5 sets the font size to 5. [c1]", "What font size does Example 3 set?")
    assert head_stated(head, "", "The labels are drawn in 64-bit words. [c1]", q)
    refused_noting(agents, "tech-manuals", "In the Gri manual, what font size does Example 5 set before drawing the "
                   "contours?", "size")


def test_an_equation_set_apart_from_its_right_side_is_read_whole(agents):
    """FIPS 205 sets each function's instantiation as "PRF msg(SK.prf, opt_rand, M) =" over
    "Truncn(HMAC-SHA-512(…))", two paragraphs of the extracted page: read apart, the left side
    says what is defined and the right what it is, and "which function instantiates PRFmsg?" was
    refused. A paragraph ending on an equation's "=" is read with the next one. (Only NIST's
    display equations show it: the manuals set none apart.)"""
    texts = unit_texts("", "The function G shall be instantiated as follows:\n\nG(x, y) =\n\nTrunc(H(x ∥ y))\n\n"
                           "The end of it is here.")
    assert any("G(x, y) = Trunc(H(x ∥ y))" in t for t in texts), texts
    assert not any(t.strip(". ") in ("G(x, y) =", "Trunc(H(x ∥ y))") for t in texts), texts
    assert any(t.startswith("The end of it") for t in texts), texts
    answered(agents, "default", "Which function instantiates PRFmsg for SLH-DSA-SHA2-192s?", "HMAC-SHA-512")


def test_the_unit_an_author_belongs_to_is_read_from_the_byline(agents):
    """A title page gives each author's unit beside the names ("Yi-Kai Liu Applied and
    Computational Mathematics Division Information Technology Laboratory"), a line with no verb:
    "under which division is <name> listed on the title page of X?" and "which division do the
    authors of X belong to?" ask for that byline, and the line naming the person asked about is
    the answer, not the document's first byline. (Only NIST's title pages name the authors' units:
    the manuals' bylines give names alone.)"""
    from citerag.answer.asked import asks_byline

    assert asks_byline("Under which division is Carl Miller listed on the title page of NIST IR 8545?",
                       ("NIST IR 8545",))
    assert asks_byline("Which division of NIST do the authors of IR 8547 belong to?", ("IR 8547",))
    assert not asks_byline("Which standards organization co-authored IR 8547 with NIST?", ("IR 8547",))
    answered(agents, "default", "Under which NIST division is Yi-Kai Liu listed on the title page of NIST IR 8545?",
             "Applied and Computational Mathematics Division")
    answered(agents, "default", "What division of NIST do the authors of SP 800-227 belong to?",
             "Computer Security Division")


def test_a_plots_axis_labels_are_no_code(agents):
    """Gri's Example 8 ends on a note in parentheses, "(… the -p flag was specified on execution,
    so the time stamp was not drawn.)", and then the plot's own labels, which the extraction sets
    line by line ("Example 8", "27.8", "27.9", "σ T", …, "km"). The note reads as a sentence left
    open (it ends on ")"), so the labels were read as the code it runs into, and "Example 8 27.8
    27.9 σ T …" answered every question on the example. A paragraph whose lines are half or more
    numbers alone is a plot's tick labels, no code. (Only the manuals' plots follow such a note:
    no NIST answer changed.)"""
    texts = unit_texts("", "Example 8 draws a section.\n\n(In the plot shown, the -p flag was specified, so the "
                           "time stamp was not drawn.)\n\nExample 8\n27.8\n27.9\nσ T\n28.0\n28.1\n300 200 100 0\nkm")
    assert not any("27.8" in t for t in texts), texts
    assert any("time stamp was not drawn" in t for t in texts), texts
    answered(agents, "tech-manuals", "In Gri's Example 8, why is no time stamp drawn on the plot shown?", "-p")


def test_a_function_applied_to_each_entry_is_the_call_in_the_loop(agents):
    """"Which function does ScalarVectorNTT apply to each entry of the vector?" was refused: the
    step that answers, "2: w[i] ← MultiplyNTT(c, v[i])" under "1: for i from 0 to l-1 do", writes
    neither "apply" nor "entry". "Apply" asks for a call as "use" does, and a step indexing what it
    reads or writes ("v[i]", "A[i,j]") inside a "for" loop does it to each entry. (Only NIST's
    documents set numbered pseudocode steps; no manuals answer changed.)"""
    answered(agents, "default", "Which function does ScalarVectorNTT in FIPS 204 apply to each entry of the vector?",
             "MultiplyNTT")
    answered(agents, "default", "Which function does AddVectorNTT in FIPS 204 apply to each entry?", "AddNTT(")


def test_a_document_is_named_by_its_id_without_its_draft_mark():
    """"How does the NIST IR 8547 glossary define symmetric key cryptography?" was refused: the
    ways of naming "NIST.IR.8547.ipd" mined from its id were "NIST IR 8547 ipd", "IR 8547" and
    "8547", so the question's "NIST IR 8547" matched as "IR 8547", and its "NIST" was read as a
    name the cited glossary entry must state. A reader names a document by its id without the
    draft or edition mark after the number. (Only NIST's ids carry such a mark: the manuals'
    mentions are unchanged.)"""
    from citerag.build.knowledge import mine_mentions

    mined = mine_mentions({"ACME.TR.12.draft": "Widget Report", "ACME.TR.14": "Gadget Report"}, {})
    assert ("ACME TR 12", "ACME.TR.12.draft") in mined
    assert not any(p == "ACME TR" for p, _ in mined)  # (the series alone names no document)


def test_a_document_named_with_its_series_is_still_asked(agents):
    """See `test_a_document_is_named_by_its_id_without_its_draft_mark`: on the built corpus."""
    answered(agents, "default", "How does the NIST IR 8547 glossary define symmetric key cryptography?",
             "same secret key")


def test_a_reference_named_by_its_mark_is_its_entry(agents):
    """"Which paper does NIST IR 8545 cite as reference [25], and who wrote it?" was refused after
    two rounds: the entry ("[25] Robert D (2023) Breaking SIDH in Polynomial Time …") shares only
    the mark with the question, and retrieval found the passages citing other works. And with the
    list retrieved, its neighbours ("[24] …", "[26] …") were answered as readily. A question naming a
    reference of a document by its mark looks up the chunk holding that entry, and of the list's
    entries only the marked one answers; an entry states its authors by its form ("which authors
    does reference [23] list?"). (Only NIST's documents number their references: no manuals
    answer changed.)"""
    from citerag.answer.asked import entry_mark, lists_reference, reference_marks

    assert reference_marks("What does reference [12] of X say, and [3]?") == ("12", "3")
    assert reference_marks("What happens to flowables[0]?") == ()
    assert lists_reference("25", "was broken [24].\n- [25] Robert D (2023) Breaking SIDH.")
    assert not lists_reference("24", "was broken [24].\n- [25] Robert D (2023) Breaking SIDH.")
    assert entry_mark("[25] Robert D (2023) Breaking SIDH.") == "25"
    answered(agents, "default", "Which paper does NIST IR 8545 cite as reference [25], and who wrote it?",
             "Breaking SIDH in Polynomial Time")
    answered(agents, "default", "Which paper does NIST IR 8545 cite as reference [24]?",
             "An attack on SIDH with arbitrary starting curve")
    answered(agents, "default", "Which authors does FIPS 203's reference [23] list first and last?", "Alagic G")


def test_prose_naming_a_chapter_says_which_chapter_covers_a_thing(agents):
    """"Which chapter of the ReportLab user guide covers the Graphics library and its charting
    package?" was refused: with a contents list in the evidence, a chapter part was answered by
    contents entries alone, and the one for Chapter 11 was not among them, while the retrieved
    section said it in prose ("Chapter 11 also contains details of the ReportLab charting package
    …"). Prose naming a chapter by its number answers a chapter part too, ranked with the entries.
    (Only the manuals cross-reference chapters: no NIST answer changed.)"""
    from citerag.answer.asked import names_part

    assert names_part("chapter", "A fuller description is covered in Chapter 11 of this document.")
    assert not names_part("chapter", "Each chapter ends with exercises.")
    answered(agents, "tech-manuals",
             "Which chapter of the ReportLab user guide covers the Graphics library and its charting package?",
             "Chapter 11")


def test_a_contents_entry_of_another_document_is_no_answer(agents):
    """"On which page of NIST IR 8547 is Table 2?" was answered with IR 8547's entry and then IR
    8545's ("Table 2. Fourth-round KEM candidates … 4"), a runner-up as close: both open with the
    label the question names. A contents entry says where a part is in its own document; when
    the question names a document, another document's entry is no answer. (Only NIST's documents
    number their tables alike: no manuals answer changed.)"""
    r = ask(agents, "default", "On which page of NIST IR 8547 is Table 2?")
    assert not r.answer.refused and "Quantum-vulnerable digital signature algorithms … 13" in r.answer.answer
    assert "Fourth-round" not in r.answer.answer, r.answer.answer


def test_a_labelled_list_item_and_a_continued_code_line_are_read_whole(agents):
    """Two layouts lost a stated value. A preferences list set item by item ("- Marks size max
    increase: 0.20") was read as no statement (the bullet hid the "label: value" form a plain
    line is read as), so "what is AMC's default marks size max increase?" got other sentences.
    And a command continued over lines by a trailing backslash, each continuation set as its own
    paragraph, was read as its first piece only ("drawlabel"\\label"at\\"), the values it
    announces lost. The bullet is set aside to read the label, and a continued line is joined to
    the paragraph continuing it (a doubled backslash, a markup line break, is not a continuation).
    (Only the manuals set either: no NIST answer changed.)"""
    assert unit_texts("Detection parameters", "Detection parameters\n\n- Marks size max increase: 0.20\n\n"
                      "- Vector formats density (DPI) : 250\n\n- Black & white conversion threshold : 0.60") == [
        "Marks size max increase: 0.20", "Vector formats density (DPI): 250", "Black & white conversion threshold: 0.60"]
    texts = unit_texts("", "To move it right, you could do as follows:\n\ndraw label \"x\" at \\\n\n{rpn .x. 1 +} \\\n\n"
                       "{rpn .y. 2 -}\n\nLine one \\\\\n\nSomething else entirely stated here.")
    assert "draw label \"x\" at \\ {rpn .x. 1 +} \\ {rpn .y. 2 -}" in texts, texts
    assert "Something else entirely stated here." in texts, texts
    answered(agents, "tech-manuals", "What is AMC's default value for the marks size max increase in its detection "
             "parameters?", "0.20")
    answered(agents, "tech-manuals", "How do you put a Gri label 0.15 cm to the right of a location given in user "
             "coordinates?", "xusertocm")


def test_an_adjective_is_known_from_its_adverb(agents):
    """"Is the external/internal split for ML-DSA key generation a functional change from the
    draft FIPS, or only editorial?" was refused: no retrieved passage wrote "functional", taken
    for the kind of change asked about, though the answer says "… a purely editorial change, as the
    external key generation algorithm is functionally equivalent …". A word is known from its
    adverb in -ly as from its inflections. (No manuals answer changed.)"""
    from citerag.answer.answerer import _in_corpus

    assert _in_corpus("functional", {"functionally", "equivalent"})
    assert not _in_corpus("functional", {"function", "equivalent"})
    answered(agents, "default", "Is the external/internal split for ML-DSA key generation a functional change from "
             "the draft FIPS, or only editorial?", "purely editorial")


def test_a_sentence_a_layout_broke_into_list_items_is_read_whole(agents):
    """"Which laboratories belong to the intended audience of the transition report?" was refused:
    IR 8547's layout set its audience sentence line by line as list items ("- This document is
    intended for a broad audience, including federal agencies, technology", "- providers, …
    (CMVP)", "- laboratories. These groups …"), and the last piece, "laboratories.", was dropped
    as no statement. An item opening on a capital, of a sentence's length, with no mark ending it,
    is joined to the items after it that open in lower case, up to the sentence's end. (No
    manuals verdict changed.)"""
    texts = unit_texts("", "- This document is intended for a broad audience, including agencies, technology\n\n"
                       "- providers, and Widget Validation Program\n\n- laboratories. These groups plan the move.")
    assert texts[0] == ("This document is intended for a broad audience, including agencies, technology providers, "
                        "and Widget Validation Program laboratories."), texts
    # items that end as sentences stay a list
    texts = unit_texts("", "Two options are offered here:\n\n- The first one draws the x axis with its ticks.\n\n"
                       "- the second one draws the y axis with its ticks.")
    assert texts[1:] == ["The first one draws the x axis with its ticks.",
                         "the second one draws the y axis with its ticks."], texts
    answered(agents, "default", "Which laboratories belong to the intended audience of the transition report?",
             "Cryptographic Module Validation Program (CMVP) laboratories")


def test_a_numbered_line_of_a_named_algorithm_is_answered_by_that_step(agents):
    """"In FIPS 204, what does line 7 of ML-DSA.Sign_internal compute?" was answered with prose
    about the algorithm, and "what does line 3 of ML-KEM.Decaps_internal extract …?" with line 1
    (its comment shares "extract … key"): by words alone, the step the question names by its number
    lost. A question naming lines of a named algorithm is answered by its title and those steps,
    with a comment the layout set on the line after a step; not a question asking why (the reason
    is prose). (No manuals question names a numbered line: no manuals answer changed.)"""
    from citerag.answer.asked import asked_lines

    assert asked_lines("What do lines 1 through 3 of X compute, and what does line 4 do?") == (1, 2, 3, 4)
    assert asked_lines("Which lines 10 and 12 of X extract idxtree?") == (10, 12)
    assert asked_lines("Which lines of X extract idxtree?") == ()
    answered(agents, "default", "In FIPS 204, what does line 7 of ML-DSA.Sign_internal compute?",
             "compute private random seed")
    answered(agents, "default", "What does line 3 of ML-KEM.Decaps_internal extract from the decapsulation key?",
             "extract hash of PKE encryption key")
    answered(agents, "default", "Why was domain separation added to line 1 of Algorithm 6 in FIPS 204?",
             "misuse resistance")


def test_what_a_named_code_example_sets_is_answered_by_its_setter_calls(agents):
    """"In the ReportLab user guide's coords example, which font and size does the canvas set?"
    was answered with prose about the mirror example (which calls coords(canvas)), and "what line
    width and stroke colour does the variousshapes example set?" with prose on style properties:
    the code lines of the example itself share few words with the question, hidden inside names
    ("c.setFont(…)", "setStrokeColorRGB(…)"). For a question asking what a named example sets, the
    setter calls of the code defining a function of that name are read by the words inside their
    names, either spelling ("colour"), one call per asked word. Not for what an example draws,
    imports or starts a value at, measured: those are no setter's call. (NIST writes no code
    examples: no NIST answer changed.)"""
    from citerag.answer.asked import example_name

    assert example_name("In the user guide's coords example, which font does the canvas set?") == "coords"
    assert example_name("By how much does the translate function move the origin?") == "translate"
    assert example_name("What does the guide's example show?") == ""
    answered(agents, "tech-manuals", "In the ReportLab user guide's coords example, which font and size does the "
             "canvas set?", 'setFont("Times-Roman", 20)')
    r = ask(agents, "tech-manuals", "What line width and stroke colour does the variousshapes example set?")
    assert "setLineWidth(4)" in r.answer.answer and "setStrokeColorRGB(0, 0.2, 0.7)" in r.answer.answer, r.answer.answer


def test_a_plain_adjective_is_written_by_a_degree_of_it(agents):
    """"For very short answers, which environment can AMC use …?" was refused: no retrieved
    passage wrote "short", the kind of thing asked about, though the manual says "For even
    shorter answers, … the choiceshoriz environment". A passage using the adjective in a degree
    of it writes it: a comparative after an intensifier or before "than", a superlative after
    "the". Not a bare -er word: "printer" and "header" are nouns of their own, no degree of
    "print" or "head"."""
    from citerag.answer.answerer import _degree_written

    assert _degree_written("short", ["For even shorter answers, one can …"])
    assert _degree_written("simple", ["the simplest way is"]) and _degree_written("early", ["earlier than 2.6"])
    assert not _degree_written("print", ["Send it to the printer."]) and not _degree_written("head", ["the header line"])
    answered(agents, "tech-manuals", "For very short answers, which environment can AMC use instead of choices "
             "to print the answers one after another?", "choiceshoriz")


def test_a_control_construct_of_a_named_algorithm_is_answered_by_its_steps(agents):
    """"What condition does the while loop of gen_len2 test?" was refused (no passage said
    "condition") and "which pre-hash functions does the switch in hash_slh_verify name?" was
    answered with the algorithm's description: the step opening with the construct's keyword
    states what is asked of it by its form ("6: while capacity ≤ max_checksum do", "5: case
    SHA-256:"). Not for the construct's limits or iterations, nor a step before or inside it:
    those are prose, a table, or another step."""
    from citerag.answer.asked import asked_construct

    assert asked_construct("and what condition does the gen_len2 while loop test?") == ("while",)
    assert asked_construct("Which functions does the switch in X name?") == ("switch", "case")
    assert asked_construct("What is the while-loop limit for SampleNTT?") == ()
    assert asked_construct("What value is len initialized to before the outer loop?") == ()
    answered(agents, "default", "What condition does the while loop of gen_len2 in FIPS 205 test?",
             "while capacity ≤ max_checksum")
    answered(agents, "default", "What condition does the while loop of SampleNTT in FIPS 203 test?", "while j < 256")
    r = ask(agents, "default", "Which pre-hash functions does the switch in hash_slh_sign of FIPS 205 name?")
    assert all(f"case {h}:" in r.answer.answer for h in ("SHA-256", "SHA-512", "SHAKE128", "SHAKE256")), r.answer.answer


def test_an_unwritten_member_of_a_hyphenated_name_family_is_unknown(agents):
    """"Which Emacs key binding runs gri-fragment-list in gri-mode?" was answered with gri-mode's
    help keys: each part of the name is a word the manual uses, so the unknown-term check let it
    pass. The manual names its Emacs commands by a family ("gri-mode", "gri-info",
    "gri-option-select", …), and this member is written nowhere. A name of three or more
    hyphenated parts whose head is such a family's (a name, not an English word: "key-", "non-")
    and that the corpus never writes is unknown. Written members are not ("gri-option-select",
    "SLH-DSA-SHA2-128s"), nor two-part coinages ("rpn-sqrt")."""
    from citerag.answer.answerer import unwritten_members

    store = agents["tech-manuals"].store
    vocab = set(store.bm25._bm25.idf)
    assert unwritten_members("Which key runs gri-fragment-list?", vocab, store.ordinary) == ["gri-fragment-list"]
    assert unwritten_members("What does gri-option-select do?", vocab, store.ordinary) == []
    assert unwritten_members("What does the rpn-sqrt do?", vocab, store.ordinary) == []
    nist = agents["default"].store
    assert unwritten_members("What is SLH-DSA-SHA2-128s?", set(nist.bm25._bm25.idf), nist.ordinary) == []
    r = ask(agents, "tech-manuals", "Which Emacs key binding runs gri-fragment-list in gri-mode?")
    assert r.answer.refused and r.answer.refusal_reason == "unknown_terms", r.answer.answer


def test_a_numbered_label_the_answer_gives_another_number_is_not_stated(agents):
    """"What example does FIPS 205 give for the base 10 logarithm?" was answered with the base 2
    example, and "What decryption failure rate does IR 8545 report for BIKE at security level 5?"
    with level 1's block lengths: near misses, each asking for a sibling the documents do not
    describe. A noun the question labels by a number ("base 10", "security level 5", "version
    2.12.5") that the answer labels only by other numbers, while neither it nor its cited evidence
    gives the asked one (alone, in a list "levels 1, 3, and 5", or with the space dropped,
    "{rpn0argv}"), is not stated. Document parts, lines and steps are labels of their own."""
    from citerag.answer.asked import contradicted_labels

    assert contradicted_labels("the base 10 logarithm?", "The base 2 logarithm of x . [c1]") == [
        "base 10 (the answer states base 2)"]
    assert contradicted_labels("at security level 5?", "for security levels 1, 3, and 5 [c2]") == []
    assert contradicted_labels("What did version 2.12.5 fix?", "Version 2.12.4 fixed …", "Version 2.12.5 …") == []
    assert contradicted_labels("What is in Table 5?", "Table 4 lists [c1]") == []
    r = ask(agents, "default", "What example does FIPS 205 give for the base 10 logarithm?")
    assert r.answer.refused and r.answer.refusal_reason == "focus_not_stated", r.answer.answer
    answered(agents, "tech-manuals", "What does Gri's rpn 0 argv return?", "command-file")


def test_which_algorithm_does_x_is_answered_by_one_that_does_x(agents):
    """"Which FIPS 204 algorithm computes the difference of two elements of Tq?" was answered with
    AddNTT, which "computes the sum": a near miss, the standard has no such algorithm. A question
    asking which algorithm (class, widget, macro, environment, procedure) does a thing asks, like
    one asking which option or command does it, for one the answer says does that thing: its
    rarest word must be said. ("method" and "function" stay out: a method is often named by what it
    does in its name, "dumpProperties() method … to list these", and a standard's functions by what
    they compute in other words; measured, both lose more correct answers than they refuse.)"""
    from citerag.answer.asked import setting_words

    assert "difference" in setting_words("Which FIPS 204 algorithm computes the difference of two elements of Tq?")[0]
    assert setting_words("Which method lists the properties of a shape?") == ((), ())
    r = ask(agents, "default", "Which FIPS 204 algorithm computes the difference of two elements of Tq?")
    assert r.answer.refused and r.answer.refusal_reason == "focus_not_stated", r.answer.answer
    answered(agents, "default", "Which FIPS 204 algorithm computes the sum of two elements of Tq?", "AddNTT")
    r = ask(agents, "tech-manuals", "Which ReportLab chart class draws bar charts with a glossy finish?")
    assert r.answer.refused and r.answer.refusal_reason == "focus_not_stated", r.answer.answer


def test_a_superlative_asks_for_a_limit(agents):
    """"What is the largest corner radius ReportLab allows in ROUNDEDCORNERS?" and "How many
    component KEMs may a composite KEM combine at most?" were answered with what the documents say
    of corner radii and of component KEMs, neither stating a bound. A superlative of size ("largest",
    "longest", "smallest", …) or "at most" asks for a limit, as "maximum" does, and an answer
    states one by a limit's words or by a range ("between 1 and 4194303")."""
    from citerag.answer.asked import unshown_quantities

    limit = "a limit (maximum or minimum)"
    q = "What is the largest corner radius ReportLab allows in ROUNDEDCORNERS?"
    assert unshown_quantities(q, "A positive non-zero radius indicates that the corner is rounded. [c2]") == [limit]
    assert unshown_quantities("What is the largest value the random seed may be given?",
                              "The seed (which can be chosen between 1 and 4194303) is modified. [c1]") == []
    r = ask(agents, "tech-manuals", q)
    assert r.answer.refused and r.answer.refusal_reason == "focus_not_stated", r.answer.answer
    r = ask(agents, "default", "How many component KEMs may a composite KEM combine at most, according to SP 800-227?")
    assert r.answer.refused and r.answer.refusal_reason == "focus_not_stated", r.answer.answer
    answered(agents, "tech-manuals", "What is the largest value the AMC random seed may be given?", "4194303")


def test_a_sentence_the_chunker_cut_is_completed_by_the_next_chunk(agents):
    """"What line can you put first in a Gri program to make it an executable script?" was
    answered with "… you can put the following line as the first line in your Gri program.": the
    chunker had cut there, and the line itself ("#!/usr/bin/gri") opens the next chunk, which the
    evidence never held. A chunk whose text stops inside a sentence brings its document's next
    chunk into the evidence, and a chosen sentence cut so is read with the code lines (or the rest
    of the sentence) that chunk opens with. An interpreter line is code, not a heading."""
    from citerag.answer.evidence import cut_inside_sentence

    assert cut_inside_sentence("Executable scripts. You can put the following line as the first line in your program")
    assert not cut_inside_sentence("Executable scripts. You can put the following line first.")
    answered(agents, "tech-manuals", "What line can you put first in a Gri program to make it an executable script?",
             "#!/usr/bin/gri")
