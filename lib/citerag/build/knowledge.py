"""Corpus knowledge: what retrieval, answering and conversation need to know about a corpus.

Built once per corpus by the `knowledge` stage from the chunks, the manifest's
doc ids and titles, and the profile; serving only reads `knowledge.json`.
Nothing here names a corpus's things: everything is mined from the corpus or
comes from its profile.

- **acronyms**: "XOF | eXtendable-Output Function" glossary rows and
  "Key-Encapsulation Mechanism (KEM)" in running text.
- **document mentions**: how a question names a document, from its doc id
  ("WG 12" for `ORG.WG.12`, "widgetry" for `widgetry-guide`) and
  its title's initials when the document uses them ("WAM").
- **documents named by their title** ("the third-round status report", "the
  migration guidance"): at query time, a noun phrase ending in a word for a
  document whose other words all occur in one document's title.
- **names → documents**: a title ending in "(NAME)" defines NAME; the profile adds more. A
  question writing NAME whole (not as the stem of a variant, "NAME-2") names that document by
  name, as the title's initials do.
- **identifier families**: `NAME-<number>` identifiers with at least two
  members in the corpus (WG-KX-512/768/1024). A lone `x86-64` or `UTF-8` is
  just an identifier, not a member of a parameter family.
- **generic identifiers**: identifiers found in every document, which say
  nothing about what one question is about.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import cached_property

from citerag.build.profile import CorpusProfile
from citerag.text.patterns import DOCUMENT_NOUNS, NUMBERED_VARIANT, identifiers, names_place
from citerag.text.tokenize import AUXILIARY_ALTERNATION, STOPWORDS, token_set, tokenize

_SMALL = frozenset({"of", "for", "and", "the", "with", "under", "on", "to", "a", "an", "in", "by"})
_ACR = re.compile(r"^[A-Z][A-Za-z0-9-]{1,11}$")
_PAREN = re.compile(r"\b((?:[A-Za-z][\w-]*\s+){0,6}[A-Za-z][\w-]*)\s+\(([A-Z][A-Za-z0-9-]{1,11})\)")
_TITLE_NAME = re.compile(r"\(([A-Z][A-Za-z0-9-]+)\)\s*$")
_SEP = r"[\s._-]*"
# The next number of a list after a document's number: ", 102", " and 103", ", or 103"
_ELIDED = re.compile(r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)(\d+(?:-\d+)*)(?![\w-])")
_TITLED = re.compile(r"\bthe\s+(?=((?:[\w-]+(?:['’]s)?[ \t]*){1,6}))", re.I)
# What may follow a document's name in its scope phrase ("in the Foo manual", "of the Bar user's
# guide"): a word for a document, or one that names a document only after its name ("the Foo reference")
_GENRE = (r"(?:user'?s\s+)?(?:"
          + "|".join(sorted(DOCUMENT_NOUNS | {"documentation", "paper", "book", "reference"}, key=len, reverse=True))
          + r")\b")
# An auxiliary right after the scope phrase: the question's clause goes on ("… of the Foo manual is X described")
_CLAUSE_GOES_ON = re.compile(rf"\s+(?:{AUXILIARY_ALTERNATION})\b", re.I)


def _scope_phrase(found: str) -> re.Pattern[str]:
    """ "in/according to/of … <document>" (with its genre word: "the Foo manual") in a question."""
    return re.compile(r"\s+(?:in|under|according\s+to|of|for|from)\s+(?:the\s+)?" + re.escape(found)
                      + rf"\b(?:['’]s)?(?:\s+{_GENRE})?", re.I)


def _initials_match(acr: str, expansion: str) -> bool:
    """Does the expansion spell the acronym? Letters in order across its words, the first
    word starting with the first letter, and no more significant words than letters."""
    letters = [c for c in acr.lower() if c.isalpha()]
    words = re.findall(r"[A-Za-z]+", expansion)
    significant = [w for w in words if w.lower() not in _SMALL]
    if sum(c.isupper() for c in acr) < 2 or not letters or not significant:
        return False
    if letters[0] not in words[0][:2].lower() or len(significant) > len(letters):
        return False
    i = 0
    for ch in "".join(w.lower() for w in words):
        if i < len(letters) and ch == letters[i]:
            i += 1
    return i == len(letters)


def mine_acronyms(texts) -> dict[str, str]:
    """Acronym → expansion from glossary rows and in-text definitions; first well-formed wins."""
    found: dict[str, str] = {}
    for text in texts:
        for line in text.split("\n"):
            cells = [x.strip() for x in line.split(" | ")]
            if len(cells) == 2 and _ACR.match(cells[0]) and 3 < len(cells[1]) < 80 \
                    and _initials_match(cells[0], cells[1]):
                found.setdefault(cells[0], cells[1])
        for m in _PAREN.finditer(text):
            acr, words = m.group(2), m.group(1).split()
            for n in range(1, len(words) + 1):  # shortest tail of the phrase that spells it
                cand = " ".join(words[-n:])
                # a name starts with a capital, or capitalises the letter it gives ("eXtensible …")
                if _initials_match(acr, cand) and (cand[0].isupper() or cand[1:].startswith(acr[0])):
                    found.setdefault(acr, cand)
                    break
    return found


def _id_tokens(doc_id: str) -> list[str]:
    return [t for t in re.split(r"[._\s]+", doc_id) if t]


def mine_mentions(titles: dict[str, str], doc_texts: dict[str, str]) -> list[tuple[str, str]]:
    """(phrase, doc_id): the ways a question can name a document."""
    ids = sorted(titles)
    tokens = {d: _id_tokens(d) for d in ids}
    words = {d: [w for t in tokens[d] for w in t.split("-") if w] for d in ids}
    tok_count = Counter(t.lower() for d in ids for t in set(tokens[d]))
    word_count = Counter(w.lower() for d in ids for w in set(words[d]))
    out: list[tuple[str, str]] = []
    for d in ids:
        ts, title_low = tokens[d], titles.get(d, "").lower()
        out.append((" ".join(ts), d))
        core = [t for t in ts if len(t) > 2] if len(ts) > 1 else ts  # "auto-multiple-choice.en" → core
        if core != ts and core:
            out.append((" ".join(core), d))
        for i, t in enumerate(ts):
            if any(c.isdigit() for c in t) and tok_count[t.lower()] == 1:
                if i > 0 and not any(c.isdigit() for c in ts[i - 1]):
                    out.append((f"{ts[i - 1]} {t}", d))       # "WG 12", "TR 101-2"
                if len(t) >= 4:
                    out.append((t, d))                        # "800-227", "8545"
                if 0 < i < len(ts) - 1:
                    # the id without the draft or edition mark after its number, as a reader
                    # names the document: "NIST IR 8547" for "NIST.IR.8547.ipd"
                    out.append((" ".join(ts[:i + 1]), d))
        first = words[d][0] if words[d] else ""
        if len(first) >= 4 and first.isalpha() and word_count[first.lower()] == 1 \
                and first.lower() in title_low and first.lower() not in STOPWORDS:
            out.append((first, d))                            # "widgetry"
        caps = [w for w in re.findall(r"[A-Za-z][\w-]*", titles.get(d, "")) if w[0].isupper()
                and w.lower() not in _SMALL]
        if 2 <= len(caps) <= 6:
            acr = "".join(w[0] for w in caps).upper()
            if re.search(rf"(?<![\w-]){acr}(?![\w-])", doc_texts.get(d, "")):
                out.append((acr, d))                          # "WAM" for "Widget Assembly Manual"
    seen, uniq = set(), []
    for phrase, d in out:
        key = phrase.lower()
        if key not in seen and len(phrase) >= 3:
            seen.add(key)
            uniq.append((phrase, d))
    # a phrase that names two documents names neither
    owners = Counter(p for p, _ in {(p.lower(), d) for p, d in out})
    return [(p, d) for p, d in uniq if owners[p.lower()] == 1 or p == " ".join(tokens[d])]


def mine_families(texts) -> dict[str, list[str]]:
    """stem (lower-case) → members, for `NAME-<number>` identifiers with ≥ 2 members."""
    members: dict[str, set[str]] = {}
    for text in texts:
        for m in NUMBERED_VARIANT.finditer(text):
            members.setdefault(m.group(1).lower(), set()).add(m.group(0))
    return {s: sorted(v, key=str.lower) for s, v in sorted(members.items())
            if len({x.lower() for x in v}) >= 2 and len(s) >= 3}  # "n-1", "x-2" are arithmetic


def mine_generic(doc_texts: dict[str, str]) -> list[str]:
    """Identifiers present in every document (at least two documents)."""
    if len(doc_texts) < 2:
        return []
    sets = [{i.lower() for i in identifiers(t)} for t in doc_texts.values()]
    return sorted(set.intersection(*sets))


@dataclass
class CorpusKnowledge:
    titles: dict[str, str]
    acronyms: dict[str, str] = field(default_factory=dict)
    mentions: list[tuple[str, str]] = field(default_factory=list)
    name_docs: dict[str, str] = field(default_factory=dict)
    families: dict[str, list[str]] = field(default_factory=dict)
    generic: list[str] = field(default_factory=list)
    profile: CorpusProfile = field(default_factory=CorpusProfile)

    # -- build and (de)serialise -----------------------------------------------------------

    @classmethod
    def mine(cls, chunks, titles: dict[str, str], profile: CorpusProfile) -> CorpusKnowledge:
        doc_texts: dict[str, list[str]] = {}
        for c in chunks:
            doc_texts.setdefault(c.doc_id, []).append(c.text)
        joined = {d: "\n".join(v) for d, v in doc_texts.items()}
        titles = {d: titles.get(d, d) for d in sorted(set(titles) | set(joined))}
        name_docs = {m.group(1): d for d, t in titles.items() if (m := _TITLE_NAME.search(t))}
        name_docs.update(profile.name_docs)
        generic = sorted(set(mine_generic(joined)) | {g.lower() for g in profile.generic_terms})
        texts = [c.text for c in chunks]
        return cls(titles, mine_acronyms(texts), mine_mentions(titles, joined), name_docs,
                   mine_families(texts), generic, profile)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["profile"] = self.profile.model_dump(mode="json")
        d["mentions"] = [list(m) for m in self.mentions]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> CorpusKnowledge:
        return cls(d["titles"], d["acronyms"], [tuple(m) for m in d["mentions"]], d["name_docs"],
                   d["families"], d["generic"], CorpusProfile.model_validate(d["profile"]))

    # -- query-time helpers ----------------------------------------------------------------

    @cached_property
    def _mention_res(self) -> list[tuple[re.Pattern[str], str]]:
        """The mention phrases, longest first, any separator between their words; then the names
        documents define, written whole and as defined ("WGT", not "WGT-2")."""
        pats = []
        for phrase, doc in sorted(self.mentions, key=lambda m: -len(m[0])):
            body = _SEP.join(re.escape(t) for t in re.split(r"[\s._-]+", phrase) if t)
            pats.append((re.compile(rf"(?<![\w-]){body}(?![\w-])", re.I), doc))
        for name, doc in sorted(self.name_docs.items(), key=lambda x: -len(x[0])):
            pats.append((re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])"), doc))
        return pats

    def doc_mentions(self, text: str) -> list[tuple[str, str]]:
        """(matched text, doc_id) for each document the text names, longest phrases first,
        then the names documents define ("… in WGT" names the document defining WGT, as a
        manual's name names the manual), without overlaps."""
        taken: list[tuple[int, int]] = []
        out: list[tuple[str, str]] = []
        for pat, doc in self._mention_res:
            for m in pat.finditer(text):
                if any(m.start() < b and a < m.end() for a, b in taken):
                    continue
                taken.append(m.span())
                out.append((m.group(0), doc))
        for span, doc in self._title_mentions(text):
            if not any(span[0] < b and a < span[1] for a, b in taken):
                taken.append(span)
                out.append((text[span[0]:span[1]], doc))
        out += self._elided_mentions(text, out)
        return sorted(out, key=lambda x: text.find(x[0]))

    def _elided_mentions(self, text: str, found: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The numbers a list writes after a named document's, its series left out: "TR 101,
        102 and 103" names three documents. Each must be a document the corpus knows by that
        series and number."""
        out: list[tuple[str, str]] = []
        for phrase, _doc in found:
            series = re.fullmatch(r"(.*\D)\s*\d[\w.-]*", phrase)
            if not series:
                continue
            pos = text.find(phrase) + len(phrase)
            while m := _ELIDED.match(text, pos):
                name = f"{series.group(1).strip()} {m.group(1)}"
                doc = next((d for pat, d in self._mention_res if pat.fullmatch(name)), None)
                if doc is None:
                    break
                out.append((m.group(1), doc))
                pos = m.end()
        return out

    @cached_property
    def _title_tokens(self) -> dict[str, frozenset[str]]:
        return {d: token_set(t) for d, t in self.titles.items()}

    def _title_mentions(self, text: str) -> list[tuple[tuple[int, int], str]]:
        """"the <words> <document noun>" whose words (generic ones aside) all occur in a
        document's title: "the third-round status report" names the title "Status Report on the
        Third Round …", "the migration report" the one title with "Migration". Several titles
        fitting, the one that also holds the document noun ("recommendation") wins; a tie names
        none."""
        titles = self._title_tokens

        def in_title(word: str, toks: frozenset[str]) -> bool:
            t = tokenize(word)  # a compound whole or all of its parts ("third-round")
            return bool(t) and (t[0] in toks or (len(t) > 1 and all(x in toks for x in t[1:])))

        out = []
        for m in _TITLED.finditer(text):
            words = list(re.finditer(r"[\w-]+", m.group(1)))
            ends = [i for i, w in enumerate(words) if w.group(0).lower() in DOCUMENT_NOUNS]
            if not ends or any(w.group(0).lower() in STOPWORDS for w in words[:ends[-1]]):
                continue
            phrase = [w.group(0) for w in words[:ends[-1] + 1]]
            content = [w for w in phrase if w.lower() not in DOCUMENT_NOUNS and not self.is_generic(w)]
            fits = {d: toks for d, toks in titles.items() if all(in_title(w, toks) for w in content)}
            if not content or not fits:
                continue
            score = {d: sum(in_title(w, toks) for w in phrase) for d, toks in fits.items()}
            best = max(score.values())
            docs = [d for d, v in score.items() if v == best]
            if len(docs) == 1:
                out.append(((m.start(1), m.start(1) + words[ends[-1]].end()), docs[0]))
        return out

    def strip_scope(self, text: str) -> str:
        """The text without its "in <document> …" scope: the phrase and what follows it ("the key
        sizes in STD-7 table 2", "the seed of Foo's random generator"), unless the question
        goes on after it with its verb ("On which page of the Foo manual *is* the ls command
        described"): then the phrase alone."""
        for found, _ in self.doc_mentions(text):
            m = _scope_phrase(found).search(text)
            if m:
                rest = text[m.end():]
                return text[: m.start()] + (rest if _CLAUSE_GOES_ON.match(rest) else "")
        return text

    def closing_place(self, text: str) -> str:
        """The scope phrase closing the text when it names a document by number or title ("…
        mean according to STD 7?"): where to look, not a word of what is asked ("" when none; a
        document named by name, "for Widgetry", is also the topic)."""
        for found, _ in self.doc_mentions(text):
            m = _scope_phrase(found).search(text)
            if m and names_place(found) and not text[m.end():].strip(" ?.!"):
                return text[m.start():]
        return ""

    @cached_property
    def _generic(self) -> frozenset[str]:
        return frozenset(self.generic)

    def is_generic(self, ident: str) -> bool:
        return ident.lower() in self._generic

    def family(self, ident: str) -> str | None:
        """The family stem of a `NAME-<number>` identifier when the corpus has that family."""
        m = NUMBERED_VARIANT.fullmatch(ident)
        return m.group(1).lower() if m and m.group(1).lower() in self.families else None

    def is_variant(self, ident: str) -> bool:
        return self.family(ident) is not None

    @cached_property
    def examples_of_names(self) -> list[str]:
        """Names to offer in a clarifying question: the profile's, else names from titles,
        else the shortest document mentions."""
        if self.profile.examples.clarify:
            return list(self.profile.examples.clarify)
        if self.profile.names:
            return list(self.profile.names[:3])
        if self.name_docs:
            return sorted(self.name_docs)[:3]
        short = sorted({p for p, _ in self.mentions}, key=lambda p: (len(p), p))
        return short[:3]
