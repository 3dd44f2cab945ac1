"""Indexes over chunks: dense (Chroma + cached embeddings) and sparse (BM25)."""
