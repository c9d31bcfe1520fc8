"""Sphinx configuration of wavestack's documentation site (`make docs` builds it into build/docs).

Pages are Markdown (MyST). The API reference imports the built packages (`make build` installs
them into .venv); nothing is mocked, so a package that does not import fails the build.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

with open(ROOT / "pyproject.toml", "rb") as pyproject:
    release = tomllib.load(pyproject)["project"]["version"]

project = "wavestack"
author = "the wavestack developers"
copyright = "the wavestack developers"
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
# The plots are generated into build/docs-plots by scripts/plot_benchmarks.py (`make docs`);
# the performance page includes them from there.
exclude_patterns = ["_build", "benchmark-data", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
napoleon_google_docstring = True
napoleon_numpy_docstring = False

html_theme = "furo"
html_title = f"wavestack {release}"
html_static_path: list[str] = []
