"""Evidence units and passages: what one sentence of an extractive answer may restate.

Units are prose sentences, table rows rendered with their header cells
("WG-KX-768: encapsulation key 1184, …"), glossary rows ("term: definition"),
algorithm titles and steps. Every unit keeps the key of the evidence it came
from, so every sentence of an answer is cited by construction.

A passage is a unit plus the units that continue it. Documents often state a
fact in the sentence *after* the one that names the topic: "PageBreak … . It
works by consuming all vertical space", "the layers, top down, are:" followed
by the list, "If 1, … . If 0, …". Scoring the anchor alone picks the sentence
that shares the question's words and misses the one that answers; scoring the
passage as one text keeps both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citerag.answer.asked import CONTENTS_LEADERS as _LEADERS
from citerag.answer.asked import (
    COPYRIGHT_NOTICE,
    CUES,
    contents_entries,
    is_byline,
    mend_kind_word,
    page_last,
    spelled_acronyms,
)
from citerag.answer.asked import REFERENCE_ENTRY as _REFERENCE_ENTRY
from citerag.answer.evidence import Evidence
from citerag.text.patterns import ALGORITHM_TITLE as _ALGO
from citerag.text.patterns import DOT_LEADER as _DOT_LEADER
from citerag.text.patterns import GLOSSARY_HEADING, IO_LINE, NUMBER_WORD, NUMBER_WORDS, has_pseudocode
from citerag.text.patterns import STEP_LINE as _STEP
from citerag.text.patterns import TABLE_CAPTION as _CAPTION
from citerag.text.sentences import split_prose
from citerag.text.tokenize import STOPWORDS

# A sentence that leans on the one before it: a pronoun or connective subject, a condition on
# the same setting, an example of it, its default ("--density d sets … . Defaults to 300."), or
# the next of an enumeration ("… two kinds of steps. The first kind … The second kind …").
# A sentence that states the default of the setting before it ("Defaults to 300.", "Default value is 1.").
_DEFAULT_OPENING = r"defaults? (?:to|is)|default:|(?:the )?default (?:is|value)"
# A remark in parentheses after a sentence of its paragraph adds to it ("… yielding 3. (Opposite
# to sup .)"): too short a statement to stand alone, it is read with that sentence.
_ASIDE = re.compile(r"^\([^()]+\)\.?$")
_CONTINUES = re.compile(
    r"^(?:it|its|this|these|they|their|those|such|thus|hence|therefore|then|here|if|when|otherwise|"
    r"in (?:this|that|such) case|for (?:example|instance)|e\.g\.|each|both|the (?:latter|former|result)|"
    r"the (?:first|second|third|fourth|other|last) (?=\w+ )|(?:secondly|thirdly|finally|lastly),|"
    rf"{_DEFAULT_OPENING})\b",
    re.I)
# A numbered section title standing alone as a paragraph ("4.2 Page breaks", "3.10.1 Retry policy").
# (a number's dot is no sentence's end: "4.2.2 Version 3.1.3 [2019 May 10]")
_SECTION = re.compile(r"^\d{1,2}(?:\.\d{1,3})+\.?\s+\S(?:[^.!?]|(?<=\d)\.(?=\d)){0,80}$")
# The name and call of an algorithm's title (" Unfold^-1 (ŵ)", " PackBits(b)"), up to the mark after it.
_CALL = re.compile(r"\s*[^\s()]+\s?\([^()]*\)\S?")
# A list item's mark: a bullet (not an option's dashes, "--density") or a number ("1.", "2)")
# on a line that is no algorithm step.
_BULLET = re.compile(r"(?:[-•*]|\d{1,2}[.)])\s")
# A bullet mark alone (not an item's number: it is no list here); a dash only with a space after it.
_MARK = re.compile(r"^(?:(?:•|[-*](?=\s))\s*)+")
# Words in a list item short enough to be one entry of a list rather than a statement of its own;
# chaining long items would make a passage that matches any question.
_SHORT_ITEM = 15
_DEFAULT = re.compile(rf"^(?:{_DEFAULT_OPENING})\b", re.I)
# Items of an announced list that are names (this many words at most: "Box", "Arc (a ring slice)")
# a passage reads beyond its window of following units, up to `_LIST_ITEMS` of them. (Longer items,
# each a description, are read as before: reading more of them pushed the asked one out.)
_LIST_ITEMS = 12
_NAME_ITEM = 4
# A one-word list item that is a name ("Box", "--quiet", "setInk"), not a stray word of a line.
_ITEM_NAME = re.compile(r"[A-Z][\w.+-]*|[\w.+-]*[A-Z_.(][\w.()+-]*|-{1,2}\w[\w-]*")
# A sentence that announces what follows: ends with a colon, or stops on a linking word.
_ANNOUNCES = re.compile(r"(?::|\b(?:are|is|follows|following|these|include|includes))\s*$", re.I)


@dataclass
class Unit:
    text: str
    key: str
    kind: str  # sentence | row | definition | step | title | code | contents | byline | front
    order: int  # position in the evidence, for stable output
    group: str = ""  # algorithm title for steps (and the description line under the title)
    block: int = 0  # paragraph (blank-line block) within the evidence
    heading: str = ""  # the heading path of the evidence it came from
    item: bool = False  # an item of a list the unit before announces ("… fonts:" then "- chs = …")
    opens: bool = False  # the first sentence under a section title in this evidence


# A title page's byline is read on a document's first pages, for a question asking who wrote it.
FRONT_PAGES = 2


def front_lines(ev: Evidence) -> list[Unit]:
    """A title page's lines, each a unit (kind "front"), the first (the chunk's title) too: what
    it states (a title, a date, a name with its office) stands in lines, not sentences."""
    if ev.loc.start_page > FRONT_PAGES:
        return []
    lines = [ln.strip() for ln in ev.text.split("\n") if ln.strip()]
    return [Unit(ln, ev.key, "front", n, heading=ev.heading) for n, ln in enumerate(lines)]


# A display equation's left side the layout set apart from its right ("F(x, y) =" over "Trunc(G(x ∥ y))")
_LEFT_SIDE = re.compile(r"[\w)\]]\s*=\s*$")


# A line of code continued on the next one, ending on one backslash ("draw label "x" at \\"); a
# doubled backslash is a line break of markup, not a continuation.
_CONTINUED = re.compile(r"(?<!\\)\\\s*$")


def _broken_item(para: str) -> bool:
    """An item opening a sentence a layout set line by line as list items ("- This document is
    intended for a broad audience, including federal agencies, technology" then "- providers,
    standards organizations, …"): one line, opening on a capital, of a sentence's length, with no
    mark ending it."""
    if "\n" in para.strip() or not _BULLET.match(para):
        return False
    said = _BULLET.sub("", para, count=1).strip()
    return said[:1].isupper() and len(said.split()) >= 6 and not re.search(r"[.:;!?]$", said)


def _join_broken(paras: list[str]) -> list[str]:
    """Paragraphs a layout set apart that read as one, joined again. An equation's left side,
    ending on "=", is joined to the paragraph that holds its right side: apart, one states what is
    defined and the other what it is, neither the definition. So is a line of code continued by a
    backslash to the paragraph that continues it: a layout that set each continued line apart split
    one command into pieces, the first of them all an announced example was read as (the values sat
    in the pieces after it). And a sentence a layout broke into list items is joined again, up to
    its end (its last piece, "laboratories.", was dropped as no statement)."""
    out: list[str] = []
    broken = False  # the paragraph before ended a piece of a broken sentence
    for para in paras:
        # an item opening in lower case (the letter after a one-character mark and its space)
        # continues the sentence the items before it broke off
        if out and _BULLET.match(para) and para.strip()[2:3].islower() and (broken or _broken_item(out[-1])):
            out[-1] = f"{out[-1].rstrip()} {_BULLET.sub('', para.strip(), count=1)}"
            broken = not re.search(r"[.:;!?]$", out[-1].rstrip())
        elif out and _CONTINUED.search(out[-1]) and para.strip():
            out[-1] = f"{out[-1].rstrip()}\n{para.strip()}"
            broken = False
        elif out and _LEFT_SIDE.search(out[-1]) and para.strip():
            out[-1] = f"{out[-1].rstrip()} {para.strip()}"
            broken = False
        else:
            out.append(para)
            broken = False
    return out


def units(ev: Evidence, contents: bool = False, byline: bool = False, code: bool = False,
          code_names: tuple[str, ...] = ()) -> list[Unit]:
    """The evidence's units in reading order. Entries of a contents list or an index state nothing
    but where a part starts: read as units (of kind "contents") only with `contents`, for a question
    asking on which page something is; otherwise left out. So is a title page's byline (kind
    "byline"), read only with `byline`, for a question asking who wrote the document. A line of
    code no sentence announces is read (kind "code") with `code`, for a question about an example,
    or when it sets an attribute of one of `code_names`, names the question writes as code
    ("faceTwo.mood = sad" for "what is the mood of faceTwo?")."""
    out: list[Unit] = []
    header: list[str] | None = None
    caption = ""
    algo = ""

    heading = ev.heading
    own_titles = ev.heading.split(" > ") if ev.heading else []
    # In a glossary, a term may stand on its own line with its definition in the paragraph
    # below ("widget combiner" then "A function that takes …"): that definition is "term: …", and
    # what follows is read under the term.
    glossary = bool(GLOSSARY_HEADING.search(ev.heading))
    term = ""

    titled = False  # a section title was read, and no sentence of prose after it yet

    def add(text: str, kind: str, group: str = "", item: bool = False) -> None:
        nonlocal titled
        # the section's first sentence of prose opens it; a syntax line before it
        # ("‘drawbox.xleft..ybottom.’") is not prose and leaves that to the next sentence
        prose = kind == "sentence" and text[:1].isupper() and len(text.split()) >= 3
        out.append(Unit(text, ev.key, kind, len(out), group, block, heading, item, titled and prose))
        titled = titled and kind == "sentence" and not prose

    paras = _join_broken(re.split(r"\n\s*\n", ev.text))
    label_before = ""  # a label alone in the paragraph before ("Keywords")
    for block, para in enumerate(paras):
        # Contents-list lines ("Algorithm 19 | WG-KX.KeyGen() . . . 35") state nothing but a page.
        raw = [ln.strip() for ln in para.split("\n") if ln.strip()]
        # (never the chunk's first line: the title)
        names = [ln for i, ln in enumerate(raw) if (block or i) and is_byline(ln)] if (
            byline and ev.loc.start_page <= FRONT_PAGES) else []
        if names:
            for ln in names:
                add(ln, "byline")
            continue
        entries = set(contents_entries("\n".join(raw))) if contents else set()
        for ln in raw:
            for cell in ([ln] if ln in entries else [c for c in ln.split(" | ") if c in entries]):
                # (its page read last, as a reader expects it: "10.2 Modifying X … 99")
                add(_LEADERS.sub(" … ", mend_kind_word(page_last(cell))), "contents")
        lines = _join_wrapped_cells([ln for ln in raw if not _DOT_LEADER.search(ln) and ln not in entries])
        header, caption = None, ""
        if len(lines) == 1 and _SECTION.match(lines[0]) and lines[0] not in own_titles:
            # A later section inside the same chunk: its sentences are read under its own title.
            heading = " > ".join([*own_titles[:-1], lines[0]])
            titled = True
            continue
        # A label alone in its paragraph ("Keywords") over a list of terms alone in the next one
        # ("cryptography; post-quantum cryptography; …"): the list is what the label names, a line
        # that reads as no sentence of its own
        label = _MARK.sub("", lines[0]).strip() if len(lines) == 1 else ""
        if label_before and _term_list(label):
            add(f"{label_before}: {label}", "definition")
            label_before = ""
            continue
        label_before = label if _LABEL_ALONE.fullmatch(label) else ""
        if len(lines) == 1 and CUES["email"].fullmatch(lines[0]):
            # an e-mail address alone under its heading ("Contact Information" over
            # "help@example.org"): the heading says what the address is for
            add(f"{heading.split(' > ')[-1]}: {lines[0]}" if heading else lines[0], "definition")
            continue
        if glossary and len(lines) == 1 and _TERM_LINE.match(lines[0]):
            # An acronym list one entry to a paragraph ("PoP Proof of Possession"): the line
            # states its expansion itself (it is still the term a definition below would be read under)
            spelled = spelled_acronyms(lines[0])
            if spelled and lines[0].startswith(spelled[0][0] + " "):
                for acronym, expansion in spelled:
                    add(f"{acronym}: {expansion}", "definition")
            term = lines[0]
            heading = " > ".join([*own_titles[:-1], term])
            continue
        if _described_signature(lines, paras[block + 1] if block + 1 < len(paras) else ""):
            add(lines[0], "code")  # "Sheet.drawEdge(pen)" over "draws the sheet's edge …"
            continue
        if _announced_code(lines, out, block, paras[block + 1] if block + 1 < len(paras) else ""):
            add(" ".join(lines), "code")  # "… write code like this:" then the code, as one unit
            continue
        for i, ln in enumerate(lines):
            if _CAPTION.match(ln):
                caption = re.sub(r"^(Table\s+\d+)[.:]\s*", r"\1, ", ln).rstrip(".")  # one sentence, not two
                continue
            if not caption and _titles_table(ln, lines[i + 1] if i + 1 < len(lines) else ""):
                caption = ln  # "x.choice parameters" over "Parameter | Meaning | Default": the rows' subject
                continue
            m = _ALGO.match(ln)
            if m:
                # A title the layout ran together with what follows it ("Algorithm 9 Unfold(ŵ)
                # Computes the inverse of the fold. Input : …"): the title is the name and its call,
                # and the rest says what the algorithm does, read under that title.
                # (The steps are still read under the whole line: its words say what they do.)
                call = _CALL.match(m.group(2))
                said = split_prose(m.group(2)[call.end():].strip()) if call else []
                algo = f"Algorithm {m.group(1)}{m.group(2)}".strip()
                title = f"Algorithm {m.group(1)}{m.group(2)[:call.end()]}".strip() if said else algo
                add(title, "title", algo)
                for s in said:
                    add(s, "sentence", title)
                continue
            if _STEP.match(ln) and (algo or has_pseudocode(ln)):
                add(ln, "step", algo)
                continue
            if " | " in ln:
                cells = [c.strip() for c in ln.split(" | ")]
                if header is None:
                    header = cells
                    if len(cells) == 2 and not caption:  # glossary tables have no header row
                        add(f"{cells[0]}: {cells[1]}", "definition")
                    continue
                if len(cells) == 2 and len(header) == 2 and not caption:
                    add(f"{cells[0]}: {cells[1]}", "definition")
                    continue
                label = cells[0] or "(row)"
                # A header whose empty corner cell was lost lines up one column short.
                head = [""] * (len(cells) - len(header)) + header if len(header) < len(cells) else header
                pairs = [f"{h} {v}".strip() for h, v in zip(head[1:], cells[1:]) if v]
                prefix = f"{caption}: " if caption else ""
                add(f"{prefix}{label}: {', '.join(pairs)}", "row")
                continue
            if ln.startswith("#!"):  # an interpreter line ("#!/usr/bin/gri") is code, not a heading
                add(ln, "code")
                continue
            if ln.startswith("#"):
                continue
            if _MARKED.fullmatch(ln):  # a shaded block of commands or markup: code, not prose
                add(ln, "code")
                continue
            if _PAIR_RUN.fullmatch(ln):
                for pair in re.finditer(_PAIR, ln):
                    add(f"{pair.group(1)}: {pair.group(2)}", "definition")
                continue
            # (an item of a list may be such a line: "- Marks size max increase: 0.20")
            kv, numbered = _LABELLED.match(_BULLET.sub("", ln, count=1)), _NUMBERED_LABEL.match(ln)
            kv = kv if kv and len(kv.group(2).split()) <= 12 else numbered if numbered and len(
                split_prose(numbered.group(2))) == 1 else None
            if kv and not IO_LINE.match(ln) and not has_pseudocode(ln):
                add(f"{kv.group(1)}: {kv.group(2).rstrip('.')}", "definition")  # "Status: Final"
                continue
            if ln in own_titles:
                titled = True
                continue  # the chunk's own heading line
            if _REFERENCE_ENTRY.match(ln):
                # A reference entry ("[12] Lund A, Okafor B (2021) A title. Venue, pp 1–9.") is one
                # unit: its title and venue are short capitalised lines a sentence test drops,
                # and "which paper …, and where did it appear?" asks for both.
                add(_MARK.sub("", ln, count=1).strip(), "sentence")
                continue
            # A figure's caption opening on an abbreviated label ("Fig. 6. KEM use between …"): the
            # label joined to the caption as one sentence, as a table's is ("Fig. 6, KEM use …"); split
            # at its dot, the label alone was dropped and "which figure shows …" got the caption unnamed.
            ln = _ABBREVIATED_LABEL.sub(r"\1, ", ln, count=1)
            if _PART_CAPTION.match(ln):
                # A figure's or a table's caption ("Figure 2-10: overPrint example") names what the
                # part shows, verb or not: "which figure shows the overPrint example?" asks for it.
                add(_PART_CAPTION.sub(r"\1: ", ln, count=1).rstrip("."), "sentence")
                continue
            # An item of a list announced just before, in this paragraph or (one item to a
            # paragraph) the one before, or the next item of that list.
            # (A displayed equation or code between two items does not end the list, nor do up to two
            # lines read as nothing, a page's running title among them.)
            item = bool(_BULLET.match(ln)) and _continues_list(out, block)
            # drop the item's mark only: an option's own dashes stay ("- --dist-margin d sets …")
            said = split_prose(_MARK.sub("", _BULLET.sub("", ln, count=1) if item else ln, count=1).strip())
            if said and re.fullmatch(r"\d{1,2}[.)]", said[0]):
                said = said[1:]  # an item's number read as a sentence of its own (no statement)
            if glossary:
                said = [e for x in said for e in symbol_entries(x)]
            for n, s in enumerate(said):
                # A numbered or bulleted line's short first sentence names the item its next
                # sentences describe ("2. Two-step derivation. In this case, …"): kept with them.
                names_item = n == 0 and len(said) > 1 and bool(_BULLET.match(ln)) and len(s.split()) >= 2
                # A short line is kept when it completes the unit before it: an item of a list that
                # unit announces, or its default ("Defaults to 300.").
                # An algorithm's title is followed by the line that says what it does ("Undoes
                # the packing step."), however short.
                # An algorithm's "Output : Boolean." is kept however short: it says what the algorithm returns.
                # (an item of an announced list may be one name: "- Box")
                completes = names_item or bool(IO_LINE.match(s)) or (out and (len(s.split()) >= 2 or (
                    item and _ITEM_NAME.fullmatch(s) is not None)) and (item or (
                    out[-1].block == block and (
                        _ANNOUNCES.search(out[-1].text) or _DEFAULT.match(s) or out[-1].kind == "title"
                        or (out[-1].kind == "sentence" and (_CONTINUES.match(s) or _ASIDE.match(s)))
                        # a symbol's example after its entry ("For example, 23 mod 7 = 2.")
                        or (out[-1].kind == "definition" and glossary and _CONTINUES.match(s))))))
                inline = inline_entry(s) if glossary and not term else None
                if inline:  # "legacy mode The tool … may be used only …": the term opens the line
                    add(f"{inline[0]}: {inline[1]}", "definition")
                elif term and (_is_statement(s) or completes):
                    add(f"{term}: {s}", "definition")
                    term = ""
                elif _is_statement(s) or completes or (titled and i == 0 and n == 0 and _short_entry(s)):
                    # The line that says what an algorithm does, and its "Input :" and "Output :"
                    # lines, are read under its title (the algorithm's name is there, not in them).
                    under_title = bool(out) and (out[-1].kind == "title" or bool(
                        algo and IO_LINE.match(s) and out[-1].kind == "sentence" and out[-1].group == algo))
                    add(s, "sentence", algo if under_title else "", item=item)
                elif (code or _sets_attribute_of(s, code_names)) and _CODE_STATEMENT.fullmatch(s):
                    # a line of example code no sentence announces ("canvas.setFont("Helvetica-Bold",
                    # 85)", "size = size+1.5"), read for a question about an example: it states the
                    # example's values (elsewhere short code lines outrank the prose that answers)
                    add(s, "code")
                elif (_NAMED_ROLE.search(s) or COPYRIGHT_NOTICE.match(s)) and len(s.split()) <= 20:
                    # a person with a role, as a title page or a foreword names them ("U.S.
                    # Department of Commerce Ann B. Lee, Secretary"), and a copyright notice: facts
                    # without a verb
                    add(s, "sentence")
                else:
                    # a glossary table flattened into a line of its own ("API Application
                    # Programming Interface GUI Graphical User Interface …"): each acronym it
                    # spells out right after itself is a row
                    for acronym, expansion in spelled_acronyms(s):
                        add(f"{acronym}: {expansion}", "definition")
    return out


def _sets_attribute_of(line: str, names: tuple[str, ...]) -> bool:
    """Is the line an assignment to an attribute of one of the named objects ("tf.faceTwo.mood =
    sad" for "faceTwo")? A line setting the name itself ("uriWasteReduce=0.3") or passing it to a
    call is an example's use of it, which outranked the prose that says what it does."""
    target = _ASSIGNED.match(line) if names else None  # (most questions name nothing as code)
    return bool(target) and bool(set(target.group(1).split(".")[:-1]) & set(names))


def _continues_list(out: list[Unit], block: int) -> bool:
    """The last prose unit before paragraph `block` announces a list or is an item of one, and
    only code or up to two paragraphs read as nothing lie between (see `units`)."""
    last = next((u for u in reversed(out) if u.kind != "code"), None)
    if last is None:
        return False
    said_in = {u.block for u in out if u.kind != "code"}
    near = {block, block - 1}
    while min(near) not in said_in and min(near) > block - 4:
        near.add(min(near) - 1)
    return last.block in near and (last.item or bool(_ANNOUNCES.search(last.text)))


# A call signature on a line of its own: "Sheet.drawEdge(pen)", "page.setInk(name, size)".
_SIGNATURE = re.compile(r"^[A-Za-z_][\w.]*\([^()]*\)$")


def _described_signature(lines: list[str], nxt: str) -> bool:
    """A signature alone in its paragraph, with the next paragraph saying what it does in a
    sentence that leans on it ("draws the sheet's edge as a rectangle"): an API reference's
    entry. The signature is the entry's subject, so it is kept as a code unit the description
    continues; before, it was dropped as no statement and "which method draws the boundary?" got
    the description without the method's name. A description may also open by naming the entry
    ("The drawEdge method draws …")."""
    return len(lines) == 1 and _describes(lines[0], nxt)


# An expression alone in braces, an example a reference entry then describes ("{rpn 2 3 inf}" over
# "Pick the smaller of two values, yielding 3."): the expression names what the entry is about.
_BRACED_EXAMPLE = re.compile(r"^\{[^{}]{2,60}\}$")


def _describes(code: str, nxt: str) -> bool:
    """Does `nxt` describe the signature `code` ("draws the sheet's edge …", "The drawEdge method …"),
    or the braced example `code` (any paragraph of prose after it)?"""
    if _BRACED_EXAMPLE.match(code):
        return nxt.strip()[:1].isalpha()
    if not _SIGNATURE.match(code):
        return False
    name = code.split("(")[0].rsplit(".", 1)[-1]
    return nxt.strip()[:1].islower() or re.match(rf"(?:the\s+)?{re.escape(name)}\b", nxt.strip(), re.I) is not None


def _titles_table(line: str, nxt: str) -> bool:
    """A short untitled line right above a table of three or more columns names what its rows
    are about ("form.choice parameters"); a two-column table under it stays a glossary."""
    return (" | " not in line and nxt.count(" | ") >= 2 and len(line.split()) <= 8
            and not re.search(r"[.:;!?]$", line) and not line.startswith("#"))


def _term_list(line: str) -> bool:
    """Three terms or more between semicolons, each of a few words (`_TERM_WORDS`), none a label."""
    items = [i.strip() for i in line.rstrip(". ").split(";")]
    return len(items) >= 3 and all(0 < len(i.split()) <= _TERM_WORDS and ":" not in i for i in items)


def _join_wrapped_cells(lines: list[str]) -> list[str]:
    """A two-column table's cell wrapped over several lines ("[STD7] | … The Advanced Widget" then
    "Standard (AWS). … STD 7-1."): the lines after a row are the rest of its second cell, not
    sentences of their own, up to the next row or a line of another structure."""
    out: list[str] = []
    for ln in lines:
        if (out and out[-1].count(" | ") == 1 and " | " not in ln and not ln.startswith("#")
                and not any(p.match(ln) for p in (_CAPTION, _ALGO, _STEP, _BULLET, _SECTION))):
            out[-1] = f"{out[-1]} {ln}"
        else:
            out.append(ln)
    return out


# A label standing alone: one or two capitalised words, no punctuation ("Keywords", "Index Terms").
_LABEL_ALONE = re.compile(r"[A-Z][a-z]+(?: [A-Z][a-z]+)?")
# The most words a term of a list between semicolons has ("post-quantum cryptography"): a list of
# terms, not a sentence that lists ("The allowed fontnames are: Courier , a typewriter font; …").
_TERM_WORDS = 4
# A glossary term alone on its line: a few words, no sentence punctuation at its end.
_TERM_LINE = re.compile(r"^[A-Za-z(][^.:;!?]{0,60}[A-Za-z0-9)]$")
# … or opening the line, in lower case, before its definition's capital ("legacy mode The …").
_INLINE_TERM = re.compile(r"^([a-z][\w-]*(?: [a-z(][\w()/-]*){0,5}) ([A-Z][a-z]* .*)")


# A symbol's entry in a list of symbols whose layout ran the entries together ("… = 32 . log 2 x The
# base 2 logarithm of x . For example, … [1] ⌊a⌋ The floor of a ; …"): a short symbol (a few short
# tokens, one of them not a plain word) right before the capitalised article opening its
# description, after the end of the entry before it (a stop, or the bracketed source it closes on).
_SYMBOL = r"(?:\S{1,8} ){0,3}?\S{1,8}"
_SYMBOL_OPENER = r"(?:The|A|An|In)\s"
_SYMBOL_ENTRY = re.compile(rf"^({_SYMBOL}) ({_SYMBOL_OPENER}.*)")
_BEFORE_SYMBOL_ENTRY = re.compile(rf"(?<=[.\]])\s+(?={_SYMBOL} {_SYMBOL_OPENER})")
# The bracketed source an entry closes on ("[1]", "[10, adapted]"), read at the next one's start.
_LEADING_SOURCE = re.compile(r"^\[\d+(?:,\s*adapted)?\]\s+")


def _plain_symbol(symbol: str) -> bool:
    """A symbol, not the opening words of a sentence: a token that is no plain word ("⌊a⌋", "0x",
    "≫"), or short lower-case tokens only ("a mod n")."""
    toks = symbol.split()
    return any(not t.isalpha() for t in toks) or all(len(t) <= 3 and t.islower() for t in toks)


def _symbol_entry(sentence: str) -> tuple[str, str] | None:
    """(symbol, description) of a sentence of a list of symbols that opens on a symbol ("[1] ⌊a⌋
    The floor of a ; …", `_SYMBOL_ENTRY`)."""
    m = _SYMBOL_ENTRY.match(_LEADING_SOURCE.sub("", sentence))
    return (m.group(1), m.group(2)) if m and _plain_symbol(m.group(1)) else None


def inline_entry(sentence: str) -> tuple[str, str] | None:
    """(term, description) of a glossary sentence that opens on its term ("legacy mode The tool …",
    `_INLINE_TERM`) or on a symbol (`_symbol_entry`)."""
    m = _INLINE_TERM.match(sentence)
    return (m.group(1), m.group(2)) if m else _symbol_entry(sentence)


def symbol_entries(sentence: str) -> list[str]:
    """A sentence of a glossary split where another symbol's entry starts inside it ("For example,
    2^5 = 32 . log 2 x The base 2 logarithm of x ." → the example, and log's entry)."""
    out: list[str] = []
    for piece in _BEFORE_SYMBOL_ENTRY.split(sentence):
        # (only a symbol's entry: a glossary term's, "[1] party An individual …", stays where it was)
        if out and _symbol_entry(piece) is None:
            out[-1] = f"{out[-1]} {piece}"  # the split was inside a sentence, not before an entry
        else:
            out.append(piece)
    return out


def entry_terms(text: str) -> list[str]:
    """The lower-case terms that open the text's lines before a capitalised description, bullet
    marks left out ("- set x type log Set to log axis." → "set x type log"): the names a
    reference list defines, one entry a line."""
    return [m.group(1) for ln in text.splitlines() if (m := _INLINE_TERM.match(_MARK.sub("", ln.strip(), count=1)))]


# A short labelled line states a fact as a pair ("Status: Final", "Published: 2024"),
# too short to pass as a statement; algorithm Input/Output lines are read with their algorithm.
_LABELLED = re.compile(r"^([A-Z][A-Za-z]+(?: (?:[A-Za-z]+|&|\([A-Z]+\))){0,4})\s?:\s+(\S.*)$")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S*", re.I)
# A person's name (two or more capitalised words, an initial among them at most) and a role after a
# comma, ending the line ("Ann B. Lee, Secretary", "Bo Chan, Director of the Widget Laboratory").
_NAMED_ROLE = re.compile(r"\b[A-Z][a-z]+(?: [A-Z]\.)?(?: [A-Z][a-z'-]+)+, [A-Z][\w.-]*"
                         r"(?: (?:[A-Z][\w.-]*|of|for|and|the|&))*$")
# A run of three or more "Name: value" pairs a layout ran into one line ("Ann Lee: 0000-0002-1234-5678
# Bo Chan: 0000-0001-…"): each pair is one fact, a value being one token.
_PAIR = r"([A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,3}): (\S+)"
_PAIR_RUN = re.compile(rf"(?:{_PAIR} ){{2,}}{_PAIR}")
# … or a numbered item of a formal announcement ("4. Approving Authority. Secretary of Widgets.").
_NUMBERED_LABEL = re.compile(r"^\d{1,2}\.\s+([A-Z][a-z]+(?: (?:[A-Z][a-z]+|of|and|for|the|to|on)){0,4})\.\s+(\S.*)$")


# A line that opens as code: a keyword ("from x.y import z") or a console prompt ("$ make").
_CODE_START = r"^(?:(?:from|import|def|class|return)\b|[$>%] )"
# A line of code or console input: an assignment, a call, brackets, a backslash macro, an import,
# or a displayed literal, one token with a symbol or a digit in it ("%END_MARK", "1.5x2.0im").
_CODE_LINE = re.compile(rf"[=(){{}}\[\];\\]|{_CODE_START}|^[^\s]*[%_#$@<>|/\d][^\s]*$")
# A code line that reads like prose ("from x.y import z", "save.to_file(chart, 'out.png')"): its
# opening, or a call that ends the line, shows it is code; other lines that read like prose
# ("lang=XX: sets the language") are not.
# A whole line of code that does one thing: a call ("canvas.setFont("Helvetica-Bold", 85)") or an
# assignment ("charspace = charspace+0.5", "fontName='Times-Roman',").
_CODE_STATEMENT = re.compile(r"[A-Za-z_][\w.]*(?:\(.*\)|\s*=\s*\S.*?)[;,]?")
# The target of an assignment ("tf.faceTwo.mood" of "tf.faceTwo.mood = 'sad'").
_ASSIGNED = re.compile(r"([A-Za-z_][\w.]*)\s*=(?!=)")
_CODE_OPENING = re.compile(rf"{_CODE_START}|\w\(.*[);]$")


# A line of numbers only: tick labels of a plot's axis ("300 200 100 0", "27.8")
_TICKS = re.compile(r"[-+−]?\d+(?:\.\d+)?(?:\s+[-+−]?\d+(?:\.\d+)?)*")


def _announced_code(lines: list[str], out: list[Unit], block: int, after: str = "") -> bool:
    """A short paragraph of code right after a sentence that ends with a colon ("… all we need
    to do is write code like this:"): the code is what that sentence announces, and line by line
    it would be dropped as no statement. A line or two displayed inside a sentence ("… the tool
    is run as" [tool myscript] "where the file …") is code too, symbol or not: the sentence
    stops before it and goes on, in lower case, after it (`after`: the next paragraph)."""
    if not out or out[-1].block != block - 1 or not (out[-1].text.rstrip().endswith(":") or _unfinished(out[-1]))\
            or len(lines) > 8:
        return False
    if sum(bool(_TICKS.fullmatch(ln)) for ln in lines) * 2 >= len(lines):
        return False  # a plot's axis labels, set line by line ("Example 8", "27.8", "27.9", "σ T", "km")
    inside = _unfinished(out[-1]) and len(lines) <= 2 and after.lstrip()[:1].islower()
    # (inside a sentence, one token with no space, "tool[OPTIONS][file]", is no sentence of its own,
    # however many words it runs together)
    if not all(_CODE_OPENING.search(ln) or not _is_statement(ln) or (inside and " " not in ln) for ln in lines) \
            or any(_BULLET.match(ln) for ln in lines):
        return False
    return inside or any(_CODE_LINE.search(ln) for ln in lines)


def announces(u: Unit) -> bool:
    """The unit is a sentence announcing what follows ("The three algorithms are:")."""
    return u.kind == "sentence" and bool(_ANNOUNCES.search(u.text))


def states_default(u: Unit) -> bool:
    """The unit states the default of the setting its paragraph describes ("The default value is
    1.0, so that this feature is disabled.")."""
    return u.kind == "sentence" and bool(_DEFAULT.match(u.text))


def _unfinished(u: Unit) -> bool:
    """A prose sentence that stops without its end mark ("… just after the command X the line"):
    the paragraph after it (a displayed command, then "so that …") completes it."""
    return u.kind == "sentence" and bool(_OPEN_END.search(u.text))


_OPEN_END = re.compile(r"[a-z0-9)\]}]$")


# A caption's label in full ("Figure 2-10: ", "Table 3. "), on a line of its own with a short caption.
_PART_CAPTION = re.compile(r"^((?:Figure|Table)\s+\d{1,3}(?:[-.]\d{1,3})*)[.:]\s+(?=\S.{0,120}$)")
# An abbreviated part label opening a caption ("Fig. 6. ", "Tab. 2: ").
_ABBREVIATED_LABEL = re.compile(r"^((?:Fig|Tab)\.\s?\d+(?:[-.]\d+)*)[.:]\s+(?=\S)")

# A line wholly shaded: a block of commands or markup.
_MARKED = re.compile(r"<mark>.*</mark>\.?")
# A value a short sentence states: a digit or a number word.
_VALUE = re.compile(rf"\d|\b(?:{NUMBER_WORD})\b", re.I)


def _is_statement(s: str) -> bool:
    """A prose unit worth restating: enough words, mostly lower-case text, judged without its
    links (a bare link states nothing; "Fix bug #97 (<link>) … documentation wrong" does)."""
    words = re.findall(r"[A-Za-z]{2,}", _URL.sub(" ", s))
    lower = [w for w in words if w.islower()]
    if _SHOUTED.search(s) and sum(w.lower() in STOPWORDS for w in words) >= 3:
        # a sentence set in capitals, as a licence's disclaimer is ("THE ENTIRE RISK … IS WITH YOU."):
        # prose all the same, its function words show it (a title in capitals has few, and no end mark)
        lower = words
    # a short sentence still states a value when it ends as one ("Maximum score is 6 points.",
    # "X uses two parameters.")
    return (len(words) >= 5 or (len(words) == 4 and s.rstrip().endswith(".") and _VALUE.search(s) is not None)) \
        and len(lower) >= 3


def _short_entry(s: str) -> bool:
    """A section's short first sentence ("First signed release." under "Version 3.1.4 [2019 Jun
    2]"): a change log or a FAQ states its entries that tersely, and the title above says what
    the entry is of. Three words at least, two in lower case, ending as a sentence."""
    words = re.findall(r"[A-Za-z]{2,}", s)
    return s.rstrip().endswith(".") and len(words) >= 3 and sum(w.islower() for w in words) >= 2


# A sentence in capitals: no lower-case letter, and it ends as a sentence does.
_SHOUTED = re.compile(r"^[^a-z]*[A-Z]{2}[^a-z]*[.!?]$")


# A short step of a procedure, in the imperative ("convert pdf scans to pbm images.")
_IMPERATIVE = re.compile(r"^\W*([A-Za-z][a-z]+)\b(?<!s)(?:\s+\S+){1,8}\.$")


def _imperative_step(text: str) -> bool:
    """A short sentence opening on a bare verb (not on a pronoun or an article: "It converts …")."""
    m = _IMPERATIVE.match(text)
    return m is not None and m.group(1).lower() not in STOPWORDS


def carries_on(prev: Unit, nxt: Unit) -> bool:
    """Does `nxt` carry on the sentence `prev` stopped without its end mark: a displayed command
    inside it, or its words going on in lower case ("… add the line" [code], "… be" "used")?"""
    return _unfinished(prev) and (nxt.kind == "code" or nxt.text[:1].islower())


def continues(prev: Unit, nxt: Unit) -> bool:
    """Does `nxt` complete what `prev` says? Same evidence; the same paragraph, or the next one
    when `prev` announces a list; and `nxt` leans on `prev` or `prev` announces it."""
    if prev.kind == "step" and nxt.kind == "step" and nxt.key == prev.key and nxt.group == prev.group:
        return prev.text.rstrip().endswith(":")  # "14: case SHA-512:" is done by the step after it
    if nxt.key != prev.key or nxt.kind in ("title",) or prev.kind in ("title", "step"):
        return False
    announces = bool(_ANNOUNCES.search(prev.text))
    if nxt.block == prev.block + 1 and (
            carries_on(prev, nxt)
            or (prev.kind == "code" and nxt.kind == "sentence" and (nxt.text[:1].islower()
                                                                    or _describes(prev.text, nxt.text)))):
        return True  # one sentence around a displayed command ("… add the line" [code] "so that …") or
        # broken over paragraphs
    if nxt.block == prev.block + 1 and nxt.kind == "code" and prev.kind == "sentence" and _imperative_step(prev.text):
        return True  # a step, then the command that does it ("Create a symbolic link." [code])
    if nxt.block != prev.block and not (announces and nxt.block == prev.block + 1):
        return False
    return announces or bool(_CONTINUES.match(nxt.text)) or (_ASIDE.match(nxt.text) is not None
                                                             and not _is_statement(nxt.text))


@dataclass
class Passage:
    units: list[Unit]

    @property
    def text(self) -> str:
        return " ".join(u.text for u in self.units)

    @property
    def head(self) -> Unit:
        return self.units[0]

    @property
    def items(self) -> list[Unit]:
        """The list items that follow the head (empty unless the head announces a list)."""
        return [u for u in self.units[1:] if u.item]


# Sentences an announced item may run to: "1. The seed … can be stored … . As this seed … ."
_ITEM_SENTENCES = 3
# A list announced with its count ("… consists of three functions:"): that many items follow.
_COUNTED = re.compile(rf"\b({NUMBER_WORD}|[2-9]|10)\s+(?:[\w-]+\s+){{0,4}}[\w-]+\s*:\s*$", re.I)


def announced_count(text: str) -> int:
    """How many items a sentence announces ("… the following three stages:" → 3), else 0."""
    m = _COUNTED.search(text)
    return 0 if not m else int(m.group(1)) if m.group(1).isdigit() else NUMBER_WORDS[m.group(1).lower()]


def passages(all_units: list[Unit], max_follow: int = 3) -> list[Passage]:
    """One passage per unit: the unit and up to `max_follow` units that continue it; a list that
    announces its count takes that many items, however long."""
    out = []
    for i, u in enumerate(all_units):
        chain = [u]
        listing = announces(u)  # "… are:" then the items
        count = announced_count(u.text) if listing else 0
        # an item may run to several sentences: the window and the count go by items, not units
        # (a passage opening on the code it describes, "{rpn argc}" then "Yields …", takes as many
        # sentences as one opening on the description: the code is its subject, no sentence)
        limit = max(max_follow, _ITEM_SENTENCES * count) + (u.kind == "code")
        spent = 0
        announced = listing  # some unit of the chain announces a list
        for nxt in all_units[i + 1: i + 1 + limit + _LIST_ITEMS]:
            # (the list may be announced by a unit the passage reached: "X supplies … . They are:")
            listed = listing or (chain[-1].item and announced)
            if not (continues(chain[-1], nxt) or (listing and continues(u, nxt)) or
                    (listed and nxt.item and chain[-1].item and nxt.key == u.key
                     and (len(nxt.text.split()) <= _SHORT_ITEM
                          or len({c.block for c in chain if c.item} | {nxt.block}) <= count))):
                break
            chain.append(nxt)
            # a name listed after an announcement in the passage ("They are:" then "- Box", "- Ring",
            # …) costs nothing of the window: the list is read whole
            free = nxt.item and len(nxt.text.split()) <= _NAME_ITEM and announced
            spent += 0 if free else 1
            announced = announced or announces(nxt)
            if spent >= limit:
                break
        out.append(Passage(chain))
    return out
