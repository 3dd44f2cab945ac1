from pathlib import Path

import pytest
from citerag.core.params import Params, ParamsError, load_params, stable_hash, stage_hash
from citerag.core.paths import repo_root


def test_default_yaml_matches_model_defaults_but_names_its_corpus():
    """default.yaml restates the model's defaults; only the corpus it names (manifest, eval sets) differs."""
    got = load_params(repo_root() / "params" / "default.yaml").to_dict()
    want = Params().to_dict()
    assert got["corpus"]["manifest"] == "data/nist-pqc/corpus.yaml"
    for section in ("corpus", "eval"):
        got[section] = {k: v for k, v in got[section].items() if k not in ("manifest", "questions", "conversations",
                                                                         "holdout_questions", "holdout_conversations",
                                                                         "also")}
        want[section] = {k: v for k, v in want[section].items() if k in got[section]}
    assert got == want


def test_unknown_key_names_the_field(tmp_path: Path):
    p = tmp_path / "bad.yaml"
    p.write_text("chunk:\n  target_chars: 800\n  overlapp_chars: 10\n")
    with pytest.raises(ParamsError) as e:
        load_params(p)
    assert str(p) in str(e.value) and "chunk.overlapp_chars" in str(e.value)


def test_out_of_range_value_names_field_and_value(tmp_path: Path):
    p = tmp_path / "bad.yaml"
    p.write_text("chunk:\n  target_chars: 5\n")
    with pytest.raises(ParamsError, match=r"chunk\.target_chars.*got 5"):
        load_params(p)


def test_cross_field_rule(tmp_path: Path):
    p = tmp_path / "bad.yaml"
    p.write_text("chunk:\n  target_chars: 400\n  overlap_chars: 400\n")
    with pytest.raises(ParamsError, match="overlap_chars"):
        load_params(p)


def test_wrong_type_and_bad_yaml(tmp_path: Path):
    p = tmp_path / "bad.yaml"
    p.write_text("ingest:\n  extractor: ocr\n")
    with pytest.raises(ParamsError, match="ingest.extractor"):
        load_params(p)
    p.write_text("chunk: [1, 2\n")
    with pytest.raises(ParamsError, match="not valid YAML"):
        load_params(p)
    with pytest.raises(ParamsError, match="not found"):
        load_params(tmp_path / "missing.yaml")


def test_overrides_dotted_and_validated():
    p = load_params(None, ["chunk.target_chars=800", "index.bm25_stem=false"])
    assert p.chunk.target_chars == 800 and p.index.bm25_stem is False
    with pytest.raises(ParamsError, match="unknown field"):
        load_params(None, {"chunk.size": 3})
    with pytest.raises(ParamsError, match="no section"):
        load_params(None, {"chunks.target_chars": 3})
    with pytest.raises(ParamsError, match="chunk.target_chars"):
        Params().with_overrides({"chunk.target_chars": -1})


def test_stage_hash_depends_only_on_relevant_params():
    base = Params()
    other_index = base.with_overrides({"index.bm25_k1": 2.0})
    other_chunk = base.with_overrides({"chunk.target_chars": 600})
    up = {"ingest": "abc"}
    assert stage_hash(base, "chunk", up) == stage_hash(other_index, "chunk", up)
    assert stage_hash(base, "chunk", up) != stage_hash(other_chunk, "chunk", up)
    assert stage_hash(base, "chunk", up) != stage_hash(base, "chunk", {"ingest": "abd"})
    assert stage_hash(base, "index", {"chunk": "x"}) != stage_hash(other_index, "index", {"chunk": "x"})


def test_stable_hash_ignores_key_order():
    assert stable_hash({"a": 1, "b": [1, 2]}) == stable_hash({"b": [1, 2], "a": 1})
    assert stable_hash({"a": 1}) != stable_hash({"a": 2})


def test_companion_corpora_take_method_overrides_not_corpus_files():
    from citerag.experiments.eval_run import companion_params

    assert load_params(repo_root() / "params" / "default.yaml").eval.also == []  # the main job: one corpus
    base = load_params(repo_root() / "params" / "default.yaml", {"eval.also": ["params/tech-manuals.yaml"]})
    overrides = {"retrieve.rrf_k0": 30, "eval.questions": "data/nist-pqc/eval/questions.jsonl",
                 "paths.artifacts": "elsewhere"}
    [(path, other)] = companion_params(base, overrides)
    assert path == "params/tech-manuals.yaml"
    assert other.retrieve.rrf_k0 == 30                                   # the swept method knob
    assert other.eval.questions == "data/tech-manuals/eval/questions.jsonl"  # its own set
    assert other.paths.artifacts == "outputs/tech-manuals/artifacts" and other.eval.also == []


def test_a_companion_corpus_not_on_disk_is_skipped_with_a_note(tmp_path):
    from citerag.experiments.eval_run import companion_params, missing_files

    manifest = tmp_path / "corpus.yaml"
    manifest.write_text("name: away\ndocuments:\n  - {doc_id: a, title: A, file: a.pdf, pages: 1, sha256: '"
                        + "0" * 64 + "'}\n")
    other = tmp_path / "away.yaml"
    other.write_text(f"corpus: {{manifest: {manifest}, dir: {tmp_path / 'nowhere'}}}\n")
    base = load_params(repo_root() / "params" / "default.yaml", {"eval.also": [str(other)]})
    [(_, p)] = companion_params(base, None)
    assert missing_files(p) == ["a.pdf"]


def test_fuse_previous_reads_the_old_switch_and_names_its_choices(tmp_path: Path):
    """`agent.conversation.fuse_previous` was a true/false switch; files that say so still load."""
    p = tmp_path / "old.yaml"
    for old, new in (("true", "always"), ("false", "never"), ("pronoun", "pronoun")):
        p.write_text(f"agent:\n  conversation:\n    fuse_previous: {old}\n")
        assert load_params(p).agent.conversation.fuse_previous == new
    p.write_text("agent:\n  conversation:\n    fuse_previous: sometimes\n")
    with pytest.raises(ParamsError, match=r"agent\.conversation\.fuse_previous"):
        load_params(p)
