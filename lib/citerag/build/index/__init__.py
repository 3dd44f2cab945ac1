"""The index stage's pieces: embeddings, the Chroma collection and BM25."""
