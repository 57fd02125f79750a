"""en_frames_trf with its own tags, lemmas and sentences, en_core_web_sm's parser kept.

The main job's en_frames_trf (`training/frames_trf`) with en_core_web_sm's tagger,
attribute_ruler and lemmatizer replaced by this study's heads pipeline (a tagger head on
the same frozen transformer, spaCy's attribute_ruler with
`spacy-frames.ptb_attribute_patterns.v1`, the rule lemmatizer) and spaCy's sentencizer
first: the parser keeps preset sentence starts, so the sentences are the rule's and the
parse (frame_elements' subtrees and syntax features) is en_core_web_sm's within them.
Nothing is retrained: the frame components trained on en_core_web_sm's tags and lemmas read
the heads' at prediction.

    python scripts/assemble_own_stack.py ../../training/frames_trf training/tagger_sentencizer/model-best \
        training/frames_trf_own_linear
"""

from pathlib import Path

import spacy
import typer

from spacy_frames.extensions import install_extensions

# en_core_web_sm's components replaced by the heads pipeline's of the same names, which
# go, in this order, after the shared transformer
REPLACED = ("tagger", "attribute_ruler", "lemmatizer")


def assemble(pipeline: Path, heads: Path, output: Path) -> None:
    install_extensions()
    nlp = spacy.load(pipeline)
    head_nlp = spacy.load(heads)
    if not same_weights(nlp.get_pipe("transformer").model, head_nlp.get_pipe("transformer").model):
        raise ValueError(f"{heads} was trained on another transformer than {pipeline}'s")
    for name in REPLACED:
        nlp.remove_pipe(name)
    nlp.add_pipe("sentencizer", first=True)
    after = "transformer"
    for name in REPLACED:
        nlp.add_pipe(name, source=head_nlp, after=after)
        after = name
    nlp.meta["name"] = f"{nlp.meta.get('name', 'frames_trf')}_own_stack"
    nlp.to_disk(output)
    # the saved pipeline links the sourced tagger to its transformer when loaded
    loaded = spacy.load(output)
    listeners = loaded.get_pipe("transformer").listener_map
    if "tagger" not in listeners:
        raise RuntimeError(f"the tagger does not listen to the shared transformer: {sorted(listeners)}")
    typer.echo(f"{output}: {loaded.pipe_names}")


def same_weights(a, b) -> bool:
    """Whether two transformer components' torch weights are equal."""
    import torch

    def tensors(model):
        return [t for node in model.walk() for shim in node.shims for t in shim._model.state_dict().values()]

    ta, tb = tensors(a), tensors(b)
    return len(ta) == len(tb) and all(torch.equal(x.float(), y.float()) for x, y in zip(ta, tb))


if __name__ == "__main__":
    typer.run(assemble)
