"""Cited answers: evidence selection, composition, citation checks and refusal."""
