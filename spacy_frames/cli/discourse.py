"""`spacy-frames evaluate-discourse` and `predict-rels`: discourse senses."""

from pathlib import Path
from typing import List

import typer

from ._util import Arg, Opt, _fail, app


@app.command("evaluate-discourse")
def evaluate_discourse_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline with a discourse_sense"),
    corpora: List[Path] = Arg(..., help="Converted discourse corpora (corpus/discourse/*.spacy), arguments given"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write"),
    # fmt: on
):
    """Level-1 / level-2 accuracy, macro-F1 and per-sense F1 of discourse senses."""
    import json

    import spacy

    from ..scoring.discourse_eval import evaluate_corpus

    try:
        nlp = spacy.load(model)
        result = {path.stem: evaluate_corpus(nlp, path)[0] for path in corpora}
    except (OSError, ValueError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=1) + "\n", encoding="utf8")
    for name, scores in result.items():
        typer.echo(
            f"{name}: L1 acc {scores['l1']['acc']} F1 {scores['l1']['macro_f1']}  L2 acc {scores['l2']['acc']} F1 {scores['l2']['macro_f1']}"
        )


@app.command("evaluate-discourse-documents")
def evaluate_discourse_documents_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline with a discourse_sense"),
    gdtb: Path = Arg(..., help="GDTB (its pdtb/raw and pdtb/gold folders and splits.md): assets/discourse/gdtb"),
    split: str = Opt("test", "--split", help="train, dev or test"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write"),
    # fmt: on
):
    """discourse_sense on whole raw documents, as users run it: each gold implicit relation
    scored by the predicted relation over its arguments (doc._.discourse_relations)."""
    import json

    import spacy

    from ..scoring.discourse_eval import evaluate_documents

    try:
        nlp = spacy.load(model)
        result = {"model": model, **evaluate_documents(nlp, gdtb, split)}
    except (OSError, ValueError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=1) + "\n", encoding="utf8")
    scores = result["scores"]
    typer.echo(
        f"GDTB {split} documents: {result['reached']} % of implicit relations reached; "
        f"L1 acc {scores['l1']['acc']}  L2 acc {scores['l2']['acc']} F1 {scores['l2']['macro_f1']}"
    )


@app.command("predict-rels")
def predict_rels_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline with a discourse_sense"),
    input_path: Path = Arg(..., help="DISRPT .rels file"),
    output_path: Path = Arg(..., help=".rels file written with the predicted senses"),
    # fmt: on
):
    """Classify the relations of a DISRPT .rels file and write them back for the DISRPT scorer."""
    import json

    import spacy

    from ..scoring.discourse_eval import predict_rels

    try:
        result = predict_rels(spacy.load(model), input_path, output_path)
    except (OSError, ValueError, KeyError) as err:
        _fail(err)
    typer.echo(
        json.dumps(
            {
                "relations": result["relations"],
                "implicit": {k: {m: v[m] for m in ("acc", "macro_f1")} for k, v in result["implicit_scores"].items()},
            }
        )
    )
