"""citerag: citation-grounded, agentic RAG research notebooks over technical PDFs."""

from citerag.core import offline as _offline

_offline.apply()

__version__ = "0.1.0"
