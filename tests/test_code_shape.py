"""The package's shape: functions short enough to read, and no import of the laboratory."""

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "spacy_frames"
MAX_FUNCTION_LINES = 80


def modules():
    return sorted(PACKAGE.rglob("*.py"))


def test_no_function_is_longer_than_80_lines():
    long = [
        f"{path.relative_to(PACKAGE)}:{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path in modules()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert not long, long


def test_the_package_never_imports_the_laboratory():
    imported = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in modules()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for name in ([node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names])
        if name.split(".")[0] in ("frames_lab", "experiments")
    }
    assert not imported, imported


def test_the_tests_need_no_model_package():
    """The tests and their configs source their syntax from the tiny pipeline built on the
    fly (tests/syntax_toy.py), never from an installed spaCy model package."""
    root = PACKAGE.parent
    places = [
        root / "tests",
        root / "configs" / "test",
        *root.glob("experiments/*/tests"),
        *root.glob("experiments/*/configs/test"),
    ]
    files = [path for place in places for path in place.rglob("*") if path.suffix in (".py", ".cfg")]
    loaded = re.compile(r"[\"']en_core_web")  # a package name as a value, not a mention
    named = [str(path.relative_to(root)) for path in files if loaded.search(path.read_text())]
    assert files and not named, named


def test_an_install_pulls_no_model_package():
    """No spaCy model package (en_core_web_sm or a copy of it) among the package's
    requirements, its extras or the pinned versions: the pipeline reads the user's own
    en_core_web_sm (pipeline/syntax.py)."""
    root = PACKAGE.parent
    model = re.compile(r"\b[a-z]{2}[-_]core[-_](web|news)[-_]", re.I)
    pinned = [line for line in (root / "constraints.txt").read_text().splitlines() if model.search(line)]
    required = [line for line in (root / "setup.py").read_text().splitlines() if model.search(line)]
    assert not pinned and not required, (pinned, required)
