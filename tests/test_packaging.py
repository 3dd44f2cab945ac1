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
