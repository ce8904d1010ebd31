"""Imports point one way: bot -> parser, engine, catalog; parser -> engine.models; engine -> catalog.records."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# package -> which first-party modules it may import
ALLOWED = {
    "catalog": {"catalog"},
    "engine": {"engine", "catalog.records"},
    "parser": {"parser", "engine.models"},
    "bot": {"bot", "parser", "engine", "catalog"},
}
FIRST_PARTY = set(ALLOWED)


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


def _cases():
    for package in ALLOWED:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield package, path


@pytest.mark.parametrize(("package", "path"), list(_cases()), ids=lambda v: str(v).rsplit("/", 2)[-1])
def test_imports_point_one_way(package: str, path: Path) -> None:
    for name in _imports(path):
        top = name.split(".")[0]
        if top not in FIRST_PARTY:
            continue
        allowed = ALLOWED[package]
        assert any(name == a or name.startswith(a + ".") for a in allowed), (
            f"{path.relative_to(ROOT)} imports {name}; {package} may import only {sorted(allowed)}"
        )


def test_engine_does_no_io() -> None:
    banned = {"sqlite3", "sqlite_utils", "os", "pathlib", "requests", "urllib", "socket", "slack_sdk", "slack_bolt"}
    for path in (ROOT / "engine").rglob("*.py"):
        for name in _imports(path):
            assert name.split(".")[0] not in banned, f"{path.name} imports {name}: the engine is pure"
