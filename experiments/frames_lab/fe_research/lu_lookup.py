"""A train-LU lookup beside the shipped frame_elements: per frame span, the FE FrameNet's
train set most often puts on that lexical unit's targets themselves, added to the
pipeline's predictions and scored with the product's scorer (both measures).

    python -m frames_lab.fe_research open-sesame-measure ../../training/frames_final \
        --fn15 corpus/framenet15_target_fes --fn17 corpus/framenet17_target_fes \
        --split dev --split test --end-to-end --lu-lookup corpus/framenet15_target_fes/train.spacy \
        --output metrics/frame_elements_open_sesame.json

writes the product's `evaluate-frame-elements` JSON with a "with_lu_lookup" entry beside
every setting's scores.
"""

from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import DocBin, SpanGroup
from spacy.training import Example
from spacy.vocab import Vocab

from spacy_frames.extensions import FE_KEY, FRAMES_KEY, TARGETS_KEY, install_extensions, make_fe_span
from spacy_frames.scoring.frame_elements import OPEN_SESAME_KEYS, score_frame_elements

LULookup = Dict[Tuple[str, str], str]
SCORE_KEYS = ("fe_p", "fe_r", "fe_f", *OPEN_SESAME_KEYS)


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


def score_with_lookup(
    nlp: Language, examples: List[Example], lookup: LULookup, gold_frames: bool = True, batch_size: int = 32
) -> Dict[str, Optional[float]]:
    """The pipeline's FEs plus the lookup's, both measures in percent (gold frames:
    frame_identifier disabled, the examples' preset frames read)."""
    disable = [name for name in ("frame_identifier",) if gold_frames and name in nlp.pipe_names]
    with nlp.select_pipes(disable=disable):
        docs = list(nlp.pipe((eg.predicted.copy() for eg in examples), batch_size=batch_size))
    looked_up = with_target_fes([Example(doc, eg.reference) for doc, eg in zip(docs, examples)], lookup)
    scores = score_frame_elements(looked_up, component=nlp.get_pipe("frame_elements"))
    return {key: None if scores[key] is None else round(100 * scores[key], 2) for key in SCORE_KEYS}


def evaluate_open_sesame(
    model: str,
    fn15_dir: Path,
    fn17_dir: Optional[Path],
    splits: Sequence[str],
    end_to_end: bool,
    lu_lookup: Optional[Path],
) -> Dict:
    """The product's frame_elements evaluation of `model`, with "with_lu_lookup" beside each
    setting's scores when `lu_lookup` (a train DocBin) is given."""
    from spacy_frames.inventory.frames import FrameInventory
    from spacy_frames.pipeline.inventory_ops import set_inventory
    from spacy_frames.scoring.frame_elements_eval import (
        evaluate_frame_elements,
        evaluate_frame_elements_fn17,
        fe_examples,
        load_frame_parser,
    )
    from spacy_frames.scoring.frames_eval import subset

    nlp = load_frame_parser(model)
    lookup = target_fe_lookup(lu_lookup, nlp.vocab) if lu_lookup is not None else None
    result = evaluate_frame_elements(nlp, model, fn15_dir, splits, end_to_end)
    if lookup is not None:
        for split in splits:
            examples = fe_examples(nlp, fn15_dir / f"{split}.spacy")
            result[f"fn15_{split}"]["with_lu_lookup"] = score_with_lookup(nlp, examples, lookup)
        if end_to_end:
            raw = fe_examples(nlp, fn15_dir / "test.spacy", gold_frames=False)
            result["fn15_test_end_to_end"]["with_lu_lookup"] = score_with_lookup(nlp, raw, lookup, gold_frames=False)
    if fn17_dir is not None and (fn17_dir / "dev.spacy").exists():
        set_inventory(nlp, FrameInventory().from_disk(fn17_dir / "frames.json"))
        result.update(evaluate_frame_elements_fn17(nlp, fn15_dir, fn17_dir))
        if lookup is not None:
            dev17 = fe_examples(nlp, fn17_dir / "dev.spacy")
            result["fn17_dev"]["with_lu_lookup"] = score_with_lookup(nlp, dev17, lookup)
            fn15 = FrameInventory().from_disk(fn15_dir / "frames.json")
            new = subset(dev17, lambda span: span.label_ not in fn15, FRAMES_KEY, match_label=True)
            if new:
                result["fn17_dev_new_frames"]["with_lu_lookup"] = score_with_lookup(nlp, new, lookup)
    return result
