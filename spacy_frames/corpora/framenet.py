"""FrameNet frame inventory, and the conventions of the FrameNet readers and converters.

Sources (all read in place, nothing is extracted):

- FrameNet 1.5: the release zip (``fndata-1.5/``): ``frameIndex.xml``, ``frame/*.xml``,
  ``luIndex.xml``, ``frRelation.xml``, ``fulltext/*.xml`` and ``lu/*.xml`` (exemplars).
- FrameNet 1.7: ``frames_xml/`` (frame XML without lexical units, ``frRelation.xml``),
  ``FN17_enlu_id.json`` (the lexicon) and open-sesame CoNLL files (one block per target).

Everything is read into two plain structures: :class:`FrameInventory` (frames, definitions,
lexical units, frame relations; this module) and
:class:`~spacy_frames.corpora.framenet_sentences.FrameSentence` (one sentence: text, tokens as
character offsets, and its targets). ``framenet_sentences.sentence_to_doc`` turns a sentence
into a ``Doc`` whose ``doc.spans["targets"]`` holds one span per target, labelled with the
gold frame, with ``span._.lexical_unit`` and, for discontinuous targets,
``span._.target_parts``. :mod:`spacy_frames.corpora.framenet_convert` writes the ``DocBin``
corpora and ``frames.json``.

Conventions: every character offset in these modules' data classes is Python style,
``end`` exclusive (FrameNet's XML writes ``end`` inclusive; the readers add 1). Token
offsets in ``span._.target_parts`` are ``[start, end)`` token indices, like ``span.start``
and ``span.end`` (after a ``DocBin`` round trip msgpack gives them back as tuples).

What counts as a target, and what is skipped (FN1.5 numbers, Das et al. split):

- Full text: a target is an annotation set with a ``frameName``: train 17,152, dev 2,333,
  test 4,459 (every such set also has an ``luName``). Sets without a frame (the UNANN set
  with the PENN/NER/WSL layers) are not targets. All are counted in ``targets``; a target
  becomes a span unless it is skipped and counted in ``skipped_targets`` by reason:
  ``no_target_label`` (4 sets whose Target layer is empty: "go on.v", "in time.prep",
  "December.n", "role.n"), ``unknown_frame`` (frame outside the inventory: the 2 ``Test35``
  / "backstitch.v" sets, one in train and one in dev, both mis-annotations of "prevailed"
  and "wins"), ``unaligned`` (a piece outside the text; none in FN1.5).
- A target with several Target labels is one span: contiguous when the pieces touch
  ("a lot" = "A" + "lot"), else discontinuous with ``span._.target_parts`` ("chemical ...
  weapon", "there had been").
- Sentences without targets are kept with an empty span group. Beware: most of them are
  not negatives but unannotated sentences of partially annotated documents (e.g. 1,438
  of the 2,420 test sentences, 259 of 270 in ``Miscellaneous__Hound-Ch14``).
- Tokens come from the PENN layer (repaired, see ``framenet_sentences._layer_tokens``); exemplars use
  PENN or BNC; 184 exemplars whose layer does not fit their text are split on whitespace.
"""
import html
import re
import zipfile
from collections import defaultdict
from pathlib import Path
from typing import IO, Any, Callable, Container, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Union
import xml.etree.ElementTree as ET

import srsly
from spacy.util import registry

PathLike = Union[str, Path]

FN_NAMESPACE = "http://framenet.icsi.berkeley.edu"
_NS = "{" + FN_NAMESPACE + "}"
FETCH_HINT = "run `spacy project assets` (or `python -m spacy_frames fetch-assets`) to fetch it"
CONVERT_HINT = "run `spacy project run convert` to write it"

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

_TAG_RE = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")
# tags that separate text (the rest are inline: "<fex name='Agent'>Agent</fex>'s")
_BLOCK_TAG_RE = re.compile(r"</?(?:def-root|br|p|div)\b[^<>]*/?>", re.IGNORECASE)
_EX_RE = re.compile(r"<ex>(.*?)</ex>", re.DOTALL)
_WS_RE = re.compile(r"\s+")

# FrameNet's "PENN" layer is TreeTagger output: lower-cased PTB tags plus TreeTagger's own
# verb/pronoun codes (VV*, VH*, PP, NP, sent). Map them to PTB so FN1.5 and open-sesame
# (which already writes PTB) agree; unknown labels are upper-cased. Idempotent on PTB tags.
_PENN_TAG_MAP = {
    "NP": "NNP",
    "NPS": "NNPS",
    "PP": "PRP",
    "PP$": "PRP$",
    "PRPS": "PRP$",
    "SENT": ".",
    "VV": "VB",
    "VVD": "VBD",
    "VVG": "VBG",
    "VVN": "VBN",
    "VVP": "VBP",
    "VVZ": "VBZ",
    "VH": "VB",
    "VHD": "VBD",
    "VHG": "VBG",
    "VHN": "VBN",
    "VHP": "VBP",
    "VHZ": "VBZ",
    "(": "-LRB-",
    ")": "-RRB-",
}


# Penn Treebank tags as spaCy's English models write them (plus "_SP" for whitespace);
# anything else in a PENN layer is not set as token.tag_.
PTB_TAGS = frozenset(
    "CC CD DT EX FW IN JJ JJR JJS LS MD NN NNS NNP NNPS PDT POS PRP PRP$ RB RBR RBS RP SYM TO "
    "UH VB VBD VBG VBN VBP VBZ WDT WP WP$ WRB . , : `` '' $ # -LRB- -RRB- HYPH NFP ADD AFX XX _SP".split()
)


def normalize_penn_tag(tag: str) -> str:
    """Map a FrameNet PENN-layer label ("nn", "VVD", "sent", "PP$") to its PTB tag."""
    upper = tag.upper()
    return _PENN_TAG_MAP.get(upper, upper)


def strip_definition_markup(definition: Optional[str]) -> str:
    """Plain text of a FrameNet definition.

    Definitions are XML-escaped HTML-like markup (``<def-root>``, ``<fex name="Agent">``,
    ``<fen>``, ``<ex>``, ``<t>``, ``<m>``, ...). Tags are dropped (their text is kept),
    examples (``<ex>``) are quoted as ``'...'`` like the official plain-text dumps, entities
    are unescaped and whitespace is collapsed.
    """
    if not definition:
        return ""
    text = _EX_RE.sub(lambda m: " '" + m.group(1).strip() + "' ", definition)
    text = _BLOCK_TAG_RE.sub(" ", text)
    text = _TAG_RE.sub("", text)
    text = html.unescape(text)
    return _WS_RE.sub(" ", text).strip()


def _missing(path: Path, what: str, hint: str = FETCH_HINT) -> FileNotFoundError:
    return FileNotFoundError(f"{what} not found at '{path}': {hint}.")


def _require_file(path: PathLike, what: str, hint: str = FETCH_HINT) -> Path:
    path = Path(path)
    if not path.is_file():
        raise _missing(path, what, hint)
    return path


def _require_dir(path: PathLike, what: str) -> Path:
    path = Path(path)
    if not path.is_dir():
        raise _missing(path, what)
    return path


# ---------------------------------------------------------------------------------------
# Frame inventory
# ---------------------------------------------------------------------------------------


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
        hint = f"scripts/convert_framenet.py writes it from the FrameNet assets ({FETCH_HINT})"
        path = _require_file(path, "Frame inventory JSON", hint)
        return self.from_dict(srsly.read_json(path))

    def __repr__(self) -> str:
        return (
            f"<FrameInventory source='{self.source}' frames={len(self)} "
            f"lexical_units={self.n_lexical_units} relations={self.relation_counts()}>"
        )


@registry.misc("spacy-frames.frame_inventory.v1")
def create_inventory_loader(path: str) -> Callable[[], FrameInventory]:
    """A frame inventory file (frames.json written by the converters), loaded lazily.

    Used in ``[initialize.components.<name>.frames]`` so components read the
    inventory once, at initialize, and then keep it in their own serialized state.
    """

    def load_inventory() -> FrameInventory:
        return FrameInventory().from_disk(_require_file(path, "frame inventory", CONVERT_HINT))

    return load_inventory


def _tag(name: str) -> str:
    return _NS + name


def _read_relations(root: ET.Element, frames: Container[str]) -> Dict[str, List[List[str]]]:
    """[super, sub] pairs per relation type of a frRelation.xml root (pairs naming frames
    outside ``frames`` are dropped; neither FN1.5 nor FN1.7 has any)."""
    relations: Dict[str, List[List[str]]] = {}
    for rel_type in root.iter(_tag("frameRelationType")):
        pairs = []
        for rel in rel_type.iter(_tag("frameRelation")):
            sup, sub = rel.get("superFrameName"), rel.get("subFrameName")
            if sup in frames and sub in frames:
                pairs.append([sup, sub])
        relations[rel_type.get("name", "")] = pairs
    return relations


def _frame_definition(root: ET.Element) -> str:
    return strip_definition_markup(root.findtext(_tag("definition")))


class _FNZip:
    """The FrameNet release zip, with the member prefix ("fndata-1.5/") found once."""

    def __init__(self, zip_path: PathLike) -> None:
        self.path = _require_file(zip_path, "FrameNet 1.5 zip")
        self.zip = zipfile.ZipFile(self.path)
        names = self.zip.namelist()
        index = [n for n in names if n.rsplit("/", 1)[-1] == "frameIndex.xml"]
        if not index:
            raise ValueError(f"'{self.path}' is not a FrameNet release: it has no frameIndex.xml.")
        self.prefix = min(index, key=len)[: -len("frameIndex.xml")]
        self.names = set(names)

    def member(self, relative: str) -> str:
        name = self.prefix + relative
        if name not in self.names:
            raise FileNotFoundError(f"'{relative}' is missing from the FrameNet zip '{self.path}'.")
        return name

    def open(self, relative: str) -> IO[bytes]:
        return self.zip.open(self.member(relative))

    def parse(self, relative: str) -> ET.Element:
        with self.open(relative) as f:
            return ET.parse(f).getroot()

    def listdir(self, folder: str) -> List[str]:
        """File names of the XML files directly under ``folder`` (sorted)."""
        start = self.prefix + folder.rstrip("/") + "/"
        return sorted(
            n[len(start):]
            for n in self.names
            if n.startswith(start) and n.endswith(".xml") and "/" not in n[len(start):]
        )

    def close(self) -> None:
        self.zip.close()

    def __enter__(self) -> "_FNZip":
        return self

    def __exit__(self, *args: Any) -> None:
        self.close()


def read_fn15_inventory(zip_path: PathLike) -> FrameInventory:
    """The FrameNet 1.5 inventory from the release zip.

    Frames: ``frameIndex.xml`` (1,019) with definitions from ``frame/<name>.xml``. Lexical
    units: ``luIndex.xml`` (11,829 entries, one per ``lu/*.xml`` file; the frame files'
    ``<lexUnit>`` lists hold 113 more, LUs that have no LU record). Relations:
    ``frRelation.xml``, all types (Inheritance 617, Using 490, Subframe 117, ...).
    """
    with _FNZip(zip_path) as fn:
        frames: Dict[str, Dict[str, Any]] = {}
        for entry in fn.parse("frameIndex.xml").iter(_tag("frame")):
            name = entry.get("name", "")
            root = fn.parse(f"frame/{name}.xml")
            frames[name] = {"id": int(entry.get("ID", -1)), "definition": _frame_definition(root), "lexical_units": []}
        for lu in fn.parse("luIndex.xml").iter(_tag("lu")):
            frame = lu.get("frameName")
            if frame in frames:
                frames[frame]["lexical_units"].append(lu.get("name", ""))
        for info in frames.values():
            info["lexical_units"].sort()
        relations = _read_relations(fn.parse("frRelation.xml"), frames)
        return FrameInventory(frames, relations, source=f"FrameNet 1.5 ({fn.path.name})")


def read_fn17_inventory(frames_xml_dir: PathLike, lexicon_json_path: PathLike) -> FrameInventory:
    """The FrameNet 1.7 inventory: frames and definitions from ``frames_xml_dir``
    (``frameIndex.xml`` + ``frame/*.xml``), lexical units from ``FN17_enlu_id.json``
    (``{"frame", "lu"}`` records), relations from ``frames_xml_dir/frRelation.xml``."""
    frames_dir = _require_dir(frames_xml_dir, "FrameNet 1.7 frame XML directory")
    lexicon_path = _require_file(lexicon_json_path, "FrameNet 1.7 lexicon JSON")
    index_path = _require_file(frames_dir / "frameIndex.xml", "FrameNet 1.7 frameIndex.xml")
    frames: Dict[str, Dict[str, Any]] = {}
    for entry in ET.parse(index_path).getroot().iter(_tag("frame")):
        name = entry.get("name", "")
        frame_path = _require_file(frames_dir / "frame" / f"{name}.xml", f"Frame file of '{name}'")
        root = ET.parse(frame_path).getroot()
        frames[name] = {"id": int(entry.get("ID", -1)), "definition": _frame_definition(root), "lexical_units": []}
    for record in srsly.read_json(lexicon_path):
        if record["frame"] in frames:
            frames[record["frame"]]["lexical_units"].append(record["lu"])
    for info in frames.values():
        info["lexical_units"].sort()
    rel_path = _require_file(frames_dir / "frRelation.xml", "FrameNet 1.7 frRelation.xml")
    relations = _read_relations(ET.parse(rel_path).getroot(), frames)
    return FrameInventory(frames, relations, source=f"FrameNet 1.7 ({frames_dir.name}, {lexicon_path.name})")
