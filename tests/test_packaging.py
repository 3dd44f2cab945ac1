"""The dependency set is described twice (pyproject for pip, environment.yml for conda)."""

import tomllib

import yaml
from citerag.core.paths import repo_root


def test_environment_yml_matches_pyproject():
    root = repo_root()
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    wanted = set(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted |= set(extra)
    env = yaml.safe_load((root / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert {p for p in pip if not p.startswith("-e")} == wanted
    assert pip[0] == "torch==2.13.0"


def test_serving_imports_no_build_or_store_stack():
    """`ask`, `chat` and `retrieve` open what was built: the PDF extractor (pymupdf and its layout
    model), chromadb and llama_index.core cost seconds per process and are imported only by build
    commands (and by `retrieve.dense_search: chroma`)."""
    import subprocess
    import sys

    code = ("import sys, citerag.cli, citerag.agent.workflow, citerag.conversation.engine, citerag.retrieval.store; "
            "print(sorted({m for m in sys.modules if m.split('.')[0] in ('pymupdf', 'chromadb') "
            "or m.startswith('llama_index.core')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_makefile_wheelhouse_builds_the_server_extras_llama_cpp():
    """`make setup-test` builds llama-cpp-python into a wheelhouse by the Makefile's own pin: it
    must be the version the `server` extra asks for, or uv would compile another one anyway."""
    import re

    root = repo_root()
    server = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]["server"]
    pin = re.search(r"^LLAMA_CPP := (\S+)$", (root / "Makefile").read_text(), re.M)
    assert pin and [re.sub(r"\[\w+\]", "", s) for s in server if s.startswith("llama-cpp-python")] == [pin.group(1)]
