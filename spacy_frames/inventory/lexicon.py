"""Lexical units (lemma.POS) -> candidate targets in a Doc.

FrameNet names a lexical unit "lemma.pos" ("get.v", "a lot.n", "take_off.v");
a token matches when its lemma (or lower-cased form) and coarse POS match.
Multiword LUs match on word sequences (longest first, POS not required: the
tagger rarely agrees with FrameNet on the POS of an idiom). Parenthesised parts
("launch_(into).v") are optional context and are dropped for matching.
"""

import re
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span

from .frames import FrameInventory

# universal POS -> FrameNet POS
UPOS_TO_FN = {
    "VERB": "v",
    "AUX": "v",
    "NOUN": "n",
    "PROPN": "n",
    "ADJ": "a",
    "ADV": "adv",
    "ADP": "prep",
    "NUM": "num",
    "CCONJ": "c",
    "SCONJ": "scon",
    "INTJ": "intj",
    "DET": "art",
    "PRON": "pron",
}
# PTB tag prefix -> FrameNet POS, for docs tagged but not POS-mapped (FrameNet's own tokens)
PTB_TO_FN = (
    ("VB", "v"),
    ("MD", "v"),
    ("NN", "n"),
    ("JJ", "a"),
    ("RB", "adv"),
    ("IN", "prep"),
    ("TO", "prep"),
    ("CD", "num"),
    ("CC", "c"),
    ("UH", "intj"),
    ("DT", "art"),
    ("PRP", "pron"),
    ("WP", "pron"),
)
_OPTIONAL = re.compile(r"[\(\[][^\)\]]*[\)\]]+")


def fn_pos(token) -> Optional[str]:
    if token.pos_ in UPOS_TO_FN:
        return UPOS_TO_FN[token.pos_]
    for prefix, pos in PTB_TO_FN:
        if token.tag_.startswith(prefix):
            return pos
    return None


def token_lemma(token) -> str:
    return (token.lemma_ or token.text).lower()


def lu_words(lu: str) -> Tuple[Tuple[str, ...], str]:
    """'take_off.v' -> (('take', 'off'), 'v'); 'launch_(into).v' -> (('launch',), 'v')."""
    lemma, _, pos = lu.rpartition(".")
    lemma = _OPTIONAL.sub(" ", lemma)
    words = tuple(w for w in re.split(r"[\s_]+", lemma.lower()) if w)
    return words, pos


def target_lexical_unit(span: Span) -> Optional[str]:
    """The LU a preset target would have from its lemmas and the POS of its last token."""
    if not len(span):
        return None
    pos = fn_pos(span[-1])
    if pos is None:
        return None
    return " ".join(token_lemma(t) for t in span) + "." + pos


class Lexicon:
    def __init__(self, inventory: FrameInventory):
        self.single: Dict[Tuple[str, str], str] = {}
        self.multi: Dict[str, List[Tuple[Tuple[str, ...], str]]] = {}
        for name in inventory.names:
            for lu in inventory.lexical_units(name):
                words, pos = lu_words(lu)
                if not words:
                    continue
                if len(words) == 1:
                    self.single.setdefault((words[0], pos), lu)
                else:
                    self.multi.setdefault(words[0], []).append((words, lu))
        for entries in self.multi.values():
            entries.sort(key=lambda entry: -len(entry[0]))

    def lookup(self, token) -> Optional[str]:
        pos = fn_pos(token)
        if pos is None:
            return None
        for form in (token_lemma(token), token.lower_):
            lu = self.single.get((form, pos))
            if lu is not None:
                return lu
        return None

    def candidates(
        self, doc: Doc, oov_pos: Iterable[str] = (), overlapping: bool = False
    ) -> List[Tuple[Span, Optional[str]]]:
        """Candidate targets in document order: (span, LU or None).

        None marks an out-of-lexicon token whose POS is in `oov_pos`: only a
        confident detector makes it a target. By default the candidates do not
        overlap (a multiword LU wins over its words, longest first); `overlapping`
        gives every multiword match and every word, so that a scorer can choose
        between "come to" and "come" in context ("who come to Pleasant Run").
        """
        oov_pos = set(oov_pos)
        lemmas = [token_lemma(t) for t in doc]
        lowers = [t.lower_ for t in doc]
        found: List[Tuple[Span, Optional[str]]] = []
        i = 0
        while i < len(doc):
            matches = self._match_multi_all(lemmas, lowers, i)
            if matches and not overlapping:
                length, lu = matches[0]
                found.append((doc[i : i + length], lu))
                i += length
                continue
            # longest first, then the word itself: document order by (start, -length)
            found.extend((doc[i : i + length], lu) for length, lu in matches)
            token = doc[i]
            lu = self.lookup(token)
            if lu is not None:
                found.append((doc[i : i + 1], lu))
            elif token.pos_ in oov_pos and token.is_alpha:
                found.append((doc[i : i + 1], None))
            i += 1
        return found

    def lexical_unit(self, span: Span) -> Optional[str]:
        """The LU that `candidates` gives this span as a candidate (a multiword LU spanning
        exactly its tokens, else its single token's); None when it has none."""
        if len(span) == 1:
            return self.lookup(span[0])
        matches = self._match_multi_all([token_lemma(t) for t in span], [t.lower_ for t in span], 0)
        return next((lu for length, lu in matches if length == len(span)), None)

    def _match_multi(self, lemmas: Sequence[str], lowers: Sequence[str], i: int) -> Optional[Tuple[int, str]]:
        matches = self._match_multi_all(lemmas, lowers, i)
        return matches[0] if matches else None

    def _match_multi_all(self, lemmas: Sequence[str], lowers: Sequence[str], i: int) -> List[Tuple[int, str]]:
        """Every multiword LU starting at word i, one per length, longest first."""
        found: Dict[int, str] = {}
        for key in sorted({lemmas[i], lowers[i]}):
            for words, lu in self.multi.get(key, ()):
                n = len(words)
                if (
                    n not in found
                    and i + n <= len(lemmas)
                    and all(w in (lemmas[i + k], lowers[i + k]) for k, w in enumerate(words))
                ):
                    found[n] = lu
        return sorted(found.items(), key=lambda item: -item[0])
