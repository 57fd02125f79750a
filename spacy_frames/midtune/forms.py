"""Semantic forms of a sentence, their linearisation and their corruptions (negatives).

A form is, per predicate, a list of (role, filler) pairs (Umair & Ferraro 2021,
"Transferring Semantic Knowledge Into Language Encoders"). Mid-tuning brings a
sentence close to the linearised form of its own parse and away from corrupted
forms (a role dropped, a filler emptied, two fillers swapped) and from the form of
another sentence.

- `framenet_form(doc)`: from the pipeline's frames and frame elements;
- `frame_only_form(doc)`: its frames and lexical units only (a control);
- `dependency_form(doc)`: a coarse PropBank stand-in from the dependency parse;
- `linearize(form)`: the text E2 encodes;
- `drop_role`, `drop_filler`, `swap_fillers`, `foreign_form`, `negatives`: the
  negatives; `swap_frame` (a predicate renamed) for frame-only forms. None of them
  mutates its input; each returns None when not applicable.
"""

from collections import Counter
from dataclasses import dataclass, field
from random import Random
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, Token

from ..extensions import install_extensions

FRAME = "FRAME"  # a FrameNet frame (name = frame, lexical_unit = "decide.v")
PRED = "PRED"  # a dependency predicate (name = the verb's lemma)
LU_MARKER = "[LU]"


@dataclass
class Predicate:
    kind: str
    name: str
    lexical_unit: Optional[str] = None
    args: List[Tuple[str, str]] = field(default_factory=list)

    def copy(self) -> "Predicate":
        return Predicate(self.kind, self.name, self.lexical_unit, list(self.args))


@dataclass
class SemanticForm:
    predicates: List[Predicate] = field(default_factory=list)

    def copy(self) -> "SemanticForm":
        return SemanticForm([p.copy() for p in self.predicates])

    def is_empty(self) -> bool:
        return not self.predicates


def _clean(text: str) -> str:
    return " ".join(text.split())


# --- forms from a Doc -------------------------------------------------------------


def framenet_form(doc: Doc) -> SemanticForm:
    """The frames of ``doc._.frames`` in document order, each with its lexical unit and
    its frame elements (role = FE name, filler = the FE span's text) in document order.
    Frame spans without a frame label are left out."""
    install_extensions()
    predicates = []
    for span in doc._.frames:
        frame = span._.frame
        if not frame:
            continue
        args = [(fe.label_, _clean(fe.text)) for fe in span._.frame_elements]
        predicates.append(Predicate(FRAME, frame, span._.lexical_unit, args))
    return SemanticForm(predicates)


def frame_only_form(doc: Doc) -> SemanticForm:
    """``framenet_form`` without frame elements: each frame with its lexical unit only.
    A control for what FrameNet forms teach: with no fillers, a form shares with its
    sentence only the lexical units, so its negatives (a frame renamed, another
    sentence's form) cannot be told apart by the sentence's other words."""
    return SemanticForm([Predicate(p.kind, p.name, p.lexical_unit, []) for p in framenet_form(doc).predicates])


# dependency label -> PropBank-style role (prep, agent handled apart)
DEP_ROLES: Dict[str, str] = {
    "nsubj": "ARG0",
    "csubj": "ARG0",
    "nsubjpass": "ARG1",
    "csubjpass": "ARG1",
    "dobj": "ARG1",
    "obj": "ARG1",
    "dative": "ARG2",
    "iobj": "ARG2",
    "attr": "ARG2",
    "oprd": "ARG2",
    "acomp": "ARG2",
    "xcomp": "ARG2",
    "ccomp": "ARG2",
    "advmod": "ARGM-ADV",
    "neg": "ARGM-NEG",
}


def _tokens_text(doc: Doc, tokens: Sequence[Token]) -> str:
    if not tokens:
        return ""
    return _clean(doc[min(t.i for t in tokens) : max(t.i for t in tokens) + 1].text)


def _is_predicate(token: Token) -> bool:
    if token.pos_ == "VERB":
        return True
    return token.pos_ == "AUX" and (token.dep_ == "ROOT" or token.head.i == token.i)


def dependency_form(doc: Doc) -> SemanticForm:
    """A coarse stand-in for PropBank SRL, read off spaCy's dependency parse.

    Predicates: every token with pos_ VERB, and an AUX that is the root. name = the
    lemma (the lowercased form when there is none). Arguments, in document order, from
    the predicate's children (filler = the child's subtree text):
    nsubj/csubj -> ARG0, nsubjpass/csubjpass -> ARG1, dobj/obj -> ARG1, dative/iobj ->
    ARG2, attr/oprd/acomp/xcomp/ccomp -> ARG2, advmod -> ARGM-ADV, neg -> ARGM-NEG,
    prep -> "ARGM-" + the preposition lowercased (filler includes the preposition),
    agent -> ARG0 (filler without the "by"). Other children are not arguments.
    It is not a semantic role labeller: no sense, no ARG-numbering from a frame file,
    no arguments shared across predicates (a controlled subject belongs to its head)."""
    predicates = []
    for token in doc:
        if not _is_predicate(token):
            continue
        args = []
        for child in token.children:
            dep = child.dep_
            if dep == "prep":
                role, tokens = f"ARGM-{child.lower_}", list(child.subtree)
            elif dep == "agent":
                role, tokens = "ARG0", [t for t in child.subtree if t.i != child.i]
            elif dep in DEP_ROLES:
                role, tokens = DEP_ROLES[dep], list(child.subtree)
            else:
                continue
            filler = _tokens_text(doc, tokens)
            if filler:
                args.append((role, filler))
        predicates.append(Predicate(PRED, token.lemma_ or token.lower_, None, args))
    return SemanticForm(predicates)


# --- linearisation ----------------------------------------------------------------


def linearize(form: SemanticForm, kind_marker: bool = True) -> str:
    """``[FRAME] Deciding [LU] decide.v [Cognizer] the committee [Decision] to postpone
    the vote [FRAME] ...`` / ``[PRED] postpone [ARG0] the committee [ARG1] the vote``.

    kind_marker=False leaves out the ``[FRAME]`` / ``[PRED]`` markers. An emptied filler
    leaves its role marker alone. An empty form gives "" (callers skip it)."""
    parts: List[str] = []
    for predicate in form.predicates:
        if kind_marker:
            parts.append(f"[{predicate.kind}]")
        parts.append(predicate.name)
        if predicate.lexical_unit:
            parts += [LU_MARKER, predicate.lexical_unit]
        for role, filler in predicate.args:
            parts.append(f"[{role}]")
            if filler:
                parts.append(filler)
    return _clean(" ".join(parts))


# --- negatives --------------------------------------------------------------------


def _arg_positions(form: SemanticForm) -> List[Tuple[int, int]]:
    return [(p, a) for p, predicate in enumerate(form.predicates) for a in range(len(predicate.args))]


def drop_role(form: SemanticForm, rng: Random) -> Optional[SemanticForm]:
    """One (role, filler) pair removed; None when the form has no arguments."""
    positions = _arg_positions(form)
    if not positions:
        return None
    p, a = rng.choice(positions)
    new = form.copy()
    del new.predicates[p].args[a]
    return new


def drop_filler(form: SemanticForm, rng: Random) -> Optional[SemanticForm]:
    """One role kept with its filler emptied (""); None when no filler is left to empty."""
    positions = [(p, a) for p, a in _arg_positions(form) if form.predicates[p].args[a][1]]
    if not positions:
        return None
    p, a = rng.choice(positions)
    new = form.copy()
    role, _ = new.predicates[p].args[a]
    new.predicates[p].args[a] = (role, "")
    return new


def _swappable(form: SemanticForm, x: Tuple[int, int], y: Tuple[int, int]) -> bool:
    (px, ax), (py, ay) = x, y
    role_x, filler_x = form.predicates[px].args[ax]
    role_y, filler_y = form.predicates[py].args[ay]
    # a swap between two slots of the same (predicate name, role) only reorders them
    same_slot = (form.predicates[px].name, role_x) == (form.predicates[py].name, role_y)
    return filler_x != filler_y and not same_slot


def swap_fillers(form: SemanticForm, rng: Random) -> Optional[SemanticForm]:
    """The fillers of two roles swapped: two roles of one predicate when some predicate
    has two arguments whose swap changes the form, otherwise two roles of two
    predicates. None when no swap changes anything."""
    positions = _arg_positions(form)
    pairs = [(x, y) for i, x in enumerate(positions) for y in positions[i + 1 :] if _swappable(form, x, y)]
    within = [(x, y) for x, y in pairs if x[0] == y[0]]
    candidates = within or pairs
    if not candidates:
        return None
    (px, ax), (py, ay) = rng.choice(candidates)
    new = form.copy()
    role_x, filler_x = new.predicates[px].args[ax]
    role_y, filler_y = new.predicates[py].args[ay]
    new.predicates[px].args[ax] = (role_x, filler_y)
    new.predicates[py].args[ay] = (role_y, filler_x)
    return None if new == form else new


def foreign_form(forms: Sequence[SemanticForm], index: int, rng: Random) -> Optional[SemanticForm]:
    """A copy of the form of another sentence (non-empty, not equal to forms[index]);
    None when there is none."""
    own = forms[index]
    candidates = [j for j, other in enumerate(forms) if j != index and not other.is_empty() and other != own]
    if not candidates:
        return None
    return forms[rng.choice(candidates)].copy()


def name_counts(forms: Sequence[SemanticForm]) -> Counter:
    """How many predicates of `forms` carry each name: what `swap_frame` draws from."""
    return Counter(p.name for form in forms for p in form.predicates)


def swap_frame(
    forms: Sequence[SemanticForm], index: int, rng: Random, counts: Optional[Counter] = None
) -> Optional[SemanticForm]:
    """One predicate of forms[index] renamed to a predicate name of another sentence's
    form (its lexical unit and arguments kept): the words stay, the frame is wrong.
    None when no other form has a name this predicate does not already have.
    `counts`: `name_counts(forms)`, computed once by a caller that draws for every form."""
    own = forms[index]
    if own.is_empty():
        return None
    counts = name_counts(forms) if counts is None else counts
    own_counts = Counter(p.name for p in own.predicates)
    others = sorted(name for name, count in counts.items() if count > own_counts[name])
    p = rng.randrange(len(own.predicates))
    names = [name for name in others if name != own.predicates[p].name]
    if not names:
        return None
    new = own.copy()
    new.predicates[p].name = rng.choice(names)
    return new


NEGATIVE_KINDS: Dict[str, Optional[Callable]] = {
    "drop_role": drop_role,
    "drop_filler": drop_filler,
    "swap_fillers": swap_fillers,
    "foreign": None,  # foreign_form: needs the other forms
    "swap_frame": None,  # swap_frame: needs the other forms
}
# the paper's deletion functions and foreign forms (the default), and the frame-level
# negatives of frame-only forms, which have no roles to delete
PAPER_NEGATIVES = ("drop_role", "drop_filler", "swap_fillers", "foreign")
FRAME_NEGATIVES = ("swap_frame", "foreign")


def negatives(
    form: SemanticForm,
    forms: Sequence[SemanticForm],
    index: int,
    rng: Random,
    n: int,
    kind_marker: bool = True,
    kinds: Sequence[str] = PAPER_NEGATIVES,
    counts: Optional[Counter] = None,
) -> List[Tuple[str, str]]:
    """Up to n negatives of ``form`` (the form of sentence ``index`` of ``forms``) as
    (kind, linearised text) pairs. Each draw picks a kind uniformly among ``kinds``
    still applicable; texts are distinct, non-empty and differ from the positive's.
    Fewer than n come back when the form does not allow more ([] for an empty form).
    ``counts``: ``name_counts(forms)`` for swap_frame, when the caller has it."""
    unknown = [kind for kind in kinds if kind not in NEGATIVE_KINDS]
    if unknown:
        raise ValueError(f"midtune negatives: unknown kinds {unknown}; choose from {list(NEGATIVE_KINDS)}")
    if form.is_empty() or n <= 0:
        return []
    positive = linearize(form, kind_marker)
    kinds = list(kinds)
    out: List[Tuple[str, str]] = []
    seen = {positive}
    attempts = 0
    while len(out) < n and kinds and attempts < 10 * n:
        attempts += 1
        kind = rng.choice(kinds)
        if kind == "foreign":
            negative = foreign_form(forms, index, rng)
        elif kind == "swap_frame":
            negative = swap_frame(forms, index, rng, counts)
        else:
            negative = NEGATIVE_KINDS[kind](form, rng)
        if negative is None:
            kinds.remove(kind)  # inapplicable now means inapplicable for every draw
            continue
        text = linearize(negative, kind_marker)
        if text and text not in seen:
            seen.add(text)
            out.append((kind, text))
    return out
