"""en_frames_trf with its syntax read from the installed en_core_web_sm at load time
(`installed_syntax`) in place of the five components it sources and saves today: the same
annotations (each doc's record and its tokens' tags, POS, lemmas, dependencies and
sentence starts), and what the saved pipeline weighs without them.

    python scripts/installed_syntax_check.py ../../training/frames_trf --package NAME --output metrics/installed_syntax.json
"""

import json
import time
from pathlib import Path

import spacy
import typer
from spacy.tokens import DocBin

import spacy_frames.pipeline.syntax  # noqa: F401  (the factory, until the package registers it)
from spacy_frames.tools.half_storage import half_storage
from spacy_frames.tools.records import record_line

SOURCED = ["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer"]
ROOT = Path(__file__).resolve().parents[3]


def folder_mib(path: Path) -> float:
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20, 1)


def main(
    model: Path = typer.Argument(..., help="The main job's en_frames_trf (training/frames_trf)"),
    package: str = typer.Option("en_core_web_sm", "--package", help="The installed en_core_web_sm to read"),
    corpus: Path = typer.Option(ROOT / "corpus/framenet15/test.spacy", "--corpus"),
    n_docs: int = typer.Option(400, "--n-docs"),
    workdir: Path = typer.Option(Path("training/frames_trf_installed_syntax"), "--workdir"),
    output: Path = typer.Option(Path("metrics/installed_syntax.json"), "--output", "-o"),
):
    nlp = spacy.load(model)
    assert nlp.pipe_names[: len(SOURCED)] == SOURCED, nlp.pipe_names
    swapped = spacy.load(model, exclude=SOURCED)
    swapped.add_pipe("installed_syntax", name="syntax", first=True, config={"package": package})
    workdir.parent.mkdir(parents=True, exist_ok=True)
    swapped.to_disk(workdir)
    # as the main job saves en_frames_trf: frame_identifier's own encoder in float16
    half_storage(workdir, ["frame_identifier"])
    reloaded = spacy.load(workdir)
    texts = [doc.text for doc in DocBin().from_disk(corpus).get_docs(nlp.vocab)][:n_docs]
    runs = {}
    for name, pipeline in (("sourced", nlp), ("installed_syntax", reloaded)):
        start = time.perf_counter()
        runs[name] = [
            (record_line(doc, str(i)), [(t.tag_, t.pos_, t.lemma_, t.dep_, t.head.i, t.is_sent_start) for t in doc])
            for i, doc in enumerate(pipeline.pipe(texts, batch_size=32))
        ]
        runs[f"{name}_seconds"] = round(time.perf_counter() - start, 2)
    different = [i for i, (a, b) in enumerate(zip(runs["sourced"], runs["installed_syntax"])) if a != b]
    result = {
        "model": str(model),
        "package": package,
        "corpus": str(corpus),
        "documents": len(texts),
        "identical_records": not different,
        "different": different[:20],
        "pipe_names": reloaded.pipe_names,
        "saved_mib": {"sourced": folder_mib(model), "installed_syntax": folder_mib(workdir)},
        "seconds": {k: runs[f"{k}_seconds"] for k in ("sourced", "installed_syntax")},
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    typer.run(main)
