"""Changing the frames of a loaded pipeline through frame_identifier, the inventory's owner,
which tells the frame_elements that read it (disabled ones too). Nothing is retrained; an FE
name frame_elements never trained on is untrained (docs/frame_elements.md measures both).

    spacy_frames.add_frame(nlp, "Cooking", "A Cook prepares Food ...", lexical_units=["cook.v"],
                           frame_elements=[{"name": "Cook", "core_type": "Core", "definition": "..."}])
    spacy_frames.set_inventory(nlp, "framenet15")  # a release the pipeline carries
"""

from pathlib import Path
from typing import Any, Dict, Iterable, Union

from spacy.language import Language

from ..inventory.frames import FrameInventory
from .inventory_link import InventoryReader
from .releases import RELEASE_LICENSES


def find_frame_identifier(nlp: Language):
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
    """Add a frame (definition, lexical units, Inheritance parents, FEs as FEDef or dicts with
    name / core_type / definition) to frame_identifier and frame_elements."""
    identifier = _link_readers(nlp)
    identifier.add_frame(
        name, definition, lexical_units=lexical_units, parents=parents, frame_elements=list(frame_elements)
    )


def set_inventory(nlp: Language, inventory: Union[str, Path, FrameInventory]) -> None:
    """Swap in another frame inventory: the name of a release the pipeline carries
    ("framenet15", "framenet17"), a frames.json path or a FrameInventory; every definition is
    encoded, nothing retrained. `nlp.meta["frame_inventory"]` then says what is active."""
    identifier = _link_readers(nlp)
    if isinstance(inventory, FrameInventory):
        identifier.set_inventory(inventory)
    elif isinstance(inventory, str) and inventory in identifier.releases:
        identifier.use_release(inventory)
    elif isinstance(inventory, (str, Path)) and Path(inventory).suffix == ".json":
        identifier.set_inventory(FrameInventory().from_disk(inventory))
    else:
        raise ValueError(
            f"No frame inventory release {inventory!r} in this pipeline: it carries "
            f"{identifier.releases.names or 'none'}; set_inventory also takes a frames.json path or a FrameInventory."
        )
    nlp.meta["frame_inventory"] = inventory_meta(identifier)


def inventory_meta(identifier) -> Dict[str, Any]:
    """meta.json's account of the active inventory: release (None: set by hand), source,
    frame count, license."""
    release = identifier.release
    licensed = RELEASE_LICENSES.get(release or "", {})
    return {
        "release": release,
        "source": identifier.inventory.source,
        "frames": len(identifier.inventory),
        "license": licensed.get("license"),
        "releases": identifier.releases.names,
    }


def _link_readers(nlp: Language):
    """frame_identifier, with every reader that names it linked (loading links enabled ones only)."""
    identifier = find_frame_identifier(nlp)
    for _, proc in nlp.components:
        if isinstance(proc, InventoryReader) and proc.cfg.get("inventory_component") == identifier.name:
            proc.link_inventory(identifier)
    return identifier
