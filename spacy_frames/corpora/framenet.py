"""FrameNet frame inventory, and the conventions of the FrameNet readers and converters.

Sources (all read in place, nothing is extracted):

- FrameNet 1.5: the release zip (``fndata-1.5/``): ``frameIndex.xml``, ``frame/*.xml``,
  ``luIndex.xml``, ``frRelation.xml``, ``fulltext/*.xml`` and ``lu/*.xml`` (exemplars).
- FrameNet 1.7: ``frames_xml/`` (frame XML without lexical units, ``frRelation.xml``),
  ``FN17_enlu_id.json`` (the lexicon) and open-sesame CoNLL files (one block per target).

Everything is read into two plain structures: :class:`~spacy_frames.inventory.frames.FrameInventory`
(frames, definitions, lexical units, frame relations) and
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
- Frame elements (rank-1 FE layer, ``doc.spans["frame_elements"]``) and what of them is
  skipped: :mod:`spacy_frames.corpora.framenet_elements`.
"""

import html
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import IO, Any, Callable, Container, Dict, List, Optional, Union

import srsly
from spacy.util import registry

from ..inventory.frames import FrameInventory

PathLike = Union[str, Path]

FN_NAMESPACE = "http://framenet.icsi.berkeley.edu"
_NS = "{" + FN_NAMESPACE + "}"
FETCH_HINT = "run `spacy project assets` (or `python -m spacy_frames fetch-assets`) to fetch it"
CONVERT_HINT = "run `spacy project run convert` to write it"

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


def _frame_elements(root: ET.Element) -> List[Dict[str, Any]]:
    """The ``<FE>`` children of a frame file's root, as :class:`FEDef` dicts: name, id,
    coreType, definition (markup stripped like frame definitions) and the names of its
    ``<excludesFE>`` / ``<requiresFE>`` children."""
    return [
        {
            "name": fe.get("name", ""),
            "id": int(fe.get("ID", -1)),
            "core_type": fe.get("coreType", ""),
            "definition": strip_definition_markup(fe.findtext(_tag("definition"))),
            "excludes": [x.get("name", "") for x in fe.iterfind(_tag("excludesFE"))],
            "requires": [x.get("name", "") for x in fe.iterfind(_tag("requiresFE"))],
        }
        for fe in root.iterfind(_tag("FE"))
    ]


def _frame_entry(entry: ET.Element, root: ET.Element) -> Dict[str, Any]:
    """A frame of the inventory from its frameIndex entry and its frame file's root."""
    return {
        "id": int(entry.get("ID", -1)),
        "definition": _frame_definition(root),
        "lexical_units": [],
        "frame_elements": _frame_elements(root),
    }


class _FNZip:
    """A FrameNet release in the XML layout (``frameIndex.xml``, ``frame/``, ``lu/``,
    ``fulltext/``): a zip (FrameNet 1.5's ``fndata-1.5.zip``, member prefix found once)
    or a directory holding the same files."""

    def __init__(self, zip_path: PathLike) -> None:
        path = Path(zip_path)
        self.zip: Optional[zipfile.ZipFile] = None
        if path.is_dir():
            self.path = path
            names = [p.relative_to(path).as_posix() for p in path.rglob("*.xml")]
        else:
            self.path = _require_file(zip_path, "FrameNet release (zip or directory)")
            try:
                self.zip = zipfile.ZipFile(self.path)
            except zipfile.BadZipFile:
                raise ValueError(f"'{self.path}' is not a FrameNet release: not a zip file nor a directory.") from None
            names = self.zip.namelist()
        index = [n for n in names if n.rsplit("/", 1)[-1] == "frameIndex.xml"]
        if not index:
            raise ValueError(f"'{self.path}' is not a FrameNet release: it has no frameIndex.xml.")
        self.prefix = min(index, key=len)[: -len("frameIndex.xml")]
        self.names = set(names)

    def member(self, relative: str) -> str:
        name = self.prefix + relative
        if name not in self.names:
            raise FileNotFoundError(f"'{relative}' is missing from the FrameNet release '{self.path}'.")
        return name

    def open(self, relative: str) -> IO[bytes]:
        if self.zip is None:
            return (self.path / self.member(relative)).open("rb")
        return self.zip.open(self.member(relative))

    def parse(self, relative: str) -> ET.Element:
        with self.open(relative) as f:
            return ET.parse(f).getroot()

    def listdir(self, folder: str) -> List[str]:
        """File names of the XML files directly under ``folder`` (sorted)."""
        start = self.prefix + folder.rstrip("/") + "/"
        return sorted(
            n[len(start) :]
            for n in self.names
            if n.startswith(start) and n.endswith(".xml") and "/" not in n[len(start) :]
        )

    def close(self) -> None:
        if self.zip is not None:
            self.zip.close()

    def __enter__(self) -> "_FNZip":
        return self

    def __exit__(self, *args: Any) -> None:
        self.close()


def read_fn15_inventory(zip_path: PathLike) -> FrameInventory:
    """The FrameNet 1.5 inventory from the release zip.

    Frames: ``frameIndex.xml`` (1,019) with definitions and frame elements from
    ``frame/<name>.xml``. Lexical
    units: ``luIndex.xml`` (11,829 entries, one per ``lu/*.xml`` file; the frame files'
    ``<lexUnit>`` lists hold 113 more, LUs that have no LU record). Relations:
    ``frRelation.xml``, all types (Inheritance 617, Using 490, Subframe 117, ...).
    """
    with _FNZip(zip_path) as fn:
        frames: Dict[str, Dict[str, Any]] = {}
        for entry in fn.parse("frameIndex.xml").iter(_tag("frame")):
            name = entry.get("name", "")
            frames[name] = _frame_entry(entry, fn.parse(f"frame/{name}.xml"))
        for lu in fn.parse("luIndex.xml").iter(_tag("lu")):
            frame = lu.get("frameName")
            if frame in frames:
                frames[frame]["lexical_units"].append(lu.get("name", ""))
        for info in frames.values():
            info["lexical_units"].sort()
        relations = _read_relations(fn.parse("frRelation.xml"), frames)
        return FrameInventory(frames, relations, source=f"FrameNet 1.5 ({fn.path.name})")


def read_fn17_inventory(frames_xml_dir: PathLike, lexicon_json_path: PathLike) -> FrameInventory:
    """The FrameNet 1.7 inventory: frames, definitions and FEs from ``frames_xml_dir``
    (``frameIndex.xml`` + ``frame/*.xml``), lexical units from ``FN17_enlu_id.json``
    (``{"frame", "lu"}`` records), relations from ``frames_xml_dir/frRelation.xml``."""
    frames_dir = _require_dir(frames_xml_dir, "FrameNet 1.7 frame XML directory")
    lexicon_path = _require_file(lexicon_json_path, "FrameNet 1.7 lexicon JSON")
    index_path = _require_file(frames_dir / "frameIndex.xml", "FrameNet 1.7 frameIndex.xml")
    frames: Dict[str, Dict[str, Any]] = {}
    for entry in ET.parse(index_path).getroot().iter(_tag("frame")):
        name = entry.get("name", "")
        frame_path = _require_file(frames_dir / "frame" / f"{name}.xml", f"Frame file of '{name}'")
        frames[name] = _frame_entry(entry, ET.parse(frame_path).getroot())
    for record in srsly.read_json(lexicon_path):
        if record["frame"] in frames:
            frames[record["frame"]]["lexical_units"].append(record["lu"])
    for info in frames.values():
        info["lexical_units"].sort()
    rel_path = _require_file(frames_dir / "frRelation.xml", "FrameNet 1.7 frRelation.xml")
    relations = _read_relations(ET.parse(rel_path).getroot(), frames)
    return FrameInventory(frames, relations, source=f"FrameNet 1.7 ({frames_dir.name}, {lexicon_path.name})")
