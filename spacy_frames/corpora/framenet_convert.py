"""Conversion of FrameNet 1.5 and 1.7 to spaCy ``DocBin`` corpora plus ``frames.json``.

Holds :func:`convert_framenet15` (full-text train/dev/test in the Das et al. split, LU
exemplars and the FN1.5 inventory) and :func:`convert_framenet17` (the open-sesame FN1.7 dev
set and the FN1.7 inventory, with out-of-vocabulary counts against FN1.5), the per-split
summary they return (:data:`SPLIT_COUNT_KEYS`) and the token attributes stored in the
``DocBin``s (:data:`DOCBIN_ATTRS`). ``spacy-frames convert framenet`` / ``fn17``
(spacy_frames/cli/convert.py) is their command line. :func:`convert_framenet15` reads any
release in FrameNet's XML layout, zip or directory (a domain FrameNet too); without a
split JSON all its full text goes to ``fulltext.spacy``.
"""

from collections import Counter
from pathlib import Path
from typing import Any, Container, Dict, Iterable, Iterator, Optional, Set, Union

from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab

from ..extensions import FE_KEY
from ..inventory.frames import FrameInventory
from .docbins import add_docs
from .framenet import PathLike, _missing, _require_file, read_fn15_inventory, read_fn17_inventory
from .framenet_elements import fe_summary
from .framenet_sentences import (
    FrameSentence,
    iter_exemplar_sentences,
    iter_fulltext_sentences,
    iter_open_sesame_sentences,
    list_fulltext_docs,
    load_split,
    sentence_to_doc,
)

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
        key[len("skipped_") :]: int(n)
        for key, n in sorted(stats.items())
        if key.startswith("skipped_") and key != "skipped_targets"
    }
    summary["frame_elements"] = fe_summary(stats)
    return summary


def _count_unknown_fe_labels(doc: Doc, inventory: FrameInventory, cache: Dict[str, Set[str]], stats: Counter) -> None:
    """Count FE spans whose label is not an FE of their frame in ``inventory`` (kept)."""
    for fe in doc.spans[FE_KEY]:
        frame = fe._.fe_frame
        if frame not in cache:
            cache[frame] = set(inventory.fe_names(frame)) if frame in inventory else set()
        stats["fe_label_not_in_frame"] += fe.label_ not in cache[frame]


def _write_docbin(
    sentences: Iterable[FrameSentence],
    path: Path,
    vocab: Vocab,
    frames: Optional[Container[str]],
    stats: Counter,
    docs_seen: Optional[Set[str]] = None,
    keep_target_fes: bool = True,
) -> None:
    # Docs are serialized into the DocBin as they come and not kept: memory is the DocBin's
    # token arrays + strings (a few hundred MB for all exemplars), not 154k Doc objects.
    fe_names: Dict[str, Set[str]] = {}

    def docs() -> Iterator[Doc]:
        for sentence in sentences:
            if docs_seen is not None:
                docs_seen.add(sentence.doc)
            doc = sentence_to_doc(vocab, sentence, frames=frames, stats=stats, keep_target_fes=keep_target_fes)
            if isinstance(frames, FrameInventory):
                _count_unknown_fe_labels(doc, frames, fe_names, stats)
            yield doc

    doc_bin = add_docs(DocBin(attrs=DOCBIN_ATTRS, store_user_data=True), docs())
    path.parent.mkdir(parents=True, exist_ok=True)
    doc_bin.to_disk(path)


def _require_release(path: PathLike) -> Path:
    path = Path(path)
    if not path.exists():
        raise _missing(path, "FrameNet release (zip or directory)")
    return path


def convert_framenet15(
    zip_path: PathLike,
    splits_json: Optional[PathLike],
    output_dir: PathLike,
    exemplar_limit: Optional[int] = None,
    *,
    progress: bool = True,
    keep_target_fes: bool = True,
) -> Dict[str, Any]:
    """Write ``{train,dev,test}.spacy`` (full text, Das et al. split), ``exemplars.spacy``
    (LU exemplars, at most ``exemplar_limit``) and ``frames.json`` (the FN1.5 inventory)
    into ``output_dir``; return the summary. ``zip_path``: the release zip or directory;
    ``splits_json`` None: every full-text document into ``fulltext.spacy`` instead.

    Summary: ``{split: {"docs", "sentences", "targets", "skipped_targets",
    "discontinuous_targets", "multiword_targets", "sentences_without_targets",
    "whitespace_tokenized_sentences", "skipped_reasons": {reason: n}, "frame_elements":
    {...}}, "frames": n, "lexical_units": n, "relations": {type: n}, "frame_elements":
    {...}}`` for the splits train/dev/test/exemplars. A split's ``frame_elements`` counts
    the gold FEs (:func:`~.framenet_elements.fe_summary`: FE spans written, skipped by
    reason, null instantiations by type, FE types, ``label_not_in_frame``: FE spans whose
    label is no FE of their frame in the inventory); the top-level one the inventory's FE
    definitions (:meth:`FrameInventory.fe_counts`).
    ``targets`` counts every target read (see the docstring of
    :mod:`spacy_frames.corpora.framenet`); the spans written are
    ``targets - skipped_targets``. ``multiword_targets`` are contiguous spans of several
    tokens, ``discontinuous_targets`` the ones with ``target_parts``. For ``exemplars``,
    ``docs`` is the number of LU files that have exemplars. Targets whose frame is not in
    the inventory (``Test35``: one in train, one in dev) are skipped as ``unknown_frame``.
    ``keep_target_fes``: keep the FEs that overlap their target in the gold (see
    :func:`~.framenet_elements.set_gold_frame_elements`).
    """
    from tqdm import tqdm

    fn_zip = _require_release(zip_path)
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    inventory = read_fn15_inventory(fn_zip)
    inventory.to_disk(output / "frames.json")
    if splits_json is None:
        splits = {"fulltext": list_fulltext_docs(fn_zip)}
    else:
        splits = load_split(splits_json, fn_zip)
    vocab = Vocab()
    summary: Dict[str, Any] = {}
    for split in splits:
        stats: Counter = Counter()
        sentences = iter_fulltext_sentences(fn_zip, splits[split])
        _write_docbin(sentences, output / f"{split}.spacy", vocab, inventory, stats, keep_target_fes=keep_target_fes)
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
    _write_docbin(
        exemplars, output / "exemplars.spacy", vocab, inventory, stats, lu_files, keep_target_fes=keep_target_fes
    )
    summary["exemplars"] = _split_summary(stats, len(lu_files))
    summary["frames"] = len(inventory)
    summary["lexical_units"] = inventory.n_lexical_units
    summary["relations"] = inventory.relation_counts()
    summary["frame_elements"] = inventory.fe_counts()
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
    *,
    keep_target_fes: bool = True,
) -> Dict[str, Any]:
    """Write ``dev.spacy`` (the open-sesame FN1.7 dev CoNLL) and ``frames.json`` (the FN1.7
    inventory) into ``output_dir``; return the summary.

    With ``fn15_inventory`` (an inventory or a ``frames.json`` path) the dev summary also
    counts the out-of-vocabulary targets: ``targets_new_frame`` (frame not in FN1.5),
    ``targets_new_lu`` (the (LU, frame) pair is not in FN1.5, which includes every
    new-frame target) and ``targets_unknown_lu_name`` (the LU name is in no FN1.5 frame).
    ``docs`` is None: the CoNLL file carries no document ids. The dev ``frame_elements``
    section then also has ``annotated_new_frame``: the FE labels of new-frame targets.
    ``keep_target_fes``: keep the FEs that overlap their target in the gold.
    """
    inventory = read_fn17_inventory(frames_xml_dir, lexicon_json)
    conll = _require_file(conll_path, "open-sesame CoNLL file")
    fn15 = _load_inventory(fn15_inventory)
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    inventory.to_disk(output / "frames.json")
    sentences = list(iter_open_sesame_sentences(conll))
    stats: Counter = Counter()
    _write_docbin(sentences, output / "dev.spacy", Vocab(), inventory, stats, keep_target_fes=keep_target_fes)
    dev = _split_summary(stats, None)
    if fn15 is not None:
        fn15_pairs = {(lu, name) for name in fn15.frames for lu in fn15.frames[name]["lexical_units"]}
        oov: Counter = Counter()
        for sentence in sentences:
            for target in sentence.targets:
                oov["targets_new_frame"] += target.frame not in fn15
                oov["targets_new_lu"] += (target.lu, target.frame) not in fn15_pairs
                oov["targets_unknown_lu_name"] += not fn15.frames_for_lu(target.lu)
                oov["fe_annotated_new_frame"] += len(target.elements) if target.frame not in fn15 else 0
        dev.update({key: int(oov[key]) for key in ("targets_new_frame", "targets_new_lu", "targets_unknown_lu_name")})
        dev["frame_elements"]["annotated_new_frame"] = int(oov["fe_annotated_new_frame"])
    return {
        "dev": dev,
        "frames": len(inventory),
        "lexical_units": inventory.n_lexical_units,
        "relations": inventory.relation_counts(),
        "frame_elements": inventory.fe_counts(),
    }
