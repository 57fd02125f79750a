"""FrameNet readers and converters to spaCy ``DocBin`` corpora.

Sources (all read in place, nothing is extracted):

- FrameNet 1.5: the release zip (``fndata-1.5/``): ``frameIndex.xml``, ``frame/*.xml``,
  ``luIndex.xml``, ``frRelation.xml``, ``fulltext/*.xml`` and ``lu/*.xml`` (exemplars).
- FrameNet 1.7: ``frames_xml/`` (frame XML without lexical units, ``frRelation.xml``),
  ``FN17_enlu_id.json`` (the lexicon) and open-sesame CoNLL files (one block per target).

Everything is read into two plain structures: :class:`FrameInventory` (frames, definitions,
lexical units, frame relations) and :class:`FrameSentence` (one sentence: text, tokens as
character offsets, and its targets). :func:`sentence_to_doc` turns a sentence into a ``Doc``
whose ``doc.spans["targets"]`` holds one span per target, labelled with the gold frame, with
``span._.lexical_unit`` and, for discontinuous targets, ``span._.target_parts``.

Conventions: every character offset in this module's data classes is Python style,
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
- Tokens come from the PENN layer (repaired, see :func:`_layer_tokens`); exemplars use
  PENN or BNC; 184 exemplars whose layer does not fit their text are split on whitespace.
"""
import html
import re
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import (
    IO,
    Any,
    Callable,
    Container,
    Dict,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
)
import xml.etree.ElementTree as ET

import srsly
from spacy.tokens import Doc, DocBin, Span
from spacy.util import registry
from spacy.vocab import Vocab

from ..extensions import TARGETS_KEY, install_extensions

PathLike = Union[str, Path]
TokenOffsets = Tuple[int, int, Optional[str]]  # (start_char, end_char exclusive, POS tag or None)

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
# POS layers of FrameNet annotation sets, in order of preference: full text has PENN,
# exemplars have PENN (newer corpora) or BNC (CLAWS-5 tags, British National Corpus).
POS_LAYERS = ("PENN", "BNC")

_TAG_RE = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")
# tags that separate text (the rest are inline: "<fex name='Agent'>Agent</fex>'s")
_BLOCK_TAG_RE = re.compile(r"</?(?:def-root|br|p|div)\b[^<>]*/?>", re.IGNORECASE)
_EX_RE = re.compile(r"<ex>(.*?)</ex>", re.DOTALL)
_WS_RE = re.compile(r"\s+")
_NON_WS_RE = re.compile(r"\S+")

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


# ---------------------------------------------------------------------------------------
# Sentences
# ---------------------------------------------------------------------------------------


@dataclass
class FrameTarget:
    """One frame-evoking target: gold frame, lexical unit and its character pieces.

    ``pieces``: [(start_char, end_char), ...], end exclusive, sorted; several pieces for
    multi-label targets ("chemical ... weapon"); empty when the annotation set has a frame
    but no Target label (4 such sets in FN1.5 full text).
    """

    frame: str
    lu: str
    pieces: List[Tuple[int, int]]
    annotation_set_id: Optional[int] = None


@dataclass
class FrameSentence:
    """One sentence of a FrameNet source.

    ``tokens``: [(start_char, end_char, tag), ...], end exclusive, covering every
    non-whitespace character of ``text``. ``tagset``: the layer the tokens and tags come
    from ("PENN", "BNC"), None for a whitespace split (no usable POS layer, or CoNLL
    without tags).
    """

    doc: str
    sentence_id: int
    text: str
    tokens: List[TokenOffsets]
    targets: List[FrameTarget] = field(default_factory=list)
    tagset: Optional[str] = None


def whitespace_tokens(text: str) -> List[TokenOffsets]:
    return [(m.start(), m.end(), None) for m in _NON_WS_RE.finditer(text)]


def _strip_whitespace(text: str, start: int, end: int) -> Tuple[int, int]:
    """Shrink [start, end) so it neither starts nor ends with whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _layer_tokens(text: str, labels: List[Tuple[int, int, str]]) -> Optional[List[TokenOffsets]]:
    """Tokens from a POS layer's labels ((start, end_exclusive, tag)), or None if the layer
    does not fit the text.

    Repairs what the FN1.5 data needs: labels out of order (57 full-text sentences),
    whitespace at a label's edge (1), empty labels (end < start, in exemplars), and text not
    covered by any label (49 full-text sentences miss a word in PENN): uncovered
    whitespace-separated words become extra untagged tokens. A label running past the text,
    overlapping another, containing whitespace, or leaving a word fragment glued to it means
    the offsets were computed on another version of the text (184 exemplars, mostly with
    non-ASCII characters such as "£"): the caller falls back to a whitespace split.
    """
    tokens: List[TokenOffsets] = []
    for start, end, tag in sorted(labels):
        if end <= start:
            continue
        if start < 0 or end > len(text):
            return None
        start, end = _strip_whitespace(text, start, end)
        if start == end:
            continue
        if tokens and start < tokens[-1][1]:
            return None
        if _WS_RE.search(text, start, end):
            return None
        tokens.append((start, end, tag))
    if not tokens:
        return None
    filled: List[TokenOffsets] = []
    pos = 0
    sentinel = (len(text), len(text), None)
    for token in tokens + [sentinel]:
        for m in _NON_WS_RE.finditer(text, pos, token[0]):
            # a fragment glued to a labelled token ("£1" + "m" + "illion"): shifted offsets
            if (filled and m.start() == pos) or (token is not sentinel and m.end() == token[0]):
                return None
            filled.append((m.start(), m.end(), None))
        if token is not sentinel:
            filled.append(token)
        pos = token[1]
    return filled


def _labels(layer: ET.Element) -> List[Tuple[int, int, str]]:
    """(start, end_exclusive, name) of a layer's labels that carry offsets."""
    out = []
    for label in layer.iterfind(_tag("label")):
        start, end = label.get("start"), label.get("end")
        if start is None or end is None:
            continue
        out.append((int(start), int(end) + 1, label.get("name", "")))
    return out


def _parse_sentence(
    elem: ET.Element,
    doc_name: str,
    lu_frame: Optional[Tuple[str, str]] = None,
) -> FrameSentence:
    """A ``<sentence>`` of a full-text file, or of an LU file when ``lu_frame`` = (lu, frame).

    Full text: every annotation set with a ``frameName`` is a target (the FrameNet count,
    UNANN sets included, with or without a Target label). LU files carry the frame on the
    root, so there every annotation set with a Target label is a target.
    """
    text = elem.findtext(_tag("text")) or ""
    pos_layers: Dict[str, List[Tuple[int, int, str]]] = {}
    targets: List[FrameTarget] = []
    for aset in elem.iterfind(_tag("annotationSet")):
        pieces: List[Tuple[int, int]] = []
        for layer in aset.iterfind(_tag("layer")):
            name = layer.get("name")
            if name == "Target":
                pieces.extend((s, e) for s, e, _ in _labels(layer))
            elif name in POS_LAYERS and name not in pos_layers and len(layer):
                pos_layers[name] = _labels(layer)
        set_id = int(aset.get("ID", -1))
        if lu_frame is None:
            if aset.get("frameName") is not None:
                frame, lu = aset.get("frameName", ""), aset.get("luName", "")
                targets.append(FrameTarget(frame, lu, sorted(set(pieces)), set_id))
        elif pieces:
            targets.append(FrameTarget(lu_frame[1], lu_frame[0], sorted(set(pieces)), set_id))
    tokens, tagset = None, None
    for name in POS_LAYERS:
        if name in pos_layers:
            tokens = _layer_tokens(text, pos_layers[name])
            tagset = name if tokens is not None else None
            break
    if tokens is None:
        tokens = whitespace_tokens(text)
    return FrameSentence(doc_name, int(elem.get("ID", -1)), text, tokens, targets, tagset)


def _iter_sentence_elements(fileobj: IO[bytes]) -> Iterator[Tuple[Dict[str, str], ET.Element]]:
    """(root attributes, <sentence> element) pairs, streamed: each sentence is cleared once
    the consumer is done with it, so a file's XML is never held as a whole."""
    root_attrib: Optional[Dict[str, str]] = None
    sentence_tag = _tag("sentence")
    for event, elem in ET.iterparse(fileobj, events=("start", "end")):
        if event == "start":
            if root_attrib is None:
                root_attrib = dict(elem.attrib)
            continue
        if elem.tag == sentence_tag:
            yield root_attrib or {}, elem
            elem.clear()


def list_fulltext_docs(zip_path: PathLike) -> List[str]:
    """File names of the full-text documents in the zip ("ANC__110CYL067.xml"), sorted."""
    with _FNZip(zip_path) as fn:
        return fn.listdir("fulltext")


def _doc_file_name(name: str) -> str:
    return name if name.endswith(".xml") else name + ".xml"


def iter_fulltext_sentences(
    zip_path: PathLike, doc_names: Optional[Iterable[str]] = None
) -> Iterator[FrameSentence]:
    """Sentences of the full-text documents ``doc_names`` (all when None), in document
    order; doc names are the file names ("ANC__110CYL067.xml", ".xml" optional).

    Targets: every annotation set with a ``frameName`` (= with an ``luName``). That is the
    verified FN1.5 count (Das et al. split: train 17,152, dev 2,333, test 4,459), and it
    includes 4 sets whose Target layer is empty (``pieces == []``) and 2 whose frame,
    ``Test35``, is not a frame of the release. Sets without a frame (the UNANN set holding
    the PENN/NER/WSL layers) are not targets. Nothing is skipped here: the converter decides.
    """
    with _FNZip(zip_path) as fn:
        available = fn.listdir("fulltext")
        names = available if doc_names is None else [_doc_file_name(n) for n in doc_names]
        unknown = sorted(set(names) - set(available))
        if unknown:
            raise ValueError(f"Unknown full-text documents in '{fn.path}': {', '.join(unknown)}")
        for name in names:
            with fn.open(f"fulltext/{name}") as f:
                for _, elem in _iter_sentence_elements(f):
                    yield _parse_sentence(elem, name)


def _lu_file_key(name: str) -> Tuple[int, str]:
    digits = re.sub(r"\D", "", name)
    return (int(digits) if digits else -1, name)


def iter_exemplar_sentences(zip_path: PathLike, limit: Optional[int] = None) -> Iterator[FrameSentence]:
    """Exemplar sentences of ``lu/*.xml`` (154,485 in FN1.5), in LU-id order, streamed.

    Each sentence's targets are its annotation sets with a Target label (usually one; a
    sentence annotated twice for the same LU has two), all with the LU file's frame and LU
    name. Tokens come from the PENN or BNC layer (every exemplar has one), falling back to a
    whitespace split when the layer's offsets do not fit the text. ``doc`` is the LU file
    name ("lu10.xml").
    """
    if limit is not None and limit <= 0:
        return
    count = 0
    with _FNZip(zip_path) as fn:
        for name in sorted(fn.listdir("lu"), key=_lu_file_key):
            with fn.open(f"lu/{name}") as f:
                for root, elem in _iter_sentence_elements(f):
                    yield _parse_sentence(elem, name, (root.get("name", ""), root.get("frame", "")))
                    count += 1
                    if limit is not None and count >= limit:
                        return


def load_split(
    json_path: PathLike,
    zip_path: Optional[PathLike] = None,
    *,
    all_docs: Optional[Iterable[str]] = None,
) -> Dict[str, List[str]]:
    """{"train", "dev", "test"} -> full-text document file names.

    ``dev``/``test`` come from the JSON (``dev_files``, ``test_files``); ``train`` is every
    other full-text document, taken from ``all_docs`` or from the zip's ``fulltext/`` folder
    (or the JSON's ``train_files`` when neither is given).
    """
    data = srsly.read_json(_require_file(json_path, "Split JSON"))
    dev = [_doc_file_name(n) for n in data.get("dev_files", [])]
    test = [_doc_file_name(n) for n in data.get("test_files", [])]
    overlap = sorted(set(dev) & set(test))
    if overlap:
        raise ValueError(f"Documents in both dev and test of '{json_path}': {', '.join(overlap)}")
    if all_docs is None and zip_path is not None:
        all_docs = list_fulltext_docs(zip_path)
    if all_docs is None:
        if "train_files" not in data:
            raise ValueError(f"'{json_path}' has no train_files: pass zip_path or all_docs to derive train.")
        train = [_doc_file_name(n) for n in data["train_files"]]
    else:
        docs = sorted(_doc_file_name(n) for n in all_docs)
        missing = sorted((set(dev) | set(test)) - set(docs))
        if missing:
            raise ValueError(f"Split documents not in the corpus: {', '.join(missing)}")
        held_out = set(dev) | set(test)
        train = [n for n in docs if n not in held_out]
    return {"train": train, "dev": dev, "test": test}


def iter_open_sesame_sentences(path: PathLike) -> Iterator[FrameSentence]:
    """Sentences of an open-sesame CoNLL file, the per-target blocks of a sentence merged.

    Two layouts are read: the 15-column one (id, form, _, lemma, raw POS, PTB POS, sentence
    id, ..., LU = column 13, frame = 14, FE BIO = 15, 1-based) and the 5-column one of
    ``fn1.7.dev.syntaxnet.conll`` (id, form, LU, frame, FE BIO). Target tokens are the
    tokens with an LU; runs of them become the pieces. Consecutive blocks with the same key
    (sentence id column when present, plus the token sequence) are one sentence, so a
    sentence repeated elsewhere in the corpus stays a separate sentence. Text = tokens
    joined by single spaces; ``doc`` is the file name, ``sentence_id`` the sentence-id
    column (15 columns) or the running sentence index.
    """
    path = _require_file(path, "open-sesame CoNLL file")
    current: Optional[FrameSentence] = None
    current_key: Optional[Tuple[Any, ...]] = None
    index = 0
    for block in _conll_blocks(path):
        ncols = len(block[0])
        if ncols >= 15:
            lu_col, frame_col, tag_col, sent_col = 12, 13, 5, 6
        elif ncols >= 5:
            lu_col, frame_col, tag_col, sent_col = 2, 3, None, None
        else:
            raise ValueError(f"{path}: expected 5 or 15 tab-separated columns, got {ncols}: {block[0]}")
        words = [row[1] for row in block]
        sent_id = block[0][sent_col] if sent_col is not None else None
        key = (sent_id, tuple(words))
        if key != current_key:
            if current is not None:
                yield current
            tokens: List[TokenOffsets] = []
            offset = 0
            for row, word in zip(block, words):
                tag = row[tag_col] if tag_col is not None and row[tag_col] != "_" else None
                tokens.append((offset, offset + len(word), tag))
                offset += len(word) + 1
            sentence_id = int(sent_id) if sent_id is not None and sent_id.isdigit() else index
            tagset = "PENN" if tag_col is not None else None
            current = FrameSentence(path.name, sentence_id, " ".join(words), tokens, [], tagset)
            current_key = key
            index += 1
        target_rows = [i for i, row in enumerate(block) if row[lu_col] != "_"]
        if not target_rows:
            continue
        first = block[target_rows[0]]
        pieces: List[Tuple[int, int]] = []
        for i in target_rows:
            start, end = current.tokens[i][0], current.tokens[i][1]
            if pieces and i - 1 in target_rows:
                pieces[-1] = (pieces[-1][0], end)
            else:
                pieces.append((start, end))
        current.targets.append(FrameTarget(first[frame_col], first[lu_col], pieces, None))
    if current is not None:
        yield current


def _conll_blocks(path: Path) -> Iterator[List[List[str]]]:
    block: List[List[str]] = []
    with path.open(encoding="utf8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if block:
                    yield block
                block = []
                continue
            block.append(line.split("\t"))
    if block:
        yield block


# ---------------------------------------------------------------------------------------
# spaCy conversion
# ---------------------------------------------------------------------------------------


def _words_and_spaces(sentence: FrameSentence) -> Tuple[List[str], List[bool], List[Optional[str]]]:
    """Words/spaces/tags whose Doc text is exactly ``sentence.text`` (so its character
    offsets stay valid): a single space after a token is ``spaces=True``, any other
    whitespace becomes a whitespace token, as spaCy's tokenizer does."""
    text = sentence.text
    words: List[str] = []
    spaces: List[bool] = []
    tags: List[Optional[str]] = []

    def add_gap(gap: str) -> None:
        if words and gap.startswith(" ") and not spaces[-1]:
            spaces[-1] = True
            gap = gap[1:]
        if gap:
            words.append(gap)
            spaces.append(False)
            tags.append("_SP")

    pos = 0
    for start, end, tag in sentence.tokens:
        if start < pos or end <= start or end > len(text):
            raise ValueError(f"Bad token offsets ({start}, {end}) in sentence {sentence.doc}#{sentence.sentence_id}")
        add_gap(text[pos:start])
        words.append(text[start:end])
        spaces.append(False)
        tags.append(tag)
        pos = end
    add_gap(text[pos:])
    return words, spaces, tags


def _target_parts(doc: Doc, pieces: Sequence[Tuple[int, int]]) -> Optional[List[List[int]]]:
    """Token ranges [[start, end), ...] of the pieces, merged where they touch (or are only
    separated by whitespace tokens); None if a piece cannot be aligned to tokens."""
    ranges: List[List[int]] = []
    text = doc.text
    for start, end in pieces:
        if start < 0 or end > len(text) or start >= end:
            return None
        start, end = _strip_whitespace(text, start, end)
        if start == end:
            return None
        span = doc.char_span(start, end, alignment_mode="expand")
        if span is None or len(span) == 0:
            return None
        ranges.append([span.start, span.end])
    ranges.sort()
    merged: List[List[int]] = [ranges[0]]
    for start, end in ranges[1:]:
        last = merged[-1]
        if start <= last[1] or all(not doc[i].text.strip() for i in range(last[1], start)):
            last[1] = max(last[1], end)
        else:
            merged.append([start, end])
    return merged


def sentence_to_doc(
    vocab: Vocab,
    sentence: FrameSentence,
    *,
    frames: Optional[Container[str]] = None,
    stats: Optional[Counter] = None,
) -> Doc:
    """A ``Doc`` of one sentence with its targets in ``doc.spans["targets"]``.

    - Words and whitespace reproduce ``sentence.text`` exactly; ``token.tag_`` is the PTB
      tag (:func:`normalize_penn_tag`) when the tokens come from a PENN layer.
    - One span per target: ``label_`` = frame, ``span._.lexical_unit`` = LU ("get.v").
      A multiword target is one span; a discontinuous one spans first..last piece with
      ``span._.target_parts = [[start, end), ...]`` (token offsets of each piece).
    - A target is skipped (and counted in ``stats``) when it has no Target label
      (``skipped_no_target_label``), its frame is not in ``frames`` (``skipped_unknown_frame``,
      e.g. FN1.5's ``Test35``) or a piece cannot be aligned (``skipped_unaligned``).
    - ``doc.user_data["framenet"] = {"doc": name, "sentence_id": id}``. Sentences without
      targets are kept (target detection needs negatives) with an empty span group.
    """
    install_extensions()
    words, spaces, tags = _words_and_spaces(sentence)
    doc = Doc(vocab, words=words, spaces=spaces)
    if sentence.tagset == "PENN":
        for token, tag in zip(doc, tags):
            tag = normalize_penn_tag(tag) if tag else None
            if tag in PTB_TAGS:
                token.tag_ = tag
    stats = stats if stats is not None else Counter()
    spans: List[Span] = []
    for target in sentence.targets:
        stats["targets"] += 1
        reason = None
        parts = None
        if frames is not None and target.frame not in frames:
            reason = "unknown_frame"
        elif not target.pieces:
            reason = "no_target_label"
        else:
            parts = _target_parts(doc, target.pieces)
            if parts is None:
                reason = "unaligned"
        if parts is None:
            stats["skipped_targets"] += 1
            stats[f"skipped_{reason}"] += 1
            continue
        span = Span(doc, parts[0][0], parts[-1][1], label=target.frame)
        span._.lexical_unit = target.lu
        if len(parts) > 1:
            span._.target_parts = parts
            stats["discontinuous_targets"] += 1
        elif sum(1 for t in span if t.text.strip()) > 1:
            stats["multiword_targets"] += 1
        spans.append(span)
    doc.spans[TARGETS_KEY] = spans
    doc.user_data["framenet"] = {"doc": sentence.doc, "sentence_id": sentence.sentence_id}
    stats["sentences"] += 1
    if not spans:
        stats["sentences_without_targets"] += 1
    if sentence.tagset is None:
        stats["whitespace_tokenized_sentences"] += 1
    return doc


# ---------------------------------------------------------------------------------------
# Corpus conversion
# ---------------------------------------------------------------------------------------

SPLIT_COUNT_KEYS = (
    "sentences",
    "targets",
    "skipped_targets",
    "discontinuous_targets",
    "multiword_targets",
    "sentences_without_targets",
    "whitespace_tokenized_sentences",
)
# Token attributes worth storing: the rest (HEAD, DEP, ENT_*, LEMMA, MORPH, POS) is never
# set here, and leaving it out keeps the 154k-exemplar DocBin small in memory and on disk.
DOCBIN_ATTRS = ["ORTH", "TAG"]


def _split_summary(stats: Counter, docs: Optional[int]) -> Dict[str, Any]:
    summary: Dict[str, Any] = {"docs": docs}
    summary.update({key: int(stats.get(key, 0)) for key in SPLIT_COUNT_KEYS})
    summary["skipped_reasons"] = {
        key[len("skipped_"):]: int(n)
        for key, n in sorted(stats.items())
        if key.startswith("skipped_") and key != "skipped_targets"
    }
    return summary


def _write_docbin(
    sentences: Iterable[FrameSentence],
    path: Path,
    vocab: Vocab,
    frames: Optional[Container[str]],
    stats: Counter,
    docs_seen: Optional[Set[str]] = None,
) -> None:
    # Docs are serialized into the DocBin as they come and not kept: memory is the DocBin's
    # token arrays + strings (a few hundred MB for all exemplars), not 154k Doc objects.
    doc_bin = DocBin(attrs=DOCBIN_ATTRS, store_user_data=True)
    for sentence in sentences:
        if docs_seen is not None:
            docs_seen.add(sentence.doc)
        doc_bin.add(sentence_to_doc(vocab, sentence, frames=frames, stats=stats))
    path.parent.mkdir(parents=True, exist_ok=True)
    doc_bin.to_disk(path)


def convert_framenet15(
    zip_path: PathLike,
    splits_json: PathLike,
    output_dir: PathLike,
    exemplar_limit: Optional[int] = None,
    *,
    progress: bool = True,
) -> Dict[str, Any]:
    """Write ``{train,dev,test}.spacy`` (full text, Das et al. split), ``exemplars.spacy``
    (LU exemplars, at most ``exemplar_limit``) and ``frames.json`` (the FN1.5 inventory)
    into ``output_dir``; return the summary.

    Summary: ``{split: {"docs", "sentences", "targets", "skipped_targets",
    "discontinuous_targets", "multiword_targets", "sentences_without_targets",
    "whitespace_tokenized_sentences", "skipped_reasons": {reason: n}}, "frames": n,
    "lexical_units": n, "relations": {type: n}}`` for the splits train/dev/test/exemplars.
    ``targets`` counts every target read (see the module docstring); the spans written are
    ``targets - skipped_targets``. ``multiword_targets`` are contiguous spans of several
    tokens, ``discontinuous_targets`` the ones with ``target_parts``. For ``exemplars``,
    ``docs`` is the number of LU files that have exemplars. Targets whose frame is not in
    the inventory (``Test35``: one in train, one in dev) are skipped as ``unknown_frame``.
    """
    from tqdm import tqdm

    fn_zip = _require_file(zip_path, "FrameNet 1.5 zip")
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    inventory = read_fn15_inventory(fn_zip)
    inventory.to_disk(output / "frames.json")
    splits = load_split(splits_json, fn_zip)
    vocab = Vocab()
    summary: Dict[str, Any] = {}
    for split in ("train", "dev", "test"):
        stats: Counter = Counter()
        sentences = iter_fulltext_sentences(fn_zip, splits[split])
        _write_docbin(sentences, output / f"{split}.spacy", vocab, inventory, stats)
        summary[split] = _split_summary(stats, len(splits[split]))
    stats = Counter()
    lu_files: Set[str] = set()
    exemplars = tqdm(
        iter_exemplar_sentences(fn_zip, exemplar_limit),
        desc="exemplars",
        unit=" sent",
        total=exemplar_limit,
        disable=not progress,
        mininterval=1.0,
    )
    _write_docbin(exemplars, output / "exemplars.spacy", vocab, inventory, stats, lu_files)
    summary["exemplars"] = _split_summary(stats, len(lu_files))
    summary["frames"] = len(inventory)
    summary["lexical_units"] = inventory.n_lexical_units
    summary["relations"] = inventory.relation_counts()
    return summary


def _load_inventory(inventory: Union[FrameInventory, PathLike, None]) -> Optional[FrameInventory]:
    if inventory is None or isinstance(inventory, FrameInventory):
        return inventory
    return FrameInventory().from_disk(inventory)


def convert_framenet17(
    frames_xml_dir: PathLike,
    lexicon_json: PathLike,
    conll_path: PathLike,
    output_dir: PathLike,
    fn15_inventory: Union[FrameInventory, PathLike, None] = None,
) -> Dict[str, Any]:
    """Write ``dev.spacy`` (the open-sesame FN1.7 dev CoNLL) and ``frames.json`` (the FN1.7
    inventory) into ``output_dir``; return the summary.

    With ``fn15_inventory`` (an inventory or a ``frames.json`` path) the dev summary also
    counts the out-of-vocabulary targets: ``targets_new_frame`` (frame not in FN1.5),
    ``targets_new_lu`` (the (LU, frame) pair is not in FN1.5, which includes every
    new-frame target) and ``targets_unknown_lu_name`` (the LU name is in no FN1.5 frame).
    ``docs`` is None: the CoNLL file carries no document ids.
    """
    inventory = read_fn17_inventory(frames_xml_dir, lexicon_json)
    conll = _require_file(conll_path, "open-sesame CoNLL file")
    fn15 = _load_inventory(fn15_inventory)
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    inventory.to_disk(output / "frames.json")
    sentences = list(iter_open_sesame_sentences(conll))
    stats: Counter = Counter()
    _write_docbin(sentences, output / "dev.spacy", Vocab(), inventory, stats)
    dev = _split_summary(stats, None)
    if fn15 is not None:
        fn15_pairs = {(lu, name) for name in fn15.frames for lu in fn15.frames[name]["lexical_units"]}
        oov: Counter = Counter()
        for sentence in sentences:
            for target in sentence.targets:
                oov["targets_new_frame"] += target.frame not in fn15
                oov["targets_new_lu"] += (target.lu, target.frame) not in fn15_pairs
                oov["targets_unknown_lu_name"] += not fn15.frames_for_lu(target.lu)
        dev.update({key: int(oov[key]) for key in ("targets_new_frame", "targets_new_lu", "targets_unknown_lu_name")})
    return {
        "dev": dev,
        "frames": len(inventory),
        "lexical_units": inventory.n_lexical_units,
        "relations": inventory.relation_counts(),
    }
