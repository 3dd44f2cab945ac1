"""The `openai` answer backend: any OpenAI-compatible endpoint drafts, citerag verifies.

Temperature 0, a timeout and bounded retries from params; the API key comes
from the environment variable named in params (a local server needs none).
The draft is only a proposal: it passes the same citation and support gate
as the extractive backend, and when the model refuses, breaks the citation
contract or the endpoint is unreachable, the deterministic backend answers
and the notes (which land in the trace) say so.
"""

from __future__ import annotations

import os

from citerag.answer.citations import REFUSAL
from citerag.answer.evidence import EVIDENCE_RULE, Evidence, fence
from citerag.core.params import OpenAIParams
from citerag.core.redact import redact
from citerag.retrieval.query import QueryAnalysis


def system_prompt(domain: str) -> str:
    """The drafting instructions; `domain` comes from the corpus profile."""
    return (
        f"You answer questions about {domain} using ONLY the numbered "
        f"evidence. {EVIDENCE_RULE} Write 1-4 short sentences. "
        "End EVERY sentence with the citation key(s) of the evidence "
        "that states it, like [c1] or [c1][c2]. Copy numbers exactly. If the evidence does not contain the "
        f"answer, reply exactly: {REFUSAL}"
    )


def make_client(params: OpenAIParams):
    from openai import OpenAI

    return OpenAI(base_url=params.base_url, api_key=os.environ.get(params.api_key_env) or "not-needed",
                  timeout=params.timeout_s, max_retries=params.max_retries)


def _safe_error(exc: Exception, client) -> str:
    """An endpoint error's text, one line, without the key or any echoed credential."""
    return redact(" ".join(str(exc).split()), getattr(client, "api_key", None))


class StructuredLLM:
    """Chat calls whose reply must validate against a pydantic model.

    Asks with the standard `json_schema` response format (OpenAI, vLLM, Ollama); servers that
    only know `json_object` with a schema (llama.cpp's Python server) are detected once by their
    error and asked that way from then on. Returns (model instance or None, note)."""

    def __init__(self, params: OpenAIParams) -> None:
        self.params = params
        self.client = make_client(params)
        self.format = "json_schema"

    def _response_format(self, schema_model) -> dict:
        schema = schema_model.model_json_schema()
        if self.format == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": schema_model.__name__, "schema": schema}}
        return {"type": "json_object", "schema": schema}

    def ask(self, system: str, user: str, schema_model, max_tokens: int = 200):
        from openai import APIConnectionError, APIError, APITimeoutError
        from pydantic import ValidationError

        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        for _ in range(2):
            try:
                resp = self.client.chat.completions.create(
                    model=self.params.model, temperature=0, max_tokens=max_tokens, messages=messages,
                    response_format=self._response_format(schema_model))
            except (APIConnectionError, APITimeoutError) as exc:
                return None, f"endpoint unreachable ({type(exc).__name__})"
            except APIError as exc:
                if self.format == "json_schema" and "json_object" in str(exc):
                    self.format = "json_object"  # llama.cpp server: schema inside json_object
                    continue
                return None, f"endpoint error ({type(exc).__name__}: {_safe_error(exc, self.client)[:100]})"
            text = resp.choices[0].message.content or ""
            try:
                return schema_model.model_validate_json(text), f"{self.params.model} ({self.format})"
            except ValidationError as exc:
                return None, f"reply failed the {schema_model.__name__} schema ({exc.error_count()} errors)"
        return None, "no usable response format"


class OpenAIDrafter:
    """Drafts cited answers through the `openai` client."""

    def __init__(self, params: OpenAIParams, domain: str, per_chunk_chars: int = 900, max_chunks: int = 4) -> None:
        self.params = params
        self.system = system_prompt(domain)
        self.per_chunk_chars, self.max_chunks = per_chunk_chars, max_chunks
        self.client = make_client(params)

    def prompt(self, qa: QueryAnalysis, evidence: list[Evidence]) -> str:
        blocks = [fence(e.key, f"({e.doc_id}, page {e.start_page})", e.text[: self.per_chunk_chars])
                  for e in evidence[: self.max_chunks]]
        return ("Evidence:\n" + "\n\n".join(blocks) + f"\n\nQuestion: {qa.text}\n"
                "Answer (cite keys like [c1]):")

    def draft(self, qa: QueryAnalysis, evidence: list[Evidence]) -> tuple[str, list[str]]:
        """(draft text, notes); an empty draft means "use the fallback"."""
        from openai import APIConnectionError, APIError, APITimeoutError

        try:
            resp = self.client.chat.completions.create(
                model=self.params.model, temperature=0, max_tokens=self.params.max_tokens,
                messages=[{"role": "system", "content": self.system},
                          {"role": "user", "content": self.prompt(qa, evidence)}],
            )
        except (APIConnectionError, APITimeoutError) as exc:
            return "", [f"openai endpoint unreachable ({type(exc).__name__}); fell back to extractive"]
        except APIError as exc:
            return "", [f"openai endpoint error ({exc.__class__.__name__}: {_safe_error(exc, self.client)[:120]});"
                        " fell back to extractive"]
        text = (resp.choices[0].message.content or "").strip()
        if not text or REFUSAL in text.lower():
            return "", ["model refused or returned nothing; deterministic fallback"]
        return text, [f"openai draft from {self.params.model} ({len(text)} chars)"]
