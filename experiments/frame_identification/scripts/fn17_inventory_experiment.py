"""frame_identifier with the FrameNet 1.7 inventory, no retraining.

Gold targets, FN1.5 dev (gold frames renamed to their 1.7 names by frame ID; targets of
the 8 frames 1.7 dropped are left out and counted) and FN1.7 dev (all targets, and those
whose frame is new in 1.7). Settings: the FN1.5 inventory (FN1.5 dev only); FN1.7 with
the frame memory carried by name (a renamed frame starts at zero, a new frame that reuses
an old name inherits the old frame's memory); FN1.7 with the memory carried by frame ID
(what `set_inventory` does now). A pipeline whose stage 2 was trained against FN1.7
(`train-frames-stage2-fn17`) is scored as it is ("trained_on_fn17"). Dev only: the choice is made here, test is reported once
for the shipped inventory by evaluate-frames.

    python scripts/fn17_inventory_experiment.py MODEL OUTPUT.json
"""

import json
from pathlib import Path

import spacy
import typer

from spacy_frames.extensions import install_extensions
from spacy_frames.inventory.frames import FrameInventory, renamed_frames
from spacy_frames.inventory.lexicon import Lexicon
from spacy_frames.scoring.frames_eval import (
    NOT_FRAME_IDENTIFICATION,
    evaluate_frames,
    frame_examples,
    new_in_release,
    relabel,
    subset,
)

KEYS = ("frame_overall", "frame_acc", "frame_r1", "frame_r5", "targets")


def main(model: str, output: Path, corpus_dir: Path = Path("../../corpus")):
    install_extensions()
    fn15 = FrameInventory().from_disk(corpus_dir / "framenet15/frames.json")
    fn17 = FrameInventory().from_disk(corpus_dir / "framenet17/frames.json")
    mapping = renamed_frames(fn15, fn17)
    ids15 = {info["id"] for info in fn15.frames.values()}
    result = {
        "model": model,
        "fn15_frames": len(fn15),
        "fn17_frames": len(fn17),
        "renamed": {a: b for a, b in mapping.items() if b is not None and a != b},
        "gone": sorted(a for a, b in mapping.items() if b is None),
        "added": len([n for n, info in fn17.frames.items() if info["id"] not in ids15]),
    }
    # FN1.5's lexical units in FN1.7's lexicon: by exact name, and by lu_spelling_key
    lus15 = sorted({lu for name in fn15.names for lu in fn15.lexical_units(name)})
    result["fn15_lexical_units"] = {
        "all": len(lus15),
        "exact_name_in_fn17": sum(bool(fn17.frames_for_lu(lu, exact=True)) for lu in lus15),
        "other_spelling_in_fn17": sum(
            bool(fn17.frames_for_lu(lu)) and not fn17.frames_for_lu(lu, exact=True) for lu in lus15
        ),
        "not_in_fn17": sum(not fn17.frames_for_lu(lu) for lu in lus15),
    }

    def load():
        nlp = spacy.load(model, exclude=list(NOT_FRAME_IDENTIFICATION))
        if "frame_identifier" in nlp.disabled:  # a pipeline trained with it frozen and off (frame_elements.cfg)
            nlp.enable_pipe("frame_identifier")
        return nlp

    nlp = load()
    trained_on_fn17 = nlp.get_pipe("frame_identifier").inventory.frames == fn17.frames
    dev15 = frame_examples(nlp, corpus_dir / "framenet15/dev.spacy", gold_targets=True)
    if not trained_on_fn17:
        result["fn15_inventory"] = {"fn15_dev": {k: v for k, v in evaluate_frames(nlp, dev15).items() if k in KEYS}}
    dev15_as_17, dropped = relabel(dev15, mapping)
    result["fn15_dev_targets_of_gone_frames"] = dropped
    # a pipeline trained against FN1.7 (stage 2 on FN1.5 annotation renamed by frame ID) is
    # scored as it is; one trained against FN1.5 with FN1.7 swapped in, two ways
    for setting in ("trained_on_fn17",) if trained_on_fn17 else ("memory_by_name", "memory_by_id"):
        nlp = load()
        fi = nlp.get_pipe("frame_identifier")
        if setting == "memory_by_id":
            fi.set_inventory(fn17)
        elif setting == "memory_by_name":  # the previous behaviour
            fi.inventory, fi.lexicon = fn17, Lexicon(fn17)
            fi._refresh_frame_vectors()
        dev17 = frame_examples(nlp, corpus_dir / "framenet17/dev.spacy", gold_targets=True)
        new = subset(dev17, lambda span: fn17.frames.get(span.label_, {}).get("id") not in ids15)
        # new-in-1.7 targets: a frame or lexical unit FN1.5 does not have (by name)
        new_frame_or_lu = subset(dev17, new_in_release(fn15))
        row = {
            "fn15_dev_as_17": evaluate_frames(nlp, dev15_as_17),
            "fn17_dev": evaluate_frames(nlp, dev17),
            "fn17_dev_new_frames": evaluate_frames(nlp, new) if new else None,
            "fn17_dev_new_frame_or_lu": evaluate_frames(nlp, new_frame_or_lu) if new_frame_or_lu else None,
        }
        # the same without the LUs that FN1.5 has under another spelling ("aid_((act)).n")
        respelled = subset(dev17, new_in_release(fn15, exact=False))
        row["fn17_dev_new_frame_or_lu_any_spelling"] = evaluate_frames(nlp, respelled) if respelled else None
        result[setting] = {
            name: {k: v for k, v in scores.items() if k in KEYS} if scores else None for name, scores in row.items()
        }
        typer.echo(f"{setting}: {json.dumps(result[setting])}")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    typer.run(main)
