"""Conversation mode over the real index: router, rewriter, grader, validator, clarification,
memory across processes, the chat batch contract, and the regression against simple mode."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid

import pytest
from citerag.core.paths import repo_root
from citerag.experiments.evalset import load_conversations, load_questions
from citerag.experiments.metrics import (
    conversation_metrics,
    conversation_target_checks,
    run_conversations,
)

pytestmark = pytest.mark.corpus
ROOT = repo_root()
EVAL = ROOT / "data" / "nist-pqc" / "eval"


@pytest.fixture(scope="module")
def store(built, corpus_params):
    from citerag.retrieval.store import load_store

    return load_store(corpus_params)


@pytest.fixture
def make_engine(store, corpus_params, tmp_path):
    from citerag.conversation.engine import ChatEngine

    def make(**overrides):
        p = corpus_params.with_overrides({"agent.conversational": True,
                                          "agent.conversation.memory_path": str(tmp_path / "threads.sqlite"),
                                          **overrides})
        return ChatEngine(store, p)

    return make


@pytest.fixture(scope="module")
def decider(store, corpus_params):
    from citerag.conversation.engine import make_decider

    return make_decider(corpus_params, store, dict(store.bm25._bm25.idf))


def _turn(user, rewritten=None, route="RETRIEVE", answer="", evidence_text=""):
    return {"user": user, "rewritten_query": rewritten or user, "route": route, "answer": answer,
            "refused": False, "evidence_text": evidence_text, "evidence": []}


SIZES = "Table 3, Sizes (in bytes) of keys and ciphertexts of ML-KEM: ML-KEM-1024: encapsulation key 1568"


@pytest.mark.parametrize("user, history, route", [
    ("How big is an ML-KEM-512 encapsulation key?", [], "RETRIEVE"),
    ("help me with the standard", [], "ASK_CLARIFICATION"),
    ("explain the document to me", [_turn("What is ML-KEM?")], "ASK_CLARIFICATION"),
    ("and for ML-KEM-1024?", [_turn("How big is an ML-KEM-512 encapsulation key?")], "REWRITE_THEN_RETRIEVE"),
    ("and its public key?", [_turn("What is the signature size of ML-DSA-87?")], "REWRITE_THEN_RETRIEVE"),
    ("which MAC algorithms can it use?", [_turn("Which requirements cover key confirmation?")],
     "REWRITE_THEN_RETRIEVE"),
    ("is that in bytes?", [_turn("How big is an ML-KEM-1024 encapsulation key?", evidence_text=SIZES)],
     "DIRECT_ANSWER"),
    # a check whose word the previous evidence lacks needs retrieval, not a direct answer
    ("is that in bits?", [_turn("How big is an ML-KEM-1024 encapsulation key?", evidence_text=SIZES)],
     "REWRITE_THEN_RETRIEVE"),
    ("Why was SIKE not selected?", [_turn("Which KEM did NIST select?")], "RETRIEVE"),
    ("what if the context string is too long?", [_turn("What does ML-DSA.Sign return?")], "REWRITE_THEN_RETRIEVE"),
    ("and where?", [_turn("When was the first standardization conference held?")], "REWRITE_THEN_RETRIEVE"),
    ("and where?", [], "ASK_CLARIFICATION"),
    # a lone word after a question about a quoted term fills the quotes, even a function word
    ("and shall?", [_turn("What does 'should' indicate in this standard?")], "REWRITE_THEN_RETRIEVE"),
    ("and shall?", [_turn("What does the standard say about key sizes?")], "ASK_CLARIFICATION"),
    # a closing "there" points back at the previous question's place; an existential one does not
    ("why is the NTT used there?", [_turn("What is the value of zeta used for the NTT in FIPS 204?")],
     "REWRITE_THEN_RETRIEVE"),
    ("Is there a limit on the context string length in ML-DSA?", [_turn("What does ML-DSA.Sign return?")],
     "RETRIEVE"),
])
def test_router(decider, user, history, route):
    assert decider.route(user, history).route == route


@pytest.mark.parametrize("user, prev, answer, must", [
    ("and for ML-KEM-1024?", "How big is an ML-KEM-512 encapsulation key?", "", ["ML-KEM-1024", "encapsulation key"]),
    ("what about ML-DSA-87?", "What is the signature size of ML-DSA-65?", "", ["ML-DSA-87", "signature size"]),
    ("and for SLH-DSA-SHA2-128f?", "What is the signature size of SLH-DSA-SHA2-128s?", "",
     ["SLH-DSA-SHA2-128f", "signature size"]),
    ("and its public key?", "What is the signature size of ML-DSA-87?", "", ["ML-DSA-87", "public key"]),
    ("and disallowed?", "When will 112-bit RSA digital signatures be deprecated?", "", ["RSA", "disallowed"]),
    ("what is the license fee for them?", "When will 112-bit RSA digital signatures be disallowed?", "",
     ["112-bit RSA digital signatures", "license fee"]),
    ("and which requirements cover key confirmation?", "How many times may an ephemeral KEM key pair be used "
     "under SP 800-227?", "", ["SP 800-227", "key confirmation"]),
    ("which MAC algorithms can it use?", "Which requirements cover key confirmation in SP 800-227?", "",
     ["key confirmation", "MAC"]),
    # a condition added to the previous question keeps the question whole
    ("and if the matrix is stored by columns?", "How does Gri read grid data for a contour plot?", "",
     ["How does Gri read grid data for a contour plot if the matrix is stored by columns"]),
    ("what if the context string is longer than 255 bytes?", "What does ML-DSA.Sign return?", "",
     ["What does ML-DSA.Sign return if the context string is longer than 255 bytes"]),
    # a bare question word asks the same question anew
    ("and where?", "When was the first standardization conference held?", "",
     ["Where was the first standardization conference held"]),
    # the same head noun with another modifier: the previous question about this one
    ("and the annotate command?", "What does the auto-multiple-choice imprime command do?", "",
     ["What does the auto-multiple-choice annotate command do"]),
    # ... or the same modifier with another head (the modifier, a hyphenated name the previous
    # question already has, is not what changed)
    ("and a key-derivation method?", "How does SP 800-227 define a key-derivation key?", "",
     ["How does SP 800-227 define a key-derivation method"]),
    # "the one on X": the previous question's noun before the same preposition, with X for its topic
    ("and the one on subscripts?", "On which page of the manual does the section on rpn examples start?", "",
     ["On which page of the manual does the section on subscripts start"]),
    ("and the one on colors?", "What does the chapter on fonts say about Helvetica?", "",
     ["What does the chapter on colors say about Helvetica"]),
    # "which one …" asks for the kind the previous question asked for, about its named subject
    ("and which one re-generates the matrix A?", "Which function does K-PKE.Encrypt use to sample y?", "",
     ["which function re-generates the matrix A", "K-PKE.Encrypt"]),
    ("and which one sorts the rows by date?", "Which letter sorts the rows by name in the tally tool?", "",
     ["which letter sorts the rows by date"]),
    ("and which one is used for PRF there?", "Which hash function instantiates PRFmsg in FIPS 205?", "",
     ["which hash function is used for PRF in FIPS 205"]),
    # ... but a plural kind listed several, and "which one" picks among them
    ("and which one will be retired?", "Which formats did the tool support in version 2?", "",
     ["which one will be retired"]),
    # "its" after "the X property of Y" is X's, not Y's
    ("what is its default?", "What does the barSpacing property of a VerticalBarChart do?", "",
     ["barSpacing default"]),
    # a lone option, command or macro takes the place of the previous one with the same mark
    ("and --quiet?", "What does the --verbose flag of the packer do?", "",
     ["What does the --quiet flag of the packer do"]),
    ("and \\twocolumn?", "Where must \\onecopy be placed in the source file?", "",
     ["Where must \\twocolumn be placed in the source file"]),
    # a lone name that shares its stem with a name of the previous question takes its place
    # (not the question's last word), with the old name's numbered label dropped
    ("and MergeRows?", "What does Step 4 MergeCols return in Part 7?", "", ["What does MergeRows return in Part 7"]),
    ("and valueStep?", "What is the default valueMax of a value axis?", "",
     ["What is the default valueStep of a value axis"]),
    # a short sibling name ("ymin" of "ymax") shares too few letters: the embedding says which
    # word it stands for, not the question's last word
    ("and ymin?", "What value does the ymax operator push onto the stack?", "",
     ["What value does the ymin operator push onto the stack"]),
    ("and decapsulation?", "Which checks does the encapsulation algorithm perform on its input?", "",
     ["Which checks does the decapsulation algorithm perform on its input"]),
    # the entity comes from the previous answer: "which KEM …?" is answered with a name
    ("what are its key sizes?", "Which KEM did NIST select for standardization?",
     "In summary, NIST has only selected HQC for standardization. [c1]", ["HQC"]),
    # "there" is the previous question's document, or its closing "in …" phrase
    ("why is the NTT used there?", "What is the value of zeta used for the NTT in FIPS 204?", "",
     ["why is the NTT used in FIPS 204"]),
    ("what else is stored there?", "Which values are kept in the array zetas?", "",
     ["what else is stored in the array zetas"]),
    # "What does X <verb>?": the verb is not what "it" refers to; a final object is
    ("how large is it?", "What does the key generation algorithm output?", "", ["key generation algorithm"]),
    # ... nor the verb after an identifier the question asks about ("What does pack_rows generate?")
    ("what does it return when the input is empty?", "What does pack_rows generate?", "",
     ["what does pack_rows return when the input is empty"]),
    ("which applications is it still good for?", "Why did NIST decline to standardize Classic McEliece?", "",
     ["Classic McEliece"]),
    # a condition naming a sibling of the previous question's value: the same question for it
    # (the pronoun is the slot the new value fills, not the previous entity)
    ("and when it is SHA-512?", "Which OID does HashML-DSA.Verify use when the pre-hash function is SHA-256?", "",
     ["Which OID does HashML-DSA.Verify use when the pre-hash function is SHA-512"]),
    # a demonstrative before a noun the previous question names means that question's phrase for
    # it (with a name right after the noun), not the previous question's last word
    ("and which day is that version dated after?", "Which new features did the tool version 2.12.20 add?", "",
     ["the tool version 2.12.20 dated"]),
    ("and why are those schemes at risk?", "Which publications specify the other approved key establishment "
     "schemes besides RSA?", "", ["why are the approved key establishment schemes at risk"]),
    # a passive question ends on its participle, the verb: "it" is what the question is about
    ("can it be changed?", "Where is the encapsulation key stored?", "", ["can encapsulation key be changed"]),
    # "there" after a question about a numbered part of a document is that part, not the whole
    # document, and the part's number is no entity to carry ("is H faster than X there?")
    ("and which hash function does H use there?", "Which parameter sets does section 11.2.2 of FIPS 205 cover?", "",
     ["which hash function does H use in section 11.2.2 of FIPS 205"]),
    ("is it faster than BLAKE3 there?", "which hash function does H use in section 11.2.2 of FIPS 205?", "",
     ["is H faster than BLAKE3 in section 11.2.2 of FIPS 205"]),
    # a short fragment after a question about a quoted term takes the quotes' place
    ("and shall?", "What does 'should' indicate in FIPS 205?", "", ["What does 'shall' indicate in FIPS 205"]),
    ("and in FIPS 204?", "What does 'should' indicate in FIPS 205?", "", ["'should' indicate in FIPS 204"]),
    # a what/which question for a verb's object ends on the verb, after the subject the
    # auxiliary opens; a passive clause ends on its participle after a form of "be"
    ("can it be skipped?", "Which hash function does the key generation algorithm call?", "",
     ["can key generation algorithm be skipped"]),
    ("can it store strings?", "What happens when the new version is deleted?", "", ["can version store"]),
    # ... but a question that goes on past its verb ends on an object
    ("is it patented?", "What kind of multiplication does FIPS 204 speed up with Montgomery multiplication?", "",
     ["Montgomery multiplication patented"]),
    # the document scope in the middle of a question is dropped, not what follows it
    ("and why is it needed?", "On which page of FIPS 203 is the decapsulation key check described?", "",
     ["key check needed"]),
    # the relative "that" of "the values that X unpacks" points back at nothing
    ("and are the values that RowDecode unpacks always in range?", "What does RowEncode do in the codec?", "",
     ["the values that RowDecode unpacks"]),
    # a question may open on any preposition ("over what range …"); a participle with its own
    # preposition ("data stored in a file") ends the phrase carried for "that example"
    ("and over what range is the grid set to run in that example?",
     "How do I contour pre-gridded data stored in a file?", "",
     ["over what range is the grid set to run in the pre-gridded data example"]),
    # after a definition question a bare noun phrase takes the whole defined term's place, and a
    # bare document name the document's
    ("and an identifier?", "How does SP 800-227 define keying material?", "",
     ["How does SP 800-227 define an identifier"]),
    ("and in FIPS 204?", "How does FIPS 203 define keying material?", "", ["How does FIPS 204 define keying material"]),
    # a follow-up opening with its scope is still a question of its own, not a sibling to swap in
    ("and in the static-ephemeral example, which party is authenticated?",
     "Which kind of authentication does the protocol use, according to SP 800-227?", "",
     ["in the static-ephemeral example, which party is authenticated"]),
    # a one-word swap leaves a closing document scope alone ("… according to IR 8547": not "IR
    # disallowed"), and the question's frame verb ("mean")
    ("and disallowed?", "What does deprecated mean according to IR 8547?", "",
     ["What does disallowed mean according to IR 8547"]),    # "the term" naming no term is the one the previous question asked about
    ("who coined the term?", "What does little-endian mean in FIPS 204?", "", ["who coined the term little-endian"]),
    # "how does X work?" ends on a verb that takes no object: "its" is X, not "work"
    ("and how long must its tag be?", "How does key confirmation work in SP 800-227?", "",
     ["key confirmation tag"]),
    ("can it be skipped?", "How does key confirmation work in SP 800-227?", "", ["can key confirmation be skipped"]),
    ("and can the term be applied to bit strings too?", "What does little-endian mean in FIPS 204?", "",
     ["can the term little-endian be applied to bit strings"]),
])
def test_rewriter_carries_the_entities(decider, user, prev, answer, must):
    rw = decider.rewrite(user, [_turn(prev, answer=answer)])
    for entity in must:
        assert entity.lower() in rw.query.lower(), (rw.query, entity)


@pytest.mark.parametrize("user, prev, answer, query", [
    # a demonstrative before the noun the previous question asked for means the name its answer gave
    ("when will that KEM be standardized?", "Which KEM did the agency select for standardization?",
     "The agency selected HQC for standardization. [c1]", "when will HQC be standardized?"),
    ("what is the ciphertext size of that scheme?", "Which scheme did the round end with?",
     "The round ended with the selection of HQC. [c1]", "what is the ciphertext size of HQC?"),
    # "why that one?" asks the previous question again about the name its answer gave: after a
    # form of "be", or after the verb
    ("and why that one?", "Which KEM was selected for standardization?",
     "The agency selected HQC for standardization. [c1]", "Why was HQC selected for standardization?"),
    ("why that KEM?", "Which KEM did the agency select for standardization?",
     "The agency selected HQC for standardization. [c1]", "Why did the agency select HQC for standardization?"),
    # ... and a name after "does <subject> <verb>" is a phrase of its own, not the verb's
    ("how much faster is it than ML-KEM-1024?", "Why does NIST recommend ML-KEM-768 as the default?", "",
     "how much faster is ML-KEM-768 than ML-KEM-1024?"),
    # "when" with an auxiliary after it asks a question of its own, it adds no condition
    ("when will the final version appear?", "Which document does the agency plan to publish next?", "",
     "when will the final version appear?"),
])
def test_rewriter_reads_the_answer_for_the_asked_thing(decider, user, prev, answer, query):
    rw = decider.rewrite(user, [_turn(prev, answer=answer)])
    assert rw.query == query, rw


def test_the_term_a_follow_up_names_by_a_word_about_words_is_found_further_back(decider):
    """"who coined the term?" is a follow-up, though it has no pronoun; two turns after the
    definition question the term is read from the question that named it."""
    history = [_turn("What does little-endian mean in FIPS 204?"),
               _turn("Can the term little-endian also be applied to bit strings in FIPS 204?")]
    assert decider.route("who coined the term?", history).route == "REWRITE_THEN_RETRIEVE"
    assert "the term little-endian" in decider.rewrite("who coined the term?", history).query
    # a term it names itself is left as it is, and a self-contained question routes alone
    assert decider.route("Who coined the term big-endian?", history).route == "RETRIEVE"


def test_dev_conversations_meet_the_targets_with_expected_routes(make_engine):
    convs = load_conversations(EVAL / "conversations.jsonl")
    rows = run_conversations(make_engine(), convs, uuid.uuid4().hex[:8])
    bad_routes = [(r["cid"], r["turn"], r["route"], r["expected_route"]) for r in rows if not r["route_ok"]]
    assert bad_routes == []
    m = conversation_metrics(rows)
    assert all(conversation_target_checks(m).values()), m
    # the answer strings of the size follow-ups, turn by turn
    by = {(r["cid"], r["turn"]): r for r in rows}
    for key in [("c01", 1), ("c01", 2), ("c01", 3), ("c02", 2), ("c02", 3), ("c03", 2), ("c07", 2)]:
        assert by[key]["must_ok"], (key, by[key]["answer"])
    assert by[("c07", 3)]["refused"] and by[("c05", 1)]["refusal_reason"] == "clarification_needed"


def test_held_out_conversations_meet_the_targets(make_engine):
    rows = run_conversations(make_engine(), load_conversations(EVAL / "holdout_conversations.jsonl"), "h")
    m = conversation_metrics(rows)
    assert all(conversation_target_checks(m).values()), m


BASE = ["load_memory", "route"]
TAIL = ["retrieve", "grade", "generate", "validate", "save_memory"]


def test_trajectories_per_route(make_engine):
    eng = make_engine()
    t = "traj"
    assert eng.turn(t, "How big is an ML-KEM-512 encapsulation key?").trajectory == BASE + TAIL
    r = eng.turn(t, "and for ML-KEM-1024?")
    assert r.trajectory == [*BASE, "rewrite", *TAIL] and "1568" in r.answer
    r = eng.turn(t, "is that in bytes?")
    assert r.trajectory == [*BASE, "direct_answer", "validate", "save_memory"]
    assert r.route == "DIRECT_ANSWER" and not r.refused and "bytes" in r.answer
    # the asked thing ("fee") is in no evidence: the answer stage refuses, validation has nothing to fix
    eng.turn(t, "When will 112-bit RSA digital signatures be deprecated?")
    r = eng.turn(t, "what is the license fee for them?")
    assert r.trajectory == [*BASE, "rewrite", *TAIL] and r.refusal_reason == "focus_not_stated"
    # the asked event ("sells") is in no evidence either: refused at the answer stage too
    r = eng.turn(t, "who sells licences for them?")
    assert r.trajectory == [*BASE, "rewrite", *TAIL] and r.refusal_reason == "focus_not_stated"
    # a word the corpus never writes, heading the phrase asked about ("a discount"): refused at the
    # answer stage
    r = eng.turn(t, "is there a discount for them?")
    assert r.trajectory == [*BASE, "rewrite", *TAIL] and r.refusal_reason == "unknown_terms"
    # ... which, without the answer stage's absent-word checks, validation catches (the follow-up's
    # own word is in no cited text): regenerate once, then refuse
    lax = make_engine(**{"answer.absent_word_min_score": 0})
    lax.turn(t, "When will 112-bit RSA digital signatures be deprecated?")
    r = lax.turn(t, "is there a discount for them?")
    assert r.trajectory == [*BASE, "rewrite", "retrieve", "grade", "generate", "validate", "generate", "validate",
                            "save_memory"]
    assert r.refused and r.refusal_reason == "off_topic"
    validate = [e for e in r.trace if e["node"] == "validate"]
    assert [e["fallback"] for e in validate] == ["regenerate", "refuse"]


def test_grader_retries_are_bounded_then_caveat(make_engine):
    eng = make_engine(**{"agent.conversation.min_relevant": 20, "agent.conversation.max_retries": 2})
    r = eng.turn("grader", "What is the signature size of ML-DSA-65?")
    assert r.trajectory == [*BASE, "retrieve", "grade", "rewrite_retry", "retrieve", "grade", "rewrite_retry",
                            "retrieve", "grade", "generate", "validate", "save_memory"]
    grades = [e for e in r.trace if e["node"] == "grade"]
    assert [g["decision"] for g in grades] == ["retry", "retry", "generate_caveat"]
    assert all(0 <= s <= 1 for g in grades for s in g["grades"].values())
    assert r.caveat and "after 2 retries" in r.caveat and "3309" in r.answer


def test_clarification_interrupts_then_resumes_in_a_new_process(built, tmp_path):
    db = tmp_path / "threads.sqlite"
    base = [sys.executable, "-m", "citerag", "chat", "--mode", "conversational", "--thread", "clar-1",
            "--set", f"agent.conversation.memory_path={db}"]
    first = subprocess.run(base, input="help me with the standard\n", capture_output=True, text=True, cwd=ROOT,
                           timeout=600)
    assert first.returncode == 0, first.stderr
    assert "route: ASK_CLARIFICATION" in first.stdout and "1. NIST.FIPS.203" in first.stdout
    second = subprocess.run(base, input="the ML-KEM one: what are its parameter sets?\n", capture_output=True,
                            text=True, cwd=ROOT, timeout=600)
    assert second.returncode == 0, second.stderr
    assert "this thread is waiting for an answer" in second.stdout
    assert "path: resume_clarification → retrieve" in second.stdout
    for name in ("ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"):
        assert name in second.stdout
    from citerag.conversation.memory import ThreadMemory

    mem = ThreadMemory(db)
    assert [t.route for t in mem.turns("clar-1")] == ["ASK_CLARIFICATION", "RETRIEVE"]
    assert mem.pending("clar-1") is None


def test_memory_reloads_in_a_new_process(built, tmp_path):
    db = tmp_path / "threads.sqlite"
    base = [sys.executable, "-m", "citerag", "chat", "--mode", "conversational", "--thread", "mem-1",
            "--set", f"agent.conversation.memory_path={db}"]
    subprocess.run(base, input="How big is an ML-KEM-512 encapsulation key?\n", check=True, capture_output=True, text=True,
                   cwd=ROOT, timeout=600)
    out = subprocess.run(base, input="and for ML-KEM-1024?\n", capture_output=True, text=True, cwd=ROOT,
                         timeout=600).stdout
    assert "asked as: How big is an ML-KEM-1024 encapsulation key?" in out and "1568" in out


def test_concurrent_threads_do_not_mix(make_engine):
    eng = make_engine()

    async def both():
        await asyncio.gather(eng.aturn("A", "How big is an ML-KEM-512 encapsulation key?"),
                             eng.aturn("B", "What is the signature size of ML-DSA-65?"))
        return await asyncio.gather(eng.aturn("A", "and for ML-KEM-1024?"), eng.aturn("B", "what about ML-DSA-87?"))

    a, b = asyncio.run(both())
    assert a.rewritten_query == "How big is an ML-KEM-1024 encapsulation key?" and "1568" in a.answer
    assert b.rewritten_query == "What is the signature size of ML-DSA-87?" and "4627" in b.answer


def test_simple_mode_is_the_single_turn_system_and_conversational_keeps_up(store, corpus_params, make_engine):
    from citerag.agent.workflow import Agent
    from citerag.conversation.engine import ChatEngine
    from citerag.experiments.metrics import contains_all

    items = load_questions(EVAL / "questions.jsonl")
    agent = Agent(store, corpus_params)
    simple = ChatEngine(store, corpus_params, agent)
    assert not simple.conversational
    conv = make_engine()
    single, simple_res, conv_res = [], [], []
    for it in items:
        single.append(agent.run(it.question).answer)
        simple_res.append(simple.turn(f"s:{it.qid}", it.question))
        conv_res.append(conv.turn(f"c:{it.qid}", it.question))
    # simple mode: the same answers as the single-turn controller, no memory written
    assert [(r.answer, r.refused, r.citations) for r in simple_res] == [(a.answer, a.refused, a.citations)
                                                                      for a in single]
    assert simple.memory is None

    def score(results):
        return sum((not r.refused) and contains_all(r.answer, it.must_contain) for r, it in zip(results, items)
                   if it.answerable) + sum(r.refused for r, it in zip(results, items) if not it.answerable)

    assert score(conv_res) >= 0.95 * score(simple_res), (score(conv_res), score(simple_res))


def test_chat_batch_contract(built, tmp_path):
    conv = tmp_path / "c.jsonl"
    conv.write_text(json.dumps({"cid": "k1", "turns": [{"user": "How big is an ML-KEM-512 encapsulation key?"},
                                                       {"user": "and for ML-KEM-1024?"}]}) + "\n"
                    + json.dumps({"cid": 7, "turns": [{"user": "help me with the standard"},
                                                      {"user": "the ML-KEM one: what are its parameter sets?"}]}) + "\n")
    out = tmp_path / "o.jsonl"
    cmd = [sys.executable, "-m", "citerag", "chat", "--conversations", str(conv), "--out", str(out),
           "--set", "agent.conversational=true", "--set", f"agent.conversation.memory_path={tmp_path / 'm.sqlite'}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(r["cid"], r["turn"]) for r in rows] == [("k1", 1), ("k1", 2), (7, 1), (7, 2)]
    assert all(list(r) == ["cid", "turn", "route", "rewritten_query", "answer", "refused", "refusal_reason",
                           "citations", "trajectory"] for r in rows)
    assert [r["route"] for r in rows] == ["RETRIEVE", "REWRITE_THEN_RETRIEVE", "ASK_CLARIFICATION", "RETRIEVE"]
    assert "1568" in rows[1]["answer"] and rows[1]["citations"][0]["doc_id"] == "NIST.FIPS.203"
    assert set(rows[1]["citations"][0]) == {"key", "chunk_id", "doc_id", "start_page", "end_page"}
    assert rows[2]["refused"] and rows[2]["refusal_reason"] == "clarification_needed"
    assert rows[3]["trajectory"][0] == "resume_clarification" and "ML-KEM-768" in rows[3]["answer"]


def test_chat_batch_bad_line_names_file_and_line_and_writes_nothing(tmp_path):
    conv = tmp_path / "c.jsonl"
    conv.write_text(json.dumps({"cid": 1, "turns": [{"user": "ok?"}]}) + "\n"
                    + json.dumps({"cid": 2, "turns": [{"user": ""}]}) + "\n")
    out = tmp_path / "o.jsonl"
    proc = subprocess.run([sys.executable, "-m", "citerag", "chat", "--conversations", str(conv), "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"citerag: error: {conv}:2: turns[0].user must be a non-empty string"
    assert not out.exists()


def test_fusion_retrieves_a_follow_up_with_the_previous_question(make_engine):
    """With agent.conversation.fuse_previous "always", a rewritten follow-up also retrieves as
    "previous standalone question + follow-up" (a second query, interleaved by rank). By default
    ("pronoun") only a follow-up whose pronoun the rewriter resolved does; "and for ML-KEM-1024?"
    names its subject, so it retrieves alone."""
    def retrieval_queries(engine, thread):
        engine.turn(thread, "How big is an ML-KEM-512 encapsulation key?")
        r = engine.turn(thread, "and for ML-KEM-1024?")
        controller = next(e for e in r.trace if e["node"] == "retrieve")
        return r, controller

    r, ev = retrieval_queries(make_engine(**{"agent.conversation.fuse_previous": "always"}), "fuse-on")
    assert r.route == "REWRITE_THEN_RETRIEVE" and "1568" in r.answer
    assert ev["queries"] == [ev["query"], f"How big is an ML-KEM-512 encapsulation key? {ev['query']}"]
    r_off, ev_off = retrieval_queries(make_engine(), "fuse-off")
    assert ev_off["queries"] == [ev_off["query"]] and "1568" in r_off.answer


def test_a_follow_up_referring_back_by_a_definite_description_retrieves_with_the_previous_question(make_engine):
    """'and what does the verifier send in the challenge step?' has no pronoun, so the rewriter
    leaves it as it is, but 'the challenge step' is a step of the protocol the previous turn asked
    about: by default ("reference") it also retrieves with that question, and the answer comes
    from the protocol's description. 'and which requirements cover key confirmation?' names its
    own topic and retrieves alone."""
    engine = make_engine()
    engine.turn("ref", "In the commitment step of the lattice interactive protocol that ML-DSA builds on, "
                       "what does the prover do with y?")
    r = engine.turn("ref", "and what does the verifier send in the challenge step?")
    ev = next(e for e in r.trace if e["node"] == "retrieve")
    assert r.route == "REWRITE_THEN_RETRIEVE" and len(ev["queries"]) == 2, ev["queries"]
    assert "vector c" in r.answer, r.answer
    engine.turn("own", "How many times may an ephemeral KEM key pair be used under SP 800-227?")
    r2 = engine.turn("own", "and which requirements cover key confirmation?")
    ev2 = next(e for e in r2.trace if e["node"] == "retrieve")
    assert ev2["queries"] == [ev2["query"]], ev2["queries"]
    assert "RS6" in r2.answer, r2.answer


def test_which_one_follow_up_asks_the_previous_kind_about_the_previous_subject(make_engine):
    """'and which one re-generates the matrix A?' after 'Which function does K-PKE.Encrypt use to
    sample y?' asks which *function* of *K-PKE.Encrypt*: the step calling SampleNTT answers it.
    The validator knows 're-generates' from the corpus's 're-generate' (a compound in another
    inflection), where it used to call the follow-up off topic."""
    engine = make_engine()
    engine.turn("one", "Which function does K-PKE.Encrypt use to sample y?")
    r = engine.turn("one", "and which one re-generates the matrix A?")
    assert "K-PKE.Encrypt" in r.rewritten_query and "function" in r.rewritten_query, r.rewritten_query
    assert not r.refused and "SampleNTT" in r.answer, (r.refusal_reason, r.answer)


def test_validator_knows_a_word_written_inside_a_camel_case_name(decider):
    """"… that skDecode unpacks …" asks about "unpack", which the documents write only inside
    names ("BitUnpack"): the cited text writing such a name writes the word."""
    from citerag.answer.evidence import Evidence
    from citerag.core.types import Location
    from citerag.retrieval.query import analyse

    ev = [Evidence("c1", Location("D::p1::c0", "D", 1, 1),
                   "9: t0[i] ← BitUnpack(wi, a, b) ▷ this is always in the correct range")]
    followup = "and are the t0 values that skDecode unpacks always in the correct range?"
    v = decider.validate(analyse("are the t0 values skDecode unpacks always in the correct range?"),
                         "9: t0[i] ← BitUnpack(wi, a, b) ▷ this is always in the correct range. [c1]", ev, 0.5, followup)
    assert v.ok, v


def test_a_what_happens_follow_up_is_not_off_topic_where_the_documents_never_write_happen(make_engine):
    """The NIST documents never write "happen": "and what happens in the decapsulation step?" was
    refused off_topic by the validator's rule for follow-up words no document writes. "What happens"
    asks for an event and names none; the step it asks about is the topic."""
    engine = make_engine()
    engine.turn("happen", "How is a key established with a KEM in SP 800-227?")
    r = engine.turn("happen", "and what happens in the decapsulation step?")
    assert not r.refused, (r.refusal_reason, r.answer)
    assert "decapsulat" in r.answer.lower(), r.answer


def test_a_follow_up_counting_a_thing_by_a_number_compound_is_not_off_topic(make_engine):
    """"a 256-entry array": the documents never write "256-entry", but they write "entry" and
    the number, which the answer must state as a focus term of its own. The validator called the
    follow-up off topic."""
    engine = make_engine()
    engine.turn("count", "How does FIPS 203 apply an algorithm to an array input?")
    r = engine.turn("count", "and how many times does Compress run on a 256-entry array?")
    assert not r.refused, (r.refusal_reason, r.answer)
    assert "256 times" in r.answer, r.answer


@pytest.mark.parametrize("first, follow_up, needs", [
    ("How are hypertree signatures verified in FIPS 205?",
     "and what does it take as input besides the message and the signature?", "seed"),
    # "afterwards" is the token "afterward", which the function-word list does not hold as such
    ("Who generates the KEM key pair in SP 800-227's ephemeral authenticated key establishment?",
     "and what happens to that key pair afterwards?", "key pair"),
])
def test_a_function_word_no_document_writes_does_not_make_a_follow_up_off_topic(make_engine, first, follow_up,
                                                                                 needs):
    """The NIST documents never write "besides" nor "afterwards": the validator called these
    follow-ups off topic. A function word names nothing asked about (the answer layer's rule for a
    question's absent words)."""
    engine = make_engine()
    engine.turn("fw", first)
    r = engine.turn("fw", follow_up)
    assert not r.refused, (r.refusal_reason, r.answer)
    assert needs in r.answer, r.answer
