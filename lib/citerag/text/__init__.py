"""Text tools shared by build, retrieval and answer: tokenizing, sentences, patterns, term weights."""
