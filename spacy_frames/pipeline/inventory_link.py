"""The one interface between the frame inventory's owner (frame_identifier) and the
components that read it (frame_elements).

The owner holds the inventory (frames, lexical units, FEs, relations) and is the only one
that changes it; a reader asks it for the inventory and is told when it changes, as a
transformer listener is linked to its upstream transformer: by name (the reader's
`inventory_component`), when the pipeline is built, initialized or loaded (the owner's
`find_listeners`, spaCy's hook for linking listeners).
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
