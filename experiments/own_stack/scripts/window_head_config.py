"""The tagger head with a window over its neighbours' vectors: configs/tagger_senter_head.cfg
with the tagger's listener followed by one maxout window layer (each token's vector with
its neighbours' on either side, spaCy's `MaxoutWindowEncoder`, residual), and the
rule-based sentencizer in the senter's place. With `--project-to N` the vectors are first
projected to N (a linear layer), so the window layer works at that width (cheaper):

    python scripts/window_head_config.py configs/tagger_senter_head.cfg training/tagger_window.cfg
"""

from pathlib import Path

import typer
from spacy.util import load_config

PIPELINE = ["transformer", "tagger", "sentencizer", "attribute_ruler", "lemmatizer"]


def main(base: Path, output: Path, width: int = 384, window_size: int = 1, project_to: int = 0):
    config = load_config(base)
    tagger = config["components"]["tagger"]["model"]
    listener = tagger["tok2vec"]
    encoder = {
        "@architectures": "spacy.MaxoutWindowEncoder.v2",
        "width": project_to or width,
        "window_size": window_size,
        "maxout_pieces": 3,
        "depth": 1,
    }
    layers = {"listener": listener}
    if project_to:
        layers["projection"] = {"@layers": "with_array.v1", "layer": {"@layers": "Linear.v1", "nO": project_to}}
    layers["window"] = {"@layers": "with_array.v1", "layer": encoder}
    tagger["tok2vec"] = {"@layers": "chain.v1", "*": layers}
    config["nlp"]["pipeline"] = PIPELINE
    output.parent.mkdir(parents=True, exist_ok=True)
    config.to_disk(output)


if __name__ == "__main__":
    typer.run(main)
