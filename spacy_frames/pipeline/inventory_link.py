"""The one interface between the frame inventory's owner (frame_identifier, the only one
that changes it) and the components that read it (frame_elements). A reader names its owner
(`inventory_component`) and is linked by the owner's `find_listeners` when the pipeline is
built, initialized or loaded, as a transformer listener is linked to its transformer.
"""

from typing import Optional, Protocol, runtime_checkable

from ..inventory.frames import FrameInventory


@runtime_checkable
class InventoryOwner(Protocol):
    """What a reader may ask of the owner: the inventory, and to be told of its changes."""

    name: str

    @property
    def inventory(self) -> FrameInventory: ...

    def add_inventory_reader(self, reader: "InventoryReader") -> None: ...


@runtime_checkable
class InventoryReader(Protocol):
    """What the owner tells a reader: `frame_added` after `add_frame`; `check_inventory`
    (raise when the reader could not use it) before it swaps in an inventory and
    `inventory_changed` after."""

    name: str
    inventory_owner: Optional[InventoryOwner]

    def link_inventory(self, owner: InventoryOwner) -> None: ...

    def frame_added(self, name: str) -> None: ...

    def check_inventory(self, inventory: FrameInventory) -> None: ...

    def inventory_changed(self) -> None: ...
