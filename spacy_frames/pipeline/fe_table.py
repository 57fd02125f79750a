"""frame_elements' FE table: one learned vector per FE name, shared by every frame with an FE
of that name (FrameNet reuses Agent, Time, Place, ...); `fe_names[i]` names row i + 1 (row 0
is "no FE"). Built at initialization from the owner's inventory (`inventory_link.py`), grown
with untrained vectors when the owner adds a frame or swaps in an inventory with new FE names.
"""

from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

import numpy

from ..inventory.frames import FrameInventory
from ..ml.fe_options import set_fe_vectors

NO_FES = "[{name}] the frame inventory has no frame elements: convert FrameNet with its FE data."


class FETableMixin:
    """The FE table and inventory side of FrameElements (see the module docstring)."""

    fe_names: List[str]
    inventory_owner: Optional[Any]
    _options: Optional[Dict[str, List[int]]]
    _indexed: Optional[FrameInventory]
    _excludes: Dict[str, Dict[str, Set[str]]]

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(sorted(self.fe_names))

    @property
    def label_data(self) -> List[str]:
        return list(self.labels)

    # -- the owner of the frame inventory ---------------------------------------------------
    @property
    def inventory(self) -> FrameInventory:
        """The frame inventory: the inventory component's (frame_identifier's)."""
        return self._require_owner().inventory

    def link_inventory(self, owner: Any) -> None:
        """Read `owner`'s frame inventory (frame_identifier's `find_listeners` and this
        component's `initialize` link them)."""
        if owner is not self.inventory_owner:
            self.inventory_owner = owner
            self._index_table()
        owner.add_inventory_reader(self)

    def _require_owner(self) -> Any:
        if self.inventory_owner is None:
            raise ValueError(
                f"[{self.name}] reads the frame inventory of inventory_component '{self.cfg['inventory_component']}', "
                "which is not linked: add frame_identifier before frame_elements in the pipeline "
                "(a pipeline links them when it is built, initialized or loaded)."
            )
        return self.inventory_owner

    # -- what the owner tells its readers ----------------------------------------------------
    def frame_added(self, name: str) -> None:
        """The owner added frame `name`: its new FE names join the table, untrained."""
        self.inventory_changed()

    def check_inventory(self, inventory: FrameInventory) -> None:
        """Raise before the owner swaps in `inventory` when this component could not use it."""
        if self.fe_names and not self._inventory_fe_names(inventory):
            raise ValueError(NO_FES.format(name=self.name))

    def inventory_changed(self) -> None:
        """The owner swapped in another inventory: its FE names join the table."""
        if self.fe_names:
            self._extend_table(self._inventory_fe_names(self.inventory))
        self._index_table()

    # -- the table --------------------------------------------------------------------------
    def _build_table(self) -> None:
        """The FE table of the inventory's FE names, from scratch."""
        names = self._inventory_fe_names(self.inventory)
        if not names:
            raise ValueError(NO_FES.format(name=self.name))
        self.fe_names = []
        self._extend_table(names)
        self._index_table()

    def _extend_table(self, names: Iterable[str]) -> None:
        """Append the FE names the table lacks, each with a random vector (sorted, so the
        table does not depend on the inventory's order)."""
        known = set(self.fe_names)
        new = sorted(set(self._table_names(names)) - known)
        if not new:
            return
        layer = self.model.get_ref("options")
        width = layer.get_dim("nD")
        rng = numpy.random.default_rng(len(self.fe_names) + len(new))
        current = layer.ops.to_numpy(layer.get_param("fe_vectors")) if self.fe_names else numpy.zeros((0, width), "f")
        fresh = rng.normal(0, 1 / numpy.sqrt(width), (len(new), width))
        set_fe_vectors(layer, numpy.concatenate([current, fresh]).astype("float32"))
        self.fe_names = [*self.fe_names, *new]

    @staticmethod
    def _table_names(fe_names: Iterable[str]) -> List[str]:
        """The FE table's names for these FE names: one row each."""
        return list(fe_names)

    @staticmethod
    def _inventory_fe_names(inventory: FrameInventory) -> List[str]:
        return sorted({fe for frame in inventory.names for fe in inventory.fe_names(frame)})

    def _index_table(self) -> None:
        """Forget each frame's options and FE exclusions (built again on first use)."""
        self._options, self._excludes = None, {}

    @property
    def _frame_options(self) -> Dict[str, List[int]]:
        """Each frame's options: the table rows of its FEs."""
        inventory = self.inventory
        if self._options is not None and inventory is self._indexed:
            return self._options
        row_of = {fe: row for row, fe in enumerate(self.fe_names, start=1)}
        options: Dict[str, List[int]] = {}
        for frame in inventory.names:
            rows = [row_of[name] for name in self._table_names(inventory.fe_names(frame)) if name in row_of]
            if rows:
                options[frame] = rows
        if inventory is not self._indexed:
            self._excludes = {}
        self._options, self._indexed = options, inventory
        return options

    def frame_excludes(self, frame: str) -> Dict[str, Set[str]]:
        if frame not in self._excludes:
            pairs: Dict[str, Set[str]] = {}
            if self.cfg["use_excludes"] and frame in self.inventory:
                for a, b in self.inventory.excludes(frame):
                    pairs.setdefault(a, set()).add(b)
                    pairs.setdefault(b, set()).add(a)
            self._excludes[frame] = pairs
        return self._excludes[frame]

    def _require_table(self) -> None:
        if not self.fe_names or not self.model.get_ref("options").has_param("fe_vectors"):
            raise ValueError(
                f"[{self.name}] has no frame elements: initialize it with a frame inventory that has FE data "
                '([initialize.components.frame_elements.frames] @misc = "spacy-frames.frame_inventory.v1").'
            )
