"""Build commands: corpus manifest and profile, ingest, clean, chunk, index, and the staged pipeline."""
