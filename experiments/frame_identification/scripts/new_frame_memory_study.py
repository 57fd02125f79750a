"""What ranks a frame new in FN1.7 (no learned memory) against the frames that
have one, and what a memory for it, derived from the frames that have one, would do.

    python scripts/new_frame_memory_study.py ../../training/frames_final ../../corpus/framenet15 ../../corpus/framenet17 \
        --output metrics/frame_identifier_new_frame_memory.json

FN1.7 dev's gold targets go through the pipeline up to frame_identifier once, with the FN1.7
inventory swapped in (as `evaluate-frames` does); each variant only changes the frame
memory, so frame_identifier alone re-runs on those docs and its registered scorer scores
them. The `zero` row (today's component) reproduces `evaluate-frames`' FN1.7 dev numbers.
Variants for the rows of frames without a carried memory (`new_frame_memory`):
  zero: the definition vector alone; mean: the mean memory of the others;
  ridge@L: a ridge map definition vector -> memory fitted on the others (penalty L);
  knn@K: the similarity-weighted memory of the K frames with the nearest definitions.
Memory mixed with the definition by evidence ("mix memory and definition by how
much evidence a frame had"), on both inventories: `evidence@K` pulls each frame's memory
towards the mean memory by K / (n + K), n its training targets (FN1.5 full-text train and
the 20k exemplar sample stage 2 trains on); a frame with no targets gets the mean (the
shipped rule for frames without memory).
"""

from pathlib import Path
from typing import Dict

import numpy
import srsly
import typer

from spacy_frames.pipeline.frame_memory import predict_memory

VARIANTS = ["zero", "mean", "ridge@1", "ridge@10", "ridge@100", "knn@1", "knn@5", "knn@20"]
# every frame's memory times this ("shrink the memory"), with the fill rules that
# did best and today's; FN1.5 dev (its own inventory) is scored too, as it moves every frame
SCALES = [0.5, 0.75, 1.0, 1.25]
SCALED_RULES = ["zero", "mean", "knn@20"]
EVIDENCE = [1, 5, 20, 100]
STAGE2_EXEMPLARS = 20000  # configs/frames_stage2_fe.cfg: variables.max_exemplars, seed 0


def training_counts(fn15_dir: Path) -> Dict[str, int]:
    """Training targets per FN1.5 frame, as stage 2 sees them."""
    from collections import Counter

    import spacy

    from spacy_frames.corpora.readers import create_framenet_reader

    reader = create_framenet_reader(
        str(fn15_dir / "train.spacy"),
        exemplars=str(fn15_dir / "exemplars.spacy"),
        max_exemplars=STAGE2_EXEMPLARS,
        seed=0,
    )
    return Counter(span.label_ for eg in reader(spacy.blank("en")) for span in eg.reference.spans.get("targets", []))


def by_evidence(memory: numpy.ndarray, counts: numpy.ndarray, k: float) -> numpy.ndarray:
    """Each row pulled towards the mean row of the frames with targets by k / (n + k)."""
    mean = memory[counts > 0].mean(0)
    weight = (counts / (counts + k))[:, None]
    return (mean + weight * (memory - mean)).astype("float32")


def prepared_docs(nlp, examples, batch_size: int = 64):
    """The examples' docs through every component before frame_identifier (the shared
    transformer's output stays on each doc, which frame_identifier's listener reads)."""
    docs = [eg.predicted for eg in examples]
    for name, proc in nlp.pipeline:
        if name == "frame_identifier":
            break
        docs = list(proc.pipe(docs, batch_size=batch_size))
    return docs


def score(docs, examples, keep) -> Dict[str, float]:
    """frame_identifier's registered scorer on the gold targets for which keep(span)."""
    from spacy.training import Example

    from spacy_frames.scoring.frames import score_frame_identification
    from spacy_frames.scoring.frames_eval import subset

    scored = subset([Example(doc, eg.reference) for doc, eg in zip(docs, examples)], keep)
    result = score_frame_identification(scored)
    n = sum(len(eg.reference.spans.get("targets", [])) for eg in scored)
    return {
        "n": n,
        "r1": round(100 * result["frame_r1"], 2),
        "acc": round(100 * result["frame_acc"], 2),
        "overall": round(100 * result["frame_overall"], 2),
    }


def main(
    model: Path = typer.Argument(..., help="Tuned frame parser (../../training/frames_final)"),
    fn15_dir: Path = typer.Argument(..., help="../../corpus/framenet15 (frames.json)"),
    fn17_dir: Path = typer.Argument(..., help="../../corpus/framenet17 (frames.json, dev.spacy)"),
    output: Path = typer.Option(Path("metrics/frame_identifier_new_frame_memory.json"), "--output"),
):
    import spacy

    from spacy_frames.extensions import install_extensions
    from spacy_frames.inventory.frames import FrameInventory, carried_frames
    from spacy_frames.scoring.frames_eval import NOT_FRAME_IDENTIFICATION, frame_examples, new_in_release

    install_extensions()
    nlp = spacy.load(model, exclude=list(NOT_FRAME_IDENTIFICATION))
    identifier = nlp.get_pipe("frame_identifier")
    fn15 = FrameInventory().from_disk(fn15_dir / "frames.json")
    fn17 = FrameInventory().from_disk(fn17_dir / "frames.json")
    # re-encodes every definition and carries the memory by frame ID; "zero" leaves the
    # frames without one at zero, so that each variant below fills them itself
    identifier.cfg["new_frame_memory"] = "zero"
    identifier.set_inventory(fn17)
    names, base, residual = identifier.index.names, identifier.index.base, identifier.index.residual
    fresh = ~numpy.any(residual != 0, axis=1)
    examples = frame_examples(nlp, fn17_dir / "dev.spacy", gold_targets=True)
    docs = prepared_docs(nlp, examples)
    row = {name: i for i, name in enumerate(names)}
    subsets = {
        "all": lambda span: True,
        # as evaluate-frames counts them: the frame, or the frame of this LU, is new in 1.7
        "new_frame_or_lu": new_in_release(fn15),
        "new_frame": lambda span: span.label_ not in fn15,
        "frame_without_memory": lambda span: span.label_ in row and bool(fresh[row[span.label_]]),
    }
    result = {"model": str(model), "frames": len(names), "frames_without_memory": int(fresh.sum()), "variants": {}}
    for variant in VARIANTS:
        identifier.index.set_residual(predict_memory(base, residual, fresh, variant))
        docs = list(identifier.pipe(docs))
        result["variants"][variant] = {name: score(docs, examples, keep) for name, keep in subsets.items()}
        typer.echo(
            f"{variant:<10} "
            + "  ".join(
                f"{k} (n {v['n']}) R@1 {v['r1']:5.2f} acc {v['acc']:5.2f}"
                for k, v in result["variants"][variant].items()
            )
        )
    for variant in SCALED_RULES:
        filled = predict_memory(base, residual, fresh, variant)
        for scale in SCALES:
            identifier.index.set_residual(filled * scale)
            docs = list(identifier.pipe(docs))
            key = f"{variant} x{scale}"
            result["variants"][key] = {name: score(docs, examples, keep) for name, keep in subsets.items()}
            typer.echo(
                f"{key:<14} "
                + "  ".join(f"{k} R@1 {v['r1']:5.2f} acc {v['acc']:5.2f}" for k, v in result["variants"][key].items())
            )
    counts15 = training_counts(fn15_dir)
    carried = carried_frames(fn15, fn17)  # FN1.7 name -> the FN1.5 frame whose memory it has
    counts17 = numpy.asarray([counts15.get(carried.get(name, ""), 0) for name in names], dtype="float64")
    result["frames_with_training_targets"] = int((counts17 > 0).sum())
    for k in EVIDENCE:
        identifier.index.set_residual(by_evidence(residual, counts17, k))
        docs = list(identifier.pipe(docs))
        key = f"evidence@{k}"
        result["variants"][key] = {name: score(docs, examples, keep) for name, keep in subsets.items()}
        typer.echo(
            f"{key:<14} "
            + "  ".join(f"{k_} R@1 {v['r1']:5.2f} acc {v['acc']:5.2f}" for k_, v in result["variants"][key].items())
        )
    # FN1.5 dev with the FN1.5 inventory: the scale and the evidence rule (no frame lacks a memory)
    nlp = spacy.load(model, exclude=list(NOT_FRAME_IDENTIFICATION))  # its own inventory and memory, as trained
    identifier = nlp.get_pipe("frame_identifier")
    identifier._ensure_index()
    residual15 = identifier.index.residual
    examples15 = frame_examples(nlp, fn15_dir / "dev.spacy", gold_targets=True)
    docs15 = prepared_docs(nlp, examples15)
    result["fn15_dev"] = {"frames_without_memory": int((~numpy.any(residual15 != 0, axis=1)).sum())}
    for scale in SCALES:
        identifier.index.set_residual(residual15 * scale)
        docs15 = list(identifier.pipe(docs15))
        result["fn15_dev"][f"x{scale}"] = score(docs15, examples15, lambda span: True)
        typer.echo(f"FN1.5 dev x{scale}: {result['fn15_dev'][f'x{scale}']}")
    names15 = identifier.index.names
    counts = numpy.asarray([counts15.get(name, 0) for name in names15], dtype="float64")
    for k in EVIDENCE:
        identifier.index.set_residual(by_evidence(residual15, counts, k))
        docs15 = list(identifier.pipe(docs15))
        result["fn15_dev"][f"evidence@{k}"] = score(docs15, examples15, lambda span: True)
        typer.echo(f"FN1.5 dev evidence@{k}: {result['fn15_dev'][f'evidence@{k}']}")
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)


if __name__ == "__main__":
    typer.run(main)
