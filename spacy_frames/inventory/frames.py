"""The frame inventory: FrameNet frames with definitions, lexical units, frame elements
(FE definitions, core types, FE-to-FE Excludes / Requires) and typed frame-to-frame
relations, read from (and written to) the converters' frames.json.

The XML readers that build it from a FrameNet release are in corpora/framenet.py;
`spacy-frames.frame_inventory.v1` (there too) loads a frames.json in [initialize].
"""

import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union

import srsly

PathLike = Union[str, Path]
MISSING_HINT = (
    "`spacy project run convert` (`spacy-frames convert`) writes it from the FrameNet assets "
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


# FrameNet's FE core types; "core" FEs are the first two
FE_CORE_TYPES = ("Core", "Core-Unexpressed", "Peripheral", "Extra-Thematic")


@dataclass
class FEDef:
    """A frame element of a frame: name, FrameNet id, core type (:data:`FE_CORE_TYPES`),
    plain-text definition, and the FEs of the same frame it excludes (may not co-occur
    with) and requires (``<excludesFE>`` / ``<requiresFE>`` of the frame XML)."""

    name: str
    core_type: str = "Peripheral"
    definition: str = ""
    id: int = -1
    excludes: List[str] = field(default_factory=list)
    requires: List[str] = field(default_factory=list)

    @property
    def is_core(self) -> bool:
        return self.core_type in ("Core", "Core-Unexpressed")

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "FEDef":
        return cls(
            name=str(data["name"]),
            core_type=str(data.get("core_type", "Peripheral")),
            definition=str(data.get("definition", "")),
            id=int(data.get("id", -1)),
            excludes=[str(n) for n in data.get("excludes", [])],
            requires=[str(n) for n in data.get("requires", [])],
        )


def _fe_dicts(frame_elements: Iterable[Union[FEDef, Dict[str, Any]]]) -> List[Dict[str, Any]]:
    return [FEDef.from_dict(fe.to_dict() if isinstance(fe, FEDef) else fe).to_dict() for fe in frame_elements]


class FrameInventory:
    """Frames with definitions and lexical units, plus typed frame-to-frame relations.

    ``frames``: name -> {"id": int, "definition": str, "lexical_units": ["get.v", ...],
    "frame_elements": [FEDef.to_dict(), ...]} (FEs in frame-file order; ``[]`` when the
    inventory was saved before FEs were read, or the frame has none).
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
                "frame_elements": _fe_dicts(info.get("frame_elements", [])),
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
        by_spelling: Dict[str, Set[str]] = defaultdict(set)
        for lu, names in lu_index.items():
            by_spelling[lu_spelling_key(lu)].update(names)
        self._lu_spelling_index = {key: sorted(names) for key, names in by_spelling.items()}
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

    # -- frame elements -------------------------------------------------------------------
    def frame_elements(self, name: str) -> List[FEDef]:
        """The FEs of frame ``name`` in frame-file order ([] if it has no FE data)."""
        self._check_frame(name)
        return [FEDef.from_dict(fe) for fe in self.frames[name]["frame_elements"]]

    def fe_names(self, name: str) -> List[str]:
        self._check_frame(name)
        return [fe["name"] for fe in self.frames[name]["frame_elements"]]

    def frame_element(self, name: str, fe: str) -> FEDef:
        for fe_def in self.frame_elements(name):
            if fe_def.name == fe:
                return fe_def
        raise ValueError(f"Unknown frame element '{fe}' of frame '{name}' (known: {', '.join(self.fe_names(name))}).")

    def fe_text(self, name: str, fe: str) -> str:
        """The text the FE definition encoder reads: "Giving: Donor (core): The person ...";
        the core type is written in lower case ("core", "core-unexpressed", "peripheral",
        "extra-thematic")."""
        fe_def = self.frame_element(name, fe)
        text = f"{name}: {fe_def.name} ({fe_def.core_type.lower()})"
        return f"{text}: {fe_def.definition}" if fe_def.definition else text

    def excludes(self, name: str) -> List[Tuple[str, str]]:
        """Pairs of FEs of frame ``name`` that exclude each other (FrameNet's Excludes,
        symmetric: each pair once, sorted, names of the frame's own FEs only)."""
        fes = self.frame_elements(name)
        known = {fe.name for fe in fes}
        pairs = {
            tuple(sorted((fe.name, other)))
            for fe in fes
            for other in fe.excludes
            if other in known and other != fe.name
        }
        return sorted(pairs)  # type: ignore[arg-type]

    def requires(self, name: str) -> List[Tuple[str, str]]:
        """(FE, required FE) pairs of frame ``name`` (FrameNet's Requires, directed)."""
        fes = self.frame_elements(name)
        known = {fe.name for fe in fes}
        return sorted({(fe.name, other) for fe in fes for other in fe.requires if other in known and other != fe.name})

    @property
    def n_frame_elements(self) -> int:
        return sum(len(info["frame_elements"]) for info in self.frames.values())

    def fe_counts(self) -> Dict[str, Any]:
        """Summary of the FE data: frames with FEs, FEs per core type, distinct FE names,
        Excludes pairs and Requires pairs."""
        core_types = Counter(fe["core_type"] for info in self.frames.values() for fe in info["frame_elements"])
        return {
            "frames_with_fes": sum(1 for info in self.frames.values() if info["frame_elements"]),
            "frame_elements": self.n_frame_elements,
            "fe_names": len({fe["name"] for info in self.frames.values() for fe in info["frame_elements"]}),
            "core_types": dict(sorted(core_types.items())),
            "excludes_pairs": sum(len(self.excludes(name)) for name in self.frames),
            "requires_pairs": sum(len(self.requires(name)) for name in self.frames),
        }

    def frames_for_lu(self, lu: str, exact: bool = False) -> List[str]:
        """Frames listing the lexical unit ``lu`` ("get.v"), sorted; [] if none. An LU spelled
        as another release spells it ("president_(political).n", FN1.5, is "president
        [political].n" in FN1.7) matches by `lu_spelling_key` when no LU has its exact name
        (unless `exact`)."""
        frames = self._lu_index.get(lu)
        if frames is not None:
            return list(frames)
        return [] if exact or not lu else list(self._lu_spelling_index.get(lu_spelling_key(lu), []))

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
        frame_elements: Iterable[Union[FEDef, Dict[str, Any]]] = (),
    ) -> None:
        """Add a new frame; ``parents`` become [parent, name] pairs of ``relation``.

        ``frame_id`` defaults to one more than the largest id in the inventory.
        ``frame_elements``: its FEs (:class:`FEDef` or their dicts), none by default.
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
            "frame_elements": _fe_dicts(frame_elements),
        }
        if parents:
            self.relations.setdefault(relation, []).extend([p, name] for p in parents)
        self._rebuild_indexes()

    # -- serialization ------------------------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        return {
            "version": self.version,
            "source": self.source,
            "frames": {
                name: {**self.frames[name], "frame_elements": _fe_dicts(self.frames[name]["frame_elements"])}
                for name in self.names
            },
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


def lu_spelling_key(lu: str) -> str:
    """A lexical unit's name without the spelling that differs between FrameNet releases:
    lower case, "_" for a space, brackets around a sense or an optional word ("aid_((act)).n"
    in FN1.5, "aid [act].n" in FN1.7: both "aid act.n"; "lead_(to).v" and "lead (to).v")."""
    lemma, _, pos = lu.rpartition(".")
    words = re.sub(r"[()\[\]]", " ", lemma.lower().replace("_", " ")).split()
    return " ".join(words) + "." + pos


def carried_frames(old: "FrameInventory", new: "FrameInventory") -> Dict[str, str]:
    """For each frame of `new`, the frame of `old` whose learned state it should inherit.

    When the two inventories number frames alike (most frames present in both under one
    name have the same ID: two FrameNet releases), a frame follows its ID, so a renamed
    frame keeps its state (FN1.5 Becoming -> FN1.7 Transition_to_state) and a new frame
    that reuses an old name (FN1.7's own "Becoming") starts fresh. Otherwise (a toy or
    hand-made inventory) frames follow their names."""
    shared = [n for n in new.frames if n in old.frames]
    same_id = sum(old.frames[n].get("id") == new.frames[n].get("id") for n in shared)
    if not shared or same_id * 2 < len(shared):
        return {n: n for n in new.frames if n in old.frames}
    by_id = {info.get("id"): name for name, info in old.frames.items() if info.get("id") is not None}
    carried = {}
    for name, info in new.frames.items():
        source = by_id.get(info.get("id"))
        if source is not None:
            carried[name] = source
    return carried


def renamed_frames(old: "FrameInventory", new: "FrameInventory") -> Dict[str, Optional[str]]:
    """Each frame of `old` as it is named in `new` (by frame ID; None: not in `new`)."""
    by_id = {info.get("id"): name for name, info in new.frames.items()}
    return {name: by_id.get(info.get("id")) for name, info in old.frames.items()}
