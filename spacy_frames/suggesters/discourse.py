"""The argument pairs discourse_sense classifies (`spacy-frames.argument_pair_suggester.v1`):
the [Arg1, Arg2] pair of `doc.spans[args_key]` when it holds exactly two non-empty spans,
else every pair of adjacent sentences (sentences from the pipeline when it sets them, else
a punctuation rule; sentences of whitespace only are left out)."""

from typing import Callable, Iterable, List, Optional, Tuple

from spacy.pipeline import Sentencizer
from spacy.tokens import Doc, Span
from spacy.util import registry
from thinc.api import Ops
from thinc.types import Ragged

from ..extensions import ARGS_KEY
from . import doc_rows, to_ragged


@registry.misc("spacy-frames.argument_pair_suggester.v1")
def build_argument_pair_suggester() -> Callable[..., Ragged]:
    """Argument pairs, rows [arg1_start, arg1_end, arg2_start, arg2_end]. Context:
    `args_key` (the key of a given [Arg1, Arg2] pair)."""
    return suggest_argument_pairs


def suggest_argument_pairs(docs: Iterable[Doc], *, ops: Optional[Ops] = None, args_key: str = ARGS_KEY) -> Ragged:
    rows = []
    for doc in docs:
        pair = given_pair(doc, args_key)
        if pair is not None:
            rows.append([(pair[0].start, pair[0].end, pair[1].start, pair[1].end)])
        else:
            sents = sentences(doc)
            rows.append([(a.start, a.end, b.start, b.end) for a, b in zip(sents, sents[1:])])
    return to_ragged(rows, width=4, ops=ops)


def suggested_pairs(docs: Iterable[Doc], suggested: Ragged) -> List[List[Tuple[Span, Span]]]:
    """The suggested rows of each doc as (Arg1, Arg2) span pairs."""
    return [[(doc[a1:b1], doc[a2:b2]) for a1, b1, a2, b2 in rows] for doc, rows in zip(docs, doc_rows(suggested))]


def given_pair(doc: Doc, args_key: str) -> Optional[Tuple[Span, Span]]:
    """The [Arg1, Arg2] of `doc.spans[args_key]`, or None unless it holds two non-empty spans."""
    given = list(doc.spans.get(args_key, []))
    if len(given) == 2 and all(len(s) for s in given):
        return given[0], given[1]
    return None


def sentences(doc: Doc) -> List[Span]:
    """The doc's sentences (a punctuation rule when it has none), without whitespace-only ones."""
    if not len(doc):
        return []
    if doc.has_annotation("SENT_START"):
        sents = list(doc.sents)
    else:  # a punctuation rule, without touching the doc's annotation
        starts = Sentencizer().predict([doc])[0]
        bounds = [i for i, start in enumerate(starts) if start or i == 0] + [len(doc)]
        sents = [doc[a:b] for a, b in zip(bounds, bounds[1:])]
    return [s for s in sents if any(not t.is_space for t in s)]
