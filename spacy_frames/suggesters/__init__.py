"""Candidate generation, as registered suggesters in spaCy's spancat shape.

A suggester is built by a function registered under @misc (`spacy.ngram_suggester.v1` is
the model) and is called as `suggester(docs, *, ops=None, **context) -> Ragged`: per doc,
rows of token offsets, `[start, end)` for spans (argument pairs: two spans a row,
`[arg1_start, arg1_end, arg2_start, arg2_end]`), `lengths` = rows per doc. `context` is
what only the calling component knows (its lexicon, its span keys), passed by keyword;
each suggester documents its own. A component takes its suggester as the factory setting
`suggester`, whose default reproduces what the component looked at before suggesters
existed.

- frames.py: targets for frame_identifier (preset, else lexicon) and predicates for
  frame_inducer, with frame_identifier's training-time targets (gold, detector examples);
- discourse.py: argument pairs for discourse_sense;
- frame_elements.py: (target, candidate span) rows for frame_elements.
"""

from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
from spacy.tokens import Doc, Span
from thinc.api import Ops, get_current_ops
from thinc.types import Ragged


def to_ragged(rows: Sequence[Sequence[Sequence[int]]], width: int = 2, ops: Optional[Ops] = None) -> Ragged:
    """Per doc its rows of offsets (each `width` ints; a list of rows or an (n, width)
    array) as a Ragged."""
    ops = ops if ops is not None else get_current_ops()
    pieces = [numpy.asarray(doc_rows, dtype="int32").reshape((len(doc_rows), width)) for doc_rows in rows]
    data = numpy.concatenate(pieces) if pieces else numpy.zeros((0, width), dtype="int32")
    return Ragged(ops.asarray2i(data), ops.asarray1i([len(doc_rows) for doc_rows in rows]))


def doc_rows(suggested: Ragged) -> List[List[List[int]]]:
    """The Ragged's rows per doc, as lists of ints."""
    data, lengths = to_numpy(suggested.dataXd), to_numpy(suggested.lengths)
    out, start = [], 0
    for n in lengths.tolist():
        out.append(data[start : start + n].tolist())
        start += n
    return out


def suggested_spans(docs: Iterable[Doc], suggested: Ragged, keys: Sequence[Optional[str]] = ()) -> List[List[Span]]:
    """The suggested [start, end) rows of each doc as its spans. A row with the offsets of
    a span of `doc.spans[key]`, for the first of `keys` the doc has, is that span (label
    and all; repeated offsets take the group's spans in order); any other is
    `doc[start:end]` (span extension values set on the doc's spans with those offsets are
    its too)."""
    out = []
    for doc, rows in zip(docs, doc_rows(suggested)):
        key = next((k for k in keys if k is not None and k in doc.spans), None)
        own: Dict[Tuple[int, int], List[Span]] = {}
        for span in doc.spans[key] if key is not None else []:
            own.setdefault((span.start, span.end), []).append(span)
        out.append([own[(start, end)].pop(0) if own.get((start, end)) else doc[start:end] for start, end in rows])
    return out


def to_numpy(array) -> numpy.ndarray:
    return array.get() if hasattr(array, "get") else numpy.asarray(array)  # cupy -> numpy
