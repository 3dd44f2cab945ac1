"""Page text normalisation: the same rules for every extractor and document.

Pure functions over page records. Cleaning is per document because running
headers/footers and the vocabulary used to undo hyphenation are per document.
Table rows (`|`-lines) and algorithm step lines are kept line-for-line.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from citerag.build.ingest import PageRecord
from citerag.core.params import CleanParams
from citerag.text.patterns import HEADING_MARK, SPACED_DOT_MEMBER, SPACED_MEMBER, has_pseudocode
from citerag.text.tokenize import STOPWORDS, function_words

# Characters NFKC leaves alone but that break token matching ("ML‑KEM", "−1").
_CHAR_MAP = str.maketrans(
    {
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2212": "-",  # minus sign
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
        "\u200b": "",
        "\ufeff": "",
    }
)

_SOFT_HYPHEN = re.compile(r"\u00ad\s*")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SUP = re.compile(r"<sup>(.*?)</sup>", re.S)
_SUB = re.compile(r"<sub>(.*?)</sub>", re.S)
_BR = re.compile(r"<br\s*/?>", re.I)
_TAG = re.compile(r"</?(?:u|i|b|em|strong|span|code|s)>", re.I)
_LISTED_STEP = re.compile(r"^- (\d{1,2}: )")
_EMPTY_HEADING = re.compile(r"^#+\s*$")
_LINK = re.compile(r"\[([^\]]+)\]\((?:https?://|#)[^)]*\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w])")
# Italic markers glued to the next word ("_Deprecated_after 2030") → "Deprecated after 2030".
_GLUED_ITALIC = re.compile(r"(?<![\w])_([A-Za-z][A-Za-z ]*?)_(?=[A-Za-z])")
_ESCAPES = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|])")
_WRAPPED_UNDERSCORE = re.compile(r"(?<=\w)_ (?=[a-z])")
_LINE_HYPHEN = re.compile(r"([A-Za-z]{2,})-\n([a-z]{2,})")
_INLINE_HYPHEN = re.compile(r"\b([A-Za-z]{2,})- ([a-z]{2,})\b")
_WORD = re.compile(r"[A-Za-z]+")
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?(\d{1,4}|[ivxlcdm]{1,7})(?:\s+of\s+\d+)?\s*$", re.I)
_SPACES = re.compile(r"[ \t]+")
_STEP = re.compile(r"(?:(?<=\s)|^)(\d{1,2}): ")
# A margin line number: 1-4 digits not inside a larger number, not an algorithm step "N:".
_LINE_NO = re.compile(r"(?<![\d.,\-/])(\d{1,4})(?![\d:]|[.,]\d)")


@dataclass(frozen=True)
class CleanPage:
    doc_id: str
    page: int
    text: str


def normalize_chars(text: str, nfkc: bool = True) -> str:
    """NFKC (math italic 𝑑 → d, ℤ → Z, ligatures) plus hyphen/space variants."""
    if nfkc:
        text = unicodedata.normalize("NFKC", text)
    return _SOFT_HYPHEN.sub("", text.translate(_CHAR_MAP))


def strip_markdown(text: str) -> str:
    """Remove pymupdf4llm's emphasis/HTML while keeping heading markers and table pipes."""
    text = _HTML_COMMENT.sub("", text)
    text = _SUP.sub(lambda m: "^" + m.group(1).strip("_* "), text)
    text = _SUB.sub(lambda m: m.group(1), text)
    out_lines = []
    for line in text.split("\n"):
        # Inside table rows a <br> is a wrapped cell; elsewhere it is a line break.
        line = _BR.sub(" " if line.lstrip().startswith("|") else "\n", line)
        line = _LINK.sub(r"\1", _TAG.sub("", line))
        line = _LISTED_STEP.sub(r"\1", line)
        if _EMPTY_HEADING.match(line):
            continue
        for _ in range(2):  # nested emphasis like **_x_**
            line = _BOLD.sub(r"\1", line)
            line = _ITALIC.sub(r"\1", line)
        line = _GLUED_ITALIC.sub(r"\1 ", line)
        line = line.replace("**", "")
        # a backslash inside a code span is the text's own ("`\.path.`"), not a markdown escape; a
        # space after an underscore there is where the line wrapped ("`\.user_ name.`")
        line = "".join(_WRAPPED_UNDERSCORE.sub("_", piece) if i % 2 else _ESCAPES.sub(r"\1", piece)
                       for i, piece in enumerate(line.split("`")))
        out_lines.append(line)
    return "\n".join(out_lines)


def split_algorithm_steps(text: str) -> str:
    """Put numbered algorithm steps ("1: … 2: …") merged onto one line back on their own lines.

    Only a run numbered in order counts, so "see 3: " in prose is left alone. The run starts at
    1, or at the number the line opens with: the layout merges the later steps of a long
    algorithm too ("10: while … do 11: … 12: …"), and each must be its own step to be quoted.
    """
    out = []
    for line in text.split("\n"):
        if line.lstrip().startswith("|"):
            out.append(line)
            continue
        if not has_pseudocode(line):  # numbered console output or prose, not merged steps
            out.append(line)
            continue
        matches = list(_STEP.finditer(line))
        opening = _STEP.match(line)
        expected, cuts = int(opening.group(1)) if opening else 1, []
        for m in matches:
            if int(m.group(1)) == expected:
                cuts.append(m.start())
                expected += 1
        if len(cuts) < 2:
            out.append(line)
            continue
        pieces = [line[: cuts[0]]] + [line[a:b] for a, b in zip(cuts, [*cuts[1:], len(line)])]
        out.extend(p.rstrip() for p in pieces if p.strip())
    return "\n".join(out)


_COMPOUND = re.compile(r"\b([A-Za-z]{2,})-([A-Za-z]{2,})\b")
_LONG_WORD = re.compile(r"\b[a-z]{6,}\b")


def restore_compounds(texts: list[str]) -> list[str]:
    """Undo over-eager joins ("fourthround") when the document also writes "fourth-round".

    The extractor drops a line-end hyphen even when it belongs to the word; the
    document's own hyphenated compounds tell which joins were wrong.
    """
    compounds: Counter[str] = Counter()
    plain: Counter[str] = Counter()
    for t in texts:
        compounds.update(m.group(0).lower() for m in _COMPOUND.finditer(t))
        plain.update(_LONG_WORD.findall(t))
    fix = {c.replace("-", ""): c for c, n in compounds.items() if c.count("-") == 1}
    fix = {j: c for j, c in fix.items() if plain[j] and compounds[c] >= plain[j]}
    if not fix:
        return texts
    pat = re.compile(r"\b(" + "|".join(map(re.escape, sorted(fix))) + r")\b")
    return [pat.sub(lambda m: fix[m.group(1)], t) for t in texts]


# A member written glued to its object ("AB-KX.Make", "Π.Make"), the evidence that a spaced one
# (SPACED_DOT_MEMBER) is a member too.
_GLUED_MEMBER = re.compile(r"(?<![\w.-])[^\W\d_][\w-]*\.([A-Z][A-Za-z0-9]+)\b")


def join_spaced_members(texts: list[str]) -> list[str]:
    """Glue "X . Member" back into "X.Member" where the document shows Member to be a member: it
    writes it glued elsewhere ("AB-KX.Make"), or spaced after two or more objects ("ENC . Open",
    "AB-ENC . Open"). A sentence ending on a name ("… the address REG . Output :", "… the DRV . So")
    stays apart: its next word is a function word, or follows that name alone. The question "What
    does X.Make output?" then finds its name, and the sentence splitter no longer cuts "X . Wrap :
    On input …" in two."""
    glued = {m.group(1) for t in texts for m in _GLUED_MEMBER.finditer(t)}
    owners: defaultdict[str, set[str]] = defaultdict(set)
    for t in texts:
        for m in SPACED_DOT_MEMBER.finditer(t):
            owners[m.group(2)].add(m.group(1))
    members = {w for w, objs in owners.items()
               if (w in glued or len(objs) >= 2) and w.lower() not in STOPWORDS and w.lower() not in function_words()}
    if not members:
        return texts
    return [SPACED_DOT_MEMBER.sub(lambda m: f"{m.group(1)}.{m.group(2)}" if m.group(2) in members else m.group(0), t)
            for t in texts]


def dehyphenate(text: str, vocabulary: set[str]) -> str:
    """Join words broken at line ends; inline "ap- proved" only when "approved" is a real word."""
    text = _LINE_HYPHEN.sub(r"\1\2", text)

    def join(m: re.Match[str]) -> str:
        joined = m.group(1) + m.group(2)
        return joined if joined.lower() in vocabulary else m.group(0)

    return _INLINE_HYPHEN.sub(join, text)


def _line_number_chain(text: str, max_gap: int = 3) -> list[re.Match[str]]:
    """The longest increasing run of numbers, each 1..max_gap above the last, in text order.

    Gaps are allowed because a line number glued to a digit ("800154") is not a candidate.
    """
    cands = list(_LINE_NO.finditer(text))
    values = [int(m.group(1)) for m in cands]
    best = [1] * len(cands)
    prev = [-1] * len(cands)
    for i, v in enumerate(values):
        for j in range(i):
            if 1 <= v - values[j] <= max_gap and best[j] + 1 > best[i]:
                best[i], prev[i] = best[j] + 1, j
    if not cands:
        return []
    i = max(range(len(cands)), key=lambda k: (best[k], -k))
    chain = []
    while i != -1:
        chain.append(cands[i])
        i = prev[i]
    return chain[::-1]


def strip_line_numbers(texts: list[str], min_run: int = 8, min_share: float = 0.5) -> list[str]:
    """Remove draft-style margin line numbers when most pages of a document carry them.

    A number glued to the word before it ("public140 key") sat where a hyphenated
    line break was, so the hyphen is restored ("public-key", "800-186").
    """
    chains = [_line_number_chain(t) for t in texts]
    numbered = sum(len(c) >= min_run for c in chains)
    if not texts or numbered < max(2, min_share * len(texts)):
        return texts
    out = []
    for text, chain in zip(texts, chains):
        if len(chain) < min_run:
            out.append(text)
            continue
        pieces, pos = [], 0
        for m in chain:
            a, b = m.span()
            glued = a > 0 and text[a - 1].isalnum() and b < len(text) and text[b] == " "
            pieces.append(text[pos:a] + ("-" if glued else ""))
            pos = b + 1 if glued else b
        pieces.append(text[pos:])
        out.append("".join(pieces))
    return out


def _signature(line: str) -> str:
    """What makes two running-header lines "the same": markup and a page number glued
    to either end don't matter (digits inside the line do: body lines differ by them)."""
    s = _SPACES.sub(" ", HEADING_MARK.sub("", line.strip()).lower())
    return re.sub(r"^\d{1,4}\s+|\s+\d{1,4}$", "", s)


def _edge_indices(lines: list[str], n: int) -> list[int]:
    nonempty = [i for i, ln in enumerate(lines) if ln.strip()]
    return sorted(set(nonempty[:n] + nonempty[-n:])) if n else []


def find_running_lines(pages: list[list[str]], scan: int, min_share: float) -> set[str]:
    """Signatures of lines that recur at page edges across a document."""
    if len(pages) < 4 or scan == 0:
        return set()
    counts: Counter[str] = Counter()
    for lines in pages:
        counts.update({_signature(lines[i]) for i in _edge_indices(lines, scan)})
    threshold = max(2, min_share * len(pages))
    return {sig for sig, c in counts.items() if c >= threshold and sig and not sig.isdigit()}


# Extraction spacing inside identifiers: "KeyGen _ internal" → "KeyGen_internal" (and SPACED_MEMBER).
_SPACED_UNDERSCORE = re.compile(r"(?<=\w) _ (?=\w)")


# The end of a list item no sentence ends on: a function word or a comma (not a verb: "a typical
# code fragment is" announces the code on the next line).
_BROKEN_END = re.compile(r"(?:\b(?:the|a|an|and|or|nor|of|to|that|with|in|for|by|on|as|at|from|which|its|their|"
                         r"these|those|this|than|into|such)|,)$")


def _join_broken_items(paragraphs: list[str]) -> list[str]:
    """A line the extractor made a list item of its own ("- … based on the" then "- expected impact
    …", a draft's margin numbers between them): an item ending where no sentence ends and the next
    item opening in lower case are one sentence. (Measured: joining plain paragraphs as well cost
    manual answers.)"""
    out: list[str] = []
    for para in paragraphs:
        last = out[-1].rsplit("\n", 1)[-1] if out else ""
        if last.startswith("- ") and _BROKEN_END.search(last) and re.match(r"- [a-z]", para):
            out[-1] = f"{out[-1]} {para[2:]}"
        else:
            out.append(para)
    return out


def _tidy(text: str) -> str:
    text = _SPACED_UNDERSCORE.sub("_", SPACED_MEMBER.sub(r"\1.", text))
    lines = [_SPACES.sub(" ", ln).strip() for ln in text.split("\n")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
    return "\n\n".join(_join_broken_items(text.split("\n\n"))).strip()


def clean_document(pages: list[PageRecord], params: CleanParams) -> list[CleanPage]:
    """Clean all pages of one document (they must share a doc_id)."""
    texts = [normalize_chars(p.text, params.nfkc) for p in pages]
    if params.strip_markdown:
        texts = [strip_markdown(t) for t in texts]
    if params.strip_line_numbers:
        texts = strip_line_numbers(texts)
    texts = join_spaced_members([split_algorithm_steps(t) for t in texts])
    if params.dehyphenate:
        vocab = {w.lower() for t in texts for w in _WORD.findall(t)}
        texts = restore_compounds([dehyphenate(t, vocab) for t in texts])
    split = [t.split("\n") for t in texts]
    running = find_running_lines(split, params.header_footer_scan_lines, params.header_footer_min_share)
    # A running title comes from the title page: there it is the title itself ("FIPS 205",
    # "Stateless Hash-Based Digital Signature Standard"), not a header to drop. It stays as a line
    # of text: as a heading it would head every chunk after it and move their embeddings.
    first = min((rec.page for rec in pages), default=0)
    out = []
    for rec, lines in zip(pages, split):
        edges = set(_edge_indices(lines, params.header_footer_scan_lines))
        kept = []
        for i, line in enumerate(lines):
            if i in edges and _signature(line) in running:
                if rec.page == first:
                    kept.append(HEADING_MARK.sub("", line.strip()))
                continue
            if params.strip_page_numbers and i in edges and _PAGE_NUMBER.match(line):
                continue
            kept.append(line)
        out.append(CleanPage(rec.doc_id, rec.page, _tidy("\n".join(kept))))
    return out


def clean_pages(pages: Iterable[PageRecord], params: CleanParams) -> list[CleanPage]:
    """Clean a mixed list of page records, document by document, order preserved."""
    by_doc: dict[str, list[PageRecord]] = {}
    for p in pages:
        by_doc.setdefault(p.doc_id, []).append(p)
    out: list[CleanPage] = []
    for doc_id in by_doc:
        out.extend(clean_document(sorted(by_doc[doc_id], key=lambda p: p.page), params))
    return out
