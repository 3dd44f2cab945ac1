"""Deterministic decisions of conversation mode: route, rewrite, grade, validate, clarify.

Pure functions of the user text, the thread's earlier turns and the corpus, so
each decision is unit-testable and replayable. The LLM implementation
(`llm_decisions.py`) has the same interface and falls back to these.

Reference resolution works on the previous turn's *standalone* question:
- its **entity**: a member of an identifier family the corpus has (WG-KX-512)
  or another specific identifier (ABC, RSA); after "which <kind> was
  selected…" the name the answer gave;
- its **phrase**: the noun phrase around that entity ("WG-KX-512
  encapsulation key"), or, without an identifier, the question's last phrase
  that the corpus itself uses ("key confirmation").
Follow-ups then substitute ("and for WG-KX-1024?"), fill a template
("and its public key?"), replace pronouns ("license fee for them"), swap the
last content word ("and disallowed?") or carry the document scope over.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from itertools import takewhile
from typing import TYPE_CHECKING

from citerag.answer.answerer import written_compound
from citerag.answer.asked import (
    CUES,
    MEMBER_KINDS,
    OPENING_PHRASE,
    PREPOSITION_ALTERNATION,
    PREPOSITIONAL_WH,
    answered_by_entries,
    asked_heads,
    asks_byline,
    asks_document_front,
    defined_span,
    leading_scope,
    located_span,
    past_form,
    without_marks,
)
from citerag.answer.citations import check_citations, split_sentences, strip_citations
from citerag.answer.evidence import Evidence, numbers, support_score
from citerag.retrieval.query import QueryAnalysis, definition_subject, detect_mode
from citerag.text.inflect import past_participle, split_camel
from citerag.text.patterns import (
    CAMEL_NAME,
    LOCATOR_HEADS,
    PERSONAL_PRONOUNS,
    as_word,
    identifiers,
    quoted_phrases,
)
from citerag.text.terms import Scorer, idf_weights, weighted_share
from citerag.text.tokenize import (
    AUXILIARIES,
    AUXILIARY_ALTERNATION,
    DETERMINERS,
    QUESTION_FRAME,
    STOPWORDS,
    function_words,
    stem,
    token_set,
    tokenize,
)

if TYPE_CHECKING:
    from citerag.build.knowledge import CorpusKnowledge

ROUTES = ("DIRECT_ANSWER", "RETRIEVE", "REWRITE_THEN_RETRIEVE", "ASK_CLARIFICATION")

_WHAT_ABOUT = r"^\s*(?:(?:and|but|so)\s+)?(?:what|how)\s+about\s+"
_CONNECTOR = re.compile(
    rf"{_WHAT_ABOUT}(?:for\s+)?|^\s*(?:and|also|same)\s+(?:for|with)\s+"
    r"|^\s*(?:and|also)\s+|^\s*(?:for|with)\s+(?=\S)", re.I)
# "what about X, <a question of it>?": X, and the question
_ABOUT_THEN_ASKED = re.compile(rf"{_WHAT_ABOUT}([^,?]+?)\s*,\s*(.+)$", re.I)
# The connector words before a follow-up's own first word ("and", "what about"), prepositions kept.
_LEAD_CONNECTOR = re.compile(r"^\s*(?:(?:and|but|so|also|same)\s+)?(?:(?:what|how)\s+about\s+)?", re.I)
_QUESTION = re.compile(
    rf"^\s*(?:(?:{PREPOSITION_ALTERNATION})\s+(?:what|which|whom|whose)\b|what|which|how|when|why|where|who|whom"
    r"|whose|is|are|was|were|does|do|did|can|could|should|may|must|will|would|has|have|list|name|describe"
    r"|explain|give|define|summari[sz]e|compare|show|tell)\b", re.I)
# A follow-up that only adds a condition to the previous question ("and if it is stored by columns?").
# "when" opens a condition ("and when it is SHA-512?"), unless an auxiliary follows: then it asks
# a question of its own ("when will that organization publish it?")
_CONDITION = re.compile(rf"^\s*(?:what\s+)?(?:if|when(?!\s+(?:{AUXILIARY_ALTERNATION})\b)|unless|in\s+case"
                        r"|even\s+if)\b", re.I)
# A follow-up that is only a question word ("and where?", "why?"): the same question, asked anew.
# ... or with a degree pointing back ("why that often?", "how so?").
_BARE_WH = re.compile(r"^\s*(where|when|who|why|how)(?:\s+(?:that|so)(?:\s+(?:often|long|far|large|small|big|"
                      r"early|late|soon))?)?\s*$", re.I)
# "and in which year?", "and when?": a bare question about the circumstances of an event.
_BARE_CIRCUMSTANCE = re.compile(rf"^\s*(?:{PREPOSITIONAL_WH}|when|where)\s*$", re.I)
# "Who wrote X …?": a past event asked by its agent.
_WHO_DID = re.compile(r"^\s*who\s+([a-z]+)\s+(.+?)\s*\??\s*$", re.I)
# The question word of a previous question with the degree it asks ("How often"; "how many X"
# keeps its noun, so only its "How" is swapped).
_LEAD_WH_PHRASE = re.compile(r"^\s*(?:how\s+(?:often|long|far|large|small|big|early|late|soon)\b"
                             r"|what|which|where|when|who|whom|why|how)\b", re.I)
_LEAD_WH = re.compile(r"^\s*(?:what|which|where|when|who|whom|why|how)\b", re.I)
_AUX_START = re.compile(r"^\s*(?:is|are|was|were|does|do|did|has|have)\b", re.I)
_PRONOUN = re.compile(rf"\b({PERSONAL_PRONOUNS}|this|that|these|those)\b", re.I)
# "that" after a determined noun opens a relative clause ("the values that X returns"), it points
# back at nothing; after a preposition it is a demonstrative ("the size of that scheme")
_RELATIVE_THAT = re.compile(r"\b(?:the|a|an|any|all|each|every|some)\s+(?:[^\s,;?]+\s+){0,2}?"
                            r"(?!(?:of|in|on|for|to|with|from|by|about|at|into|under)\s)[^\s,;?]+\s+(that)\b", re.I)
_POSSESSIVE = re.compile(r"\b(its|their)\b", re.I)
# "that version", "those schemes": a demonstrative before a noun (`Decider._named_before`)
_DEMONSTRATIVE = re.compile(r"\b(this|that|these|those)\s+([A-Za-z][\w-]*[A-Za-z])\b", re.I)
_PERSONAL = re.compile(rf"\b({PERSONAL_PRONOUNS})\b", re.I)
# A definite description ("the second step", "the session keys") presupposes a thing already
# under discussion.
_DEFINITE = re.compile(r"\bthe\b", re.I)
# "there" closing a follow-up points at the place the previous question asked about ("why is it
# used there?"); after a form of "be" it is existential ("is there a limit?") and points nowhere
_THERE = re.compile(r"(?:\b(?:in|from|on|at)\s+)?\bthere\s*$", re.I)
_BE_BEFORE = re.compile(r"\b(?:is|are|was|were|be|been)\s*$", re.I)
# "What does X do/set/return?": the question asks for the verb's object, so its last word is the
# verb, not the thing it is about (after a preposition or article it is a noun: "… use for hashing")
_WHAT_DOES = re.compile(r"^\s*what\s+(?:does|do|did|can|could|should|will|would|must|may)\b", re.I)
# "What size does the guide recommend?", "which model have most systems followed?": the same with
# the asked thing named ("How does X define a key?" ends on an object: only what/which asks for one)
_WHAT_X_DOES = re.compile(r"^\s*(?:(?:in|on|at|for|from|by|to|with|of)\s+)?(?:what|which)"
                          r"(?:\s+(?!to\b)[\w-]+){1,4}?\s+(?:does|do|did|can|could|should|will|would|must|may|might|"
                          r"has|have|had)\s+(?!(?:i|we|you|one)\b)", re.I)
# Words that may open the subject after the auxiliary ("does *the* guide recommend")
_SUBJECT_START = frozenset("the a an its their this that these those most many some each every all any both".split())


# A noun about words ("the term", "the acronym"). One that names none after it is the word an
# earlier question asked about ("who coined the term?" after "What does little-endian mean?").
_WORD_NOUN = r"(?:term|word|phrase|expression|acronym|abbreviation|notation)"
_METALINGUISTIC = re.compile(rf"\bthe\s+{_WORD_NOUN}\b"
                             rf"(?=\s*(?:[?.!,;:]|$)|\s+(?:{AUXILIARY_ALTERNATION}|{PREPOSITION_ALTERNATION}"
                             r"|be|mean|means|meant|refers?|stands?|comes?|originate[sd]?)\b)",
                             re.I)
# … and one naming it ("the term little-endian", "the word “nonce”")
_NAMED_TERM = re.compile(rf"\bthe\s+{_WORD_NOUN}\s+(?:[\"“'‘]([^\"”'’]+)[\"”'’]|([\w-]+))", re.I)


def _asked_term(question: str) -> str:
    """The term a question asks about: the one it asks to define, its definition subject ("What
    does little-endian mean?"), or the one it names after "the term"; "" for none."""
    span = defined_span(question)
    term = question[span[0]:span[1]] if span else definition_subject(question) or ""
    if not term and not _METALINGUISTIC.search(question):
        named = _NAMED_TERM.search(question)
        word = (named.group(1) or named.group(2)) if named else ""
        term = "" if re.fullmatch(rf"(?:{AUXILIARY_ALTERNATION}|be)", word, re.I) else word
    return re.sub(rf"^(?:(?:the|an?)\s+)?(?:{_WORD_NOUN}\s+)?", "", term.strip(" ,;:"), flags=re.I)


def _name_the_term(frag: str, earlier: list[str]) -> str:
    """The follow-up with "the term" naming the term the latest earlier question asked about; as
    it was when it has no such noun or no earlier question asked about a term."""
    m = _METALINGUISTIC.search(frag)
    term = next((t for t in map(_asked_term, reversed(earlier)) if t), "") if m else ""
    return f"{frag[:m.end()]} {term}{frag[m.end():]}" if term else frag


def _reduced_relative(toks: list[str], i: int) -> bool:
    """A participle opening a clause after a noun ("data *stored* in a file", "keys *derived* from
    it"): it ends the noun phrase, though it is no stopword."""
    w = toks[i]
    return (w.isalpha() and w.islower() and past_form(w) and i + 1 < len(toks)
            and re.fullmatch(PREPOSITION_ALTERNATION, toks[i + 1].lower()) is not None)


def _passive_subject_end(toks: list[str]) -> int | None:
    """Where the subject of a passive question ends, when a complement follows its participle
    ("When is key derivation | needed for a KEM", "How is the seed | expanded into a matrix"):
    the question word, a form of "be", words that are not all function words, a lower-case past
    participle, then a preposition other than "to". None for another shape ("Which value is
    returned by X" has no subject between "is" and the participle)."""
    lows = [t.strip(",;:()").lower() for t in toks]
    be = next((i for i in (1, 2) if i < len(lows) and lows[i] in _BE_FORMS), None)
    if be is None or not _QUESTION.match(lows[0]):
        return None
    for j in range(be + 2, len(lows) - 1):
        if not toks[j].isalpha() or (lows[j] in STOPWORDS and lows[j] in _STRANDED):
            return None  # a number, a symbol or a preposition before any participle: another shape
        if lows[j] in STOPWORDS:
            continue
        # (not before "to": "are encouraged to do" is a verb's object, not a complement)
        if toks[j].islower() and past_form(lows[j]) and lows[j + 1] in _STRANDED and lows[j + 1] != "to":
            subject = [w for w in lows[be + 1:j] if w not in STOPWORDS]
            return j if subject else None
    return None


def _ends_on_verb(body: str) -> bool:
    """A what/which question for the object of its verb: "what does X do?", or "which X <aux>
    <subject> <verb>?" with only a noun phrase between the auxiliary and the verb; a preposition or
    an article past the subject's first word means the question goes on to an object ("what kind
    does X speed up *with* Montgomery multiplication?"), and "what do I …" to the verb's object."""
    if _WHAT_DOES.match(body):
        return True
    m = _WHAT_X_DOES.match(body)
    after = [t.lower().strip(",;:()") for t in body[m.end():].split()] if m else []
    if len(after) < 2 or (after[0] in STOPWORDS and after[0] not in _SUBJECT_START):
        return False
    return not any(w in STOPWORDS for w in after[1:-1])


# "How/why does X work?": verbs that end such a question with no object; the subject is its topic
_HOW_DOES = re.compile(r"^\s*(?:how|why|when|where)\s+(?:does|do|did|can|could|will|would|should)\b", re.I)
_INTRANSITIVE_FRAME = frozenset("work works function functions operate operates behave behaves proceed proceeds "
                                "differ differs".split())

# Two verbs joined at a question's end ("… take and produce")
_VERB_PAIR = re.compile(r"\b([a-z]+)\s+(?:and|or)\s+[a-z]+$")
# A particle a phrasal verb leaves after its object ("… narrow the help down?")
_PARTICLES = frozenset("up down out off away back".split())
# A word a question ends on whose object the question word stands for ("what is X used for?"), or a particle
_STRANDED = frozenset(PREPOSITION_ALTERNATION.split("|")) | _PARTICLES
# "… when the new version is deleted": a passive clause ends on its participle after a form of "be"
_BE_FORMS = frozenset("is are was were be been".split())
# "Where is the arrow head placed?", "On which page is the ls command described?": a passive
# question ends on its participle, the verb, not on the thing it is about
_PASSIVE = re.compile(r"(?:^|,)\s*(?:(?:in|on|at|for|from|by|to|with|of)\s+)?(?:what|which|where|when|how|why)\b"
                      r"[^?,]*?\b(?:is|are|was|were)\b", re.I)

# "the one on tables": "one" stands for a noun of the previous question, before the same
# preposition; "the chapter on bugs" names that noun itself
_ONE_PREP = re.compile(r"^\s*(?:the\s+)?([\w-]+)\s+(on|for|of|in|about|with|from|under)\s+(\S.*)$", re.I)
_DO_AUX = re.compile(r"\b(?:does|do|did)\b", re.I)
_WHICH_ONE = re.compile(r"\bwhich\s+(?:one|of\s+(?:them|these|those|the\s+two))\b", re.I)
_COMPARATIVE = re.compile(r"\b(smaller|larger|bigger|faster|slower|shorter|longer|stronger|weaker|better|worse"
                          r"|more|less|fewer|higher|lower)\b", re.I)
_PARAM_WORDS = re.compile(r"\b(size|sizes|length|bytes?|bits?|value|number|count|level|category)\b", re.I)
# Named kinds: "which scheme was selected?" is answered with a name the next turn refers to
# (the corpus profile adds its own kinds).
_NAMED_KINDS = frozenset("scheme schemes algorithm algorithms candidate candidates standard signature parameter "
                         "option options command commands function functions method methods class classes tool tools "
                         "package packages module modules format formats product products version versions".split())
# "the gapWidth property of a BarPlot": a named member of something, which a later "its"
# means (not the thing it belongs to)
_NAMED_MEMBER = re.compile(rf"\bthe\s+([\w.\\-]*[A-Za-z][\w.\\-]*)\s+({MEMBER_KINDS})\s+(?:of|in|for)\b", re.I)
# "and the rect method?": a name and the kind of member it is
_MEMBER_PHRASE = re.compile(rf"\s*(?:the\s+)?([A-Za-z_]\w*)\s+(?:{MEMBER_KINDS})\s*", re.I)
# "pathobject.circle", "ML-DSA.Sign": an owner, a dot and a member named by a word (not "2.12")
_DOTTED_MEMBER = re.compile(r"(?<![\w.-])([\w-]*[A-Za-z][\w-]*(?:\.[\w-]+)*)\.([A-Za-z_]\w*)(?![\w.-])")
_ENTITY_SEEKING = re.compile(r"^\s*(?:which|what)\s+(\w+)\s+(?!is\b|are\b|was\b|were\b)", re.I)
# The thing a "which/what X …" question asks for, whatever follows it
_ASKED_HEAD = re.compile(r"^\s*(?:which|what)\s+(\w+)\b", re.I)
# Words that carry no topic: a message made only of these (and stopwords) is too unclear to search.
# ("what happens …" asks for an event and names none: a corpus never writing "happen" does not
# make a follow-up about its steps off topic)
_VAGUE = frozenset("""help me standard standards document documents doc docs explain tell about spec specs
specification specifications question questions thing things stuff info information please give overview
hi hello want know need something anything more i my understand publication publications paper read guide
with to the this that it manual manuals happen happens happened""".split())


# A noun naming the other side of a relation with nothing after it ("which algorithm does *the
# reverse*?"): the relation is to what the conversation is about.
_RELATION = re.compile(r"\bthe\s+(?:reverse|opposite|inverse|converse|counterpart)\b(?!\s+(?:of|to)\b)", re.I)
# "What does X …?", "How can X …?": the word the auxiliary puts before the verb is the subject
_SUBJECT_AFTER_AUXILIARY = re.compile(rf"^\s*(?:what|how|why|when|where)\s+(?:{AUXILIARY_ALTERNATION})\s+"
                                      r"([^\s'’?,]+)\s", re.I)  # (not "X's": the name after is)


@dataclass
class RouteDecision:
    route: str
    reason: str
    source: str = "deterministic"  # which implementation decided (and why an LLM fell back)


# Where the phrase after a preposition ends: at the next preposition or a comma; an "of" inside
# it belongs to it ("in the case of X").
_PHRASE_AFTER_PREPOSITION_END = re.compile(rf"\s+(?!of\s)(?:{PREPOSITION_ALTERNATION})\s|,", re.I)


@dataclass
class Focus:
    entity: str | None   # what the turn was about (identifier or phrase)
    phrase: str | None   # the noun phrase around it
    doc_scope: str | None  # a document the question named ("TR 101-2")


@dataclass
class Rewrite:
    query: str
    carried: list[str] = field(default_factory=list)
    method: str = "none"
    source: str = "deterministic"


@dataclass
class Grades:
    scores: list[float]
    source: str = "deterministic"


@dataclass
class Validation:
    ok: bool
    grounded: bool
    on_topic: bool
    reason: str | None = None   # refusal reason when not ok
    detail: str = ""
    source: str = "deterministic"
    # A doubt rather than a failure: regenerate, but let the answer stand if the doubt remains.
    soft: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9]|[A-Za-z0-9]", text)


def specific_identifiers(text: str, know: CorpusKnowledge) -> list[str]:
    """Identifiers that can be a conversation's subject (not document names or corpus-wide words)."""
    docs = " ".join(m for m, _ in know.doc_mentions(text)).lower()
    out = []
    for ident in identifiers(text):
        low = ident.lower()
        if know.is_generic(low) or (docs and low in docs.split()) or re.fullmatch(r"\d+(?:-\d+)?", ident):
            continue
        out.append(ident)
    return out


def _family(ident: str) -> str:
    return re.sub(r"-\d+[A-Za-z]?$", "", ident).lower()


def pronouns(text: str) -> list[re.Match[str]]:
    """The words of a follow-up that point back (it, its, they, this, that, …), without the
    relative "that" of "the values that X returns"."""
    relative = {m.start(1) for m in _RELATIVE_THAT.finditer(text)}
    return [m for m in _PRONOUN.finditer(text) if m.start() not in relative]


def self_resolved(text: str, know: CorpusKnowledge) -> bool:
    """A pronoun the message resolves itself: a compound identifier (WG-KX, GX-SIG-44) comes
    before it ("the WG-KX one: what are its parameter sets?"). A plain acronym does not: in
    "which MAC algorithms can it use?" the "it" points back into the conversation."""
    found = pronouns(text)
    if not found:
        return False
    return any("-" in i for i in specific_identifiers(text[: found[0].start()], know))


def locative_there(text: str) -> re.Match | None:
    """The closing "there" (with its preposition) of a follow-up, unless it is existential."""
    body = text.rstrip(" ?!.")
    m = _THERE.search(body)
    return m if m and not _BE_BEFORE.search(body[:m.start()]) else None


def strip_connector(text: str) -> str:
    return _CONNECTOR.sub("", text.strip(), count=1).strip()


def is_vague(text: str, know: CorpusKnowledge) -> bool:
    """No identifier, no document, and no topic word beyond the generic ones."""
    if specific_identifiers(text, know) or know.doc_mentions(text):
        return False
    words = [w.lower() for w in _words(text)]
    return all(w in STOPWORDS or w in _VAGUE or know.is_generic(w) for w in words)


# "section 11.2.2 of WG 12", "Table 3", "Algorithm 12 of the standard": a numbered part of a document
_NUMBERED_PART = re.compile(rf"\b(?:{'|'.join(sorted(LOCATOR_HEADS | {'algorithm', 'example', 'step'}))})\s+"
                            r"(?:\d[\w.]*|[A-Z]\b)"  # the number, or a lettered appendix
                            r"(?:\s+of\s+(?:the\s+)?(?-i:[A-Z][\w.-]*)(?:\s+[\w.-]*\d[\w.-]*)?)?", re.I)  # "of WG 12"


# A contents entry's number before its title ("6 | Contour Plots … 23", "3.2.1. Hybrid Techniques … 9")
_ENTRY_NUMBER = re.compile(r"^\s*(\d{1,2}(?:\.\d{1,2})*)\.?\s*(?:\|\s*)?[A-Z][^…]*…\s*\d+\.?\s*$")


def _numbered_part(question: str) -> str | None:
    """The numbered part of a document a question is about ("section 11.2.2 of WG 12"): a more
    precise place for a later "there" than the document alone."""
    m = _NUMBERED_PART.search(question.strip().rstrip(" ?"))
    return m.group(0).rstrip(".") if m else None


# A thing named by its kind and its label ("reference [5]", "Table 7", "section 3.2") ending a fragment
_LABEL = r"(\[\d{1,3}\]|\d{1,3}(?:\.\d{1,3})*|[A-Z])"
_LABELLED = re.compile(rf"\b([A-Za-z][a-z]+)\s+{_LABEL}\s*$")


def _swap_label(prev_q: str, frag: str) -> Rewrite | None:
    """"and as reference [5]?" after "What does DOC cite as reference [4]?": the same question of
    the thing of that kind with the new label ("… cite as reference [5]?"); a template read it as
    an attribute of the old one ("What is the as reference [5] of [4]")."""
    m = _LABELLED.search(frag.strip())
    # (nothing but the label's phrase: "and the inputs of Algorithm 13?" asks something else of it)
    if not m or any(w.lower() not in STOPWORDS for w in _words(frag.strip()[:m.start()])):
        return None
    kind, label = m.group(1), m.group(2)
    old = re.search(rf"\b{re.escape(kind)}s?\s+{_LABEL}(?![\w.])", prev_q, re.I)
    if not old or old.group(1) == label:
        return None
    # (what was said of the old one goes with it: "… is Table 6, on block ciphers?")
    q = f"{prev_q[:old.start(1)]}{label}{_APPOSITIVE.sub('', prev_q[old.end(1):], count=1)}"
    return Rewrite(q if q.rstrip().endswith("?") else q.rstrip() + "?", [f"{kind} {label}"], "swap_label")


_WHICH_AUX = re.compile(rf"^\s*(?:which|what)\s+(?:[\w-]+\s+){{0,4}}?({AUXILIARY_ALTERNATION})\s+(\S.*)$", re.I)
_DO_MODAL = frozenset("does do did can could should will would must may might shall".split())


def _circumstance_of_event(prev_q: str, frag: str) -> str | None:
    """"and in which year?" after "Who wrote the paper on X?" asks when the event happened to its
    object: "In which year was the paper on X written" (swapping the question word alone gave
    "When wrote the paper …", and a fragment "in which year in DOC?")."""
    m = _WHO_DID.match(prev_q)
    if not m or not _BARE_CIRCUMSTANCE.match(frag) or not past_form(m.group(1).lower()):
        return None
    return f"{frag.strip().capitalize()} was {m.group(2).rstrip(' ?')} {past_participle(m.group(1))}"


def _ask_of_answer(prev_q: str, wh: str, name: str) -> str | None:
    """"why that one?" after "Which set does the agency recommend as the default?", answered with
    a name: the previous question asked again about the name ("Why does the agency recommend
    SET-3 as the default"). The name follows a form of "be" ("Why was KEM-X selected"), else the
    verb, the word before the first function word after the subject ("… recommend SET-3 as …")."""
    m = _WHICH_AUX.match(prev_q.strip().rstrip(" ?"))
    if not m:
        return None
    aux, rest = m.group(1), m.group(2).split()
    if aux.lower() in _BE_FORMS:
        words = [aux, name, *rest]
    else:
        cut = next((i for i in range(1, len(rest)) if rest[i].lower() in STOPWORDS), len(rest))
        words = [aux, *rest[:cut], name, *rest[cut:]]
    return f"{wh.capitalize()} {' '.join(words)}"


KIN_PREFIX = 4  # letters two names share at least to be kin ("MergeCols", "MergeRows")
# A word of a question that a lone follow-up name can take the place of ("MergeCols", "x.min")
_NAME_TOKEN = re.compile(r"[A-Za-z][\w.-]*[\w]")
# A lone follow-up name is a sibling of the previous question's word whose embedding is this close
# (cosine) and this much closer than any other of its words ("xmin" ~ "xmax" 0.63, next 0.27).
SIBLING_SIM = 0.5
SIBLING_MARGIN = 0.1


_ONE = re.compile(r"\b(?:which|what)\s+(one)\b", re.I)
_WH_WORD = re.compile(r"\b(?:which|what)\s+", re.I)


# ", on block ciphers" after a numbered part: a description of that part
_APPOSITIVE = re.compile(r"^\s*,\s*(?:on|about|covering|describing|listing|giving|showing|for|with)\b[^,?]*")
_PART_WORD = re.compile(rf"\b({'|'.join(sorted(LOCATOR_HEADS))})\b", re.I)


def name_one(frag: str, prev_q: str) -> str:
    """"which one …" names the kind of thing the previous question asked for: "and which one
    re-generates the key?" after "Which function does the encoder use to sample y?" asks which
    *function*. The kind is the previous question's "which X" phrase up to its verb, the
    follow-up's own verb or an auxiliary ("which letter sorts …" → letter), else its asked head
    with the words that modify it ("which hash function instantiates …" → hash function). A
    plural kind is left alone: "which one" then picks among the things the answer listed."""
    m = _ONE.search(frag)
    if not m:
        return frag
    after = frag[m.end():].split()
    verbs = AUXILIARIES | ({after[0].lower()} if after else set())
    kind = ""
    w = _WH_WORD.search(prev_q)
    if w:
        words = prev_q[w.end():].split()[:4]
        ends = [j for j, x in enumerate(words) if x.strip("?,.;:").lower() in verbs]
        if ends and 1 <= ends[0] <= 3 and not {x.lower() for x in words[:ends[0]]} & STOPWORDS:
            kind = " ".join(words[:ends[0]])
    if not kind:
        heads = asked_heads(prev_q)
        kind = " ".join([*heads[0].modifiers, heads[0].word]) if heads else ""
    # after "on which page does the section on Y start?", "which one covers Z?" asks for a
    # section: the part the page question was about
    part = _PART_WORD.search(prev_q[w.end():]) if w and kind.lower() == "page" else None
    if part:
        kind = part.group(1).lower()
    # a plural kind ("Which candidates did …?") listed several: "which one" picks among them and
    # the list is in the previous answer, not in the kind
    if not kind or re.search(r"[^s]s$", kind, re.I):
        return frag
    return f"{frag[:m.start(1)]}{kind}{frag[m.end(1):]}"


# "one"/"ones" standing for a noun the earlier turn named ("how do I use *one*?", "which standards
# specify approved *ones*?", "how many rounds can *one* require?"): at the end of the question or
# before a preposition, or as the subject after an auxiliary. Not a numeral ("one key", "one of
# them", "one or more"), not "which/that/the second one" (`name_one`, the demonstratives, an
# answer's list) and not "no one" or "more than one".
_BARE_ONE = re.compile(rf"\b(?P<aux>(?:{AUXILIARY_ALTERNATION})\s+)one(?=\s+[a-z]+\b)"
                       r"(?!\s+(?:of|or|and|another|more)\b)"
                       r"|(?<!\S)ones?(?=\s*(?:[?,;]|$|\s(?:in|on|for|with|from|to|at|by|when|if)\b))", re.I)
# prepositions scikit-learn's stop-word list lacks
_PREPOSITIONS_TOO = frozenset("like unlike via per versus".split())
_NOT_BEFORE_ONE = frozenset("which what that this these those each every any no another other only more than "
                            "the a an one first second third fourth fifth last next previous same latter former "
                            "right wrong new old such".split())


def bare_one_noun(prev_q: str, entity: str | None) -> str | None:
    """The noun a bare "one" stands for: the term a definition question defined ("How does X
    define a widget?"), else the earlier focus, without a verb a how-to question put before its
    object ("How do I draw arrows?" → arrows)."""
    if detect_mode(prev_q) == "definition":
        term = re.sub(r"^(?:an?|the)\s+", "", (definition_subject(prev_q) or "").strip(" ,;:?"), flags=re.I)
        words = term.lower().split()
        if words and len(words) <= 4 and not set(words) & (AUXILIARIES | {"and", "or", "define", "defines"}):
            return term
    last = entity.split()[-1].lower() if entity else ""
    if not last or last in function_words() or last in _PREPOSITIONS_TOO:  # "what are X a little *like*?"
        return None
    words = entity.split()
    if len(words) > 1 and re.search(rf"\b(?:I|you|we|to)\s+{re.escape(entity)}\b", prev_q):
        return " ".join(words[1:])  # the object of the verb
    # a noun phrase of the question (after an article or a possessive), not a verb it chose as focus
    determined = re.search(rf"\b(?:an?|the|its|their|\w+['’]s)\s+(?:[\w/-]+\s+){{0,3}}{re.escape(entity)}\b",
                           prev_q, re.I)
    return entity if determined else None


def name_bare_one(frag: str, noun: str | None) -> str:
    """The follow-up with a bare "one"/"ones" replaced by the noun it stands for ("an arrow",
    "approved widgets"); unchanged when there is none or "one" is a numeral or a choice."""
    if not noun:
        return frag
    words = noun.split()
    single = " ".join([*words[:-1], stem(words[-1]) if words[-1].islower() else words[-1]])
    plural = single if single != noun else (noun if noun.endswith("s") else f"{noun}s")

    def sub(m: re.Match[str]) -> str:
        aux = m.group("aux") or ""
        before = frag[:m.start() + len(aux)].split()
        if before and before[-1].lower().strip(",;:") in _NOT_BEFORE_ONE:
            return m.group(0)
        if m.group(0).lower() == "ones":
            return plural
        # "the primitive one": a determiner before its adjective already; "use one": an article
        modified = len(before) > 1 and before[-2].lower() in ("the", "a", "an", "its", "their", "my", "your")
        return aux + (single if modified else f"{'an' if single[:1].lower() in 'aeiou' else 'a'} {single}")

    return _BARE_ONE.sub(sub, frag)


class Decider:
    """The deterministic decisions, holding the corpus facts they need (idf, phrase counts)."""

    name = "deterministic"

    def __init__(self, store, idf: dict[str, float]) -> None:
        self.store = store
        self.know: CorpusKnowledge = store.knowledge
        self.kinds = _NAMED_KINDS | {k.lower() for k in self.know.profile.entity_kinds}
        self.corpus_low = "\n".join(c.text for c in store.chunks).lower()
        self.idf = idf

    # -- references ------------------------------------------------------------------------

    def answer_name(self, turn: dict) -> str | None:
        """The name the answer to a "which/what X …" question gave: the first new identifier in
        an answer sentence that shares the question's words (None when refused or not asked so)."""
        q = turn.get("rewritten_query") or turn["user"]
        m = _ASKED_HEAD.match(q)
        if not m or turn.get("refused"):
            return None
        asked = {i.lower() for i in (*identifiers(q), *CAMEL_NAME.findall(q))}
        kind = m.group(1).lower()
        words = {t for t in tokenize(q) if t not in STOPWORDS and t != kind}
        said = [sent for sent in split_sentences(strip_citations(turn.get("answer", ""))) if words & token_set(sent)]
        if kind in LOCATOR_HEADS:
            # "which section concludes the report?" → "Section 4 concludes …": the part of that kind
            # it names ("that section" is Section 4, not "the section")
            # … or the number of the contents entry it quotes ("6 | Contour Plots … 23": Chapter 6)
            parts = [p.group(0) for sent in said for p in _NUMBERED_PART.finditer(sent)
                     if p.group(0).split()[0].lower() == kind and p.group(0).lower() not in q.lower()]
            parts += [f"{kind.capitalize()} {e.group(1)}" for sent in said for e in [_ENTRY_NUMBER.match(sent)] if e]
            if parts:
                return parts[0]
        named = [i for sent in said for i in self._names_in(sent) if i.lower() not in asked]
        return named[0] if named else None

    def _names_in(self, sentence: str) -> list[str]:
        """The sentence's specific identifiers and code names in camel case ("Algorithm 27
        sigDecode(σ): …" names sigDecode), in order."""
        found = {i: sentence.find(i) for i in specific_identifiers(sentence, self.know)}
        for m in CAMEL_NAME.finditer(sentence):
            found.setdefault(m.group(0), m.start())
        return sorted(found, key=found.get)

    def focus(self, turn: dict, answer_named: bool = True) -> Focus:
        """Entity, phrase and document scope of one earlier turn (a memory record as dict). With
        `answer_named`, a "which X …" turn's focus is the X its answer named."""
        q = turn.get("rewritten_query") or turn["user"]
        scopes = self.know.doc_mentions(q)
        doc_scope = scopes[0][0] if scopes else None
        m = _ENTITY_SEEKING.match(q)
        if m and m.group(1).lower() in self.kinds and answer_named:
            named = self.answer_name(turn)
            if named:
                return Focus(named, named, doc_scope)
        # "Which section of DOC covers Y?" is about the section on Y (its answer, a contents entry,
        # names no thing "it" could stand for)
        span = located_span(q) if m and m.group(1).lower() in LOCATOR_HEADS else None
        if span:
            part = f"the {m.group(1).lower()} on {q[span[0]:span[1]]}"
            return Focus(part, part, doc_scope)
        # "What is the title of DOC?", "When was DOC published?", "Who are the authors of DOC?":
        # about the document
        mentions = tuple(mention for mention, _ in scopes)
        if asks_document_front(q, mentions) or asks_byline(q, mentions):
            return Focus(doc_scope, doc_scope, doc_scope)
        # "Who wrote the paper on X?" is about the paper on X, the whole object of the event
        event = _WHO_DID.match(q)
        if event and past_form(event.group(1).lower()):
            # (up to a participle opening a clause: "… cited in DOC" says where, as the scope does)
            toks = event.group(2).strip().rstrip(" ?").split()
            cut = next((i for i in range(1, len(toks)) if _reduced_relative(toks, i)), len(toks))
            obj = " ".join(toks[:cut])
            return Focus(obj, obj, doc_scope)
        # the number of a document part ("section 11.2.2") says where, not what the turn is about
        parts = " ".join(m.group(0) for m in _NUMBERED_PART.finditer(q))
        ids = [i for i in specific_identifiers(q, self.know) if not re.search(rf"\s{re.escape(i)}\b", parts)]
        params = [i for i in ids if self.know.is_variant(i)]
        if params:
            return Focus(params[-1], self._window(q, params[-1]), doc_scope)
        if ids:
            return Focus(ids[0], self._window(q, ids[0]), doc_scope)
        # "What does KeyCombine produce as output?": a name in camel case the question's auxiliary
        # makes its subject is what it asks about, not the complement after the verb
        subject = _SUBJECT_AFTER_AUXILIARY.match(q)
        if subject and CAMEL_NAME.fullmatch(subject.group(1)):
            return Focus(subject.group(1), subject.group(1), doc_scope)
        member = _NAMED_MEMBER.search(q)
        if member and member.group(1).lower() not in STOPWORDS:
            return Focus(member.group(1), f"{member.group(1)} {member.group(2)}", doc_scope)
        phrase = self._last_phrase(q)
        # (a phrase that is only a numbered part's label, "4.9" of "section 4.9", names the part)
        if parts and (phrase is None or re.search(rf"\s{re.escape(phrase)}\b", parts)):
            # nothing named but a numbered part: "What does Appendix B of DOC cover?" is about the
            # appendix, and "and on which page does it begin?" asks where the appendix begins (the
            # document is the scope, named again by the rewrite)
            part = re.sub(r"\s+of\s.*$", "", _numbered_part(q) or "", flags=re.I)
            return Focus(part, part, doc_scope)
        if phrase is None and doc_scope:
            # nothing else named: the question was about the named document or what it specifies
            # ("Which problem is X-DSA based on?" then "which scheme is it derived from?")
            return Focus(doc_scope, doc_scope, doc_scope)
        return Focus(phrase, phrase, doc_scope)

    def _window(self, text: str, ident: str) -> str:
        """The run of non-stopword tokens around `ident` ("112-bit RSA digital signatures")."""
        toks = text.rstrip("?.! ").split()
        idx = next((i for i, t in enumerate(toks) if ident.lower() in t.lower()), None)
        if idx is None:
            return ident
        lo = idx
        while lo > 0 and self._in_phrase(toks[lo - 1]) and not toks[lo - 1].endswith((",", ":", ";")):
            lo -= 1
        # "why does Agency recommend X-768 as …": a run back to a do/modal auxiliary that ends on a
        # lower-case word is a subject and its verb, and the name their object, a phrase of its own
        # ("when will 112-bit RSA signatures be …" is one subject)
        if (idx - lo >= 2 and lo > 0 and toks[lo - 1].lower() in _DO_MODAL
                and toks[idx - 1].isalpha() and toks[idx - 1].islower()):
            lo = idx
        hi = idx
        # after "does/can/… X" the next word is the question's verb ("What does X generate?"), not
        # part of X's phrase
        # (a document's possessive between them, "does DOC 7's X use", changes nothing; looked up
        # only after an auxiliary, this runs for every earlier turn)
        subject = lo > 0 and toks[lo - 1].lower() in AUXILIARIES and (lo == idx or self._doc_possessive(toks[lo:idx]))
        # … as after "does DOC's X" when the document's name is no phrase word ("What does Tool's
        # widget.draw create?": "create" is the verb)
        subject = subject or (lo == idx and any(
            toks[lo - k - 1].lower() in AUXILIARIES and self._doc_possessive(toks[lo - k:lo])
            for k in (1, 2, 3) if k < lo))
        while (not subject and hi + 1 < len(toks) and self._in_phrase(toks[hi + 1])
               and not toks[hi].endswith((",", ":", ";")) and not _reduced_relative(toks, hi + 1)):
            hi += 1
        return " ".join(t.strip(",;:()") for t in toks[lo: hi + 1])

    def _doc_possessive(self, toks: list[str]) -> bool:
        """Are the tokens a document's name in the possessive ("DOC 7's")?"""
        owner = " ".join(toks)
        bare = re.sub(r"['’]s$", "", owner)
        return bare != owner and any(found.lower() == bare.lower() for found, _ in self.know.doc_mentions(owner))

    def _in_phrase(self, tok: str) -> bool:
        """A token that can belong to a noun phrase of a question: no stopword, question word or
        frame word, and no document name."""
        w = tok.strip(",;:()\"'").lower()
        return (bool(w) and w not in STOPWORDS and w not in QUESTION_FRAME and not _QUESTION.match(w)
                and not self.know.doc_mentions(tok))

    def _last_phrase(self, text: str) -> str | None:
        """The last run of topic words, shortened to the longest tail the corpus itself uses."""
        body = text.strip().rstrip("?.! ")
        # a phrase naming the document opens the question, closed by a comma ("Under the licence in
        # the Foo manual, is there …"): where to look; the topic is in what follows
        opening = OPENING_PHRASE.match(body)
        if opening and self.know.doc_mentions(opening.group(0)):
            body = body[opening.end():]
        body = self.know.strip_scope(body)
        # a closing "in section 11.2.2" says where, as a document scope does
        part = [m for m in _NUMBERED_PART.finditer(body)
                if m.end() == len(body) and m.group(0).split()[0].lower() in LOCATOR_HEADS]
        if part:
            body = re.sub(r"\s+(?:in|of|from|at)\s*$", "", body[:part[0].start()].rstrip(), flags=re.I)
        # coordinated verbs ("what does X take and produce"): the question ends on the first of them
        pair = _VERB_PAIR.search(body)
        if pair and _ends_on_verb(body[: pair.end(1)]):
            body = body[: pair.end(1)]
        toks = body.split()
        if (len(toks) > 3 and toks[-1].lower() in _STRANDED and toks[-2].isalpha() and toks[-2].islower()
                and toks[-2].lower() not in STOPWORDS):
            if toks[-1].lower() in _PARTICLES or toks[-3].lower() in DETERMINERS:
                # a particle after its verb's object ("… narrow the help down?", "… turn the grid
                # on?"): the object
                toks = toks[:-1]
            else:
                # a stranded preposition ends its verb's phrase ("… can be used for", "… stand for"):
                # the thing asked about is the subject before them, not the verb
                toks = toks[:-2]
                while len(toks) > 1 and toks[-1].lower() in STOPWORDS:
                    toks.pop()
        elif (len(toks) > 3 and toks[-1].isalpha() and toks[-1].islower() and past_form(toks[-1].lower())
                and toks[-2].lower() in _BE_FORMS and toks[-3].lower() not in STOPWORDS):
            toks = toks[:-2]
        elif (len(toks) > 3 and toks[-1].lower() in _INTRANSITIVE_FRAME and toks[-2].lower() not in STOPWORDS
              and _HOW_DOES.match(body)):
            # "how does X work?": the question ends on a verb that takes no object; X is asked about
            toks = toks[:-1]
        elif (subject := _passive_subject_end(toks)) is not None:
            # "When is key derivation needed for a KEM?": a passive question's participle has its
            # subject before it and a complement after; the question is about the subject
            toks = toks[:subject]
        elif ((_ends_on_verb(body) or (_PASSIVE.search(body) and past_form(toks[-1].lower()))) and len(toks) > 3
                and toks[-1].isalpha() and toks[-1].islower() and toks[-2].lower() not in STOPWORDS):
            toks = toks[:-1]
        run: list[str] = []
        closed = function_words()  # (a preposition ends the phrase too: "… pass through *before* use")
        for t in reversed(toks):
            w = t.strip(",;:()").lower()
            if not w or w in STOPWORDS or w in closed or _QUESTION.match(w):
                break
            run.insert(0, t.strip(",;:()"))
        for n in range(min(3, len(run)), 0, -1):
            cand = " ".join(run[-n:])
            # whole words: "Widgetry produce" is not written where the corpus says "Widgetry produces"
            if len(re.findall(as_word(cand.lower()), self.corpus_low)) >= 2:
                return cand
        return run[-1] if run else None

    def _focus_back(self, history: list[dict], answer_named: bool = True) -> Focus:
        """The most recent turn's focus that names something (clarification turns skipped). A
        follow-up that said "it" or "its" kept the earlier turn's topic, so a later "it" means that
        topic too, not a word of the follow-up's rewrite ("can it sync them?" after "how many
        variables can it take?" is about the command, not "take"). `answer_named`: see `focus`."""
        for i, turn in enumerate(reversed(history)):
            if turn.get("route") == "ASK_CLARIFICATION":
                continue
            inherited = (turn.get("route") == "REWRITE_THEN_RETRIEVE" and i + 1 < len(history)
                         and _PERSONAL.search(strip_connector(turn["user"]))
                         and not specific_identifiers(turn["user"], self.know))
            if inherited:
                continue
            f = self.focus(turn, answer_named)
            if f.entity:
                return f
        return Focus(None, None, None)

    # -- router ---------------------------------------------------------------------------

    def route(self, user: str, history: list[dict]) -> RouteDecision:
        frag = strip_connector(user)
        connector = frag != user.strip()
        pronoun = (bool(pronouns(frag)) or bool(_WHICH_ONE.search(frag)) or bool(locative_there(frag))
                   or bool(_METALINGUISTIC.search(frag)))
        ids = specific_identifiers(frag, self.know)
        answered = [t for t in history if t.get("route") != "ASK_CLARIFICATION"]
        bare_wh = bool(_BARE_WH.match(frag.rstrip(" ?!.")))
        quoted_slot = bool(answered) and self._swap_quoted(answered[-1].get("rewritten_query") or answered[-1]["user"],
                                                           frag.rstrip(" ?")) is not None
        if is_vague(user, self.know) and not (answered and (pronoun or bare_wh or quoted_slot)):
            return RouteDecision("ASK_CLARIFICATION", "no identifier, document or topic word to search for")
        if not answered:
            return RouteDecision("RETRIEVE", "first question of the thread")
        fragment = not _QUESTION.match(frag) or bool(_CONDITION.match(frag))
        if not (connector or fragment or (pronoun and not self_resolved(frag, self.know))):
            return RouteDecision("RETRIEVE", "self-contained question")
        last = answered[-1]
        if self._direct(frag, ids, last, history):
            return RouteDecision("DIRECT_ANSWER", "a check about the previous answer's own evidence")
        why = "connector" if connector else "fragment" if fragment else "pronoun"
        return RouteDecision("REWRITE_THEN_RETRIEVE", f"follow-up ({why}) needs the earlier turns")

    def _direct(self, frag: str, ids: list[str], last: dict, history: list[dict]) -> bool:
        if last.get("refused") or not last.get("evidence_text"):
            return False
        if ids:
            return False
        comparison = _WHICH_ONE.search(frag) and _COMPARATIVE.search(frag)
        check = _AUX_START.match(frag) and pronouns(frag)
        if not (comparison or check):
            return False
        known = set(tokenize(" ".join(t.get("evidence_text", "") for t in history[-3:])))
        words = [w for w in tokenize(_COMPARATIVE.sub(" ", frag)) if w not in STOPWORDS and not w.isdigit()]
        return all(w in known for w in words)

    # -- rewriter -------------------------------------------------------------------------

    def rewrite(self, user: str, history: list[dict]) -> Rewrite:
        """A self-contained question from a follow-up and the earlier turns."""
        answered = [t for t in history if t.get("route") != "ASK_CLARIFICATION"]
        if not answered:
            return self.resolve_self(user)
        prev = answered[-1]
        prev_q = (prev.get("rewritten_query") or prev["user"]).strip()
        # "what about section 4.2, what is it called?": the question after the comma, asked of the
        # thing named before it, in the earlier turn's document
        about = _ABOUT_THEN_ASKED.match(user)
        if about and _QUESTION.match(about.group(2)) and pronouns(about.group(2).rstrip(" ?")):
            thing = about.group(1).strip()
            return self._replace_pronouns(about.group(2).rstrip(" ?"),
                                          Focus(thing, thing, self.focus(prev).doc_scope))
        # "which function does X use to …?" then "and which function does it call to …?": asked for
        # another of the same kind, "it" is X again, not the function the answer named
        stripped = strip_connector(user)
        asks, asked_before = _ENTITY_SEEKING.match(stripped), _ENTITY_SEEKING.match(prev_q)
        again = bool(asks and asked_before and stem(asks.group(1).lower()) == stem(asked_before.group(1).lower()))
        f = self._focus_back(answered, answer_named=not again)
        frag = _name_the_term(stripped.rstrip(" ?"),
                              [(t.get("rewritten_query") or t["user"]).strip() for t in answered])
        ids = specific_identifiers(frag, self.know)
        # "in the second example, which party …?": a question after the scope it opens with
        scope = leading_scope(frag)
        question = bool(_QUESTION.match(frag[len(scope):].lstrip(" ,") if scope else frag))
        if _WHICH_ONE.search(frag) and _COMPARATIVE.search(frag):
            return self._comparison(frag, answered)
        named = name_one(frag, prev_q)
        one_of = False
        if named != frag:
            # "which one …" asks about the previous question's own subject: the name its answer gave
            # is a sibling of the one asked for now, not the subject
            f = self.focus({"user": prev_q})
            one_of = bool(f.entity) and bool(specific_identifiers(f.entity, self.know))
            frag = named
        if question and _BARE_ONE.search(frag):  # (the noun is looked for only when "one" is there)
            frag = name_bare_one(frag, bare_one_noun(prev_q, f.entity))
        quoted = self._swap_quoted(prev_q, frag)
        if quoted is not None:
            return quoted
        passive = _circumstance_of_event(prev_q, frag)
        if passive:
            return Rewrite(passive + "?", [f.entity] if f.entity else [], "ask_event_circumstance")
        bare = _BARE_WH.match(frag)
        if bare and _LEAD_WH.match(prev_q):  # "and where?": the same question, asked anew
            # ("why that often?" after "How often will X be reviewed?": "Why will X be reviewed?")
            q = _LEAD_WH_PHRASE.sub(bare.group(1).capitalize(), prev_q.rstrip(" ?"), count=1)
            return Rewrite(q + "?", [f.entity] if f.entity else [], "swap_question_word")
        if _CONDITION.match(frag) and ids:
            # "and when it is SHA-9?" after "… when the mode is SHA-7?": the same question, for the
            # sibling value (the pronoun is the slot that value fills, not the previous entity)
            rw = self._substitute(prev_q, ids[0], f, sibling_only=True)
            if rw is not None:
                return rw
        if _CONDITION.match(frag) and not ids:  # the same question, under the new condition
            cond = re.sub(r"^\s*what\s+", "", frag, flags=re.I)
            return Rewrite(f"{prev_q.rstrip(' ?')} {cond}?", [f.entity] if f.entity else [], "add_condition")
        if ids and not question:
            rw = self._substitute(prev_q, ids[0], f)
            if rw is not None:
                return rw
        # (the connector drops a leading "for"/"with": "and for DOC 5?" → "DOC 5"; the swap needs it)
        swapped = None if question else self._swap_prepositional(prev_q, _LEAD_CONNECTOR.sub("", user).rstrip(" ?"))
        if swapped is not None:
            return swapped
        there = locative_there(frag)
        place = (_numbered_part(prev_q) or f.doc_scope or self._place(prev_q)) if there else None
        if place:
            frag = f"{frag[:there.start()].rstrip()} in {place}"
            if not pronouns(frag):
                return Rewrite(frag + "?", [place], "replace_there")
        if pronouns(frag) and not self_resolved(frag, self.know):
            if question:
                # the previous answer's name is read only when a demonstrative may point at it
                name = self.answer_name(answered[-1]) if _DEMONSTRATIVE.search(frag) else None
                named_before = self._named_before(frag, prev_q, name)
                if not pronouns(named_before):  # a demonstrative was the only word pointing back
                    bare = re.fullmatch(r"\s*(why|how|when|where)\s+(.+?)\s*", named_before, re.I)
                    again = _ask_of_answer(prev_q, bare.group(1), name) if bare and bare.group(2) == name else None
                    if again:
                        return Rewrite(again + "?", [name], "ask_of_answer")
                    return Rewrite(self._scope(named_before, f) + "?", [], "replace_demonstrative")
                return self._replace_pronouns(named_before, f)
            return self._template(frag, prev_q, f)
        if not question:
            swapped = self._swap_document(prev_q, frag) or self._swap_defined(prev_q, frag)
            if swapped is not None:
                return swapped
            words = [w for w in _words(frag) if w.lower() not in STOPWORDS]
            if len(words) == 1 and len(frag.split()) <= 2:
                return (self._swap_marked(prev_q, frag.split()[-1]) or self._swap_kin(prev_q, words[0])
                        or self._swap_sibling(prev_q, words[0]) or self._swap_located(prev_q, frag)
                        or self._swap_last_word(prev_q, words[0]))
            return (self._swap_complement(frag, prev_q) or _swap_label(prev_q, frag) or self._swap_head(frag, prev_q)
                    or self._swap_member(frag, prev_q) or self._swap_located(prev_q, frag)
                    or self._template(frag, prev_q, f))
        # "and which algorithm does the reverse?": the reverse of the earlier subject
        relation = _RELATION.search(frag) if question and not ids and f.entity else None
        if relation:
            q = f"{frag[:relation.end()]} of {f.entity}{frag[relation.end():]}"
            return Rewrite(self._scope(q, f) + "?", [f.entity], "relation_of_focus")
        # a question naming one word at most ("and in which year?") asks it of the earlier subject
        bare = question and len([w for w in _words(frag) if w.lower() not in STOPWORDS]) <= 1
        return self._carry_scope(frag, ids, f, one_of or bare)

    def refers_back(self, user: str, method: str | None) -> bool:
        """A follow-up the rewriter left as it was (no pronoun to resolve, no fragment to
        complete) that still refers back: it names nothing of its own and uses a definite
        description ("and what does the server send in the second step?" after a question about a
        handshake's first step). Its own words miss the earlier topic, so it also retrieves with
        the previous question. One without ("and which options cover logging?") names its new
        topic and retrieves alone (seen pools: 3 more turns right, none lost; fusing every such
        follow-up gained 4 and lost 1)."""
        return (method in ("none", "carry_scope") and bool(_DEFINITE.search(user))
                and not specific_identifiers(user, self.know))

    def resolve_self(self, text: str) -> Rewrite:
        """A pronoun that refers to the identifier of the same message ("WG-KX: what are its …")."""
        ids = specific_identifiers(text, self.know)
        if self_resolved(text, self.know):
            q = _POSSESSIVE.sub(lambda _m: f"the {ids[0]}", text, count=1)
            return Rewrite(q, [ids[0]], "resolve_in_message")
        return Rewrite(text, [], "none")

    def _substitute(self, prev_q: str, new: str, f: Focus, sibling_only: bool = False) -> Rewrite | None:
        """The previous question about the new identifier, in place of the old one of its family
        (or of the focus entity), else with the new one appended. None when that changes nothing:
        a name the previous question already has ("and a write-back policy?" after "… a write-back
        key?") is not what changed, the rest of the phrase is; and, with `sibling_only`, when the
        previous question names none of its family."""
        olds = [i for i in specific_identifiers(prev_q, self.know) if _family(i) == _family(new)]
        if sibling_only and not olds:
            return None
        target = olds[-1] if olds else (f.entity if f.entity and f.entity.lower() in prev_q.lower() else None)
        if target is None:
            q = f"{prev_q.rstrip(' ?')} for {new}?"
            return Rewrite(q, [new], "append_entity")
        q = re.sub(re.escape(target), lambda _m: new, prev_q, flags=re.I)
        if q.rstrip(" ?").lower() == prev_q.rstrip(" ?").lower():
            return None
        kept = self._window(q, new)
        return Rewrite(q, [new, *([kept] if kept != new else [])], "substitute_entity")

    def _named_before(self, frag: str, prev_q: str, answer_name: str | None = None) -> str:
        """A demonstrative before a noun the previous question names ("which day is *that version*
        dated after?" after "… did Tool version 2.12.20 add?", "why are *those schemes* at risk?")
        points at that question's phrase for it: "the" with the words that modify the noun there
        and a name right after it ("version 2.12.20"), not at the focus of the whole question. When
        that noun is what the previous question asked for ("which organization …?") and its answer
        named one, the demonstrative means that name ("when will that organization publish it?")."""
        toks = prev_q.rstrip(" ?.!").split()
        bare = [t.strip(",;:()\"'") for t in toks]
        # a name, not a hyphenated adjective the answer used ("isogeny-based", "unix-like")
        if answer_name and re.search(r"[A-Z\d_.]", answer_name) and _ASKED_HEAD.match(prev_q):
            head = list(takewhile(lambda w: w.lower() not in STOPWORDS and w.lower() not in AUXILIARIES, bare[1:]))
            # "that parameter set" after "which parameter set …", or "that one"
            for words in [*(r"\s+".join(map(re.escape, head[:k])) for k in range(len(head), 0, -1)), "one"]:
                said = re.compile(rf"\b(?:this|that|these|those)\s+{words}\b", re.I)
                if said.search(frag):
                    frag = said.sub(lambda _m: answer_name, frag, count=1)
                    break
        relative = {m.start(1) for m in _RELATIVE_THAT.finditer(frag)}

        def phrase(m: re.Match[str]) -> str:
            noun = m.group(2)
            if m.start(1) in relative or noun.lower() in STOPWORDS or noun.lower() in AUXILIARIES:
                return m.group(0)
            at = next((i for i, t in enumerate(bare) if t.lower() == noun.lower()
                       or stem(t.lower()) == stem(noun.lower())), None)
            if at is None:
                return m.group(0)
            lo = at
            while lo > 0 and self._in_phrase(toks[lo - 1]) and not toks[lo - 1].endswith((",", ";", ":")):
                if lo > 1 and bare[lo - 2].lower() in AUXILIARIES:
                    break  # the verb after an auxiliary ("who may *publish* new versions …")
                lo -= 1
            words = bare[lo: at + 1]
            if at + 1 < len(bare) and re.search(r"\d", bare[at + 1]):  # "version 2.12.20", "Algorithm 7"
                words.append(bare[at + 1])
            elif at + 2 < len(bare) and bare[at + 1].lower() == "of" and not toks[at].endswith((",", ";", ":")):
                words += self._of_complement(toks[at + 1:], bare[at + 1:])  # "new versions of the X License"
            return "the " + " ".join(words)

        return _DEMONSTRATIVE.sub(phrase, frag)

    def _of_complement(self, toks: list[str], bare: list[str]) -> list[str]:
        """The "of" phrase completing a noun ("of the General Public License"), up to a comma or a
        word outside a noun phrase; nothing when no topic word follows the "of"."""
        out = [bare[0]]
        for t, b in zip(toks[1:], bare[1:]):
            if b.lower() not in ("the", "a", "an") and not self._in_phrase(t):
                break
            out.append(b)
            if t.endswith((",", ";", ":")):
                break
        while out and out[-1].lower() in ("of", "the", "a", "an"):
            out.pop()
        return out

    def _replace_pronouns(self, frag: str, f: Focus) -> Rewrite:
        if not f.entity:
            return Rewrite(frag + "?", [], "none")
        q = _POSSESSIVE.sub(lambda _m: f"the {f.entity}", frag)
        for m in reversed(pronouns(q)):
            word = f"the {f.phrase or f.entity}" if m.group(1).lower() in ("that", "this") else (f.phrase or f.entity)
            q = q[:m.start()] + word + q[m.end():]
        q = self._scope(q, f)
        return Rewrite(q + "?", [f.phrase or f.entity], "replace_pronoun")

    @staticmethod
    def _place(prev_q: str) -> str | None:
        """The previous question's closing "in …" phrase, the place a later "there" names."""
        m = re.search(r"\bin\s+((?:the\s+)?[^,;?]+?)\s*\??\s*$", prev_q, re.I)
        return m.group(1) if m else None

    def _template(self, frag: str, prev_q: str, f: Focus) -> Rewrite:
        np_ = re.sub(r"^\s*(?:(?:its|their|the|a|an)\s+)+", "", _POSSESSIVE.sub("", frag).strip()).strip()
        if not f.entity:
            return Rewrite(f"{prev_q.rstrip(' ?')} {np_}?", [], "append_fragment")
        size = " size" if detect_mode(prev_q) == "parameter" and not _PARAM_WORDS.search(np_) else ""
        q = self._scope(f"What is the {np_}{size} of {f.entity}", f) + "?"
        return Rewrite(q, [f.entity, np_], "template")

    def _swap_head(self, frag: str, prev_q: str) -> Rewrite | None:
        """A noun phrase whose head noun the previous question has, with another modifier ("and
        the export command?" after "What does the import command do?"), or whose modifier it has,
        with another head: the previous question about this one."""
        np_ = re.sub(r"^\s*(?:(?:the|a|an)\s+)+", "", frag.strip(), flags=re.I).split()
        if not 2 <= len(np_) <= 4 or np_[-1].lower() in STOPWORDS:
            return None
        head = np_[-1]
        m = re.search(rf"(?<![\w-])([\w.-]+)\s+{re.escape(head)}(?![\w-])", prev_q, re.I)
        if m and m.group(1).lower() not in STOPWORDS and m.group(1).lower() != np_[-2].lower():
            start, phrase = m.start(), " ".join(np_)
            member = _DOTTED_MEMBER.fullmatch(m.group(1))
            if member and len(np_) == 2 and _MEMBER_PHRASE.fullmatch(frag):
                # "and the circle method?" after "… pathobject.rect method …": the owner stays
                phrase = f"{member.group(1)}.{np_[0]} {head}"
            # leading words the new phrase shares with the old one ("and the draw box command?"
            # after "… draw curve command …", "and the X decapsulation step?" after "… X key
            # generation step …") are not written twice: the new phrase starts where they do
            before = reversed(list(re.finditer(r"\S+", prev_q[:start])))
            run = list(takewhile(lambda t: t.group().lower() not in STOPWORDS, before))[::-1]
            lows = [t.group().lower() for t in run]
            for k in range(len(np_) - 2, 0, -1):
                lead = [w.lower() for w in np_[:k]]
                at = next((i for i in range(len(lows) - k + 1) if lows[i:i + k] == lead), None)
                if at is not None:
                    start = run[at].start()
                    break
            q = prev_q[:start] + phrase + prev_q[m.end():]
            return Rewrite(q.rstrip(" ?") + "?", [phrase], "swap_modifier")
        # ... or the same modifier with another head ("and a cache policy?" after "How does the
        # guide define a cache key?")
        modifier = " ".join(np_[:-1])
        m = re.search(rf"(?<![\w-]){re.escape(modifier)}\s+([\w-]+)(?![\w-])", prev_q, re.I)
        if not m or m.group(1).lower() in STOPWORDS or m.group(1).lower() == head.lower():
            return None
        after = prev_q[m.end():]
        if re.fullmatch(r"[\w.-]*\d[\w.-]*", head):
            # "and Table 7?" after "… is Table 6, on block ciphers?": what was said of the old
            # number's part ("on block ciphers") is not said of the new one's
            after = _APPOSITIVE.sub("", after, count=1)
        q = prev_q[:m.start()] + " ".join(np_) + after
        return Rewrite(q.rstrip(" ?") + "?", [" ".join(np_)], "swap_head")

    @staticmethod
    def _swap_member(frag: str, prev_q: str) -> Rewrite | None:
        """"and the rect method?" after "What does pathobject.circle draw?": a member named with
        its kind, when the previous question named a member of something by a dotted name, is
        that owner's member of this name: "pathobject.rect" takes the old member's place (the
        kind word is not in the previous question, so `_swap_head` has no head to swap on)."""
        m = _MEMBER_PHRASE.fullmatch(frag)
        olds = list(_DOTTED_MEMBER.finditer(prev_q))
        if not m or not olds or m.group(1).lower() == olds[-1].group(2).lower():
            return None
        old = olds[-1]
        new = f"{old.group(1)}.{m.group(1)}"
        q = prev_q[:old.start()] + new + prev_q[old.end():]
        return Rewrite(q.rstrip(" ?") + "?", [new], "swap_member")

    def _swap_complement(self, frag: str, prev_q: str) -> Rewrite | None:
        """"the one on tables" (or "the section on tables") after "On which page … does the
        section on font sizes start?": "one" is the previous question's noun before the same
        preposition ("section on"), and the new words take the place of its old ones (the topic
        words after the preposition and its article; after "does …" the last of them is the
        question's verb, not one of them)."""
        m = _ONE_PREP.match(frag)
        if not m:
            return None
        noun, prep, new = m.group(1).lower(), m.group(2), m.group(3).strip()
        toks = prev_q.rstrip(" ?").split()
        for i in range(1, len(toks) - 1):
            before = toks[i - 1].lower()
            if toks[i].lower() != prep.lower() or before in STOPWORDS or noun not in ("one", "ones", before):
                continue
            start = i + 1
            while start < len(toks) - 1 and toks[start].lower() in ("the", "a", "an"):
                start += 1  # "… the chapter on the test suite start"
            end = start
            while end < len(toks) and toks[end].lower() not in STOPWORDS and not toks[end].endswith(","):
                end += 1
            if end - start > 1 and _DO_AUX.search(" ".join(toks[:i])):
                end -= 1  # "… does the section on font sizes start": "start" is the verb
            if end == start:
                continue
            q = " ".join([*toks[:i + 1], new, *toks[end:]])
            return Rewrite(q + "?", [f"{toks[i - 1]} {prep} {new}"], "swap_complement")
        return None

    def _swap_quoted(self, prev_q: str, frag: str) -> Rewrite | None:
        """A short fragment after a question about a quoted term ("What does 'should' indicate?" →
        "and shall?") is the same question about that term: the quotes mark the slot, whatever
        the word (a stopword like "shall" would otherwise leave nothing to search for). Not a
        phrase opening with a function word ("and in the other standard?") or naming a document."""
        quotes = quoted_phrases(prev_q)
        words = frag.split()
        if (not quotes or not 1 <= len(words) <= 3 or _QUESTION.match(frag) or pronouns(frag)
                or (len(words) > 1 and words[0].lower() in STOPWORDS) or self.know.doc_mentions(frag)):
            return None
        new, old = frag.strip(" \"'“”‘’"), quotes[-1]
        if not new or new.lower() == old.lower():
            return None
        at = prev_q.rfind(old)
        q = f"{prev_q[:at]}{new}{prev_q[at + len(old):]}"
        return Rewrite(q.rstrip(" ?") + "?", [new], "swap_quoted")

    def _swap_marked(self, prev_q: str, token: str) -> Rewrite | None:
        """A lone option, command or macro ("and -debug?", "and \\onecopy?") takes the place of the
        previous question's token with the same leading mark ("-batch"), not of its last word."""
        mark = re.match(r"[^\w\s]+", token)
        if not mark or not token[mark.end():]:
            return None
        olds = re.findall(rf"(?<!\S){re.escape(mark.group())}\w[\w.-]*", prev_q)
        if not olds or olds[-1] == token:
            return None
        q = re.sub(rf"(?<!\S){re.escape(olds[-1])}(?![\w-])", lambda _m: token, prev_q, count=1)
        return Rewrite(q.rstrip(" ?") + "?", [token], "swap_marked")

    def _swap_kin(self, prev_q: str, word: str) -> Rewrite | None:
        """A lone name that shares its stem with a name of the previous question ("and MergeRows?"
        after "What does Step 4 MergeCols return in Part 7?", "and minWidth?" after "… the
        default minHeight …") takes that name's place (and drops the old name's numbered label),
        not the place of the question's last word. The longest shared beginning wins; on a tie,
        the name written in the same case pattern."""
        low = word.lower()

        def shared(tok: str) -> int:
            return sum(1 for _ in takewhile(lambda ab: ab[0] == ab[1], zip(tok.lower(), low)))

        def camel(t: str) -> bool:
            return any(c.isupper() for c in t[1:])

        toks = _NAME_TOKEN.findall(prev_q)
        cands = [(shared(t), camel(t) == camel(word), i, t) for i, t in enumerate(toks)
                 if t.lower() != low and t.lower() not in STOPWORDS]
        best = max(cands, default=None)
        if best is None or best[0] < KIN_PREFIX or best[0] >= len(word):
            return None
        return self._put_in_place(prev_q, best[3], word, "swap_kin")

    def _swap_sibling(self, prev_q: str, word: str) -> Rewrite | None:
        """A lone name whose meaning is close to one word of the previous question, and clearly
        closer than to any other, takes that word's place: "and xmin?" after "What does the xmax
        operator yield?" is about xmin, not about what xmax "xmins". Short sibling names share too
        few letters for `_swap_kin`; the bundled embedding model says they are siblings. A
        document's name is never the word replaced (it scopes the question)."""
        scope = {w.lower() for name, _ in self.know.doc_mentions(prev_q) for w in name.split()}
        toks = list(dict.fromkeys(t for t in _NAME_TOKEN.findall(prev_q)
                                  if t.lower() not in STOPWORDS and t.lower() not in scope
                                  and t.lower() != word.lower()))
        if not toks:
            return None
        vecs = self.store.embedder.embed([word, *toks])
        sims = sorted(zip((vecs[1:] @ vecs[0]).tolist(), toks, strict=True), reverse=True)
        runner_up = sims[1][0] if len(sims) > 1 else 0.0
        if sims[0][0] < SIBLING_SIM or sims[0][0] - runner_up < SIBLING_MARGIN:
            return None
        return self._put_in_place(prev_q, sims[0][1], word, "swap_sibling")

    @staticmethod
    def _put_in_place(prev_q: str, old: str, word: str, method: str) -> Rewrite:
        # a numbered label of the old name ("Step 4 MergeCols") does not label the new one
        q = re.sub(rf"(?:\b[A-Z][a-z]+ \d+\s+)?(?<![\w-]){re.escape(old)}(?![\w-])", lambda _m: word, prev_q,
                   count=1)
        return Rewrite(q.rstrip(" ?") + "?", [word], method)

    def _swap_prepositional(self, prev_q: str, frag: str) -> Rewrite | None:
        """A fragment opening on a preposition the previous question has ("and about tables?"
        after "What did release 2 fix about draw lines?") asks it again with the new words in
        place of the phrase after that preposition, up to the next one or a comma: "… fix about
        tables?", not "… fix about draw tables?"; "and for DOC 5?" after "What title does DOC 1
        give for DOC 3?" swaps the document after "for", not the first one named; "and in the
        second case?" after "In the first case, …?" swaps the leading scope."""
        m = re.match(rf"({PREPOSITION_ALTERNATION})\s+(.+?)\s*$", frag.strip(), re.I)
        if not m or pronouns(frag) or _QUESTION.match(m.group(2)):
            return None
        prep, new = m.group(1), m.group(2)
        q = prev_q.rstrip(" ?")
        hits = list(re.finditer(rf"\b{re.escape(prep)}\s+", q, re.I))
        if not hits:
            return None
        start = hits[-1].end()
        end = _PHRASE_AFTER_PREPOSITION_END.search(q, start)
        stop = end.start() if end else len(q)
        if not q[start:stop].strip() or q[start:stop].lower() == new.lower():
            return None
        # "and with the user password?" after "… supplies the owner password of a PDF made with X?":
        # a noun phrase whose head the question has with another modifier outside that phrase
        # names the sibling of that one, not a new complement of the preposition
        head = self._swap_head(new, prev_q)
        if head is not None and head.method == "swap_modifier" and \
                new.split()[-1].lower() not in q[start:stop].lower().split():
            return head
        return Rewrite(f"{q[:start]}{new}{q[stop:]}?", [new], "swap_prepositional")

    def _swap_document(self, prev_q: str, frag: str) -> Rewrite | None:
        """A fragment naming only a document ("and in DOC 2?") asks the previous question of that
        document: it takes the place of the one the question named, or scopes it."""
        docs = self.know.doc_mentions(frag)
        if not docs:
            return None
        rest = frag
        for found, _ in docs:
            rest = rest.replace(found, " ")
        if re.sub(rf"\b(?:{PREPOSITION_ALTERNATION}|the|a|an|also)\b|['’]s\b", " ", rest, flags=re.I).strip(" ,.?"):
            return None
        new = docs[0][0]
        old = self.know.doc_mentions(prev_q)
        q = prev_q.replace(old[0][0], new, 1) if old else f"{prev_q.rstrip(' ?')} in {new}?"
        return Rewrite(q if q.endswith("?") else q + "?", [new], "swap_document")

    def _swap_located(self, prev_q: str, frag: str) -> Rewrite | None:
        """After "On which page is the ls command described?" (or "Which section covers X?"), a bare
        noun phrase of its own ("and the pop rpn operator?", not a sibling's name or head) asks
        where that is: it takes the located thing's place (it was read as an attribute of the
        earlier subject: "What is the pop rpn operator of command?")."""
        return self._swap_span(prev_q, frag, located_span(prev_q), "swap_located")

    def _swap_defined(self, prev_q: str, frag: str) -> Rewrite | None:
        """After "How does X define a widget key?", a bare noun phrase ("and a gadget?") asks the
        same of that phrase: it takes the whole defined term's place, not its last word's (a
        phrase opening on a preposition or naming a document, "and in DOC 2?", is a new scope)."""
        return self._swap_span(prev_q, frag, defined_span(prev_q), "swap_defined")

    def _swap_span(self, prev_q: str, frag: str, span: tuple[int, int] | None, method: str) -> Rewrite | None:
        """The previous question with the bare noun phrase in place of its `span`; None without a
        span, or for no noun phrase of its own (a pronoun, more than six words, a preposition or a
        document opening a new scope)."""
        np_ = frag.strip()
        if (span is None or not np_ or pronouns(np_) or len(np_.split()) > 6
                or re.match(rf"(?:{PREPOSITION_ALTERNATION})\b", np_, re.I) or self.know.doc_mentions(np_)):
            return None
        return Rewrite(f"{prev_q[:span[0]]}{np_}{prev_q[span[1]:]}", [np_], method)

    def _swap_last_word(self, prev_q: str, word: str) -> Rewrite:
        # a closing document scope ("… mean according to DOC 7?") stays: its words are not the
        # question's last word
        q = prev_q.rstrip(" ?")
        scope = self.know.closing_place(q)
        toks = q[: len(q) - len(scope)].split()
        for i in range(len(toks) - 1, -1, -1):
            if toks[i].lower() not in STOPWORDS and toks[i].lower() not in QUESTION_FRAME:
                toks[i] = word
                break
        ent = specific_identifiers(prev_q, self.know)
        return Rewrite(" ".join(toks) + scope + "?", [*ent[:1], word], "swap_last_word")

    def _carry_scope(self, frag: str, ids: list[str], f: Focus, any_name: bool = False) -> Rewrite:
        """The previous document scope and parameter set (`any_name`: any named subject) when the
        follow-up names none of its own."""
        q = self._scope(frag, f)
        carried = [f.doc_scope] if f.doc_scope and q != frag else []
        if any_name:  # a hyphenated word ("re-encrypts") is no subject of its own
            ids = [i for i in ids if not i.islower()]
        if (not ids and f.entity and (any_name or self.know.is_variant(f.entity))
                and f.entity.lower() not in q.lower()):
            q = f"{q} for {f.entity}"
            carried.append(f.entity)
        return Rewrite(q + "?", carried, "carry_scope" if carried else "none")

    def _scope(self, q: str, f: Focus) -> str:
        if f.doc_scope and not self.know.doc_mentions(q):
            # a document named by what it specifies ("ML-KEM"), which the earlier question narrowed
            # ("What checks does ML-KEM decapsulation require?"): the narrower topic is the scope
            narrowed = f.entity and f.entity.lower().startswith(f"{f.doc_scope.lower()} ")
            return f"{q} in {f.entity if narrowed else f.doc_scope}"
        return q

    def _comparison(self, frag: str, answered: list[dict]) -> Rewrite:
        ents: list[str] = []
        for turn in reversed(answered):
            e = self.focus(turn).entity
            if e and e not in ents:
                ents.insert(0, e)
            if len(ents) == 2:
                break
        comp = _COMPARATIVE.search(frag).group(1).lower()
        prev_q = answered[-1].get("rewritten_query") or answered[-1]["user"]
        attr = " ".join(w for w in _words(prev_q) if w.lower() not in STOPWORDS and not _QUESTION.match(w)
                        and all(w.lower() != e.lower() for e in ents))
        q = f"Which has the {comp} {attr}, {' or '.join(ents)}?" if len(ents) == 2 else frag + "?"
        return Rewrite(q, ents, "comparison")

    # -- grader ---------------------------------------------------------------------------

    def grade(self, qa: QueryAnalysis, chunk_ids: list[str]) -> Grades:
        """Relevance 0–1 per chunk: the mean of the weighted share of the question's terms it holds
        and its embedding cosine to the question. Lexical alone over-rewards rare phrasing words
        ("cover", "big"); the cosine alone misses exact identifiers."""
        if not chunk_ids:
            return Grades([])
        score = Scorer(qa, self.idf)
        qvec = self.store.embedder.embed_query(qa.text)
        out = []
        for cid in chunk_ids:
            cos = float(self.store.vectors[self.store.position[cid]] @ qvec)
            out.append(round(0.5 * score(self.store.by_id[cid].text) + 0.5 * max(0.0, cos), 3))
        return Grades(out)

    # -- validator ------------------------------------------------------------------------

    def validate(self, qa: QueryAnalysis, answer_text: str, evidence: list[Evidence],
                 support_threshold: float, followup: str | None = None, min_coverage: float = 0.5) -> Validation:
        """Grounded: every sentence validly cited and supported by what it cites. Answers the
        question: the cited text names the question's parameter sets, a size/count question gets
        a number, and a follow-up's own words ("license fee" in "what is the license fee for
        them?") are covered — the carried entity alone must not make an answer look relevant.
        A follow-up word the corpus never writes fails outright; words it does write but the cited
        text lacks are only a doubt (`soft`): the text may say the same in other words."""
        by_key = {e.key: e for e in evidence}
        report = check_citations(answer_text, set(by_key))
        bad = [s.text for s in report.sentences if not s.valid_keys
               or support_score(s.claim, [by_key[k].text for k in s.valid_keys]) < support_threshold]
        if not report.sentences or bad:
            return Validation(False, False, False, "unsupported_claims",
                              f"{len(bad)} of {len(report.sentences)} sentences not grounded")
        cited_text = " ".join(by_key[k].text for s in report.sentences for k in s.valid_keys)
        cited = cited_text.lower()
        missing = [i for i in qa.identifiers if self.know.is_variant(i) and i.lower() not in cited
                   and i.lower() not in answer_text.lower()]
        if missing:
            return Validation(False, True, False, "off_topic", f"cited text never names {', '.join(missing)}")
        if followup:
            plain = _COMPARATIVE.sub(" ", _PRONOUN.sub(" ", strip_connector(followup)))
            own = [t for t in dict.fromkeys(tokenize(plain))
                   if t not in STOPWORDS and t not in _VAGUE and not _QUESTION.match(t) and not t.isdigit()]
            # a word written inside a camel-case name ("unpacks" in "WordUnpack") is written
            # (and the name whole: "scalarvectorntt" is the token of "ScalarVectorNTT")
            have = token_set(split_camel(f"{cited_text} {answer_text}").lower()) | token_set(
                f"{cited_text} {answer_text}".lower())
            # a compound in another inflection is written ("re-encrypts" for "re-encrypt")
            # (the light stemmer reads "accesses" as "accesse": the corpus writes "access")
            unwritten = [t for t in own if t not in have and t not in self.idf
                         and not written_compound(t, self.idf.keys(), [cited])
                         and not (t.endswith("se") and t[:-1] in self.idf)]
            # … and a function word ("myself", "afterwards") names nothing asked about, as for a
            # question's absent words (the list loads only when some word is unwritten; stemmed as
            # the tokens are: "afterwards" is the token "afterward")
            if unwritten:  # (… nor does a word of the question's frame: "which keywords *mention* X")
                closed = {stem(w) for w in (*function_words(), *QUESTION_FRAME)}
                unwritten = [t for t in unwritten if t not in closed]
            if unwritten:  # no text of the corpus can answer about a word it never writes
                return Validation(False, True, False, "off_topic",
                                  f"the follow-up asks about words the documents never write: {', '.join(unwritten)}")
            covered = weighted_share(idf_weights(own, self.idf), have)
            if own and covered < min_coverage:
                # The corpus writes these words, so the cited text may say the same in others
                # ("Output:" for "return"): try the graded-relevant chunks, then let it stand.
                lost = [t for t in own if t not in have]
                # … but an answer of contents entries writes titles only, in the words of the part
                # they name: entries holding none of the follow-up's words ("and the section on wind
                # rose diagrams?" answered "8 Real-world examples … 35") name another part
                soft = bool(covered) or not answered_by_entries(answer_text)
                return Validation(False, True, False, "off_topic",
                                  f"the follow-up's own terms are not in the cited text: {', '.join(lost)}", soft=soft)
        # (a duration may be counted in words: "how long …?" → "over a decade")
        if qa.mode == "parameter" and re.search(r"\b(how (big|large|long|many)|size)\b", qa.text, re.I) \
                and not numbers(without_marks(answer_text)) and not (
                    re.search(r"\bhow long\b", qa.text, re.I) and CUES["duration"].search(answer_text)):
            return Validation(False, True, False, "off_topic", "a size question answered without a number")
        return Validation(True, True, True)

    # -- clarification --------------------------------------------------------------------

    def clarification(self, user: str, titles: dict[str, str], history: list[dict]) -> tuple[str, list[str]]:
        """The clarifying question and its suggested options (the corpus's documents); the
        examples come from the profile or the corpus itself."""
        options = [f"{doc}: {title}" for doc, title in sorted(titles.items())]
        names = self.know.examples_of_names
        example = f" (for example {', '.join(names)})" if names else ""
        return (f"Your question \"{user.strip()}\" does not say which document or topic you mean. "
                f"Which one should I look at? Name a document or a topic{example} and what you want to know.",
                options)

