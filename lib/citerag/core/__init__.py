"""Shared foundations: params, paths, artifacts, batch input contracts, offline switches."""
