"""Training corpora from what users have: open-sesame CoNLL and `spacy-frames annotate`
records (JSONL, possibly corrected by hand), each into one ``.spacy`` DocBin in the shape
the readers (:mod:`spacy_frames.corpora.readers`) train on: the targets in
``doc.spans["targets"]`` (label = frame, ``span._.lexical_unit``), their frame elements in
``doc.spans["frame_elements"]`` linked to their target (``span.id_``). FrameNet XML
releases are converted by :mod:`spacy_frames.corpora.framenet_convert`.
"""

import json
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import spacy
from spacy.tokens import Doc, DocBin, Span, SpanGroup
from spacy.vocab import Vocab

from ..extensions import FE_KEY, TARGETS_KEY, install_extensions, make_fe_span
from ..inventory.frames import FrameInventory
from .docbins import add_docs
from .framenet import PathLike, _require_file
from .framenet_convert import _split_summary, _write_docbin
from .framenet_sentences import iter_open_sesame_sentences


def _check_output(output: PathLike) -> Path:
    output = Path(output)
    if output.suffix != ".spacy":
        raise ValueError(f"Output {output} must be a .spacy file (a DocBin)")
    return output


def convert_conll(
    conll_path: PathLike, output: PathLike, *, frames: Optional[PathLike] = None, keep_target_fes: bool = True
) -> Dict[str, Any]:
    """open-sesame CoNLL (5 or 15 columns) into the DocBin ``output``; with ``frames`` (a
    frames.json) targets of other frames are skipped and FE labels checked against it.
    Returns the summary of :func:`~.framenet_convert.convert_framenet17`'s dev split."""
    path = _require_file(conll_path, "open-sesame CoNLL file", "check the path")
    output = _check_output(output)
    inventory = (
        FrameInventory().from_disk(_require_file(frames, "frame inventory", "check the path")) if frames else None
    )
    stats: Counter = Counter()
    _write_docbin(iter_open_sesame_sentences(path), output, Vocab(), inventory, stats, keep_target_fes=keep_target_fes)
    return _split_summary(stats, None)


class RecordError(ValueError):
    def __init__(self, path: Path, line: int, message: str):
        super().__init__(f"{path}, line {line}: {message}")


def _read_records(path: Path) -> Iterator[tuple]:
    with path.open(encoding="utf8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as err:
                raise RecordError(path, number, f"invalid JSON ({err})") from None
            if not isinstance(record, dict) or not isinstance(record.get("text"), str):
                raise RecordError(path, number, "not an annotate record: no string 'text'")
            if not isinstance(record.get("frames", []), list):
                raise RecordError(path, number, "'frames' is not a list")
            yield number, record


def _char_span(doc: Doc, item: Any, what: str, label: str = "") -> Span:
    try:
        start, end = int(item["start"]), int(item["end"])
    except (TypeError, KeyError, ValueError):
        raise ValueError(f"{what} has no integer 'start' and 'end': {item!r}") from None
    if not 0 <= start < end <= len(doc.text):
        raise ValueError(f"{what} offsets [{start}, {end}) are outside the text (length {len(doc.text)})")
    if "text" in item and doc.text[start:end] != item["text"]:
        raise ValueError(f"{what} text {item['text']!r} is not the text at [{start}, {end}): {doc.text[start:end]!r}")
    span = doc.char_span(start, end, label=label, alignment_mode="expand")
    if span is None or not len(span):
        raise ValueError(f"{what} [{start}, {end}) does not cover a token")
    return span


def record_to_doc(nlp, record: Dict[str, Any]) -> Doc:
    """A training doc of one annotate record: every frame with a frame label becomes a
    gold target (label, lexical unit), its frame elements gold FEs of that target."""
    install_extensions()
    doc = nlp.make_doc(record["text"])
    targets: List[Span] = []
    fes: List[Span] = []
    for i, frame in enumerate(record.get("frames", [])):
        if not isinstance(frame, dict):
            raise ValueError(f"frame {i} is not an object")
        if not frame.get("frame"):
            continue  # no frame: no gold target
        target = _char_span(doc, frame, f"frame {i}", label=str(frame["frame"]))
        target._.lexical_unit = frame.get("lexical_unit")
        targets.append(target)
        for j, fe in enumerate(frame.get("frame_elements", [])):
            if not isinstance(fe, dict) or not fe.get("label"):
                raise ValueError(f"frame element {j} of frame {i} has no 'label'")
            span = _char_span(doc, fe, f"frame element {j} of frame {i}")
            fes.append(make_fe_span(target, span.start, span.end, str(fe["label"])))
    doc.spans[TARGETS_KEY] = targets
    doc.spans[FE_KEY] = SpanGroup(doc, name=FE_KEY, spans=fes)
    doc.user_data["annotate_id"] = record.get("id")
    return doc


def convert_records(jsonl_path: PathLike, output: PathLike, *, lang: str = "en") -> Dict[str, Any]:
    """`spacy-frames annotate` records (JSONL) into the DocBin ``output``, tokenised by
    ``spacy.blank(lang)``. A malformed line stops the conversion with an error naming
    the file and line. Returns {"docs", "targets", "frame_elements"}."""
    path = _require_file(jsonl_path, "annotate records (JSONL)", "check the path")
    output = _check_output(output)
    nlp = spacy.blank(lang)
    counts: Counter = Counter()

    def docs() -> Iterator[Doc]:
        for number, record in _read_records(path):
            try:
                doc = record_to_doc(nlp, record)
            except ValueError as err:
                raise RecordError(path, number, str(err)) from None
            counts["docs"] += 1
            counts["targets"] += len(doc.spans[TARGETS_KEY])
            counts["frame_elements"] += len(doc.spans[FE_KEY])
            yield doc

    doc_bin = add_docs(DocBin(store_user_data=True), docs())
    output.parent.mkdir(parents=True, exist_ok=True)
    doc_bin.to_disk(output)
    return {key: int(counts[key]) for key in ("docs", "targets", "frame_elements")}
