"""The one interface between the frame inventory's owner (frame_identifier, the only one
that changes it) and the components that read it (frame_elements). A reader names its owner
(`inventory_component`) and is linked by the owner's `find_listeners` when the pipeline is
built, initialized or loaded, as a transformer listener is linked to its transformer.
"""

from typing import Any, Iterable, Optional, Protocol, runtime_checkable

from ..inventory.frames import FrameInventory


@runtime_checkable
class InventoryOwner(Protocol):
    """What a reader may ask of the owner."""

    name: str

    @property
    def inventory(self) -> FrameInventory: ...

    def add_inventory_reader(self, reader: "InventoryReader") -> None:
        """Tell `reader` of every later change of the inventory."""

    def add_frame(
        self,
        name: str,
        definition: str,
        lexical_units: Iterable[str] = (),
        parents: Iterable[str] = (),
        frame_elements: Iterable[Any] = (),
    ) -> None:
        """Add a frame (with its FEs) at run time."""

    def set_inventory(self, inventory: FrameInventory) -> None:
        """Swap in another inventory (e.g. another FrameNet release)."""


@runtime_checkable
class InventoryReader(Protocol):
    """What the owner tells a reader, and the link it checks."""

    name: str
    inventory_owner: Optional[InventoryOwner]

    def link_inventory(self, owner: InventoryOwner) -> None:
        """Read `owner`'s inventory from now on."""

    def frame_added(self, name: str) -> None:
        """The owner added frame `name`."""

    def check_inventory(self, inventory: FrameInventory) -> None:
        """Raise, before the owner swaps in `inventory`, when the reader could not use it."""

    def inventory_changed(self) -> None:
        """The owner swapped in another inventory."""
