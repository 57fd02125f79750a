"""FrameNet sentences: reading them from the sources and turning them into spaCy ``Doc``s.

Holds :class:`FrameTarget` and :class:`FrameSentence`, the readers of FrameNet 1.5 full-text
documents (:func:`list_fulltext_docs`, :func:`iter_fulltext_sentences`), LU exemplars
(:func:`iter_exemplar_sentences`), the Das et al. document split (:func:`load_split`) and
open-sesame CoNLL files (:func:`iter_open_sesame_sentences`), with the tokenisation of
FrameNet's POS layers, and :func:`sentence_to_doc`, which builds a ``Doc`` with the targets
in ``doc.spans["targets"]`` (and their FEs: :mod:`spacy_frames.corpora.framenet_elements`).
Conventions (character offsets, what counts as a target, what is skipped) are documented in
:mod:`spacy_frames.corpora.framenet`.
"""

import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Container, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import srsly
from spacy.tokens import Doc, Span
from spacy.vocab import Vocab

from ..extensions import TARGETS_KEY, install_extensions
from .framenet import _WS_RE, PTB_TAGS, PathLike, _FNZip, _require_file, _tag, normalize_penn_tag
from .framenet_elements import (
    FrameElement,
    NullInstantiation,
    bio_elements,
    count_skipped_target,
    read_fe_layer,
    set_gold_frame_elements,
)

TokenOffsets = Tuple[int, int, Optional[str]]  # (start_char, end_char exclusive, POS tag or None)

# POS layers of FrameNet annotation sets, in order of preference: full text has PENN,
# exemplars have PENN (newer corpora) or BNC (CLAWS-5 tags, British National Corpus).
POS_LAYERS = ("PENN", "BNC")

_NON_WS_RE = re.compile(r"\S+")


@dataclass
class FrameTarget:
    """One frame-evoking target: gold frame, lexical unit and its character pieces.

    ``pieces``: [(start_char, end_char), ...], end exclusive, sorted; several pieces for
    multi-label targets ("chemical ... weapon"); empty when the annotation set has a frame
    but no Target label (4 such sets in FN1.5 full text). ``elements``: the overt FEs of
    the rank-1 FE layer (character offsets, sorted); ``null_elements``: its null
    instantiations, [(FE name, "CNI" / "DNI" / "INI" / "INC"), ...].
    """

    frame: str
    lu: str
    pieces: List[Tuple[int, int]]
    annotation_set_id: Optional[int] = None
    elements: List[FrameElement] = field(default_factory=list)
    null_elements: List[NullInstantiation] = field(default_factory=list)


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
        fe_layer: Optional[ET.Element] = None
        for layer in aset.iterfind(_tag("layer")):
            name = layer.get("name")
            if name == "Target":
                pieces.extend((s, e) for s, e, _ in _labels(layer))
            elif name == "FE" and layer.get("rank", "1") == "1" and fe_layer is None:
                fe_layer = layer
            elif name in POS_LAYERS and name not in pos_layers and len(layer):
                pos_layers[name] = _labels(layer)
        set_id = int(aset.get("ID", -1))
        elements, null = read_fe_layer(fe_layer) if fe_layer is not None else ([], [])
        if lu_frame is None:
            if aset.get("frameName") is not None:
                frame, lu = aset.get("frameName", ""), aset.get("luName", "")
                targets.append(FrameTarget(frame, lu, sorted(set(pieces)), set_id, elements, null))
        elif pieces:
            targets.append(FrameTarget(lu_frame[1], lu_frame[0], sorted(set(pieces)), set_id, elements, null))
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


def iter_fulltext_sentences(zip_path: PathLike, doc_names: Optional[Iterable[str]] = None) -> Iterator[FrameSentence]:
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
    sentence repeated elsewhere in the corpus stays a separate sentence. The FE BIO column
    gives the target its FEs. Text = tokens joined by single spaces; ``doc`` is the file name, ``sentence_id`` the sentence-id
    column (15 columns) or the running sentence index.
    """
    path = _require_file(path, "open-sesame CoNLL file")
    current: Optional[FrameSentence] = None
    current_key: Optional[Tuple[Any, ...]] = None
    index = 0
    for block in _conll_blocks(path):
        ncols = len(block[0])
        if ncols >= 15:
            lu_col, frame_col, fe_col, tag_col, sent_col = 12, 13, 14, 5, 6
        elif ncols >= 5:
            lu_col, frame_col, fe_col, tag_col, sent_col = 2, 3, 4, None, None
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
        elements = bio_elements([row[fe_col] for row in block], current.tokens)
        current.targets.append(FrameTarget(first[frame_col], first[lu_col], pieces, None, elements))
    if current is not None:
        yield current


def _conll_blocks(path: Path) -> Iterator[List[List[str]]]:
    """The blocks of rows; a row of fewer than 5 columns, or of other columns than the
    rows before it in its block, is an error naming the file and line."""
    block: List[List[str]] = []
    with path.open(encoding="utf8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                if block:
                    yield block
                block = []
                continue
            row = line.split("\t")
            if len(row) < 5 or (block and len(row) != len(block[0])):
                expected = f"{len(block[0])} as the lines before it" if block else "5 or 15"
                raise ValueError(
                    f"{path}, line {number}: expected {expected} tab-separated columns, got {len(row)}: {line[:80]!r}"
                )
            block.append(row)
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
    keep_target_fes: bool = True,
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
    - The targets' gold FEs go into ``doc.spans["frame_elements"]``, linked to their target
      (:func:`~.framenet_elements.set_gold_frame_elements`; ``fe_*`` keys in ``stats``);
      FEs that overlap their target are skipped unless ``keep_target_fes``.
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
    with_fes = []
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
            count_skipped_target(target.elements, target.null_elements, stats)
            continue
        span = Span(doc, parts[0][0], parts[-1][1], label=target.frame)
        span._.lexical_unit = target.lu
        if len(parts) > 1:
            span._.target_parts = parts
            stats["discontinuous_targets"] += 1
        elif sum(1 for t in span if t.text.strip()) > 1:
            stats["multiword_targets"] += 1
        spans.append(span)
        with_fes.append((span, parts, target.elements, target.null_elements))
    doc.spans[TARGETS_KEY] = spans
    set_gold_frame_elements(doc, with_fes, stats, keep_target_fes=keep_target_fes)
    doc.user_data["framenet"] = {"doc": sentence.doc, "sentence_id": sentence.sentence_id}
    stats["sentences"] += 1
    if not spans:
        stats["sentences_without_targets"] += 1
    if sentence.tagset is None:
        stats["whitespace_tokenized_sentences"] += 1
    return doc
