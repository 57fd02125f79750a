"""Evaluation of frame_elements on the converted FrameNet corpora (metrics/frame_elements.json).

Settings, each scored with the component's registered scorer through `nlp.evaluate`:
- gold targets and gold frames (the argument-identification measure of open-sesame and
  frame-semantic-transformer): the reader puts the gold frames in doc.spans["frames"]
  and frame_identifier is disabled;
- end to end from raw text: frame_identifier finds the targets and their frames, and an
  FE counts only when its target, span and name are all right.
FN1.7 dev is scored with the FN1.7 inventory swapped into both components (no
retraining; the caller swaps it, `spacy_frames.set_inventory`), on all targets and on the
targets whose frame is new in 1.7.
Each setting gets the strict measure (fe_p / fe_r / fe_f) and open-sesame's labeled
argument-identification measure beside it (fe_os_p / fe_os_r / fe_os_f,
`score_frame_elements_open_sesame`), both from the registered scorer. Opt-in (`lu_lookup`):
the scores of the predictions plus a train-LU lookup that puts on each frame span the FE FrameNet's train set most often puts on that lexical unit's
targets (`target_fe_lookup`, `with_target_fes`), under "with_lu_lookup".
"""

from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import spacy
from spacy.language import Language
from spacy.scorer import Scorer
from spacy.tokens import DocBin, Span, SpanGroup
from spacy.training import Example
from spacy.vocab import Vocab

from ..corpora.readers import create_framenet_reader
from ..extensions import FE_KEY, FRAMES_KEY, TARGETS_KEY, install_extensions, make_fe_span
from ..inventory.frames import FrameInventory
from .frame_elements import OPEN_SESAME_KEYS, fe_tuples, score_frame_elements
from .frames_eval import renaming_into

LULookup = Dict[Tuple[str, str], str]

N_TOP_TYPES = 30


def fe_examples(nlp: Language, path, gold_frames: bool = True) -> List[Example]:
    """Examples of a FrameNet DocBin: with the gold targets and frames as preset frames
    (`gold_frames`), or raw text. A pipeline trained against another release than the
    corpus's (its frames.json beside it) gets the gold frames under its own names."""
    path = Path(path)
    corpus = create_framenet_reader(
        str(path), gold_targets=gold_frames, gold_frames_key=FRAMES_KEY if gold_frames else None
    )
    if (path.parent / "frames.json").exists():
        corpus.renaming = renaming_into(path.parent / "frames.json", nlp.get_pipe("frame_elements").inventory)
    return list(corpus(nlp))


def evaluate_fe(
    nlp: Language,
    examples: List[Example],
    gold_frames: bool = True,
    batch_size: int = 32,
    *,
    lu_lookup: Optional[LULookup] = None,
) -> Dict:
    """FE P/R/F (percent) and open-sesame's fe_os_p / fe_os_r / fe_os_f beside them, core /
    non-core F, the most frequent FE names, counts, words/s; with `lu_lookup` also
    "with_lu_lookup": the strict and open-sesame P/R/F of the predictions plus the lookup's FEs."""
    disable = [name for name in ("frame_identifier",) if gold_frames and name in nlp.pipe_names]
    # nlp.evaluate scores copies of the examples: a scorer that keeps them gives the predictions
    scorer = _KeepingScorer(nlp=nlp) if lu_lookup is not None else None
    with nlp.select_pipes(disable=disable):
        scores = nlp.evaluate(examples, batch_size=batch_size, scorer=scorer)
    per_type = scores.get("fe_per_type") or {}
    top = sorted(per_type.items(), key=lambda item: (-item[1]["n"], item[0]))[:N_TOP_TYPES]
    result = {
        "fe_p": _pct(scores.get("fe_p")),
        "fe_r": _pct(scores.get("fe_r")),
        "fe_f": _pct(scores.get("fe_f")),
        **{key: _pct(scores.get(key)) for key in OPEN_SESAME_KEYS},
        "fe_core_f": _pct(scores.get("fe_core_f")),
        "fe_noncore_f": _pct(scores.get("fe_noncore_f")),
        "targets": sum(len(eg.reference.spans.get(TARGETS_KEY, [])) for eg in examples),
        "gold_fes": sum(_n_gold_fes(eg) for eg in examples),
        "words_per_second": round(scores.get("speed", 0.0), 1),
        "top_fe_types": {
            name: {"p": _pct(s["p"]), "r": _pct(s["r"]), "f": _pct(s["f"]), "n": s["n"]} for name, s in top
        },
    }
    if lu_lookup is not None:
        component = nlp.get_pipe("frame_elements")
        looked_up = with_target_fes(scorer.examples, lu_lookup)
        both = score_frame_elements(looked_up, component=component)
        result["with_lu_lookup"] = {key: _pct(both[key]) for key in ("fe_p", "fe_r", "fe_f", *OPEN_SESAME_KEYS)}
    return result


class _KeepingScorer(Scorer):
    """A Scorer that keeps the examples it scores (the pipeline's predictions)."""

    examples: List[Example]

    def score(self, examples, **kwargs):
        self.examples = list(examples)
        return super().score(self.examples, **kwargs)


def target_fe_lookup(path, vocab: Optional[Vocab] = None) -> LULookup:
    """(lexical unit, frame) -> the FE name that the targets of that LU and frame in the
    DocBin at `path` (converted with FEs on their target kept) most often carry exactly on
    themselves, for the pairs where that FE is more frequent than no FE on the target."""
    install_extensions()
    outcomes: Dict[Tuple[str, str], Counter] = defaultdict(Counter)
    for doc in DocBin().from_disk(path).get_docs(vocab or Vocab()):
        for target in doc.spans.get(TARGETS_KEY, []):
            if not target._.lexical_unit:
                continue
            offsets = (target.start_char, target.end_char)
            on_target = [fe.label_ for fe in target._.frame_elements if (fe.start_char, fe.end_char) == offsets]
            outcomes[(target._.lexical_unit, target.label_)][on_target[0] if on_target else ""] += 1
    lookup: LULookup = {}
    for key, counts in outcomes.items():
        name, _ = min(counts.items(), key=lambda item: (-item[1], item[0]))
        if name:
            lookup[key] = name
    return lookup


def with_target_fes(
    examples: Iterable[Example], lookup: LULookup, fe_key: str = FE_KEY, frames_key: str = FRAMES_KEY
) -> List[Example]:
    """Copies of `examples` whose predicted docs also hold, for every frame span whose
    (lexical unit, frame) `lookup` knows, that FE on the frame span itself (unless the
    frame span already has an FE of that name)."""
    install_extensions()
    out = []
    for eg in examples:
        doc = eg.predicted.copy()
        fes = list(doc.spans.get(fe_key, []))
        for frame_span in doc.spans.get(frames_key, []):
            name = lookup.get((frame_span._.lexical_unit, frame_span.label_))
            if name is None or any(fe.label_ == name for fe in frame_span._.frame_elements):
                continue
            fes.append(make_fe_span(frame_span, frame_span.start, frame_span.end, name))
        attrs = dict(doc.spans[fe_key].attrs) if fe_key in doc.spans else {}
        doc.spans[fe_key] = SpanGroup(doc, name=fe_key, spans=fes, attrs=attrs)
        out.append(Example(doc, eg.reference))
    return out


def fe_error_breakdown(nlp: Language, examples: List[Example], batch_size: int = 32) -> Dict:
    """`fe_errors` of the pipeline's FEs on gold frames (frame_identifier disabled)."""
    from .frame_elements import fe_errors

    disable = [name for name in ("frame_identifier",) if name in nlp.pipe_names]
    with nlp.select_pipes(disable=disable):
        docs = list(nlp.pipe((eg.predicted.copy() for eg in examples), batch_size=batch_size))
    return fe_errors([Example(doc, eg.reference) for doc, eg in zip(docs, examples)])


def _n_gold_fes(eg: Example) -> int:
    """The gold FEs of the example's gold targets (as the scorer counts them)."""
    offsets = {(t.start_char, t.end_char) for t in eg.reference.spans.get(TARGETS_KEY, [])}
    return sum(1 for key in fe_tuples(eg.reference) if (key[0], key[1]) in offsets)


def _pct(value):
    return None if value is None else round(100 * value, 2)


def restrict_targets(examples: List[Example], keep) -> List[Example]:
    """Examples restricted to the gold targets for which keep(span) is true (the preset
    frames of the predicted docs follow; the scorer counts FEs of gold targets only)."""
    out = []
    for eg in examples:
        gold = [s for s in eg.reference.spans.get(TARGETS_KEY, []) if keep(s)]
        if not gold:
            continue
        offsets = {(s.start_char, s.end_char, s.label_) for s in gold}
        reference, predicted = eg.reference.copy(), eg.predicted.copy()
        reference.spans[TARGETS_KEY] = [Span(reference, s.start, s.end, label=s.label_) for s in gold]
        predicted.spans[FRAMES_KEY] = [
            Span(predicted, s.start, s.end, label=s.label_)
            for s in eg.predicted.spans.get(FRAMES_KEY, [])
            if (s.start_char, s.end_char, s.label_) in offsets
        ]
        out.append(Example(predicted, reference))
    return out


def load_frame_parser(model: str) -> Language:
    """The pipeline of `model` with frame_elements, and frame_identifier enabled (it may
    have been saved disabled: frame_elements is trained on gold frames)."""
    install_extensions()
    nlp = spacy.load(model)
    if "frame_elements" not in nlp.component_names:
        raise ValueError(f"{model} has no frame_elements component (components: {nlp.component_names})")
    if "frame_identifier" in nlp.disabled:
        nlp.enable_pipe("frame_identifier")
    return nlp


def evaluate_frame_elements(
    nlp: Language,
    model: str,
    fn15_dir: Path,
    splits: Sequence[str] = ("dev",),
    end_to_end: bool = False,
    *,
    lu_lookup: Optional[LULookup] = None,
) -> Dict:
    """The FN1.5 frame_elements numbers of one trained pipeline (see the module docstring).
    `splits`: FN1.5 splits on gold frames (dev for tuning; test is reported once);
    `end_to_end`: also raw text on FN1.5 test. `model`: its name in the result.
    `lu_lookup`: see :func:`evaluate_fe`."""
    options = {"lu_lookup": lu_lookup}
    result: Dict = {"model": str(model), "setting": "gold targets and gold frames unless named end_to_end"}
    for split in splits:
        examples = fe_examples(nlp, fn15_dir / f"{split}.spacy")
        result[f"fn15_{split}"] = evaluate_fe(nlp, examples, **options)
        if split == "dev":  # where the F is lost, for the next model (never read on test)
            result["fn15_dev"]["errors"] = fe_error_breakdown(nlp, examples)
    if end_to_end:
        result["fn15_test_end_to_end"] = evaluate_fe(
            nlp, fe_examples(nlp, fn15_dir / "test.spacy", gold_frames=False), gold_frames=False, **options
        )
    return result


def evaluate_frame_elements_fn17(
    nlp: Language,
    fn15_dir: Path,
    fn17_dir: Path,
    *,
    lu_lookup: Optional[LULookup] = None,
) -> Dict:
    """FN1.7 dev on gold frames, all targets and those whose frame FN1.5 lacks, of a
    pipeline that carries the FN1.7 inventory. `lu_lookup`: see
    :func:`evaluate_fe`."""
    options = {"lu_lookup": lu_lookup}
    fn15 = FrameInventory().from_disk(fn15_dir / "frames.json")
    dev17 = fe_examples(nlp, fn17_dir / "dev.spacy")
    result = {"fn17_dev": evaluate_fe(nlp, dev17, **options)}
    new = restrict_targets(dev17, lambda span: span.label_ not in fn15)
    result["fn17_dev_new_frames"] = evaluate_fe(nlp, new, **options) if new else None
    return result


# -- the decision threshold and the candidates (tuned on dev) ----------------------------------
DEFAULT_FE_THRESHOLDS = (-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
# the suggester's n-gram gap: None = every n-gram of the window (what training sees)
DEFAULT_NGRAM_GAPS = (None, 2, 0)
