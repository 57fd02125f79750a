"""Frames as open-sesame's CoNLL 2009 files (the layout its ``sesame/conll09.py`` reads).

One block per target, blocks separated by an empty line; a block lists every token of the
target's sentence (the whole doc when it has no sentence boundaries), one line of 15
tab-separated columns each:

    ID       the token's index in the sentence, from 1
    FORM     the token's text
    LEMMA    "_"
    PLEMMA   the token's lemma (its lowercased text when it has none)
    POS      "_" (FrameNet's own tags; none)
    PPOS     the token's Penn Treebank tag, else "_"
    SENT#    the sentence's index in the file, from 0 (open-sesame's sentence ids: two
             sentences of the same words stay two)
    PFEAT    "_"
    HEAD     "_"
    PHEAD    the ID of the token's head in the sentence (0: the root), "_" without a parse
    DEPREL   "_"
    PDEPREL  the token's dependency label, "_" without a parse
    LU       the target's lexical unit on each of its tokens ("decide.v", "at least.adv";
             its lemmas when it has none), else "_"
    FRAME    the target's frame on each of its tokens, else "_"
    ROLE     the target's frame elements as BIOS tags ("S-Agent" for one token, "B-Theme",
             "I-Theme" for more, "O")

Blocks come in document order of the targets. Whitespace tokens are left out (a form cannot
hold whitespace). Targets without a frame are left out, and so is a sentence without
targets (open-sesame has no block for it).
``spacy_frames.corpora.framenet_sentences.iter_open_sesame_sentences`` reads the output
back (text = the forms joined by single spaces).
"""

from typing import List, Optional, Sequence

from spacy.tokens import Doc, Span, Token

CONLL_COLUMNS = (
    "ID", "FORM", "LEMMA", "PLEMMA", "POS", "PPOS", "SENT#", "PFEAT", "HEAD", "PHEAD", "DEPREL", "PDEPREL", "LU", "FRAME", "ROLE"
)  # fmt: skip


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


def _role_tags(span: Span, sentence: Span) -> dict:
    """Each token's BIOS tag of the target's FEs (an FE outside the sentence, or over one
    already tagged, is left out)."""
    tags = {}
    for fe in span._.frame_elements:
        tokens = [t.i for t in fe if not _is_space(t) and sentence.start <= t.i < sentence.end]
        if not tokens or any(i in tags for i in tokens):
            continue
        for n, i in enumerate(tokens):
            tags[i] = ("S-" if len(tokens) == 1 else "B-" if n == 0 else "I-") + fe.label_
    return tags


def target_block(span: Span, sentence_number: int = 0) -> List[str]:
    """The CoNLL lines of one target (its frame in ``span.label_``, its FEs in
    ``span._.frame_elements``) in sentence `sentence_number` of its doc."""
    doc = span.doc
    sentence = _sentence_of(doc, span)
    target, roles = set(_target_tokens(span)), _role_tags(span, sentence)
    lu, frame, parsed = _lexical_unit(span), span.label_, doc.has_annotation("DEP")
    tokens = [t for t in sentence if not _is_space(t)]
    ids = {t.i: n for n, t in enumerate(tokens, start=1)}
    lines = []
    for token in tokens:
        is_target = token.i in target
        head = str(ids.get(token.head.i, 0) if token.head.i != token.i else 0) if parsed else "_"
        columns = [str(ids[token.i]), token.text, "_", token.lemma_ or token.text.lower(), "_", token.tag_ or "_"]
        columns += [str(sentence_number), "_", "_", head, "_", token.dep_ if parsed and token.dep_ else "_"]
        columns += [lu if is_target else "_", frame if is_target else "_", roles.get(token.i, "O")]
        lines.append("\t".join(columns))
    return lines


def n_sentences(doc: Doc) -> int:
    return sum(1 for _ in doc.sents) if doc.has_annotation("SENT_START") else 1


def doc_to_conll(doc: Doc, first_sentence: int = 0) -> str:
    """The doc's frames (``doc._.frames``) as CoNLL blocks, each followed by an empty
    line; "" when it has none. Its sentences are numbered from `first_sentence` (the
    sentences of the file before it)."""
    starts = {sent.start: n for n, sent in enumerate(doc.sents)} if doc.has_annotation("SENT_START") else {}
    blocks = [
        target_block(span, first_sentence + starts.get(_sentence_of(doc, span).start, 0))
        for span in doc._.frames
        if span.label_
    ]
    return "".join("\n".join(block) + "\n\n" for block in blocks if block)
