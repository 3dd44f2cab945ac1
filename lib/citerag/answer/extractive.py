"""The offline, deterministic answer backend: compose an answer from evidence passages.

The question is taken apart first (`answer.asked`): its parts, the answer type
each part wants, its focus. Each part is answered by the passage (a unit and
the units that continue it, `answer.units`) that holds the most of that
part's weighted terms *and* can be of the wanted type. Units that answer by
construction come first: the numbered steps of a named algorithm, the
glossary row of the asked term, the table rows of the asked identifiers.
Every sentence keeps the key of the evidence it came from, so it is cited by
construction; the verifier still checks it like any other backend's output.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial

from citerag.answer.asked import (
    CUES,
    MEMBER_KINDS,
    STATED_BY_FORM,
    TYPES,
    Asked,
    Head,
    Part,
    answer_types,
    asked,
    asked_construct,
    asked_heads,
    asked_lines,
    asked_number,
    asked_part_kind,
    asked_subsections,
    asked_title,
    asks_byline,
    asks_default,
    asks_example,
    below_entry,
    best_form_score,
    date_line,
    entry_mark,
    entry_of_kind,
    example_name,
    expands,
    front_asked,
    front_phrase,
    joined_words,
    joins_things,
    kind_word,
    label_scored,
    names_part,
    numbered_title,
    reads_contents,
    reference_marks,
    split_parts,
    states_a_default,
    subsection_of,
    title_claim,
    title_ranks,
    type_match,
    typing_words,
)
from citerag.answer.citations import split_sentences
from citerag.answer.evidence import Evidence
from citerag.answer.units import (
    FRONT_PAGES,
    Passage,
    Unit,
    announces,
    carries_on,
    front_lines,
    passages,
    states_default,
    units,
)
from citerag.core.params import AnswerParams
from citerag.retrieval.query import (
    QueryAnalysis,
    anchors,
    asked_section,
    content_words,
    definition_subject,
    in_section,
)
from citerag.retrieval.rerank import is_overview
from citerag.text.inflect import bases, says_word, spellings
from citerag.text.patterns import (
    ACRONYM,
    CAMEL_NAME,
    DOCUMENT_NOUNS,
    DOCUMENT_PARTS,
    IO_LINE,
    PERSONAL_PRONOUNS,
    as_word,
    holds_any,
    identifiers,
    named_by_kind,
    names_place,
    proper_names,
    query_phrases,
)
from citerag.text.patterns import ALGORITHM_TITLE as _ALGO
from citerag.text.terms import Scorer, idf_weights, weighted_share
from citerag.text.tokenize import POSSESSIVE, QUESTION_FRAME, STOPWORDS, stem, token_set

# Passage scoring (each measured on both corpora's dev and blind sets; see README).
NAME_BONUS = 0.25   # a passage that opens by defining a name the question asks about
HEADING_SHARE = 0.5  # weight of the passage read under its section heading
TYPE_PENALTY = 0.5  # share of the score lost by a passage that cannot be of the wanted type
OPENING_BONUS = 0.5  # a broad question's overview-section opening sentence
QUOTED_BONUS = 0.5   # a passage holding verbatim a phrase the question quotes (a title, a message)
# A later part ("… and what should its x-axis be?", "…, and which make file is used?") is most
# likely about the thing the first part's passage is about: another passage under the same section
# heading wins a near tie.
SAME_SECTION_BONUS = 0.15
# A yes/no question about a requirement ("Should implementations bound the loop?") is answered by
# the passage stating that requirement with a modal, either way ("… should not bound this loop").
PREDICATE_BONUS = 0.1
# A question asking what holds by default is answered by the passage stating a default ("By
# default, the symbol used is an x.") over one that only names the setting.
DEFAULT_BONUS = 0.1
SAME_PART_SHARE = 0.9  # a part whose best passage an earlier part took answers from its own this close to it
# A part of a multi-part question also quotes its runner-up this close to its best passage: the term
# share cannot tell such a near tie apart ("what is X for all sets" held by two passages that both
# name X and the sets), and one part answered wrong leaves the whole answer incomplete. 0.8 → 0.7:
# seen pools +2 and +4, nothing lost, 0.14 more sentences per answer (0.6: +2 and +6, longer still).
NEAR_TIE_SHARE = 0.7
# A single-part question's runners-up stop at the sentence budget, except a runner-up this close to
# the best passage: a near tie is quoted whatever the budget (0.8 here answered one more
# unanswerable question of the seen pool).
PAST_BUDGET_SHARE = 0.9
# "On which pages are X and Y?": the contents entry holding this share of the terms the best entry
# leaves (Y's) is quoted too, however low it scores on the whole question.
OTHER_ENTRY_SHARE = 0.5
MAX_FOLLOW = 3      # continuation sentences a passage may take
MAX_ANTECEDENTS = 2  # sentences a passage that leans back ("In this case, …") takes in front
MAX_CONTINUED_LINES = 3  # code lines the next chunk opens with that complete a sentence the chunker cut


@dataclass
class Draft:
    """A cited draft and what the abstention model needs to judge it."""

    text: str
    how: str = ""                       # steps | preferred | parts | none
    part_scores: list[float] = field(default_factory=list)   # best passage score per part
    part_types: list[float] = field(default_factory=list)    # its answer-type match per part
    missing_parts: list[str] = field(default_factory=list)   # parts no passage answers
    best: float = 0.0                   # best passage score over the whole question


def _has(text: str, term: str) -> bool:
    return re.search(as_word(term.lower()), text.lower()) is not None


def _cite(u: Unit) -> str:
    """The unit with its citation on every sentence (the verifier checks sentence by sentence)."""
    body = u.text.rstrip()
    if not body.endswith((".", "!", "?", ":")):
        body += "."
    return " ".join(f"{s} [{u.key}]" for s in split_sentences(body))


# "What does X draw?", "What does X compute in Y?": what a named thing does, which the opening
# sentence of the section titled with its name says ("Draw the command-file name, …").
_ASKS_WHAT_IT_DOES = re.compile(r"^what (?:does|do|did)\s+\S.*?\s[a-z]+(?:\s+(?:in|of|for)\s+\S+(?:\s\S+)?)?\s*\??$",
                                re.I)
# "… in step 3?", "… in its pseudocode?": asked of an algorithm's steps
_STEP_ASKED = re.compile(r"\bsteps?\b|\bpseudocode\b", re.I)

# "What does X take as input?", "which inputs does X accept", "what does X return": an algorithm's
# "Input :" and "Output :" lines state it.
_ASKS_IO = re.compile(r"\b(?:inputs?|takes?|accepts?|outputs?|returns?)\b", re.I)
_IO_GLOSS = {"input": "input takes accepts", "output": "output returns"}

# A part with this many content words of its own names its own subject.
OWN_SUBJECT_WORDS = 4

_MODAL_VERB = re.compile(r"\b(?:(?:may|must|shall|should|can|cannot|need|will)\s+(?:not\s+|only\s+|also\s+|never\s+)?"
                         r"|(?:does|do|did)\s+not\s+)([a-z]+)\b", re.I)


def states_predicate(question: str, text: str) -> bool:
    """The passage states with a modal the verb a yes/no question asks about ("Should X bound Y?"
    ← "X should not bound Y"), or denies it ("Does X create Y?" ← "X does not create Y"; a bare
    "does" is emphasis, often in a condition: "if X does bound Y"): the verb after the modal or
    the negation is one of the question's words."""
    if not TYPES["yesno"].match(question.strip()):
        return False
    asked = {w.lower() for w in re.findall(r"[A-Za-z]+", question)[2:]} - STOPWORDS
    return any(m.group(1).lower() in asked for m in _MODAL_VERB.finditer(text))


_INNER_NAME = re.compile(r"(?<=\w )[A-Z][a-z]")  # a capitalised word inside a part: a name of its own


def _part_qa(qa: QueryAnalysis, text: str, subject: str | None = None) -> QueryAnalysis:
    """The question's analysis narrowed to one part. A short part keeps the question's
    identifiers as words ("and what does it rest on?" is still about the named thing), weighed
    as words, not as the part's own identifiers: with "Does X allow …, and to which address can
    comments about it be submitted?", a carried X counted three times would pick X's sentence
    again over the one that states the address. A part that names its own subject ("what is
    done with the partial results once they are all computed?") does not keep them: the rare
    identifier of the first part would outweigh its own words. Nor does a part that names a
    thing of its own, an identifier or a capitalised name ("Which level is X-3 in, and what is
    a round-trip check?" asks its second part about the check, not X-3), unless it points back
    with a pronoun."""
    if text == qa.text:
        return qa
    own = identifiers(text)
    words = tuple(dict.fromkeys(content_words(text)))
    named = bool(own) or bool(_INNER_NAME.search(text)) or bool(CAMEL_NAME.search(text))
    extra = [] if (not own and len(words) >= OWN_SUBJECT_WORDS) or (named and not _REFERS_BACK.search(text)) else \
        [i for i in (*qa.identifiers, *named_by_kind(qa.text)) if i.lower() not in text.lower()]
    # "How does X define a static key, and what is it contrasted with?": "it" is the first part's
    # subject, which the part must still be about when it names no identifier of its own
    if subject and not own and _REFERS_BACK.search(text) and subject.lower() not in text.lower():
        extra.append(subject)
    return dataclasses.replace(qa, text=" ".join([text, *extra]), identifiers=tuple(own),
                               content_words=words)


def _without_date_heads(qa: QueryAnalysis, heads: tuple[Head, ...]) -> QueryAnalysis:
    """The part without the word that names a date as its answer ("On what *date* did X become
    effective?"): a date is stated by the date itself ("Effective: March 2, 2021"), so the word
    would only favour sentences about dates in general; the answer type still demands a date."""
    typed = [h.word for h in heads if h.type == "date"]
    if not typed:
        return qa
    text = qa.text
    for w in typed:
        text = re.sub(as_word(w), " ", text, count=1)
    return dataclasses.replace(qa, text=text)


# What a contents entry states by its form alone: the page, that a part starts (or is listed) there,
# the kind of part a numbered entry is ("Section 4.3" is the entry "4.3 The Transform … 24"), and
# that the part is about what its title names ("covers", "describes").
_PAGE_FRAME = re.compile(r"\b(?:pages?|start(?:s|ed)?|begins?|listed|appears?|(?:sub)?sections?|chapters?|"
                         r"appendix|annex|cover(?:s|ed)?|describe[sd]?|discuss(?:es|ed)?|explain(?:s|ed)?)\b", re.I)


def _without_page_frame(qa: QueryAnalysis, heads: tuple[Head, ...]) -> QueryAnalysis:
    """An "on which page does X start?" (or "which chapter covers X?") part as the contents entry
    for X states it: without the frame an entry never writes, which would leave every entry's
    share of the terms low."""
    if not any(h.type == "page" or (h.type == "locator" and stem(h.word.lower()) == "chapter") for h in heads):
        return qa
    return dataclasses.replace(qa, text=_PAGE_FRAME.sub(" ", qa.text),
                               anchors=tuple(_PAGE_FRAME.sub("", a).strip() for a in qa.anchors))


# … nor the kind of the thing a section documents ("which section covers the write *command*?")
_ENTRY_FRAME = re.compile(rf"{_PAGE_FRAME.pattern}|\b(?:{MEMBER_KINDS})s?\b", re.I)


def without_entry_frame(text: str) -> str:
    """The text without the words a contents entry states by its form (`_ENTRY_FRAME`): "and on
    which page does it start?" asks nothing an entry's words must hold."""
    return _ENTRY_FRAME.sub(" ", text)


def _as_entry(qa: QueryAnalysis) -> QueryAnalysis:
    """A section part as a contents entry would state it: without the frame and the kind word it
    never writes, nor the document it is the contents of ("of the Foo manual"); body text, which
    does write them, is scored on the part as asked."""
    text = without_entry_frame(qa.text)
    for m in qa.doc_mentions:
        text = re.sub(rf"{re.escape(m)}(?:['’]s)?(?:\s+(?:{'|'.join(DOCUMENT_NOUNS)})\b)?", " ", text, flags=re.I)
    return dataclasses.replace(qa, text=text, anchors=tuple(_ENTRY_FRAME.sub("", a).strip() for a in qa.anchors))


def _form_stated(score: Scorer, heads: tuple[Head, ...]) -> Callable[[str], float]:
    """The part's scorer, with the words naming an e-mail or web address counted as stated by a
    passage showing one: "… may be submitted to x@y.org" states the "e-mail address" it never
    writes. A passage writing the words too ("the website http://…") scores as before."""
    forms = [(CUES[h.type], " ".join((h.word, *typing_words(h)))) for h in heads if h.type in STATED_BY_FORM]
    if not forms:
        return score

    def scored(text: str) -> float:
        return score(" ".join([text, *(words for rx, words in forms if rx.search(text))]))

    return scored


_DEFINES_AFTER = r"\s*(?::|—|–|=|\(|\bis\b|\bare\b|\bmeans\b)"
# How a passage defines the asked thing itself: "Drift windows are …", "seed: A value …". Not
# "margin: margin." or "Cost: For N points …": a table row or a label, whose
# value need not say what the thing is.
_DEFINES_SUBJECT = r"\s*(?:\bis\b|\bare\b|\bmeans\b|(?::|—|–)\s*(?:an?|the)\b)"


def names(qa: QueryAnalysis, ordinary: frozenset[str]) -> list[str]:
    """The names a question asks about, as opposed to its ordinary words: identifiers, words
    plain English does not have ("horiz", "ShuffleQuestions"), capitalised words inside the
    sentence ("the Lang option"), one- or two-letter symbols ("parameter v") and words named by
    their kind ("the margin option")."""
    out = list(qa.identifiers)
    # The words inside an identifier are not names of their own: "Codec.open" does not ask
    # about "Codec", so a passage defining that would not answer it.
    # Nor are the words naming a document by its number or title, or a part of one ("the status
    # report's glossary"): they say where to look.
    text = POSSESSIVE.sub("", qa.text)
    places = [m for m in qa.doc_mentions if names_place(m)]
    for ident in sorted((*qa.identifiers, *places), key=len, reverse=True):
        text = re.sub(as_word(ident), " ", text, flags=re.I)
    out += named_by_kind(text)
    words = re.findall(r"[A-Za-z][\w-]*", text)
    for i, w in enumerate(words):
        low = w.lower()
        if low in STOPWORDS or low in QUESTION_FRAME or low in DOCUMENT_PARTS:
            continue
        if (len(w) <= 2 and w.isalpha()) or (i > 0 and w[0].isupper()) or (ordinary and low not in ordinary
                                                                           and len(w) >= 4):
            out.append(w)
    return list(dict.fromkeys(out))


def defines_name(text: str, wanted: list[str], subject: str = "") -> bool:
    """The passage opens by defining one of the names ("v: the score given …", "horiz: …") or the
    thing a definition question asks about, after an article at most ("Drift windows are …", "A
    static key is …", "seed: A value …"). Only that subject takes the article: "The scheduler is …"
    opens many passages that describe the scheduler without saying what a question about it asks."""
    head = text.lstrip(" •-*#")
    return (any(re.match(rf"{re.escape(n)}\b{_DEFINES_AFTER}", head, re.I) for n in wanted)
            or bool(subject and re.match(rf"(?:(?:an?|the)\s+)?{re.escape(subject)}\b{_DEFINES_SUBJECT}", head, re.I)))


def passage_score(score: Callable[[str], float], types: tuple[str, ...], p: Passage, rank: int, acronym: str = "",
                  plurals: tuple[str, ...] = (), describes: bool = False, subject: str = "",
                  asks_io: bool = False) -> float:
    """Weighted term share of the passage, and of the passage read under its section heading
    and, for an algorithm's description line, its title (a section titled with the question's
    terms answers it in its own sentences, which need not repeat them); halved when the passage
    cannot be of the wanted answer type; a small tie-break for evidence ranked higher by
    retrieval. An algorithm's "Input :" or "Output :" line is read under its title only when the
    part asks what the algorithm takes or returns (`asks_io`): under the title, it would outscore
    the prose that states any other fact about the algorithm."""
    text = p.text
    if p.items:  # a list: its head with its best item, so a long list does not gather every term
        text = max((f"{p.head.text} {u.text}" for u in p.items), key=score)
    own = score(text)
    io = IO_LINE.match(p.head.text)
    group = "" if io and not asks_io else p.head.group
    # the line's label says what the question's verb does ("Output :" is what it returns)
    gloss = _IO_GLOSS[io.group(0).strip(" :").lower().rstrip("s")] if io and group else ""
    context = " ".join(x for x in (p.head.heading, group, gloss) if x)
    under = score(f"{context} {text}") if context else own
    h, t = HEADING_SHARE, TYPE_PENALTY
    if (group or (describes and p.head.opens)) and under > own:
        # An algorithm's description line ("Generates a signature.") says what the algorithm its
        # title names does: read under that title, it is the whole statement, not half of one.
        h = 1.0
    typed = passage_type(types, p, acronym, plurals, subject)
    return ((1 - h) * own + h * under) * (1 - t + t * typed) + 0.02 / (1 + rank)


def passage_type(types: tuple[str, ...], p: Passage, acronym: str = "", plurals: tuple[str, ...] = (),
                 subject: str = "") -> float:
    """Whether the passage is of a wanted answer type, read whole or by its head alone: a head
    that announces a list ("… two passwords to be specified for a document:") shows the list
    shape only where it ends, and the items that follow it are the list. A list question ("which
    fonts …") is also answered by a passage naming a class of the asked thing in the plural ("… the
    Type 1 Postscript fonts present in …")."""
    # A numbered section title over the passage says where it is: what "which section …" asks; so
    # does a numbered contents entry, however its layout broke ("5.1 | K-PKE Key Generation | 28")
    located = "locator" in types and (bool(_numbered_title(p))
                                      or (p.head.kind == "contents" and entry_of_kind("section", p.head.text)))
    named = "list" in types and any(_has(p.text, w) for w in plurals)
    # "What are drift windows?" reads as a list question too, but "Drift windows are intervals of
    # …" opens by defining the asked thing: that is the answer's shape, commas or not.
    # (Not when the question asks what an acronym stands for: "XML is a markup language"
    # defines XML without spelling it out.)
    defined = "definition" in types and not ("expansion" in types and acronym) and defines_name(p.text, [], subject)
    titled = bool(_title_values(p, types))
    # "How do I run X?" answered by "X is run as" [the command it displays]: the command is the
    # procedure, whatever the words around it
    shown = "procedure" in types and any(u.kind == "code" for u in p.units)
    return max(type_match(types, p.text, acronym), type_match(types, p.head.text, acronym), float(located),
               float(named), float(defined), float(titled), float(shown))


def _own_title(p: Passage) -> str:
    """The title of the section the passage's first unit is read under ("" when none is)."""
    return p.head.heading.split(" > ")[-1] if p.head.heading else ""


# Values a change log's entry leaves to its section title ("Version 3.1.4 [2019 Jun 2]" over "Add X.")
_TITLE_VALUES = ("version", "date")


def _title_values(p: Passage, types: tuple[str, ...] | set[str]) -> set[str]:
    """The wanted versions or dates the passage's own section title shows, not by its section
    number ("4.2.1.3 Known Issues" shows no version)."""
    wanted = [t for t in types if t in _TITLE_VALUES]
    if not wanted:  # (most questions: no title read on the ranking's hot path)
        return set()
    title = re.sub(r"^\d+(?:\.\d+)*\.?\s+", "", _own_title(p))
    return {t for t in wanted if CUES[t].search(title)}


def _numbered_title(p: Passage) -> str:
    """The passage's own section title when it is numbered ("10.2.2 Key Generation"), else ""."""
    section = _own_title(p)
    return section if CUES["locator"].search(section) else ""


def compose(qa: QueryAnalysis, evidence: list[Evidence], params: AnswerParams, idf: dict[str, float],
            topics: tuple[str, ...] = (), attribute: str = "", ordinary: frozenset[str] = frozenset()) -> Draft:
    """A cited draft answer (empty text when no passage is relevant enough). `ordinary`: words of
    plain English that weigh nothing when the corpus never uses them."""
    # (a contents list's entries are read only when the question asks on which page something is,
    # or which section covers it)
    byline = asks_byline(qa.text, qa.doc_mentions)
    all_units = [u for ev in evidence for u in units(ev, reads_contents(qa.text), byline, asks_example(qa.text),
                                                     qa.code_names)]
    types = answer_types(qa.text)
    paged = "page" in types
    if not all_units:
        return Draft("", "none")
    if byline:
        # "who wrote X?": X's title-page byline, on its earliest page; the one naming most of what
        # the question writes, when one does ("which division …": the names with their division;
        # "under which division is <name> listed …": that name's line)
        doc_of = {e.key: e.loc for e in evidence}
        names = sorted((-len(token_set(u.text) & set(qa.content_words)), doc_of[u.key].start_page, n, u)
                       for n, u in enumerate(all_units) if u.kind == "byline" and doc_of[u.key].doc_id in qa.docs)
        if names:
            return Draft(_cite_all([names[0][3]]), "byline", [1.0], [1.0], [], 1.0)
        all_units = [u for u in all_units if u.kind != "byline"]
    front = _front_answer(qa, evidence)
    if front:
        return Draft(_cite_all(front), "front", [1.0], [1.0], [], 1.0)
    sections = _subsections(qa, evidence, all_units)
    if sections:
        return Draft(_cite_all(sections), "subsections", [1.0], [1.0], [], 1.0)
    titled = _part_titled(qa, evidence, params.support_threshold)
    if titled:
        return Draft(_cite_all(titled), "title", [1.0], [1.0], [], 1.0)
    numbered = _part_numbered(qa, evidence, all_units)
    if numbered:
        return Draft(_cite_all(numbered), "number", [1.0], [1.0], [], 1.0)
    score = Scorer(qa, idf, ordinary)
    example = _example_lines(qa, evidence, all_units)
    if example:
        return Draft(_cite_all(example), "example", [1.0], [1.0], [], 1.0)
    kind, lines = _lines_asked(qa, all_units, score)
    if lines:  # ("construct": a construct's step states what is asked by its form, "while c do" the condition)
        return Draft(_cite_all(lines), kind, [1.0], [1.0], [], 1.0)
    neighbour = _array_neighbour(qa, evidence, score)
    if neighbour:
        return Draft(_cite_all(neighbour), "sequence", [1.0], [1.0], [], 1.0)
    if qa.mode == "compare" and len(topics) < 2 and len(qa.identifiers) >= 2:
        topics = qa.identifiers[:2]
    want = asked(qa.text, qa.identifiers, qa.doc_mentions, topics, attribute)

    # (which of its steps do something: prose stating their range answers, when the evidence has one)
    ranged = "lines" in types and any(u.kind == "sentence" and CUES["lines"].search(u.text)
                                                      for u in all_units)
    if qa.mode == "algorithm" and not ranged:
        steps = _algorithm_steps(qa, all_units, score)
        if steps and _ASKS_WHAT_IT_DOES.match(qa.text) and not _STEP_ASKED.search(qa.text):
            steps = _with_description(steps, all_units)
        if steps:
            s = score(" ".join(u.text for u in steps))
            draft = Draft(_cite_all(steps), "steps", [s], [1.0], [], s)
            return _with_other_parts(draft, steps, qa, want, evidence, all_units, params, idf, ordinary, score)

    if (not want.multi or topics) and not paged:
        preferred = _section_opening(qa, evidence, all_units) or _preferred(
            qa, all_units, score, params, {ev.key: ev.doc_id for ev in evidence})
        if preferred and _spells_out_only(preferred, qa, want):
            # "What is WKEM?" → "WKEM: Widget Key-Encapsulation Mechanism." says what the letters stand
            # for, not what it is: the passage that says so follows it
            said = {id(u) for u in preferred}
            rest = _answer_parts(qa, want, evidence, [u for u in all_units if id(u) not in said], params, idf,
                                 ordinary, score)
            if rest.text:
                s = max(rest.best, score(preferred[0].text))
                return Draft(f"{_cite_all(preferred)}\n{rest.text}", "preferred", [s], [1.0], [], s)
        if preferred:
            s = score(" ".join(u.text for u in preferred))
            t = type_match(want.types, " ".join(u.text for u in preferred), want.acronym)
            return Draft(_cite_all(preferred), "preferred", [s], [t], [], s)
    return _answer_parts(qa, want, evidence, all_units, params, idf, ordinary, score)


def _front_answer(qa: QueryAnalysis, evidence: list[Evidence]) -> list[Unit]:
    """For a question asking a named document's title or date (`front_asked`), the line of its
    title pages that gives it: the first date line; or the line holding most of the title the
    corpus knows for it (from its manifest or metadata), at least half of it. Title pages set
    a series' name, the authors and the title alike in capitals, so only the known title tells
    which line is the title."""
    if not front_phrase(qa.text)[0]:  # (most questions: no title page is read)
        return []
    own = sorted((e for e in evidence if e.loc.doc_id in qa.docs and e.loc.start_page <= FRONT_PAGES),
                 key=lambda e: (e.loc.start_page, e.ordinal))
    kind = front_asked(qa.text, qa.doc_mentions, " ".join(e.text for e in own)) if own else ""
    if not kind:
        return []
    lines = [u for e in own for u in front_lines(e)]
    if kind == "date":
        return next(([u] for u in lines if date_line(u.text)), [])
    known = {doc: token_set(t) for doc, t in zip(qa.docs, qa.doc_titles, strict=False) if t}
    doc_of = {e.key: e.loc.doc_id for e in own}

    def share(u: Unit) -> float:
        title = known.get(doc_of[u.key], frozenset())
        return len(token_set(u.text) & title) / len(title) if title and not re.search(r"://|@", u.text) else 0.0
    best = max(lines, key=lambda u: (share(u), -len(u.text)), default=None)
    return [best] if best is not None and share(best) >= 0.5 else []


def _subsections(qa: QueryAnalysis, evidence: list[Evidence], all_units: list[Unit]) -> list[Unit]:
    """For a one-part question asking which sections a numbered part has, the contents entries
    one level below it, once each, from the documents it names (any, if it names none)."""
    parent = asked_subsections(qa.text)
    if not parent or len(split_parts(qa.text)) > 1:
        return []
    doc_of = {e.key: e.loc.doc_id for e in evidence}
    out: dict[str, Unit] = {}
    for u in all_units:
        if u.kind == "contents" and subsection_of(parent, u.text) and (not qa.docs or doc_of[u.key] in qa.docs):
            out.setdefault(_ENTRY_KEY.sub(" ", u.text).strip().lower(), u)
    return list(out.values())


_ENTRY_KEY = re.compile(r"[\s|…]+")


def _part_titled(qa: QueryAnalysis, evidence: list[Evidence], threshold: float) -> list[Unit]:
    """"What is the title of Table 5 (of DOC)?": the part's own caption or heading, else its
    contents entry, restated "Table 5: Post-quantum …", from the documents the question names
    (the best-ranked evidence giving one). A sentence that mentions the part says nothing of its title."""
    part = asked_title(qa.text)
    if not part:
        return []
    # (a title the cited text supports first (`title_ranks`), then the best-ranked evidence, then
    # the chunk's first)
    best = min(((rank, n, title, ev) for n, ev in enumerate(_from_named(qa, evidence))
                for rank, title in title_ranks(part, ev.heading, ev.text, threshold)), key=lambda x: x[:2],
               default=None)
    if best is None:
        return []
    _, _, title, ev = best
    return [Unit(title_claim(part, title), ev.key, "sentence", 0)]


def _part_numbered(qa: QueryAnalysis, evidence: list[Evidence], all_units: list[Unit]) -> list[Unit]:
    """"Which algorithm number(s) do X (and Y) have?": for each name the question gives, the title
    line from the documents it names that numbers it ("Algorithm 39 MakeHint(z, r)"). Nothing
    unless every name has one (a one-part question): a name no title numbers is left to the
    general path, which refuses what the evidence does not state."""
    kind = asked_number(qa.text)
    if not kind or len(split_parts(qa.text)) > 1:
        return []
    mentions = " ".join(qa.doc_mentions).lower()
    # (a name is written as code, or capitalised inside the question: "is Decompose in …")
    given = [n for n in dict.fromkeys([*qa.code_names, *proper_names(qa.text)])
             if n.lower() not in mentions and not re.fullmatch(kind_word(kind), n, re.I)]
    wanted = [n for n in given if not any(n != o and n.lower() in o.lower() for o in given)]  # ("HashML")
    named = {ev.key for ev in _from_named(qa, evidence)}
    found: list[Unit] = []
    for name in wanted:
        rx = numbered_title(kind, name)
        unit = next((u for u in all_units if u.key in named and u.kind in ("title", "sentence")
                     and rx.match(u.text)), None)
        if unit is None:
            return []
        if all(unit is not f for f in found):
            found.append(unit)
    return found


def _from_named(qa: QueryAnalysis, evidence: list[Evidence]) -> list[Evidence]:
    """The evidence from the documents the question names (all of it when it names none), in order:
    a by-place draft ("Table 5's title", "what follows 17") must come from the named document."""
    return [ev for ev in evidence if not qa.docs or ev.doc_id in qa.docs]


# "Which value follows 1729 in X's list of …?": the number next to it in an array the evidence
# prints ("{ 1 | 1729 | 2580 | …"), which the unit reader takes for table rows under a header row.
_NEIGHBOUR_ASKED = re.compile(r"\b(?:which|what)\s+(?:value|number|entry|element)\s+(?:comes\s+)?"
                              r"(?:right\s+|directly\s+|immediately\s+)?(follows|after|precedes|before)\s+(-?\d+)\b",
                              re.I)
# a line of four or more numbers between cell marks or commas, in braces or brackets at most
_ARRAY_LINE = re.compile(r"^[\s{\[(]*-?\d+(?:\s*[|,]\s*-?\d+){3,}[\s}\])]*,?$")


def _array_neighbour(qa: QueryAnalysis, evidence: list[Evidence], score: Scorer) -> list[Unit]:
    """The pair of cells "N | M" (or "M | N" for what precedes N) from an array holding N once, the
    array whose announcing text best matches the question (FIPS 203 prints two arrays of zetas,
    both holding 17: the sentence before each says which values it holds), from the documents the
    question names."""
    m = _NEIGHBOUR_ASKED.search(qa.text)
    if not m or len(split_parts(qa.text)) > 1:
        return []
    after, n = m.group(1).lower() in ("follows", "after"), m.group(2)
    text_at = {(e.doc_id, e.ordinal): e.text for e in evidence if e.ordinal >= 0}
    found: list[tuple[float, int, str, Evidence]] = []
    for rank, ev in enumerate(_from_named(qa, evidence)):
        for start, values in _array_runs(ev.text):
            if values.count(n) != 1:
                continue
            i = values.index(n)
            j = i + 1 if after else i - 1
            if not 0 <= j < len(values):
                continue
            # (an array opening its chunk is announced at the end of the chunk before)
            announced = "\n".join(ev.text.split("\n")[:start]) or text_at.get((ev.doc_id, ev.ordinal - 1), "")
            pair = f"{values[min(i, j)]} | {values[max(i, j)]}"
            found.append((-score(f"{ev.heading} {announced}"), rank, pair, ev))
    if not found:
        return []
    _, _, pair, ev = min(found, key=lambda x: x[:2])
    return [Unit(pair, ev.key, "row", 0)]


def _array_runs(text: str) -> list[tuple[int, list[str]]]:
    """Each run of array lines in the text: the line it starts on, and its numbers in reading order."""
    runs: list[tuple[int, list[str]]] = []
    last = -2
    for k, line in enumerate(text.split("\n")):
        if not _ARRAY_LINE.match(line.strip()):
            continue
        if k != last + 1:
            runs.append((k, []))
        runs[-1][1].extend(re.findall(r"-?\d+", line))
        last = k
    return runs


def _answer_parts(qa: QueryAnalysis, want: Asked, evidence: list[Evidence], all_units: list[Unit],
                  params: AnswerParams, idf: dict[str, float], ordinary: frozenset[str],
                  question_score: Scorer, runners_up: bool = True) -> Draft:
    """Each part answered by its own best passage; a single-part question may add runners-up."""
    whole = passages(all_units, MAX_FOLLOW)
    follows = following_keys(evidence)
    # A step of an algorithm the question names states its details ("which function turns b into
    # w[i] in DrawMask" → "5: w[i] ← Unpack(b, …)"); another algorithm's steps state nothing asked.
    # (In a one-part question only: a part of a longer one is answered by the prose that states it
    # with the other parts' facts, which a terse step beside it would push out.)
    cands = [p for p in whole if p.head.kind != "title"
             and (p.head.kind != "step" or (not want.multi and _titled_by(p.head.group, qa.code_names)))]
    # "on which page …" is answered by a contents entry, when the evidence holds a contents list
    listed = any(p.head.kind == "contents" for p in cands)
    opening = _openings(evidence, all_units) if qa.broad else set()
    wanted = names(qa, ordinary)
    keys = list(dict.fromkeys(u.key for u in all_units))
    rank = {k: i for i, k in enumerate(keys)}
    chosen: list[Passage] = []
    scores, types, missing = [], [], []
    best_overall = 0.0
    position = {id(u): i for i, u in enumerate(all_units)}
    spent = 0  # sentence budget used: a list's items count once, context sentences and code not at all

    text_of = {e.key: e.text for e in evidence}
    # a reference the question names by its mark ("reference [25]"): its entry answers, and the
    # entries beside it in the list, sharing the question's words as much, are other works
    marks = set(reference_marks(qa.text))
    marked = {id(p) for p in cands if entry_mark(p.head.text) in marks} if marks else set()
    if marked:
        cands = [p for p in cands if id(p) in marked or entry_mark(p.head.text) is None]

    def take(p: Passage, part: Part) -> None:
        nonlocal spent
        # code is free: the code a sentence announces, and a signature that opens the description
        # of what it does (the description counts for the passage)
        spent += max(1, len(p.units) - len(p.items[1:]) - sum(u.kind == "code" for u in p.units))
        p = with_antecedent(with_context(p, all_units, position, params.context_sentences), all_units, position)
        p = with_items_across_chunks(p, all_units, position, whole, follows)
        chosen.append(with_section(p, asked_heads(part.text), part.types, text_of))

    doc_of = {e.key: e.loc.doc_id for e in evidence}
    first_subject = definition_subject(want.parts[0].text) if want.multi else None
    for n, part in enumerate(want.parts):
        quoted = query_phrases(part.text)
        heads = asked_heads(part.text)
        pqa = _without_page_frame(_without_date_heads(_part_qa(qa, part.text, first_subject if n else None), heads),
                                  heads)
        if n and chosen and "page" in part.types and _REFERS_BACK.search(part.text):
            # "…, and on which page does it start?": the entry of the section an earlier part answered with
            pqa = dataclasses.replace(pqa, text=f"{pqa.text} {_numbered_title(chosen[0])}")
        score = question_score if pqa is qa else Scorer(pqa, idf, ordinary)
        form_score = _form_stated(score, heads)
        # the names this part asks about: a passage defining another part's name does not answer it
        part_names = wanted if pqa is qa else names(pqa, ordinary)
        side = _side_name(part.topic, tuple(q.topic for q in want.parts if q is not part and q.topic))
        later = bool(n and chosen and not part.topic)  # a later part, not a comparison's other side
        # A later part that refers back ("… and what is its default value?") is answered in the
        # document the first part was answered from.
        same_doc = doc_of[chosen[0].head.key] if later and _REFERS_BACK.search(part.text) else ""
        # Any later part most likely continues the first part's thing: that passage's section wins a
        # near tie, with or without a pronoun; a part whose own words point elsewhere still outscores
        # it (seen pools: +1 and +4, nothing lost).
        section = chosen[0].head.heading if later else None
        default = asks_default(part.text)
        plurals = tuple(h.word for h in heads if h.word.endswith("s") and not h.type)
        # an algorithm's step answers the number a variable starts at, what it returns under a
        # condition or which function it calls
        stepped = (_assigned_at(part.text, qa, all_units, doc_of) or _return_under(part.text, all_units, idf)
                   or _called_by(part.text, qa.text, all_units, idf)
                   or _step_stating(part.text, qa.text, all_units, idf))
        if stepped is not None and stepped.head.kind == "title" and any(stepped.head in c.units for c in chosen):
            stepped = Passage(stepped.units[1:])  # another part already quotes the algorithm's title
        if stepped is not None and not _overlaps(stepped, chosen):
            top = score(f"{stepped.head.group} {stepped.text}")
            best_overall = max(best_overall, top)
            scores.append(top)
            types.append(1.0)
            spent += len(stepped.units)
            chosen.append(stepped)
            continue
        describes = bool(_ASKS_WHAT_IT_DOES.match(part.text))
        asks_io = bool(_ASKS_IO.search(part.text))
        # a return under a condition is read from the step's branch by `_return_under` alone: ranked
        # on shared words, the other branch ("if z < q then return z") would answer "not less than q"
        conditional = bool(_RETURNS_WHEN.search(part.text))
        # the thing a definition part asks about ("drift windows"): a passage defining it answers it
        subject = (definition_subject(part.text) or "").strip(" ,;:") if "definition" in part.types else ""
        # a contents entry answers a page or a section part; a page part by an entry alone, and so
        # a chapter part (a chapter's own title is seldom retrieved, and a section's, "5.2.1 …",
        # names no chapter); and by an entry of the level and kind it asks for (a chapter's)
        located = "page" in part.types or "locator" in part.types
        kind = asked_part_kind(part.text) if listed and located else ""
        entry_only = listed and ("page" in part.types or ("locator" in part.types and kind == "chapter"))
        leveled = {id(p) for p in cands if p.head.kind == "contents"
                   and entry_of_kind(kind, p.head.text)} if listed and located else set()
        # (a contents entry scored in its best form: "4.1 Crypto | graphic Functions | 18" holds
        # "cryptographic")
        entry_qa = _as_entry(pqa) if listed and located else None
        entry_scorer = Scorer(entry_qa, idf, ordinary) if entry_qa is not None else None
        entry_score = (partial(best_form_score, label_scored(_form_stated(entry_scorer, heads), anchors(part.text)))
                       if entry_scorer is not None
                       else form_score)
        ranked = sorted(((passage_score(entry_score if p.head.kind == "contents" else form_score, part.types, p,
                                        rank[p.head.key], want.acronym, plurals, describes, subject, asks_io)
                          + (OPENING_BONUS if id(p.head) in opening else 0.0)
                          + (NAME_BONUS if defines_name(p.text, part_names, subject) else 0.0)
                          + (QUOTED_BONUS if holds_any(quoted, p.text) or id(p) in marked else 0.0)
                          + (PREDICATE_BONUS if "yesno" in part.types and states_predicate(part.text, p.text) else 0.0)
                          + (DEFAULT_BONUS if default and states_a_default(p.text) else 0.0)
                          + (SAME_SECTION_BONUS if section and p.head.heading == section
                             and not _overlaps(p, chosen) else 0.0), i, p)
                         for i, p in enumerate(cands) if (not side or _has(f"{p.head.heading} {p.text}", side))
                         # (a contents entry says where a part is in its own document: of
                         # another than the one the question names, it is no answer)
                         and (located and (not qa.docs or doc_of[p.head.key] in qa.docs)
                              if p.head.kind == "contents" else not entry_only or (
                             kind == "chapter" and names_part(kind, p.text)))
                         and (not leveled or id(p) in leveled or p.head.kind != "contents")
                         and not (conditional and p.head.kind == "step")
                         and (not same_doc or doc_of[p.head.key] == same_doc)),
                        key=lambda x: (-x[0], x[1]))
        if not ranked or ranked[0][0] < params.min_answer_score:
            missing.append(part.text)
            scores.append(ranked[0][0] if ranked else 0.0)
            types.append(0.0)
            continue
        top, _, p = ranked[0]
        if entry_qa is not None and p.head.kind == "contents":
            p = _entry_below(p, ranked, entry_qa.text) or p
        best_overall = max(best_overall, top)
        scores.append(top)
        types.append(passage_type(part.types, p, want.acronym, plurals, subject))
        if not any(p.head in c.units for c in chosen):
            take(p, part)
            if entry_only and p.head.kind == "contents" and joins_things(part.text):
                other = _other_entry(entry_scorer, score, p, ranked[1:], chosen)
                if other is not None:
                    take(other, part)
            elif not want.multi:
                other = _joined_other(part.text, p, ranked[1:], chosen)
                if other is not None:
                    take(other, part)
        elif want.multi:  # an earlier part's passage is this part's best too: its own, if one is as good
            own = next((o for s, _, o in ranked[1:] if s >= SAME_PART_SHARE * top and not _overlaps(o, chosen)),
                       None)
            if own is not None:
                take(own, part)
        if want.multi and runners_up:
            tie = next((o for s, _, o in ranked[1:] if s >= NEAR_TIE_SHARE * top and not _quoted(o, chosen)), None)
            if tie is not None:
                take(tie, part)
        if not want.multi and runners_up:  # runners-up close to the best, within the sentence budget
            for s, _, other in ranked[1:]:
                if s < max(params.min_answer_score, 0.6 * top) or (spent >= params.max_sentences
                                                                    and s < PAST_BUDGET_SHARE * top):
                    break
                if not _quoted(other, chosen) and other.head.kind != "step":
                    take(other, part)
    if not chosen:
        return Draft("", "none", scores, types, missing, best_overall)
    out: list[Unit] = []
    for c in chosen:
        out += [u for u in c.units if u not in out]
    return Draft(_cite_all(out), "parts", scores, types, missing, best_overall)


def _entry_below(best: Passage, ranked: list[tuple[float, int, Passage]], asked: str) -> Passage | None:
    """The best-ranked entry below the best one (a section of its chapter) that holds a word of the
    question the best one lacks: "which section covers box plots among the real-world examples?"
    names the chapter ("8 Real-world examples … 35", holding more of the words) and asks for its
    section ("8.1 Box plots … 35")."""
    own = token_set(best.head.text)
    rest = {w for w in token_set(asked) - own if w.isalpha() and w not in STOPWORDS}
    if not rest:
        return None
    return next((p for _, _, p in ranked if p.head.kind == "contents" and below_entry(best.head.text, p.head.text)
                 and token_set(p.head.text) & rest), None)


def _joined_other(part: str, best: Passage, ranked: list[tuple[float, int, Passage]],
                  chosen: list[Passage]) -> Passage | None:
    """The passage beside the best one (in its chunk) whose line states the joined word the best
    one leaves out: "under which category and subcategory is X filed?" is answered by
    "Subcategory: Cryptography" and "Category: Computer Security", two lines of a title page that
    rank apart (the first holds the rarer word). Only beside it: elsewhere a line holding the word
    ("… for Categories 2, 3 and 5") is about something else."""
    joined = joined_words(part)
    lacking = [w for w in joined if not says_word(w, best.text)]
    if not lacking or len(lacking) == len(joined):
        return None
    return next((o for s, _, o in ranked if s > 0 and o.head.key == best.head.key and o.head.kind != "step"
                 and not _quoted(o, chosen) and all(says_word(w, o.head.text) for w in lacking)), None)


def _other_entry(score: Scorer, whole: Scorer, best: Passage, ranked: list[tuple[float, int, Passage]],
                 chosen: list[Passage]) -> Passage | None:
    """The contents entry holding most of what the best one leaves of the question's terms ("on
    which pages are the gawk tool and the graylevel command?" → "graylevel, command … 120" after
    "gawk system tool … 187"): on the whole question it ranks below entries sharing a word with
    both things, and under the runners-up's bar. `score` weighs the terms as an entry states
    them (no kind word); among entries holding as much, the one also writing the kind word
    (`whole`: the part's own terms) wins."""
    rest, rest_whole = score.without(score.held(best.text)), whole.without(whole.held(best.text))
    found = [(rest(o.text), rest_whole(o.text), -i, o) for _, i, o in ranked
             if o.head.kind == "contents" and not _quoted(o, chosen)]
    top = max(found, default=None, key=lambda x: x[:3])
    return top[3] if top and top[0] >= OTHER_ENTRY_SHARE else None


# "What does X return if random bit generation fails?": the value and the condition it is returned under
_RETURNS_WHEN = re.compile(r"\b(?:returns?|returned|outputs?)\b(?:\s+[\w-]+){0,3}?\s+(?:if|when|whenever)\s+"
                          r"(?P<cond>[^?]+)", re.I)
_RETURN_STEP = re.compile(r"\breturn\b", re.I)
_NUMBERED_ALGORITHM = re.compile(r"\bAlgorithm\s+\d+\b")
# Share of the condition's (idf-weighted) words the step and its "if" line must state.
RETURN_CONDITION_SHARE = 0.6


_GREATER = frozenset("longer larger greater more bigger exceeds exceeding exceeded above over".split())
_SMALLER = frozenset("shorter smaller less fewer below under".split())


def _abbreviates(short: str, word: str) -> bool:
    """A pseudocode name that abbreviates a word: its letters in order, starting with its first
    ("ctx" for context, "msg" for message), shorter than the word and not a word of its own kind."""
    if len(short) < 3 or len(short) >= len(word) or short[0] != word[0] or short == word[:len(short)]:
        return False
    it = iter(word)
    return all(ch in it for ch in short)


def _with_title(steps: list[Unit], all_units: list[Unit]) -> Passage:
    """The steps of an algorithm after its title line (when the evidence holds it), so the answer
    says which algorithm they belong to."""
    s = steps[-1]
    title = [t for t in all_units if t.kind == "title" and t.text == s.group and t.key == s.key]
    return Passage([*title[:1], *steps])


def _code_names(text: str) -> list[str]:
    """The names a question gives an algorithm by: identifiers and camel-case names."""
    return [*identifiers(text), *CAMEL_NAME.findall(text)]


# A part asking the value a variable is given: "what value is m initialized to?", "at which value
# does len start?", "what constant f …?".
_ASKS_ASSIGNED = re.compile(r"\b(?:initiali[sz]e[sd]?|initial(?:ly)?|set\s+to|assigned"
                            r"|start(?:s|ing)?\s+(?:at|from|with)|begins?\s+(?:at|from|with)"
                            r"|(?:what|which)\s+(?:value|constant|number)s?)\b", re.I)
# An assignment of a number or of another variable: "4: m ← 256", "1: tmp ← X ▷ …" give m and tmp
# their values ("5: rnd ← B^32" samples one, which the prose around the algorithm says in words:
# "a fixed zero string" for the deterministic variant; "z ← zetas[m]" reads one).
_ASSIGNING_STEP = re.compile(r"^\d+:\s*([A-Za-z][\w]*)\s*←\s*(?:[-−]?\d|[A-Za-z][\w.]*\s*(?:▷|$))")
# "What type is X set to?" asks for a kind of value, not the value a step assigns.
_ASKS_OTHER_THING = re.compile(r"\b(?:what|which)\s+(?!(?:value|constant|number)s?\b|is\b|are\b|does\b|do\b|was\b)"
                               r"[a-z]+\s+(?:is|are|does|do|was)\b", re.I)


def _assigned_at(part: str, qa: QueryAnalysis, all_units: list[Unit], doc_of: dict[str, str]) -> Passage | None:
    """The step that first gives a variable of an algorithm the question names a number or another
    variable ("In Algorithm 42, what value is m initialized to?" → "4: m ← 256"). Prose never states a
    pseudocode variable's value, and the step shares one letter with the question, which
    word-overlap scoring reads as nothing. The algorithm is named by its number or by a name in
    its title; of several so named (a transform and its inverse), the one whose title and
    description share most words with the question; of its variables, the one the part writes
    first ("at which value does len start?" asks for len, not start)."""
    if not _ASKS_ASSIGNED.search(part) or _ASKS_OTHER_THING.search(part):
        return None
    numbers = {m.lower() for m in _NUMBERED_ALGORITHM.findall(qa.text)}
    code = [n for n in qa.code_names if len(n) > 1]
    groups: dict[str, list[Unit]] = {}
    for u in all_units:
        if u.group and (not qa.docs or doc_of.get(u.key) in qa.docs):
            groups.setdefault(u.group, []).append(u)

    def named(title: str) -> bool:
        """By its number, a code name in its title, or its name as a word ("the chain function")."""
        m = _ALGO.match(title)
        name = _algorithm_name(title)
        return bool(m) and (f"algorithm {m.group(1)}".lower() in numbers or any(_has(title, n) for n in code)
                            or (len(name) >= 3 and _has(qa.text, name)))

    said = set(content_words(qa.text))
    best: tuple[int, Unit] | None = None
    for title, us in groups.items():
        if not named(title):
            continue
        at: dict[str, Unit] = {}  # each variable's first assignment
        for u in us:
            m = _ASSIGNING_STEP.match(u.text) if u.kind == "step" else None
            if m:
                at.setdefault(m.group(1), u)
        written = [at[w.group(0)] for w in re.finditer(r"(?<![\w.'’-])[A-Za-z]\w*(?![\w.'’-])", part)
                   if w.group(0) in at and w.group(0) != "a"]
        if not written:
            continue
        shared = len(said & set(content_words(" ".join([title, *(u.text for u in us if u.kind == "sentence")]))))
        if best is None or shared > best[0]:
            best = (shared, written[0])
    return _with_title([best[1]], all_units) if best else None


def _return_under(part: str, all_units: list[Unit], idf: dict[str, float]) -> Passage | None:
    """The algorithm step that returns under the asked condition: "4: if d == NULL … then" and
    "5: return ⊥ ▷ return an error indication if random bit generation failed". Steps are never
    candidates in prose scoring, and the algorithm's title line or its prose around it states
    what it returns when it succeeds, not under the condition. The step must belong to an
    algorithm the question names (in its title), and it or the "if" line before it must state
    most of the condition's words."""
    m = _RETURNS_WHEN.search(part)
    # named by its name ("mix_sign") or by its number ("Algorithm 22")
    names = [*_code_names(part[: m.start()]), *_NUMBERED_ALGORITHM.findall(part[: m.start()])] if m else []
    if not names:
        return None
    words = list(dict.fromkeys(content_words(m.group("cond"))))
    weight = idf_weights(words, idf)
    # "when z is not less than q" is the other branch of "if z < q": no comparison then
    compares = not re.search(r"\b(?:not|no|never)\b|n't\b", m.group("cond"), re.I)

    def cond(text: str) -> float:
        """In any inflection ("fails" by "failed"), by a pseudocode variable that abbreviates the
        word ("context" by "ctx"), or by a comparison ("longer" by ">")."""
        names_in = [t.lower() for t in re.findall(r"[A-Za-z]{3,}", text)]
        stated = [w for w in words if says_word(w, text) or any(_abbreviates(t, w) for t in names_in)
                  or (compares and ((w in _GREATER and ">" in text) or (w in _SMALLER and "<" in text)))]
        return weighted_share(weight, stated)

    best: tuple[float, int, Passage] | None = None
    for i, u in enumerate(all_units):
        if u.kind != "step" or not _RETURN_STEP.search(u.text) or not any(_has(u.group, n) for n in names):
            continue
        prev = all_units[i - 1] if i and all_units[i - 1].kind == "step" and all_units[i - 1].group == u.group \
            and re.search(r"\bif\b", all_units[i - 1].text) and not _RETURN_STEP.search(all_units[i - 1].text) else None
        shown = [*([prev] if prev else []), u]
        share = cond(" ".join(x.text for x in shown))
        if share >= RETURN_CONDITION_SHARE and (best is None or share > best[0]):
            best = (share, -i, _with_title(shown, all_units))
    return best[2] if best else None


# "Which function does X use to sample y?", "In X, which one produces the FORS signature?"
_WHICH_CALLEE = re.compile(r"\b(?:which|what)\s+(?:one|(?:sub)?functions?|algorithms?|routines?|procedures?|"
                          r"methods?)\b", re.I)
_CALL = re.compile(r"([A-Za-z][\w.]*[A-Za-z0-9_])\s*\(")
_CONTROL = frozenset("for while if return mod and or not else end".split())
_HEADER_STEP = re.compile(r"^\d+:\s*(?:for|while|if)\b", re.I)
# Words of such a question that ask, not what the call is for.
_CALLING = frozenset("use uses used using call calls called calling invoke invokes invoked run runs apply applies "
                     "applied applying one function "
                     "functions algorithm algorithms routine routines procedure procedures method methods "
                     "subfunction subfunctions".split())
# … and the verbs every call states: a callee "computes" or "produces" its result ("which function
# does X use to produce its WOTS+ signature?" → "sig ← wots_sign(…)").
_PRODUCING = frozenset("produce produces compute computes get gets obtain obtains generate generates create "
                       "creates make makes derive derives calculate calculates".split())
# What a loop does to each of a vector's parts: a step indexing a name ("v[i]") under a "for" line
_ENTRY_WORDS = frozenset("entry element coefficient component".split())  # (in any inflection: `bases`)
_INDEXED = re.compile(r"\w\[[A-Za-z]\w*(?:\s*,\s*[A-Za-z]\w*)*\]")  # "v[i]", "A[i,j]"
_FOR_STEP = re.compile(r"^\d+:\s*for\b", re.I)
# Share of the purpose's (idf-weighted) words the call step and the loop or "if" lines above it must state.
CALL_PURPOSE_SHARE = 0.5


def _name_words(text: str) -> str:
    """The words inside names: "SamplePolyCBD" → "Sample Poly CBD", "xmss_sign" → "xmss sign",
    "getXMSSSignature" → "get XMSS Signature"."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|[_.]", " ", text)


def _called_by(part: str, question: str, all_units: list[Unit], idf: dict[str, float]) -> Passage | None:
    """The step of algorithm X that calls the function a question asks for ("Which function does
    K-PKE.Encrypt use to sample y?" → "10: y[i] ← SamplePolyCBD(…) ▷ … sampled from CBD"). Steps
    are never prose candidates, and prose rarely names the callee. The step must belong to an
    algorithm the part (or, when the part names none, the question) names, and it, with the loop
    or "if" lines above it, must state most of what the call is for, where the callee's own name
    counts in its parts ("Sample Poly CBD")."""
    if not _WHICH_CALLEE.search(part):
        return None
    return _best_step(part, question, all_units, idf, CALL_PURPOSE_SHARE, calls=True)


# Share of a part's (idf-weighted) own words one step, with the loop or "if" lines above it, must
# state to answer the part by itself.
STEP_SHARE = 0.8


def _step_stating(part: str, question: str, all_units: list[Unit], idf: dict[str, float]) -> Passage | None:
    """The step of an algorithm the question names that states nearly all the part asks about,
    in its code or its comment ("which lines are skipped in the fast mode?" → "3: … ▷ skip lines
    3 to 5 in the fast mode"; "which bytes of the header are p and q?" → "7: … ▷ p and q are
    bytes 9 and 10 of the header"). The prose around an algorithm describes it as a whole; its
    steps compete with that prose only in a one-part question that names the algorithm and asks
    for no return under a condition. A part asking what the algorithm does, or for its steps, is
    answered by the algorithm, not one step."""
    if _ASKS_WHAT_IT_DOES.match(part) or re.search(r"\bsteps\b", part, re.I):
        return None
    return _best_step(part, question, all_units, idf, STEP_SHARE, calls=False)


def _best_step(part: str, question: str, all_units: list[Unit], idf: dict[str, float], min_share: float,
               calls: bool) -> Passage | None:
    """The step (with the loop or "if" lines above it) of an algorithm the part, or else the
    question, names that states the largest idf-weighted share (≥ `min_share`) of the part's own
    words: not the names, nor (`calls`) the words asking for a call, whose callee's name then
    counts in its parts. A one-letter variable of the part counts as a word."""
    names = _code_names(part) or _code_names(question)
    if not names:
        return None
    said = {n.lower() for n in names} | {w for n in names for w in content_words(_name_words(n))}
    # a condition the part puts on a call ("… call when z is 0?"): its variables and numbers, which
    # the "if" line the step sits under must write ("1: if z = 0 then"); a step so guarded wins, and
    # the words of the condition say where the call is, not what it is for
    when = _WHEN_CLAUSE.search(part) if calls else None
    marks = [m for m in re.findall(r"(?<![\w.])(?:[A-Za-z]|\d+)(?![\w.])", when.group("cond")) if m != "a"] \
        if when else []
    purpose = part[:when.start()] if marks else part
    # a one-letter variable is what the step computes ("sample y", "the matrix A")
    letters = re.findall(r"(?<![\w.-])([B-HJ-Zb-z])(?![\w.-])", purpose)
    words = [w for w in dict.fromkeys(content_words(purpose)) if w not in said and not (calls and w in _CALLING)]
    if (not words and not marks) or (not calls and len(words) + len(letters) < 2):
        return None
    weight = idf_weights([*words, *letters], idf)
    # the part's words naming a vector's parts ("each *entry*"), and whether they are all it asks
    entries = [w for w in words if bases(w) & _ENTRY_WORDS]
    only_entries = len(entries) == len(words)
    best: tuple[bool, float, bool, int, Passage] | None = None
    for i, u in enumerate(all_units):
        if u.kind != "step" or not any(_has(u.group, n) for n in names):
            continue
        callees = [c for c in _CALL.findall(u.text) if c.lower() not in _CONTROL
                   and not any(c.lower() == n.lower() for n in names)]
        if calls and not callees:
            continue
        above = _enclosing(all_units, i)
        text = " ".join([*(x.text for x in above), u.text, *(_name_words(c) for c in callees),
                         *(_described(all_units, u) if calls and _titled_by(u.group, names) else ())])
        # a name's part that shortens the word states it ("sig ← wots_sign(…)" its signature,
        # "CoeffFromThreeBytes" a coefficient)
        parts = {t.lower() for t in re.findall(r"[A-Za-z]{3,}", _name_words(u.text))} - _CONTROL
        stated = [w for w in words if says_word(w, text)
                  or any(len(w) > len(t) and (w.startswith(t) or _abbreviates(t, w)) for t in parts)]
        stated += [v for v in letters if re.search(rf"(?<![\w.]){v}(?![\w.])", u.text)]
        # "each entry of the vector": a step indexing what it reads or writes ("w[i] ← F(c, v[i])")
        # inside a "for" loop does it to each entry
        if entries and _INDEXED.search(u.text) and any(_FOR_STEP.match(x.text) for x in above):
            stated += [w for w in entries if w not in stated]
        share = weighted_share(weight, stated)
        # (a verb every call states lets a step reach the bar; the steps are ranked on what they write)
        produced = [w for w in words if calls and w in _PRODUCING and w not in stated]
        guarded = bool(marks) and any(_IF_STEP.match(x.text) and all(
            re.search(rf"(?<![\w.]){re.escape(m)}(?![\w.])", x.text) for m in marks) for x in above)
        # (… but a verb alone says nothing of which call: "Which algorithm computes the NTT?" asks
        # for the NTT's own algorithm, not for a call inside it; nor does "each entry" alone, when
        # the part says what the call does to it: "… call to *sample* each entry")
        reaches = weighted_share(weight, [*stated, *produced]) >= min_share \
            and bool([w for w in stated if w not in _PRODUCING and (w not in entries or only_entries)] or marks)
        if marks and not words:  # the condition alone says which call: a guarded one
            share, reaches = (1.0 if guarded else 0.0), reaches or guarded
        # (of steps as good, one whose call computes a value, "node ← wots_pkGen(…)", over a method
        # setting its object, "ADRS.setTypeAndClear(…)")
        computes = "←" in u.text
        if reaches and (best is None or (guarded, share, computes) > best[:3]):
            best = (guarded, share, computes, -i, _with_title([*above, u], all_units))
    return best[4] if best else None


def _algorithm_name(title: str) -> str:
    """The name an algorithm's title gives it ("Algorithm 4 DrawMask(s, n)" → "DrawMask"), else ""."""
    m = _ALGO.match(title)
    return m.group(2).split("(")[0].strip() if m else ""


def _titled_by(title: str, names: Iterable[str]) -> bool:
    """The algorithm's title names it by one of the names ("Algorithm 32 ExpandA(ρ)" by ExpandA),
    not only by its number or by a variable it takes ("w1Encode(w1)" by w1)."""
    name = _algorithm_name(title).lower()
    return bool(name) and name in {n.lower() for n in names}


def _description(group: str, all_units: list[Unit]) -> Iterator[Unit]:
    """The lines under an algorithm's title that say what it does ("Samples a k × l matrix Â …"):
    its sentences (the units reader gives an algorithm's group only to those and to its "Input :"
    and "Output :" lines, all above its steps), without the input and output lines."""
    return (u for u in all_units if u.kind == "sentence" and u.group == group and not IO_LINE.match(u.text))


def _described(all_units: list[Unit], step: Unit) -> list[str]:
    """The description of the algorithm (its sentences above its first step: "Samples a k × l
    matrix Â of elements of Tq.") when the step fills in what the algorithm returns ("4: Â[r, s] ←
    RejNTTPoly(ρ′)" of "7: return Â"): that step's call does the algorithm's job, so what the
    description says the algorithm does is what the call is for. Else nothing."""
    m = _FILLS.match(step.text)
    if not m or not any(u.kind == "step" and u.group == step.group and u.key == step.key
                        and (r := _RETURNS.match(u.text)) and _bare(r.group(1)) == _bare(m.group(1))
                        for u in all_units):
        return []
    return [u.text for u in _description(step.group, all_units) if u.key == step.key]


# "4: Â[r, s] ← …", "3: sig ← …": the variable a step assigns (or an entry of it)
_FILLS = re.compile(r"^\d+:\s*([^\s←\[(]+)\s*(?:\[[^\]]*\])?\s*←")
_RETURNS = re.compile(r"^\d+:\s*return\s+([^\s▷]+)\s*(?:▷.*)?$")


def _bare(name: str) -> str:
    """A variable's name without the marks a layout may keep or drop ("Â", "A^", "ρ′"); its case
    stays ("a" and "A" are two variables)."""
    return re.sub(r"[\u0300-\u036f^′'’]", "", unicodedata.normalize("NFD", name))


_END_STEP = re.compile(r"^\d+:\s*end\b", re.I)
_ELSE_STEP = re.compile(r"^\d+:\s*else\b", re.I)
_IF_STEP = re.compile(r"^\d+:\s*if\b", re.I)
# "… when the target node height z is 0?": the condition a step must sit under.
_WHEN_CLAUSE = re.compile(r"\b(?:when|whenever|if)\s+(?P<cond>[^?,]+)", re.I)


def _enclosing(all_units: list[Unit], i: int, reach: int = 8) -> list[Unit]:
    """The loop and "if" lines a step sits in, outermost first ("1: for j … ▷ build authentication
    path" over "3: AUTH[j] ← xmss_node(…)"): what they say is what the step is for. The layout
    lost the indentation, so a block is read from its "end" lines: a header after (above) as many
    "end" lines as headers closed them encloses the step."""
    out: list[Unit] = []
    depth = 0
    other_branch = False  # an "else" at this depth: the "if" above it does not hold here
    for prev in reversed(all_units[max(0, i - reach):i]):
        if prev.kind != "step" or prev.group != all_units[i].group:
            break
        if _END_STEP.match(prev.text):
            depth += 1
        elif _ELSE_STEP.match(prev.text) and not depth:
            other_branch = True
        elif _HEADER_STEP.match(prev.text):
            if depth:
                depth -= 1
            elif other_branch and _IF_STEP.match(prev.text):
                other_branch = False
            else:
                out.insert(0, prev)
    return out


def _overlaps(p: Passage, chosen: list[Passage]) -> bool:
    """The passage shares a unit with a chosen one."""
    return any(u in c.units for c in chosen for u in p.units)


def _quoted(p: Passage, chosen: list[Passage]) -> bool:
    """The passage repeats a sentence the answer already quotes: one of its units, or the same
    text again (a chunk's overlap repeats the sentences that end the chunk before it)."""
    quoted = {u.text for c in chosen for u in c.units}
    return any(u.text in quoted for u in p.units)


def _with_other_parts(draft: Draft, steps: list[Unit], qa: QueryAnalysis, want: Asked, evidence: list[Evidence],
                      all_units: list[Unit], params: AnswerParams, idf: dict[str, float],
                      ordinary: frozenset[str], score: Scorer) -> Draft:
    """An algorithm's steps answer the part that names it; the question's other parts ("What does
    Algorithm 19 do, and what does its inverse recover?") are answered as parts of their own.
    Only answered parts are added: an unanswered one leaves the steps as they were."""
    if not want.multi:
        return draft
    title = steps[0].group.lower()
    names = [a for a in qa.anchors if a.startswith("algorithm")] + [i.lower() for i in qa.identifiers
                                                                       if i.lower() in title]
    own = next((i for i, p in enumerate(want.parts) if any(n in p.text.lower() for n in names)), 0)
    rest = replace(want, parts=tuple(p for i, p in enumerate(want.parts) if i != own))
    taken = {id(u) for u in steps}
    more = _answer_parts(qa, rest, evidence, [u for u in all_units if id(u) not in taken], params, idf,
                         ordinary, score, runners_up=False)
    if not more.text:
        return draft
    answered = [(s, t) for s, t, p in zip(more.part_scores, more.part_types, rest.parts)
                if p.text not in more.missing_parts]
    return Draft(f"{draft.text}\n{more.text}", draft.how, draft.part_scores + [s for s, _ in answered],
                 draft.part_types + [t for _, t in answered], [], max(draft.best, more.best))


def with_context(p: Passage, all_units: list[Unit], position: dict[int, int], n: int) -> Passage:
    """The passage and up to `n` sentences that follow it in the same paragraph. The sentence that
    shares the question's words often only names the topic; the fact comes next ("Valid values
    are A4, letter and legal."), as it may after a glossary term's first sentence. Read, not
    scored: scoring them would favour long passages over the sentence that matches."""
    out = list(p.units)
    for nxt in all_units[position[id(out[-1])] + 1:]:
        last = out[-1]
        if len(out) - len(p.units) >= n or last.kind not in ("sentence", "definition") or \
                not _sentence_beside(nxt, last):
            break
        out.append(nxt)
    # The setting's default, stated later in the same paragraph ("--x t gives … . You can set …
    # . The default value is 1.0, so that …"), is read with it too.
    after = position[id(out[-1])] + 1
    rest = all_units[after: after + MAX_FOLLOW]
    later = next((u for u in rest if _sentence_beside(u, out[-1]) and states_default(u)), None)
    if later is not None and all(_sentence_beside(u, out[-1]) for u in rest[: rest.index(later)]) \
            and not any(states_default(u) for u in out):
        out.append(later)
    out = _through_ordinals(out, all_units, position)
    return Passage(out) if len(out) > len(p.units) else p


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
_ORDINAL_OPENING = re.compile(rf"^\s*(?P<word>{'|'.join(_ORDINALS)}|finally|lastly)(?:ly)?\b", re.I)


def _through_ordinals(out: list[Unit], all_units: list[Unit], position: dict[int, int]) -> list[Unit]:
    """An enumeration read in part ("… satisfy two properties. First, …") is read to its end: the
    next ordinal's sentence ("Second, …", "Finally, …"), when one follows in the same paragraph
    within `MAX_FOLLOW` sentences, and so on. Cut after "First", the answer names one of the things
    the passage announces."""
    while True:
        opened = [m.group("word").lower() for u in out if (m := _ORDINAL_OPENING.match(u.text))]
        if not opened or opened[-1] in ("finally", "lastly") or opened[-1] == _ORDINALS[-1]:
            return out
        wanted = (_ORDINALS[_ORDINALS.index(opened[-1]) + 1], "finally", "lastly")
        after = position[id(out[-1])] + 1
        rest = all_units[after: after + MAX_FOLLOW]
        nxt = next((i for i, u in enumerate(rest) if (m := _ORDINAL_OPENING.match(u.text))
                    and m.group("word").lower() in wanted), None)
        if nxt is None or not all(_sentence_beside(u, out[-1]) for u in rest[: nxt + 1]):
            return out
        out = out + rest[: nxt + 1]


def following_keys(evidence: list[Evidence]) -> dict[str, str]:
    """Evidence key → the key of the evidence holding its document's next chunk, where both are in."""
    at = {(e.doc_id, e.ordinal): e.key for e in evidence if e.ordinal >= 0}
    return {e.key: at[(e.doc_id, e.ordinal + 1)] for e in evidence if (e.doc_id, e.ordinal + 1) in at}


def with_items_across_chunks(p: Passage, all_units: list[Unit], position: dict[int, int],
                             whole: list[Passage], follows: dict[str, str] | None = None) -> Passage:
    """A passage ending on a sentence that announces a list ("… two exceptions to this rule:") with
    nothing after it in its chunk was cut at a chunk boundary; the next chunk repeats that sentence
    with the items. The items are read from there (and cited to it). A sentence the cut stopped
    short ("… put the following line as the first line in your program") ends in the next chunk,
    when the evidence holds it: its opening code lines, or the rest of the sentence, complete it."""
    last = p.units[-1]
    after = position[id(last)] + 1  # a chunk's units are consecutive in `all_units`
    if after < len(all_units) and all_units[after].key == last.key:
        return p
    if announces(last):
        there = next((w for w in whole if w.head.key != last.key and w.head.text == last.text and w.items), None)
        if there:
            return Passage([*p.units, *there.units[1:]])
    nxt = (follows or {}).get(last.key)
    opening = [u for u in all_units if u.key == nxt] if nxt else []
    if not opening or not carries_on(last, opening[0]):
        return p
    # the displayed lines the sentence announces, or the rest of the sentence itself
    code = list(itertools.takewhile(lambda u: u.kind == "code", opening))[:MAX_CONTINUED_LINES]
    rest = opening[:1] if opening[0].kind == "sentence" else []
    return Passage([*p.units, *(code or rest)]) if code or rest else p


# A sentence that leans on the situation the sentence before it describes.
_LEANS_BACK = re.compile(r"^(?:in (?:this|that|such an?|these|those|either|both) (?:scenario|case|situation|setting|"
                         r"event|mode)s?|hence|thus|therefore|consequently|accordingly|as a result|"
                         r"for (?:this|that|these|those|both|all these) reasons?|because of (?:this|that|these)|"
                         r"this is why|that is why)\b", re.I)


# A sentence whose subject points at what the sentence before it names ("Operators shall,
# therefore, rotate these tokens.").
_POINTS_BACK = re.compile(r"^\w+(?: \w+)? (?:shall|must|should|will|can|may)\s*,?\s*(?:therefore|thus|hence)\b", re.I)


def with_antecedent(p: Passage, all_units: list[Unit], position: dict[int, int]) -> Passage:
    """A passage that opens by leaning on the sentence before it ("In this scenario, the client's key
    is said to be ephemeral.", "Hence, X should only be run on trusted inputs.") keeps that
    sentence in front: it holds the condition or the reason the opener points to."""
    units = list(p.units)
    for _ in range(MAX_ANTECEDENTS):  # "In that case, … . In this scenario, …": follow the chain back
        i = position[id(units[0])]
        prev = all_units[i - 1] if i else None
        if prev is None or not (_LEANS_BACK.match(units[0].text) or _POINTS_BACK.match(units[0].text)) \
                or prev in units or not _sentence_beside(prev, units[0]):
            break
        units.insert(0, prev)
    return Passage(units) if len(units) > len(p.units) else p


def _sentence_beside(u: Unit, anchor: Unit) -> bool:
    """A prose sentence of the same evidence and paragraph as `anchor`: what a passage may take
    in front of it or after it as context."""
    return u.kind == "sentence" and u.key == anchor.key and u.block == anchor.block


def with_section(p: Passage, heads: tuple[Head, ...], types: tuple[str, ...], text_of: dict[str, str]) -> Passage:
    """A passage that never names the thing asked for ("which *version* added X?") while its
    section title does ("13.1.1.22 Version 2.12.5 [2003 May 19]" over "Add X."): the answer is
    the title, so the passage is restated under it, when the title is text of its evidence (so
    the sentence stays supported by what it cites). An algorithm's description line ("Performs
    the inverse of X.") is restated under the algorithm's title ("which algorithm performs …").
    """
    words = token_set(p.text)
    group = p.head.group if p.head.kind == "sentence" else ""
    # (the asked thing, or the word modifying it: "which *algorithm* number is X?" asks the title's number)
    asked = {w.lower() for h in heads for w in (h.word, *h.modifiers)}
    if group and group in text_of.get(p.head.key, "") and any(w not in words and w in token_set(group) for w in asked):
        return Passage([replace(p.head, text=f"{group}: {p.head.text}"), *p.units[1:]])
    section = _own_title(p)
    if not section or section not in text_of.get(p.head.key, ""):
        return p
    title = token_set(section)
    # A version or a date asked for is what a change log's title gives ("Version 3.1.4 [2019 Jun
    # 2]" over "First signed release. Versions exist for …", which names versions but shows none).
    dated = any(not CUES[t].search(p.text) for t in _title_values(p, {*types, *(h.type for h in heads)}))
    if not dated and not any(h.word.lower() not in words and h.word.lower() in title for h in heads) and not (
            any(h.type == "locator" for h in heads) and _numbered_title(p)):
        return p
    return Passage([replace(p.head, text=f"{_restated_title(section)}: {p.head.text}"), *p.units[1:]])


def _restated_title(title: str) -> str:
    """A section title as an answer sentence opens with it: "4.4. Key Confirmation" is restated
    "4.4 Key Confirmation" (the number's dot would end a sentence)."""
    return re.sub(r"^(\d+(?:\.\d+)*)\.\s", r"\1 ", title)


def _side_name(topic: str, others: tuple[str, ...] = ()) -> str:
    """What a passage must name to speak for one side of a comparison: the topic's identifier or
    capitalised name ("CondPageBreak flowables" → "CondPageBreak"), else the words that set it
    apart from the other sides ("a disallowed algorithm" against "a deprecated algorithm" →
    "disallowed": a text need not repeat the shared noun), else the topic itself."""
    names = identifiers(topic) or [w for w in topic.split() if w[:1].isupper()]
    if names:
        return names[0]
    shared = {w.lower() for o in others for w in o.split()}
    own = [w for w in topic.split() if w.lower() not in shared and w.lower() not in STOPWORDS]
    return " ".join(own) if own and len(own) < len(topic.split()) else topic.strip()


def _openings(evidence: list[Evidence], all_units: list[Unit], n: int = 2) -> set[int]:
    """The first `n` prose units of evidence that opens an overview section (abstract,
    introduction, a document's first page): a broad question ("what is X") is answered where a
    document presents X as a whole, in words that need not repeat the question's."""
    opens = set()
    for e in evidence:
        first = e.text.lstrip().split("\n", 1)[0].lstrip("# ").strip()
        section = e.heading.split(" > ")[-1] if e.heading else ""
        if is_overview(e.ordinal, [section]) and (e.ordinal <= 1 or (section and first == section)):
            opens.add(e.key)
    out: set[int] = set()
    for k in opens:
        out |= {id(u) for u in [u for u in all_units if u.key == k and u.kind == "sentence"][:n]}
    return out


def _spells_out_only(preferred: list[Unit], qa: QueryAnalysis, want: Asked) -> bool:
    """A definition question about an acronym ("What is WKEM?", not "What does WKEM stand for?")
    whose preferred answer is one glossary row that only spells the acronym out."""
    subject = qa.subject or ""
    if len(preferred) != 1 or "expansion" in want.types or not ACRONYM.fullmatch(subject.replace("-", "")):
        return False
    term, _, value = preferred[0].text.partition(":")
    return (preferred[0].kind == "definition" and term.strip(" ()").lower() == subject.lower()
            and expands(subject, value) and len(value.split()) <= len(subject) + 3)


def _cite_all(us: list[Unit]) -> str:
    return "\n".join(_cite(u) for u in us)


_REFERS_BACK = re.compile(rf"\b(?:{PERSONAL_PRONOUNS})\b", re.I)
_PARAM_WORDS = re.compile(r"\b(size|sizes|how (big|large|long)|bytes?|bits?|value|length|category|categories)\b", re.I)


def _section_opening(qa: QueryAnalysis, evidence: list[Evidence], all_units: list[Unit]) -> list[Unit]:
    """"What is Section 2.3 (of DOC) about?" is answered by the section's title and first unit,
    from the passage opening it (its text starts with the title), restated "2.3 Mathematical
    Symbols: …"; a sentence elsewhere mentioning "(see Section 2.3)" says nothing of its subject.
    When no retrieved passage opens with the title, the earliest one the title heads directly;
    nothing when none is under it (in a named document)."""
    anchor = asked_section(qa.text)
    if not anchor:
        return []
    under = [(title, ev) for ev in _from_named(qa, evidence)
             if (title := next((h for h in reversed(ev.heading.split(" > ")) if in_section(anchor, [h])), ""))]
    # (when no retrieved chunk opens with the title, the earliest it heads directly, not a
    # subsection's: it states the subject, "Appendix C — Loop Bounds: Implementations should not
    # bound …", where a later subsection's table of repetitions does not)
    opening = next(((t, ev) for t, ev in under if ev.text.lstrip().startswith(t)), None) or min(
        ((t, ev) for t, ev in under if ev.heading.split(" > ")[-1] == t),
        key=lambda x: (x[1].loc.start_page, x[1].ordinal), default=None)
    if opening is not None:
        title, ev = opening
        first = next((u for u in all_units if u.key == ev.key and u.kind != "title"), None)
        if first is not None:
            return [replace(first, text=f"{_restated_title(title)}: {first.text}")]
    return []


def _preferred(qa: QueryAnalysis, all_units: list[Unit], score, params: AnswerParams,
               doc_of: dict[str, str] | None = None) -> list[Unit]:
    """Units that answer by construction: the glossary row defining the asked term (the named
    document's own, when the question names one and it has one: "How does DOC 2 define X?" is
    not answered by DOC 1's glossary), or the table rows labelled with the asked identifiers
    (parameter and table-value questions)."""
    for a in qa.anchors:
        if a.startswith("algorithm"):
            continue
        starts = [i for i, u in enumerate(all_units) if u.text.lower().startswith(a + ".") or
                  re.match(rf"{re.escape(a)}\b", u.text.lower())]
        if starts:
            i = starts[0]
            follow = [u for u in all_units[i + 1 : i + 3] if u.key == all_units[i].key]
            return [all_units[i], *follow][: params.max_sentences]
    if qa.subject:  # set only for definition-shaped questions
        rows = [u for u in all_units if u.kind == "definition"
                and u.text.lower().split(":", 1)[0].strip(" ()") == qa.subject.lower()]
        if qa.docs and doc_of:
            rows = [u for u in rows if doc_of.get(u.key) in qa.docs] or rows
        if rows:  # with the sentences after it in its paragraph ("In particular, …")
            position = {id(u): i for i, u in enumerate(all_units)}
            return with_context(Passage(rows[:1]), all_units, position, params.context_sentences).units
    if qa.identifiers and (qa.mode == "parameter" or _PARAM_WORDS.search(qa.text)):
        idents = {i.lower() for i in qa.identifiers}
        attributes = [w for w in qa.content_words if w not in idents and not any(w in i for i in idents)]
        per_ident = []
        for ident in qa.identifiers:
            rows = [u for u in all_units if u.kind == "row" and _has(u.text.split(": ")[-2] if ": " in u.text
                                                                      else u.text, ident)]
            # the row should also hold the asked attribute ("signature size", "category", ...)
            with_attr = [u for u in rows if not attributes or _holds_attribute(attributes, u.text)]
            per_ident.append((with_attr, rows))
        # A comparison takes a side's row without the attribute's word only when another side's
        # table has it (one table says "sig bytes", the other "signature size"); when no table
        # holds the attribute at all, the answer is in prose, not in these rows.
        any_attr = any(w for w, _ in per_ident)
        picked: list[Unit] = []
        for with_attr, rows in per_ident:
            rows = with_attr or (rows if qa.mode == "compare" and any_attr else [])
            rows = sorted(rows, key=lambda u: (-score(u.text), u.order))
            if rows and rows[0] not in picked:
                picked.append(rows[0])
        if picked and score(" ".join(u.text for u in picked)) >= params.min_answer_score:
            return picked[: params.max_sentences]
    return []


def _holds_attribute(attributes: list[str], text: str) -> bool:
    """A table row names an asked attribute: the word itself, or a header abbreviation of it
    ("sig" for signature, "len" for length)."""
    words = set(content_words(text))
    return any(a in words or any(len(w) >= 3 and a.startswith(w) for w in words) for a in attributes)


def _with_description(steps: list[Unit], all_units: list[Unit]) -> list[Unit]:
    """"What does Algorithm 19 X generate?": the steps with the line under the title that says what
    the algorithm does ("Generates a widget."), when the steps came from a chunk that does not hold
    it (the title repeated over the later steps) and another one does."""
    group = steps[0].group
    if any(u.kind == "sentence" and u.group == group for u in steps):
        return steps
    said = next(_description(group, all_units), None)
    if said is None:
        return steps
    at = 1 if steps[0].kind == "title" else 0
    return [*steps[:at], said, *steps[at:]]


def _algorithm_steps(qa: QueryAnalysis, all_units: list[Unit], score) -> list[Unit]:
    """The title and numbered steps of the algorithm the question names (or scores best on)."""
    us = _named_algorithm(qa, all_units, score)
    if not us:
        return []
    title = next((u for u in us if u.kind == "title"), None)
    steps = [u for u in us if u.kind == "step"]
    head = [title] if title else []
    if title is not None:  # the sentence under the title says what the algorithm does
        after = next((u for u in all_units[all_units.index(title) + 1:] if u.key == title.key), None)
        if after is not None and after.kind == "sentence" and not IO_LINE.match(after.text):
            head.append(after)
    return head + steps[:25]


# A numbered step's number ("3: h ← dk[768k + 32 ∶ 768k + 64]")
_STEP_NUMBER = re.compile(r"\s*(\d{1,3}):")


def _lines_asked(qa: QueryAnalysis, all_units: list[Unit], score) -> tuple[str, list[Unit]]:
    """"What does line 3 of X extract?": the named algorithm's title and its steps of those numbers.
    The question names the step itself; by words alone, a step that merely shares them (line 1's
    "extract (from KEM decaps key) …") or the prose about the algorithm won over it. Nothing for a
    question asking why (the reason is prose), for a part that names no line, or when the named
    algorithm's steps in the evidence hold none of those numbers. A one-part question about a
    control construct of it (`asked_construct`: "what condition does its while loop test?") gets
    the steps opening with the construct's keyword the same way. Returns the draft's kind ("lines"
    or "construct") with the units, or ("", [])."""
    parts = split_parts(qa.text)
    lines = set(asked_lines(qa.text))
    construct = () if lines or len(parts) > 1 else asked_construct(qa.text)
    if "reason" in answer_types(qa.text) or not (construct or (lines and all(asked_lines(p) for p in parts))):
        return "", []
    us = _named_algorithm(qa, all_units, score)
    if lines:
        steps = [u for u in us if u.kind == "step" and (m := _STEP_NUMBER.match(u.text)) and int(m.group(1)) in lines]
    else:  # "what condition does its while loop test?": the steps that open with the construct's keyword
        opens = re.compile(rf"{_STEP_NUMBER.pattern}\s*(?:{'|'.join(construct)})\b", re.I)
        steps = [u for u in us if u.kind == "step" and opens.match(u.text)]
    if not steps:
        return "", []
    after = {id(u): nxt for u, nxt in itertools.pairwise(all_units)}
    out = [u for u in us if u.kind == "title"][:1]
    for step in steps:
        out.append(step)
        # a step's comment a layout set on the next line ("3: h ← dk[…]" over "- extract hash of …")
        nxt = after.get(id(step))
        if nxt is not None and nxt.kind == "sentence" and nxt.key == step.key and nxt.block == step.block \
                and nxt.text[:1].islower():
            out.append(nxt)
    return ("lines" if lines else "construct"), out


# A setter's call in code: "c.setFont(", "setLineWidth("
_SETTER = re.compile(r"(?:^|\.)set[A-Z]\w*\s*\(")
_ASKS_SET = re.compile(r"\bset(?:s|ting)?\b", re.I)


def _example_lines(qa: QueryAnalysis, evidence: list[Evidence], all_units: list[Unit]) -> list[Unit]:
    """"In the user guide's coords example, which font and size does the canvas set?": the setter
    calls of the code example defining a function of that name ("def coords(canvas): …") that name
    what is asked ("c.setFont("Times-Roman", 20)"), by the words inside their names (camel case
    split, either spelling). By words alone, prose about another example calling it (the mirror
    example "calls coords(canvas)") won. A call is chosen while it names an asked word no chosen
    call names yet; words most lines of the example write ("canvas") tell none apart. Nothing when
    the evidence defines no such function, or no setter of it names an asked word."""
    name = example_name(qa.text)
    # Only for a question asking what the example sets: what it draws, imports or starts a value
    # at is no setter's call (nor how much a value changes line by line, nor a reason).
    if not name or not _ASKS_SET.search(qa.text) or re.search(r"\bhow (?:much|many)\b", qa.text, re.I) \
            or "reason" in answer_types(qa.text):
        return []
    opening = re.compile(rf"^\s*def\s+{re.escape(name)}\s*\(", re.I | re.M)
    for ev in evidence:
        m = opening.search(ev.text)
        if not m:
            continue
        block = ev.text[m.start():].strip().split("\n\n", 1)[0].split("\n")
        lines = [ln.strip() for ln in block[1:] if ln.strip()]
        mine = {u.text: u for u in all_units if u.key == ev.key and u.kind in ("code", "sentence")}
        code = [(mine[ln], _code_words(ln)) for ln in lines if ln in mine]
        if len(code) < 2:
            return []
        common = {w for w in code[0][1] if sum(w in ws for _u, ws in code) * 2 > len(code)}
        # only a setter's call names what it sets ("c.setFont(…)"); the last of equals is the value
        # the example ends on (a loop sets its colours in turn, then the word's own)
        code = [c for c in code if _SETTER.search(c[0].text)][::-1]
        # the example's arguments ("def coords(canvas)") and the document's name say whose lines,
        # not which (its own name may be a variable it sets: "charspace = charspace + 0.5")
        args = re.search(r"\(([^)]*)\)", block[0])
        given = _code_words(args.group(1) if args else "") | {
            w for d in (*qa.doc_mentions, *qa.docs) for w in _code_words(d)}
        # (two words of the question written as one name count too: "horizontal scale" → horizontalscale)
        said = re.findall(r"[a-z]+", qa.text.lower())
        joined = {stem(a + b) for a, b in itertools.pairwise(said)}
        asked_words = ({stem(v) for w in qa.content_words for v in spellings(w.lower())} | joined) - common - given
        chosen: list[Unit] = []
        covered: set[str] = set()
        while code:
            unit, ws = max(code, key=lambda c: len((c[1] & asked_words) - covered))  # (the last of equals)
            gain = (ws & asked_words) - covered
            if not gain:
                break
            chosen.append(unit)
            covered |= gain
        return sorted(chosen, key=lambda u: u.order)
    return []


def _code_words(line: str) -> set[str]:
    """The stemmed words of a line of code, the words inside its names among them
    ("c.setStrokeColorRGB(…)" → set, stroke, color, rgb), each in either spelling."""
    return {stem(v) for w in re.findall(r"[A-Za-z]+", _name_words(line)) for v in spellings(w.lower())}


def _named_algorithm(qa: QueryAnalysis, all_units: list[Unit], score) -> list[Unit]:
    """The title and steps of the algorithm the question names (by its number, an identifier in its
    title, or its name), else []: steps of an algorithm the question does not name answer nothing."""
    groups: dict[str, list[Unit]] = {}
    for u in all_units:
        if u.kind in ("title", "step") and u.group:
            groups.setdefault((u.key + "|" + u.group), []).append(u)
    if not groups:
        return []

    def rank(item):
        _name, us = item
        title = us[0].group.lower()
        anchor_hit = any(re.match(rf"{re.escape(a)}\b", title) for a in qa.anchors)
        ident_hit = sum(i.lower() in title for i in qa.identifiers)
        has_steps = any(u.kind == "step" for u in us)
        return (-(int(anchor_hit) + int(ident_hit > 0)), -int(has_steps), -ident_hit, -score(us[0].group),
                us[0].order)

    key, _name, us = min(((rank(g), *g) for g in groups.items()), key=lambda x: x[0])
    # named by its number, an identifier in its title, or its name; steps of an algorithm the
    # question does not name answer nothing ("may an implementation replace the given steps?")
    named = key[0] < 0 or _titled_by(us[0].group, qa.code_names)
    if not named or not any(u.kind == "step" for u in us):
        return []
    title_low = us[0].group.lower()
    if qa.identifiers and not any(i.lower() in title_low for i in qa.identifiers) and re.search(
            r"\w[._]\w", us[0].group):
        return []  # "Algorithm 19" of another document, titled with another name than the asked one
    return us
