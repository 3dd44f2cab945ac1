"""Retrieval over the built index: dense, BM25, hybrid fusion and reranking."""
