"""What changes for a user between FrameNet 1.5 and 1.7: frames renamed (same frame ID,
another name), gone from 1.7 (and where their lexical units went: split over several 1.7
frames or merged into one: the 1.7 frames holding a quarter of its lexical units), added in
1.7, and lexical units; the renamings and the gone
frames weighted by how often FrameNet 1.5 test's targets use them.

    python scripts/compare_releases.py corpus/framenet15/frames.json corpus/framenet17/frames.json \
        corpus/framenet15/test.spacy metrics/framenet_releases.json
"""

import json
from collections import Counter
from pathlib import Path

import typer

from spacy_frames.inventory.frames import FrameInventory, lu_spelling_key, renamed_frames


def main(
    fn15_frames: Path = typer.Argument(..., help="FrameNet 1.5 frames.json"),
    fn17_frames: Path = typer.Argument(..., help="FrameNet 1.7 frames.json"),
    fn15_test: Path = typer.Argument(..., help="FrameNet 1.5 test DocBin (gold targets)"),
    output: Path = typer.Argument(..., help="JSON to write"),
    top: int = typer.Option(15, "--top", help="How many of the most frequent renamings to list"),
):
    import spacy
    from spacy.tokens import DocBin

    from spacy_frames.extensions import TARGETS_KEY, install_extensions

    install_extensions()
    fn15, fn17 = FrameInventory().from_disk(fn15_frames), FrameInventory().from_disk(fn17_frames)
    mapping = renamed_frames(fn15, fn17)
    renamed = {old: new for old, new in mapping.items() if new is not None and new != old}
    gone = sorted(old for old, new in mapping.items() if new is None)
    ids15 = {info["id"] for info in fn15.frames.values()}
    added = sorted(name for name, info in fn17.frames.items() if info["id"] not in ids15)
    # where a gone frame's lexical units are in 1.7 (by spelling-insensitive LU name)
    lu17 = {}
    for name in fn17.names:
        for lu in fn17.lexical_units(name):
            lu17.setdefault(lu_spelling_key(lu), set()).add(name)
    moved, destinations = {}, {}
    for name in gone:
        found = Counter(f for lu in fn15.lexical_units(name) for f in lu17.get(lu_spelling_key(lu), ()))
        moved[name] = dict(found.most_common())
        # where it went: the 1.7 frames that took a quarter of its LUs (and more than one,
        # when it had several), not every frame a polysemous LU ("in.prep") also evokes
        least = max(1 if len(fn15.lexical_units(name)) == 1 else 2, len(fn15.lexical_units(name)) / 4)
        destinations[name] = sorted(f for f, n in found.items() if n >= least)
    vocab = spacy.blank("en").vocab
    frames_used = Counter(
        span.label_ for doc in DocBin().from_disk(fn15_test).get_docs(vocab) for span in doc.spans.get(TARGETS_KEY, [])
    )
    n_targets = sum(frames_used.values())
    lus15 = {lu_spelling_key(lu) for name in fn15.names for lu in fn15.lexical_units(name)}
    result = {
        "fn15_frames": len(fn15),
        "fn17_frames": len(fn17),
        "same_name": sum(1 for old, new in mapping.items() if new == old),
        "renamed": len(renamed),
        "gone": len(gone),
        "gone_split": sum(1 for went in destinations.values() if len(went) > 1),
        "gone_merged": sum(1 for went in destinations.values() if len(went) == 1),
        "gone_elsewhere": sum(1 for went in destinations.values() if not went),
        "added": len(added),
        "fn15_lexical_units": len(lus15),
        "fn17_lexical_units": len(lu17),
        "fn15_lexical_units_in_fn17": len(lus15 & set(lu17)),
        "fn15_test": {
            "targets": n_targets,
            "targets_renamed_frame": sum(frames_used[old] for old in renamed),
            "targets_gone_frame": sum(frames_used[old] for old in gone),
        },
        "top_renamings_fn15_test": [
            {"fn15": old, "fn17": renamed[old], "fn15_test_targets": n}
            for old, n in sorted(((o, frames_used[o]) for o in renamed), key=lambda x: (-x[1], x[0]))[:top]
        ],
        "renamings": dict(sorted(renamed.items())),
        "gone_frames": {
            name: {
                "fn15_test_targets": frames_used[name],
                "went_to": destinations[name],
                "lexical_units_in": moved[name],
            }
            for name in gone
        },
        "added_frames": added,
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=1) + "\n", encoding="utf8")
    summary = {k: v for k, v in result.items() if not isinstance(v, (dict, list))}
    typer.echo(json.dumps(summary))


if __name__ == "__main__":
    typer.run(main)
