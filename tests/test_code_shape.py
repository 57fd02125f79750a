"""The package's shape: functions short enough to read, and no import of the laboratory."""

import ast
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
