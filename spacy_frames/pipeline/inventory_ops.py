"""Changing the frames of a loaded pipeline, for every component that depends on them.

frame_identifier scores targets against frame definitions and frame_elements scores
spans against FE definitions, both encoded by frame_identifier's definition encoder:
`add_frame` and `set_inventory` update both, so a new frame gets targets and frame
elements with no retraining.

    import spacy_frames
    spacy_frames.add_frame(nlp, "Cooking", "A Cook prepares Food ...", lexical_units=["cook.v"],
                           frame_elements=[{"name": "Cook", "core_type": "Core", "definition": "..."}])
"""

from typing import Any, Iterable

from spacy.language import Language

from ..inventory.frames import FrameInventory


def _identifier(nlp: Language):
    found = [proc for name, proc in nlp.components if nlp.get_pipe_meta(name).factory == "frame_identifier"]
    if not found:
        raise ValueError(
            f"The pipeline has no frame_identifier (components: {nlp.component_names}): it encodes the definitions."
        )
    return found[0]


def add_frame(
    nlp: Language,
    name: str,
    definition: str,
    lexical_units: Iterable[str] = (),
    parents: Iterable[str] = (),
    frame_elements: Iterable[Any] = (),
) -> None:
    """Add a frame (its definition, lexical units, Inheritance parents and FEs: FEDef or
    dicts with name / core_type / definition) to frame_identifier and frame_elements."""
    identifier = _identifier(nlp)
    frame_elements = list(frame_elements)
    element_pipes = [proc for n, proc in nlp.components if nlp.get_pipe_meta(n).factory == "frame_elements"]
    for proc in element_pipes:  # checked first: a name clash must leave both untouched
        if name in proc.inventory:
            raise ValueError(f"[{proc.name}] frame '{name}' is already known")
    identifier.add_frame(name, definition, lexical_units=lexical_units, parents=parents)
    for proc in element_pipes:
        proc.add_frame(
            name, definition, frame_elements, identifier.encode_texts, lexical_units=lexical_units, parents=parents
        )


def set_inventory(nlp: Language, inventory: FrameInventory) -> None:
    """Swap in another frame inventory (e.g. FrameNet 1.7's) in frame_identifier and
    frame_elements; every definition is encoded, nothing is retrained."""
    identifier = _identifier(nlp)
    identifier.set_inventory(inventory)
    for n, proc in nlp.components:
        if nlp.get_pipe_meta(n).factory == "frame_elements":
            proc.set_inventory(inventory, identifier.encode_texts)
