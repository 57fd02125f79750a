"""The frame inventory: FrameNet frames with definitions, lexical units and typed
frame-to-frame relations, read from (and written to) the converters' frames.json.

The XML readers that build it from a FrameNet release are in corpora/framenet.py;
`spacy-frames.frame_inventory.v1` (there too) loads a frames.json in [initialize].
"""
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Union

import srsly

PathLike = Union[str, Path]
MISSING_HINT = (
    "scripts/convert_framenet.py writes it from the FrameNet assets "
    "(run `spacy project assets` (or `python -m spacy_frames fetch-assets`) to fetch it)"
)

# Relation type names used by FrameNet 1.5 and 1.7 frRelation.xml. Asking for one of these on
# an inventory that happens to have no pair of that type is not an error (it has no parents).
FRAME_RELATION_TYPES = (
    "Inheritance",
    "Using",
    "Subframe",
    "Perspective_on",
    "Precedes",
    "Inchoative_of",
    "Causative_of",
    "See_also",
    "ReFraming_Mapping",
    "Metaphor",
)


class FrameInventory:
    """Frames with definitions and lexical units, plus typed frame-to-frame relations.

    ``frames``: name -> {"id": int, "definition": str, "lexical_units": ["get.v", ...]}.
    ``relations``: relation type ("Inheritance") -> [[super_frame, sub_frame], ...].
    The LU -> frames index and the parent/child maps are derived state, rebuilt on every
    load and edit, never serialized. Edit through :meth:`add_frame` so they stay in sync.
    """

    version = 1

    def __init__(
        self,
        frames: Optional[Dict[str, Dict[str, Any]]] = None,
        relations: Optional[Dict[str, Sequence[Sequence[str]]]] = None,
        source: str = "",
    ) -> None:
        self.source = source
        self.frames: Dict[str, Dict[str, Any]] = {}
        self.relations: Dict[str, List[List[str]]] = {}
        self._set_state(frames or {}, relations or {})

    # -- derived state ------------------------------------------------------------------
    def _set_state(
        self,
        frames: Dict[str, Dict[str, Any]],
        relations: Dict[str, Sequence[Sequence[str]]],
    ) -> None:
        self.frames = {
            name: {
                "id": int(info.get("id", -1)),
                "definition": str(info.get("definition", "")),
                "lexical_units": [str(lu) for lu in info.get("lexical_units", [])],
            }
            for name, info in frames.items()
        }
        self.relations = {}
        for rel_type, pairs in relations.items():
            checked = []
            for pair in pairs:
                if len(pair) != 2:
                    raise ValueError(f"Relation '{rel_type}': expected [super, sub], got {pair!r}")
                for name in pair:
                    self._check_frame(name)
                checked.append([str(pair[0]), str(pair[1])])
            self.relations[rel_type] = checked
        self._rebuild_indexes()

    def _rebuild_indexes(self) -> None:
        lu_index: Dict[str, Set[str]] = defaultdict(set)
        for name, info in self.frames.items():
            for lu in info["lexical_units"]:
                lu_index[lu].add(name)
        self._lu_index = {lu: sorted(names) for lu, names in lu_index.items()}
        self._parents: Dict[str, Dict[str, List[str]]] = {}
        self._children: Dict[str, Dict[str, List[str]]] = {}
        for rel_type, pairs in self.relations.items():
            parents: Dict[str, List[str]] = defaultdict(list)
            children: Dict[str, List[str]] = defaultdict(list)
            for sup, sub in pairs:
                parents[sub].append(sup)
                children[sup].append(sub)
            self._parents[rel_type] = {k: sorted(set(v)) for k, v in parents.items()}
            self._children[rel_type] = {k: sorted(set(v)) for k, v in children.items()}

    def _check_frame(self, name: str) -> None:
        if name not in self.frames:
            raise ValueError(
                f"Unknown frame '{name}': not in this FrameInventory "
                f"({len(self.frames)} frames, source '{self.source}')."
            )

    def _check_relation(self, relation: str) -> None:
        if relation not in self.relations and relation not in FRAME_RELATION_TYPES:
            known = sorted(set(self.relations) | set(FRAME_RELATION_TYPES))
            raise ValueError(f"Unknown frame relation type '{relation}'. Known: {', '.join(known)}")

    # -- lookups ------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.frames)

    def __contains__(self, name: object) -> bool:
        return name in self.frames

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    @property
    def names(self) -> List[str]:
        """All frame names, sorted."""
        return sorted(self.frames)

    @property
    def n_lexical_units(self) -> int:
        """Number of lexical-unit entries (FN1.5 has 3 names listed twice in one frame)."""
        return sum(len(info["lexical_units"]) for info in self.frames.values())

    def relation_counts(self) -> Dict[str, int]:
        return {rel_type: len(pairs) for rel_type, pairs in sorted(self.relations.items())}

    def definition(self, name: str) -> str:
        self._check_frame(name)
        return self.frames[name]["definition"]

    def frame_id(self, name: str) -> int:
        self._check_frame(name)
        return self.frames[name]["id"]

    def lexical_units(self, name: str) -> List[str]:
        self._check_frame(name)
        return list(self.frames[name]["lexical_units"])

    def frames_for_lu(self, lu: str) -> List[str]:
        """Frames listing the lexical unit ``lu`` ("get.v"; exact match), sorted; [] if none."""
        return list(self._lu_index.get(lu, []))

    def parents(self, name: str, relation: str = "Inheritance") -> List[str]:
        """Super frames of ``name`` under ``relation`` (e.g. the frames it inherits from)."""
        self._check_frame(name)
        self._check_relation(relation)
        return list(self._parents.get(relation, {}).get(name, []))

    def children(self, name: str, relation: str = "Inheritance") -> List[str]:
        """Sub frames of ``name`` under ``relation``, sorted."""
        self._check_frame(name)
        self._check_relation(relation)
        return list(self._children.get(relation, {}).get(name, []))

    def siblings(self, name: str, relation: str = "Inheritance") -> List[str]:
        """Frames sharing at least one parent with ``name`` (itself excluded), sorted."""
        siblings: Set[str] = set()
        for parent in self.parents(name, relation):
            siblings.update(self._children[relation].get(parent, []))
        siblings.discard(name)
        return sorted(siblings)

    # -- editing ------------------------------------------------------------------------
    def add_frame(
        self,
        name: str,
        definition: str,
        lexical_units: Iterable[str] = (),
        parents: Iterable[str] = (),
        *,
        relation: str = "Inheritance",
        frame_id: Optional[int] = None,
    ) -> None:
        """Add a new frame; ``parents`` become [parent, name] pairs of ``relation``.

        ``frame_id`` defaults to one more than the largest id in the inventory.
        """
        if name in self.frames:
            raise ValueError(f"Frame '{name}' already exists in this FrameInventory.")
        parents = list(parents)
        for parent in parents:
            self._check_frame(parent)
        self._check_relation(relation)
        if frame_id is None:
            frame_id = max((info["id"] for info in self.frames.values()), default=0) + 1
        self.frames[name] = {
            "id": int(frame_id),
            "definition": definition,
            "lexical_units": list(lexical_units),
        }
        if parents:
            self.relations.setdefault(relation, []).extend([p, name] for p in parents)
        self._rebuild_indexes()

    # -- serialization ------------------------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        return {
            "version": self.version,
            "source": self.source,
            "frames": {name: dict(self.frames[name]) for name in self.names},
            "relations": {k: [list(p) for p in v] for k, v in sorted(self.relations.items())},
        }

    def from_dict(self, data: Dict[str, Any]) -> "FrameInventory":
        version = data.get("version")
        if version != self.version:
            raise ValueError(f"Unsupported FrameInventory format version {version!r} (expected {self.version}).")
        self.source = str(data.get("source", ""))
        self._set_state(data.get("frames", {}), data.get("relations", {}))
        return self

    def to_disk(self, path: PathLike) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path, self.to_dict())

    def from_disk(self, path: PathLike) -> "FrameInventory":
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"Frame inventory JSON not found at '{path}': {MISSING_HINT}.")
        return self.from_dict(srsly.read_json(path))

    def __repr__(self) -> str:
        return (
            f"<FrameInventory source='{self.source}' frames={len(self)} "
            f"lexical_units={self.n_lexical_units} relations={self.relation_counts()}>"
        )
