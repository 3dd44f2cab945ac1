"""From evidence to a verified, cited answer — or a refusal with a reason.

Whatever the backend drafts goes through the same gate: every sentence needs
a valid citation and support in the text it cites; unsupported sentences are
removed; an answer left empty becomes the refusal `not found in provided docs`
with a `refusal_reason`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citerag.answer.abstain import AbstainModel, features
from citerag.answer.asked import (
    CUES,
    MEMBER_KINDS,
    action_stated,
    asked,
    asked_actions,
    asked_heads,
    contents_entries,
    contradicted_counts,
    contradicted_labels,
    describing_participle,
    ends_in_s,
    focus_terms,
    head_stated,
    letter_modifiers,
    letter_written,
    mended_contents,
    phrase_stated,
    place_numbers,
    setting_head,
    setting_words,
    slot_filled,
    split_parts,
    typing_words,
    unshown_quantities,
    unshown_stance,
    unstated_defined_term,
    unstated_ordinals,
)
from citerag.answer.citations import (
    REFUSAL,
    SentenceCheck,
    check_citations,
    parse_keys,
    strip_citations,
)
from citerag.answer.conflicts import find_conflicts
from citerag.answer.evidence import Evidence, support_score
from citerag.answer.extractive import Draft, compose
from citerag.answer.units import entry_terms, units
from citerag.core.params import AnswerParams
from citerag.retrieval.query import QueryAnalysis
from citerag.text.inflect import ENDINGS, IRREGULAR, bases, hyphenations, says_word, spellings, split_camel, word_roots
from citerag.text.patterns import ACRONYM, NUMBERED_VARIANT
from citerag.text.sentences import split_cited
from citerag.text.terms import Scorer
from citerag.text.tokenize import (
    AUXILIARY_ALTERNATION,
    DETERMINERS,
    QUESTION_FRAME,
    STOPWORDS,
    function_words,
    stem,
    token_set,
    tokenize,
)

# A word of the question: letters first ("WG-KX.KeyGen", "multi-line"), or digits then letters ("5G").
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9.-]*[A-Za-z0-9]|[A-Za-z]{3,}|(?<![\w.-])\d+[A-Za-z][A-Za-z0-9]*\b")


@dataclass
class Answer:
    question: str
    answer: str
    refused: bool
    refusal_reason: str | None
    citations: list[dict] = field(default_factory=list)
    sentences: list[SentenceCheck] = field(default_factory=list)
    backend: str = "extractive"
    notes: list[str] = field(default_factory=list)
    decision: dict = field(default_factory=dict)  # features and probability behind answer/refuse
    conflicts: list[dict] = field(default_factory=list)  # evidence giving the asked quantity another value
    unstated: list[str] = field(default_factory=list)  # focus_not_stated: what the cited evidence never states


def refusal(question: str, reason: str, backend: str, notes: list[str] | None = None) -> Answer:
    return Answer(question, REFUSAL, True, reason, [], [], backend, notes or [])


def _ordinary(low: str, common_words: frozenset[str]) -> bool:
    """An ordinary English word, also in a plural or inflected form ("suffixes", "libraries").
    Looser than `bases` on purpose: a word wrongly taken as ordinary is only not refused."""
    forms = bases(low) | {low[:-1], low[:-2], low[:-3], low[:-3] + "y"}
    return any(f in common_words for f in forms if len(f) >= 3)


_ALNUM_NAME = re.compile(r"(?=[a-z]*\d)(?=\d*[a-z])[a-z\d]+")  # letters and digits, nothing else
_CAPS_AND_SUBSCRIPT = re.compile(r"([A-Z]{1,6})([a-z]{1,4})")
_SUBSCRIPT_TAILS = tuple("abcdefghijklmnopqrstuvwxyz0123456789")


def _subscripted(word: str, vocab: set[str]) -> bool:
    """A name the PDF's text writes with its subscript apart or glued on: "KDFctx" as "KDF ctx",
    "Trim" as "Trimn" (a one-character subscript). Only names of that shape: an all-capitals
    name with a short lower-case tail, or a capitalised name of four letters or more."""
    low = word.lower()
    m = _CAPS_AND_SUBSCRIPT.fullmatch(word)
    if m and m.group(1).lower() in vocab and m.group(2) in vocab:
        return True
    return (word[:1].isupper() and len(word) >= 4 and word[1:].islower()
            and any(low + tail in vocab for tail in _SUBSCRIPT_TAILS))


# A name glued to a short subscript: capitals and digits ("KX0"), a capitalised word and one
# capital ("ExtraB"), or a camelCase name and a superscript of capitals ("KeyCombineCCA", which the
# extracted text writes "KeyCombine^CCA").
_GLUED_SUBSCRIPT = re.compile(r"([A-Z]{1,6})(\d{1,2})|([A-Z][a-z]{2,})([A-Z])|((?:[A-Z][a-z]+){2,})([A-Z]{2,4})")


def subscript_apart(word: str, texts: list[str]) -> bool:
    """The evidence writes the name with its subscript apart, as a PDF's text does ("KX 0",
    "Extra B" for the question's "KX0", "ExtraB"), or marked as a superscript ("KeyCombine^CCA"):
    the name is the corpus's own. Checked in the evidence, not the vocabulary: its words alone
    ("kx", "0") would make a made-up "ZETA3" known."""
    m = _GLUED_SUBSCRIPT.fullmatch(word)
    if not m:
        return False
    head, tail = m.group(m.lastindex - 1), m.group(m.lastindex)  # the matched alternative's pair
    apart = re.compile(rf"(?<![\w-]){re.escape(head)}(?:\s+|\^){re.escape(tail)}(?![\w-])")
    return any(apart.search(t) for t in texts)


def _in_corpus(word: str, vocab: set[str]) -> bool:
    """The corpus writes the word in some inflection ("disallowing" is known from "disallowed",
    "turn" from "turned": the word's own inflections as well as its bases'), in its British or
    American spelling ("initialising" from "initializing"), or with a hyphen ("multiline" from
    "multi-line"). A name that mixes letters and digits ("ZETA3") is known only
    whole: the corpus writing "3" does not make it known."""
    low = word.lower()
    if any(h in vocab for h in hyphenations(low)):  # "multi-line", "sha-256" for "sha256"
        return True
    if _subscripted(word, vocab):
        return True
    if _ALNUM_NAME.fullmatch(low):
        return low in vocab
    if token_set(word) & vocab:
        return True
    # … in its other spelling too: a question says "initialising", an American manual "initializing";
    # and a verb in -yze by the noun of its action ("cryptanalyze" by "cryptanalysis"); and an
    # adjective by its adverb ("a functional change" where the text says "functionally equivalent")
    return any(f + e in vocab for f in word_roots(low) | spellings(low) for e in (*ENDINGS, "ly"))


def unknown_terms(question: str, vocab: set[str], common_words: frozenset[str] = frozenset(),
                  texts: list[str] = ()) -> list[str]:
    """Salient question terms that occur nowhere in the corpus: names and acronyms (≥ 3 chars),
    longer lowercase words (≥ 5) that are not ordinary English (`common_words`, e.g. the
    embedding model's whole-word vocabulary), `NAME-<number>` identifiers such as `WG-KX-2048`
    that the corpus never writes, though it may write NAME, and hyphenated names of a family it
    names things by that it never writes (`unwritten_members`; `texts`, the evidence, may write
    their parts as a phrase)."""
    out = []
    first = True
    for m in _WORD.finditer(question):
        w, low = m.group(0), m.group(0).lower()
        # A capital that only starts the sentence ("Walk me through …", "Explain X") is no name.
        initial = first and w[:1].isupper() and w[1:].islower()
        first = False
        if low in STOPWORDS or (len(w) < 3 and not _ALNUM_NAME.fullmatch(low)):  # "5G" is a name
            continue
        if NUMBERED_VARIANT.fullmatch(w) and low not in vocab:
            out.append(w)
            continue
        ordinary = _ordinary(low, common_words)
        salient = (not w.islower() and not (initial and ordinary)) or (len(w) >= 5 and not ordinary)
        if salient and not _in_corpus(w, vocab):
            out.append(w)
    return out + [w for w in unwritten_members(question, vocab, common_words, texts) if w not in out]


# A name of three or more hyphenated parts, letters and digits only ("gri-fragment-list",
# "slh-dsa-shake-256x"); two words joined by a hyphen ("rpn-sqrt") may be a reader's own coinage
# for words the corpus writes apart
_HYPHEN_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+){2,}")
# How many names of one family ("gri-mode", "gri-info", "gri-complete", …) make it a naming scheme
_FAMILY_MIN = 3


def unwritten_members(question: str, vocab: set[str], common_words: frozenset[str] = frozenset(),
                      texts: list[str] = ()) -> list[str]:
    """Hyphenated names of a family the corpus names things by ("gri-mode", "gri-info", … ) that
    it never writes itself ("Which key runs gri-fragment-list?"): a member the documents do not
    have, though each of its parts is a word they use (which is why `unknown_terms` lets it pass).
    The family's head must be a name, not an English word: "key-", "non-" or "pre-" compounds are
    English ones, written apart as often as joined. Nor is a compound the texts write in parts, or
    the corpus in an inflection (`written_compound`)."""
    out = []
    for m in _WORD.finditer(question):
        w = m.group(0)
        low = w.lower()
        head = low.split("-", 1)[0]
        if (not _HYPHEN_NAME.fullmatch(low) or low in vocab or not head.isalpha()
                or _ordinary(head, common_words) or written_compound(w, vocab, texts)):
            continue
        if sum(v.startswith(head + "-") for v in vocab) >= _FAMILY_MIN:
            out.append(w)
    return out


def absent_words(question: str, vocab: set[str], texts: list[str] = ()) -> list[str]:
    """Content words of the question that the corpus never writes in any inflection, names or
    not: what `unknown_terms` lets pass as ordinary English ("radar", "donate") still says the
    documents do not speak of it, unless the rest of the question is matched strongly. A compound
    counts when the corpus never writes it whole, though it writes its parts ("gri-refactor"),
    and `texts` (the evidence) never write its parts as a phrase ("DER encoding" for
    "DER-encoded")."""
    # a name joined by underscores or a slash ("GX_LEAF", "PDF/X") is one name: its pieces being
    # known ("gx", "leaf") does not make it known
    words = [m.group(0) for m in _WORD.finditer(question)] + _JOINED_NAME.findall(question)
    absent = [w for w in words if len(w) >= 3 and w.lower() not in STOPWORDS and w.lower() not in QUESTION_FRAME
              and not (written_compound(w, vocab, texts) if _COMPOUND.search(w) else _in_corpus(w, vocab))]
    # a function word ("Besides testing, …", "… happen to it afterwards?") names nothing asked about;
    # the list is loaded only when some word is absent
    return [w for w in absent if w.lower() not in function_words()] if absent else []


_COMPOUND = re.compile(r"\w[-_./]\w")
# A name joined by underscores (a code identifier), which `_WORD` reads as separate words; an option's
# dashes ("-no_cmd_in_ps") are not part of it, a qualified name's member ("X.Sign_internal") is left
# out. A name joined by a slash ("PDF/X", "HTTP/3") is one name as well; it starts with a capital
# ("and/or" is no name).
_JOINED_NAME = re.compile(r"(?<![\w.])(?<!\w-)[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w-])"
                          r"|(?<![\w./-])[A-Z][A-Za-z0-9]*(?:/[A-Za-z0-9]+)+(?![\w/-])")

# A prefix that makes a word of any word after it, about the same thing ("non-empty", "non-None");
# not "post-"/"anti-": "post-X" may name what a corpus writing X never speaks of.
_PREFIX_WORDS = frozenset({"non"})
# Words that make a compound adjective of any word before them.
_SUFFIX_WORDS = frozenset("based like style related specific compatible aware free only level wide oriented "
                          "driven enabled dependent".split())


def written_compound(word: str, vocab: set[str], texts: list[str]) -> bool:
    """The word is a compound, and the corpus writes it as one token in some inflection
    ("re-encrypts"), or the texts write its parts in a row, the last in any inflection ("DER
    encoding")."""
    if not _COMPOUND.search(word):
        return False
    toks = tokenize(word)
    whole = toks[0] if toks else word.lower()
    if whole in vocab or any(b + e in vocab for b in bases(whole) for e in ENDINGS):
        return True
    parts = [x for x in re.split(r"[-_./]", word.lower()) if x]
    if ("_" in word or "/" in word) and "".join(parts) in vocab:
        return True  # the PDF's text dropped the joiner ("PDFA" for PDF/A)
    if len(parts) > 1 and parts[-1] in _SUFFIX_WORDS and all(_in_corpus(x, vocab) for x in parts[:-1]):
        return True  # "X-based", "X-like": English builds these from any X the corpus writes
    if len(parts) == 2 and parts[0] in _PREFIX_WORDS and _in_corpus(parts[1], vocab):
        return True  # "non-X": ... and this one
    if len(parts) == 2 and parts[0].isdigit() and _in_corpus(parts[1], vocab):
        return True  # "256-entry", "32-byte": a count of X, from any number (a focus term of its own)
    last = min(bases(parts[-1]) | {parts[-1]} | derived_stem(parts[-1]), key=len)
    # a constant's parts are joined by its underscore (spaced out or dropped by the PDF's text:
    # "GX _TREE", "GXTREE"), not by a space: "a GX tree" in prose does not write GX_TREE.
    # A subscript written with an underscore ("T_k", "F_in") the PDF writes apart ("F in").
    joiner = r"(?:\s?_\s?)?" if "_" in word and word.isupper() else r"[\W_]{0,3}"
    phrase = re.compile(r"(?<!\w)" + joiner.join(map(re.escape, [*parts[:-1], last])))
    return any(phrase.search(t.lower()) for t in texts)


# Suffixes that make a noun of a verb ("reversal", "derivation", "encapsulation", "agreement").
_NOUN_SUFFIXES = ("ation", "ition", "ment", "al", "ion")


def derived_stem(word: str) -> set[str]:
    """The verb a noun is made from, as the start its other forms share ("reversal" → "revers",
    read in "bit-reversed"): a compound the corpus writes with the verb's form is the same thing."""
    return {word[:-len(x)] for x in _NOUN_SUFFIXES if word.endswith(x) and len(word) - len(x) >= 4}


def verify(draft: str, evidence: list[Evidence], params: AnswerParams) -> tuple[str, list[SentenceCheck], str | None]:
    """Keep the supported, validly cited sentences; the reason when none survive."""
    by_key = {e.key: e for e in evidence}
    report = check_citations(draft, set(by_key))
    kept = []
    for s in report.sentences:
        if not s.valid_keys:
            s.supported, s.support = False, 0.0
            continue
        s.support = round(support_score(s.claim, [by_key[k].text for k in s.valid_keys]), 3)
        s.supported = s.support >= params.support_threshold
        if s.supported:
            kept.append(s)
    if not report.sentences:
        return "", report.sentences, "insufficient_evidence"
    if not kept:
        reason = "missing_citations" if not any(s.valid_keys for s in report.sentences) else "unsupported_claims"
        return "", report.sentences, reason
    text = "\n".join(_only_valid_keys(s) for s in kept)
    return text, report.sentences, None


def _only_valid_keys(s: SentenceCheck) -> str:
    """Drop citation keys that name no evidence from a kept sentence."""
    if not s.invalid_keys:
        return s.text
    out = s.text
    for k in s.invalid_keys:
        out = re.sub(rf"\s*\[\s*{k}\s*\]", "", out, flags=re.I)
        out = re.sub(rf"\s*,\s*{k}\b|\b{k}\s*,\s*", "", out, flags=re.I)
    return out


def missing_focus(qa: QueryAnalysis, cited: list[Evidence], answer_text: str = "", actions: bool = True,
                  heads: bool = True) -> list[str]:
    """Focus terms of the question (numbers, quoted strings, numbered identifiers) that no cited
    evidence states, and (with `heads`) the thing it asks for ("what license fee …") when the
    cited evidence never mentions it: an answer about something else that merely shares the topic."""
    # a question naming a document asks what that document states: with a passage of it cited, a
    # name or number only another document's passage states is not the answer; and what it cites
    # is in its own reference list, not in another document's entry for the same authors
    cited = _of_named_docs(qa, cited)
    unsourced = ([f"a reference of {', '.join(qa.doc_mentions)}"]
                 if qa.asks_cited and qa.docs and not any(e.doc_id in qa.docs for e in cited) else [])
    raw = " ".join(e.headed_text for e in cited)
    raw = f"{raw} {mended_contents(raw)}"  # "Widg | et Layout" in a contents list states "Widget"
    text = raw.lower()
    places = place_numbers(qa.text)
    missing = [f for f in focus_terms(qa.text, qa.identifiers, qa.doc_mentions)
               if not term_stated(f, text, alone=f not in places) and not expansion_written(f, raw)]
    missing += [f"{c} (a variant the evidence never names)" for c in letter_modifiers(qa.text)
                if not letter_written(c, raw)]
    return missing + (unstated_heads(qa.text, raw, answer_text, actions) if heads else []) + unsourced


# A name the question gives a command or a member in words: after a possessive or "the", before
# its kind or the verb that closes the question ("What does Gri's set z type log do?", "the write
# html command").
_WORDED_NAME = re.compile(rf"(?:['’]s|\bthe)\s+((?:[a-z][\w.-]*\s+){{1,5}}?[a-z][\w.-]*)\s+"
                         rf"(?:(?:{MEMBER_KINDS})s?\b|(?:do|does|mean|return|draw)\s*\?)")


def unlisted_variants(question: str, texts: list[str]) -> list[str]:
    """The worded name of a command or member the question asks about ("delete columns where
    duplicated") that no text writes, when a text's reference list defines a sibling of it, a
    name of as many words differing in one word only ("delete columns where missing"): the
    documents list the variants there are, and the asked one is not among them. A near miss,
    answered before from the sibling's entry."""
    names = [m.group(1) for m in _WORDED_NAME.finditer(question)]
    if not names:  # (most questions: the texts are not read)
        return []
    lowered = [t.lower() for t in texts]
    listed = [t.lower().split() for text in texts for t in entry_terms(text)]
    # (an index lists them too: "set input data window command … 123")
    indexed = [_ENTRY_WORD.findall(e.lower()) for text in texts for e in contents_entries(text)]
    out: list[str] = []
    for name in names:
        words = name.lower().split()
        if any(term_stated(name, t) for t in lowered):
            continue
        sibling = next((term for term in listed if _one_word_apart(term, words)), None) or next(
            (term for term in indexed if _all_but_one(term, words)), None)
        if sibling:
            out.append(f"{name} (the documents list {' '.join(sibling)})")
    return out


_ENTRY_WORD = re.compile(r"[a-z][\w.-]*[a-z0-9]|[a-z]")
_KIND_NOUN = re.compile(rf"(?:{MEMBER_KINDS})s?")


def _all_but_one(entry: list[str], name: list[str]) -> bool:
    """An index entry holding every word of a name of three words or more but one content word, and
    words of its own ("set input data window command" for "set window title"): another thing of
    the same kind. (An entry with no word of its own, "set dash command" for "plain set dash", is
    the thing named more briefly.)"""
    held, named = {stem(w) for w in entry}, {stem(w) for w in name}
    missing = [w for w in name if stem(w) not in held]
    own = [w for w in entry if stem(w) not in named and not _KIND_NOUN.fullmatch(w) and w not in STOPWORDS]
    return (len(name) >= 3 and len(missing) == 1 and missing[0].isalpha() and missing[0] not in STOPWORDS
            and bool(own))


def _one_word_apart(a: list[str], b: list[str]) -> bool:
    """As many words, all the same but one, and that one a content word of another stem in each."""
    apart = [i for i, (x, y) in enumerate(zip(a, b)) if x != y] if len(a) == len(b) else []
    if len(apart) != 1:
        return False
    x, y = a[apart[0]], b[apart[0]]
    return all(w.isalpha() and w not in STOPWORDS for w in (x, y)) and stem(x) != stem(y)


def _of_named_docs(qa: QueryAnalysis, evidence: list[Evidence]) -> list[Evidence]:
    """The evidence from the documents the question names, if any is; else all of it (a named
    document the retrieval did not reach does not make the others' passages wrong)."""
    if not qa.docs:
        return evidence
    return [e for e in evidence if e.doc_id in qa.docs] or evidence


def expansion_written(acronym: str, text: str) -> bool:
    """An acronym the text writes spelled out, as words in a row whose initials make it ("General
    Public License" for GPL), in any case. Stricter than `asked.expands`, which skips small words
    and reads letters inside words: with those, a two-letter acronym is "spelled" by most texts
    ("questions of randomness" for QR), and the focus check would never fire."""
    if not ACRONYM.fullmatch(acronym):
        return False
    initials = [w[0].lower() for w in re.findall(r"[A-Za-z][\w-]*", text)]
    want = list(acronym.lower())
    return any(initials[i:i + len(want)] == want for i in range(len(initials) - len(want) + 1))


def term_stated(term: str, text: str, alone: bool = True) -> bool:
    """Whether lower-cased `text` states `term` as written or spaced differently ("AB-CD 768",
    "7 856"). A respaced match must start and end on a word boundary: with the spaces simply
    dropped, a name ("Pager") would be found in "page remaining". A number must stand alone
    (`alone`), unless it numbers a place the text may not repeat ("step 8 of X").
    """
    t = term.lower()
    if alone and re.fullmatch(r"\d+", t):
        # a number stands alone: "4" is not stated by "2014", "44" or the "4" of "2.4"
        return re.search(r"(?<![\d.])" + r"\s*".join(t) + r"(?!\d)(?!\.\d)", text) is not None
    if t in text:
        return True
    chars = [re.escape(ch) for ch in re.sub(r"\s+", "", t)]
    # (the clean stage marks a superscript with a caret: a question writes "SPHINCS+" inline)
    return re.search(r"(?<![a-z0-9])" + r"[\s^]*".join(chars) + r"(?![a-z0-9])", text) is not None


def unstated_heads(question: str, evidence_text: str, answer_text: str, actions: bool = True) -> list[str]:
    """The asked things ("what license fee …" → fee) and, with `actions`, the asked events ("who
    chaired …" → chaired) the evidence never mentions, and the fixed-unit quantities (money,
    duration) the answer never shows. In a multi-part question they count only
    when no part's asked thing is stated: a part the documents do not state is reported by the
    composer, and the other parts still deserve their answer."""
    per_part = [[h.word for h in asked_heads(p) if not head_stated(h, evidence_text, answer_text, p)
                 and not (not h.type and slot_filled(p, answer_text))]
                + (unstated_actions(p, evidence_text, answer_text) if actions else [])
                + unshown_quantities(p, answer_text) + unshown_stance(p, answer_text)
                + contradicted_counts(p, answer_text) + contradicted_labels(p, answer_text, evidence_text)
                for p in split_parts(question)]
    if len(per_part) > 1 and not all(per_part):
        return []
    return [w for part in per_part for w in part]


def unstated_actions(question: str, evidence_text: str, answer_text: str) -> list[str]:
    """The asked events the evidence never mentions; a doer's event ("who first proved X secure?",
    "which agencies have adopted X?") must be stated by the answer itself: a sentence on X beside a
    cited passage that says "proved" of something else does not name who proved it."""
    doers = set(asked_actions(question, subject_only=True))  # (a subset of the asked events)
    return [v for v in asked_actions(question)
            if not action_stated(v, "" if v in doers else evidence_text, answer_text, question)]


def decide(qa: QueryAnalysis, drafted: Draft, evidence: list[Evidence], idf: dict[str, float],
           model: AbstainModel | None, threshold: float | None, ordinary: frozenset[str] = frozenset()) -> dict:
    """The features of a drafted answer and, with a model, its probability and verdict."""
    feats = features(Scorer(qa, idf, ordinary), [e.text for e in evidence], drafted.part_scores, drafted.part_types,
                     len(drafted.missing_parts), drafted.best, drafted.text)
    out: dict = {"draft": drafted.how, "features": feats}
    if model is not None:
        cut = model.threshold if threshold is None else threshold
        p = model.probability(feats)
        out.update(probability=round(p, 4), threshold=cut, answer=p >= cut)
    return out


def answer_from_evidence(qa: QueryAnalysis, evidence: list[Evidence], params: AnswerParams,
                         idf: dict[str, float], vocab: set[str], llm=None,
                         common_words: frozenset[str] = frozenset(), topics: tuple[str, ...] = (),
                         attribute: str = "", model: AbstainModel | None = None) -> Answer:
    """Draft with the configured backend (falling back to extractive), verify, then let the
    calibrated model decide whether the verified draft answers the question."""
    backend = params.backend
    notes: list[str] = []
    if not tokenize(strip_citations(qa.text)):
        return refusal(qa.text, "insufficient_evidence", backend, ["the question names nothing to look up"])
    if params.refuse_unknown_terms:
        texts = [e.text for e in evidence]
        unknown = [w for w in unknown_terms(qa.text, vocab, common_words, texts) if not subscript_apart(w, texts)]
        if unknown:
            return refusal(qa.text, "unknown_terms", backend, [f"not in the corpus: {', '.join(unknown)}"])
    if not evidence:
        return refusal(qa.text, "insufficient_evidence", backend, ["no evidence selected"])
    # The extractive draft is always made: its passage scores are the decision's features.
    drafted = compose(qa, evidence, params, idf, topics, attribute, common_words)
    score = Scorer(qa, idf, common_words)
    decision = decide(qa, drafted, evidence, idf, model, params.abstain.threshold, common_words)
    if backend == "openai" and llm is not None:
        draft, llm_notes = llm.draft(qa, evidence)
        notes += llm_notes
        if draft:
            text, checks, reason = verify(draft, evidence, params)
            if reason is None:
                return _gate(qa, _answer(qa.text, text, checks, evidence, "openai", notes), evidence, params,
                             decision, score, vocab)
            notes.append(f"openai draft rejected ({reason}); deterministic fallback")
        backend = "extractive"
    out = _extractive(qa, drafted, evidence, params, decision, score, vocab, backend, notes)
    if out.refusal_reason != "focus_not_stated" or not params.focus_redraft:
        return out
    # The draft cited passages that never state a name, number or asked event of the question.
    # Redraft from the evidence that states them all, if any does: the passage that answers may
    # have scored lower.
    missing = out.unstated
    heads = {h.word: h for p in split_parts(qa.text) for h in asked_heads(p)}
    if not set(missing) - set(heads):
        # A missing asked thing alone ("which encoding …"): only evidence with a passage naming it
        # as the question does, with the words that modify it ("quantum key distribution
        # protocol", not any protocol), may answer; the top passages not mentioning it at all is
        # the usual sign of a question the documents do not answer.
        stating = [e for e, us in ((e, units(e)) for e in evidence)
                   if all(any(phrase_stated(heads[m], u.text) for u in us) for m in missing)]
    else:  # (a passage of a named document, when the evidence holds one)
        stating = [e for e in _of_named_docs(qa, evidence)
                   if not set(missing) & set(missing_focus(qa, [e], "", params.refuse_missing_action))]
    if not stating or len(stating) == len(evidence):
        return out
    redrafted = compose(qa, stating, params, idf, topics, attribute, common_words)
    again = _extractive(qa, redrafted, evidence, params,
                        decide(qa, redrafted, stating, idf, model, params.abstain.threshold, common_words),
                        score, vocab, backend, [*notes, f"redrafted from the {len(stating)} evidence unit(s) "
                                                        f"stating {', '.join(missing)}"])
    if again.refused:
        out.notes.append(f"a redraft from the {len(stating)} evidence unit(s) stating {', '.join(missing)} "
                         f"was refused too ({again.refusal_reason})")
        return out
    return again


def _extractive(qa: QueryAnalysis, drafted: Draft, evidence: list[Evidence], params: AnswerParams,
                decision: dict, score: Scorer, vocab: set[str], backend: str, notes: list[str]) -> Answer:
    """The extractive draft verified against the evidence and passed through the gate."""
    notes = list(notes)
    if not drafted.text:
        out = refusal(qa.text, "insufficient_evidence", backend, [*notes, "no evidence unit matched the question"])
        out.decision = decision
        return out
    if drafted.missing_parts:
        notes.append("the documents do not state: " + "; ".join(drafted.missing_parts))
    text, checks, reason = verify(drafted.text, evidence, params)
    if reason is not None:
        return Answer(qa.text, REFUSAL, True, reason, [], checks, backend, notes, decision)
    return _gate(qa, _answer(qa.text, text, checks, evidence, backend, notes), evidence, params, decision, score,
                 vocab)


# A lower-case compound adjective written as one hyphenated word ("big-endian", "worst-case")
_HYPHENATED = re.compile(r"[a-z]+(?:-[a-z]+)+")
# Closed-class words that come before a noun without naming a kind of it ("how many bytes").
_QUANTIFIERS = frozenset("many much few fewer several more most less least other another each every some any "
                         "all both either neither enough such".split())
# Where a noun phrase ends: the question's end, punctuation, a preposition, a participle with its
# preposition ("… number *given in* X" opens a clause after the phrase), or the auxiliary after a
# which/what phrase ("which port number *does* X use").
_PHRASE_END = (r"\s*(?:[?.!,;:]|$|(?:[a-z]+(?:ed|en)\s+)?(?:in|on|for|with|of|to|from|by|at|into|under|over)\b"
               rf"|(?:{AUXILIARY_ALTERNATION})\b)")


def _ing_form(word: str) -> bool:
    """A verb's -ing form ("running", "padding"), not a noun that ends so ("string", "thing")."""
    return word.endswith("ing") and re.search(r"[aeiouy]", word[:-3]) is not None


def modifying(question: str, absent: list[str]) -> list[str]:
    """The absent words that modify the noun ending a noun phrase ("a violin plot?", "a smartphone
    app?", "radar charts with …"): they name the kind of thing asked about, so however well a
    passage matches the rest of the question ("which command draws a … plot"), it is about
    another kind. A word followed by a verb ("a pilot verify per flight", "in a hurry run …"), a
    function word, an -ing form, an ordinal or a comparative ("does Bob put *first* in …": no noun
    follows), a participle describing it ("a paper *cited* in X"), or a quantifier ("how many
    bytes") modifies nothing."""
    out = []
    for w in absent:
        if w.lower() in _QUANTIFIERS:
            continue
        # the noun: a word of three letters or more, or a two-letter acronym ("which root CA does …")
        # … or, after a compound adjective, a compound noun's first noun ("a big-endian *bit* string",
        # "the worst-case *running* time")
        # (an empty group stands for the second noun other modifiers never take)
        compound = r"(?:\s+([a-z][\w-]{2,}))?" if _HYPHENATED.fullmatch(w.lower()) else "()"
        m = re.search(rf"(?<![\w-]){re.escape(w)}\s+([A-Za-z][\w-]{{2,}}|(?-i:[A-Z]{{2}})){compound}"
                      rf"(?={_PHRASE_END})", question, re.I)
        nxt = m.group(1).lower() if m else ""
        second = (m.group(2) or "").lower() if m else ""
        # a common noun before a name is the name's label, not a kind of it ("the surname Dang",
        # "the class Widget"): the name is what is asked about
        labels = bool(m) and w.islower() and m.group(1)[0].isupper() and not m.group(1).isupper()
        if (m and not labels and nxt not in STOPWORDS and nxt not in _DESCRIBING and second not in STOPWORDS
                and (not _ing_form(nxt) or second) and not _ing_form(second)
                and not describing_participle(nxt, question[m.end():])):
            out.append(w)
    return out


# Words of a modifier's slot that describe rather than name a kind: ordinals ("the fourth round" is
# often cited by its number), irregular comparatives and superlatives.
_DESCRIBING = frozenset("first second third fourth fifth sixth seventh eighth ninth tenth better best worse worst "
                        "more most less least".split())
# Subject pronouns and relatives: the word after one is its verb ("can you stop X", "devices that
# run X"), not a modifier.
_SUBJECTS = frozenset("i you we they he she it that which who".split())


# A place phrase's opening before the word modifying its noun ("on the [title] page of X").
_ON_THE = re.compile(r"\b(?:on|in|at|from)\s+(?:the|its|their|this|that|each)\s+$", re.I)


def unretrieved_kind(question: str, evidence_texts: list[str], vocab: set[str],
                     named: tuple[str, ...] = ()) -> list[str]:
    """The lower-case word modifying the noun that ends a noun phrase ("… sets *kerning* pairs?",
    "… adds *crop* marks?") when no retrieved passage writes it in any form, though the corpus
    does (else `modifying` has it). Retrieval found the head noun's topic; the kind of it asked
    about is nowhere in what it found. Left out, because they describe rather than name a kind or
    are not modifiers: plurals and verbs in -s ("gives", "shrinks"), an -ing form after a
    preposition or a conjunction ("when implementing X"), adverbs in -ly, comparatives ("smaller"
    when the corpus writes "small"), irregular participles ("known"), ordinals, words after a
    subject pronoun or a relative ("can you stop …", "devices that run …"), words of a document's
    name (`named`), and a multi-part question (each part deserves its own answer).
    Measured on the seen pools (README)."""
    if len(split_parts(question)) > 1:
        return []
    written: set[str] = set().union(*(token_set(t) for t in evidence_texts)) if evidence_texts else set()
    names = {t for n in named for t in token_set(n)}
    out = []
    for m in _WORD.finditer(question):
        w = m.group(0)
        if (not ((w.isalpha() or _HYPHENATED.fullmatch(w)) and w.islower() and len(w) >= 3) or w in STOPWORDS
                or w in QUESTION_FRAME):
            continue
        if (w in _DESCRIBING or w in IRREGULAR or w in names or re.search(r"(?<![su])s$|ly$", w)
                or (written_compound(w, written, evidence_texts) if _HYPHENATED.fullmatch(w)
                    else _in_corpus(w, written))  # a compound is known only whole
                or _comparative(w, vocab) or _degree_written(w, evidence_texts) or w in function_words()):
            continue  # (the function-word list loads only for a word no passage writes)
        before = question[: m.start()].split()
        prev = before[-1].lower().strip(",;:") if before else ""
        # after a determiner, a preposition or a verb in -s ("sets kerning pairs", "in reverse order")
        verb_s = ends_in_s(prev)
        nxt = re.match(r"\s+([A-Za-z][\w-]*)", question[m.end():])
        # … but the question's own "which"/"what" is a determiner before a noun that is no verb, an
        # acronym ("Which root CA does …"; "which paper cited in X" may be a participle)
        relative = prev in _SUBJECTS and not (len(before) == 1 and prev in ("which", "what") and nxt
                                              and re.fullmatch(r"[A-Z]{2,6}", nxt.group(1)))
        if relative or not (not prev or prev in STOPWORDS or prev in function_words() or verb_s):
            continue
        # a page named by a word before it is a place in the document ("named on the *title* page of
        # X", "on its cover page"), not the kind of thing asked about
        if nxt and nxt.group(1).lower() in ("page", "pages") and _ON_THE.search(question[: m.start()]):
            continue
        # an -ing form after a preposition or a conjunction is a verb ("when implementing X"); after
        # an article or a verb it names a kind ("sets kerning pairs")
        if w.endswith("ing") and not (verb_s or prev in DETERMINERS):
            continue
        if nxt and nxt.group(1).lower() not in function_words() and modifying(question, [w]):
            out.append(w)
    # a word typing the asked thing ("email" of "email address") is written by showing one (read
    # only when some word is left: most questions never get here with one)
    if not out:
        return out
    shown = _typing_shown(question, evidence_texts)
    return [w for w in out if w not in shown]


def _typing_shown(question: str, evidence_texts: list[str]) -> set[str]:
    """The typing words of the question's asked things whose cue the evidence shows."""
    shown: set[str] = set()
    for h in asked_heads(question):
        typing = typing_words(h)
        if typing and any(CUES[h.type].search(t) for t in evidence_texts):
            shown |= typing
    return shown


def _comparative(word: str, vocab: set[str]) -> bool:
    """"smaller", "largest": a base the corpus writes plus -er/-est (a doubled last consonant too)."""
    for end in ("er", "est"):
        if word.endswith(end):
            base = word[: -len(end)]
            if base in vocab or (len(base) > 2 and base[-1] == base[-2] and base[:-1] in vocab):
                return True
    return False


# A word in -er/-est used as a degree of an adjective: an intensifier before a comparative or "than"
# after it ("even shorter answers", "much faster than"), "the"/"its" before a superlative ("the
# simplest way"). Said without them, "printer" or "header" is a noun of its own, not "print" or "head".
_DEGREE = (r"\b{w}er\s+than\b|\b(?:even|much|far|still|slightly|somewhat|bit|no|any)\s+{w}er\b"
           r"|\b(?:the|its|their)\s+{w}est\b")


def _degree_written(word: str, texts: list[str]) -> bool:
    """"short" where a passage writes "even shorter" ("For even shorter answers, …"): a passage
    uses the adjective the question writes plain in a degree of it (`_DEGREE`; "simpler",
    "bigger", "earlier" too)."""
    stems = {word[:-1] if word.endswith("e") else word,       # short → shorter, simple → simpler
             word + word[-1],                                   # big → bigger
             word[:-1] + "i" if word.endswith("y") else word}   # early → earlier
    pattern = re.compile("|".join(_DEGREE.format(w=re.escape(x)) for x in stems), re.I)
    return any(pattern.search(t) for t in texts)


def heads_a_phrase(question: str, absent: list[str]) -> list[str]:
    """The absent words that head a noun phrase of their own, after a determiner and before its
    end ("… applies *a shear* to its contents?"): the thing the question asks about, which the
    documents never write."""
    return [w for w in absent
            if re.search(rf"\b(?:a|an|the|its|their)\s+{re.escape(w)}(?={_PHRASE_END})", question, re.I)]


# Nouns naming the kind of a named thing ("the *xor* operator", "its *--fast* flag").
_NAMED_KINDS = re.compile(r"\s+(?:operator|option|command|parameter|argument|property|attribute|field|flag|keyword|"
                          r"setting|variable|method|function|tag|class|macro|package|module|widget|builtin|synonym|"
                          r"environment)s?\b", re.I)


def names_unwritten(question: str, absent: list[str]) -> list[str]:
    """The absent words a question names a thing by, before the noun of its kind ("what does the
    rpn *xor* operator yield …?"): however the rest of the question reads, the documents never
    name that thing. (`modifying` wants the kind noun to end its phrase; here a verb may follow.)"""
    # (the word may open a name of up to three words: "the draw *violin* plot command")
    return [w for w in absent if any(
        m.group(1) is None or not set(m.group(1).lower().split()) & STOPWORDS
        for m in re.finditer(rf"(?<![\w-]){re.escape(w)}((?:\s+[a-z][\w-]*){{1,2}})?{_NAMED_KINDS.pattern}",
                             question, re.I))]


# "which algorithm *caches* the nodes …": a verb in -s right after the asked thing (one to three
# words after which/what), then a determiner opening its object
_SUBJECT_VERB = re.compile(r"^\s*(?:which|what)\s+(?:[\w+.-]+\s+){1,3}?([a-z]+s)\s+"
                           r"(?:the|a|an|its|their|all|each|every)\b", re.I)


def asks_unwritten_event(question: str, absent: list[str]) -> list[str]:
    """The verb of a "which X <verb>s the Y?" question when the documents never write it in any
    form: the event asked about is one they do not describe, however well the rest matches ("which
    algorithm caches the nodes that X computes?" answered with X's steps)."""
    m = _SUBJECT_VERB.match(question)
    return [m.group(1)] if m and m.group(1) in absent else []


def ends_on(question: str, absent: list[str]) -> list[str]:
    """The absent word the question ends on, when its last content word is one ("… recommend for
    satellites?", "Can a label blink?", "… send the sheets by fax?"): English puts the new
    information last, so the documents never writing it means they do not answer. Not a compound
    ("line-thickness": its parts may be written apart), nor the word a question word asks for."""
    words = [m for m in _WORD.finditer(question)
             if m.group(0).lower() not in STOPWORDS and m.group(0).lower() not in QUESTION_FRAME]
    if not words or words[-1].group(0) not in absent or _COMPOUND.search(words[-1].group(0)):
        return []
    # … unless it is what a question word asks for ("and which edition?", "and who wrote it?")
    asked_for = re.search(r"\b(?:who|whom|whose|what|which)\s+$", question[: words[-1].start()], re.I)
    return [] if asked_for else [words[-1].group(0)]


def _rarest(words, score: Scorer, question: str = "") -> str:
    """The word the corpus writes least (highest idf weight). Of words written as rarely, the one
    the question puts last (English puts the new information last: "can the counter count
    *backwards*?"), then the word itself, which keeps the choice independent of set order."""
    order = {t: i for i, t in enumerate(tokenize(question))}
    return max(words, key=lambda w: (score.weights.get(w, 0.0), order.get(w, -1), w))


def unsaid_setting(question: str, answer_text: str, score: Scorer) -> str:
    """The rarest word (by corpus idf) of what a "which option/property/command … sets <object>?"
    question asks the setting to do, then of the phrase qualifying it ("… in double precision"),
    when the answer never says it: an answer listing a command's options, none of them for that
    object, names no setting for it ("" when both are said, or not such a question). The object's
    head noun must be said too, however common: an answer naming the setting for the arrow size
    does not answer "which command sets the arrow colour?" (seen pools: manuals +7 −2, NIST
    identical)."""
    object_words, qualifier = setting_words(question)
    if not object_words and not qualifier:
        return ""
    # (a camelCase name is said whole, as the question's word is read, or in its parts)
    said = token_set(split_camel(answer_text)) | token_set(answer_text)
    for words in (object_words, qualifier):
        # the object, then the phrase qualifying it ("… writes the values in double precision")
        if words:
            rare = _rarest(words, score, question)
            if rare not in said:
                return rare
    # … and the object's head noun, however common ("sets the arrow *colour*")
    head = setting_head(question)
    return head if head and head not in said else ""


# "can/could …?", and a do-question whose verb asks for a capability ("does it support …", "does
# it work on …", "do they accept …"): what a thing supports, accepts or runs on is named when stated.
_CAPABILITY = re.compile(r"\s*(?:(?:can|could)\b|(?:does|do|will)\b[^?,;]*?\b((?:support|accept|handle|work|run)s?)\b)",
                         re.I)
# Closed-class adverbs the function-word list lacks ("stored *instead* of …"). (Kept here: adding
# them to `function_words` in text/tokenize.py changes the build's code hash and every index.)
_CLOSED_ADVERBS = frozenset("instead anymore likewise thereby whereby".split())


def unsaid_capability(question: str, answer_text: str, score: Scorer) -> str:
    """The question's rarest word (by corpus idf) when a one-part "can X …?" question's answer
    never says it: "can it take a gradient?", "can slices pop out on hover?" were answered with
    what the thing can do otherwise, and a capability the documents state is stated in the words
    that name it ("" when said, or not such a question). Besides "can", only do-questions whose
    verb asks for a capability (support, accept, handle, work, run), whose rarest word is read
    after the verb: other "does/is …" questions ask about behaviour that an answer often states in
    other words (measured with all of them: NIST −3, manuals +12 −8; "can" alone: manuals +11 −1,
    NIST identical; adding the capability verbs: manuals +3, nothing lost)."""
    m = _CAPABILITY.match(question)
    if not m or len(split_parts(question)) > 1:
        return ""
    # (a function word, "too", "instead", names no capability.) A do-question's capability is what
    # follows its verb: "does TAB accept *semicolons*" (the subject is often a follow-up's carried
    # entity, said by any passage on it; and the verb may be another: "it *handles* Cyrillic").
    named = token_set(question[m.end():]) if m.group(1) else set(score.weights)
    words = [w for w in score.weights if w in named and w not in function_words() and w not in _CLOSED_ADVERBS]
    if not words:
        return ""
    rare = _rarest(words, score, question)
    # (the other word may be a function word: "can it have an *else* block?"; a do-question's
    # capability is said anywhere in the answer)
    others = [] if m.group(1) else [w for w in token_set(question) - STOPWORDS - _CLOSED_ADVERBS if w != rare]
    if not others:
        return "" if _says(rare, answer_text) else rare
    # a "can …" question's capability is said of its subject: one passage the answer quotes (its
    # sentences citing the same unit in a row) says the rarest word with another of the question's
    # ("can spans overlap?" is not answered by "labels can overlap" beside a passage on spans)
    return "" if any(_says(rare, p) and any(_says(w, p) for w in others) for p in _quoted_passages(answer_text)) \
        else rare


def _quoted_passages(answer_text: str) -> list[str]:
    """The answer's runs of sentences citing the same keys, each joined."""
    runs: list[tuple[list[str], list[str]]] = []
    for s in split_cited(answer_text):
        keys = parse_keys(s)
        if runs and runs[-1][0] == keys:
            runs[-1][1].append(s)
        else:
            runs.append((keys, [s]))
    return [" ".join(ss) for _, ss in runs]


def _says(word: str, text: str) -> bool:
    """The word among a text's tokens (camelCase split) or said in another form."""
    return word in token_set(split_camel(text)) or says_word(word, text)


# Drafts that state the asked thing by their place, in words of their own: a title page's line gives
# a document's title, date or authors ("November 2024" says neither "published" nor "date"), as a
# contents list gives a part's sections by their numbers, a caption a table's title (and a title line
# the number of the part it names), an array what follows a value, and a control construct's steps
# what it tests or chooses among ("6: while capacity ≤ max_checksum do" says no "condition").
_BY_PLACE = frozenset(("front", "byline", "subsections", "title", "number", "sequence", "construct"))


def stated_by_place(decision: dict | None) -> bool:
    """Was the answer drafted from lines that state the asked thing by their place (`_BY_PLACE`)?
    The checks that the answer's text names the question's words do not apply to it."""
    return bool(decision) and decision.get("draft") in _BY_PLACE


def _gate(qa: QueryAnalysis, ans: Answer, evidence: list[Evidence], params: AnswerParams, decision: dict,
          score: Scorer, vocab: set[str]) -> Answer:
    """A verified answer passes the focus check, the absent-word bar and the calibrated decision,
    or becomes a refusal that says which failed; an answer whose quantity other evidence
    contradicts says so."""
    ans.decision = decision
    by_place = stated_by_place(decision)
    if params.refuse_missing_focus:
        cited = [e for e in evidence if e.key in {c["key"] for c in ans.citations}]
        missing = missing_focus(qa, cited, ans.answer, params.refuse_missing_action, heads=not by_place)
        # an ordinal the retrieved evidence never gives the thing it numbers otherwise ("fifth
        # workshop" where all of it speaks of the fourth and third)
        missing += unstated_ordinals(qa.text, [e.headed_text for e in evidence])
        # … and a name the evidence lists a sibling of only ("set z type log" where its list
        # defines "set x type log" and "set y type log")
        missing += unlisted_variants(qa.text, [e.text for e in evidence])
        if missing:
            return Answer(qa.text, REFUSAL, True, "focus_not_stated", [], ans.sentences, ans.backend,
                          [*ans.notes, f"the cited evidence never states: {', '.join(missing)}"], decision,
                          unstated=missing)
        term = unstated_defined_term(qa.text, [s.claim for s in ans.sentences])
        if term:
            return Answer(qa.text, REFUSAL, True, "focus_not_stated", [], ans.sentences, ans.backend,
                          [*ans.notes, f"no answer sentence states the term asked to define: {term}"],
                          decision, unstated=[term])
        unsaid = unsaid_setting(qa.text, ans.answer, score)
        why = "the answer names no setting (or notation) that does what is asked"
        if not unsaid:
            unsaid, why = unsaid_capability(qa.text, ans.answer, score), "the answer states no such capability"
        if unsaid:
            return Answer(qa.text, REFUSAL, True, "focus_not_stated", [], ans.sentences, ans.backend,
                          [*ans.notes, f"{why}: it never says {unsaid}"], decision, unstated=[unsaid])
    texts = [e.text for e in evidence]
    absent = [w for w in absent_words(qa.text, vocab, texts) if not subscript_apart(w, texts)] \
        if params.absent_word_min_score else []
    # ... save what the answer states by its form: a reference entry says who "wrote" the work
    absent = [w for w in absent if not action_stated(w.lower(), "", ans.answer, qa.text)]
    best = decision["features"]["best"]
    if absent and best < params.absent_word_min_score:
        return Answer(qa.text, REFUSAL, True, "unknown_terms", [], ans.sentences, ans.backend,
                      [*ans.notes, f"not in the corpus: {', '.join(absent)}; the best passage holds {best:.2f} of "
                                   f"the other terms (< {params.absent_word_min_score})"], decision)
    kind = (modifying(qa.text, absent) or ends_on(qa.text, absent) or heads_a_phrase(qa.text, absent)
            or names_unwritten(qa.text, absent))
    what = "the kind of thing asked about"
    if not kind:
        kind, what = asks_unwritten_event(qa.text, absent), "the event asked about"
    if kind:  # however strong the match of the other words
        return Answer(qa.text, REFUSAL, True, "unknown_terms", [], ans.sentences, ans.backend,
                      [*ans.notes, f"not in the corpus: {', '.join(kind)}, {what}"], decision)
    unretrieved = (unretrieved_kind(qa.text, [e.headed_text for e in evidence], vocab, qa.doc_mentions)
                   if params.refuse_unretrieved_kind and not by_place else [])
    if unretrieved:
        return Answer(qa.text, REFUSAL, True, "focus_not_stated", [], ans.sentences, ans.backend,
                      [*ans.notes, f"no retrieved passage writes {', '.join(unretrieved)}, the kind of thing "
                                   f"asked about"], decision, unstated=unretrieved)
    if decision.get("answer") is False:
        return Answer(qa.text, REFUSAL, True, "low_confidence", [], ans.sentences, ans.backend,
                      [*ans.notes, f"p(answerable)={decision['probability']} < {decision['threshold']}"], decision)
    return _flag_conflicts(qa, ans, evidence, params, score)


def _flag_conflicts(qa: QueryAnalysis, ans: Answer, evidence: list[Evidence], params: AnswerParams,
                    score: Scorer) -> Answer:
    """A one-part number question whose value another unit about the same thing contradicts: each
    rival is marked in the answer ("Conflicting evidence: … [c3]", added when the answer did not
    quote it yet), and the note and the trace name both values. The marked lines pass the same
    per-sentence gate as any other."""
    want = asked(qa.text, qa.identifiers, qa.doc_mentions)
    if not params.flag_conflicts or want.multi or "number" not in want.types:
        return ans
    found = find_conflicts(qa.identifiers, ans.answer, evidence, score)
    if not found:
        return ans
    lines = ans.answer.split("\n")
    for c in found:
        marked = f"{CONFLICT_LEAD} {c.text.rstrip('.')}. [{c.key}]"
        if c.line is None:
            lines.append(marked)
        else:
            lines[c.line] = f"{CONFLICT_LEAD} {lines[c.line]}"
    text, checks, reason = verify("\n".join(lines), evidence, params)
    if reason is not None or CONFLICT_LEAD not in text:
        return ans
    note = "the evidence disagrees: " + "; ".join(
        f"{', '.join(c.answer_values)} against {', '.join(c.values)} [{c.key}]" for c in found)
    out = _answer(qa.text, text, checks, evidence, ans.backend, [*ans.notes, note])
    out.decision, out.conflicts = ans.decision, [c.to_dict() for c in found]
    return out


CONFLICT_LEAD = "Conflicting evidence:"


def _answer(question: str, text: str, checks: list[SentenceCheck], evidence: list[Evidence],
            backend: str, notes: list[str]) -> Answer:
    used = parse_keys(text)
    cites = [e.citation() for e in evidence if e.key in used]
    return Answer(question, text, False, None, cites, checks, backend, notes)
