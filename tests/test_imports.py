"""Importing spacy_frames (and every module its entry points name) stays cheap.

Upstream facts the assertions are relative to: thinc 8.3 imports torch itself
whenever torch is installed (thinc/compat.py), and spacy-transformers 1.4's
factory module (which spacy.blank imports through its entry point) imports
transformers. spacy_frames must add nothing on top: no transformers, no faiss,
and no torch beyond what `import spacy` already did.
"""

import subprocess
import sys
from importlib.metadata import distribution

import pytest

HEAVY = ("torch", "transformers", "faiss")


def entry_points():
    return [ep for ep in distribution("spacy-frames").entry_points if ep.group != "console_scripts"]


def imported_after(code: str):
    probe = f"import sys\n{code}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.split()


@pytest.mark.slow
def test_import_spacy_frames_adds_nothing_heavy():
    baseline = imported_after("import spacy")
    assert "transformers" not in baseline and "faiss" not in baseline
    assert imported_after("import spacy\nimport spacy_frames, spacy_frames.extensions, spacy_frames.cli") == baseline


@pytest.mark.slow
def test_entry_point_modules_add_nothing_heavy():
    modules = sorted({ep.value.split(":")[0] for ep in entry_points()})
    assert modules, "no entry points registered: is the package pip-installed?"
    baseline = imported_after("import spacy")
    code = "import spacy, importlib\n" + "\n".join(f"importlib.import_module({m!r})" for m in modules)
    assert imported_after(code) == baseline


@pytest.mark.slow
def test_spacy_blank_adds_nothing_heavy_beyond_spacy_transformers():
    baseline = imported_after("import spacy, spacy_transformers")
    assert "faiss" not in baseline
    assert imported_after("import spacy\nspacy.blank('en')") == baseline


@pytest.mark.slow
def test_every_script_imports():
    """Project commands run the scripts only on full data, which CI never has: a name a
    refactor removed must fail here, not in `spacy project run`. The product's scripts and
    every study's, each folder on the path as `python scripts/x.py` puts it there."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    folders = [root / "scripts", *sorted(root.glob("experiments/*/scripts"))]
    assert len(folders) > 1
    for scripts in folders:
        code = (
            "import sys, importlib.util\n"
            f"sys.path.insert(0, {str(scripts)!r})\n"
            "for path in sys.argv[1:]:\n"
            "    spec = importlib.util.spec_from_file_location('script_' + path.rsplit('/', 1)[-1][:-3], path)\n"
            "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        )
        paths = sorted(str(p) for p in scripts.glob("*.py"))
        assert paths, scripts
        out = subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-2000:]


# -- the package's own import graph ------------------------------------------------------------
# Every `import` of one spacy_frames module by another, at module level or inside a function
# (a lazy import still ties the two), read from the source with `ast`.
def package_modules():
    """{dotted name: (path, is_package)} of every module of spacy_frames."""
    from pathlib import Path

    import spacy_frames

    root = Path(spacy_frames.__file__).resolve().parent
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def import_graph():
    """{module: the spacy_frames modules it imports}; `from . import name` names a submodule
    when there is one, else the package itself."""
    import ast

    modules = package_modules()

    def known(name):
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        return name

    graph = {}
    for name, (path, is_package) in modules.items():
        package = name.split(".") if is_package else name.split(".")[:-1]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
            if isinstance(node, ast.Import):
                targets |= {known(a.name) for a in node.names if a.name.split(".")[0] == "spacy_frames"}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                if base.split(".")[0] != "spacy_frames":
                    continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.add(sub if sub in modules else known(base))
        targets.discard(name)
        graph[name] = targets
    return graph


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_import_graph_is_read():
    graph = import_graph()
    assert len(graph) > 50 and "spacy_frames.cli.tune" in graph["spacy_frames.cli"]
    assert "spacy_frames.extensions" in graph["spacy_frames.pipeline.frame_identifier"]
    assert "spacy_frames.cli._util" in graph["spacy_frames.cli.tune"]  # `from ._util import app`
    # a lazy import inside a function counts
    assert "spacy_frames.scoring.frames_eval" in graph["spacy_frames.pipeline.frame_identifier"]


def test_no_import_cycle():
    graph = import_graph()
    state, stack, cycles = {}, [], []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                cycles.append(stack[stack.index(target) :] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert not cycles, "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_layers_import_only_downwards():
    """Scoring knows no component (fitting is the components' own methods); pipes read no
    corpus (what they share with the readers lives in extensions.py and util.py)."""
    forbidden = {"spacy_frames.scoring": "spacy_frames.pipeline", "spacy_frames.pipeline": "spacy_frames.corpora"}
    found = [
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        for layer, below in forbidden.items()
        if _in(module, layer)
        for target in targets
        if _in(target, below)
    ]
    assert not found, found


def test_the_product_imports_no_study_code():
    """The package imports no experiment runner or study script (they live in experiments/)."""
    import ast

    found = []
    for name, (path, _) in package_modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
            if isinstance(node, ast.Import):
                imported = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                imported = [node.module or ""] + [f"{node.module or ''}.{a.name}" for a in node.names]
            else:
                continue
            found += [f"{name}: {module}" for module in imported if {"experiments", "scripts"} & set(module.split("."))]
    assert not found, found
