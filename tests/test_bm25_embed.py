import numpy as np
import pytest
from citerag.build.index.bm25 import BM25Index, tokenize
from citerag.build.index.embed import Embedder, EmbedError, resolve_model_path
from citerag.core.params import EmbedParams


def test_tokenizer_keeps_technical_tokens_whole_and_in_parts():
    toks = tokenize("ML-KEM-768 uses SHAKE128 (Algorithm 2, SP 800-227)")
    for t in ["ml-kem-768", "ml-kem", "ml", "kem", "768", "shake128", "shake", "128",
              "algorithm 2", "800-227", "800", "227"]:
        assert t in toks
    assert "uses" not in toks and "use" in toks  # light stemming


def test_greek_letters_are_indexed_by_name():
    """"ζ = 1753" had left only "1753" in the index: no pattern matched the letter. A question
    writes "zeta", so the letter is indexed by its Unicode name, as a word of its own."""
    assert tokenize("Let ζ = 1753, and η1 bounds τ.") == ["let", "zeta", "1753", "eta", "1", "bound", "tau"]
    idx = BM25Index.from_texts(["a", "b", "c"], ["Let ζ = 1753 be the root.", "Let n = 256 be the degree.",
                                                 "The modulus q is prime."], k1=1.2, b=0.75)
    assert [i for i, _ in idx.top("value of zeta", 3)] == ["a"]


def test_bm25_prefers_exact_identifier():
    ids = ["a", "b", "c"]
    texts = ["ML-KEM-512 key sizes", "ML-KEM-768 key sizes and more text", "SLH-DSA signatures"]
    idx = BM25Index.from_texts(ids, texts, k1=1.2, b=0.75)
    assert idx.top("ML-KEM-768 sizes", 3)[0][0] == "b"
    assert idx.top("completely unrelated", 3) == []


def test_fast_scores_equal_rank_bm25():
    texts = ["ML-KEM-512 key sizes and key generation", "ML-KEM-768 key sizes", "SLH-DSA signatures",
             "key key key encapsulation", "unrelated words only"]
    idx = BM25Index.from_texts([str(i) for i in range(len(texts))], texts, k1=1.2, b=0.75)
    for q in ["ML-KEM key sizes", "key key encapsulation", "SLH-DSA", "nothing matches"]:
        assert np.allclose(idx.scores(q), idx.reference_scores(q))


def test_embedding_model_and_cache(tmp_path):
    params = EmbedParams()
    e = Embedder(params, cache_dir=tmp_path)
    texts = ["ML-KEM key encapsulation", "stateless hash-based signatures", "ML-KEM key encapsulation"]
    v = e.embed(texts)
    assert v.shape == (3, 384) and np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-4)
    assert e.computed == 2  # duplicates embedded once
    e2 = Embedder(params, cache_dir=tmp_path)  # a new process would see the same file
    assert np.allclose(e2.embed(texts), v) and e2.computed == 0 and e2.cache_hits == 3
    q = e.embed_query("key encapsulation mechanism")
    assert float(v[0] @ q) > float(v[1] @ q)
    other = Embedder(params.model_copy(update={"max_seq_length": 128}), cache_dir=tmp_path)
    assert other.model_key != e.model_key


def test_hub_names_refused():
    with pytest.raises(EmbedError, match="never fetched from a hub"):
        resolve_model_path("sentence-transformers/all-mpnet-base-v2")


@pytest.mark.corpus
def test_int8_embeddings_agree_with_fp32(built, corpus_params):
    """The int8 model quantized here from the bundled weights: every sampled chunk's vector has
    cosine ≥ 0.985 to the fp32 one (median ≥ 0.99), and the two backends keep their own cache
    keys. The activations are quantized per batch, so a vector depends a little on the texts
    padded with it: the same chunks gave a minimum of 0.9908 embedded all together and 0.9888 in
    this sample (measured 2026-11-27, after d6abb45 changed which chunks the sample holds)."""
    from citerag.build.pipeline import doc_titles, index_text, load_chunks

    chunks = load_chunks(built["chunk"])
    titles = doc_titles(corpus_params)
    sample = [index_text(c, titles, True) for c in chunks[:: max(1, len(chunks) // 48)]]
    fp32 = Embedder(EmbedParams(precision="fp32")).embed(sample)
    int8_embedder = Embedder(EmbedParams(backend="onnx-int8"), models_dir=corpus_params.paths.models)
    int8 = int8_embedder.embed(sample)
    cos = (fp32 * int8).sum(axis=1)
    assert len(sample) >= 40 and float(cos.min()) >= 0.985 and float(np.median(cos)) >= 0.99, cos
    assert int8_embedder.model_key != Embedder(EmbedParams(precision="fp32")).model_key


@pytest.mark.corpus
def test_bf16_embeddings_agree_with_fp32(built, corpus_params):
    """The bf16 torch model against fp32 on sampled chunks and a question: cosine ≥ 0.999, unit
    length in float32, its own cache key; `auto` is bf16 exactly where the CPU has bf16 units."""
    from citerag.build.index.embed import native_bf16, resolved_precision
    from citerag.build.pipeline import doc_titles, index_text, load_chunks

    chunks = load_chunks(built["chunk"])
    titles = doc_titles(corpus_params)
    sample = [index_text(c, titles, True) for c in chunks[:: max(1, len(chunks) // 48)]]
    fp32_embedder, bf16_embedder = (Embedder(EmbedParams(precision=p)) for p in ("fp32", "bf16"))
    fp32, bf16 = fp32_embedder.embed(sample), bf16_embedder.embed(sample)
    assert bf16.dtype == np.float32 and np.allclose(np.linalg.norm(bf16, axis=1), 1, atol=1e-5)
    cos = (fp32 * bf16).sum(axis=1)
    assert len(sample) >= 40 and float(cos.min()) >= 0.999, float(cos.min())
    q = "what is the size of an encapsulation key"
    assert float(fp32_embedder.embed_query(q) @ bf16_embedder.embed_query(q)) >= 0.999
    assert bf16_embedder.model_key != fp32_embedder.model_key
    assert resolved_precision(EmbedParams(precision="auto")) == ("bf16" if native_bf16() else "fp32")
    assert resolved_precision(EmbedParams()) == "fp32"  # the default: vectors that do not depend on the CPU
