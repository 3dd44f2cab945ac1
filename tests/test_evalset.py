from collections import Counter

import pytest
from citerag.core.paths import repo_root
from citerag.experiments.evalset import (
    EvalSetError,
    contains_word,
    load_conversations,
    load_questions,
    normalize_for_match,
    raw_pages,
    raw_texts,
    verify_conversations,
    verify_questions,
)

EVAL = repo_root() / "data" / "nist-pqc" / "eval"


def test_matching_tolerates_breaks_hyphenation_and_digit_groups():
    page = normalize_for_match("signature of 7 856 bytes; imple-\nmentation\nsecurity  category 3")
    for s in ["7856", "implementation", "security category 3", "SECURITY CATEGORY"]:
        assert normalize_for_match(s) in page
    assert normalize_for_match("7857") not in page
    assert contains_word("uses a GPU here", "gpu") and not contains_word("groups use", "gpu")


def test_loader_names_file_and_line(tmp_path):
    p = tmp_path / "q.jsonl"
    p.write_text('{"qid": "a", "question": "What is X?", "type": "definition", "answerable": true}\n{oops\n')
    with pytest.raises(EvalSetError, match=r"q.jsonl:2: not valid JSON"):
        load_questions(p)
    p.write_text('{"qid": "a", "question": "What is X?", "type": "guess", "answerable": true}\n')
    with pytest.raises(EvalSetError, match=r"q.jsonl:1: type"):
        load_questions(p)


def test_eval_set_shape():
    items = load_questions(EVAL / "questions.jsonl")
    assert len(items) >= 60
    types = Counter(i.type for i in items)
    assert set(types) == {"definition", "algorithm", "parameter", "policy", "procedure", "compare", "unanswerable"}
    assert types["unanswerable"] >= 8
    docs = {g.doc_id for i in items for g in i.gold}
    assert len(docs) == 6
    convs = load_conversations(EVAL / "conversations.jsonl")
    assert len(convs) >= 6 and all(len(c.turns) >= 2 for c in convs)


@pytest.mark.corpus
def test_labels_hold_on_the_pdfs(corpus_params):
    texts = raw_texts(repo_root() / corpus_params.corpus.dir)
    pages = raw_pages(texts)
    assert verify_questions(load_questions(EVAL / "questions.jsonl"), pages, texts) == []
    assert verify_conversations(load_conversations(EVAL / "conversations.jsonl"), pages) == []
    assert verify_conversations(load_conversations(EVAL / "holdout_conversations.jsonl"), pages) == []


@pytest.mark.corpus
def test_verifier_catches_a_wrong_label(corpus_params):
    texts = raw_texts(repo_root() / corpus_params.corpus.dir)
    items = load_questions(EVAL / "questions.jsonl")[:2]
    items[0].must_contain = ["a string that is not on that page"]
    items[1].gold[0] = items[1].gold[0].model_copy(update={"start_page": 3, "end_page": 3})
    problems = verify_questions(items, raw_pages(texts), texts)
    assert len(problems) == 2


TM = repo_root() / "data" / "tech-manuals"


def test_tech_manuals_set_shape():
    items = load_questions(TM / "eval" / "questions.jsonl")
    types = Counter(i.type for i in items)
    assert len(items) >= 40 and types["unanswerable"] >= 6 and types["overview"] >= 3
    assert {"definition", "parameter", "procedure", "compare", "policy"} <= set(types)
    assert {g.doc_id for i in items for g in i.gold} == {"auto-multiple-choice.en", "gri", "reportlab-userguide"}
    assert len(load_conversations(TM / "eval" / "conversations.jsonl")) >= 3


@pytest.mark.corpus
def test_tech_manuals_labels_hold_on_the_pdfs():
    """The second corpus is read in place from ../shared (never copied into the repo)."""
    from citerag.build.corpus import load_manifest

    folder = repo_root().parent / "shared" / "corpus" / "tech-manuals"
    if not folder.is_dir():
        pytest.fail(f"{folder}: the tech-manuals corpus is expected beside the repository")
    texts = raw_texts(folder, {d.file: d.doc_id for d in load_manifest(TM / "corpus.yaml").documents})
    pages = raw_pages(texts)
    assert verify_questions(load_questions(TM / "eval" / "questions.jsonl"), pages, texts) == []
    assert verify_conversations(load_conversations(TM / "eval" / "conversations.jsonl"), pages) == []


@pytest.mark.parametrize("corpus,n_unanswerable", [("nist-pqc", 6), ("tech-manuals", 5)])
def test_blind_sets_shape(corpus, n_unanswerable):
    """Blind sets: never tuned on; run at the end with `citerag eval --set eval.questions=…`."""
    folder = repo_root() / "data" / corpus / "blind"
    items = load_questions(folder / "questions.jsonl")
    assert len(items) >= 30 and sum(not i.answerable for i in items) >= n_unanswerable
    assert sum(" and " in i.question or ", and" in i.question for i in items if i.answerable) >= 3  # multi-part
    assert len(load_conversations(folder / "conversations.jsonl")) >= 3


@pytest.mark.corpus
def test_blind_labels_hold_on_the_pdfs(corpus_params):
    from citerag.build.corpus import load_manifest

    for corpus, folder in (("nist-pqc", repo_root() / corpus_params.corpus.dir),
                           ("tech-manuals", repo_root().parent / "shared" / "corpus" / "tech-manuals")):
        data = repo_root() / "data" / corpus
        texts = raw_texts(folder, {d.file: d.doc_id for d in load_manifest(data / "corpus.yaml").documents})
        pages = raw_pages(texts)
        for blind in ("blind", "blind2", "blind3", "blind4", "blind5", "blind6", "blind7", "blind8", "blind9", "blind10", "blind11",
                      "blind12", "blind13", "blind14", "blind15", "blind16", "blind17", "blind18",
                      "blind19", "blind20", "blind21", "blind22", "blind23", "blind24", "blind25", "blind26", "blind27", "blind28", "blind29", "blind30", "blind31", "blind32", "blind33", "blind34", "blind35", "blind36", "blind37", "blind38", "blind39", "blind40", "blind41", "blind42", "blind43", "blind44", "blind45", "blind46", "blind47", "blind48", "blind49", "blind50", "blind51", "blind52", "blind53", "blind54", "blind55", "blind56", "blind57", "blind58", "blind59", "blind60", "blind61", "blind62", "blind63", "blind64", "blind65", "blind66", "blind67", "blind68", "blind69", "blind70", "blind71", "blind72", "blind73", "blind74", "blind75", "blind76", "blind77", "blind78", "blind79", "blind80", "blind81", "blind82", "blind83", "blind84", "blind85", "blind86", "blind87", "blind88", "blind89", "blind90", "blind91", "blind92", "blind93", "blind94", "blind95", "blind96", "blind97", "blind98", "blind99", "blind100", "blind101", "blind102", "blind103", "blind104", "blind105", "blind106", "blind107", "blind108", "blind109", "blind110", "blind111", "blind112", "blind113", "blind114", "blind115", "blind116", "blind117", "blind118", "blind119", "blind120", "blind121", "blind122", "blind123", "blind124", "blind125", "blind126", "blind127", "blind128", "blind129", "blind130", "blind131", "blind132", "blind133", "blind134", "blind135", "blind136", "blind137", "blind138", "blind139", "blind140", "blind141", "blind142", "blind143", "blind144", "blind145", "blind146", "blind147", "blind148", "blind149", "blind150", "blind151", "blind152", "blind153", "blind154", "blind155", "blind156", "blind157", "blind158", "blind159", "blind160", "blind161", "blind162", "blind163", "blind164", "blind165", "blind166", "blind167", "blind168", "blind169", "blind170", "blind171", "blind172", "blind173", "blind174", "blind175", "blind176", "blind177", "blind178", "blind179", "blind180", "blind181", "blind182", "blind183", "blind184", "blind185", "blind186", "blind187", "blind188", "blind189", "blind190", "blind191", "blind192", "blind193", "blind194", "blind195", "blind196", "blind197", "blind198", "blind199", "blind200", "blind201", "blind202", "blind203", "blind204", "blind205", "blind206", "blind207", "blind208", "blind209", "blind210", "blind211", "blind212", "blind213", "blind214", "blind215", "blind216", "blind217", "blind218", "blind219", "blind220", "blind221", "blind222", "blind223", "blind224"):  # each written before the change it judges
            assert verify_questions(load_questions(data / blind / "questions.jsonl"), pages, texts) == []
            if (data / blind / "conversations.jsonl").is_file():  # blind3 to blind8, blind10 and blind11 have questions only
                assert verify_conversations(load_conversations(data / blind / "conversations.jsonl"), pages) == []
        if (data / "code-dev" / "questions.jsonl").is_file():  # the manuals' code-example dev set
            assert verify_questions(load_questions(data / "code-dev" / "questions.jsonl"), pages, texts) == []
