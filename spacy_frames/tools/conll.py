"""Frames as open-sesame CoNLL: the 5-column layout of ``fn1.7.dev.syntaxnet.conll``.

One block per target, blocks separated by an empty line; a block lists every token of the
target's sentence (the whole doc when it has no sentence boundaries), one tab-separated
line each:

    ID     the token's index in the sentence, from 0
    FORM   the token's text
    LU     the target's lexical unit on each of its tokens ("decide.v", "at least.adv";
           its lemmas when it has none), else "_"
    FRAME  the target's frame on each of its tokens, else "_"
    FE     the target's frame elements as BIO tags ("B-Agent", "I-Agent", "O")

Blocks come in document order of the targets. Whitespace tokens are left out (a form cannot hold whitespace). Targets without a frame
are left out, and so is a sentence without targets (open-sesame has no block for it).
``spacy_frames.corpora.framenet_sentences.iter_open_sesame_sentences`` reads the output
back (text = the forms joined by single spaces).
"""

from typing import List, Optional, Sequence

from spacy.tokens import Doc, Span, Token

CONLL_COLUMNS = ("ID", "FORM", "LU", "FRAME", "FE")


def _is_space(token: Token) -> bool:
    return not token.text.strip()


def _sentence_of(doc: Doc, span: Span) -> Span:
    if doc.has_annotation("SENT_START"):
        return doc[span.start].sent
    return doc[:]


def _target_tokens(span: Span) -> List[int]:
    parts: Optional[Sequence[Sequence[int]]] = span._.target_parts
    ranges = parts or [[span.start, span.end]]
    return [i for start, end in ranges for i in range(start, end)]


def _lexical_unit(span: Span) -> str:
    """The span's lexical unit ("biological weapon.n": open-sesame keeps the space), else
    its words' lemmas (lowercased words when there are none)."""
    lu = span._.lexical_unit or " ".join(t.lemma_ or t.text.lower() for t in span if not _is_space(t))
    return " ".join(str(lu).split()) or "_"


def target_block(span: Span) -> List[str]:
    """The CoNLL lines of one target (its frame in ``span.label_``, its FEs in
    ``span._.frame_elements``)."""
    doc = span.doc
    sentence = _sentence_of(doc, span)
    target = set(_target_tokens(span))
    fe_tags = {}
    for fe in span._.frame_elements:
        tokens = [t.i for t in fe if not _is_space(t) and sentence.start <= t.i < sentence.end]
        if not tokens or any(i in fe_tags for i in tokens):
            continue  # outside the sentence, or overlapping an FE already written
        for n, i in enumerate(tokens):
            fe_tags[i] = ("B-" if n == 0 else "I-") + fe.label_
    lu, frame = _lexical_unit(span), span.label_
    lines = []
    for token in (t for t in sentence if not _is_space(t)):
        is_target = token.i in target
        lines.append(
            "\t".join(
                [
                    str(len(lines)),
                    token.text,
                    lu if is_target else "_",
                    frame if is_target else "_",
                    fe_tags.get(token.i, "O"),
                ]
            )
        )
    return lines


def doc_to_conll(doc: Doc) -> str:
    """The doc's frames (``doc._.frames``) as CoNLL blocks, each followed by an empty
    line; "" when it has none."""
    blocks = [target_block(span) for span in doc._.frames if span.label_]
    return "".join("\n".join(block) + "\n\n" for block in blocks if block)
