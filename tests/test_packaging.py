"""A regular (non-editable) install must ship every subpackage and data file the code loads."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_subpackage_is_listed() -> None:
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("bot", "parser", "engine", "catalog")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"


def test_package_data_covers_the_files_the_code_opens() -> None:
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    assert "templates/*.j2" in data["bot"]
    assert "*.lark" in data["parser"]
    suffixes = {p.suffix for p in (ROOT / "catalog" / "data").iterdir() if p.is_file()}
    patterns = {pattern.rsplit(".", 1)[-1] for pattern in data["catalog"]}
    assert {s.lstrip(".") for s in suffixes} <= patterns, suffixes
