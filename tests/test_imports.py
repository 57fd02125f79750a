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

HEAVY = ("torch", "transformers", "faiss")


def entry_points():
    return [ep for ep in distribution("spacy-frames").entry_points if ep.group != "console_scripts"]


def imported_after(code: str):
    probe = f"import sys\n{code}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_import_spacy_frames_adds_nothing_heavy():
    baseline = imported_after("import spacy")
    assert "transformers" not in baseline and "faiss" not in baseline
    assert imported_after("import spacy\nimport spacy_frames, spacy_frames.extensions, spacy_frames.cli") == baseline


def test_entry_point_modules_add_nothing_heavy():
    modules = sorted({ep.value.split(":")[0] for ep in entry_points()})
    assert modules, "no entry points registered: is the package pip-installed?"
    baseline = imported_after("import spacy")
    code = "import spacy, importlib\n" + "\n".join(f"importlib.import_module({m!r})" for m in modules)
    assert imported_after(code) == baseline


def test_spacy_blank_adds_nothing_heavy_beyond_spacy_transformers():
    baseline = imported_after("import spacy, spacy_transformers")
    assert "faiss" not in baseline
    assert imported_after("import spacy\nspacy.blank('en')") == baseline


def test_every_script_imports():
    """Project commands run the scripts only on full data, which CI never has: a name a
    refactor removed must fail here, not in `spacy project run`."""
    from pathlib import Path

    scripts = Path(__file__).resolve().parents[1] / "scripts"
    code = (
        "import sys, importlib.util\n"
        f"sys.path.insert(0, {str(scripts)!r})\n"
        "for path in sys.argv[1:]:\n"
        "    spec = importlib.util.spec_from_file_location('script_' + path.rsplit('/', 1)[-1][:-3], path)\n"
        "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
    )
    paths = sorted(str(p) for p in scripts.glob("*.py"))
    assert paths
    out = subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
