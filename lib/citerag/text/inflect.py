"""English inflection, enough to tell whether a text says a word in another form.

"disallowing" is said by "disallowed", "translated" by "translation", "wrote" by "written": the
checks that a corpus, or a cited passage, states a word of the question must not miss a form the
question happens not to use. Plain English morphology, no corpus vocabulary.
"""

from __future__ import annotations

import re

ENDINGS = ("", "s", "es", "ed", "d", "ing")

# Irregular past forms → the base verb (the common ones a question asks with).
IRREGULAR = {
    "wrote": "write", "written": "write", "won": "win", "chose": "choose", "chosen": "choose", "began": "begin",
    "begun": "begin", "drew": "draw", "drawn": "draw", "grew": "grow", "grown": "grow", "took": "take",
    "taken": "take", "gave": "give", "given": "give", "made": "make", "built": "build", "sold": "sell",
    "bought": "buy", "led": "lead", "met": "meet", "paid": "pay", "sent": "send", "spent": "spend",
    "found": "find", "held": "hold", "kept": "keep", "left": "leave", "lost": "lose", "ran": "run",
    "said": "say", "saw": "see", "seen": "see", "told": "tell", "thought": "think", "withdrew": "withdraw",
    "withdrawn": "withdraw", "broke": "break", "broken": "break", "fell": "fall", "fallen": "fall",
    "rose": "rise", "risen": "rise", "came": "come", "went": "go", "gone": "go", "knew": "know",
    "known": "know", "shown": "show", "hid": "hide", "hidden": "hide", "brought": "bring", "caught": "catch",
    "taught": "teach", "fought": "fight", "froze": "freeze", "frozen": "freeze", "stole": "steal",
    "stolen": "steal", "forgot": "forget", "forgotten": "forget", "undertook": "undertake",
    "overtook": "overtake", "understood": "understand",
}


def bases(low: str) -> set[str]:
    """The word and the bases its plural or inflected form may come from, by its actual ending
    ("suffixes" → suffix, "libraries" → library, "disallowing" → disallow, "encoded" → encode)."""
    forms = {low}
    if low in IRREGULAR:
        forms.add(IRREGULAR[low])
    if low.endswith("ies"):
        forms.add(low[:-3] + "y")
    if low.endswith("es"):
        forms.add(low[:-2])
    if low.endswith("s") and not low.endswith("ss"):
        forms.add(low[:-1])
    if low.endswith("ed"):
        forms |= {low[:-2], low[:-1], low[:-3] if low[-3:-2] == low[-4:-3] else low[:-2]}
    if low.endswith("ied"):
        forms.add(low[:-3] + "y")
    if low.endswith("ing"):
        forms |= {low[:-3], low[:-3] + "e", low[:-4] if low[-4:-3] == low[-5:-4] else low[:-3]}
    return {f for f in forms if len(f) >= 3}


def past_participle(past: str) -> str:
    """The past participle of a verb's past form ("wrote" → "written", "chose" → "chosen";
    "built", "designed" are their own), for asking a past event in the passive."""
    low = past.lower()
    base = IRREGULAR.get(low)
    if base is None:
        return low
    if low in _BASE_PARTICIPLE:  # "ran" → "run", "came" → "come"
        return base
    others = [f for f, b in IRREGULAR.items() if b == base and f != low]
    return next((f for f in others if f.endswith(("n", "ne"))), low)


# Past forms whose participle is the base verb.
_BASE_PARTICIPLE = frozenset("ran came".split())


_PREFIXES = ("sub", "non", "pre", "re", "un", "multi", "inter", "co")


def derives_from(word: str, words: frozenset[str]) -> bool:
    """Whether the word is one of `words` inflected or prefixed ("verifying", "subcategory")."""
    if bases(word) & words:
        return True
    return any(word.startswith(p) and len(word) - len(p) >= 4 and bases(word[len(p):]) & words for p in _PREFIXES)


# British and American spellings of one word: colour/color, centre/center, licence/license,
# optimise/optimize, analyse/analyze, catalogue/catalog.
_SPELLINGS = ((r"our$", "or"), (r"our(s|ed|ing)$", r"or\1"), (r"tre$", "ter"), (r"tres$", "ters"),
              (r"ence$", "ense"), (r"is(e|es|ed|ing|ation)$", r"iz\1"), (r"ys(e|es|ed|ing)$", r"yz\1"),
              (r"ogue$", "og"), (r"ogues$", "ogs"))


# A verb in -yze (-yse) and the noun of its action in -ysis: "analyze"/"analysis",
# "cryptanalyze"/"cryptanalysis", "paralyse"/"paralysis".
_LYSIS = re.compile(r"(.{3,}y)(?:ze|se|sis)$")


def lysis_forms(low: str) -> set[str]:
    """The word's verb and noun in that pair ("cryptanalyze" → cryptanalyze, cryptanalyse,
    cryptanalysis): a question asking who cryptanalyzed X asks what a title "Cryptanalysis of X"
    states. Empty for any other word."""
    m = _LYSIS.match(low)
    return {m.group(1) + e for e in ("ze", "se", "sis")} if m else set()


def word_roots(low: str) -> set[str]:
    """The bases the word may come from, in either spelling ("initialising" → initialize, initialise),
    and for a verb in -yze the noun of its action ("cryptanalyzed" → cryptanalysis): the forms a text
    writing the word in another inflection shares with it."""
    roots = {b for v in spellings(low) for b in bases(v)}
    return roots | {f for r in roots for f in lysis_forms(r)}


def spellings(low: str) -> set[str]:
    """The word and its other (British or American) spelling, by its ending."""
    out = {low}
    if len(low) < 5:
        return out
    for brit, amer in _SPELLINGS:
        out.add(re.sub(brit, amer, low))
        back = amer.replace("\\1", "")
        if low.endswith(back) and "\\1" not in amer:
            out.add(low[: len(low) - len(back)] + brit.rstrip("$"))
    return out


def hyphenations(low: str) -> list[str]:
    """The word split once by a hyphen, every way ("multiline" → "mu-ltiline", …, "multi-line",
    …): a corpus may write a closed compound hyphenated."""
    return [f"{low[:i]}-{low[i:]}" for i in range(2, len(low) - 1)]


# A lower-case letter then an upper-case word start: the seam of a camel-case name.
_CAMEL_SEAM = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")


def split_camel(text: str) -> str:
    """Camel-case names split into their words ("WordUnpack" → "Word Unpack", "fontName" →
    "font Name"): code writes a word inside a name, and the text then writes it all the same."""
    return _CAMEL_SEAM.sub(" ", text)


_WORD = re.compile(r"[a-z]+")


# Endings of a noun of action and what its verb's stem keeps of them ("justification" → "justif-",
# "rotation" → "rotat-", "selection" → "select-").
_ACTION_NOUNS = (("ification", "if"), ("ion", ""))


def says_word(word: str, text: str) -> bool:
    """Does `text` say `word` in some form: an inflection ("chaired" → chairs, chair), an irregular
    form ("wrote" → written), a derivation of a base of five letters or more ("translated" →
    translation, "developed" → development), a verb in -yze by its noun in -ysis ("cryptanalyzed" →
    cryptanalysis), a noun of action by its verb ("rotation" → rotated;
    a stem of five letters or more: "option" is not said by "opted"), or the verb without its "re-"
    ("reused" → used)?"""
    low = word.lower()
    lows = {low}
    if low.startswith("re") and len(low) >= 6:  # "reused" is said by "used", "rewritten" by "written"
        lows.add(low[2:])  # … and still by itself: "reviewed" by "reviewed"
    roots = set().union(*(word_roots(w) for w in lows))  # bases() maps irregular forms too
    irregular_forms = {f for f, base in IRREGULAR.items() if base in roots}
    stems = {r[:-1] if r.endswith("e") else r for r in roots if len(r) >= 5}
    # a noun of action is said by its verb ("rotation" by "rotated", "justification" by "justified")
    stems |= {v for r in roots for s, t in _ACTION_NOUNS if r.endswith(s) and len(v := r[:-len(s)] + t) >= 5}
    for w in set(_WORD.findall(text.lower())):
        if w in irregular_forms or bases(w) & roots or any(w.startswith(s) for s in stems):
            return True
    return False
