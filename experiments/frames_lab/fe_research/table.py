"""The research frame_elements' FE table: the frame inventory it reads (frame_identifier's)
and the rows of its model's FE query table.

`FETableMixin` is the part of the `FrameElementsResearch` component that keeps the FE table in step
with the inventory: built from it at initialization (each FE definition encoded by
frame_identifier's definition encoder, or one learned row per FE name with
fe_queries = "labels"), extended when a frame is added, rebuilt when the inventory is
swapped, and indexed per frame (`_frame_options`: the model rows of a frame's FEs;
`frame_excludes`: FrameNet's Excludes pairs).
"""

from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

import numpy

from spacy_frames.inventory.frames import FrameInventory
from spacy_frames.pipeline.fe_table import FETableMixin as _ProductTable

from .model import fe_table_node, set_fe_vectors


class FETableMixin:
    """The FE table and inventory side of FrameElementsResearch (see the module docstring)."""

    fe_table: List[Tuple[str, str]]
    _owner: Optional[Any]
    _options: Optional[Dict[str, List[int]]]
    _indexed: Optional[FrameInventory]
    _excludes: Dict[str, Dict[str, Set[str]]]
    _warned: Set[str]

    # the product's (spacy_frames.pipeline.fe_table), the same to the letter: the label
    # data, the owner's inventory and each frame's FE exclusions
    label_data = _ProductTable.label_data
    inventory = _ProductTable.inventory
    frame_excludes = _ProductTable.frame_excludes

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(sorted({fe for _, fe in self.fe_table}))

    @property
    def _by_label(self) -> bool:
        return self.cfg["fe_queries"] == "labels"

    @property
    def inventory_owner(self) -> Optional[Any]:
        """The component whose frame inventory this one reads (None: not linked yet)."""
        return self._owner

    def link_inventory(self, owner: Any) -> None:
        """Read `owner`'s frame inventory and encode with its definition encoder; `owner` is
        the component named by encoder_component (frame_identifier's `find_listeners` and
        `initialize` link them)."""
        if owner is not self._owner:
            self._owner = owner
            self._index_table()
        owner.add_inventory_reader(self)

    def _require_owner(self) -> Any:
        if self._owner is None:
            raise ValueError(
                f"[{self.name}] reads the frame inventory of encoder_component '{self.cfg['encoder_component']}', "
                "which is not linked: add frame_identifier before frame_elements in the pipeline "
                "(a pipeline links them when it is built, initialized or loaded)."
            )
        return self._owner

    def frame_added(self, name: str) -> None:
        """The owner added frame `name` to its inventory: its FEs' definitions are encoded
        into the FE table (no retraining)."""
        if self.fe_table:
            keys, texts = self._fe_texts(self.inventory, [name])
            encode = self._owner.encode_texts
            if keys and self._by_label:
                self._set_label_rows(keys, texts, encode)
            elif keys:
                old = fe_table_node(self.model).get_param("fe_vectors")
                set_fe_vectors(
                    self.model,
                    numpy.concatenate([self.model.ops.to_numpy(old), numpy.asarray(encode(texts), dtype="float32")]),
                )
                self.fe_table.extend(keys)
        self._index_table()

    def check_inventory(self, inventory: FrameInventory) -> None:
        """Raise before the owner swaps in `inventory` when this component could not use it."""
        if self.fe_table and not self._fe_texts(inventory, inventory.names)[0]:
            raise ValueError(
                f"[{self.name}] the frame inventory has no frame elements: convert FrameNet with its FE data."
            )

    def inventory_changed(self) -> None:
        """The owner swapped in another inventory: the FE table is rebuilt from it."""
        if self.fe_table:
            self._build_table()
        self._index_table()

    def _index_table(self) -> None:
        """Forget each frame's options (built again on first use from the table and the
        inventory, `_frame_options`), its FE exclusions and the frames warned about."""
        self._options = None
        self._excludes = {}
        self._warned = set()

    @property
    def _frame_options(self) -> Dict[str, List[int]]:
        """Each frame's options: the model rows of its FEs."""
        inventory = self.inventory
        if self._options is not None and inventory is self._indexed:
            return self._options
        options: Dict[str, List[int]] = {}
        if self._by_label:
            row_of = {fe: row for row, (_, fe) in enumerate(self.fe_table, start=1)}
            for frame in inventory.names:
                rows = [row_of[fe] for fe in inventory.fe_names(frame) if fe in row_of]
                if rows:
                    options[frame] = rows
        else:
            for row, (frame, _) in enumerate(self.fe_table, start=1):
                options.setdefault(frame, []).append(row)
        if inventory is not self._indexed:
            self._excludes, self._warned = {}, set()
        self._options, self._indexed = options, inventory
        return options

    @staticmethod
    def _fe_texts(inventory: FrameInventory, frames: Iterable[str]) -> Tuple[List[Tuple[str, str]], List[str]]:
        keys = [(frame, fe) for frame in frames for fe in inventory.fe_names(frame)]
        return keys, [inventory.fe_text(frame, fe) for frame, fe in keys]

    def _build_table(self) -> None:
        """The FE table of the inventory: every FE definition encoded with the owner's
        `encode_texts` (fe_queries = "labels": the vectors of the FE names)."""
        inventory, encode = self.inventory, self._owner.encode_texts
        keys, texts = self._fe_texts(inventory, inventory.names)
        if not keys:
            raise ValueError(
                f"[{self.name}] the frame inventory has no frame elements: convert FrameNet with its FE data."
            )
        if self._by_label:
            self._set_label_rows(keys, texts, encode)
        else:
            set_fe_vectors(self.model, numpy.asarray(encode(texts), dtype="float32"))  # checks the width first
            self.fe_table = keys
        self._index_table()

    def _set_label_rows(
        self, keys: Sequence[Tuple[str, str]], texts: Sequence[str], encode: Callable[[Sequence[str]], numpy.ndarray]
    ) -> None:
        """fe_queries = "labels": one learned vector per FE name (shared by every frame
        with that FE); vectors of names already known are kept. A new name starts random
        (label_init = "random") or as the mean of its definitions' vectors ("definitions":
        then a frame added at run time with FE names never trained still gets vectors in
        the space the trained names live in)."""
        old = (
            {fe: i for i, (_, fe) in enumerate(self.fe_table)}
            if fe_table_node(self.model).has_param("fe_vectors")
            else {}
        )
        current = self.model.ops.to_numpy(fe_table_node(self.model).get_param("fe_vectors")) if old else None
        new = [(i, fe) for i, (_, fe) in enumerate(keys) if fe not in old]
        by_name: Dict[str, List[numpy.ndarray]] = {}
        if self.cfg["label_init"] == "definitions" and new:
            encoded = numpy.asarray(encode([texts[i] for i, _ in new]), dtype="float32")
            for (_, fe), vector in zip(new, encoded):
                by_name.setdefault(fe, []).append(vector)
        width = current.shape[1] if current is not None else numpy.asarray(encode(["frame element"])).shape[1]
        names = list(dict.fromkeys([*(fe for _, fe in self.fe_table if fe in old), *sorted({fe for _, fe in keys})]))
        rng = numpy.random.default_rng(len(names))

        def start(name: str) -> numpy.ndarray:
            if name in by_name:
                return numpy.mean(by_name[name], axis=0)
            return rng.normal(0, 1 / numpy.sqrt(width), width)

        vectors = numpy.stack([current[old[n]] if n in old else start(n) for n in names]).astype("float32")
        set_fe_vectors(self.model, vectors)
        self.fe_table = [("*", n) for n in names]

    def _require_table(self) -> None:
        if not self.fe_table or not fe_table_node(self.model).has_param("fe_vectors"):
            raise ValueError(
                f"[{self.name}] has no frame elements: initialize it with a frame inventory that has FE data "
                '([initialize.components.frame_elements.frames] @misc = "spacy-frames.frame_inventory.v1").'
            )
