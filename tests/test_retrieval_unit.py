"""Fusion, query analysis, filters and metrics on hand-made cases with known values."""

import math

import pytest
from citerag.build.chunk import Chunk
from citerag.build.knowledge import CorpusKnowledge, mine_acronyms, mine_mentions
from citerag.build.profile import load_profile
from citerag.core.paths import repo_root
from citerag.experiments.evalset import EvalItem, GoldSpan
from citerag.experiments.metrics import RankedHit, miss_cause, retrieval_metrics, span_ids
from citerag.retrieval.query import analyse, definition_subject, detect_mode
from citerag.retrieval.retriever import Filters, rrf


def test_rrf_known_values():
    s = rrf([(["a", "b"], 1.0), (["b", "c"], 0.5)], k0=60)
    assert s["a"] == pytest.approx(1 / 61)
    assert s["b"] == pytest.approx(1 / 62 + 0.5 / 61)
    assert s["c"] == pytest.approx(0.5 / 62)


def _nist_knowledge() -> CorpusKnowledge:
    """The reference corpus's profile (data, not code) and its mined document mentions."""
    titles = {"NIST.FIPS.203": "ML-KEM standard", "NIST.IR.8547.ipd": "Transition", "NIST.SP.800-227": "KEMs"}
    profile = load_profile(repo_root() / "data" / "nist-pqc" / "corpus.yaml")
    return CorpusKnowledge(titles, mentions=mine_mentions(titles, {}), profile=profile)


def test_query_analysis():
    know = _nist_knowledge()
    qa = analyse("What are the steps of ML-KEM.KeyGen (Algorithm 19) with SHAKE128?", know)
    assert qa.mode == "algorithm"
    assert {"ML-KEM.KeyGen", "SHAKE128"} <= set(qa.identifiers)
    assert qa.anchors == ("algorithm 19",)
    assert any("ML-KEM key generation" in v for v in qa.variants)
    assert "Algorithm 19" in qa.variants
    back = analyse("ML-KEM key generation steps", know)
    assert not any("key generation" in v for v in analyse("ML-KEM.KeyGen steps").variants)  # no profile, no alias
    assert any("ML-KEM.KeyGen" in v for v in back.variants)
    assert detect_mode("What is the signature size of ML-DSA-65?") == "parameter"
    assert detect_mode("Compare BIKE and HQC") == "compare"
    assert definition_subject("What does the acronym XOF stand for in FIPS 203?") == "XOF"
    assert definition_subject("What is a decapsulation key in a KEM?") == "decapsulation key"
    named = analyse("IR 8547 and SP 800-227", know)
    assert named.doc_mentions == ("IR 8547", "SP 800-227")
    assert named.docs == ("NIST.IR.8547.ipd", "NIST.SP.800-227")
    with pytest.raises(ValueError, match="mode_hint"):
        analyse("x", mode_hint="poetry")


def test_acronyms_mined_from_glossary_rows_and_text():
    def ch(text):
        return Chunk("D::p1::c0", "D", 1, 1, 0, [], ["table"], text, len(text))

    g = mine_acronyms([ch("XOF | eXtendable-Output Function\nRBG | Recommendation for random bit generator").text,
                       ch("a Key-Encapsulation Mechanism (KEM) is used").text])
    assert g["XOF"] == "eXtendable-Output Function"
    assert g["KEM"] == "Key-Encapsulation Mechanism"
    assert "RBG" not in g  # the expansion does not spell it
    # a name that capitalises the letter it gives, in running text
    assert mine_acronyms(["the eXtended Merkle Signature Scheme (XMSS) is"])["XMSS"] == "eXtended Merkle Signature Scheme"
    assert "FB" not in mine_acronyms(["the foo bar (FB) is"])  # a lower-case phrase names nothing
    qa = analyse("What does XOF mean?", CorpusKnowledge({"D": "D"}, acronyms=g))
    assert "What does eXtendable-Output Function mean?" in qa.variants


def test_filters():
    f = Filters(doc_ids=("A",), page_from=10, page_to=12)
    assert f.allows("A", 12, 14) and f.allows("A", 8, 10)
    assert not f.allows("A", 13, 14) and not f.allows("B", 11, 11)
    assert f.chroma_where() == {"$and": [{"doc_id": {"$in": ["A"]}}, {"end_page": {"$gte": 10}},
                                         {"start_page": {"$lte": 12}}]}
    assert Filters().chroma_where() is None


def _h(doc, a, b=None, cid=None):
    return RankedHit(cid or f"{doc}::p{a}::c0", doc, a, b or a)


def test_span_credit_once():
    gold = [GoldSpan(doc_id="D", start_page=5, end_page=5)]
    assert span_ids([_h("D", 5), _h("D", 4, 6), _h("E", 5)], gold) == ["span-0", "nonrel-1", "nonrel-2"]


def test_metrics_hand_computed():
    items = [
        EvalItem(qid="q1", question="first question", type="parameter", answerable=True,
                 gold=[GoldSpan(doc_id="D", start_page=5, end_page=5), GoldSpan(doc_id="E", start_page=2, end_page=3)],
                 must_contain=["x"]),
        EvalItem(qid="q2", question="second question", type="policy", answerable=True,
                 gold=[GoldSpan(doc_id="D", start_page=9, end_page=9)], must_contain=["y"]),
        EvalItem(qid="u1", question="not answerable", type="unanswerable", answerable=False),
    ]
    runs = {"q1": [_h("D", 1), _h("D", 5), _h("E", 3, 4)], "q2": [_h("D", 8, 9), _h("D", 9)]}
    m = retrieval_metrics(runs, items, ks=(1, 3))
    ndcg_q1 = (1 / math.log2(3) + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    assert m["recall@1"] == pytest.approx((0 + 1) / 2)
    assert m["recall@3"] == pytest.approx(1.0)
    assert m["mrr@3"] == pytest.approx((0.5 + 1) / 2)
    assert m["ndcg@3"] == pytest.approx((ndcg_q1 + 1) / 2, abs=1e-4)
    assert m["questions"] == 2 and m["hit@3_strict"] == 1.0


def test_hit_rate_variants():
    items = [EvalItem(qid="q", question="a question", type="policy", answerable=True,
                      gold=[GoldSpan(doc_id="D", start_page=5, end_page=5)], must_contain=["z"])]
    m = retrieval_metrics({"q": [_h("D", 6)]}, items, ks=(1,))
    assert (m["hit@1_strict"], m["hit@1_doc"], m["hit@1_pm1"]) == (0.0, 1.0, 1.0)


def test_miss_causes():
    gold = [GoldSpan(doc_id="D", start_page=5, end_page=5)]
    pages = {c: _h("D", int(c[1:]), cid=c) for c in ["p1", "p2", "p3", "p5"]}
    assert miss_cause({"dense": ["p1"], "fused": ["p1"], "rerank": ["p1"]}, pages, gold, 1, 10) == "never_retrieved"
    assert miss_cause({"dense": ["p1", "p2", "p5"], "fused": ["p1", "p2", "p5"], "rerank": ["p1", "p2"]},
                      pages, gold, 1, 2) == "lost_in_fusion"
    assert miss_cause({"bm25": ["p5"], "fused": ["p5", "p1"], "rerank": ["p1", "p5"]}, pages, gold, 1, 2) \
        == "demoted_by_rerank"
    assert miss_cause({"bm25": ["p5"], "fused": ["p5"], "rerank": ["p5"]}, pages, gold, 1, 2) is None


def test_identifier_in_the_section_heading_counts_for_the_chunk():
    """With `retrieve.heading_identifiers`, a chunk under a section titled with the asked identifier ("4 ABC-TXT syntax > Options") is
    about it even when its own text never repeats the name; a chunk elsewhere is not."""
    from citerag.retrieval.rerank import features

    qa = analyse("What does the wide option do in ABC-TXT?")
    assert "ABC-TXT" in qa.identifiers
    text = "Available options:\nwide present the choices on one line."
    under = Chunk("D::p9::c0", "D", 9, 9, 3, ["4 ABC-TXT syntax", "4.3 Options"], ["text"], text, len(text))
    elsewhere = Chunk("D::p2::c0", "D", 2, 2, 1, ["2 Installation"], ["text"], text, len(text))
    assert features(qa, under, 0.5, 0.5, {}, heading_identifiers=True)["identifier"] == 1.0
    assert features(qa, elsewhere, 0.5, 0.5, {}, heading_identifiers=True)["identifier"] == 0.0
    assert features(qa, under, 0.5, 0.5, {})["identifier"] == 0.0  # off by default (opt-in, see README)


def test_identifier_feature_weighs_rare_identifiers_most():
    """In a document where every chunk names ABC-DSA, the chunk naming the rare BitPack8 is the
    one about the question; with corpus idf as weights it holds most of the identifier share."""
    from citerag.retrieval.rerank import features

    qa = analyse("What does BitPack8 do in ABC-DSA?")
    assert set(qa.identifiers) == {"BitPack8", "ABC-DSA"}

    def ch(text):
        return Chunk("D::p1::c0", "D", 1, 1, 0, [], ["text"], text, len(text))

    rare, common = ch("BitPack8 packs the bits of a byte."), ch("ABC-DSA signs messages.")
    w = {"BitPack8": 4.0, "ABC-DSA": 0.5}
    assert features(qa, rare, 0.5, 0.5, {}, identifier_weights=w)["identifier"] == pytest.approx(4.0 / 4.5)
    assert features(qa, common, 0.5, 0.5, {}, identifier_weights=w)["identifier"] == pytest.approx(0.5 / 4.5)
    assert features(qa, rare, 0.5, 0.5, {})["identifier"] == features(qa, common, 0.5, 0.5, {})["identifier"] == 0.5


def test_term_idf_of_a_name_is_its_whole_token():
    from citerag.build.index.bm25 import BM25Index

    idx = BM25Index.from_texts(["a", "b", "c", "d"], ["ABC-DSA signs", "ABC-DSA verifies", "ABC-DSA BitPack8 packs",
                                                      "other text"], 1.2, 0.75)
    assert idx.term_idf("BitPack8") > idx.term_idf("ABC-DSA")
    assert idx.term_idf("NeverSeen9") >= idx.term_idf("BitPack8")


def test_a_references_list_is_no_boilerplate_for_a_question_about_cited_works():
    """A references list is penalised as boilerplate, except for a question about the works a
    document cites ("which paper cited by …"), whose answer is only there."""
    from citerag.retrieval.rerank import features

    text = "[12] Doe J (2020) Proving the parser correct in Coq. Journal of Parsers 3(1)."
    refs = Chunk("D::p40::c0", "D", 40, 40, 9, ["References"], ["text"], text, len(text))
    cited = analyse("Which paper cited by the guide proved the parser correct in Coq?")
    plain = analyse("How was the parser proved correct in Coq?")
    assert features(cited, refs, 0.5, 0.5, {})["boilerplate"] == 0.0
    assert features(plain, refs, 0.5, 0.5, {})["boilerplate"] == 1.0


def test_an_identifier_written_as_a_command_line_option_is_held():
    """'--ignore-red' in a chunk holds the question's 'ignore-red'; 'auto-ignore-red' does not."""
    from citerag.retrieval.rerank import features

    qa = analyse("What does the --skip-blank option of the scanner do?")
    assert "skip-blank" in qa.identifiers

    def ch(text):
        return Chunk("D::p1::c0", "D", 1, 1, 0, [], ["text"], text, len(text))

    option = features(qa, ch("- --skip-blank With this option, empty pages are not read."), 0.5, 0.5, {})
    longer = features(qa, ch("The auto-skip-blank mode reads every page."), 0.5, 0.5, {})
    assert option["identifier"] > longer["identifier"]


def test_a_contents_list_is_no_boilerplate_for_a_which_section_question():
    """A contents list is penalised as boilerplate, except for a question that asks which section
    covers something: the list is where that is written."""
    from citerag.retrieval.rerank import features

    text = "1 Intro . . . . . . . . 1\n2 Mixing rows . . . . . . . 4\n3 Mixing columns . . . . . . . 9"
    toc = Chunk("D::p2::c0", "D", 2, 2, 1, ["Table of Contents"], ["text"], text, len(text))
    assert features(analyse("Which section covers mixing rows?"), toc, 0.5, 0.5, {})["boilerplate"] == 0.0
    assert features(analyse("How are rows mixed?"), toc, 0.5, 0.5, {})["boilerplate"] == 1.0
