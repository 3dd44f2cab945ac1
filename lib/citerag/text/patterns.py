"""Patterns for the structure of technical documents, defined once and shared.

Chunking, cleaning, answering and reranking all need to recognise the same
things: an algorithm's title line, its numbered steps, a table caption, the
dot leaders of contents lists, and the shapes of technical identifiers.
None of them names a corpus's things; they describe document structure.
"""

from __future__ import annotations

import re
from functools import lru_cache

from citerag.text.tokenize import STOPWORDS

# An algorithm's title: "Algorithm 4 BytesToBits(B)", "Algorithm 9 chain (X, i)"; (.*) is the rest
# of its first line. Not a sentence about the algorithm ("Algorithm 11 begins by computing …",
# "Algorithm 3, implementing …"): a comma or a plain lower-case word (no call after it) follows.
ALGORITHM_TITLE = re.compile(r"^(?:#+\s*)?Algorithm\s+(\d+)\b(?!\s*,|\s+[a-z]+\b(?![\s(]*\())(.*)")
STEP_LINE = re.compile(r"^(\d{1,2}): ")
# A step's number, also on a step the layout left empty ("9:" before a step set apart).
STEP_NUMBER = re.compile(r"^(\d{1,2}):(?=\s|$)")
TABLE_CAPTION = re.compile(r"^Table\s+\d+[.:]")
# A markdown heading's mark at a line's start ("## FIPS 205" → "FIPS 205").
HEADING_MARK = re.compile(r"^#+\s*", re.M)
DOT_LEADER = re.compile(r"(?:\.\s){4,}|\.{5,}")

# "which section/table …" asks where a document says something: singular always ("which section
# covers X"), plural only right after the question word and before "of" or a verb ("which sections
# of X cover …"; "what extra sections does it add" asks what). The answer type of such a question,
# and in retrieval the reason a contents list is no boilerplate for it.
LOCATOR_HEADS = frozenset("section subsection chapter appendix annex table figure".split())
LOCATOR_PLURALS = frozenset("sections subsections chapters appendices tables figures".split())
LOCATOR_QUESTION = re.compile(rf"\b(?:what|which) (?:(?:{'|'.join(sorted(LOCATOR_HEADS))})\b|"
                              rf"(?:{'|'.join(sorted(LOCATOR_PLURALS))})"
                              r"(?= of\b| (?:cover|describe|discuss|explain|specify|define|list|contain)s?\b))", re.I)
# An algorithm's Input/Output line ("Input : a byte string v ."), read with its algorithm.
IO_LINE = re.compile(r"\s*(?:input|output)s?\s*:", re.I)

# Pseudocode inside a numbered step: an assignment arrow, `:=`, or a control keyword that opens
# the step. Numbered console output ("1: In foo(-1) : value out of range") has none of them.
_PSEUDOCODE = re.compile(r"←|:=|^\d{1,2}:\s+(?:for|if|else|end|while|return|repeat|until|do)\b", re.I)


def is_step_block(lines: list[str]) -> bool:
    """Numbered lines that are algorithm steps: every line `N: …` and at least one of them
    pseudocode. Numbered warnings, logs and lists are left as prose."""
    return bool(lines) and all(STEP_LINE.match(ln) for ln in lines) and any(_PSEUDOCODE.search(ln) for ln in lines)


def has_pseudocode(text: str) -> bool:
    return any(_PSEUDOCODE.search(ln) for ln in text.split("\n")) or "←" in text


# Pronouns that stand for a thing named before ("its default value", "how does it work"); the
# conversation rewriter adds the demonstratives, which inside one question are often determiners.
PERSONAL_PRONOUNS = r"it|its|they|them|their"

# `NAME-<number>`: a member of a numbered family (WG-KX-768, HX-SIG-SHA2-128s, abc-128) when the
# corpus has several members of NAME; a lone UTF-8 or x86-64 matches the shape but is no family.
NUMBERED_VARIANT = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z][A-Za-z0-9]*)*)-(\d+[A-Za-z]?)(?![\w-])")

# A qualified member: `Name.Member` (WG-KX.KeyGen, canvas.drawString), not "e.g." or "v1.2".
QUALIFIED_NAME = re.compile(r"(?<![\w.-])([A-Za-z][\w-]*[A-Za-z0-9])\.([A-Za-z_][A-Za-z0-9_]+)(?![\w-])")

# Extraction spacing inside a qualified name: "WG-KX .KeyGen" → "WG-KX.KeyGen". Only a member
# starting with a capital after a name holding a capital is joined: "edit the .bashrc file",
# ".gitignore" and "obj .method" stay as written.
SPACED_MEMBER = re.compile(r"(?<![\w.-])([A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*[A-Za-z0-9)]) \.(?=[A-Z][a-z])")
# ... and spaced on both sides of the dot ("KEMX . Make"): joined only for a member the document
# shows to be one (`build.clean.join_spaced_members`), since "… the address REG . Output :" ends
# a sentence on a name.
SPACED_DOT_MEMBER = re.compile(r"(?<![\w.-])([A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*) \. ([A-Z][A-Za-z0-9]*)\b")

def as_word(term: str) -> str:
    """A regex for `term` as a whole word: not inside a longer word or a hyphenated compound."""
    return rf"(?<![\w-]){re.escape(term)}(?![\w-])"


# Words English uses for a document ("the migration report"), and for a part of one ("the
# report's glossary"): they say where to look, not what a passage must be about.
DOCUMENT_NOUNS = frozenset("report reports standard standards recommendation recommendations guidance guideline "
                           "guidelines guide manual handbook draft publication specification document".split())
DOCUMENT_PARTS = frozenset("glossary appendix annex references bibliography acknowledgments acknowledgements "
                           "foreword preface abstract errata".split())
# A section of terms and their definitions, by its heading.
GLOSSARY_HEADING = re.compile(r"terms|definitions|glossary|acronyms|abbreviations|symbols", re.I)
# Number words a question or a document counts with ("which three functions", "… two stages:").
NUMBER_WORDS = {w: n for n, w in enumerate("two three four five six seven eight nine ten".split(), start=2)}
# The number words as a regular-expression alternation ("two|three|…|ten").
NUMBER_WORD = "|".join(NUMBER_WORDS)

_NAMED_BY_KIND = re.compile(
    r"\bthe\s+([A-Za-z][\w-]*)\s+(?:option|parameter|argument|property|attribute|field|flag|keyword|setting|"
    r"variable)s?\b(?:\s+([\w.-]+))?", re.I)
_SYMBOL = re.compile(r"[A-Za-z]{1,2}|[A-Z][\w-]*|[\w-]*[\d_.][\w.-]*")


def named_by_kind(text: str) -> list[str]:
    """Words a question names by their kind ("the margin option", "the width parameter", "the
    strict flag"): a setting's name, even when it is a plain English word. When a symbol follows
    the kind ("the weight parameter w"), the symbol is the name and the word before describes it."""
    return [m.group(1) for m in _NAMED_BY_KIND.finditer(text) if m.group(1).lower() not in STOPWORDS
            and not (m.group(2) and m.group(2).lower() not in STOPWORDS and _SYMBOL.fullmatch(m.group(2)))]


# A name written between the same doubled sigils on both sides, as a language marks its built-in
# or special names: "..width..", "__init__", "%HOME%"; or a format sequence, a percent sign and a
# letter or a parenthesised name ("%S", "%(ID)"). The sigils are part of the name: a passage
# saying "width" is not one naming "..width..". One dot on each side is left out: ".cfgrc." is as
# often a file suffix ending a sentence.
WRAPPED_NAME = re.compile(r"(?<![\w.%])(?:(\.\.|__|%)[A-Za-z][\w-]*[A-Za-z0-9]\1(?![\w%])"
                          r"|%(?:\([A-Za-z]\w*\)|[A-Za-z])(?![\w%(]))")

# A command-line option's name after its dashes ("ceiling", "upper-bound", "no_cmd_in_ps").
_OPTION_NAME = r"[A-Za-z][\w-]*[A-Za-z0-9]"
# An acronym written alone ("FTP", "HSV"), not a piece of a longer name ("ML-KEM", "SHA3").
ACRONYM = re.compile(r"(?<![\w-])[A-Z]{2,6}(?![\w-])")
# A command-line option written with one dash or two ("--verbose", "-superuser"); not a hyphenated
# word ("x-y") nor a negative number.
COMMAND_OPTION = re.compile(rf"(?<![\w-])--?{_OPTION_NAME}")

# Technical identifiers: contain a digit, a hyphen/dot/underscore between letters (snake_case
# names such as `sign_internal`), are all-caps acronyms, or command-line options with two dashes
# (`COMMAND_OPTION`, which the focus check uses, takes one dash too).
IDENTIFIER = re.compile(
    WRAPPED_NAME.pattern
    + r"|\b(?:[A-Za-z]+[-.][A-Za-z0-9]+(?:[-._][A-Za-z0-9]+)*|[A-Za-z]+_[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*"
    r"|[A-Za-z]+\d+[A-Za-z0-9]*|\d+-\d+|[A-Z]{2,}[a-z]?)\b"
    rf"|(?<![\w-])--{_OPTION_NAME}"  # a command-line option: "--ceiling", "--upper-bound"
)


# A name written as code in camel case: "drawWidget", "lineWidth", "SampleGrid", "ByteEncode".
CAMEL_NAME = re.compile(r"\b(?:[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z]+[A-Z][A-Za-z0-9]*)\b")

# A capitalised word inside a sentence ("… version of Python …", "… Mosca's theorem", "… by
# Ødegård"): a name. Letters are any script's; the case is checked in proper_names.
PROPER_NAME = re.compile(r"(?<=[\w,;:)] )([^\W\d_]{3,})(?:'s)?\b")


def proper_names(question: str) -> list[str]:
    """Capitalised words that are not the first word of the question: the named things an
    answer must be about (a tool, a person, a company). Identifiers with capitals or digits
    inside (ABC-512, camelCaseName) are the identifiers' business."""
    return [w for m in PROPER_NAME.finditer(question)
            if (w := m.group(1))[0].isupper() and w[1:].islower() and w.lower() not in STOPWORDS]


def identifiers(text: str) -> list[str]:
    """Technical identifiers in order of appearance, de-duplicated (case-insensitive). A
    command-line option is named without its dashes ("--skip-blank" → "skip-blank"), as a
    chunk's tokens and the question's other words hold it."""
    seen, out = set(), []
    for m in IDENTIFIER.finditer(text):
        tok = m.group(0) if m.group(1) else m.group(0).strip(".").lstrip("-")
        key = tok.lower()
        if key in seen or key in STOPWORDS or len(tok) < 2:
            continue
        seen.add(key)
        out.append(tok)
    return out


# A quoted string in a question: a title, an option value, a message. A straight apostrophe opens
# a quote only where no letter precedes it and closes one only where no letter follows, so the
# possessives of "XYZ's sizes … ABC's" are not a quote. An expression in braces with a space in it
# ("{calc 3 2 <}") is quoted code, braces and all ("{calc 3 2 <=}" is another one); a macro's
# argument ("\\mymacro{title}") is not.
_QUOTED = re.compile(r"[\"“]([^\"”]{2,60})[\"”]|(?<![\w'])'([^'\n]{2,60}?)'(?![\w'])"
                     r"|(\{[^{}\n]{0,30}\s[^{}\n]{0,30}\})")


def quoted_phrases(text: str) -> list[str]:
    """The quoted strings of a text, in order."""
    return [m.group(1) or m.group(2) or m.group(3) for m in _QUOTED.finditer(text)]


@lru_cache(maxsize=1024)
def query_phrases(query: str) -> tuple[str, ...]:
    """The query's quoted phrases of two or more words, lower-cased with single spaces (a quoted
    single word is already a BM25 term)."""
    return tuple(" ".join(p.lower().split()) for p in quoted_phrases(query) if len(p.split()) >= 2)


def named_by_title(mention: str) -> bool:
    """A document named by words of its title and a word for a document ("the status report")."""
    return any(w in DOCUMENT_NOUNS for w in re.findall(r"\w+", mention.lower()))


def names_place(mention: str) -> bool:
    """A document named by its number ("RFC 8446", "ISO 9001") or by its title ("the status
    report") is where to look, not what the answer says; one named by name ("in Widgetry") is also
    the topic. The term scorer and the retriever's query both drop the first kind and keep the
    second."""
    return named_by_title(mention) or any(c.isdigit() for c in mention)


def holds_any(phrases: tuple[str, ...], text: str) -> bool:
    """Does the text hold one of the phrases verbatim (case and spacing aside)?"""
    return bool(phrases) and any(p in _spaced(text) for p in phrases)


@lru_cache(maxsize=8192)
def _spaced(text: str) -> str:
    return " ".join(text.lower().split())
