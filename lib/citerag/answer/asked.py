"""What a question asks for: its parts, the answer type of each, and its focus.

Pure functions of the question text (and of the query analysis), with no
corpus vocabulary: the shapes are those of English questions.

- **Parts.** "What does X stand for, and what assumption does it rest on?" is
  two questions; an answer is complete only when each part has its own cited
  unit. A comparison has one part per side.
- **Answer type.** "How many …", "what is the maximum …" want a number; "when"
  a date; "why" a reason; "how do I" a procedure or command; "is/does …" a
  yes/no statement; "what is X" a definition. A unit that cannot be of that
  type (no digit for a size question) is not the answer, however many words it
  shares with the question.
- **Focus.** The things an answer must be about and a related sentence will
  not do: numbers, years, quoted strings and numbered identifiers the question
  names. Cited evidence that never states them does not answer the question.
- **Asked head.** The noun a "what/which/how many X" question asks for ("what
  license *fee* …", "how much *energy* …"). Evidence about the same topic that
  never mentions that thing is a related text, not the answer. A head that
  names a type ("what *date*", "what *size*") is checked by that type's cue.
- **Asked action.** The event a question is about: "who *chaired* …", "when
  will X be *withdrawn*", "has the manual been *translated* …", "was X
  originally *developed* on", "which release *added* …". Evidence about the
  same subject that never mentions the event (in any form: "translation",
  "written") does not say who, when or which.
- **Asked stance.** "Which X does DOC *recommend* / *require* / *approve* …":
  the answer states the stance ("should", "shall", "approved"), not only the
  thing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise

from citerag.answer.citations import strip_citations
from citerag.answer.evidence import support_score
from citerag.retrieval.query import REFERENCE_MARK, in_section
from citerag.text.inflect import IRREGULAR, bases, says_word, spellings, split_camel
from citerag.text.patterns import (
    ACRONYM,
    CAMEL_NAME,
    COMMAND_OPTION,
    DOCUMENT_NOUNS,
    LOCATOR_HEADS,
    LOCATOR_PLURALS,
    LOCATOR_QUESTION,
    NUMBER_WORD,
    NUMBER_WORDS,
    NUMBERED_VARIANT,
    WRAPPED_NAME,
    proper_names,
    quoted_phrases,
)
from citerag.text.sentences import split_cited
from citerag.text.tokenize import (
    AUXILIARIES,
    AUXILIARY_ALTERNATION,
    STOPWORDS,
    function_words,
    stem,
    token_set,
    tokenize,
)

# "per second", "per year": a rate's or a frequency's unit of time
_PER_TIME = r"\bper (?:second|minute|hour|day|week|month|year)\b"

# Modal verbs: a plural right after one ("what must implementers …") is the subject.
_MODALS = "must|should|can|could|may|might|will|would|shall"
# Words that open a noun phrase: after a word in -s they make it a verb ("resets a counter").
_DETERMINER = r"(?:a|an|the|its|their|each|every|all|any|both|some|no)\b"

# "at a minimum" / "at the maximum" as an adverb ("at least", "at most")
# ("at a minimum, what does X accept", "how is X kept to a minimum": idioms asking for no number)
_NOT_IDIOM = r"(?<!\bat a )(?<!\bat the )(?<!\bat )(?<!\bto a )"

_LOCATOR_HEAD = "|".join(sorted(LOCATOR_HEADS))  # "section", "table", …
TYPES: dict[str, re.Pattern[str]] = {
    "expansion": re.compile(r"\b(stands? for|acronym|abbreviat\w*|short for)\b", re.I),
    # ("at a minimum, what does X accept" asks what X accepts: the idiom asks for no number)
    "number": re.compile(rf"\b(how (many|much|large|big|long|small)|{_NOT_IDIOM}(?:maximum|minimum)|size|sizes|"
                         r"number of|what value|length|bytes|bits|limit|count|cost|price|per second)\b", re.I),
    # a count, which English may write in words ("uses two parameters")
    "count": re.compile(r"\b(?:how many|number of)\b", re.I),
    # "how often": a frequency ("every five years", "twice a day"), which need not be written in digits
    "frequency": re.compile(r"\bhow (?:often|frequently)\b", re.I),
    # "when is X called", "when must it be destroyed": a circumstance, not a date ("when was",
    # "when will", "when does the agency plan to" ask for one); nor is a leading clause ("When using X,
    # which package …?").
    "date": re.compile(r"^when\b(?! (?:is|are|must|should|can|may|might|could)\b)"
                       r"(?![^?]*,\s*(?:what|which|how|who|whom|where|why|can|should|must|does|do|is|are)\b)"
                       r"|\b(what|which) (year|date)\b|\bin what year\b", re.I),
    "reason": re.compile(r"\b(why|reason|purpose|rationale)\b", re.I),
    # "which section/table …" asks where a document says something: a numbered title answers it
    # (and "what is the number of the section titled X?" asks the same)
    "locator": re.compile(rf"{LOCATOR_QUESTION.pattern}|\bwhat is the number of the (?:{_LOCATOR_HEAD})\b", re.I),
    # "to which e-mail address …": the address itself answers it. Not "which website …": a reference
    # entry names the site in the sentence after the one the question's words match
    "email": re.compile(r"\be-?mail address(?:es)?\b", re.I),
    # "on which page does section X start / is table Y", "where does section X begin?": a contents
    # entry answers it (not "which page size …", which asks for a size)
    "page": re.compile(r"\b(?:which|what) pages?\b(?=\s+(?:of|in|does|do|did|is|are|was|were|has|have|will)\b)"
                       rf"|^\s*where\s+(?:does|do|did)\s+(?:the\s+)?(?:{_LOCATOR_HEAD})\s+"
                       r"[\w.]+\b[^?]*?\b(?:begin|start)s?\b", re.I),
    "procedure": re.compile(r"\b(how (do|can|should) (i|we)|how to|what steps|walk me through)\b", re.I),
    # "which lines of X compute Y?", "which steps of X generate Y?": the numbers of an algorithm's
    # steps, which prose states as a range ("Lines 3 through 5 of X compute …"), where the listing
    # shows each step alone
    "lines": re.compile(r"\bin (?:which|what) (?:steps|lines)\b|"
                       r"\b(?:which|what) (?:steps|lines)\b(?= (?:of|in|does|do|did)\b)", re.I),
    "yesno": re.compile(r"^(is|are|does|do|can|should|must|may|was|were|has|have|will|could)\b", re.I),
    "list": re.compile(r"(?:^|[:;]\s*)(?:what|which) (?:are (?:the |its |their )?)?"
                       # (not past a verb: "which command cancels all forms of X" asks for one command)
                       # (nor past a modal: in "what must implementers ensure" the plural is the subject)
                       rf"(?:(?!(?:does|is|are|was|were|has|have|do|did|{_MODALS})\b"
                       rf"|[a-z]{{3,}}s {_DETERMINER})[\w-]+ ){{0,3}}"
                       r"(?!does\b|has\b|was\b|steps\b|happens\b|becomes\b)"
                       # (an acronym is no plural: "which algorithm of FIPS 204 …")
                       r"(?!(?-i:[A-Z][A-Z0-9-]*)\b)[a-z]{3,}s\b"
                       # a verb, not a plural head, when an article or a quantifier follows ("which tag
                       # resets a counter")
                       rf"(?! (?:is|was|does|did)\b| {_DETERMINER})", re.I),
    "definition": re.compile(r"^(what|who) (is|are)\b|\bstand for\b|\bmeans?\b|\bdefin|\bwhat does .+ do\b",
                             re.I),
}

# Quantities whose unit the question fixes: any number will not do. "What does X cost" wants an
# amount of money, "how long does X take" a duration ("how long must the nonce be" is a length).
STRICT: dict[str, re.Pattern[str]] = {
    "money": re.compile(r"\bhow much (?:does|do|did|will|would|is|are)\b.*\b(?:cost|charge)\b|"
                        # (not "a fee": "copies distributed for a fee", "may you charge a fee" ask no amount)
                        r"\bwhat (?:does|do|did|will|would)\b.*\bcost\b|(?<!\b[Aa] )\b(?:price|prices|fee|fees)\b|"
                        # "what does X charge (for Y)?", not "what does the charge field do"
                        r"\bwhat (?:does|do|did|will|would)\b[^?]*\bcharge\b(?=\s+(?:for|to|per)\b|\s*\?)", re.I),
    "duration": re.compile(r"\bhow long (?:does|do|did|will|would|should|can|could)\b.*\b(?:take|takes|last|lasts)\b|"
                           r"\bhow much time\b", re.I),
    # "what is the maximum number of rows": a limit, which the documents state as one; a count of
    # something else ("a number of rows at the top") does not answer it. A superlative of size or
    # "at most" asks for one too ("the largest corner radius it allows"; seen pools: NIST +1,
    # manuals +3, nothing lost). ("lowest" stays out: "the lowest layer" is a place.)
    "limit": re.compile(rf"\b{_NOT_IDIOM}(?:maximum|minimum|largest|longest|highest|greatest|biggest|smallest|shortest|"
                        r"fewest)\b|\bat most\b", re.I),
    # "how many signatures per second": a rate, which the documents state per a unit of time
    "rate": re.compile(_PER_TIME, re.I),
    # "how often is X reviewed": a frequency ("every five years", "whenever …"), not any fact on X
    "frequency": TYPES["frequency"],
}

# A count in words of a plural noun ("two parameters", "three parameter sets"): the number word and
# the noun phrase are its groups.
_COUNT_OF_NOUN = re.compile(r"\b(" + NUMBER_WORD + r")\s+((?:[a-z][a-z-]*\s+)?[a-z][a-z-]*[a-z]s)\b", re.I)

# An entry of a reference list ("[12] Name A (2016) Title …"), or its year in brackets.
# (or a citation in the text: "Koch et al, 1983", "Levy and Brown [1986 …", "Lund [2019 …", and a
# year then a title in quotes, "Ann Lee, 1991, “Widget analysis,” …", the title its group 1)
_AUTHORS = r"[A-Z][a-z]+(?:\s+(?:and|&)\s+[A-Z][a-z]+|\s+et\s+al\b\.?)"
_QUOTED_TITLE = re.compile(r"\b(?:1[89]|20)\d\d[a-z]?[.,]\s*[“\"]([^”\"\[]{3,200})[”\"]")
# An author-year citation in prose ("Koch et al, 1983", "Levy and Brown [1986")
_AUTHOR_YEAR = re.compile(rf"\b{_AUTHORS},?\s*[(\[]?\s*(?:1[89]|20)\d\d\b")
_REFERENCE_CUE = re.compile(rf"^\s*\[\d{{1,3}}\]\s+\S|\(\d{{4}}\)|{_AUTHOR_YEAR.pattern}"
                            rf"|\b[A-Z][a-z]+\s*\[(?:1[89]|20)\d\d\b|{_QUOTED_TITLE.pattern}", re.M)
# An entry of a contents list or an index: a section's (table's, figure's) label and title, then the
# page it starts on, after dot leaders or in a cell of its own ("4.3 The Transform . . . . 24",
# "2.1 | Terms and Definitions | 2", "Table 3. Sizes ...... 9"); in an answer, before its citation.
# (the dot leaders between its title and its page, with the cell breaks among them; a number the
# layout broke across two cells, "9.3.5 | 3.2 Widget fill … 140", is read whole)
_LEADERS = r"(?:[ \t|_]*\.){3,}[ \t|._]*"
CONTENTS_LEADERS = re.compile(_LEADERS)
# The kinds of numbered part a contents entry or a question names.
_PART_KINDS = ("table", "figure", "algorithm", "appendix", "section", "chapter")
# (the kind word may be broken across cells, "Append | ix B — SampleNTT Loop Bounds | 46", or after
# its first letter, "T able 7: Hash functions", and a dash may stand between the label and the title)
_KIND_WORDS = "|".join(f"{k[0].upper()} ?{k[1:]}" for k in _PART_KINDS)
_NUMBERED_ENTRY = (rf"^[ \t|]*(?:(?:{_KIND_WORDS}|"
                   r"[A-Z][a-z]+[ \t]*\|[ \t]*[a-z]+)\s+)?"
                   r"(?:\d{1,2}(?:\.\d{1,3})*\.?(?:[ \t]*\|[ \t]*\d{1,3}(?:\.\d{1,3})+)?|[A-Z](?:\.\d{1,3})*\.?)"
                   r"(?:[ \t|]+(?:[—–][ \t]+)?|(?<=\.)(?=[A-Z])|"
                   r"(?:(?<=\.\d)|(?<=\.\d\d)|(?<=\.\d\d\d))(?=[A-Z][a-z]))"
                   r"[A-Za-z][^\n]*?[a-z]{2}[^\n]*?"
                   rf"(?:{_LEADERS}|[ \t]*\|[ \t]*|_[ \t]*|\s…\s)(\d{{1,4}})"
                   r"[ \t]*\.?(?:[ \t]*\[[^\]\n]*\])*[ \t]*$")
_NUMBERED_ROW = re.compile(_NUMBERED_ENTRY)
# … or, unnumbered, an index's term and its pages after dot leaders ("cookbook . . . . 35", "data,
# clipping using set input clip . . . 116", "isopycnals . . . 59, 87"; shown in an answer as
# "cookbook … 35")
_INDEX_ENTRY = (rf"^[ \t]*[A-Za-z][^\n]*?[a-z]{{2}}[^\n]*?(?:{_LEADERS}|\s…\s)(\d{{1,4}}(?:,[ \t]*\d{{1,4}})*)"
                r"[ \t]*\.?(?:[ \t]*\[[^\]\n]*\])*[ \t]*$")
# (an index set in columns has an entry of each in a line, in cells of their own)
_INDEX_CELL = re.compile(_INDEX_ENTRY)
# … or with its page before it: a list whose page numbers the layout read before the next title
# (". . . . 99 10.2 Modifying a Built in Flowable", "98 Chapter 10 Writing your own Flowable
# Objects"; in an answer, "… 99 10.2 …"); a chapter's or appendix's without leaders
_LEADING_PAGE_ENTRY = (rf"^[ \t|]*(?:(?:{_LEADERS}|…[ \t]*)(\d{{1,4}})[ \t]+(?:(?:Chapter|Appendix|Section)\s+)?|"
                       r"(\d{1,4})[ \t]+(?:Chapter|Appendix)\s+)"
                       r"(?:\d{1,2}(?:\.\d{1,3})*|[A-Z](?:\.\d{1,3})*)\.?[ \t]+[A-Z][^\n]*?[a-z]{2}[^\n]*$")
_LEADING_PAGE_ROW = re.compile(_LEADING_PAGE_ENTRY)


def mend_kind_word(entry: str) -> str:
    """The entry with a kind word the layout broke after its first letter joined ("T able 7: Hash
    functions" → "Table 7: Hash functions"): as an answer quotes it, and a reader searches it."""
    return _BROKEN_KIND.sub(lambda m: m.group(0).replace(" ", ""), entry, count=1)


_BROKEN_KIND = re.compile(rf"(?<![^\s|])(?:{'|'.join(f'{k[0].upper()} {k[1:]}' for k in _PART_KINDS)})\b")


def page_last(entry: str) -> str:
    """The entry with its page read last when the layout put it first (`_LEADING_PAGE_ENTRY`:
    ". . . 99 10.2 Modifying X" → "10.2 Modifying X … 99"), else the entry as written."""
    m = _LEADING_PAGE_ROW.match(entry)
    if not m:
        return entry
    page = 1 if m.group(1) else 2
    return f"{entry[m.end(page):].strip()} … {m.group(page)}"


CONTENTS_ROW = re.compile(rf"(?m){_NUMBERED_ENTRY}|{_INDEX_ENTRY}|{_LEADING_PAGE_ENTRY}")
# A word a contents list's layout broke across two cells ("Widg | et Layout"), at times with a stray
# letter at the break ("Symboi | ls").
_BROKEN_WORD = re.compile(r"(?<=[a-z])( ?[a-z])? \| (?=[a-z])")


# What every contents entry has, checked first: a leader, a cell break or an ellipsis, and a page
# number at the end (the full pattern is slow on prose, and most lines are prose).
_ENTRY_MARK = re.compile(r"\||…|\.\s?\.|_")
_ENTRY_END = re.compile(r"\d[ \t]*\.?(?:[ \t]*\[[^\]\n]*\])*[ \t]*$")


def contents_entries(text: str) -> list[str]:
    """The lines of the text that are contents entries (`CONTENTS_ROW`), and the cells of a line
    holding an index's columns ("cookbook . . . 35 | directories, changing . . . 74")."""
    out: list[str] = []
    for ln in text.split("\n"):
        if _LEADING_PAGE_ROW.match(ln):
            out.append(ln)
            continue
        if not (_ENTRY_MARK.search(ln) and _ENTRY_END.search(ln)):
            continue
        cells = ln.split(" | ")
        if len(cells) > 1 and all(_INDEX_CELL.match(c) for c in cells):
            out += cells
        elif CONTENTS_ROW.match(ln):
            out.append(ln)
    return out


# "Who are the authors of X?", "Who wrote X?", "Which division (of Y) produced X?": asked of a
# whole document, and answered by its title page's byline (its authors' names, with the unit they
# belong to), which writes neither the verb nor "author".
_ON_TITLE_PAGE = r"(?:on|in)\s+the\s+(?:title|cover|front)\s+page"
_UNIT_KIND = r"(?:division|laborator(?:y|ies)|organi[sz]ation|institute|office|unit|group|team)"
_BYLINE_ASKED = re.compile(
    r"^\s*(?:who\s+(?:are|is|were|was)\s+the\s+(?:(?:first|second|third|last|lead|main)\s+)?(?:listed\s+)?authors?\s+"
    rf"(?:(?:listed\s+)?{_ON_TITLE_PAGE}\s+)?of|"
    r"who\s+(?:wrote|authored|prepared)|"
    # "Who is listed first on the title page of X?", "Which (two) authors (…) are listed last on the
    # cover page of X?": a place in the byline is asked of it too
    r"(?:who|(?:which|what)\s+(?:\w+\s+)?authors?(?:\s+[\w-]+){0,4}?)\s+(?:is|are|was|were)\s+(?:listed|named|shown)\s+"
    rf"(?:(?:first|second|third|last)\s+)?{_ON_TITLE_PAGE}\s+of|"
    rf"(?:which|what)\s+(?:[A-Z]\S*\s+)?{_UNIT_KIND}\s+"
    r"(?:of\s+(?:the\s+)?\S+\s+)?(?:wrote|produced|issued|published|prepared|authored|developed)|"
    # "Which division of Y do the authors of X belong to?", "Under which division is <name> listed on the
    # title page of X?": the unit an author belongs to, which the byline gives beside the names
    rf"(?:which|what)\s+(?:[A-Z]\S*\s+)?{_UNIT_KIND}\s+(?:of\s+(?:the\s+)?\S+\s+)?do(?:es)?\s+the\s+authors?\s+of|"
    rf"(?:(?:under|in)\s+)?(?:which|what)\s+(?:[A-Z]\S*\s+)?{_UNIT_KIND}\s+(?:is|are|was|were)\s+[A-Z][^?]{{0,40}}?\s+"
    rf"(?:listed|named|shown)\s+{_ON_TITLE_PAGE}\s+of)\s+(.+?)(?:\s+belongs?\s+to)?\s*\??\s*$",
    re.I)


# A title page's byline: names only (capitalised words, initials, commas, "and", name particles).
_BYLINE_WORD = r"(?:[A-Z][^\s\d,:;()/]*|and|de|van|von|der|da|di|du|la|le)"
_BYLINE = re.compile(rf"{_BYLINE_WORD}(?:,?\s+{_BYLINE_WORD})+,?")


def is_byline(line: str) -> bool:
    """A line of people's names: a list (commas or "and"), a name with an initial ("Dan E. Kelley"),
    or four names' worth of words; a title of three capitalised words alone is no byline."""
    # (a compound of three capitalised parts, "Widget-Based-Key", is a title's word, not a name)
    if not _BYLINE.fullmatch(line) or any(w.count("-") >= 2 for w in line.split()):
        return False
    tokens = line.replace(",", " ").split()
    # (nor is a line naming a kind of document: "Federal Information Processing Standards Publication")
    if any(w.lower() in DOCUMENT_NOUNS for w in tokens):
        return False
    words = [w for w in tokens if w[0].isupper()]
    if "," in line:
        # a list by commas is of names, two or three words each ("Kevin M. Stine, Director of …"
        # signs a foreword: one name and a role)
        names = all(2 <= len(re.sub(r"^\s*and\s+", "", seg).split()) <= 3 for seg in line.rstrip(",").split(","))
    else:
        names = " and " in line or bool(re.search(r"\b[A-Z]\.", line)) or len(words) >= 4
    return len(words) >= 2 and names


def asks_byline(question: str, doc_mentions: tuple[str, ...]) -> bool:
    """Does the question ask who wrote (or which unit produced) a document it names, and nothing
    else? ("Who wrote the paper on X, cited in Y?" asks about a cited work, not about Y.)"""
    m = _BYLINE_ASKED.match(question)
    if not m or not doc_mentions:
        return False
    # (a publisher's name may stand before the document's: "NIST IR 8547")
    return not re.search(r"(?<![\w-])[a-z]", _naming_rest(m.group(1), doc_mentions))


def _naming_rest(phrase: str, doc_mentions: tuple[str, ...]) -> str:
    """What a phrase naming a document says besides the document's name, an article and a
    document noun ("the initial public draft of IR 9" → "initial public draft of")."""
    for d in doc_mentions:
        phrase = re.sub(re.escape(d), " ", phrase, flags=re.I)
    return re.sub(rf"\b(?:the|a|an|this|{'|'.join(DOCUMENT_NOUNS)})\b|['’]s\b", " ", phrase, flags=re.I)


# "What is the title of X?", "When was X published?": asked of a document X the question names, and
# answered by X's title page (its first lines; its date line), which says neither "title" nor
# "published". X may be named with words of its title page ("the initial public draft of IR 9",
# "the fourth-round status report IR 9"); words it does not write there name something else (a
# work X cites: "When was FIPS 9 published, according to X's references?").
_FRONT_ASKED = (
    ("title", re.compile(r"^\s*what\s+(?:is|was)\s+the\s+(?:full\s+|exact\s+|official\s+)?title\s+of\s+(.+?)\s*\??\s*$",
                         re.I)),
    ("date", re.compile(r"^\s*(?:when|(?:on|in)\s+(?:what|which)\s+(?:date|day|month|year))\s+(?:was|were)\s+(.+?)\s+"
                        r"(?:first\s+)?(?:published|released|issued)\s*\??\s*$", re.I)),
    ("date", re.compile(r"^\s*what\s+is\s+the\s+(?:publication|release|issue)\s+date\s+of\s+(.+?)\s*\??\s*$", re.I)),
)
# A title page's date line: a month and year, with the day and a label ("Published August 13, 2024").
_DATE_LINE = re.compile(r"^(?:[A-Z][a-z]+:?\s+)?(?:January|February|March|April|May|June|July|August|September|"
                        r"October|November|December)\s+(?:\d{1,2},\s+)?(?:19|20)\d\d\b")


def front_asked(question: str, doc_mentions: tuple[str, ...], front_text: str) -> str:
    """"title" or "date" when the question asks for that of a document it names, whose title
    pages (`front_text`) write every other word naming it; else ""."""
    if not doc_mentions:
        return ""
    kind, phrase = front_phrase(question)
    # ("fourth-round" is written "Fourth Round" there)
    naming = token_set(_naming_rest(phrase, doc_mentions).replace("-", " "))
    return kind if kind and naming <= token_set(front_text.replace("-", " ")) else ""


_EXAMPLE = re.compile(r"\bexamples?\b", re.I)


def asks_example(question: str) -> bool:
    """Does the question ask about an example ("in ReportLab's charspace example, by how much …")?
    Then the example's code states the answer, line by line."""
    return _EXAMPLE.search(question) is not None


# "the coords example", "the translate function": a name before "example" or "function"
_EXAMPLE_NAMED = re.compile(r"(?<![\w'’])([A-Za-z_][A-Za-z0-9_]{2,})\s+(?:example|function)\b")


def example_name(question: str) -> str:
    """The name the question gives an example ("in ReportLab's coords example, which font …" →
    "coords"), which a code example defines as a function of that name, else ""."""
    for m in _EXAMPLE_NAMED.finditer(question):
        if m.group(1).lower() not in STOPWORDS:
            return m.group(1)
    return ""


def asks_document_front(question: str, doc_mentions: tuple[str, ...]) -> bool:
    """Does the question ask a document's title or date, naming the document by its name alone
    ("What is the title of DOC 9?", not "… of reference [33] of DOC 9?")?"""
    kind, phrase = front_phrase(question)
    return bool(kind and doc_mentions) and not token_set(_naming_rest(phrase, doc_mentions))


def front_phrase(question: str) -> tuple[str, str]:
    """(kind, the phrase naming the document) when the question asks for a document's title or
    date in one of `_FRONT_ASKED`'s forms, else ("", "")."""
    found = next(((kind, m) for kind, pattern in _FRONT_ASKED if (m := pattern.match(question))), None)
    return (found[0], found[1].group(1)) if found else ("", "")


def date_line(line: str) -> bool:
    """A title page's line that gives a date and nothing more ("November 2024")."""
    return bool(_DATE_LINE.match(line)) and len(line.split()) <= 8


def reads_contents(question: str) -> bool:
    """A question a contents list answers: on which page something is, which section, chapter,
    table or figure covers it (an entry gives its number and title), or which sections a
    numbered part has."""
    types = answer_types(question)
    return "page" in types or "locator" in types or bool(asked_subsections(question) or asked_title(question))


# "What is the title of Table 5 of X?", "What is Figure 3 called?": a numbered part's own title, which
# its caption or heading, or its contents entry, gives (a one-part question).
_PART_KIND = rf"(?:{'|'.join(_PART_KINDS)}|fig\.?|example|listing)"
_PART_LABEL = r"(?:[A-Z]?\d+(?:[.-]\d+)*|[A-Z])"
# A title in lower case that is a call written in code ("gen_len2(n, lgw)", "chain(X, i, s)"): a name
# right against its parenthesis, as prose never writes a word ("Algorithm 1 uses (…)" is prose).
_CALL_TITLE = r"(?-i:[a-z_][\w.]*\()"
# "… of X" / "… in X" after the part: the document it belongs to
_IN_DOC = r"(?:\s+(?:of|in)\s+[^?,;]+?)?"
_TITLE_ASKED = re.compile(
    rf"^\s*what\s+(?:is|was)\s+(?:the\s+)?(?:title|caption|name|heading)\s+of\s+(?:the\s+)?"
    rf"(?P<a>{_PART_KIND}\s+{_PART_LABEL})\b{_IN_DOC}\s*\??\s*$"
    rf"|^\s*what\s+(?:is|was)\s+(?:the\s+)?(?P<b>{_PART_KIND}\s+{_PART_LABEL})\b{_IN_DOC}"
    rf"\s+(?:titled|called|named|captioned){_IN_DOC}\s*\??\s*$"
    # "What does Figure 2-21 (of X) illustrate?", "What is shown in Table 3?": what a figure shows is
    # what its caption says (the drawing itself is no text)
    rf"|^\s*what\s+(?:does|did)\s+(?:the\s+)?(?P<c>{_PART_KIND}\s+{_PART_LABEL})\b{_IN_DOC}"
    rf"\s+(?:show|illustrate|depict|display|represent)\s*\??\s*$"
    rf"|^\s*what\s+(?:is|are)\s+(?:shown|illustrated|depicted|displayed|represented)\s+(?:in|by|on)\s+(?:the\s+)?"
    rf"(?P<d>{_PART_KIND}\s+{_PART_LABEL})\b{_IN_DOC}\s*\??\s*$", re.I)


def asked_title(question: str) -> str:
    """The part whose title the question asks ("table 5", "appendix a"), else "". A scope the
    question opens with says where to look ("In X's table of contents, what is section 4.9 called?")."""
    scope = _LEADING_SCOPE.match(question)
    m = _TITLE_ASKED.match(question[scope.end():] if scope else question)
    if not m:
        return ""
    kind, label = next(g for g in m.group("a", "b", "c", "d") if g).split(None, 1)
    return f"{'figure' if kind.lower().startswith('fig') else kind.lower()} {label.lower()}"


# "Which algorithm number is X?", "… numbers do X and Y have?", "What is the algorithm number of X?":
# the number a part's own title line gives each name ("Algorithm 39 MakeHint(z, r)"). Retrieved
# prose that names X beside other functions states no number for it.
_NUMBER_ASKED = re.compile(rf"\b(?:which|what)\s+(?P<a>{_PART_KIND})\s+(?:numbers?|no\.)(?!\w)"
                           rf"|\b(?P<b>{_PART_KIND})\s+numbers?\s+(?:of|for)\b", re.I)


def asked_number(question: str) -> str:
    """The kind of numbered part whose number the question asks for a named thing ("algorithm"), else ""."""
    m = _NUMBER_ASKED.search(question)
    if not m:
        return ""
    kind = (m.group("a") or m.group("b")).lower()
    return "figure" if kind.startswith("fig") else kind


# "line 7 of X", "at line 8", "lines 1 through 3", "lines 10 and 12": numbered lines of an algorithm,
# each number or range (group 1, and group 2 ending a range), then more joined by "and" or commas
# (group 3; a number of bytes or bits after "and" is no line: "line 2 and 32 bytes")
_LINES_ASKED = re.compile(r"\blines?\s+(\d{1,3})(?:\s*(?:-|–|through|to)\s*(\d{1,3}))?"
                          r"((?:\s*(?:,\s*and|,|and)\s*\d{1,3}(?!\s*[-–]?\s*(?:bytes?|bits?)\b))*)", re.I)


def asked_lines(question: str) -> tuple[int, ...]:
    """The line numbers of a numbered procedure the question asks about ("what does line 3 of X
    extract?" → (3,); "what do lines 1 through 3 … and line 4 …" → (1, 2, 3, 4)), else ()."""
    out: list[int] = []
    for m in _LINES_ASKED.finditer(question):
        first, last = int(m.group(1)), int(m.group(2) or m.group(1))
        out += range(first, last + 1) if 0 < last - first < 30 else [first]
        out += [int(n) for n in re.findall(r"\d+", m.group(3))]
    return tuple(dict.fromkeys(out))


# "its while loop", "the for-loop", "the X while loop", "the switch in X": a control construct of a named procedure,
# when the question asks what the construct itself says (its condition, its cases), not a limit or
# count of its iterations nor a step before, after or inside it
_CONSTRUCT = re.compile(r"\b(?:its|the)\s+(?:[\w.-]+\s+)?(?:(while|for)[- ]loop|(switch))\b", re.I)
_ABOUT_ITERATIONS = re.compile(r"\b(?:limits?|bounds?|bounding|iterations?|repetitions?|unroll\w*|before|after|"
                               r"inside|within|inner|outer|body)\b", re.I)


def asked_construct(question: str) -> tuple[str, ...]:
    """The keywords opening the steps of the control construct the question asks about ("what
    condition does its while loop test?" → ("while",); "which functions does the switch in X
    name?" → ("switch", "case")), else (). Nothing when it asks about the construct's iterations
    or a step around it ("the while-loop limit", "before the outer loop")."""
    m = _CONSTRUCT.search(question)
    if not m or _ABOUT_ITERATIONS.search(question):
        return ()
    return (m.group(1).lower(),) if m.group(1) else ("switch", "case")


def numbered_title(kind: str, name: str) -> re.Pattern[str]:
    """A title line giving `name` its number: the kind word, the label, a separator at most, then
    the name as a whole word ("Algorithm 39 MakeHint(z, r)", "Table 5, Widget sizes")."""
    return re.compile(rf"^\s*{kind_word(kind)}\s+{_PART_LABEL}(?:[.:,]|\s+[—–-])?\s+(?:\|\s*)?"
                      rf"{re.escape(name)}(?![\w-])", re.I)


def part_title(part: str, line: str, bare: bool = False) -> str:
    """The title a line gives the asked part ("table 5"), when it opens with the part's label and
    a capitalised title (or a call in code, `_CALL_TITLE`): its caption or heading ("Table 5.
    Post-quantum schemes", "Algorithm 1 gen_len2(n, lgw)"), or its contents entry with the leaders
    and page dropped; else "". ("Table 2 lists …" is prose about the table, not its title.) With
    `bare`, for a heading or a contents entry, a section's or chapter's number alone will do ("4.
    Parameter Sets"); in prose it may be anything numbered (a step)."""
    kind, label = part.split(" ", 1)
    optional = "?" if bare and kind in ("section", "chapter") else ""
    opens = rf"(?:{kind_word(kind)}\s+){optional}{re.escape(label)}"
    row = _PAGE_AFTER.sub("", CONTENTS_LEADERS.sub(" ", page_last(line)).replace(" | ", " ")).strip()
    # (after a colon a caption may open in lower case: "Figure 2-21: line style parameters"; so may
    # an algorithm's title naming its call: "Algorithm 1 gen_len2(n, lgw)")
    m = re.match(rf"{opens}(?:(?:[.:]|\s+[—–-])?\s+(?=(?-i:[A-Z\"“‘(])|{_CALL_TITLE})|:\s*(?=(?-i:[a-z])))(.+)$",
                 row, re.I)
    return m.group(1).strip() if m and len(m.group(1).split()) <= _TITLE_MAX_WORDS else ""


def titles_given(part: str, heading: str, text: str) -> list[tuple[bool, str]]:
    """The titles a chunk gives the asked part, each with whether a contents entry gives it (not
    the part's own heading or caption): its heading path's titles, then its lines."""
    written = _label_then_title(part)
    out: list[tuple[bool, str]] = []
    for line, own in [(h, True) for h in heading.split(" > ") if h] + [(ln.strip(), False) for ln in text.split("\n")]:
        # (only a line writing the label before a capitalised word can give a title: the cheap test
        # first, as a chunk scan reads every line of a corpus)
        if not written.search(line):
            continue
        entry = not own and bool(CONTENTS_ROW.match(line))
        title = part_title(part, line, bare=own or entry)
        if title:
            out.append((entry, title))
    return out


def title_claim(part: str, title: str) -> str:
    """The title a draft states for the part: "Section 4.9: Colour of ink in pen"."""
    kind, label = part.split(" ", 1)
    return f"{kind.capitalize()} {label.upper()}: {title}"


def title_ranks(part: str, heading: str, text: str, threshold: float) -> list[tuple[int, str]]:
    """Each title a chunk gives the part, ranked for citing: 0 its own heading or caption, 1 a
    contents entry, when the chunk's text supports the restated title (the verifier's test); 2 and
    3 the same when it does not (a title only its heading path gives, whose number the text never
    writes: the citation would not support it)."""
    return [(int(entry) + 2 * (support_score(title_claim(part, title), [text]) < threshold), title)
            for entry, title in titles_given(part, heading, text)]


@lru_cache(maxsize=64)
def _label_then_title(part: str) -> re.Pattern[str]:
    """The part's label as a word (after its kind word, but for a section's or a chapter's), then a
    separator at most and a capitalised word or a call in code (in its own cell or not)."""
    kind, label = part.split(" ", 1)
    word = "" if kind in ("section", "chapter") else rf"{kind_word(kind)}\s+"
    return re.compile(rf"(?<![\w.-]){word}{re.escape(label)}(?:(?:[.:]|\s+[—–-])?\s+(?:\|\s*)?"
                      rf"(?:(?-i:[A-Z\"“‘(])|{_CALL_TITLE})|:\s*(?-i:[a-z]))",
                      re.I)


_PAGE_AFTER = re.compile(r"(?:\s*…)?\s+\d{1,4}\s*$")  # the page an entry ends on
_TITLE_MAX_WORDS = 20  # a longer run after a label is prose, not a title


# "What are the subsections of Section 2.4?", "Which sections make up chapter 3 of X?", "Which
# subsections does Appendix D have?": the parts numbered one level below the named one, which a
# contents list gives ("2.4.1 Rings", "2.4.2 Vectors …").
_PART_NUMBER = r"(?:section|chapter|appendix)\s+((?:\d{1,2}|[A-Z])(?:\.\d{1,3})*)\b"
_SUBSECTIONS = re.compile(rf"\b(?:sub)?sections\s+(?:of|in|under|make\s+up|form)\s+(?:the\s+)?{_PART_NUMBER}|"
                          rf"\b(?:sub)?sections\s+(?:does|do|did)\s+{_PART_NUMBER}[^?]*?\b(?:have|contain|include)\b",
                          re.I)
# A contents entry's number: a section's ("2.4.1 | Rings … 7"), or (`_ANY_ENTRY_NUMBER`) a chapter's
# too ("8 Real-world examples … 35")
_NUMBER_OPENING = r"^[\s|]*(?:(?:Section|Chapter|Appendix)\s+)?((?:\d{{1,2}}|[A-Z])(?:\.\d{{1,3}}){levels})\.?[\s|]"
_ENTRY_NUMBER = re.compile(_NUMBER_OPENING.format(levels="+"))
_ANY_ENTRY_NUMBER = re.compile(_NUMBER_OPENING.format(levels="*"))


def asked_subsections(question: str) -> str:
    """The number of the part whose sections the question asks for ("2.4"), else ""."""
    m = _SUBSECTIONS.search(question)
    return (m.group(1) or m.group(2)) if m else ""


def below_entry(parent: str, entry: str) -> bool:
    """Is the contents entry numbered anywhere below the entry `parent` ("8.1 | Box plots … 35" below
    "8 Real-world examples … 35")?"""
    m, n = _ANY_ENTRY_NUMBER.match(parent), _ENTRY_NUMBER.match(entry)
    return bool(m and n) and n.group(1).lower().startswith(m.group(1).lower() + ".")


def subsection_of(parent: str, entry: str) -> bool:
    """Is the contents entry numbered one level below `parent` ("2.4.1 | Rings … 7" of "2.4")?"""
    m = _ENTRY_NUMBER.match(entry)
    return bool(m) and m.group(1).lower().startswith(parent.lower() + ".") and \
        m.group(1).count(".") == parent.count(".") + 1


# A list of tables (figures, algorithms) numbers its entries by that kind ("Table 3 | Widget
# sizes … 14", the word broken by the layout: "T able 5: …"); a section's entry by its number
# alone. The kind asked for is the first one the question names: "the section on sorting
# *algorithms*" asks for a section.
# (a list whose layout broke sets the number first: "39 Algorithm | MakeHint(z, r) … 41")
_ENTRY_KIND = re.compile(r"[ \t|]*(?:\d{1,3}[ \t]+(?=\w+[ \t]*\|))?"
                         r"(t\s?able|f\s?igure|fig\.|a\s?lgorithm)s?(?:\b|(?<=\.))", re.I)
# A chapter's entry is numbered by one number ("7 Reporting Problems … 88"), its sections' by more
# ("5.2.1.3 Problem Fixes … 61"): "on which page does the chapter on problems start?" asks for the
# first.
_CHAPTER_ENTRY = re.compile(r"[ \t|]*(?:Chapter\s+)?\d{1,2}\.?[ \t|]+[^\d\s.]")
_ASKS_KIND = re.compile(r"\b(chapter|(?:sub)?section|appendi(?:x|ces)|table|figure|algorithm)s?\b", re.I)


_AND = re.compile(r"\band\b", re.I)


def joins_things(question: str) -> bool:
    """Does the question join things by "and" ("on which pages are X and Y?")? Then one contents
    entry, or one list, may hold only the first."""
    return bool(_AND.search(question))


# Two things asked in one phrase: "which category and subcategory …", "what title and DOI …",
# "what are the category and the subcategory of X?"
_JOINED = re.compile(r"\b(?:which|what)\s+(?:(?:is|are)\s+)?(?:the\s+|its\s+)?([A-Za-z][\w-]*)\s+and\s+"
                     r"(?:the\s+|its\s+|which\s+|what\s+)?([A-Za-z][\w-]*)\b", re.I)


def joined_words(question: str) -> tuple[str, ...]:
    """The two words a question joins by "and" right after its "which"/"what" ("category",
    "subcategory"): a passage stating one answers half of it, and a title page sets them on lines
    of their own."""
    m = _JOINED.search(question)
    if m is None or any(w.lower() in function_words() for w in m.groups()):
        return ()
    return m.groups()


def asked_part_kind(question: str) -> str:
    """The kind of numbered part a question asks for ("chapter", "section", "table", …; "")."""
    m = _ASKS_KIND.search(question)
    return m.group(1).lower() if m else ""


def entry_of_kind(kind: str, entry: str) -> bool:
    """Whether a contents entry is of the kind of part asked for (`asked_part_kind`; "": any): a
    chapter's, a table's (figure's, algorithm's), or a section's (no table's or figure's)."""
    if not kind:
        return True
    entry = page_last(entry)
    if kind == "chapter":
        return bool(_CHAPTER_ENTRY.match(entry))
    m = _ENTRY_KIND.match(entry)
    if kind in ("table", "figure", "algorithm"):
        return bool(m) and m.group(1).lower().replace(" ", "").replace("fig.", "figure") == kind
    return not m and bool(_NUMBERED_ROW.match(entry))  # a section or an appendix (an index's term numbers none)


def names_part(kind: str, text: str) -> bool:
    """Does prose name a part of the kind by its number ("… is covered in Chapter 11 of this
    document")? Such a cross-reference says which chapter covers a thing when no contents entry
    is at hand."""
    return re.search(rf"\b{kind}\s+(?:\d{{1,3}}|[A-Z])\b", text, re.I) is not None


def at_asked_level(question: str, entries: list[str]) -> list[str]:
    """The contents entries of the level and kind the question asks for (none when the list holds
    none; all when it names no kind of part)."""
    kind = asked_part_kind(question)
    return [e for e in entries if entry_of_kind(kind, e)]


def mended_contents(text: str) -> str:
    """The text's contents entries with their broken words joined (both ways: with and without the
    letter before the break), for the checks that the cited text states the question's words."""
    return "\n".join(v for e in contents_entries(text) for v in entry_forms(e)[1:])


def best_form_score(score: Callable[[str], float], entry: str) -> float:
    """An entry's share of the question's terms in its best form (`entry_forms`: "Para | meter"
    read whole)."""
    return max(score(v) for v in entry_forms(entry))


def label_scored(score: Callable[[str], float], anchors: tuple[str, ...] | list[str]) -> Callable[[str], float]:
    """The entry scorer, with an entry of the section or appendix a question names by number
    scoring in full: "On which page does Appendix B begin?" names the part by its label, which
    no term share can find ("Append | ix B — SampleNTT Loop Bounds | 46" holds no asked word).
    Any other entry is some other part: its share counts half (with the label set apart, "On
    which page does Section 4 start?" has no term left, and every entry held all of none)."""
    named = _named_labels(anchors)
    if not named:
        return score

    def scored(form: str) -> float:  # (called on each form by `best_form_score`)
        return 1.0 if _opens_with(named, form) else UNLABELLED_SHARE * score(form)

    return scored


def opens_with_label(anchors: tuple[str, ...] | list[str], entry: str) -> bool:
    """Whether the entry, in any of its forms, is the section or appendix an anchor names by
    number ("appendix b": "Append | ix B — SampleNTT Loop Bounds | 46")."""
    named = _named_labels(anchors)
    return bool(named) and any(_opens_with(named, form) for form in entry_forms(entry))


def _opens_with(named: list[str], form: str) -> bool:
    """One form of an entry opens with a named label (read under its list's heading, "… Table of
    Contents 4 Auxiliary Alg | orithms | 18", it opens at its first label); a table's, figure's or
    algorithm's with its kind word ("T able 7: Hash functions … 16")."""
    row = _ENTRY_CELLS.sub(" ", form).strip()
    label = _FIRST_LABEL.search(row)
    rows = [row, row[label.start():]] if label else [row]
    return any(in_section(a, rows) if a.partition(" ")[0] in _SECTIONS else _opens_with_kind(a, row) for a in named)


def _opens_with_kind(anchor: str, row: str) -> bool:
    """The row opens with the anchor's kind word and label ("table 7": "T able 7: Hash …")."""
    kind, _, label = anchor.partition(" ")
    return re.match(rf"{kind_word(kind)}\s+{re.escape(label)}\b", row, re.I) is not None


def _named_labels(anchors: tuple[str, ...] | list[str]) -> list[str]:
    return [a for a in anchors if a.partition(" ")[0] in (*_SECTIONS, "table", "figure", "algorithm")]


_SECTIONS = ("section", "appendix")


def kind_word(kind: str) -> str:
    """A numbered part's kind word as a layout may write it: broken after its first letter ("T able"),
    a figure's abbreviated ("Fig.")."""
    return r"f ?ig(?:ure|\.)?" if kind == "figure" else rf"{kind[0]} ?{kind[1:]}"


_ENTRY_CELLS = re.compile(r"[\s|]+")
_FIRST_LABEL = re.compile(r"(?<=\s)(?:\d|(?:section|appendix)\s)", re.I)
UNLABELLED_SHARE = 0.5


def entry_forms(entry: str) -> tuple[str, ...]:
    """An entry as written, then with its broken words joined both ways ("8 Para | meter Sets | 39"
    → "8 Parameter Sets | 39"), or with its page read last (". . . 99 10.2 Modifying X" → "10.2
    Modifying X … 99"): an entry is scored, and its kind and label read, in its best form."""
    last = page_last(entry)
    if last != entry:
        return (entry, last)
    if not _BROKEN_WORD.search(entry):
        return (entry,)
    return (entry, _BROKEN_WORD.sub(lambda m: m.group(1) or "", entry), _BROKEN_WORD.sub("", entry))

# What a unit of each answer type shows.
CUES: dict[str, re.Pattern[str]] = {
    "money": re.compile(r"[$€£¥]\s?\d|\b\d[\d,.]*\s?(?:USD|EUR|GBP|dollars?|euros?|pounds?|cents?)\b|"
                        r"\b(?:free of charge|no charge|at no cost|for free|is free)\b", re.I),
    "duration": re.compile(r"\b\d[\d,.]*\s?(?:ms|µs|ns|milliseconds?|microseconds?|nanoseconds?|s|secs?|seconds?|"
                           r"mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?)\b|"
                           r"\b(?:instantly|immediately|a few (?:seconds|minutes))\b|"
                           # … or counted in words ("over a decade", "two years")
                           rf"\b(?:a|an|several|many|{NUMBER_WORD})\s+(?:decades?|centur(?:y|ies)|years?|months?|weeks?|"
                           r"days?|hours?|minutes?)\b", re.I),  # ("a second" is most often an ordinal)
    "limit": re.compile(r"\b(?:maximum|minimum|max|min|at most|at least|up to|limit|limits|limited|no more than|"
                        r"no less than|exceeds?|exceeded|exceeding|upper bound|lower bound|largest|smallest|highest|"
                        r"lowest)\b|[≤≥]|"
                        r"\bbetween\s+-?\d[\d,.]*\s+and\s+-?\d", re.I),  # … or a range ("between 1 and 4194303")
    "rate": re.compile(rf"{_PER_TIME}|\bper (?:s|sec|min)\b|\b\d[\d,.]*\s?(?:[a-z]+/s|/s(?:ec)?|Hz|kHz|MHz|GHz)\b|"
                       r"\b(?:times|cycles) (?:a|an|each) \w+", re.I),
    "number": re.compile(r"\d"),
    "count": _COUNT_OF_NOUN,  # "X uses two parameters"
    "frequency": re.compile(r"\bevery\b|\b(?:once|twice|daily|weekly|monthly|yearly|annually|hourly|periodically|"
                            r"whenever|each time|always|regularly)\b|"
                            # … or in space ("at a uniform distance along the contour", "at intervals")
                            r"\b(?:uniform|regular|fixed|equal) (?:distances?|intervals?|spacing)\b|\bintervals?\b|"
                            rf"\b(?:times|once) (?:a|an|per|each)\b|{_PER_TIME}", re.I),
    # a month's name or its abbreviation, not any word it begins ("decapsulation", "novel", "mark"),
    # and "May" only capitalised (the modal verb is not a date)
    "date": re.compile(r"\b(?:1[89]|20)\d\d\b|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|june?|july?|"
                       r"aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b|(?-i:\bMay\b)", re.I),
    "reason": re.compile(r"\b(because|since|due to|so that|in order to|therefore|reasons?|thus|as a result|"
                         r"avoids?|prevents?|ensures?|allows?|motivation|motivated|rationale|purpose)\b", re.I),
    # items between commas, numbered names, an announcing colon, or "a, b or c"
    "list": re.compile(r",[^,]+,|(?:[A-Za-z][\w-]*\d[\w-]*\W+){2,}|:\s*$|,[^,.;]+\b(?:or|and)\b"),
    # a name written as code: camelCase, snake_case, a macro, an option, a ..variable.., a call
    "code": re.compile(r"\b[a-z]+[A-Z]\w*|\b[A-Za-z]+_\w+|\\[A-Za-z]+|(?<!\S)--?[a-z][\w-]*|"
                       r"\.\.\w+\.\.|\b\w+\(\)|<mark>|\b[A-Z][a-z]+[A-Z]\w*\s?\("),
    # a version's number as written, or a version named by its place ("any later version")
    "version": re.compile(r"\bv\.?\s?\d+(?:\.\d+)*\b|\bversion\s+\d|(?<![\w.])\d+\.\d+\.\d+\b|"
                          r"\b(?:any|latest|later|earlier|current|newer|older|previous|next)\s+versions?\b", re.I),
    # "on which page …": a contents entry, which gives the page a section starts on
    "page": CONTENTS_ROW,
    "citation": _REFERENCE_CUE,
    "title": _REFERENCE_CUE,  # a cited work's title stands in its entry
    # a range of an algorithm's steps or lines, or one ("steps 3-7", "lines 10 through 13", "line 6")
    "lines": re.compile(r"\b(?:lines?|steps?)\s+\d{1,3}\b(?:\s*(?:-|–|through|to|and)\s*\d{1,3}\b)?", re.I),
    # a numbered title ("10.2.2 Key Generation", "A.3 Examples") or a named part ("Table 4", "Section 3.1")
    # … or a section of a code of law, as citations write one ("40 U.S.C. 11331", "§ 552")
    "locator": re.compile(r"(?m)^\s*(?:\d{1,2}(?:\.\d{1,3})*\.?|[A-Z](?:\.\d{1,3})+)\s+[A-Z][a-z]|"
                          r"\b(?:Section|Chapter|Appendix|Annex|Table|Figure)\s+(?:[A-Z]|\d{1,3})(?:\.\d{1,3})*\b|"
                          r"\b\d{1,3}\s+(?:[A-Z]\.){2,4}\s*§?\s*\d+|§\s*\d+"),
    # a document named by its series and number: "RFC 8446", "(TR) 101-2", "ISO 9001"
    "document": re.compile(r"\b[A-Z]{2,6}\)?\s?\d{2,5}(?:-\d+[A-Za-z]?)*\b"),
    # an e-mail address
    "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    # a web or IP address (a PDF's text may space out "https: //"; a bare domain ends on a common
    # top-level name)
    "address": re.compile(r"\bhttps?:\s?//\S+|\bwww\.\S+|\b\d{1,3}(?:\.\d{1,3}){3}\b|"
                          r"\b[\w-]+(?:\.[\w-]+)*\.(?:org|com|net|gov|edu|int|io)\b"),
    # a package, library or module named by the line loading it ("import numpy as np", "from x
    # import y", "sudo apt-get install msmtp", "\\usepackage{x}"): manuals show these far more often
    # than they call the thing a package
    "package": re.compile(r"(?m)(?:^|<mark>|>>>)\s*(?:from\s+[\w.]+\s+)?import\s+[\w.]+|"
                          r"\b(?:apt-get|apt|pip3?|yum|dnf|brew|conda|npm|tlmgr)\s+install\s+\w|\\usepackage\b"),
    # a clause setting a condition
    "condition": re.compile(r"\b(?:if|when|whenever|unless|provided|as long as|only when|in case)\b", re.I),
    "procedure": re.compile(r"\\\w|`|\(\)|<mark>|\b(run|type|use|call|install|click|choose|select|command|"
                            r"make|create|add|set|enter|open)\b", re.I),
}

# A question asking what holds when nothing is chosen: "by default", "the default X", "when no mode
# is defined" (not "which command sets a default X", which asks for the command).
_ASKS_DEFAULT = re.compile(r"\bby default\b|\b(?:the|its|their|a) default\b|\b(?:when|if) no \w+ (?:is|are) \w+ed\b",
                           re.I)
_SETS_DEFAULT = re.compile(r"\bsets? (?:a|the) default\b", re.I)
# How a text states such a default: "by default", "the default is", "defaults to", "initially",
# "normally", "without any mode definition, …", "unless …", "if none is given".
_STATES_DEFAULT = re.compile(r"\bby default\b|\bdefaults?\b|\binitially\b|\bnormally\b|\bwithout (?:any|an?)\b|"
                             r"\bunless\b|\bif (?:none|nothing|no)\b", re.I)


def asks_default(question: str) -> bool:
    """Does the question (or part) ask for what holds by default?"""
    return bool(_ASKS_DEFAULT.search(question)) and not _SETS_DEFAULT.search(question)


def states_a_default(text: str) -> bool:
    """Does the text state what holds by default, anywhere in it? (`units.states_default` asks the
    narrower thing: whether a unit opens by stating the default of the setting before it.)"""
    return bool(_STATES_DEFAULT.search(text))


# Prepositions that may open a question ("over which range …", "in what year …"), as an alternation.
PREPOSITION_ALTERNATION = ("in|on|for|at|from|by|to|with|through|via|under|into|about|during|after|before|over|of|"
                           "against|between|within|across")
# A wh-phrase opening on a preposition ("in which year", "from what source"), as an alternation's part.
PREPOSITIONAL_WH = rf"(?:{PREPOSITION_ALTERNATION})\s+(?:which|what)\s+[a-z]+"
# A question's parts are joined by "and"/"also"/";" before a new question word.
_PART_SPLIT = re.compile(
    r"\s*(?:,?\s+and\s+(?:also\s+)?|;\s*|\?\s+)"
    rf"(?=(?:(?:{PREPOSITION_ALTERNATION}) (?:what|which)\b|what|which|how|why|when|where|who|whom|whose|is|are|"
    r"does|do|did|can|should|must|say|list|give|"
    r"name|explain|state)\b)", re.I)
# Numbers, years, versions and document numbers ("2031", "9.7", "4.10.2", "800-208").
_YEAR_OR_NUMBER = re.compile(r"(?<![\w.-])\d+(?:[.,]\d+)*(?:-\d+)*(?![\w-])")


_WH = re.compile(r"\b(what|which|how many|how much|who)\s+", re.I)
# Prepositions the tokenizer keeps as words (they carry meaning in a search) that end a noun phrase
# as "of" does, after its head: "which file ending *besides* .ttf", "which options *except* --x".
_PREPOSITIONS = frozenset("besides beside except excluding including beyond without among across along around "
                          "behind below above beneath toward towards unlike versus despite inside outside near "
                          "until per".split())
# Heads that ask for no particular thing ("what kind of", "how many times"). A cause or reason
# is stated by a relation ("… a result of X", "because X"), an operation by its name or verb
# ("Bob performs X.Generate", "the scaling comes first"), rarely by the word.
_EMPTY_HEADS = frozenset(stem(w) for w in "kind type sort one way thing part times unit option difference step purpose "
                         "role meaning cause reason operation".split())
# Words asking for a kind of the noun after "of" ("what kind of attacks" asks for attacks).
_KIND_WORDS = frozenset("kind kinds type types sort sorts".split())
# Adverbs right after the question word ask for no thing ("what else", "what exactly").
# Adjectives of degree after a counted noun: "how many pages long" counts pages.
_DEGREE_WORDS = frozenset("long wide high deep tall old large big thick heavy".split())
_ADVERBS = frozenset("else exactly precisely actually really specifically roughly approximately typically "
                     "usually generally".split())
_COPULA = frozenset("is are was were".split())
_COUNT_WORDS = frozenset(NUMBER_WORDS) | {"several", "many", "few"}
# Heads that name an answer type: the answer shows the type's cue instead of the word.
_TYPED_HEADS = {**dict.fromkeys("date dates day days year years month months".split(), "date"),
                # "on which page does X start" by a contents entry ("4.3 The Transform . . . 24")
                "page": "page",
                **dict.fromkeys("size sizes length lengths value values number numbers count amount bytes bits "
                                "percent percentage".split(), "number"),
                # "which method/macro/option …" is answered by a name written as code ("getWidth",
                # "\\mymacro", "--quiet", "..width.."), whether or not the text says "method"
                **dict.fromkeys("method methods function functions macro macros keyword keywords variable "
                                "variables option options flag flags".split(), "code"),
                # "which publication/standard …" is answered by a document's number ("RFC 8446")
                **dict.fromkeys("publication publications standard standards specification "
                                "specifications".split(), "document"),
                # "which paper/article/journal …" by an entry of a reference list ("[25] Name A (2016) …")
                **dict.fromkeys("paper papers article articles journal journals conference conferences "
                                "proceedings venue venues symposium workshop".split(), "citation"),
                # "what is the title of X" by X's entry in a reference list (which never says "title")
                **dict.fromkeys("title titles".split(), "title"),
                # "which version …" by a version's number as written ("v.3.1", "2.6.0", "version 4")
                **dict.fromkeys("version versions".split(), "version"),
                # "which section/table …" by a numbered title or a named part ("10.2 Key Generation")
                **dict.fromkeys(LOCATOR_HEADS, "locator"),
                # "which package/library …" by the line loading it ("import numpy", "apt-get install x")
                **dict.fromkeys("package packages library libraries module modules".split(), "package"),
                # "which URL / website …" by the address itself ("Available at https://…")
                **dict.fromkeys("url urls website websites".split(), "address"),
                # "under what condition …" by a clause that sets one ("… is secure if X is hard")
                **dict.fromkeys("condition conditions circumstance circumstances".split(), "condition")}
# Settings an object has, named in code ("minimumTickSpacing") as often as the text calls them so,
# commands, shown as a manual sets its code ("<mark>sudo ln -s …</mark>", "--quiet", "f()"), and classes
# and methods ("… use reportlab.pdfbase.ttfonts.TTFont to create …"); untyped heads otherwise (a
# passage saying "attribute" or "command" states one too). (Not "function": a standard's functions
# are named as prose names them, "SHA-256".)
_CODE_NAMED = frozenset("attribute attributes property properties command commands class classes method methods"
                        .split())
# The kinds of named member a software manual documents ("the write contour *command*", "the
# rect *method*"): a name's kind word, which a contents entry or an API entry seldom writes.
MEMBER_KINDS = ("property|attribute|option|parameter|argument|field|method|command|function|flag|variable|setting"
                "|macro|keyword|operator")
# A direction as English states one, whatever it calls it: a word for one ("down", "clockwise",
# "outward") or a way from one end to the other ("from the sender to the receiver", "left to right").
_DIRECTION = re.compile(r"\b(?:up|down|upwards?|downwards?|left|right|leftwards?|rightwards?|forwards?|backwards?|"
                        r"inwards?|outwards?|clockwise|counter-?clockwise|anti-?clockwise|ascending|descending|"
                        r"north|south|east|west)\b|\bfrom\s+(?:the\s+|a\s+|an\s+)?[\w-]+(?:\s+[\w-]+)?\s+to\s+\w",
                        re.I)
# Bits or bytes named by their place ("the leftmost bits", "the least significant 8 bytes"): which
# of them, as "which bits of X …" asks.
_PLACED_BITS = re.compile(r"\b(?:leftmost|rightmost|initial|final|first|last|high-order|low-order|"
                          r"(?:least|most)\s+significant)\W+(?:[\w.,]+\W+){0,3}?(?:bits?|bytes?)\b", re.I)
# Words for a short form: the answer states one by spelling an acronym out, whatever it calls it.
_SHORT_FORMS = frozenset({"acronym", "abbreviation", "initialism"})
# A reference-list entry: a bracketed label (some lists put a colon after it: "[ABC10]: Name A …"),
# then authors and a year in parentheses.
_ENTRY_LABEL = r"\[[\w.+-]{1,12}\]:?\s+"
REFERENCE_ENTRY = re.compile(rf"^(?:[-*•]\s+)?{_ENTRY_LABEL}[^|]*\(\d{{4}}[a-z]?\)")
# Kinds an answer states by a form of their own rather than by their word, by stem: an edition
# as a reference list abbreviates it ("3rd Ed."), arguments as a call lists them, a direction.
_KIND_FORMS = {"edition": re.compile(r"\b\d+(?:st|nd|rd|th)\s+ed\b", re.I),
               # "which authors does reference [23] list?" → "[23] Lee A, Ng B (2022) …": an answer
               # opening with an entry states its authors by their place, before the year
               "author": REFERENCE_ENTRY,
               # "which arguments does f take?" → "f(x, y, r)": a call's list states its arguments
               "argument": re.compile(r"[\w.]\(\s*[\w*.='\"]+(?:\s*,\s*[\w*.='\"]+)+\s*\)"),
               # "in which direction …" → "… moves down", "from the encapsulator to the decapsulator"
               "direction": _DIRECTION}
# Kinds a manual calls by several names: a text calling a thing a "command" names the "function"
# asked about ("patterned after the unix command getenv"), a "script" names a "language" ("a perl
# script"). General software English, not any corpus's vocabulary.
_KIND_FAMILIES = (frozenset("function functions command commands routine routines subroutine subroutines "
                            "procedure procedures method methods macro macros algorithm algorithms".split()),
                  frozenset("language languages script scripts".split()),
                  frozenset("setting settings option options parameter parameters".split()),
                  frozenset("tool tools program programs utility utilities".split()))
_KIN = {w: family for family in _KIND_FAMILIES for w in family}


def kin(word: str) -> tuple[str, ...]:
    """The word and the other names of the kind it names."""
    low = word.lower()
    return (word, *sorted(_KIN.get(low, frozenset()) - {low}))


# An "address" is typed only as an e-mail, web or IP address ("to which e-mail address …" is answered
# by "… addressed to: x@y.org"); a bare "address" may be a data structure ("which address does X set").


def reference_marks(question: str) -> tuple[str, ...]:
    """The numbers of the references a question names by their marks ("[25]" → "25")."""
    return tuple(dict.fromkeys(REFERENCE_MARK.findall(question)))


# The opening of a reference list's entry by its numbered mark ("- [25] Robert D …"), group 1
_LISTED_MARK = re.compile(r"^[ \t]*(?:[-*•][ \t]+)?\[(\d{1,3})\]:?[ \t]+\S", re.M)


def listed_marks(text: str) -> list[str]:
    """The marks of the reference-list entries the text holds (lines opening "[25] Name A …"),
    not those of citations in its sentences ("… was broken [25].")."""
    return _LISTED_MARK.findall(text)


def lists_reference(mark: str, text: str) -> bool:
    """Does the text hold the reference list's entry for the mark?"""
    return mark in listed_marks(text)


def entry_mark(text: str) -> str | None:
    """The mark of the reference-list entry the text opens with ("[25] Robert D …" → "25")."""
    m = _LISTED_MARK.match(text)
    return m.group(1) if m else None


# … anywhere in an answer, up to the next bracket (a citation marker or the next entry): its
# authors and year, then its title (group 1)
_ENTRY_TITLE = re.compile(rf"{_ENTRY_LABEL}[^|\[]{{0,200}}?\(\d{{4}}[a-z]?\)([^\[]{{3,300}})")
# The events a reference-list entry states by its form: its authors wrote (or posted, for a message
# to a forum) and its venue published it, and the document listing it cites the work (see
# `action_stated`); and the work whose title names a thing introduced or proposed it ("which paper
# introduced X" → "[10] Name A (2009) X: …").
_BIBLIOGRAPHIC_EVENTS = frozenset("write author publish appear cite introduce propose post".split())
# The events a title page's byline states by its form: who wrote (prepared, produced) the document,
# and the unit its authors belong to.
_BYLINE_EVENTS = frozenset("write author prepare produce issue publish develop belong".split())
# A copyright notice ("Copyright © 2008-2022 Ann Lee", "Copyright (C) 1989 Widget Inc."): it states
# who holds (owns) the rights without the verb (see `action_stated`).
COPYRIGHT_NOTICE = re.compile(r"^Copyright\s*(?:©|\(C\)|⃝\s*c)?\s*(?:19|20)\d\d\b.*\b[A-Z]", re.I | re.M)
_HOLDING_EVENTS = frozenset(("hold", "own"))
# The event a change log's dated version title states by its form (see `action_stated`).
_RELEASE_EVENTS = frozenset(("release",))
# A section title an answer line is restated under ("4.2.1 Version 3.1.4 [2019 Jun 2]: …").
_DATED_TITLE = re.compile(r"^([^\n:]{3,80}\]?):\s", re.M)
# Answer types a text states by their form ("x@y.org", "https://…"), seldom with the words a
# question asks for them with ("to which e-mail address …").
STATED_BY_FORM = frozenset(("email", "address"))
_ADDRESS_KINDS = {"email": "email", "e-mail": "email", "mail": "email", "web": "address", "ip": "address"}


@dataclass(frozen=True)
class Head:
    word: str
    type: str = ""  # an answer type whose cue stands in for the word
    # the words before it in its noun phrase ("quantum key distribution" of "… protocol")
    modifiers: tuple[str, ...] = field(default=(), compare=False)
    # other words the phrase may have as its head, when the verb ending it is ambiguous
    alternatives: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Part:
    text: str
    types: tuple[str, ...]
    topic: str = ""  # the side of a comparison this part is about


@dataclass(frozen=True)
class Asked:
    parts: tuple[Part, ...]
    focus: tuple[str, ...]
    acronym: str = ""  # what an expansion question asks to spell out

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t for p in self.parts for t in p.types))

    @property
    def multi(self) -> bool:
        return len(self.parts) > 1


def answer_types(text: str) -> tuple[str, ...]:
    t = text.strip()
    types = tuple(n for n, rx in TYPES.items() if rx.search(t))
    # ("which lines of X …" asks for the lines' numbers, not a list of things)
    return tuple(n for n in types if n != "list") if "lines" in types else types


_QUANTITY = {"money": "an amount of money", "duration": "a duration", "limit": "a limit (maximum or minimum)",
             "rate": "a rate (per unit of time)", "frequency": "a frequency"}


def unshown_quantities(question: str, answer_text: str) -> list[str]:
    """The fixed-unit quantities (money, duration, a limit) a question asks for that the answer
    never shows: a price question answered with a version number, or a maximum answered with a
    count of something else, is about something else. The quantity counts only in a sentence that
    also names something the question names besides the quantity's own words: "The label has a
    maximum length of 255 bytes" does not show the maximum size of a message. A count ("how many
    glyphs …") shows as a number next to the counted thing."""
    sentences = split_cited(answer_text)
    out = []
    strict = False
    for kind, rx in STRICT.items():
        if not rx.search(question):
            continue
        strict = True
        own = token_set(question) - token_set(" ".join(m.group(0) for m in CUES[kind].finditer(question)))
        # "what is the maximum X?" asks for the limit's value: a sentence saying that some other
        # thing is "at least λ bits" strong, beside the name of a standard, states no such value
        valued = kind == "limit" and _ASKS_LIMIT_VALUE.search(question) is not None
        if not any(CUES[kind].search(s) and (not own or token_set(s) & own) and (not valued or states_value(s))
                   for s in sentences):
            out.append(_QUANTITY[kind])
    # (a count with a fixed unit, "how many signatures per second", is the strict kind's to check)
    counted = "" if strict else _count_head(question)
    if counted and not _count_shown(counted, sentences):
        out.append(f"a count of {counted}")
    return out


# A document's stance on a thing, asked by a do-question's verb ("which X does DOC *recommend*",
# "does the tool *require* …"), and the words that state it: a recommendation by "should" or
# "recommended", a requirement by "shall", "must" or "needs", an approval or a permission by
# "approved", "may" or "allowed", a prohibition by a negation. A passage about the same thing that
# states no stance ("A KEM can be combined with …") does not say what is recommended. "suggest"
# and "advise" are left out: manuals suggest by an imperative ("use awk to …").
_STANCES = {
    "recommendation": ("recommend", r"\bshould\b|\brecommend|\bencourag|\badvis|\bprefer|\bsuggest"),
    "requirement": ("require mandate", r"\bshall\b|\bmust\b|\brequir|\bmandat|\bneeds?\b|\bha(?:s|ve) to\b|"
                                         r"\bonly\b|\bdepends? on\b"),
    "approval": ("approve", r"\bapprov|\bshall\b|\bmay\b|\ballow|\bpermi|\bacceptable\b"),
    "permission": ("permit allow", r"\bmay\b|\bcan\b|\bpermi|\ballow|\bacceptable\b|\bapprov|\blets?\b|\benabl"),
    "prohibition": ("prohibit forbid disallow", r"\bnot\b|\bprohibit|\bforbid|\bdisallow|\bno\b"),
}
_STANCE_VERB = {v: kind for kind, (verbs, _) in _STANCES.items() for v in verbs.split()}
_STANCE_CUE = {kind: re.compile(cue, re.I) for kind, (_, cue) in _STANCES.items()}
_STANCE_ASKED = re.compile(r"\b(?:does|do|did|will|would)\s+(?:[^?,;]*?\s)?(" + "|".join(_STANCE_VERB) + r")\b",
                           re.I)
# "how much memory does X require" asks for a quantity, whatever words state it
_ASKS_QUANTITY = re.compile(r"\bhow (?:many|much|long|large|big|often|small)\b", re.I)


def unshown_stance(question: str, answer_text: str) -> list[str]:
    """The stance a question asks a document or tool to take ("which parameter set does DOC
    *recommend*") when the answer states none: a related passage on the same thing that neither
    recommends, requires, approves nor forbids anything is not what the question asks. Checked on
    the answer's own sentences, in one naming something the question names besides the verb: a
    stance on another thing ("X recommends line widths of …" for a grid size) does not count."""
    m = _STANCE_ASKED.search(question)
    if not m or _ASKS_QUANTITY.search(question):
        return []
    kind = _STANCE_VERB[m.group(1).lower()]
    own = token_set(question) - token_set(m.group(1))
    if any(_STANCE_CUE[kind].search(s) and token_set(s) & own for s in split_cited(answer_text)):
        return []
    return [f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"]


def contradicted_counts(question: str, answer_text: str) -> list[str]:
    """The counts a question states ("which property joins *three axes*") that the answer
    contradicts: it writes another number right before the same noun ("… join *two* of them",
    "placed in *two columns*") and never the asked one. A question built on a wrong count is about
    something the documents do not describe. Counts asked for ("how many …") are not stated."""
    plain = strip_citations(answer_text)
    out = []
    for m in _COUNT_OF_NOUN.finditer(question):  # "which *three axes* …": a count the question states
        if re.search(r"\bhow\s+many\s*$", question[: m.start()], re.I):
            continue
        asked_n, noun = NUMBER_WORDS[m.group(1).lower()], m.group(2).split()[-1]
        stem_ = re.escape(noun[:-1])
        said = [w.lower() for w in re.findall(rf"\b(\d+|{NUMBER_WORD})\s+(?:[a-z][a-z-]*\s+)?{stem_}s?\b",
                                              plain, re.I)]
        values = {int(w) if w.isdigit() else NUMBER_WORDS[w] for w in said}
        if values and asked_n not in values:
            out.append(f"{m.group(0)} (the answer states {', '.join(sorted(set(said)))})")
    return out


# "security level 5", "base 10", "version 2.6": a noun labelled by the number after it. Not a
# document part, a step or a line (their own drafts find them by number), nor a name's number.
_LABELLED_BY_NUMBER = re.compile(r"\b([a-z]{3,})\s+(\d+(?:\.\d+)*)\b(?![.-]\d)")
_NOT_LABELS = LOCATOR_HEADS | frozenset("page pages line lines step steps algorithm example equation item part "
                                        "reference note footnote".split())


def contradicted_labels(question: str, answer_text: str, evidence_text: str = "") -> list[str]:
    """The numbered labels a question states ("… for BIKE at *security level 5*?", "the *base 10*
    logarithm") that the answer contradicts: it labels the same noun with other numbers ("BIKE
    security level 1 block lengths", "The base 2 logarithm") and neither it nor the evidence it
    cites (a heading: "Version 2.12.5") with the asked one, alone or in a list ("levels 1, 3, and
    5"). The documents describe a sibling of what is asked, not it."""
    plain = strip_citations(answer_text)
    out = []
    for m in _LABELLED_BY_NUMBER.finditer(question):
        noun, number = m.group(1).lower(), m.group(2)
        if noun in _NOT_LABELS or noun in STOPWORDS:
            continue
        stem_ = re.escape(noun[:-1] if noun.endswith("s") else noun)
        # (a PDF's text may drop the space: "{rpn0argv}")
        listed = rf"\b{stem_}s?\s*(?:\d+(?:\.\d+)*(?:\s*(?:,|and|or|to|through|–|-))+\s*)*"
        if any(re.search(listed + rf"{re.escape(number)}(?![\d.])", t, re.I) for t in (plain, evidence_text)):
            continue
        others = {n for n in re.findall(rf"\b{stem_}s?\s+(\d+(?:\.\d+)*)\b", plain, re.I) if n != number}
        if others:
            out.append(f"{m.group(0)} (the answer states {noun} {', '.join(sorted(others))})")
    return out


_HOW_MANY = re.compile(r"\bhow many\s+((?:[A-Za-z][\w+-]*\s+){0,2}[A-Za-z][\w+-]*)", re.I)
# A count as English writes it: a number standing alone (not the "1" of "Mark-1" or "ABC-256"), or a
# number word or a word for a small or no number before the counted noun.
_COUNT_DIGIT = re.compile(r"(?<![\w-])\d")
_COUNTING_WORDS = _COUNT_WORDS | frozenset(
    "one eleven twelve once twice single both multiple no none zero dozen dozens hundred hundreds thousand thousands "
    "million millions".split())
_BRACKET_REFERENCE = re.compile(r"\[\d{1,3}(?:[,–-]\s?\d{1,3})*\]")


# "What is the maximum X?", "what's X's minimum Y?": the limit is the thing asked for.
_ASKS_LIMIT_VALUE = re.compile(r"^\s*what(?:'s|\s+is|\s+are)\s+(?:the\s+|its\s+|their\s+|a\s+)?(?:[\w.+-]+'s\s+)?"
                               r"(?:maximum|minimum)\b", re.I)
# What states no value: a name's number ("FIPS 180", "Table 4", "Section 5.4"), a year, a footnote
# mark ("^6"), a bracketed reference.
_NOT_A_VALUE = re.compile(r"\b[A-Z][\w-]*\.?\s?\d[\d.-]*|\[[^\]]*\]|\b(?:1[89]|20)\d\d\b|\^\S+")
# (a number standing alone, as a count is written, or a number word)
_VALUE = re.compile(rf"{_COUNT_DIGIT.pattern}|\b(?:zero|one|{NUMBER_WORD}|eleven|twelve|hundred|thousand|million|"
                    r"single)\b", re.I)


def states_value(sentence: str) -> bool:
    """Does the sentence state a value: a number, in digits or words, that names nothing?"""
    return _VALUE.search(_NOT_A_VALUE.sub(" ", strip_citations(sentence))) is not None


def _count_head(question: str) -> str:
    """The plain noun "how many" asks a count of ("how many glyphs does X contain" → glyphs); ""
    for a typed head (bits, bytes: a size has its own cues), an empty one ("how many times") or
    none the question parser finds."""
    m = _HOW_MANY.search(question)
    if not m:
        return ""
    heads = {h.word.lower() for h in asked_heads(question) if not h.type}
    word = next((w for w in m.group(1).split() if w.lower() in heads), "")
    return "" if not word or stem(word.lower()) in _EMPTY_HEADS else word


def _counted_before(words: list[str], j: int) -> bool:
    """A counting word among the three words before words[j]; "as many X as" compares and "so/how
    many" stresses or asks: no count."""
    return any(words[k] in _COUNTING_WORDS and not (words[k] == "many" and k and words[k - 1] in ("as", "so", "how"))
               for k in range(max(0, j - 3), j))


# A footnote's mark as the build writes it, glued to the note's first word ("> 2The CMVP will …")
_FOOTNOTE_MARK = re.compile(r"(?:^|(?<=\s))>\s?\d{1,2}(?=[A-Z][a-z])", re.M)


def without_marks(text: str) -> str:
    """The text without what numbers a place rather than counts: citation markers, bracketed
    references ("decoder [38]") and footnote marks."""
    return _FOOTNOTE_MARK.sub(" ", _BRACKET_REFERENCE.sub(" ", strip_citations(text)))


def _count_shown(counted: str, sentences: list[str]) -> bool:
    """A count of the thing shows as a number in a sentence naming it, or in the sentence right
    after ("NameLines: number of lines in the box." then "Default is 2."); a bracketed reference
    ("decoder [38]") or a footnote's mark is no count. "Some fonts contain glyphs" next to an encoding's number does not
    say how many glyphs."""
    want = stem(counted.lower())
    for i, s in enumerate(sentences):
        # (words as written, a compound whole: "coordinate-wise" names no coordinates)
        words = re.findall(r"[a-z][\w-]*", s.lower())
        if want in {stem(w) for w in words}:
            near = [without_marks(t) for t in sentences[i:i + 2]]
            if any(_COUNT_DIGIT.search(t) for t in near):
                return True
            # a count in words is the thing's own only before it ("two pages from the same
            # student" counts pages; "one subject for all students" counts no students)
            if any(stem(w) == want and _counted_before(words, j) for j, w in enumerate(words)):
                return True
    return False


_SMALL = frozenset("of and the for a an to in on with by".split())


def expands(acronym: str, text: str) -> bool:
    """Does the text spell out the acronym: consecutive words whose initials (small words
    skipped or kept) give its letters? "FORS" ← "Forest Of Random Subsets". A word that
    capitalises a later letter gives that one ("eXtensible Markup Language" → XML)."""
    letters = [c.lower() for c in acronym if c.isalpha()]
    words = re.findall(r"[A-Za-z][\w'-]*", text)
    for i in range(len(words)):
        j, k = i, 0
        while j < len(words) and k < len(letters):
            w = words[j].lower()
            inner = [c.lower() for c in words[j][1:] if c.isupper()] if words[j][0].islower() else []
            if inner and letters[k:k + len(inner)] == inner:
                k += len(inner)
            elif w[0] == letters[k]:
                k += 1
                # a hyphenated word may give several letters ("Key-Encapsulation" → K, E)
                for piece in w.split("-")[1:]:
                    if k < len(letters) and piece[:1] == letters[k]:
                        k += 1
            elif w not in _SMALL:
                break
            j += 1
        if k == len(letters) and j - i >= 2:
            return True
    return False


# (a small letter between two capitals too: "PoP" for Proof of Possession, "IoT")
_ACRONYM_WORD = re.compile(r"[A-Z](?:[A-Z0-9]|[a-z](?=[A-Z]))*(?:[-^+][A-Z0-9]*)*\+?")


def spelled_acronyms(text: str) -> list[tuple[str, str]]:
    """(acronym, expansion) pairs a line states by juxtaposition: an acronym followed at once by
    the shortest run of words that spells it, as in a glossary table flattened into one line
    ("API Application Programming Interface … XML eXtensible Markup Language …")."""
    words = text.split()
    out: list[tuple[str, str]] = []
    for i, w in enumerate(words[:-2]):
        # the spelling starts at the word right after the acronym ("eXtensible" gives X)
        if (sum(c.isupper() for c in w) < 2 or not _ACRONYM_WORD.fullmatch(w)
                or not re.match(rf"{re.escape(w[0])}|[a-z]{re.escape(w[0])}", words[i + 1], re.I)):
            continue
        letters = sum(c.isalpha() for c in w)
        run = next((" ".join(words[i + 1:j]) for j in range(i + 3, min(len(words), i + 1 + 2 * letters) + 1)
                    if expands(w, " ".join(words[i + 1:j]))), None)
        if run:
            out.append((w, run.rstrip(".,;")))
    return out


def type_match(types: tuple[str, ...], text: str, acronym: str = "") -> float:
    """1 when the text shows a cue of one of the wanted types (or no checkable type is wanted:
    definitions and yes/no statements take too many shapes to check), else 0. An expansion is
    checked against the question's acronym when it names one."""
    checkable = [t for t in types if t in CUES or (t == "expansion" and acronym)]
    if not checkable:
        return 1.0
    return 1.0 if any(expands(acronym, text) if t == "expansion" else CUES[t].search(text)
                      for t in checkable) else 0.0


def acronym_of(question: str, identifiers: tuple[str, ...]) -> str:
    """The all-capitals name an expansion question asks about ("What does FORS stand for?")."""
    if not TYPES["expansion"].search(question):
        return ""
    caps = [i for i in identifiers if re.fullmatch(r"[A-Z][A-Z0-9]{1,9}", i.replace("-", ""))]
    return caps[0] if caps else ""


@lru_cache(maxsize=1024)
def asked_heads(question: str) -> tuple[Head, ...]:
    """The noun each "what/which X" or "how many/much X" phrase asks for: the last word of the
    noun phrase after "what"/"which" or "what is the" (English puts the head last: "license
    fee" → fee), the first after "how many" ("pages long" → pages). The phrase ends at an auxiliary verb, a
    function word or a name; a bare "what is …" has no head."""
    out: list[Head] = []
    for m in _WH.finditer(question):
        if _relative(question[: m.start()]):
            continue
        words: list[str] = []
        rest = question[m.end():].split()
        of_phrase = (len(rest) > 2 and m.group(1).lower() in ("what", "which", "who") and rest[0].lower() in _COPULA
                     and rest[1].lower() == "the")
        if m.group(1).lower() == "who" and not of_phrase:
            continue  # "who is the X of …" asks for X ("author", "chair"); "who wrote …" for no noun
        if of_phrase:
            rest = rest[2:]  # "what is the X of …" asks for X
        ended_by = ""
        alternatives: tuple[str, ...] = ()
        end = len(rest)  # where the phrase ended
        # a document named by its series and number before the noun modifies it ("which DOC 12
        # algorithm …"), as an acronym does
        if (len(rest) > 2 and ACRONYM.fullmatch(rest[0]) and re.fullmatch(r"\d[\w.-]*", rest[1])
                and rest[2].isalpha() and rest[2].islower() and rest[2] not in AUXILIARIES
                and rest[2] not in STOPWORDS):
            rest = rest[2:]
        for i, raw in enumerate(rest[:5]):
            w = raw.strip("?,.;:!")
            low = w.lower()
            if low in _ADVERBS and w == raw:
                continue  # "what else does X take", "what exactly is the size of X": no noun of its own
            if low == "such" and not words:
                continue  # "how many such tests …": the noun after it
            # an acronym opening the phrase before a lower-case noun modifies it ("which ABC vendors")
            acronym_modifier = (i == 0 and w == raw and ACRONYM.fullmatch(w) is not None and len(rest) > 1
                                and rest[1].strip("?,.;:!").isalpha() and rest[1].strip("?,.;:!").islower()
                                and rest[1].lower() not in AUXILIARIES and rest[1].lower() not in STOPWORDS)
            if not acronym_modifier and (
                    not w or low in AUXILIARIES or low in STOPWORDS or low in _PREPOSITIONS
                    or re.search(r"[A-Z0-9]", w[1:]) or (w[:1].isupper() and words)):
                ended_by = ("aux" if low in AUXILIARIES else "of" if low == "of" or low in _PREPOSITIONS
                            else "function" if low in STOPWORDS else "name")
                end = i
                break
            if words and low.endswith("ed") and len(low) > 4 and "-" not in low:  # "which Tool version added X"
                ended_by = "verb"
                break
            words.append(w)
            if w != raw:  # punctuation ends the phrase
                break
        # "which fee does …": the noun phrase ends at the auxiliary. Without one, the question word
        # is the subject and the phrase ends with its verb: "which browsers enable X" asks for
        # browsers, "what happens to …" for no noun.
        if not words:
            continue
        if m.group(1).lower().startswith("how"):
            # the noun ends a phrase an auxiliary closes ("how many gridding iterations do …"), unless a
            # degree word follows it ("how many pages long is …"); with no auxiliary the phrase may
            # run on into its verb ("how many satellites use X"): the first word then
            head = (words[-1] if ended_by in ("aux", "of") and words[-1].lower() not in _DEGREE_WORDS
                    else words[0])
        elif words[0].lower() in LOCATOR_HEADS:
            head = words[0]
        elif words[0].lower() in LOCATOR_PLURALS and (ended_by in ("function", "of") or len(words) >= 2):
            out.append(Head(words[0], "locator"))
            continue
        # "of" follows a noun ("which further examples of X"), rarely a verb ("which algorithm runs in")
        elif of_phrase or ended_by in ("aux", "verb", "of") or words[-1].lower() in _TYPED_HEADS:
            head = words[-1]
        elif len(words) >= 2:  # "which browsers enable X", "which assumption underlies it": a verb ends it
            # a counted noun is the subject ("which three functions make up X"), not its verb
            counted = words[0].lower() in _COUNT_WORDS
            head = words[1] if counted else words[-2]
            # without a lexicon the verb is a guess ("which parameter sets give …", "which value means
            # black"): every noun before a word that could be its verb may be the asked thing
            alternatives = tuple(dict.fromkeys(words[i - 1] for i in _subject_verbs(words, 2 if counted else 1)
                                               if words[i - 1] != head))
        else:
            continue
        if head.lower() in _KIND_WORDS and head == words[-1] and rest[end:end + 1] == ["of"]:
            # "what kind of attacks …" asks for attacks (of a kind)
            kind = _counted(rest[end + 1:end + 5])
            if kind:
                out.append(Head(kind))
            continue
        if stem(head.lower()) not in _EMPTY_HEADS:  # "unit" as well as "units"
            mods = tuple(w for w in words[:words.index(head)] if w.lower() not in _COUNT_WORDS)
            typed = _TYPED_HEADS.get(head.lower(), "")
            if stem(head.lower()) == "address":
                typed = next((_ADDRESS_KINDS[m.lower()] for m in mods if m.lower() in _ADDRESS_KINDS), "")
            if typed == "page" and mods:  # "which *web* page …" asks for an address, not a page number
                typed = ""
            if head.lower() == "pages" and not mods and TYPES["page"].search(question):
                typed = "page"  # "on which pages …" (not "how many pages …", a count)
            out.append(Head(head, typed, mods, alternatives))
            if typed == "number" and head.lower() in _COUNTS and rest[end:end + 1] == ["of"]:
                counted = _counted(rest[end + 1:end + 5])
                if counted:
                    out.append(Head(counted))
    return tuple(out)


# "Which values/sizes …" may ask for names ("'start', 'middle' or 'end'", "A4, letter and legal"),
# not for a number.
_UNTYPED_VALUES = frozenset("value values sizes".split())
# "the number of X" counts X: the answer's number must be a count of X, not of something else.
_COUNTS = frozenset("number count".split())


def _counted(words: list[str]) -> str:
    """The noun a count is of ("number of hash calls such …" → calls): the last word of the noun
    phrase after "of", which ends at a function word, a verb's auxiliary or punctuation; "" when
    that noun is a typed head itself ("number of bytes")."""
    phrase: list[str] = []
    for raw in words:
        w = raw.strip("?,.;:!")
        low = w.lower()
        if not w or low in AUXILIARIES or low in STOPWORDS or low in _PREPOSITIONS:
            break
        phrase.append(w)
        if w != raw:
            break
    if not phrase or phrase[-1].lower() in _TYPED_HEADS or stem(phrase[-1].lower()) in _EMPTY_HEADS:
        return ""
    return phrase[-1]


def typing_words(head: Head) -> set[str]:
    """The modifiers that gave the head its type ("email" of "email address"): shown by the cue,
    they need not be written."""
    return {m.lower() for m in head.modifiers if m.lower() in _ADDRESS_KINDS} if head.type else set()


def ends_in_s(word: str) -> bool:
    """A word in -s that may be a plural noun or a verb in -s ("notion *covers*"; not "class", "status")."""
    return re.search(r"[a-z](?<![su'])s$", word) is not None


def _subject_verbs(words: list[str], start: int) -> list[int]:
    """The indexes of the words that could be the verb of a "which/what X verb …" phrase with no
    auxiliary: a word that agrees in number with the one before it as a verb does with its subject,
    in -s after a singular noun ("which value *means* black", "which method *sets* several
    properties") or bare after a plural ("which Tool commands *give* statistics"). A word after a
    capitalised one is not a verb (a name modifies the noun after it)."""
    return [i for i in range(start, len(words))
            if words[i].isalpha() and words[i].islower() and not words[i - 1][:1].isupper()
            and words[i] not in STOPWORDS and ends_in_s(words[i]) != ends_in_s(words[i - 1].lower())]


def _relative(before: str) -> bool:
    """A question word inside a relative clause ("who found the bug *in which* two patches …"):
    another question word opens the same clause before it."""
    clause = re.split(r"[,;]|\band\b", before)[-1]
    return re.search(r"\b(?:what|which|who|whom|whose|when|where|why|how)\b", clause, re.I) is not None


_QWORD = re.compile(r"[A-Za-z][\w'-]*")
_BE_FORMS = frozenset("be been being".split())
# Verbs relating a thing to what it is about ("which bug *concerned* X"): no event of their own.
_ABOUTNESS = frozenset("concern involve regard".split())
# A requirement ("which values may be kept", "why must y not be reused") is a predicate the documents
# paraphrase ("may be stored"), not an event asked about ("when will X be withdrawn").
_DEONTIC = frozenset("may must should can could might shall".split())
_PAST_BE = frozenset("was were".split())
# "which X have/has <participle>": a present perfect names an event as a past verb does ("which
# agencies have adopted it"); an irregular participle there is mostly a pro-verb ("have done so").
_PERFECT = frozenset("have has".split())
# Adverbs between "who" or "have" and the verb ("who *first* proposed", "have *already* adopted").
_ORDER_ADVERBS = frozenset("first originally initially later also actually ever once then last recently already "
                           "since".split())
_WH_WORDS = frozenset("what which who whom whose when where why how".split())
# Prepositions after a participle that make it describe the noun before it ("the paper cited by X").
_REDUCED_RELATIVE = frozenset("by in within from under".split())


def past_form(low: str) -> bool:
    """A past form of a verb: "-ed" ("chaired", "translated"; not "hash-based") or irregular."""
    return low in IRREGULAR or (low.endswith("ed") and len(low) >= 5 and "-" not in low and low not in STOPWORDS)


def describing_participle(word: str, after: str) -> bool:
    """A participle describing the noun before it, as a preposition after it shows ("the paper
    *cited* in X", "the keys *generated* by Y"): the noun ends its phrase there."""
    low = word.lower()
    nxt = re.match(r"\s*([a-z]+)", after.lower())
    return past_form(low) and nxt is not None and nxt.group(1) in _REDUCED_RELATIVE


# "Which option of X sets the Y?", "Which chart property draws Z?", "Which command prints …?": a
# setting or a command asked for by what it does; and "which notation/symbol denotes Y?", a notation
# asked for by what it denotes (a list of the notation for other things does not answer it); as are an
# algorithm, a class, a widget, a macro, an environment or a procedure ("which algorithm computes the
# difference of …" is not answered by one that "computes the sum"; seen pools: NIST +2, manuals
# identical). The kinds are the nouns naming one (not "method": "which method lists the widgets of a
# panel …" is answered by "their listWidgets() method", the object's "of X" left to a pronoun; nor
# "function": a standard's functions are asked for by what they compute, and a lost correct answer
# there costs more than a list answer; measured again with both: NIST −6, manuals −7 +4). The verb
# is the first word in -s after the kind and its "of X" (up to three words; not a noun after an
# article, "of the panel draws", nor one in -ss, "the Foo class sets"); the object runs to a
# preposition, a relative or an -ing form.
_SETTING_ASKED = re.compile(
    rf"^(?:which|what)\s+(?!(?:{AUXILIARY_ALTERNATION})\b)(?:[\w'\\.-]+\s+){{0,3}}?"
    r"(?:option|property|attribute|flag|parameter|argument|setting|keyword|command|notation|symbol|algorithm|class|widget|"
    r"environment|macro|procedure|routine)(?:s|es)?\b"
    r"(?:\s+(?:of|in|for)(?:\s+\S+){1,4}?)?\s+(?<!\bthe\s)(?<!\ba\s)(?<!\ban\s)([a-z]+s)(?<!ss)\s+(.+?)\s*\??$", re.I)
_OBJECT_END = re.compile(r"\s(?:for|in|on|at|with|when|if|to|that|which|who|whose|whom|where|so|into|along|across|"
                         r"around|through|onto|over)\s"
                         # an -ing form ends it, unless an article makes it the noun ("the kerning")
                         r"|(?<!\bthe)(?<!\ban)(?<!\ba)(?<!\bits)(?<!\btheir)\s\w+ing\b", re.I)
# The phrase qualifying the object ("writes the values *in double precision*") runs from one of these
# to the next end.
_QUALIFIER = re.compile(r"\s(?:in|on(?!\s+(?:or|and)\s+off\b)|with|to|into|along|across|around|through|onto|over)\s",
                        re.I)  # ("turns X on or off": a particle, no qualifier)


def setting_object(question: str) -> tuple[str, ...]:
    """The content words of what a one-part "which option/property … <verb>s <object>?" question
    asks the setting to do ("sets *the number of attempts* a student gets" → number, attempts,
    student, gets): the answer names the setting only where it says that. Empty for any other
    question, and for "parameter sets does …" (the -s word before an auxiliary is a noun)."""
    return setting_words(question)[0]


def setting_qualifier(question: str) -> tuple[str, ...]:
    """The content words of the phrase qualifying what a `setting_object` question asks the setting
    to do ("writes the values *in double precision*" → double, precision): a setting that writes
    values, but not in that way, is not the one asked for."""
    return setting_words(question)[1]


_COMPLEMENTIZERS = frozenset("whether if how".split())


def setting_words(question: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`setting_object` and `setting_qualifier` of the question, read from one parse."""
    obj = _setting_phrase(question)
    if not obj:
        return (), ()
    if obj.split()[0].lower() in _COMPLEMENTIZERS:  # "sets whether overlapping objects mix": the whole clause
        return _content(obj.split(maxsplit=1)[1] if len(obj.split()) > 1 else ""), ()
    cut = _OBJECT_END.search(obj)
    if not cut:
        return _content(obj), ()
    qualifier: tuple[str, ...] = ()
    if _QUALIFIER.match(obj, cut.start()):
        end = _OBJECT_END.search(obj, cut.end() - 1)
        # a name there, or an acronym, scopes the question ("… in Widgetry", "… in TL", "… in RFC
        # 9999"); the lower-case words qualify the doing ("in double precision", "in PPM format": format)
        words = obj[cut.end(): end.start() if end else len(obj)].split()
        qualifier = _content(" ".join(w for w in words if w.islower() or not w.isalpha()))
    return _content(obj[: cut.start()]), qualifier


def setting_head(question: str) -> str:
    """The noun heading what a `setting_object` question asks the setting to do: the last
    lower-case content word of the object before an "of" phrase or a possessive ("sets *the arrow
    colour*" → colour, "sets the *seed* of X's generator" → seed); "" for any other question.
    English puts the head last: a setting for arrows that sets their size is not the one asked."""
    obj = _setting_phrase(question)
    if not obj or obj.split()[0].lower() in _COMPLEMENTIZERS:
        return ""
    cut = _OBJECT_END.search(obj)
    phrase = re.split(r"\sof\s|'s\s", obj[: cut.start()] if cut else obj)[0]
    words = [t for t in tokenize(" ".join(w for w in phrase.split() if w.islower())) if t not in STOPWORDS
             and not t.isdigit()]
    return words[-1] if words else ""


@lru_cache(maxsize=1024)
def _setting_phrase(question: str) -> str:
    """What a one-part "which option/property … <verb>s …?" question asks the setting to do,
    spaced at both ends (" the values in double precision "); "" for any other question. (Cached:
    the answer gate reads it twice per answer, through `setting_words` and `setting_head`.)"""
    m = _SETTING_ASKED.match(question.strip())  # first: most questions stop here, before the split
    if not m or m.group(1).lower() in STOPWORDS or m.group(1).lower() in AUXILIARIES:
        return ""
    if len(split_parts(question)) > 1:
        return ""
    obj = m.group(2)
    if obj.split()[0].lower() in AUXILIARIES:
        return ""
    return f" {obj} "


def _content(text: str) -> tuple[str, ...]:
    return tuple(sorted(w for w in token_set(text) if w not in STOPWORDS and not w.isdigit()))


def asked_actions(question: str, subject_only: bool = False) -> tuple[str, ...]:
    """The verbs naming the event a question asks about (see the module doc): the verb of a
    "who …" subject question; a past participle after "be/been/being", or ending a "was/were X …"
    passive; a past verb ending a "which/what X" phrase with no auxiliary, or after its "have/has".
    Present-tense verbs of do-questions ("what does X use") are not events and are left out.
    `subject_only`: only those of a question asking for the doer ("who first proved X", "which
    agencies have adopted X", "which release added X"), whose answer names the doer with the event."""
    words = [w.strip("?,.;:!") for w in _QWORD.findall(question)]
    lows = [w.lower() for w in words]
    out: list[str] = []
    if len(lows) >= 2 and lows[0] == "who" and lows[1] not in AUXILIARIES and lows[1] not in STOPWORDS:
        out.append(lows[1])                                   # who chaired / wrote / maintains
        if lows[1] in _ORDER_ADVERBS and len(lows) > 2 and lows[2] not in AUXILIARIES and lows[2] not in STOPWORDS:
            out.append(lows[2])                               # who first *proposed* (and "first" itself)
    for i, w in enumerate(lows):
        # "how many vendors have migrated": a doer asked for by its count
        which = w in ("which", "what") or (w == "many" and i > 0 and lows[i - 1] == "how")
        if subject_only and not which:
            continue
        if w in _BE_FORMS and i + 1 < len(lows) and past_form(lows[i + 1]):
            modal = next((lows[j] for j in range(i - 1, -1, -1) if lows[j] in AUXILIARIES), "")
            if modal not in _DEONTIC:
                out.append(lows[i + 1])                       # will X be withdrawn, has X been translated
        elif w in _PAST_BE and i > 0:                         # was Widgetry (originally) developed on
            for j in range(i + 2, min(i + 6, len(lows))):
                if past_form(lows[j]) and not words[j][:1].isupper():
                    out.append(lows[j])
                    break
                if lows[j] in AUXILIARIES:
                    break
        elif which and i + 1 < len(lows):                    # which release added / version introduced
            for j in range(i + 1, min(i + 5, len(lows))):
                if lows[j] in _PERFECT and j > i + 1:             # which agencies have (already) adopted
                    nxt = next((x for x in lows[j + 1: j + 3] if x not in _ORDER_ADVERBS), "")
                    if past_form(nxt) and nxt not in IRREGULAR:
                        out.append(nxt)
                    break
                if lows[j] in AUXILIARIES or lows[j] in _WH_WORDS:
                    break
                if j > i + 1 and past_form(lows[j]) and lows[j - 1] not in STOPWORDS:
                    if describing_participle(lows[j], " ".join(lows[j + 1:])):
                        break  # "which paper cited by X …": a participle describing the noun, not the event
                    out.append(lows[j])
                    break
    # "which bug concerned X" asks what is about X: a relation, not an event the text must name
    return tuple(dict.fromkeys(v for v in out if not bases(v) & _ABOUTNESS))


def action_stated(verb: str, evidence_text: str, answer_text: str, question: str = "") -> bool:
    """Does the evidence (or the answer) mention the asked event in some form? Who wrote or
    published a work, and where it appeared, is what an entry of a reference list states without
    the verb ("[25] Name A (2016) Title. Venue …"): an answer opening with one states those events,
    and so does one further down whose title names the work as the `question` does ("who wrote the
    KEM combiners paper?" → "… [25] Name A (2018) KEM combiners."); any other entry further down is
    a work the answer passage cites, not the one asked about."""
    if bases(verb) & _BIBLIOGRAPHIC_EVENTS and (
            REFERENCE_ENTRY.match(answer_text.lstrip()) or _entry_titled(answer_text, question)):
        return True
    # … and a title page's byline, who wrote (prepared, produced) the document the question names
    if bases(verb) & _BYLINE_EVENTS and _BYLINE_ASKED.match(question) and is_byline(
            strip_citations(answer_text.split("\n")[0]).strip().rstrip(".")):
        return True
    # … and a copyright notice, who holds the copyright
    if bases(verb) & _HOLDING_EVENTS and "copyright" in question.lower() and COPYRIGHT_NOTICE.search(
            strip_citations(answer_text)):
        return True
    # … and a change log's dated title ("4.2.1 Version 3.1.4 [2019 Jun 2]: …") states a release
    if bases(verb) & _RELEASE_EVENTS and any(
            CUES["version"].search(t) and CUES["date"].search(t) for t in _DATED_TITLE.findall(answer_text)):
        return True
    return says_word(verb, f"{split_camel(evidence_text)} {answer_text}")


def _entry_titled(answer_text: str, question: str) -> bool:
    """Does the answer hold a reference entry whose title has two content words the question has
    side by side ("KEM combiners", "public-key cryptosystem"), naming the work it asks about? Two
    words met apart ("the reference code for HQC" against "… the HQC … error-correcting code") name
    another work on the same topic."""
    def pairs(text: str) -> set[tuple[str, str]]:
        words = [stem(w) for w in re.findall(r"[a-z0-9]+", text.lower())]
        return {(a, b) for a, b in pairwise(words) if a not in STOPWORDS and b not in STOPWORDS}

    asked = pairs(question)
    return any(pairs(m.group(1)) & asked for m in (*_ENTRY_TITLE.finditer(answer_text),
                                                   *_QUOTED_TITLE.finditer(answer_text)))


def _quotes_entry(answer_text: str) -> bool:
    """Does the answer quote a contents entry, whole or as the two sentences the splitter made of
    its number and its title ("3.2.2. [c8]" then "Widget Techniques … 10. [c8]")?"""
    lines = strip_citations(answer_text).split("\n")
    return any(contents_entries(ln) for ln in lines) or any(contents_entries(f"{a} {b}") for a, b in pairwise(lines))


def answered_by_entries(answer_text: str) -> bool:
    """Is every sentence of the answer a contents (or index) entry ("3.6.1 | Randomness Generation
    … 12.")? An entry states where a part starts by its form, never in the words "page" or "start"
    (`_quotes_entry`: whether the answer quotes one at all)."""
    sentences = [strip_citations(s).strip() for s in split_cited(answer_text)]
    return bool(sentences) and all(contents_entries(s) for s in sentences)


# A digit not glued to the letters before it (the "5" of "Fig5" labels a figure, counts nothing)
_STANDALONE_DIGIT = re.compile(r"(?<![A-Za-z])\d")
# A token holding two slashes or more: a path, or what is left of a web address a layout broke.
_PATH = re.compile(r"\S*/\S*/\S*")


# "In what forms may X be implemented?": a question opening on a preposition and its wh-phrase asks
# the complement its verb takes there, which the answer writes after the same verb and preposition
# ("… may be implemented in software, firmware, hardware"), without naming the kind ("forms").
_SLOT_ASKED = re.compile(rf"^\s*(?=(\w+)\s){PREPOSITIONAL_WH}\s+(.+?)\s*\??\s*$", re.I)
_PARTICIPLE = re.compile(r"\b[a-z]{3,}(?:ed|en)\b")


def slot_filled(question: str, answer_text: str) -> bool:
    """Does the answer write the question's participle before the preposition its wh-phrase opens
    on ("implemented in …" for "In what forms may X be implemented?")?"""
    m = _SLOT_ASKED.match(question)
    return bool(m) and any(re.search(rf"\b{v}\s+{m.group(1).lower()}\s+\w", answer_text, re.I)
                           for v in _PARTICIPLE.findall(m.group(2).lower()))


def head_stated(head: Head, evidence_text: str, answer_text: str, question: str = "") -> bool:
    """Does the evidence mention the asked thing (or, for a typed head, the answer show its type)?
    (`question`: the numbers it writes itself are no answer to "what size …")"""
    def names_it(text: str) -> bool:
        words = token_set(split_camel(text))
        return any(_names_word(w, words) for w in (*kin(head.word), *head.alternatives))

    root = stem(head.word.lower())
    form = _KIND_FORMS.get(root)
    if form and form.search(strip_citations(answer_text)):
        return True  # "which edition …" → "[7] Lund A (2020) Widgets (Press), 3rd Ed."
    if root in _SHORT_FORMS and any(expands(a, answer_text) for a in set(ACRONYM.findall(answer_text))):
        return True  # "which acronym stands for X?" → "ISD Information Set Decoding": the answer spells one out
    if head.word.lower() in _CODE_NAMED and CUES["code"].search(answer_text):
        return True  # "which attribute sets X?" → "minimumTickSpacing: …" (or a passage saying "attribute")
    if head.type in ("code", "document", "citation"):  # shown by its cue, or the answer names the kind itself
        return bool(CUES[head.type].search(answer_text)) or names_it(answer_text)
    if head.type == "number" and root in ("bit", "byte") and _PLACED_BITS.search(answer_text):
        return True  # "which bits of X …" → "the leftmost (i.e., initial) bits of X": a place, not a count
    if head.type == "number" and head.word.lower() not in _UNTYPED_VALUES:
        # the answer's own digits: every cited answer has some in its "[c1]" markers; and an acronym
        # naming whose number it is ("which RFC number", "the ABC key length") as the answer writes
        # it: a number of something else does not answer
        # (not the digits of a reference mark, a web address or a file path: "[4]", "…/selected-2022/…"
        # state no number)
        plain = _PATH.sub(" ", CUES["address"].sub(" ", _BRACKET_REFERENCE.sub("", strip_citations(answer_text))))
        # (nor the year of an author-year citation, the digits glued to a label ("Fig5"), or the
        # numbers the question writes itself: "what font size does Example 5 set" is not answered
        # by "Example 5 -- wind (Fig5 Koch et al, 1983)")
        written = set(_YEAR_OR_NUMBER.findall(question))
        plain = _YEAR_OR_NUMBER.sub(lambda m: " " if m.group(0) in written else m.group(0),
                                    _AUTHOR_YEAR.sub(" ", plain))
        # … and the lower-case word naming the kind of a "number" ("which *patent* numbers …"), as the
        # cited evidence writes it (a size or a length is read from tables that abbreviate its kind)
        counted = stem(head.word.lower()) == "number"
        kinds = [m for m in head.modifiers if m.isalpha() and m.islower()] if counted else []
        if not (_STANDALONE_DIGIT.search(plain) and all(
                re.search(rf"\b{re.escape(m)}\b", plain) for m in head.modifiers if ACRONYM.fullmatch(m))):
            return False
        evidence_words = token_set(split_camel(evidence_text)) if kinds else frozenset()
        return all(_names_word(m, evidence_words) for m in kinds)
    if head.type == "number" and head.word.lower() == "value":
        # "what is the X value …" asks for one value: a number, or a name the answer calls a value;
        # not the digits of a citation ("[c1]") or a reference mark ("[6]"). ("Which values …" may
        # be answered by a list of names that never says so: measured, it lost one.)
        return bool(CUES["number"].search(_BRACKET_REFERENCE.sub("", strip_citations(answer_text)))) or names_it(
            answer_text)
    if head.type in ("condition", "title", "package"):  # set by a clause ("… secure if X is hard"), a title by a
        # reference entry, a package by the line loading it; or named as one
        return bool(CUES[head.type].search(answer_text)) or names_it(evidence_text)
    if head.type == "locator" and _quotes_entry(answer_text):
        return True  # a contents entry numbers its section by its form ("9.3.5 | 3.2 write contour … 140")
    if head.type:
        return bool(CUES[head.type].search(answer_text))
    # … or in another form of its word ("which model …" is stated by a passage saying "modeled")
    return names_it(evidence_text) or says_word(head.word, evidence_text)


def phrase_stated(head: Head, text: str) -> bool:
    """Does the text name the asked thing as the question does, with the words that modify it
    ("quantum key distribution protocol", not any "protocol")?"""
    words = token_set(split_camel(text))
    return _names_word(head.word, words) and all(token_set(m) <= words for m in head.modifiers)


def _names_word(word: str, words: frozenset[str]) -> bool:
    """The word, in one of its spellings ("colour" is "color"), among a text's tokens; code writes
    compounds in camelCase, so the tokens are taken with camelCase split ("fontName" names a name)."""
    return any(token_set(v) & words for v in spellings(word.lower()))


# "How does X define Y?", "How is Y defined?", "What is the definition of Y?", "What does X define as
# Y?": Y is the term defined, up to a scope ("according to …", "in DOC 1", "in the glossary"), a
# comma or a second part.
_DEFINED = re.compile(r"\b(?:how\s+(?:does|do|did)\s+.+?\s+define|what\s+is\s+the\s+definition\s+of|how\s+(?:is|are)"
                      r"|what\s+(?:does|do|did)\s+.+?\s+define\s+as)"
                      r"\s+((?:an?\s+|the\s+)?.+?)(?:\s+defined)?(?=\?|,|\s+and\s|\s+according\b"
                      r"|\s+in\s+(?:the\s+)?(?:[A-Z]|glossary)|$)", re.I)


def defined_span(question: str) -> tuple[int, int] | None:
    """Where a definition question names the term it asks to define, with its article (None: no
    such question)."""
    m = _DEFINED.search(question)
    return m.span(1) if m and re.search(r"\bdefin", question, re.I) else None


# "On which page of X is the ls command described?", "On which page are subscripts covered?",
# "Which section of X covers key sizes?": the thing located, between the frame's verb and a closing
# participle (or after "covers"/"describes").
_LOCATED = re.compile(r"^\s*(?:(?:on|in)\s+(?:which|what)\s+pages?\b[^?]*?\b(?:is|are)\s+"
                      r"(?P<a>[^?,]+?)(?:\s+(?:described|covered|discussed|explained|listed|defined|documented|"
                      r"introduced|mentioned|shown|given))?"
                      r"|(?:which|what)\s+(?:section|chapter|appendix|page)\b[^?]*?\b(?:covers|describes|discusses|"
                      r"explains|documents)\s+(?P<b>[^?,]+?)"
                      r"|(?:on|in)\s+(?:which|what)\s+pages?\b[^?]*?\b(?:index|contents)\s+lists?\s+(?P<c>[^?,]+?))"
                      r"(?:\s+in\s+(?:the\s+)?[A-Z][^?]*)?\s*\??\s*$", re.I)


def located_span(question: str) -> tuple[int, int] | None:
    """Where a question asking on which page (or in which section) something is names that thing
    (None: no such question)."""
    m = _LOCATED.match(question)
    return next((m.span(g) for g in "abc" if m.group(g) is not None), None) if m else None


def defined_term(question: str) -> tuple[str, ...]:
    """The content words of the term a definition question asks about ("quantum random number
    generator"): a definition states the term it defines, so one sentence of the answer must hold
    them all; a definition of a neighbour ("key wrapping" for "post-quantum key wrapping") is not
    one of the term asked."""
    span = defined_span(question)
    return _content_words(question[span[0]:span[1]]) if span else ()


def _content_words(term: str) -> tuple[str, ...]:
    return tuple(t for t in dict.fromkeys(tokenize(term)) if t not in STOPWORDS)


def states_defined_term(question: str, sentence: str) -> bool:
    """Does the sentence write the term the definition question asks about (see `_states_term`)?"""
    span = defined_span(question)
    return span is None or _states_term(question[span[0]:span[1]], sentence)


def unstated_defined_term(question: str, sentences: list[str]) -> str:
    """The term a definition question asks about when none of the answer's sentences states it
    ("" when one does, or the question asks for no definition)."""
    span = defined_span(question)
    if span is None:
        return ""
    term = question[span[0]:span[1]]
    return ("" if any(_states_term(term, s) and not _other_entry(term, s) for s in sentences)
            else " ".join(_content_words(term)))


# A glossary entry: a short term, a colon, its definition ("keying material: A bit string …").
_ENTRY = re.compile(r"^\s*([^:.;]{1,60}?)\s*:\s+\S")


def _other_entry(term: str, sentence: str) -> bool:
    """Is the sentence a glossary entry of another term? An entry defines its own term, and the
    asked term written inside its definition ("keying material: … secret initialization vectors
    …") is not defined by it. The PDF's text may split an entry's term around the colon
    ("eXtendable-Output: Function (XOF) A function …"), so an entry whose term shares a word
    with the asked one may still be its entry; a symbol's entry ("⌈x⌉: …") names no word."""
    m = _ENTRY.match(sentence)
    head = [w for w in _content_words(m.group(1)) if len(w) > 2] if m else []
    return bool(head) and not set(head) & set(_content_words(term))


def _states_term(term: str, sentence: str) -> bool:
    """A compound ("quantum adversary") is written as a run of its words, in order ("adversaries
    who have a quantum computer" is no definition of one); a term with a preposition ("the
    ceiling of a number") by all its content words ("… the real number x, called the ceiling of
    x")."""
    if not set(_content_words(term)) <= set(token_set(split_camel(sentence))):
        return False
    if re.search(rf"\b(?:{PREPOSITION_ALTERNATION})\b", term, re.I):
        return True
    # the words in order, a compound by its parts ("post-quantum" is read as "post", "quantum")
    want = [w for w in tokenize(term) if "-" not in w]
    have = [w for w in tokenize(sentence) if "-" not in w]
    return any(have[i:i + len(want)] == want for i in range(len(have) - len(want) + 1))


# Two short terms asked to be spelled out or explained at once ("What do SSH and TLS stand for in
# the report?"): each is its own part, as "what does SSH stand for, and TLS?" would be.
_JOINT_SUBJECT = re.compile(
    r"^(what)\s+do\s+(?:the\s+(?:acronyms|abbreviations|symbols|notations|terms)\s+)?([^\s,]+)\s+and\s+([^\s,]+)\s+"
    r"(stand\s+for|mean|denote|abbreviate)\b(.*)$", re.I)


def split_parts(question: str) -> list[str]:
    """The sub-questions of a multi-part question; a part that is a bare question word ("and
    why?") keeps the subject of the part before it."""
    q = question.strip()
    joint = _JOINT_SUBJECT.match(q)
    if joint:
        wh, one, other, verb, rest = joint.groups()
        return [f"{wh} does {one} {verb}{rest}".rstrip(" ?") for one in (one, other)]
    pieces = [p.strip(" ,;?") for p in _PART_SPLIT.split(q) if p and p.strip(" ,;?")]
    if len(pieces) <= 1:
        return [q]
    out: list[str] = []
    for p in pieces:
        if out and (len(p.split()) <= 2 or _bare(p)):  # "why", "how so", "which one", "in which year"
            p = f"{p} {out[0]}"
        elif not out and _bare(p):  # "In which year and under which number does X list Y?"
            p = f"{p} {_predicate(pieces[1])}"
        elif out:
            p = _demonstrative_named(p, out)
        out.append(p)
    return out


_DEMONSTRATIVE_NOUN = re.compile(r"\b(?:that|this|those|these)\s+([a-z][\w-]*)\b", re.I)


def _demonstrative_named(part: str, before: list[str]) -> str:
    """A later part's "that N" as an earlier part names N, with its modifiers: "which option gives
    *that directory*" after "what is the layout database in *the data directory* used for" asks
    which option gives the data directory (a part is read, and its evidence scored, alone)."""
    m = _DEMONSTRATIVE_NOUN.search(part)
    if not m or m.group(1).lower() in STOPWORDS or m.group(1).lower() in AUXILIARIES:
        return part
    noun = re.escape(m.group(1))
    for earlier in reversed(before):
        named = re.search(rf"\b(?:the|an?)\s+((?:[\w-]+\s+){{1,2}}?{noun})\b", earlier, re.I)
        if named and not any(w.lower() in STOPWORDS or w.lower() in AUXILIARIES for w in named.group(1).split()[:-1]):
            return f"{part[:m.start()]}the {named.group(1)}{part[m.end():]}"
    return part


def _predicate(part: str) -> str:
    """A part from its auxiliary on, without the question phrase before it ("under which number
    does X list Y" → "does X list Y"): what a bare part before it asks of too."""
    words = part.split()
    at = next((i for i, w in enumerate(words) if i and w.lower() in AUXILIARIES), None)
    return " ".join(words[at:]) if at is not None else part


def _opening_phrase(prepositions: str, longest: int) -> re.Pattern[str]:
    """A phrase opening a question on one of `prepositions`, up to the comma closing it; not a
    question's own "In which year …"."""
    return re.compile(rf"^\s*((?:{prepositions})\s+(?!(?:which|what|whose|how)\b)[^,?]{{3,{longest}}}),\s+", re.I)


# A scope the question opens with ("In the first example, …", "According to the guide, …"), not
# itself asked about ("In which year …").
_LEADING_SCOPE = _opening_phrase(r"in|for|within|according\s+to", 80)
# … and any prepositional phrase opening it ("Under the licence in X, is there …"), which may name
# a document rather than a scope every part is asked in
OPENING_PHRASE = _opening_phrase(r"under|in|within|according\s+to|per|for|from|by|on", 100)


def leading_scope(question: str) -> str:
    """The scope phrase a question opens with, which holds for every part of it: "In the first
    example, how long is the line, and what colour is it?" asks both parts in the first example."""
    m = _LEADING_SCOPE.match(question)
    return m.group(1) if m else ""


def _bare(part: str) -> bool:
    """A part that names nothing of its own: question words, function words and the name of
    an answer type only ("and in which year?", "and at what size?")."""
    return not [w for w in re.findall(r"[\w'-]+", part.lower())
                if w not in STOPWORDS and w not in _WH_WORDS and w not in AUXILIARIES and w not in _TYPED_HEADS]


def focus_terms(question: str, identifiers: tuple[str, ...], doc_mentions: tuple[str, ...]) -> tuple[str, ...]:
    """Numbers and years, quoted strings, numbered and sigil-wrapped identifiers, code names,
    command-line options and acronyms the question names, except those that only name a document
    (a document mention says where to look, not what)."""
    named = " ".join(doc_mentions).lower()
    found: list[str] = quoted_phrases(question)
    found += [i for i in identifiers if NUMBERED_VARIANT.fullmatch(i) or WRAPPED_NAME.fullmatch(i)]
    covered = " ".join(found).lower()
    found += [m.group(0) for m in _YEAR_OR_NUMBER.finditer(question) if m.group(0).lower() not in covered]
    covered = " ".join(found).lower()
    # (a capitalised locator before its number, "Section 2.3", is no name: the number is the focus,
    # and the section's own passages write "2.3 Title", never "Section")
    found += [n for n in proper_names(question) if n.lower() not in covered and not (
        n.lower() in LOCATOR_HEADS and re.search(rf"\b{re.escape(n)}\s+[A-Z]?\d", question))]
    found += [n for n in CAMEL_NAME.findall(question) if n[0].islower() and n.lower() not in covered]
    # a command-line option written with its dash or dashes, as the cited evidence must write it
    found += [n for n in COMMAND_OPTION.findall(question) if n.lower() not in covered]
    # … and an acronym ("an FTP URL", "in the HSV color model", "on an HSM"): a passage on the
    # topic that never names it (nor spells it out) is about another thing of the kind
    found += [n for n in ACRONYM.findall(question) if n.lower() not in covered]
    return tuple(dict.fromkeys(f for f in found if f.lower() not in named))


# A single letter naming a variant of a thing ("the z margin", "the x dimension"), as a variable's
# name does: not "a", "I", nor a possessive's "s"
_LETTER_MODIFIER = re.compile(r"(?<![\w.\\'’-])([b-hj-z])\s+[a-z]{3,}\b")


def letter_modifiers(question: str) -> tuple[str, ...]:
    """The single letters naming a variant of the noun after them ("z" of "the z dimension"): a
    text that never writes the letter alone does not speak of that variant (it may speak of "x and
    y dimensions")."""
    return tuple(dict.fromkeys(m.group(1) for m in _LETTER_MODIFIER.finditer(question)))


def letter_written(letter: str, text: str) -> bool:
    """The letter standing alone in the text (not inside a word, a name or a call: "z(", "\\z")."""
    return re.search(rf"(?<![\w.\\]){re.escape(letter)}(?![\w(])", text, re.I) is not None


# Words numbering a place in a document ("step 8", "line 3", "Table 2"), by which a question says
# where the fact is; the text there need not repeat the number.
_PLACE_NUMBER = re.compile(r"\b(?:steps?|lines?|items?|pages?|algorithm|equation|" +
                           "|".join(sorted(LOCATOR_HEADS)) + r")\s+(\d+)\b", re.I)


def place_numbers(question: str) -> frozenset[str]:
    """The numbers a question uses to point at a place ("on step 8 of X"), not as a fact asked about."""
    return frozenset(m.group(1) for m in _PLACE_NUMBER.finditer(question))


_ORDINAL_WORDS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth").split()
_ORDINAL = r"(?:" + "|".join(_ORDINAL_WORDS) + r"|\d+(?:st|nd|rd|th))"
# An ordinal and the word it numbers ("the fifth workshop", "the 12th edition", "first-round").
_ORDINAL_NOUN = re.compile(rf"\b({_ORDINAL})[\s-]+([A-Za-z][\w]*)", re.I)


def _ordinal_number(word: str) -> str:
    """"fifth" and "5th" alike → "5"."""
    w = word.lower()
    return str(_ORDINAL_WORDS.index(w) + 1) if w in _ORDINAL_WORDS else re.sub(r"\D", "", w)


def unstated_ordinals(question: str, texts: list[str]) -> list[str]:
    """The numbered things the question asks about ("the fifth workshop", "the sixth edition")
    that the text numbers otherwise only: it states the same word after other ordinals ("fourth
    workshop", "third workshop") and never after the asked one. A near miss, answered before from
    the same-topic sentence about another workshop. A word the text numbers another way ("Panel 2"
    for the second panel) or never numbers says nothing either way. The texts are joined only
    for a question that has an ordinal: this runs on every answer."""
    out: list[str] = []
    asked_ordinals = list(_ORDINAL_NOUN.finditer(question))
    text = " ".join(texts) if asked_ordinals else ""
    for m in asked_ordinals:
        if m.group(2).lower() in function_words() or re.search(r"\bper\s+$", question[: m.start()], re.I):
            continue  # "pages per second can …": no ordinal
        asked_n, noun = _ordinal_number(m.group(1)), stem(m.group(2).lower())
        seen = {_ordinal_number(t.group(1)) for t in _ORDINAL_NOUN.finditer(text) if stem(t.group(2).lower()) == noun}
        # "Panel 2" numbers the second panel too
        numbered = re.search(rf"\b{re.escape(m.group(2))}s?\s+{asked_n}\b", text, re.I)
        # … and "the first word is A, the second B" numbers it with the noun left out (in a list
        # after another ordinal with the noun)
        elided = re.search(rf"\b(?:{_ORDINAL})[\s-]+{re.escape(m.group(2))}s?\b[^;]{{0,80}}?,\s*(?:and\s+)?the\s+"
                           rf"{re.escape(m.group(1))}\s*(?=[^\sA-Za-z])", text, re.I)
        if seen and asked_n not in seen and not numbered and not elided:
            out.append(m.group(0))
    return out


def asked(question: str, identifiers: tuple[str, ...] = (), doc_mentions: tuple[str, ...] = (),
          topics: tuple[str, ...] = (), attribute: str = "") -> Asked:
    """The parts (one per comparison side when `topics` are given), their types, and the focus."""
    if len(topics) >= 2:
        types = answer_types(question)
        parts = tuple(Part(f"{t} {attribute}".strip(), types, t) for t in topics)
    else:
        # each part wants what it asks itself: "which bytes …" does not make "which shuffle is it
        # based on" a number question
        parts = tuple(Part(p, answer_types(p)) for p in split_parts(question))
    return Asked(parts, focus_terms(question, identifiers, doc_mentions), acronym_of(question, identifiers))
