"""The one tokenizer: technical identifiers whole and in parts, reference phrases, light stemming.

`WG-KX-768` is indexed whole and as `wg`, `kx`, `768` and `wg-kx`;
`SHAKE128` as itself and `shake`, `128`; `Algorithm 2` as the phrase token
`algorithm 2` plus its words. BM25, the answer scorer, the grader and the
validator all use it, so a term means the same thing everywhere.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_REF = re.compile(
    r"\b(algorithms?|tables?|sections?|sec\.|figures?|fig\.|appendix|appendices|equations?|definitions?"
    r"|examples?|theorems?)"
    r"\s+([A-Z]?\d+(?:\.\d+)*|[A-Z])\b",
    re.I,
)
_REF_NAME = {"sec.": "section", "fig.": "figure", "appendices": "appendix"}
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-_./'][A-Za-z0-9]+)*")
_ALNUM_SPLIT = re.compile(r"[a-z]+|\d+")

STOPWORDS = frozenset(
    """a an and are as at be been being but by can could did do does for from had has have
    how if in into is it its may might must of on or our shall should so such than that the
    their them then there these they this those to under upon was were what when where which
    while who whom why will with would you your also not no any all each other only both one
    between about""".split()
)

# Auxiliaries and modals: the word after their subject is the question's verb ("does X generate"),
# and one after a phrase says the clause goes on ("… of the manual *is* X described").
AUXILIARIES = frozenset("does do did is are was were can could should will would has have had must might may "
                        "shall".split())
# The same words as a regex alternation, for patterns that look for one after a phrase.
AUXILIARY_ALTERNATION = "|".join(sorted(AUXILIARIES))
# Words that open a noun phrase: the word after one is a noun or a modifier of one, not a verb.
DETERMINERS = frozenset("a an the its their this these those each every any some no".split())

# Words that frame a question rather than name what it asks about ("what does X *stand for*",
# "*explain* X", "the *difference* between"). The answer scorer ignores them; BM25 does not.
QUESTION_FRAME = frozenset(
    """stand stands acronym abbreviation mean means meaning define defined definition explain
    describe tell difference differences compare comparison walk through please mention mentions mentioned""".split()
)

# Content words that scikit-learn's English stop-word list also carries: they can name what a
# question asks about ("fire", "system", "bill"), so they are not function words here.
_STOPLIST_CONTENT = frozenset(
    """amount back bill bottom call co con cry de describe detail empty fill find fire found front full
    get give go inc interest keep ltd made mill move name part put re see serious show side sincere
    system take thick thin top un well whole""".split()
)


@lru_cache(maxsize=1)
def function_words() -> frozenset[str]:
    """Closed-class English words (prepositions, conjunctions, pronouns, adverbs such as
    "besides", "afterwards", "meanwhile"): a corpus not writing one says nothing about whether it
    answers a question. scikit-learn's English stop-word list without the content words it also
    carries; imported on first use, because importing the package costs about two seconds."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS - _STOPLIST_CONTENT)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A deliberately light plural stemmer: signatures→signature, keys→key, policies→policy."""
    if not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokenize(text: str, use_stem: bool = True) -> list[str]:
    """Tokens for BM25: technical compounds whole and in parts, reference phrases, words.

    Memoized: an evaluation scores the same chunk and sentence texts for many questions."""
    return list(_tokenize(text, use_stem))


@lru_cache(maxsize=16384)
def token_set(text: str) -> frozenset[str]:
    """The distinct (stemmed) tokens of a text, memoized like `tokenize`."""
    return frozenset(_tokenize(text, True))


_SEP = re.compile(r"[-_./']")
# A possessive ending ("report's", "tool’s"): the noun is the word.
POSSESSIVE = re.compile(r"(?<=[A-Za-z0-9])['’]s\b")


def _greek_names() -> dict[int, str]:
    """Greek letters → their names, as words of their own ("ζ = 1753" → " zeta  = 1753"): a
    question writes "zeta" or "tau" where the text writes the letter, and a letter no tokenizer
    pattern matches would otherwise vanish from the index. Names come from Unicode."""
    out = {}
    for cp in range(0x0391, 0x0400):
        m = re.fullmatch(r"GREEK (?:SMALL |CAPITAL )?(?:LETTER |LUNATE )?([A-Z]+)(?: SYMBOL)?",
                         unicodedata.name(chr(cp), ""))
        if m:
            out[cp] = f" {m.group(1).lower()} "
    return out


_GREEK = _greek_names()


@lru_cache(maxsize=16384)
def _tokenize(text: str, use_stem: bool) -> tuple[str, ...]:
    toks: list[str] = []
    # A possessive is its noun: "the report's glossary" holds "report", not an unseen "report's"
    # and a letter "s".
    text = POSSESSIVE.sub("", text.translate(_GREEK))
    for m in _REF.finditer(text):
        kind = m.group(1).lower()
        kind = _REF_NAME.get(kind, kind.rstrip("s") if kind.endswith("s") else kind)
        toks.append(f"{kind} {m.group(2).lower()}")
    for m in _TOKEN.finditer(text):
        word = m.group(0).lower().strip("._'/-")
        if not word or word in STOPWORDS:
            continue
        if word.isalpha() or word.isdigit():  # the common case: one plain word
            toks.append(stem(word) if use_stem else word)
            continue
        parts = [p for p in _SEP.split(word) if p]
        if len(parts) > 1:
            toks.append(word)
            toks.extend("-".join(parts[:i]) for i in range(2, len(parts)))
        else:
            sub = _ALNUM_SPLIT.findall(word)
            toks.append(stem(word) if use_stem else word)
            if len(sub) > 1:
                parts = sub
            else:
                continue
        toks.extend((stem(p) if use_stem else p) for p in parts if p not in STOPWORDS)
    return tuple(toks)
