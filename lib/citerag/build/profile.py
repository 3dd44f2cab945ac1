"""The corpus profile: what is specific to one corpus, kept as data next to its manifest.

`data/<corpus>/profile.yaml` holds what cannot be mined from the PDFs
themselves: operation aliases (`WG-KX.KeyGen` ⇄ "key generation"), names
of the things the corpus is about, the domain phrase for LLM prompts and the
example questions notebooks show. Every field is optional: the default
profile is generic, and whatever the corpus itself says (glossaries, titles,
identifier families, common words) is mined at build time (`knowledge.py`).
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citerag.core.paths import resolve

PROFILE_FILE = "profile.yaml"


class ProfileError(ValueError):
    """The profile file is malformed; the message names the file and field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExamplePage(_Strict):
    doc_id: str
    page: int = Field(ge=1)


class Examples(_Strict):
    """What the notebooks show; anything left out is picked from the corpus or its eval set."""

    page: ExamplePage | None = None         # 01: a page whose extraction is worth a look
    tokenize: str | None = None             # 03: a line to show the tokenizer on
    retrieve: str | None = None             # 04: a question whose hits and features are shown
    agent: list[str] = []                   # 05: single-turn questions (answerable and not)
    conversation: list[str] = []            # 05: one thread of turns
    clarify: list[str] = []                 # names the clarifying question offers as examples


class CorpusProfile(_Strict):
    name: str = ""
    # What the corpus is about, for LLM prompts ("the documents of this corpus" when unset).
    domain: str = ""
    # Member aliases: a dotted `Qualifier.Member` ⇄ "Qualifier words" (query variants).
    operations: dict[str, str] = {}
    # Names that take those members (`WG-KX` in `WG-KX.KeyGen`).
    qualifiers: list[str] = []
    # Names of the things the corpus is about (schemes, products, tools), and the document
    # that defines each when its title does not say so itself.
    names: list[str] = []
    name_docs: dict[str, str] = {}
    # Identifiers too common in this corpus to be what a conversation is about (added to those
    # found in every document).
    generic_terms: list[str] = []
    # Kinds of thing whose answer names an entity ("which <kind> was selected?").
    entity_kinds: list[str] = []
    examples: Examples = Examples()

    @property
    def domain_phrase(self) -> str:
        return self.domain or "the documents of this corpus"


def profile_path(manifest: str | Path) -> Path:
    return resolve(manifest).parent / PROFILE_FILE


def load_profile(manifest: str | Path) -> CorpusProfile:
    """The profile beside the manifest, or the generic default when there is none."""
    path = profile_path(manifest)
    if not path.is_file():
        return CorpusProfile()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ProfileError(f"{path}: not valid YAML: {exc}") from None
    try:
        return CorpusProfile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise ProfileError(f"{path}: {loc}: {err['msg']}") from None


DEFAULT_PROFILE = """\
# Corpus profile for {name}: what citerag cannot mine from the PDFs themselves.
# Every key is optional; glossaries, acronyms, titles, identifier families and
# corpus-wide words are mined at build time. Editing this file rebuilds only the
# cheap `knowledge` stage (see README, "Corpus profile").
name: {name}
domain: ""              # e.g. "the Foo 3.2 user manuals" (used in LLM prompts)
operations: {{}}          # Member: words, e.g. {{Sign: signing}} for Tool.Sign <-> "Tool signing"
qualifiers: []          # names that take .Member
names: []               # names of the things the corpus is about
name_docs: {{}}           # name: doc_id, when a title does not name it
generic_terms: []       # identifiers too common to be a conversation's subject
entity_kinds: []        # "which <kind> ...?" is answered with a name
examples:               # what notebooks show (else picked from the corpus and eval set)
  agent: []
  conversation: []
"""


def write_default_profile(path: Path, name: str) -> None:
    path.write_text(DEFAULT_PROFILE.format(name=name), encoding="utf-8")
