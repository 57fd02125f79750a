"""Doc/Span extension attributes of spacy_frames.

Installed idempotently (``has_extension`` guarded, never ``force=True``) by every
component's ``__init__``, ``__call__`` and ``pipe``, and by the corpus readers, so
the attributes exist in spawned ``n_process`` workers too. Stored values are plain
str / list / float, which msgpack handles: they survive ``DocBin``
(``store_user_data=True``), ``doc.to_bytes`` and multiprocessing.
"""

from functools import partial
from typing import List, Optional, Tuple

from spacy.strings import get_string_id
from spacy.tokens import Doc, Span

# Span group keys used across the package. Components take the key as a config
# argument; these are the defaults and the keys the corpus converters write.
TARGETS_KEY = "targets"
FRAMES_KEY = "frames"
# frame_elements: the FE spans of every target / frame span, label = FE name; each FE
# span's `span.id_` is fe_target_id(its target) (see corpora/framenet_elements.py)
FE_KEY = "frame_elements"
# discourse_sense: [Arg1, Arg2] of the relation to classify
ARGS_KEY = "discourse_args"
# media_framer: the article's cached transformer vector in doc.user_data (frozen-body
# training stages; written by the corpus reader from `spacy-frames media-cache-body`)
BODY_VECTOR_KEY = "media_body_vector"


# the span-group attribute that flags a doc whose targets are not exhaustively annotated
PARTIAL = "partial"


def mark_partial(doc: Doc, key: str = TARGETS_KEY) -> None:
    """Flag a doc whose targets are not exhaustively annotated (an exemplar sentence
    annotates one lexical unit): its other words are no evidence of 'not a target'."""
    if key in doc.spans:
        doc.spans[key].attrs[PARTIAL] = True


def is_partial(doc: Doc, key: str = TARGETS_KEY) -> bool:
    return key in doc.spans and bool(doc.spans[key].attrs.get(PARTIAL, False))


def align_target(ref: Span, predicted: Doc) -> Optional[Span]:
    """`ref` (a target of another tokenisation of the same text) as a span of `predicted`,
    aligned by characters, with its label, lexical unit and pieces; None if it cannot be."""
    span = predicted.char_span(ref.start_char, ref.end_char, label=ref.label_, alignment_mode="expand")
    if span is None:
        return None
    span._.lexical_unit = ref._.lexical_unit
    if ref._.target_parts:
        parts = []
        for start, end in ref._.target_parts:
            piece = predicted.char_span(
                ref.doc[start].idx, ref.doc[end - 1].idx + len(ref.doc[end - 1]), alignment_mode="expand"
            )
            if piece is not None:
                parts.append([piece.start, piece.end])
        span._.target_parts = parts or None
    return span


def get_doc_frames(doc: Doc) -> List[Span]:
    """``doc._.frames``: the spans of ``doc.spans["frames"]`` in document order."""
    if FRAMES_KEY not in doc.spans:
        return []
    return sorted(doc.spans[FRAMES_KEY], key=lambda span: (span.start, span.end))


def get_span_frame(span: Span) -> Optional[str]:
    """``span._.frame``: the frame a frame span evokes (its label), None if unlabelled."""
    return span.label_ or None


def fe_target_id(span: Span) -> str:
    """The id an FE span of the target / frame span ``span`` carries as ``span.id_``:
    ``"<start_char>:<end_char>:<frame>"``. Kept in the span (it travels with the span group
    through ``DocBin``, ``to_bytes`` and ``n_process``), because ``Span._`` values are keyed
    by character offsets only and an FE span shared by two targets would share them."""
    return f"{span.start_char}:{span.end_char}:{span.label_}"


def make_fe_span(target: Span, start: int, end: int, label: str) -> Span:
    """An FE span (token offsets ``[start, end)``, ``label`` = FE name) of ``target``'s doc,
    linked to ``target``; put it in ``doc.spans["frame_elements"]``."""
    return Span(target.doc, start, end, label=label, span_id=fe_target_id(target))


def get_span_frame_elements(span: Span) -> List[Span]:
    """``span._.frame_elements``: the FE spans of the target / frame ``span`` (same
    offsets and frame label) in ``doc.spans["frame_elements"]``, in document order."""
    doc = span.doc
    if FE_KEY not in doc.spans:
        return []
    key = get_string_id(fe_target_id(span))
    return sorted((fe for fe in doc.spans[FE_KEY] if fe.id == key), key=lambda fe: (fe.start, fe.end, fe.label_))


def parse_fe_link(span_id: str) -> Optional[List[str]]:
    """[start_char, end_char, frame] of an FE span's target pointer (``fe_target_id``), None
    for any other id."""
    parts = (span_id or "").split(":", 2)
    if len(parts) != 3 or not (parts[0].isdigit() and parts[1].isdigit()):
        return None
    return parts


def _fe_link(span: Span) -> Optional[List[str]]:
    return parse_fe_link(span.id_) if span.id else None


def fe_link_offsets(span_id: str) -> Optional[Tuple[int, int]]:
    """(start_char, end_char) of the target an FE span's id points to, None for any other id."""
    link = parse_fe_link(span_id)
    return None if link is None else (int(link[0]), int(link[1]))


def get_fe_target(span: Span) -> Optional[List[int]]:
    """``span._.fe_target``: [start_char, end_char] of the target an FE span belongs to,
    None for a span that is no FE span."""
    link = _fe_link(span)
    return None if link is None else [int(link[0]), int(link[1])]


def get_fe_frame(span: Span) -> Optional[str]:
    """``span._.fe_frame``: the frame of the target an FE span belongs to (None if no FE span)."""
    link = _fe_link(span)
    return None if link is None else link[2]


def _as_lists(value):
    # msgpack gives tuples back after DocBin / to_bytes: keep the public type a list
    if isinstance(value, (list, tuple)):
        return [_as_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_lists(v) for k, v in value.items()}
    return value


def _doc_key(name: str):
    return ("._.", name, None, None)


def get_doc_list(name: str, doc: Doc):
    return _as_lists(doc.user_data.get(_doc_key(name)))


def get_doc_list_or_empty(name: str, doc: Doc):
    # a module-level getter, not a lambda: extensions must pickle (n_process under spawn)
    return get_doc_list(name, doc) or []


def set_doc_value(name: str, doc: Doc, value) -> None:
    doc.user_data[_doc_key(name)] = value


def _user_data_key(name: str, span: Span):
    # the key spaCy itself uses for span extension values, so storage is unchanged
    return ("._.", name, span.start_char, span.end_char)


def get_list_value(name: str, span: Span):
    return _as_lists(span.doc.user_data.get(_user_data_key(name, span)))


def set_value(name: str, span: Span, value) -> None:
    span.doc.user_data[_user_data_key(name, span)] = value


def install_extensions() -> None:
    if not Doc.has_extension("frames"):
        Doc.set_extension("frames", getter=get_doc_frames)
    if not Span.has_extension("frame"):
        Span.set_extension("frame", getter=get_span_frame)
    # [[frame, score], ...] over all frames, best first
    if not Span.has_extension("frame_ranking"):
        Span.set_extension(
            "frame_ranking", getter=partial(get_list_value, "frame_ranking"), setter=partial(set_value, "frame_ranking")
        )
    # "lemma.pos" as FrameNet writes it ("get.v"), None when out of the lexicon
    if not Span.has_extension("lexical_unit"):
        Span.set_extension("lexical_unit", default=None)
    # [[start, end], ...] token offsets of the pieces of a discontinuous target
    # (the span itself covers first..last piece); None for contiguous targets
    if not Span.has_extension("target_parts"):
        Span.set_extension(
            "target_parts", getter=partial(get_list_value, "target_parts"), setter=partial(set_value, "target_parts")
        )
    # frame_elements: on a target / frame span, its FE spans (doc.spans["frame_elements"]
    # with its fe_target_id) in document order; on an FE span, its target's
    # [start_char, end_char] and frame. Getters: nothing is stored in user_data.
    if not Span.has_extension("frame_elements"):
        Span.set_extension("frame_elements", getter=get_span_frame_elements)
    if not Span.has_extension("fe_target"):
        Span.set_extension("fe_target", getter=get_fe_target)
    if not Span.has_extension("fe_frame"):
        Span.set_extension("fe_frame", getter=get_fe_frame)
    # frame_inducer: the nearest induced cluster ("F0042") and the FrameNet frame most
    # common among that cluster's known instances (None when it has none)
    if not Span.has_extension("induced_frame"):
        Span.set_extension("induced_frame", default=None)
    if not Span.has_extension("induced_frame_label"):
        Span.set_extension("induced_frame_label", default=None)
    # discourse_sense: [{"arg1": [start_char, end_char], "arg2": [...], "sense": path,
    # "level1": ..., "level2": ..., "score": float}, ...]; [] before the component runs
    if not Doc.has_extension("discourse_relations"):
        Doc.set_extension(
            "discourse_relations",
            getter=partial(get_doc_list_or_empty, "discourse_relations"),
            setter=partial(set_doc_value, "discourse_relations"),
        )
    # the gold of a converted relation doc (corpora/discourse.py), None elsewhere
    if not Doc.has_extension("discourse_gold"):
        Doc.set_extension(
            "discourse_gold",
            getter=partial(get_doc_list, "discourse_gold"),
            setter=partial(set_doc_value, "discourse_gold"),
        )
    # media_framer: the frames whose score passes their threshold, best first; [] before it runs
    if not Doc.has_extension("media_frames"):
        Doc.set_extension(
            "media_frames",
            getter=partial(get_doc_list_or_empty, "media_frames"),
            setter=partial(set_doc_value, "media_frames"),
        )
